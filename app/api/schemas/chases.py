"""Schemas of chases as sessions (docs/api.md#chases, docs/rules.md#chases).

The escapee and the chaser are race competitors, and a chase increment's terrain is a race
increment plus `flat` (`app.api.schemas.races`). The models check every field on its own and
build the rules' dataclasses (`to_rules`); `app.rules.chases.check_config` and
`validate_round` check what spans fields.

The TypedDicts describe exactly the JSON served for a chase's `config`, `state`, `result` and
each round record.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
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
from app.api.schemas.races import (
    MAX_DC,
    CheckName,
    DamageDice,
    MaxRetries,
    ObstacleDice,
    RaceCheckRecord,
    RaceCompetitor,
    RaceCompetitorConfig,
    RaceIncrement,
    RaceIncrementConfig,
    SpeedBonus,
    by_key,
    one_or_many,
)
from app.api.sessions.presentation import SessionFields
from app.rules import chases as rules
from app.rules.chases import (
    DEFAULT_CHASER_CHECK,
    DEFAULT_HAZARD_BASE_COST,
    DEFAULT_MAX_ROUNDS,
    MAX_ROUNDS_LIMIT,
)
from app.rules.common import MAX_OPPOSED_REROLLS
from app.rules.races import DEFAULT_MAX_RETRIES, SpeedBonusRule

#: Bounds of a start: a lead of 0 or less would be a chase already over (docs/rules.md#chases).
MAX_START = 10_000
#: Hide and Spot dice: the first pair and every reroll of a tie (docs/rules.md#dice-and-checks).
OpposedList = Annotated[list[D20], Field(min_length=1, max_length=1 + MAX_OPPOSED_REROLLS)]
OpposedDice = Annotated[D20 | OpposedList, one_or_many(OpposedList)]


class InitiativeStart(Strict):
    """The escapee's initiative check (`d20 + mods.initiative`) is the lead."""

    mode: Literal["initiative"]

    def to_rules(self) -> rules.InitiativeStart:
        return rules.InitiativeStart()


class DistanceStart(Strict):
    """The lead is 5 x the increments of the chaser's speed between them."""

    mode: Literal["distance"]
    increments: Annotated[int, Field(ge=1, le=MAX_START)]
    with_initiative: bool = Field(
        default=False,
        description="add the 5 DS per increment to the escapee's initiative check (the "
        "source's 'increased by') rather than making them the whole lead",
    )

    def to_rules(self) -> rules.DistanceStart:
        return rules.DistanceStart(increments=self.increments, with_initiative=self.with_initiative)


class LeadStart(Strict):
    """An explicit lead in DS."""

    mode: Literal["lead"]
    lead: Annotated[int, Field(ge=1, le=MAX_START)]

    def to_rules(self) -> rules.LeadStart:
        return rules.LeadStart(lead=self.lead)


ChaseStart = Annotated[
    InitiativeStart | DistanceStart | LeadStart,
    by_key("mode", {"initiative": InitiativeStart, "distance": DistanceStart, "lead": LeadStart}),
]


class StartDice(Strict):
    initiative: D20 | None = None


#: A creation's `rolls` supplying an `initiative` die (some value of it gives one).
SUPPLIED_INITIATIVE = {
    "required": ["rolls"],
    "properties": {
        "rolls": {
            "type": "object",
            "not": {"additionalProperties": {"not": given("initiative", "integer")}},
        }
    },
}


