"""Request and response schemas of the dice-notation endpoint (docs/api.md#dice-notation-roll,
docs/rules.md#dice-notation)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
    DICE_NOTATION,
    RollRecord,
    RuleLink,
    Seed,
    Strict,
    refused_beyond_schema,
)
from app.notation import MAX_EXPRESSION_LENGTH

Expr = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_EXPRESSION_LENGTH,
        description="dice notation as the d20 library reads it, e.g. 4d6kh3 or 1d20+5[fire]",
        examples=["4d6kh3"],
        json_schema_extra=refused_beyond_schema(DICE_NOTATION),
    ),
]


class RollRequest(Strict):
    expr: Expr
    seed: Seed | None = None


@with_config(ANSWER)
class NotationRollAnswer(TypedDict):
    """The answer of `GET|POST /v1/roll`: the total and breakdown of a dice expression."""

    expr: str
    total: int
    breakdown: str
    rule: RuleLink
    rolls: list[RollRecord]
    summary: str
