"""Schemas of regular contests as sessions (docs/api.md#regular-contests,
docs/rules.md#regular-contest).

The create body checks every field on its own and builds the rules' config (`to_rules`); the
TypedDicts describe exactly the JSON served for a session's `config`, `state`, `result` and
each round record.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
    DISTINCT_NAMES,
    NO_SEED_WITH_VERIFIABLE_DICE,
    CollectedKeys,
    Collecting,
    DiceMode,
    Name,
    Roll3d6,
    RoundRecordKeys,
    Seats,
    Seed,
    Strict,
    in_schema,
)
from app.api.schemas.gurps import RegularContestOptions
from app.api.sessions.presentation import SessionFields
from app.rules import gurps


class RegularContestCreate(RegularContestOptions):
    """A new regular contest: its two sides and options (docs/rules.md#regular-contest).

    Rules across fields:
    - the two sides' names differ;
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(NO_SEED_WITH_VERIFIABLE_DICE, beyond=(DISTINCT_NAMES,))
    )

    seed: Seed | None = None
    dice: DiceMode = "server"
    seats: Seats = False


class RegularRollSupply(Strict):
    """One contestant's dice in a round body: its fields are the dice purposes."""

    success: Roll3d6 | None = None


class RegularContestRound(Collecting):
    rolls: dict[Name, RegularRollSupply] | None = None


# --- answers --------------------------------------------------------------------------------


@with_config(ANSWER)
class RegularContestant(TypedDict):
    """One side of a regular contest as created: its name and skill before any adjustment."""

    name: str
    skill: int


@with_config(ANSWER)
class RegularContestConfig(TypedDict):
    """A regular contest's `config`: the create body with defaults, and the adjusted skills."""

    a: RegularContestant
    b: RegularContestant
    normalize: bool
    max_rounds: int
    seconds_per_round: int
    effective_skills: dict[str, int]


@with_config(ANSWER)
class RegularContestState(TypedDict):
    """A regular contest's `state`: rounds played, the winner so far, the adjusted skills."""

    rounds: int
    winner: str | None
    effective_skills: dict[str, int]


@with_config(ANSWER)
class RegularContestResult(TypedDict):
    """A finished regular contest's `result`: who won after how many rounds, or undecided."""

    winner: str | None
    status: Literal["decided", "undecided"]
    rounds_taken: int
    game_seconds: int
    effective_skills: dict[str, int]


@with_config(ANSWER)
class RegularContestSide(TypedDict):
    """One side's success roll in a round of a regular contest, against its adjusted skill."""

    name: str
    roll: list[int]
    total: int
    success: bool
    skill: int
    margin: int
    critical: gurps.Critical


@with_config(ANSWER)
class RegularContestRoundOutcome(TypedDict):
    """What one round did (the round record without number, rolls and summary)."""

    a: RegularContestSide
    b: RegularContestSide
    finished: bool
    winner: str | None


@with_config(ANSWER)
class RegularContestRoundRecord(RegularContestRoundOutcome, RoundRecordKeys, CollectedKeys):
    """One round of a regular contest as served: its number, outcome, dice and summary line."""


@with_config(ANSWER)
class RegularContestSession(SessionFields):
    """A regular contest as every answer shows it."""

    config: RegularContestConfig
    state: RegularContestState
    result: RegularContestResult | None
