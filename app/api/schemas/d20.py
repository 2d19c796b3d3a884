"""Request and response schemas of the lone d20 check (docs/api.md#d20-check,
docs/rules.md#d20-checks)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import ANSWER, D20, RollRecord, RuleLink, Seed, Strict
from app.rules.checks import MAX_DC, MAX_MODIFIER, MIN_DC, MIN_MODIFIER


class D20CheckRequest(Strict):
    modifier: Annotated[int, Field(ge=MIN_MODIFIER, le=MAX_MODIFIER)]
    dc: (
        Annotated[int, Field(ge=MIN_DC, le=MAX_DC, description="succeeds when total >= dc")] | None
    ) = None
    roll: Annotated[D20 | None, Field(description="the natural d20, if already rolled")] = None
    seed: Seed | None = None


@with_config(ANSWER)
class D20CheckAnswer(TypedDict):
    """The answer of `POST /v1/d20/check`: the d20, the total and, with a DC, success."""

    roll: int
    modifier: int
    total: int
    dc: int | None
    success: bool | None
    rule: RuleLink
    rolls: list[RollRecord]
    summary: str
