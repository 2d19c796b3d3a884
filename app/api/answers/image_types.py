"""The image types a chart is drawn as (docs/api.md#answer-formats): apart from
`app.api.answers.charts`, which hands the drawing to the odds worker, and
`app.api.answers.drawing`, which draws there, so that each imports them without importing the
other."""

from __future__ import annotations

from typing import Final, Literal

SVG: Final = "image/svg+xml"
PNG: Final = "image/png"
ImageType = Literal["image/svg+xml", "image/png"]
