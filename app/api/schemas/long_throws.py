"""Request and response schemas of `POST /v1/long-throws` (docs/api.md#long-throws,
docs/rules.md#long-throws)."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from app.api.schemas.common import (
    ANSWER,
    D6,
    D20,
    DISTINCT_NAMES,
    Name,
    RollRecord,
    RuleLink,
    Seed,
    Strict,
    UnusedRecord,
    given,
    in_schema,
    is_,
    when,
)
from app.rules.long_throw import (
    DEFAULT_MAX_SERIES,
    HALFLING_TOSS_DISTANCE_FT,
    MAX_COMPETITORS,
    MAX_LOAD_LB,
    MAX_MODIFIER,
    MAX_RANGE_INCREMENT_FT,
    MAX_SERIES_LIMIT,
    MAX_STRENGTH,
    MAX_TOSS_DISTANCE_FT,
    MAX_WEIGHT_LB,
    MIN_STRENGTH,
    FarShotRule,
    Load,
    Mode,
    Size,
)

StandardObject = Literal["javelin", "discus", "stone", "halfling", "small-boulder", "log"]
Modifier = Annotated[int, Field(ge=-MAX_MODIFIER, le=MAX_MODIFIER)]
Pounds = Annotated[int, Field(ge=0, le=MAX_LOAD_LB)]


class CustomObject(Strict):
    """An object not in docs/rules.md#objects's table."""

    name: Name
    weight_lb: Annotated[float, Field(gt=0, le=MAX_WEIGHT_LB, allow_inf_nan=False)]
    range_increment_ft: Annotated[int, Field(ge=1, le=MAX_RANGE_INCREMENT_FT)]
    weapon: bool = False
    creature: bool = False


class LoadLimitsIn(Strict):
    """Light, medium and heavy load maxima in lb, used as given (not scaled by size)."""

    light: Pounds
    medium: Pounds
    heavy: Pounds


class LongThrowCompetitor(Strict):
    """A thrower: `strength_score`, `load_limits` or both."""

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when({"not": given("strength_score", "integer")}, given("load_limits", "object"))
        )
    )

    name: Name
    strength_score: Annotated[int, Field(ge=MIN_STRENGTH, le=MAX_STRENGTH)] | None = None
    load_limits: LoadLimitsIn | None = None
    size: Size = "medium"
    strength_mod: Modifier | None = Field(
        default=None, description="defaults to the modifier of strength_score"
    )
    dex_mod: Modifier = 0
    ranged_attack_bonus: Modifier = 0
    weapon_focus: bool = Field(
        default=False,
        description="Weapon Focus in this object as a weapon: +1 on the distance check "
        "when the object is a weapon",
    )
    far_shot: bool = False
    tumble_mod: Modifier = Field(
        default=0, description="Tumble modifier of the creature she throws"
    )
    roll: D20 | Annotated[list[D20], Field(max_length=MAX_SERIES_LIMIT)] | None = Field(
        default=None,
        description="the supplied d20 (distance, caber); in precision a list, one per series",
    )
    damage_roll: D6 | None = Field(
        default=None, description="the supplied landing-damage d6 of the creature she throws"
    )
    tumble_roll: D20 | None = Field(
        default=None, description="the supplied Tumble d20 of the creature she throws"
    )


