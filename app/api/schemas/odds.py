"""Answers of the odds endpoints (docs/api.md#odds, docs/rules.md#odds).

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
    """The answer of `POST /v1/odds/gurps/success-roll` (docs/rules.md#success-roll)."""

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
    """The answer of `POST /v1/odds/gurps/quick-contest` (docs/rules.md#quick-contest).

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
    """The answer of `POST /v1/odds/gurps/resistance-roll` (docs/rules.md#resistance-roll)."""

    method: Literal["exact"]
    attacker: str
    defender: str
    affected: float
    affected_exact: str
    summary: str


@with_config(ConfigDict(extra="forbid"))
class OddsRegularContestAnswer(TypedDict):
    """The answer of `POST /v1/odds/gurps/regular-contest` (docs/rules.md#regular-contest).

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
    """The answer of `POST /v1/odds/cairn` (docs/rules.md#cairn-hill-roll): the score's whole
    distribution."""

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
    """The answer of `POST /v1/odds/arm-wrestles` (docs/rules.md#arm-wrestling).

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
