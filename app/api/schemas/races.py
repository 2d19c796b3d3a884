"""Schemas of races as sessions (docs/api.md#races, docs/rules.md#races).

The competitor and increment shapes are shared with chases (docs/api.md#races
chases)"). The models check every field on its own and build the rules' dataclasses
(`to_rules`), lower-casing names and applying the defaults that depend on other fields; the
rules core (`app.rules.races.check_config`) checks what spans fields: a mounted increment needs
a mount, `on_fail` needs a `dc`, a hazard takes no `retry`, ...

The TypedDicts describe exactly the JSON served for a race's `config`, `state`, `result` and
each round record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal, NotRequired

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    create_model,
    with_config,
)
from pydantic_core import InitErrorDetails, PydanticCustomError
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
    BLANKS,
    D20,
    DISTINCT_NAMES,
    NO_SEED_WITH_VERIFIABLE_DICE,
    CollectedKeys,
    Collecting,
    DiceMode,
    Name,
    RoundRecordKeys,
    Seats,
    Seed,
    Strict,
    given,
    in_schema,
    is_,
    when,
)
from app.api.sessions.presentation import SessionFields
from app.rules import races as rules
from app.rules.common import ability_modifier
from app.rules.races import (
    DEFAULT_DROWN_MARGIN,
    DEFAULT_MAX_RETRIES,
    MAX_COMPETITORS,
    MAX_INCREMENTS,
    MAX_RETRIES_LIMIT,
    Preset,
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
CheckName = Name
Notation = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_NOTATION_CHARS),
    Field(description="dice notation (docs/rules.md#dice-notation), e.g. 3d6"),
]
#: Retries after a failed obstacle (docs/rules.md#races); null: no cap but the request's dice
#: budget.
MaxRetries = Annotated[
    Annotated[int, Field(ge=0, le=MAX_RETRIES_LIMIT)] | None,
    Field(
        description="retries allowed after a failed obstacle; null: no cap (an obstacle no die "
        "can pass then forfeits at once, `impassable`)"
    ),
]
#: Which rolls the speed bonus goes to (docs/rules.md#races options).
SpeedBonus = Annotated[
    Literal["increment", "every-roll"],
    Field(
        description="the speed bonus goes to the increment check only (increment), or to the "
        "obstacle, hazard, Ride and Constitution checks too (every-roll)"
    ),
]
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


def one_modifier_per_check(mods: Any) -> Any:
    """Two `mods` keys naming the same check (`Hide` and `hide`) are an error at the second.

    Checked on the raw keys: the model lower-cases them in `to_rules`, where one would be lost.
    """
    if not isinstance(mods, Mapping):
        return mods
    seen: set[str] = set()
    errors: list[InitErrorDetails] = []
    for key, value in mods.items():
        check = str(key).strip().lower()
        if check in seen:
            error = PydanticCustomError(
                "duplicate_check", "two modifiers for {check}", {"check": check}
            )
            errors.append({"type": error, "loc": (key,), "input": value})
        seen.add(check)
    if errors:
        raise ValidationError.from_exception_data("mods", errors)
    return mods


def modifier_for(con_mod: int | None, con_score: int | None) -> int | None:
    """`con_mod`, or when missing the modifier `con_score` gives (docs/rules.md#dice-and-checks)."""
    if con_mod is None and con_score is not None:
        return ability_modifier(con_score)
    return con_mod


class RaceSpeeds(Strict):
    """Speeds (ft) per movement; a missing one is the competitor's `speed`."""

    land: SpeedFt | None = None
    swim: SpeedFt | None = None
    climb: SpeedFt | None = None

    def to_rules(self) -> dict[str, int]:
        """The speeds given, by movement."""
        given = {"land": self.land, "swim": self.swim, "climb": self.climb}
        return {movement: speed for movement, speed in given.items() if speed is not None}


class RaceMount(Strict):
    """A mount: its Strength check and speed replace the rider's on mounted increments."""

    name: Name | None = None
    strength_mod: Modifier
    speed: SpeedFt
    con_score: Score | None = None
    con_mod: Modifier | None = Field(default=None, description="defaults to con_score's")
    living: bool = Field(default=True, description="a mount that is not living never tires")

    def to_rules(self) -> rules.Mount:
        return rules.Mount(
            name=self.name,
            strength_mod=self.strength_mod,
            speed=self.speed,
            con_score=self.con_score,
            con_mod=modifier_for(self.con_mod, self.con_score),
            living=self.living,
        )


class RaceCompetitor(Strict):
    """A racer, or a party to a chase (docs/api.md#races)."""

    name: Name
    speed: SpeedFt
    speeds: RaceSpeeds | None = None
    mods: (
        Annotated[
            dict[CheckName, Modifier],
            Field(max_length=64),
            BeforeValidator(one_modifier_per_check),
        ]
        | None
    ) = Field(
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

    def to_rules(self) -> rules.Competitor:
        """The competitor with her check names and feats lower-case (docs/rules.md#races)."""
        return rules.Competitor(
            name=self.name,
            speed=self.speed,
            speeds={} if self.speeds is None else self.speeds.to_rules(),
            mods={check.lower(): value for check, value in (self.mods or {}).items()},
            con_score=self.con_score,
            con_mod=modifier_for(self.con_mod, self.con_score),
            feats=tuple(dict.fromkeys(feat.lower() for feat in self.feats or ())),
            pacing=self.pacing,
            mount=None if self.mount is None else self.mount.to_rules(),
        )


#: The check named `strength` (check names are read in any case, trimmed).
STRENGTH = f"^[{BLANKS}]*[Ss][Tt][Rr][Ee][Nn][Gg][Tt][Hh][{BLANKS}]*$"


class RaceObstacle(Strict):
    """An obstacle (must be passed) or a hazard (failure adds 0) before the increment check;
    a hazard is never retried."""

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(is_("kind", "hazard"), {"properties": {"retry": {"const": False}}}),
            beyond=("an obstacle's `damage` that is not valid dice notation",),
        )
    )

    kind: Literal["obstacle", "hazard"]
    check: CheckName
    dc: Dc
    retry: bool = False
    damage: Notation | None = None

    def to_rules(self) -> rules.Obstacle:
        return rules.Obstacle(
            kind=self.kind,
            check=self.check.lower(),
            dc=self.dc,
            retry=self.retry,
            damage=None if self.damage is None else self.damage.strip(),
        )


