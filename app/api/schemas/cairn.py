"""Request and response schemas of the Cairn Hill roll (docs/api.md#cairn-hill-roll,
docs/rules.md#cairn-hill-roll)."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
    D100,
    RollRecord,
    RuleLink,
    Seed,
    Strict,
    UnusedRecord,
    given,
    in_schema,
    left_out,
    when,
)
from app.rules.cairn import DICE_COUNT, MAX_RATING, MIN_RATING

Rating = Annotated[
    int, Field(ge=MIN_RATING, le=MAX_RATING, description="r, the sum of the two stats")
]
#: A single stat; only the sum (the rating) is bounded by the rules, this just keeps it sane.
Stat = Annotated[int, Field(ge=-1000, le=1000)]
Target = Annotated[int, Field(ge=-100_000, le=100_000, description="succeeds when score >= it")]


class CairnRollRequest(Strict):
    """A Cairn Hill roll (docs/rules.md#cairn-hill-roll).

    Rules across fields:
    - exactly one of `rating` and `stats` (said in the schema);
    - the stats' sum is a rating within the same bounds.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(given("rating", "integer"), left_out("stats"), given("stats", "array")),
            beyond=(f"`stats` whose sum is outside {MIN_RATING}..{MAX_RATING}, a rating's bounds",),
        )
    )

    rating: Rating | None = None
    stats: (
        Annotated[
            list[Stat],
            Field(min_length=2, max_length=2, description="two stats; the rating is their sum"),
        ]
        | None
    ) = None
    target: Target | None = None
    dice: (
        Annotated[
            list[D100],
            Field(
                min_length=DICE_COUNT,
                max_length=DICE_COUNT,
                description="the seven d100s, in any order",
            ),
        ]
        | None
    ) = None
    success_x2_x3: Literal["raised", "lowered"] = Field(
        default="raised",
        description='a critical success on the x2 and x3 rows: "raised" like the other rows, '
        'or "lowered", as the source writes those two rows (docs/rules.md#cairn-hill-roll)',
    )
    critical_die: Annotated[D100 | None, Field(description="the critical d100")] = None
    magnitude_die: Annotated[
        D100 | None,
        Field(
            description=(
                "the magnitude d100, used only on a critical; without a critical it is "
                "ignored and left out of rolls"
            )
        ),
    ] = None
    seed: Seed | None = None


#: The positions of the sorted dice, worst first (`app.rules.cairn.POSITION_NAMES`).
CairnPosition = Literal[
    "worst", "second worst", "third worst", "middle", "third best", "second best", "best"
]


@with_config(ANSWER)
class CairnRollAnswer(TypedDict):
    """The answer of `POST /v1/cairn/roll`: every step of the roll
    (docs/rules.md#cairn-hill-roll)."""

    rating: int
    dice_sorted: list[int]
    chosen: list[int]
    chosen_names: list[CairnPosition]
    average: int
    base_score: int
    critical_die: int
    critical: Literal["success", "failure"] | None
    magnitude_die: int | None
    multiplier: int | None
    adjustment: int
    score: int
    target: int | None
    success: bool | None
    rule: RuleLink
    rolls: list[RollRecord]
    #: Supplied dice the rules did not use (only when there are any).
    unused: NotRequired[list[UnusedRecord]]
    summary: str
