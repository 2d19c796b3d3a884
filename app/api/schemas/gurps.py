"""Request and response schemas of the GURPS endpoints (docs/api.md#gurps-contests,
docs/rules.md#gurps).

The answers are TypedDicts describing exactly the JSON served: the handlers build them as such
(checked by mypy), and `/openapi.json` documents them under these names.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
    DISTINCT_NAMES,
    Name,
    Roll3d6,
    RollRecord,
    RuleLink,
    Seed,
    Strict,
    UnusedRecord,
    refused_beyond_schema,
)
from app.rules import gurps
from app.rules.gurps import DEFAULT_MAX_ROUNDS, MAX_ROUNDS_LIMIT, MAX_SKILL, MIN_SKILL

Skill = Annotated[int, Field(ge=MIN_SKILL, le=MAX_SKILL, description="effective skill")]
MaxRounds = Annotated[int, Field(ge=1, le=MAX_ROUNDS_LIMIT)]


class SuccessRollRequest(Strict):
    skill: Skill
    roll: Roll3d6 | None = None
    seed: Seed | None = None


class GurpsCompetitor(Strict):
    name: Name
    skill: Skill
    roll: Roll3d6 | None = None


class QuickContestRequest(Strict):
    """A quick contest: both competitors roll once (docs/rules.md#quick-contest).

    Rules across fields:
    - `a` and `b` have different names.
    """

    model_config = ConfigDict(json_schema_extra=refused_beyond_schema(DISTINCT_NAMES))

    a: GurpsCompetitor
    b: GurpsCompetitor
    seed: Seed | None = None


class ResistanceRollRequest(Strict):
    """A resistance roll: the attacker rolls, the defender resists (docs/rules.md#resistance-roll).

    Rules across fields:
    - the attacker and the defender have different names.
    """

    model_config = ConfigDict(json_schema_extra=refused_beyond_schema(DISTINCT_NAMES))

    attacker: GurpsCompetitor
    defender: GurpsCompetitor
    seed: Seed | None = None


class Contestant(Strict):
    name: Name
    skill: Skill

    def to_rules(self) -> gurps.Contestant:
        return gurps.Contestant(self.name, self.skill)


class SuppliedRound(Strict):
    a: Roll3d6
    b: Roll3d6


class RegularContestOptions(Strict):
    """A regular contest's two sides and options, as the one-shot call and a session take them."""

    a: Contestant
    b: Contestant
    normalize: bool = True
    max_rounds: MaxRounds = DEFAULT_MAX_ROUNDS
    seconds_per_round: Annotated[int, Field(ge=0, le=86_400)] = 1

    def to_rules(self) -> gurps.RegularConfig:
        """The contest's config; `gurps.check_regular_config` checks what spans fields."""
        return gurps.RegularConfig(
            a=self.a.to_rules(),
            b=self.b.to_rules(),
            normalize=self.normalize,
            max_rounds=self.max_rounds,
            seconds_per_round=self.seconds_per_round,
        )


class RegularContestRequest(RegularContestOptions):
    """A regular contest played to its end in one call (docs/rules.md#regular-contest).

    Rules across fields:
    - `a` and `b` have different names;
    - `rounds` supplies at most `max_rounds` rounds, and no more than the contest plays (it ends
      at the first round exactly one side succeeds).
    """

    model_config = ConfigDict(
        json_schema_extra=refused_beyond_schema(
            DISTINCT_NAMES,
            "`rounds` longer than `max_rounds`, or than the contest plays (it ends at the first "
            "round exactly one side succeeds, which the supplied rolls decide)",
        )
    )

    rounds: Annotated[list[SuppliedRound], Field(max_length=MAX_ROUNDS_LIMIT)] = Field(
        default_factory=list
    )
    seed: Seed | None = None


#: A success roll's critical: docs/rules.md#success-roll.
Critical = Literal["success", "failure"] | None


@with_config(ANSWER)
class SuccessRollAnswer(TypedDict):
    """The answer of `POST /v1/gurps/success-roll`: one 3d6 roll against a skill."""

    skill: int
    roll: list[int]
    total: int
    success: bool
    critical: Critical
    margin: int
    rule: RuleLink
    rolls: list[RollRecord]
    summary: str


@with_config(ANSWER)
class GurpsCompetitorRoll(TypedDict):
    """A named competitor's success roll in a quick contest or a resistance roll."""

    name: str
    skill: int
    roll: list[int]
    total: int
    success: bool
    critical: Critical
    margin: int


@with_config(ANSWER)
class QuickContestAnswer(TypedDict):
    """The answer of `POST /v1/gurps/quick-contest`: both rolls and who won by how much."""

    winner: str | None
    tie: bool
    margin_of_victory: int | None
    a: GurpsCompetitorRoll
    b: GurpsCompetitorRoll
    rule: RuleLink
    rolls: list[RollRecord]
    summary: str


@with_config(ANSWER)
class ResistanceDefenderRolled(GurpsCompetitorRoll):
    """The defender of a resistance roll who resisted: her success roll, `rolled` true."""

    rolled: Literal[True]


@with_config(ANSWER)
class ResistanceDefenderUnrolled(TypedDict):
    """The defender of a resistance roll whose attacker failed: no roll, `rolled` false."""

    name: str
    skill: int
    rolled: Literal[False]


@with_config(ANSWER)
class ResistanceRollAnswer(TypedDict):
    """The answer of `POST /v1/gurps/resistance-roll`: whether the defender is affected."""

    affected: bool
    winner: str
    margin_of_victory: int | None
    attacker: GurpsCompetitorRoll
    defender: ResistanceDefenderRolled | ResistanceDefenderUnrolled
    rule: RuleLink
    rolls: list[RollRecord]
    #: The defender's supplied dice when the attack failed (only then).
    unused: NotRequired[list[UnusedRecord]]
    summary: str


@with_config(ANSWER)
class RegularRoundSide(TypedDict):
    """One side's roll in a round of a one-shot regular contest."""

    roll: list[int]
    total: int
    success: bool


@with_config(ANSWER)
class RegularRoundPlayed(TypedDict):
    """One round of a one-shot regular contest: both sides' rolls."""

    number: int
    a: RegularRoundSide
    b: RegularRoundSide


@with_config(ANSWER)
class RegularContestAnswer(TypedDict):
    """The answer of `POST /v1/gurps/regular-contest`: every round until one side wins."""

    effective_skills: dict[str, int]
    status: Literal["decided", "undecided"]
    winner: str | None
    rounds_taken: int
    game_seconds: int
    rounds: list[RegularRoundPlayed]
    rule: RuleLink
    rolls: list[RollRecord]
    summary: str
