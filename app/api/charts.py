"""Small labelled bar charts of odds distributions (docs/api.md#answer-formats).

`Accept: image/svg+xml` gives an SVG a web page can embed (its text kept as text, so the axis
and values can be read and searched); `Accept: image/png` a PNG a Discord bot can attach.
Drawn with matplotlib's object API on the Agg backend (no pyplot: no global figure state, safe
from any thread). One distribution is a plain bar chart (`bar_chart`); several, one per
party, are grouped bars side by side with a legend naming each (`grouped_bar_chart`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any, Final, Literal

import matplotlib

matplotlib.use("Agg")

from matplotlib import rc_context
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from starlette.requests import Request
from starlette.responses import Response

SVG: Final = "image/svg+xml"
PNG: Final = "image/png"
ImageType = Literal["image/svg+xml", "image/png"]


def wanted_image(request: Request) -> ImageType | None:
    """The image type the caller asks for, when `Accept` names one before JSON."""
    accept = request.headers.get("accept", "")
    found: list[tuple[int, ImageType]] = [
        (accept.index(kind), kind) for kind in (SVG, PNG) if kind in accept
    ]
    if not found:
        return None
    position, kind = min(found)
    json_at = accept.find("application/json")
    return kind if json_at < 0 or position < json_at else None


def bar_chart(
    distribution: Mapping[str, float], *, title: str, xlabel: str, kind: ImageType
) -> bytes:
    """A bar chart of `{value: probability}` with a title, both axes labelled."""
    values = list(distribution)
    heights = [distribution[value] for value in values]
    with rc_context({"svg.fonttype": "none", "font.size": 8, "text.parse_math": False}):
        figure = Figure(figsize=(6.4, 3.2), dpi=100)
        axes = figure.add_subplot()
        axes.bar(range(len(values)), heights, color="#4a7ab5")
        step = max(1, len(values) // 20)
        axes.set_xticks(range(0, len(values), step), values[::step])
        axes.set_xlabel(xlabel)
        axes.set_ylabel("probability")
        axes.set_title(title)
        figure.tight_layout()
        out = io.BytesIO()
        figure.savefig(out, format="svg" if kind == SVG else "png")
    return out.getvalue()


def grouped_bar_chart(
    series: Mapping[str, Mapping[str, float]],
    *,
    title: str,
    xlabel: str,
    kind: ImageType,
    legend_title: str | None = None,
) -> bytes:
    """Several `{value: probability}` distributions as grouped bars, one colour per series,
    a legend naming each series (its key in `series`), a title, both axes labelled.

    The values on the x axis are every series' values (in order of their numbers when they
    all are whole numbers); a value a series lacks is a bar of height 0. Names are drawn as
    written: `$` does not switch to matplotlib's math text, and a leading `_` still shows.
    """
    values = _shared_values(series)
    names = list(series)
    width = BAR_SPAN / max(1, len(names))
    colours = matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"]
    with rc_context({"svg.fonttype": "none", "font.size": 8, "text.parse_math": False}):
        # Constrained layout makes room for the legend, outside the axes on the right, so it
        # never hides a bar however many parties there are.
        figure = Figure(figsize=(6.4, 3.2), dpi=100, layout="constrained")
        axes = figure.add_subplot()
        handles: list[Artist] = []
        for index, name in enumerate(names):
            distribution = series[name]
            offset = -BAR_SPAN / 2 + width * (index + 0.5)
            colour = colours(index % colours.N)
            axes.bar(
                [position + offset for position in range(len(values))],
                [distribution.get(value, 0.0) for value in values],
                width,
                color=colour,
            )
            handles.append(Patch(color=colour))
        step = max(1, len(values) // 20)
        axes.set_xticks(range(0, len(values), step), values[::step])
        axes.set_xlabel(xlabel)
        axes.set_ylabel("probability")
        axes.set_title(title)
        # Handles and labels given explicitly (a patch of each colour): matplotlib would
        # leave out a bar's label that starts with "_".
        figure.legend(
            handles,
            names,
            loc="outside right upper",
            title=legend_title,
            fontsize="small",
            ncols=1 if len(names) <= 8 else 2,
        )
        out = io.BytesIO()
        figure.savefig(out, format="svg" if kind == SVG else "png")
    return out.getvalue()


#: The share of the space between two x values that a group of bars fills.
BAR_SPAN: Final = 0.8


def _shared_values(series: Mapping[str, Mapping[str, float]]) -> list[str]:
    """Every series' values, first seen first; by number when all are whole numbers."""
    values = list(
        dict.fromkeys(value for distribution in series.values() for value in distribution)
    )
    try:
        return sorted(values, key=int)
    except ValueError:
        return values


def chart_response(
    distribution: Mapping[str, float], *, title: str, xlabel: str, kind: ImageType
) -> Response:
    """The chart as a response of its media type."""
    body = bar_chart(distribution, title=title, xlabel=xlabel, kind=kind)
    return Response(body, media_type=kind)


def bar_chart_bytes(
    distribution: tuple[tuple[str, float], ...], title: str, xlabel: str, kind: ImageType
) -> bytes:
    """`bar_chart` with hashable, picklable arguments (for a worker process and a cache)."""
    return bar_chart(dict(distribution), title=title, xlabel=xlabel, kind=kind)


def grouped_bar_chart_bytes(
    series: tuple[tuple[str, tuple[tuple[str, float], ...]], ...],
    title: str,
    xlabel: str,
    kind: ImageType,
    legend_title: str | None = None,
) -> bytes:
    """`grouped_bar_chart` with hashable, picklable arguments (for a worker process and a
    cache): `((name, ((value, probability), ...)), ...)`."""
    return grouped_bar_chart(
        {name: dict(distribution) for name, distribution in series},
        title=title,
        xlabel=xlabel,
        kind=kind,
        legend_title=legend_title,
    )


def chart_doc(charted: bool = True) -> dict[int | str, dict[str, Any]]:
    """The 200 answer's alternatives (its summary line; a chart when `charted`)."""
    content: dict[str, Any] = {"text/plain": {"schema": {"type": "string"}}}
    if charted:
        content[SVG] = {"schema": {"type": "string"}}
        content[PNG] = {"schema": {"type": "string", "format": "binary"}}
    return {200: {"content": content}, 422: {"description": "Invalid input (problem+json)"}}
