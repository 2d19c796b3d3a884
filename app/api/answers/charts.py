"""Small labelled bar charts of odds distributions (docs/api.md#answer-formats).

`Accept: image/svg+xml` gives an SVG a web page can embed (its text kept as text, so the axis
and values can be read and searched); `Accept: image/png` a PNG a Discord bot can attach.
The drawing itself is `app.api.answers.drawing`'s (matplotlib), run in the odds worker process:
`bar_chart_bytes` and `grouped_bar_chart_bytes` import it when they run there, so the
service's own processes never load matplotlib. Their words (title, axes, legend) come worded
already, in the request's language (docs/languages.md#odds).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from app.api.answers.image_types import PNG, SVG, ImageType

__all__ = ["PNG", "SVG", "ImageType", "bar_chart_bytes", "grouped_bar_chart_bytes", "wanted_image"]


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


def bar_chart_bytes(
    distribution: tuple[tuple[str, float], ...],
    title: str,
    xlabel: str,
    kind: ImageType,
    ylabel: str = "probability",
) -> bytes:
    """`bar_chart` with hashable, picklable arguments (for a worker process and a cache)."""
    from app.api.answers import drawing  # here, in the worker: see the module docstring

    return drawing.bar_chart(
        dict(distribution), title=title, xlabel=xlabel, kind=kind, ylabel=ylabel
    )


def grouped_bar_chart_bytes(
    series: tuple[tuple[str, tuple[tuple[str, float], ...]], ...],
    title: str,
    xlabel: str,
    kind: ImageType,
    legend_title: str | None = None,
    ylabel: str = "probability",
) -> bytes:
    """`grouped_bar_chart` with hashable, picklable arguments (for a worker process and a
    cache): `((name, ((value, probability), ...)), ...)`."""
    from app.api.answers import drawing  # here, in the worker: see the module docstring

    return drawing.grouped_bar_chart(
        {name: dict(distribution) for name, distribution in series},
        title=title,
        xlabel=xlabel,
        kind=kind,
        legend_title=legend_title,
        ylabel=ylabel,
    )


def chart_doc(charted: bool = True, *, model: Any = None) -> dict[int | str, dict[str, Any]]:
    """The 200 answer's alternatives (its summary line; a chart when `charted`), and the type
    of its JSON (`model`)."""
    content: dict[str, Any] = {"text/plain": {"schema": {"type": "string"}}}
    if charted:
        content[SVG] = {"schema": {"type": "string"}}
        content[PNG] = {"schema": {"type": "string", "format": "binary"}}
    answer: dict[str, Any] = {"content": content}
    if model is not None:
        answer["model"] = model
    return {200: answer, 422: {"description": "Invalid input (problem+json)"}}