class LongThrowRequest(Strict):
    """A long-throw competition: the object, the mode and the throwers
    (docs/rules.md#long-throws).

    Rules across fields:
    - competitor names are unique;
    - every competitor gives `strength_score`, `load_limits` or both;
    - `load_limits` are in order: light <= medium <= heavy;
    - in `distance` and `halfling-toss` mode, and in `caber` with a creature thrown
      `into_wall`, a competitor who can lift the object needs `strength_mod` or
      `strength_score`;
    - `halfling-toss` throws a creature (`halfling`, or a custom object with `creature: true`),
      never `into_wall`; `toss_distance_ft` is for that mode only.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(
                is_("mode", "halfling-toss"),
                {
                    "properties": {
                        "into_wall": {"const": False},
                        "object": {
                            "anyOf": [
                                {"const": "halfling"},
                                {"type": "object", **is_("creature", True)},
                            ]
                        },
                    }
                },
            ),
            when(
                {"not": is_("mode", "halfling-toss")},
                {"properties": {"toss_distance_ft": {"type": "null"}}},
            ),
            beyond=(
                DISTINCT_NAMES,
                "`load_limits` out of order (light <= medium <= heavy)",
                "a thrower who can lift the object but gives neither `strength_mod` nor "
                "`strength_score`, in `distance` and `halfling-toss` mode and in `caber` with a "
                "creature thrown `into_wall`",
            ),
        )
    )

    object: StandardObject | CustomObject
    mode: Mode = Field(
        default="distance",
        description="distance, caber, precision, or halfling-toss: a toss into a snow bank or "
        "hay bale toss_distance_ft away, where a thrower who falls short loses",
    )
    into_wall: bool = False
    max_series: Annotated[int, Field(ge=1, le=MAX_SERIES_LIMIT)] = DEFAULT_MAX_SERIES
    toss_distance_ft: (
        Annotated[int, Field(ge=HALFLING_TOSS_DISTANCE_FT, le=MAX_TOSS_DISTANCE_FT)] | None
    ) = Field(
        default=None,
        description="halfling-toss only: how far away the bank is, 15 (the default) or more",
    )
    far_shot_doubles: FarShotRule = Field(
        default="check",
        description="what Far Shot doubles in a distance or halfling-toss DS: the whole check "
        "(check) or the d20 alone (die)",
    )
    competitors: Annotated[
        list[LongThrowCompetitor], Field(min_length=1, max_length=MAX_COMPETITORS)
    ]
    seed: Seed | None = None


#: A load category's penalty on every roll (docs/rules.md#who-may-throw-loads); `over` has none (no
#: roll).
Penalty = Literal[0, -3, -6]


@with_config(ANSWER)
class LongThrowObject(TypedDict):
    """The object thrown in a long throw, standard or custom (docs/rules.md#objects)."""

    name: str
    weight_lb: float
    range_increment_ft: int
    weapon: bool
    creature: bool


@with_config(ANSWER)
class LongThrowLoadLimits(TypedDict):
    """A thrower's light, medium and heavy load maxima in lb (docs/rules.md#who-may-throw-loads)."""

    light: int
    medium: int
    heavy: int


@with_config(ANSWER)
class LongThrowCreatureDamage(TypedDict):
    """A thrown creature's landing: its damage, its Tumble check, the wall's damage."""

    damage: int
    rolled_damage: int
    tumble_roll: int
    tumble_total: int
    negated: bool
    wall_damage: int | None


@with_config(ANSWER)
class LongThrowCompetitorResult(TypedDict):
    """One thrower's standing; which optional keys appear depends on the mode and object."""

    name: str
    eligible: bool
    load: Load
    penalty: Penalty
    load_limits: LongThrowLoadLimits
    # distance and caber: one d20 and one check; precision: one per series thrown in.
    # None when she cannot lift the object.
    roll: int | list[int] | None
    check: int | list[int] | None
    ds: int | None
    # distance and halfling-toss only.
    increments: NotRequired[int | None]
    distance_ft: NotRequired[int | None]
    # halfling-toss only: whether the toss carried to the bank (a miss loses).
    landed: NotRequired[bool | None]
    # distance and caber with a creature only.
    creature_damage: NotRequired[LongThrowCreatureDamage | None]
    # precision only.
    out_in_series: NotRequired[int | None]


@with_config(ANSWER)
class LongThrowPrecisionThrow(TypedDict):
    """One attack roll of a precision series (docs/rules.md#long-throw-variants)."""

    name: str
    roll: int
    range_penalty: int
    total: int
    hit: bool


@with_config(ANSWER)
class LongThrowSeries(TypedDict):
    """One precision series: the target's distance, every throw, who went out."""

    number: int
    distance_increments: int
    throws: list[LongThrowPrecisionThrow]
    out: list[str]


@with_config(ANSWER)
class LongThrowAnswer(TypedDict):
    """The answer of `POST /v1/long-throws`; `series` is there in precision mode only."""

    mode: Mode
    object: LongThrowObject
    winners: list[str]
    tie: bool
    competitors: list[LongThrowCompetitorResult]
    series: NotRequired[list[LongThrowSeries]]
    #: halfling-toss only: how far away the bank was.
    toss_distance_ft: NotRequired[int]
    rule: RuleLink
    rolls: list[RollRecord]
    #: Supplied dice the rules did not use (only when there are any).
    unused: NotRequired[list[UnusedRecord]]
    summary: str