class RaceIncrement(Strict):
    """One range increment (docs/rules.md#obstacles-and-hazards): `on_fail` needs a `dc`; a
    `mounted` one is the mount's `strength` check."""

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(given("on_fail", "string"), given("dc", "integer")),
            when(
                is_("mounted", True),
                {"properties": {"check": {"pattern": STRENGTH}}},
            ),
        )
    )

    check: CheckName
    dc: Dc | None = None
    on_fail: Literal["retry", "stall"] | None = None
    drown_margin: Annotated[int, Field(ge=1, le=MAX_DC)] = DEFAULT_DROWN_MARGIN
    modifier: Modifier = 0
    mounted: bool = False
    obstacle: RaceObstacle | None = None

    def to_rules(self) -> rules.Increment:
        """The increment, its check lower-case; with a `dc` but no `on_fail`, a climb retries
        (the source's climbing race) and anything else stalls (docs/rules.md#races)."""
        check = self.check.lower()
        on_fail = self.on_fail
        if on_fail is None and self.dc is not None:
            on_fail = "retry" if check == "climb" else "stall"
        return rules.Increment(
            check=check,
            dc=self.dc,
            on_fail=on_fail,
            drown_margin=self.drown_margin,
            modifier=self.modifier,
            mounted=self.mounted,
            obstacle=None if self.obstacle is None else self.obstacle.to_rules(),
        )


