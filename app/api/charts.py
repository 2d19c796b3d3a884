"""Small labelled bar charts of odds distributions (docs/api.md#answer-formats).

`Accept: image/svg+xml` gives an SVG a web page can embed (its text kept as text, so the axis
and values can be read and searched); `Accept: image/png` a PNG a Discord bot can attach.
Drawn with matplotlib's object API on the Agg backend (no pyplot: no global figure state, safe
from any thread).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any, Final, Literal

import matplotlib

matplotlib.use("Agg")

from matplotlib import rc_context
from matplotlib.figure import Figure
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
    with rc_context({"svg.fonttype": "none", "font.size": 8}):
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


def chart_doc(charted: bool = True) -> dict[int | str, dict[str, Any]]:
    """The 200 answer's alternatives (its summary line; a chart when `charted`)."""
    content: dict[str, Any] = {"text/plain": {"schema": {"type": "string"}}}
    if charted:
        content[SVG] = {"schema": {"type": "string"}}
        content[PNG] = {"schema": {"type": "string", "format": "binary"}}
    return {200: {"content": content}, 422: {"description": "Invalid input (problem+json)"}}