class ChaseCreate(Strict):
    """A new chase: the escapee, the chaser, how it starts and its options
    (docs/rules.md#chases).

    Rules across fields:
    - the escapee's and the chaser's names differ;
    - an `initiative` start needs an escapee whose initiative can give a lead at all: the best
      d20, 20, plus her `mods.initiative` must be above 0 (docs/rules.md#starting-lead), and
      a rolled lead of 0 or less is refused;
    - `rolls` supplies only the escapee's `initiative` die, and only with a start that rolls
      it: `initiative`, or `distance` `with_initiative` (whose best roll, 20, plus her
      `mods.initiative` plus the distance's DS must be above 0 too);
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(
                SUPPLIED_INITIATIVE,
                {
                    "properties": {
                        "start": {
                            "anyOf": [
                                is_("mode", "initiative"),
                                {"allOf": [is_("mode", "distance"), is_("with_initiative", True)]},
                            ]
                        }
                    }
                },
            ),
            NO_SEED_WITH_VERIFIABLE_DICE,
            beyond=(
                DISTINCT_NAMES,
                "a start that rolls the escapee's initiative whose best lead (20 plus her "
                "`mods.initiative`, plus the distance's DS) is 0 or less, or whose rolled "
                "lead is (the die decides)",
                "`rolls` for anyone but the escapee, or for a die other than `initiative`",
            ),
        )
    )

    escapee: RaceCompetitor
    chaser: RaceCompetitor
    start: ChaseStart
    hazard_base_cost: Annotated[int, Field(ge=0, le=MAX_START)] = Field(
        default=DEFAULT_HAZARD_BASE_COST,
        description="DS a hazard costs the escapee on top of its penalty (the source's example: 0)",
    )
    endurance_rule: bool = True
    max_rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS_LIMIT)] = DEFAULT_MAX_ROUNDS
    max_retries: MaxRetries = DEFAULT_MAX_RETRIES
    damage_instead_of_forfeit: bool = False
    speed_bonus: SpeedBonus = "increment"
    seed: Seed | None = None
    dice: DiceMode = "server"
    seats: Seats = False
    rolls: dict[Name, StartDice] | None = Field(
        default=None, description="the escapee's supplied initiative die"
    )

    def to_rules(self) -> rules.Config:
        """The chase (`app.rules.chases.check_config` checks what spans its fields)."""
        return rules.Config(
            escapee=self.escapee.to_rules(),
            chaser=self.chaser.to_rules(),
            start=self.start.to_rules(),
            hazard_base_cost=self.hazard_base_cost,
            endurance_rule=self.endurance_rule,
            max_rounds=self.max_rounds,
            max_retries=self.max_retries,
            damage_instead_of_forfeit=self.damage_instead_of_forfeit,
            speed_bonus=self.speed_bonus,
        )


class ChaseTerrain(RaceIncrement):
    """The increment the GM describes (a race increment, and whether it is flat)."""

    flat: bool = False

    def to_terrain(self) -> rules.Terrain:
        return rules.Terrain(increment=self.to_rules(), flat=self.flat)


class HideTactic(Strict):
    """Opposed Hide vs Spot: needs a lead of 20 or more and terrain that is not flat."""

    kind: Literal["hide"]

    def to_rules(self) -> rules.Hide:
        return rules.Hide()


class HazardTactic(Strict):
    """Costs `hazard_base_cost + penalty` DS; Dexterity - penalty vs 14 creates it."""

    kind: Literal["hazard"]
    penalty: Annotated[int, Field(ge=0, le=MAX_DC)]
    chaser_check: CheckName = DEFAULT_CHASER_CHECK

    def to_rules(self) -> rules.CreateHazard:
        return rules.CreateHazard(penalty=self.penalty, chaser_check=self.chaser_check.lower())


ChaseTactic = Annotated[
    HideTactic | HazardTactic, by_key("kind", {"hide": HideTactic, "hazard": HazardTactic})
]


class ChaseDice(Strict):
    """One side's supplied dice for one increment."""

    check: D20 | None = None
    hide: OpposedDice | None = None
    spot: OpposedDice | None = None
    dexterity: D20 | None = None
    hazard: D20 | None = Field(default=None, description="the chaser's check to get past it")
    constitution: D20 | None = None
    obstacle: ObstacleDice | None = None
    ride: D20 | None = None
    damage: DamageDice | None = None


class ChasePurposeDice(ChaseDice):
    """Every die one side may be given: a round's, and the escapee's initiative at creation."""

    initiative: D20 | None = None


class ChaseRound(Collecting):
    terrain: ChaseTerrain
    tactic: ChaseTactic | None = None
    rolls: dict[Name, ChaseDice] | None = None

    def to_rules(self) -> rules.RoundInput:
        """The terrain and tactic (`app.rules.chases.validate_round` checks them together)."""
        return rules.RoundInput(
            terrain=self.terrain.to_terrain(),
            tactic=None if self.tactic is None else self.tactic.to_rules(),
        )


