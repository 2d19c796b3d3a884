"""Answers of the odds endpoints (docs/api.md#odds, docs/rules.md#odds).

Exact answers give each probability as a float and as an exact fraction string (`a_wins`,
`a_wins_exact`); a distribution is `{value: p}` with its exact fractions beside it. Under
`method: "exact"` a fraction is never null: one whose numerator or denominator passes 4000
digits (`MAX_EXACT_DIGITS`) is written as its decimal to a double's full precision, 17
significant digits rounded from the exact fraction (`"0.49942821647633267"`, `"1.2E-5000"`).
Monte Carlo answers give `trials`, `seed` and a standard error per probability, and null
fractions.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.cairn import CairnPosition
from app.api.schemas.chases import ChaseCreate, ChaseRound, ChaseTerrain
from app.api.schemas.common import ANSWER, Name, Seed, Strict
from app.api.schemas.races import RaceCreate, RacePacing
from app.api.schemas.skill_games import MAX_SKILLS, SkillGameCreate, SkillGameSkills
from app.rules.odds.simulation import MAX_TRIALS
from app.rules.skill_games import MAX_PARTIES

Method = Literal["exact", "monte-carlo"]

#: How many trials a Monte Carlo estimate plays, when the caller wants more precision than
#: the default budget's (docs/api.md#odds).
Trials = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_TRIALS,
        description=f"trials of a Monte Carlo estimate, 1 to {MAX_TRIALS}: its standard "
        "errors shrink as 1/sqrt(trials); without it, the service's default budget of work. "
        "The request's work limit of dice may stop it sooner (`trials` in the answer says how "
        "many were played); exact answers ignore it",
    ),
]


@with_config(ANSWER)
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


@with_config(ANSWER)
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


@with_config(ANSWER)
class OddsResistanceRollAnswer(TypedDict):
    """The answer of `POST /v1/odds/gurps/resistance-roll` (docs/rules.md#resistance-roll)."""

    method: Literal["exact"]
    attacker: str
    defender: str
    affected: float
    affected_exact: str
    summary: str


@with_config(ANSWER)
class OddsRegularContestAnswer(TypedDict):
    """The answer of `POST /v1/odds/gurps/regular-contest` (docs/rules.md#regular-contest).

    `expected_rounds` counts an undecided contest as `max_rounds` rounds; `rounds_played` is
    0 for a fresh contest, or the rounds a session has played (odds from here).
    """

    method: Literal["exact"]
    effective_skills: dict[str, int]
    a_wins: float
    a_wins_exact: str
    b_wins: float
    b_wins_exact: str
    undecided: float
    undecided_exact: str
    expected_rounds: float
    expected_rounds_exact: str
    rounds_played: int
    summary: str


@with_config(ANSWER)
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


@with_config(ANSWER)
class OddsArmWrestleAnswer(TypedDict):
    """The answer of `POST /v1/odds/arm-wrestles` and of a match's `GET …/odds`
    (docs/rules.md#arm-wrestling), from the start or from where the match stands.

    `method` `exact` (a walk over the difference of the DS, docs/rules.md#odds): every
    `*_exact` is a fraction (or, past 4000 digits, its 17-digit decimal) and `error_bound` is
    null. `method` `bounded`, for a match too long for the exact walk: the same walk in
    doubles with every rounding counted; each `*_exact` is null and `error_bound` gives, per
    answer, how far at most the double is from the exact value (no Monte Carlo either way).
    `standard_error`, `trials` and `seed` are always null (no estimate is made; a request's
    `seed` changes nothing). `expected_rounds` counts the whole match (a stopped match as
    `max_rounds`).
    """

    method: Literal["exact", "bounded"]
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
    error_bound: dict[str, float] | None
    standard_error: dict[str, float] | None
    trials: int | None
    seed: int | None
    rounds_played: int
    summary: str


# --- skill-game tokens ----------------------------------------------------------------------


class OddsSkillGameTokensRequest(Strict):
    """The body of `POST /v1/odds/skill-games/tokens`: a skill game as created and the skills
    each party would choose this round.

    `game` is exactly the body of `POST /v1/skill-games` (the same validation and 422s, located
    under `game`); `skills` maps a party's name to its chosen skills (`{party: [skill, ...]}`:
    `skills_per_round` distinct skills of the game's `skill_list`, as the skills call takes
    them). Only the parties named are answered.
    """

    game: SkillGameCreate
    skills: Annotated[
        dict[Name, Annotated[list[Name], Field(max_length=MAX_SKILLS)]],
        Field(min_length=1, max_length=MAX_PARTIES),
    ]


@with_config(ANSWER)
class OddsPartyTokens(TypedDict):
    """One party's round: `token` is each chosen skill's chance of earning a token (its best
    member's result against the DC); `tokens` the distribution of tokens earned."""

    skills: list[str]
    token: dict[str, float]
    token_exact: dict[str, str]
    tokens: dict[str, float]
    tokens_exact: dict[str, str]
    expected_tokens: float
    expected_tokens_exact: str


@with_config(ANSWER)
class OddsSkillGameTokensAnswer(TypedDict):
    """The answer of `POST /v1/odds/skill-games/tokens` (docs/rules.md#skill-games): per party
    named, the exact distribution of tokens earned in one round under the game's
    `token_rule`."""

    method: Literal["exact"]
    dc: int
    token_rule: Literal["exceed", "meet"]
    parties: dict[str, OddsPartyTokens]
    summary: str


# --- chases and races -------------------------------------------------------------------------


class OddsChaseRequest(ChaseCreate):
    """The body of `POST /v1/odds/chases`: a chase as created (`POST /v1/chases`, the same
    validation), plus the terrain of every increment and the escapee's tactic policy, as
    `resolve` takes them. `rolls` fixes the starting initiative die; without it an
    initiative start is weighed over every roll that starts the chase. `seed` seeds a Monte
    Carlo estimate and `trials` sets its trials (each starting roll of an initiative mixture
    gets as many)."""

    terrain: ChaseTerrain
    tactic_policy: Literal["none", "hide-when-possible"] = "none"
    trials: Trials | None = None


class OddsChaseFromHereRequest(Strict):
    """The body of `POST /v1/chases/{id}/odds`: the chase's odds from its current state, for
    the terrain of every increment to come (a round body's `terrain`, the same validation),
    the escapee's tactic policy, and the seed and trials of a Monte Carlo estimate. The same
    question as `GET /v1/chases/{id}/odds?terrain=<JSON>&tactic_policy=…&seed=…&trials=…`,
    and the same answer."""

    terrain: ChaseTerrain
    tactic_policy: Literal["none", "hide-when-possible"] = "none"
    seed: Seed | None = None
    trials: Trials | None = None


class OddsRaceRequest(RaceCreate):
    """The body of `POST /v1/odds/races`: a race as created (`POST /v1/races`, the same
    validation), `seed` seeding the estimate, and `trials` its number of trials."""

    trials: Trials | None = None


@with_config(ANSWER)
class OddsChaseAnswer(TypedDict):
    """The answer of `POST /v1/odds/chases` (docs/rules.md#chases) and of a chase's
    `GET …/odds` and `POST …/odds`.

    `escaped` counts escapes by the lead and by hiding (`hid`, its part won by hiding);
    `gave_up` is the chase still on after `max_rounds` (the chaser gives up). Exact over the
    lead when the walk fits the service's budget, else Monte Carlo (then `*_exact` are null
    and `standard_error`, `trials`, `seed` are given; the errors by the Agresti-Coull rule,
    so an outcome never seen is 0 with an error of about 1.4 / trials, never 0 +- 0).
    `expected_increments` counts the whole chase, the `increments_played` included.
    """

    method: Method
    escapee: str
    chaser: str
    tactic_policy: Literal["none", "hide-when-possible"]
    caught: float
    caught_exact: str | None
    escaped: float
    escaped_exact: str | None
    hid: float
    hid_exact: str | None
    gave_up: float
    gave_up_exact: str | None
    expected_increments: float
    expected_increments_exact: str | None
    standard_error: dict[str, float] | None
    trials: int | None
    seed: int | None
    increments_played: int
    summary: str


@with_config(ANSWER)
class OddsRaceAnswer(TypedDict):
    """The answer of `POST /v1/odds/races` (docs/rules.md#races) and of a race's `GET …/odds`:
    a seeded Monte Carlo estimate.

    `wins` is each racer's chance of winning outright, `forfeits` of forfeiting; `tie` a
    shared first place, `nobody` every racer forfeited; `standard_error` gives each one's
    (`wins.<name>`, `forfeits.<name>`, `tie`, `nobody`), by the Agresti-Coull rule: an
    outcome never seen in the trials is 0 with an error of about 1.4 / trials, never
    0 +- 0. A finished race answers its result with `method` "exact", one trial and no error.
    """

    method: Method
    wins: dict[str, float]
    forfeits: dict[str, float]
    tie: float
    nobody: float
    standard_error: dict[str, float]
    trials: int
    seed: int
    increments_played: int
    summary: str


# --- the odds at a choice (`POST …/odds/choices`) -------------------------------------------

#: Most options one `POST …/odds/choices` may list.
MAX_OPTIONS: Final = 16
#: An option's label: the caller's name for it, echoed in the answer and its summary.
Label = Annotated[str, Field(min_length=1, max_length=100)]


class OddsChaseOption(Strict):
    """One option for a chase's next increment: `move` is the round body it would post
    (`POST /v1/chases/{id}/rounds`, the same validation: its terrain and tactic), without
    `rolls` (the dice are what is unknown); `label` names it in the answer (by default, its
    tactic)."""

    label: Label | None = None
    move: ChaseRound


class OddsChaseChoicesRequest(Strict):
    """The body of `POST /v1/chases/{id}/odds/choices`: the options for the next increment
    (1 to 16), and the odds question of the increments after it, as `POST …/odds` asks it:
    their `terrain` (by default each option's own), the escapee's `tactic_policy`, the seed
    of a Monte Carlo estimate."""

    options: Annotated[list[OddsChaseOption], Field(min_length=1, max_length=MAX_OPTIONS)]
    terrain: ChaseTerrain | None = None
    tactic_policy: Literal["none", "hide-when-possible"] = "none"
    seed: Seed | None = None


@with_config(ANSWER)
class OddsChaseChoice(TypedDict):
    """One option: its label, its `move` as sent, and the chase's odds once that increment
    is the next one played (its dice unknown): `…/odds`'s answer for that session."""

    label: str
    move: dict[str, Any]
    odds: OddsChaseAnswer


@with_config(ANSWER)
class OddsChaseChoicesAnswer(TypedDict):
    """The answer of `POST /v1/chases/{id}/odds/choices`: each option in the order sent;
    `best` the label of the option the escapee gets away with most often (the first of
    equals); `summary` one line for a chat."""

    options: list[OddsChaseChoice]
    best: str
    summary: str


class OddsSkillGameOption(Strict):
    """One option for a party's next step: `move` is the skills body it would post
    (`POST /v1/skill-games/{id}/skills`, the same validation, checked against the game as it
    stands), without `rolls`; `label` names it in the answer (by default, its skills)."""

    label: Label | None = None
    move: SkillGameSkills


class OddsSkillGameChoicesRequest(Strict):
    """The body of `POST /v1/skill-games/{id}/odds/choices`: the options (1 to 16), each a
    party's choice of skills for this round."""

    options: Annotated[list[OddsSkillGameOption], Field(min_length=1, max_length=MAX_OPTIONS)]


@with_config(ANSWER)
class OddsSkillGameChoice(TypedDict):
    """One option: its label, its `move` as sent, and the exact token odds of that party
    choosing those skills (`POST /v1/odds/skill-games/tokens`'s answer for this game)."""

    label: str
    move: dict[str, Any]
    odds: OddsSkillGameTokensAnswer


@with_config(ANSWER)
class OddsSkillGameChoicesAnswer(TypedDict):
    """The answer of `POST /v1/skill-games/{id}/odds/choices`: each option in the order sent;
    `best` the label of the option with the most tokens expected (the first of equals);
    `summary` one line for a chat."""

    options: list[OddsSkillGameChoice]
    best: str
    summary: str


class OddsRaceOption(Strict):
    """One option for a race before its first increment: `move` is the pacing body a racer
    would post (`POST /v1/races/{id}/pacing`, the same validation); `label` names it in the
    answer (by default, the racer and the pacing)."""

    label: Label | None = None
    move: RacePacing


class OddsRaceChoicesRequest(Strict):
    """The body of `POST /v1/races/{id}/odds/choices`: the options (1 to 16), each one
    racer's pacing, and the seed and trials of the Monte Carlo estimate every option is
    played with (the same dice for every option)."""

    options: Annotated[list[OddsRaceOption], Field(min_length=1, max_length=MAX_OPTIONS)]
    seed: Seed | None = None
    trials: Trials | None = None


@with_config(ANSWER)
class OddsRaceChoice(TypedDict):
    """One option: its label, its `move` as sent, and the race's odds once that racer races
    at that pacing (the others at theirs): `…/odds`'s answer for that race."""

    label: str
    move: dict[str, Any]
    odds: OddsRaceAnswer


@with_config(ANSWER)
class OddsRaceChoicesAnswer(TypedDict):
    """The answer of `POST /v1/races/{id}/odds/choices`: each option in the order sent;
    `best` the label of the option whose racer wins most often (the first of equals);
    `summary` one line for a chat."""

    options: list[OddsRaceChoice]
    best: str
    summary: str