class RaceCourse(Strict):
    """A course of your own."""

    increments: Annotated[list[RaceIncrement], Field(min_length=1, max_length=MAX_INCREMENTS)]

    def to_rules(self) -> rules.Course:
        return rules.Course(tuple(increment.to_rules() for increment in self.increments))


_PRESET = TypeAdapter(Preset)


def _course_member(value: Any) -> type[BaseModel] | TypeAdapter[Any]:
    return RaceCourse if isinstance(value, Mapping) else _PRESET


#: A course with a mounted increment: a preset that has one, or a course of your own.
MOUNTED_COURSE = {
    "required": ["course"],
    "properties": {
        "course": {
            "anyOf": [
                {
                    "enum": sorted(
                        name
                        for name, course in rules.PRESETS.items()
                        if any(increment.mounted for increment in course)
                    )
                },
                {
                    "type": "object",
                    "required": ["increments"],
                    "properties": {"increments": {"contains": is_("mounted", True)}},
                },
            ]
        }
    },
}


class RaceCreate(Strict):
    """A new race: its course, its competitors and its options (docs/rules.md#races).

    Rules across fields:
    - competitor names are unique;
    - when the course has mounted increments, every competitor has a `mount`;
    - in each increment of a course of your own: `on_fail` needs a `dc`; a `mounted` one is
      the mount's `strength` check (its `check` is `strength`); a hazard is never retried
      (its obstacle's `retry` is false); an obstacle's `damage` is valid dice notation;
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(
                MOUNTED_COURSE,
                {"properties": {"competitors": {"items": given("mount", "object")}}},
            ),
            NO_SEED_WITH_VERIFIABLE_DICE,
            beyond=(DISTINCT_NAMES,),
        )
    )

    course: Annotated[Preset | RaceCourse, one_of(_course_member)] = Field(
        description="a preset (docs/rules.md#races) or {increments: [...]}"
    )
    competitors: Annotated[list[RaceCompetitor], Field(min_length=1, max_length=MAX_COMPETITORS)]
    damage_instead_of_forfeit: bool = Field(
        default=False,
        description="a failed obstacle or hazard costs only its damage; the racer goes on as usual",
    )
    endurance_rule: bool = True
    max_retries: MaxRetries = DEFAULT_MAX_RETRIES
    speed_bonus: SpeedBonus = "increment"
    pacing_rule: Literal["safe-increments", "constitution-score"] = Field(
        default="safe-increments",
        description="pacing and sprinting change the safe increments only (safe-increments), or "
        "the Constitution score itself, and so its modifier (constitution-score)",
    )
    seed: Seed | None = None
    dice: DiceMode = "server"
    seats: Seats = False

    def to_rules(self) -> rules.Config:
        """The race (`app.rules.races.check_config` checks what spans its fields)."""
        course = self.course
        return rules.Config(
            course=course if isinstance(course, str) else course.to_rules(),
            competitors=tuple(competitor.to_rules() for competitor in self.competitors),
            damage_instead_of_forfeit=self.damage_instead_of_forfeit,
            endurance_rule=self.endurance_rule,
            max_retries=self.max_retries,
            speed_bonus=self.speed_bonus,
            pacing_rule=self.pacing_rule,
        )


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


class RacePacing(Strict):
    """The body of `POST /v1/races/{id}/pacing`: a racer's pacing for the whole race, chosen
    before its first increment (docs/rules.md#races, "Pacing")."""

    name: Name
    pacing: rules.Pacing


class RaceRound(Collecting):
    rolls: dict[Name, RaceDice] | None = None


# --- answers --------------------------------------------------------------------------------


@with_config(ANSWER)
class RaceSpeedsConfig(TypedDict):
    """The speeds given (ft), by movement; a missing one is the competitor's `speed`."""

    land: NotRequired[int]
    swim: NotRequired[int]
    climb: NotRequired[int]


@with_config(ANSWER)
class RaceMountConfig(TypedDict):
    """A mount as the session's config spells it out (`con_mod` derived from `con_score`)."""

    name: str | None
    strength_mod: int
    speed: int
    con_score: int | None
    con_mod: int | None
    living: bool


@with_config(ANSWER)
class RaceCompetitorConfig(TypedDict):
    """A competitor (or a party to a chase), normalised: names and feats lower-case."""

    name: str
    speed: int
    speeds: RaceSpeedsConfig
    mods: dict[str, int]
    con_score: int | None
    con_mod: int | None
    feats: list[str]
    pacing: rules.Pacing
    mount: RaceMountConfig | None


@with_config(ANSWER)
class RaceObstacleConfig(TypedDict):
    """An obstacle or hazard before an increment's check."""

    kind: rules.ObstacleKind
    check: str
    dc: int
    retry: bool
    damage: str | None


@with_config(ANSWER)
class RaceIncrementConfig(TypedDict):
    """One increment, normalised: its check lower-case, `on_fail` defaulted when it has a `dc`."""

    check: str
    dc: int | None
    on_fail: rules.OnFail | None
    drown_margin: int
    modifier: int
    mounted: bool
    obstacle: RaceObstacleConfig | None


@with_config(ANSWER)
class RaceCustomCourse(TypedDict):
    """A course of one's own."""

    increments: list[RaceIncrementConfig]


@with_config(ANSWER)
class RaceConfig(TypedDict):
    """A race's `config`: the course as given, and its increments spelled out (a preset's too)."""

    course: Preset | RaceCustomCourse
    increments: list[RaceIncrementConfig]
    competitors: list[RaceCompetitorConfig]
    damage_instead_of_forfeit: bool
    endurance_rule: bool
    max_retries: int | None
    speed_bonus: rules.SpeedBonusRule
    pacing_rule: rules.PacingRule


@with_config(ANSWER)
class RaceState(TypedDict):
    """A race's `state`: increments done of `of`, and every competitor's DS, standing, damage."""

    increment: int
    of: int
    ds: dict[str, int]
    standing: dict[str, rules.Standing]
    damage: dict[str, int]
    flags: dict[str, list[str]]
    #: Every racer's pacing: the one she chose before the first increment
    #: (`POST …/pacing`), else the one she was created with (`config`).
    pacing: dict[str, rules.Pacing]


@with_config(ANSWER)
class RaceResult(TypedDict):
    """A finished race: the winners (several on a tie, none when everybody forfeited)."""

    winners: list[str]
    tie: bool
    ds: dict[str, int]
    standing: dict[str, rules.Standing]
    damage: dict[str, int]
    flags: dict[str, list[str]]


@with_config(ANSWER)
class RaceCheckRecord(TypedDict):
    """One d20 check made in an increment (`dc` and `success` null when it has no DC)."""

    kind: rules.CheckKind
    check: str
    roll: int
    total: int
    dc: int | None
    success: bool | None


@with_config(ANSWER)
class RaceCompetitorLine(TypedDict):
    """One competitor in a round record; `total` is null when she made no increment check."""

    gained: int
    total: int | None
    ds: int
    standing: rules.Standing
    events: list[str]
    checks: list[RaceCheckRecord]


@with_config(ANSWER)
class RaceRoundOutcome(TypedDict):
    """A round record without `number`, `rolls` and `summary`."""

    increment: int
    competitors: dict[str, RaceCompetitorLine]
    finished: bool
    winners: list[str]


@with_config(ANSWER)
class RaceRoundRecord(RaceRoundOutcome, RoundRecordKeys, CollectedKeys):
    """One increment of a race as `rounds` lists it."""


@with_config(ANSWER)
class RaceSession(SessionFields):
    """A race as every answer shows it."""

    config: RaceConfig
    state: RaceState
    result: RaceResult | None


@with_config(ANSWER)
class RacePacingChosen(TypedDict):
    """The answer of `POST /v1/races/{id}/pacing`: the race with that pacing, and one line."""

    session: RaceSession
    summary: str
