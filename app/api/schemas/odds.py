"""Answers of the odds endpoints (API.md "Odds", RULES.md §6).

Exact answers give each probability as a float and as an exact fraction string (`a_wins`,
`a_wins_exact`); a distribution is `{value: p}` with its exact fractions beside it. An exact
fraction too long to write (more than 4000 digits) is null, the float stands. Monte Carlo
answers give `trials`, `seed` and a standard error per probability, and null fractions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from app.api.schemas.cairn import CairnPosition

Method = Literal["exact", "monte-carlo"]


@with_config(ConfigDict(extra="forbid"))
class OddsSuccessRollAnswer(TypedDict):
    """The answer of `POST /v1/odds/gurps/success-roll` (RULES.md §1.1)."""

    method: Literal["exact"]
    skill: int
    success: float
    success_exact: str
    critical_success: float
    critical_success_exact: str
    critical_failure: float
    critical_failure_exact: str
    margin: dict[str, float]
    margin_exact: dict[str, str]
    summary: str


@with_config(ConfigDict(extra="forbid"))
class OddsQuickContestAnswer(TypedDict):
    """The answer of `POST /v1/odds/gurps/quick-contest` (RULES.md §1.2).

    `margin_of_victory` is the distribution of the winner's margin, given that somebody wins.
    """

    method: Literal["exact"]
    a: str
    b: str
    a_wins: float
    a_wins_exact: str
    b_wins: float
    b_wins_exact: str
    tie: float
    tie_exact: str
    margin_of_victory: dict[str, float]
    margin_of_victory_exact: dict[str, str]
    summary: str


@with_config(ConfigDict(extra="forbid"))
class OddsResistanceRollAnswer(TypedDict):
    """The answer of `POST /v1/odds/gurps/resistance-roll` (RULES.md §1.3)."""

    method: Literal["exact"]
    attacker: str
    defender: str
    affected: float
    affected_exact: str
    summary: str


@with_config(ConfigDict(extra="forbid"))
class OddsRegularContestAnswer(TypedDict):
    """The answer of `POST /v1/odds/gurps/regular-contest` (RULES.md §1.4).

    `expected_rounds` counts an undecided contest as `max_rounds` rounds; `rounds_played` is
    0 for a fresh contest, or the rounds a session has played (odds from here).
    """

    method: Literal["exact"]
    effective_skills: dict[str, int]
    a_wins: float
    a_wins_exact: str | None
    b_wins: float
    b_wins_exact: str | None
    undecided: float
    undecided_exact: str | None
    expected_rounds: float
    expected_rounds_exact: str | None
    rounds_played: int
    summary: str


@with_config(ConfigDict(extra="forbid"))
class OddsCairnAnswer(TypedDict):
    """The answer of `POST /v1/odds/cairn` (RULES.md §2): the score's whole distribution."""

    method: Literal["exact"]
    rating: int
    chosen_names: list[CairnPosition]
    distribution: dict[str, float]
    distribution_exact: dict[str, str]
    mean: float
    mean_exact: str
    critical_success: float
    critical_success_exact: str
    critical_failure: float
    critical_failure_exact: str
    target: int | None
    success: float | None
    success_exact: str | None
    summary: str


@with_config(ConfigDict(extra="forbid"))
class OddsArmWrestleAnswer(TypedDict):
    """The answer of `POST /v1/odds/arm-wrestles` (RULES.md §3.1).

    Exact (dynamic programming over the DS pairs) when the walk fits the service's budget,
    else Monte Carlo: then the `*_exact` fields are null and `standard_error`, `trials` and
    `seed` are given. `expected_rounds` counts the whole match (a stopped match as
    `max_rounds`).
    """

    method: Method
    a: str
    b: str
    a_wins: float
    a_wins_exact: str | None
    b_wins: float
    b_wins_exact: str | None
    draw: float
    draw_exact: str | None
    undecided: float
    undecided_exact: str | None
    expected_rounds: float
    expected_rounds_exact: str | None
    standard_error: dict[str, float] | None
    trials: int | None
    seed: int | None
    rounds_played: int
    summary: str
