"""Schemas of chases as sessions (API.md "Chases", RULES.md §3.4).

The escapee and the chaser are race competitors, and a chase increment's terrain is a race
increment plus `flat` (`app.api.schemas.races`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from app.api.schemas.common import D20, Name, Seed, Strict
from app.api.schemas.races import (
    MAX_DC,
    CheckName,
    DamageDice,
    ObstacleDice,
    RaceCompetitor,
    RaceIncrement,
    by_key,
    one_or_many,
)
from app.rules.chases import (
    DEFAULT_CHASER_CHECK,
    DEFAULT_HAZARD_BASE_COST,
    DEFAULT_MAX_ROUNDS,
    MAX_ROUNDS_LIMIT,
)
from app.rules.common import MAX_OPPOSED_REROLLS
from app.rules.races import DEFAULT_MAX_RETRIES, MAX_RETRIES_LIMIT

#: Bounds of a start (the rules core rejects a lead of 0 or less).
MAX_START = 10_000
#: Hide and Spot dice: the first pair and every reroll of a tie (RULES.md §0).
OpposedList = Annotated[list[D20], Field(min_length=1, max_length=1 + MAX_OPPOSED_REROLLS)]
OpposedDice = Annotated[D20 | OpposedList, one_or_many(OpposedList)]


class InitiativeStart(Strict):
    """The escapee's initiative check (`d20 + mods.initiative`) is the lead."""

    mode: Literal["initiative"]


class DistanceStart(Strict):
    """The lead is 5 x the increments of the chaser's speed between them."""

    mode: Literal["distance"]
    increments: Annotated[int, Field(ge=-MAX_START, le=MAX_START)]


class LeadStart(Strict):
    """An explicit lead in DS."""

    mode: Literal["lead"]
    lead: Annotated[int, Field(ge=-MAX_START, le=MAX_START)]


ChaseStart = Annotated[
    InitiativeStart | DistanceStart | LeadStart,
    by_key("mode", {"initiative": InitiativeStart, "distance": DistanceStart, "lead": LeadStart}),
]


class StartDice(Strict):
    initiative: D20 | None = None


class ChaseCreate(Strict):
    escapee: RaceCompetitor
    chaser: RaceCompetitor
    start: ChaseStart
    hazard_base_cost: Annotated[int, Field(ge=0, le=MAX_START)] = Field(
        default=DEFAULT_HAZARD_BASE_COST,
        description="DS a hazard costs the escapee on top of its penalty (the source's example: 0)",
    )
    endurance_rule: bool = True
    max_rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS_LIMIT)] = DEFAULT_MAX_ROUNDS
    max_retries: Annotated[int, Field(ge=0, le=MAX_RETRIES_LIMIT)] = DEFAULT_MAX_RETRIES
    damage_instead_of_forfeit: bool = False
    seed: Seed | None = None
    rolls: dict[Name, StartDice] | None = Field(
        default=None, description="the escapee's supplied initiative die"
    )


class ChaseTerrain(RaceIncrement):
    """The increment the GM describes (a race increment, and whether it is flat)."""

    flat: bool = False


class HideTactic(Strict):
    """Opposed Hide vs Spot: needs a lead of 20 or more and terrain that is not flat."""

    kind: Literal["hide"]


class HazardTactic(Strict):
    """Costs `hazard_base_cost + penalty` DS; Dexterity - penalty vs 14 creates it."""

    kind: Literal["hazard"]
    penalty: Annotated[int, Field(ge=0, le=MAX_DC)]
    chaser_check: CheckName = DEFAULT_CHASER_CHECK


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


class ChaseRound(Strict):
    terrain: ChaseTerrain
    tactic: ChaseTactic | None = None
    rolls: dict[Name, ChaseDice] | None = None


class ChaseResolve(Strict):
    """`resolve`: the terrain of every remaining increment, and when the escapee hides."""

    terrain: ChaseTerrain
    tactic_policy: Literal["none", "hide-when-possible"] = "none"


class ChaseEnd(Strict):
    reason: Literal["gave-up"] = "gave-up"
