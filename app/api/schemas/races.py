"""Schemas of races as sessions (API.md "Races", RULES.md §3.3).

The competitor and increment shapes are shared with chases (API.md: "Competitor (races and
chases)"). The rules core (`app.rules.races`) checks the rules on top of these shapes: a
mounted increment needs a mount, `on_fail` needs a `dc`, a hazard takes no `retry`, ...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    create_model,
)

from app.api.schemas.common import D20, Name, Seed, Strict
from app.rules.races import (
    DEFAULT_DROWN_MARGIN,
    DEFAULT_MAX_RETRIES,
    MAX_COMPETITORS,
    MAX_INCREMENTS,
    MAX_RETRIES_LIMIT,
)
from app.rules.violations import MAX_NOTATION_CHARS

#: Bounds of the numbers in a competitor or an increment (the rules core takes any integer).
MAX_MODIFIER = 1_000
MAX_SPEED_FT = 10_000
MAX_SCORE = 200
MAX_DC = 1_000
MAX_FEATS = 32
#: Supplied dice for one purpose in one increment: an obstacle and all its retries.
MAX_OBSTACLE_DICE = 1 + MAX_RETRIES_LIMIT
MAX_DAMAGE_DICE = 10_000

Modifier = Annotated[int, Field(ge=-MAX_MODIFIER, le=MAX_MODIFIER)]
SpeedFt = Annotated[int, Field(ge=0, le=MAX_SPEED_FT, description="feet per round")]
Score = Annotated[int, Field(ge=0, le=MAX_SCORE)]
Dc = Annotated[int, Field(ge=0, le=MAX_DC)]
#: A check or skill name (`strength`, `swim`, `ride`, `hide`, ...), case-insensitive.
CheckName = Annotated[str, StringConstraints(min_length=1, max_length=64, strip_whitespace=True)]
Notation = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_NOTATION_CHARS),
    Field(description="dice notation (RULES.md §5), e.g. 3d6"),
]
Preset = Literal["dash", "typical", "marathon", "dakrothian-marathon"]
D20s = Annotated[list[D20], Field(min_length=1, max_length=MAX_OBSTACLE_DICE)]
DamageDice = Annotated[
    list[Annotated[int, Field(ge=1)]], Field(min_length=1, max_length=MAX_DAMAGE_DICE)
]


def one_of(pick: Callable[[Any], type[BaseModel] | TypeAdapter[Any]]) -> WrapValidator:
    """Validate a union against the one member `pick` chooses from the raw input.

    pydantic would otherwise try every member and report errors under member tags
    (`["course", "RaceCourse", "increments", 3, "dc"]`); this keeps locs as in the request body.
    """

    def validate(value: Any, _handler: ValidatorFunctionWrapHandler) -> Any:
        chosen = pick(value)
        if isinstance(chosen, TypeAdapter):
            return chosen.validate_python(value)
        return chosen.model_validate(value)

    return WrapValidator(validate)


def by_key(key: str, models: Mapping[str, type[BaseModel]]) -> WrapValidator:
    """`one_of` choosing the model by the value of `key` (`{"kind": "hide"}`, `{"mode": ...}`).

    A missing or unknown `key` is reported at `key`, listing the choices.
    """
    tag_model = create_model(
        f"{key.title()}Tag",
        __config__=ConfigDict(extra="allow"),
        **{key: (Literal[tuple(models)], ...)},  # type: ignore[call-overload]
    )

    def pick(value: Any) -> type[BaseModel]:
        tag = tag_model.model_validate(value)
        return models[getattr(tag, key)]

    return one_of(pick)


def one_or_many(many: Any) -> WrapValidator:
    """`one_of` for `D20 | list[D20]`: a list is checked as the list, anything else as one die."""
    one_adapter, many_adapter = TypeAdapter(D20), TypeAdapter(many)
    return one_of(lambda value: many_adapter if isinstance(value, list) else one_adapter)


#: One die, or several in the order they are used (an obstacle and its retries).
ObstacleDice = Annotated[D20 | D20s, one_or_many(D20s)]


class RaceSpeeds(Strict):
    """Speeds (ft) per movement; a missing one is the competitor's `speed`."""

    land: SpeedFt | None = None
    swim: SpeedFt | None = None
    climb: SpeedFt | None = None


class RaceMount(Strict):
    """A mount: its Strength check and speed replace the rider's on mounted increments."""

    name: Name | None = None
    strength_mod: Modifier
    speed: SpeedFt
    con_score: Score | None = None
    con_mod: Modifier | None = Field(default=None, description="defaults to con_score's")
    living: bool = Field(default=True, description="a mount that is not living never tires")


class RaceCompetitor(Strict):
    """A racer, or a party to a chase (API.md "Races")."""

    name: Name
    speed: SpeedFt
    speeds: RaceSpeeds | None = None
    mods: Annotated[dict[CheckName, Modifier], Field(max_length=64)] | None = Field(
        default=None,
        description="modifiers by check or skill name (strength, swim, ride, hide, ...); "
        "a missing one is 0",
    )
    con_score: Score | None = None
    con_mod: Modifier | None = Field(default=None, description="defaults to con_score's")
    feats: Annotated[list[CheckName], Field(max_length=MAX_FEATS)] | None = Field(
        default=None, description="run, endurance, ..."
    )
    pacing: Literal["normal", "sprint", "pace"] = "normal"
    mount: RaceMount | None = None


class RaceObstacle(Strict):
    """An obstacle (must be passed) or a hazard (failure adds 0) before the increment check."""

    kind: Literal["obstacle", "hazard"]
    check: CheckName
    dc: Dc
    retry: bool = False
    damage: Notation | None = None


class RaceIncrement(Strict):
    """One range increment (RULES.md §3.3 "Increment kinds")."""

    check: CheckName
    dc: Dc | None = None
    on_fail: Literal["retry", "stall"] | None = None
    drown_margin: Annotated[int, Field(ge=1, le=MAX_DC)] = DEFAULT_DROWN_MARGIN
    modifier: Modifier = 0
    mounted: bool = False
    obstacle: RaceObstacle | None = None


class RaceCourse(Strict):
    """A course of your own."""

    increments: Annotated[list[RaceIncrement], Field(min_length=1, max_length=MAX_INCREMENTS)]


_PRESET = TypeAdapter(Preset)


def _course_member(value: Any) -> type[BaseModel] | TypeAdapter[Any]:
    return RaceCourse if isinstance(value, Mapping) else _PRESET


class RaceCreate(Strict):
    course: Annotated[Preset | RaceCourse, one_of(_course_member)] = Field(
        description="a preset (RULES.md §3.3) or {increments: [...]}"
    )
    competitors: Annotated[list[RaceCompetitor], Field(min_length=1, max_length=MAX_COMPETITORS)]
    damage_instead_of_forfeit: bool = False
    endurance_rule: bool = True
    max_retries: Annotated[int, Field(ge=0, le=MAX_RETRIES_LIMIT)] = DEFAULT_MAX_RETRIES
    seed: Seed | None = None


class RaceDice(Strict):
    """One competitor's supplied dice for one increment."""

    check: D20 | None = None
    obstacle: ObstacleDice | None = Field(
        default=None, description="the obstacle or hazard die, then each retry's, in order"
    )
    constitution: D20 | None = None
    ride: D20 | None = None
    damage: DamageDice | None = Field(
        default=None, description="every die of the damage rolled, in order"
    )


class RaceRound(Strict):
    rolls: dict[Name, RaceDice] | None = None
