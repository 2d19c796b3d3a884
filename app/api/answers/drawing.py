"""The charts themselves, drawn with matplotlib (docs/api.md#answer-formats).

Imported only where charts are drawn, in the odds worker process (`app.api.answers.charts` hands the
work there): the service's own processes never load matplotlib, numpy and Pillow, which
would make every garbage collection of theirs walk a hundred thousand more objects.
Drawn with matplotlib's object API on the Agg backend (no pyplot: no global figure state,
safe from any thread). One distribution is a plain bar chart (`bar_chart`); several, one per
party, are grouped bars side by side with a legend naming each (`grouped_bar_chart`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Final

import matplotlib

matplotlib.use("Agg")

from matplotlib import rc_context
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from app.api.answers.image_types import SVG, ImageType


def bar_chart(
    distribution: Mapping[str, float],
    *,
    title: str,
    xlabel: str,
    kind: ImageType,
    ylabel: str = "probability",
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
        axes.set_ylabel(ylabel)
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
    ylabel: str = "probability",
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
        axes.set_ylabel(ylabel)
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