class ChaseResolve(Strict):
    """`resolve`: the terrain of every remaining increment, and when the escapee hides."""

    terrain: ChaseTerrain
    tactic_policy: Literal["none", "hide-when-possible"] = "none"


class ChaseEnd(Strict):
    reason: Literal["gave-up"] = "gave-up"


# --- answers --------------------------------------------------------------------------------


@with_config(ANSWER)
class ChaseStartConfig(TypedDict):
    """How the lead started: `increments` for a distance start, `lead` for a lead start."""

    mode: rules.StartMode
    increments: NotRequired[int]
    #: A distance start: whether the escapee's initiative check is added to it.
    with_initiative: NotRequired[bool]
    lead: NotRequired[int]


@with_config(ANSWER)
class ChaseConfig(TypedDict):
    """A chase's `config`: both sides normalised as race competitors, the start, the options."""

    escapee: RaceCompetitorConfig
    chaser: RaceCompetitorConfig
    start: ChaseStartConfig
    hazard_base_cost: int
    endurance_rule: bool
    max_rounds: int
    max_retries: int | None
    damage_instead_of_forfeit: bool
    speed_bonus: SpeedBonusRule


@with_config(ANSWER)
class ChaseState(TypedDict):
    """A chase's `state`: the lead, both sides' DS, and how it ended (null while it goes on)."""

    lead: int
    ds: dict[str, int]
    status_detail: rules.StatusDetail | None


@with_config(ANSWER)
class ChaseResult(TypedDict):
    """A finished chase: how it ended, who won, the final lead and DS, increments played."""

    status_detail: rules.StatusDetail
    winner: str
    lead: int
    ds: dict[str, int]
    increments: int


@with_config(ANSWER)
class ChaseTerrainRecord(RaceIncrementConfig):
    """The increment's terrain, normalised as a race increment, and whether it was flat."""

    flat: bool


@with_config(ANSWER)
class ChaseTacticRecord(TypedDict):
    """The escapee's tactic; `attempted` (false) only when she rested instead.

    A hide has the opposed totals when both checked; a hazard its cost and penalty, and once
    attempted whether it was created, the totals, the chaser's check and its DC.
    """

    kind: Literal["hide", "hazard"]
    success: bool
    attempted: NotRequired[bool]
    cost: NotRequired[int]
    penalty: NotRequired[int]
    created: NotRequired[bool]
    escapee_total: NotRequired[int]
    chaser_total: NotRequired[int]
    chaser_check: NotRequired[str]
    dc: NotRequired[int]


@with_config(ANSWER)
class ChaseSideRecord(TypedDict):
    """One side's increment: what it gained, whether it rested or was held up, its checks."""

    gained: int
    total: int | None
    rested: bool
    held_up: bool
    events: list[str]
    checks: list[RaceCheckRecord]


@with_config(ANSWER)
class ChaseRoundOutcome(TypedDict):
    """A round record without `number`, `rolls` and `summary`."""

    increment: int
    terrain: ChaseTerrainRecord
    lead_before: int
    tactic: ChaseTacticRecord | None
    gains: dict[str, int]
    lead: int
    finished: bool
    outcome: rules.Outcome | None
    status_detail: rules.StatusDetail | None
    sides: dict[str, ChaseSideRecord]


@with_config(ANSWER)
class ChaseRoundRecord(ChaseRoundOutcome, RoundRecordKeys, CollectedKeys):
    """One increment of a chase as `rounds` lists it."""


# --- the answer of the chase's own call -----------------------------------------------------


#: A chase session as every answer shows it.
@with_config(ANSWER)
class ChaseSession(SessionFields):
    """A chase as every answer shows it."""

    config: ChaseConfig
    state: ChaseState
    result: ChaseResult | None


@with_config(ANSWER)
class ChaseEnded(TypedDict):
    """The ended chase (the chaser gave up): its session and one line."""

    session: ChaseSession
    summary: str
