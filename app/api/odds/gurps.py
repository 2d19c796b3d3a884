"""The odds of GURPS contests: success rolls, quick contests, resistance rolls, regular contests
(docs/rules.md#gurps)."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Final, NamedTuple

from app.api.odds.figures import distribution, exact, percent, probability
from app.api.schemas.odds import (
    OddsQuickContestAnswer,
    OddsRegularContestAnswer,
    OddsResistanceRollAnswer,
    OddsSuccessRollAnswer,
)
from app.rules import gurps
from app.rules.odds import fraction_text, ratio_text
from app.rules.odds import gurps as gurps_odds


def success_roll_answer(skill: int) -> OddsSuccessRollAnswer:
    odds = gurps_odds.success_roll_odds(skill)
    margin, margin_exact = distribution(odds.margin)
    return {
        "method": "exact",
        "skill": skill,
        "success": probability(odds.success),
        "success_exact": exact(odds.success),
        "critical_success": probability(odds.critical_success),
        "critical_success_exact": exact(odds.critical_success),
        "critical_failure": probability(odds.critical_failure),
        "critical_failure_exact": exact(odds.critical_failure),
        "margin": margin,
        "margin_exact": margin_exact,
        "summary": f"Skill {skill}: succeeds {percent(float(odds.success))} "
        f"(critical success {percent(float(odds.critical_success))}, critical failure "
        f"{percent(float(odds.critical_failure))}).",
    }


#: Pairs of skills whose quick-contest parts are kept (a few KB each).
QUICK_CONTEST_PAIRS: Final = 512


class _QuickContestParts(NamedTuple):
    """What a quick contest's answer says whoever asks (the names aside), written once."""

    a_wins: float
    a_wins_exact: str
    b_wins: float
    b_wins_exact: str
    tie: float
    tie_exact: str
    margin: dict[str, float]
    margin_exact: dict[str, str]


@lru_cache(maxsize=QUICK_CONTEST_PAIRS)
def _quick_contest_parts(skill_a: int, skill_b: int) -> _QuickContestParts:
    # Kept whole per pair of skills: a repeated question costs no arithmetic or string work.
    # The dicts are shared by every answer built from them, and never changed. Written from
    # the integer counts (a float division and a gcd each), never through Fractions.
    counts = gurps_odds.quick_contest_counts(skill_a, skill_b)
    outcomes, decided = counts.outcomes, counts.decided
    margins = counts.margin_of_victory.items()
    return _QuickContestParts(
        counts.a_wins / outcomes,
        ratio_text(counts.a_wins, outcomes),
        counts.b_wins / outcomes,
        ratio_text(counts.b_wins, outcomes),
        counts.tie / outcomes,
        ratio_text(counts.tie, outcomes),
        {str(margin): count / decided for margin, count in margins},
        {str(margin): ratio_text(count, decided) for margin, count in margins},
    )


def regular_contest_answer(
    config: gurps.RegularConfig, state: gurps.RegularState
) -> OddsRegularContestAnswer:
    """The odds of a regular contest from `state` (a finished one: its result, certain)."""
    a, b = config.a.name, config.b.name
    if state.finished:
        odds = gurps_odds.RegularContestOdds(
            config.effective,
            Fraction(state.winner == "a"),
            Fraction(state.winner == "b"),
            Fraction(state.winner is None),
            Fraction(state.rounds),
            state.rounds,
        )
    else:
        odds = gurps_odds.regular_contest_odds(
            config.a.skill, config.b.skill, config.normalize, config.max_rounds, state.rounds
        )
    skill_a, skill_b = odds.effective
    return {
        "method": "exact",
        "effective_skills": {a: skill_a, b: skill_b},
        "a_wins": probability(odds.a_wins),
        "a_wins_exact": fraction_text(odds.a_wins),
        "b_wins": probability(odds.b_wins),
        "b_wins_exact": fraction_text(odds.b_wins),
        "undecided": probability(odds.undecided),
        "undecided_exact": fraction_text(odds.undecided),
        "expected_rounds": probability(odds.expected_rounds),
        "expected_rounds_exact": fraction_text(odds.expected_rounds),
        "rounds_played": odds.rounds_played,
        "summary": f"{a} (effective {skill_a}) wins {percent(float(odds.a_wins))}, "
        f"{b} (effective {skill_b}) {percent(float(odds.b_wins))}, undecided after "
        f"{config.max_rounds} rounds {percent(float(odds.undecided))}; "
        f"{float(odds.expected_rounds):.2f} rounds expected.",
    }


def quick_contest_answer(
    a_name: str, a_skill: int, b_name: str, b_skill: int
) -> OddsQuickContestAnswer:
    """The quick contest's answer for these two (the figures shared by every pair of names
    with these skills)."""
    parts = _quick_contest_parts(a_skill, b_skill)
    return {
        "method": "exact",
        "a": a_name,
        "b": b_name,
        "a_wins": parts.a_wins,
        "a_wins_exact": parts.a_wins_exact,
        "b_wins": parts.b_wins,
        "b_wins_exact": parts.b_wins_exact,
        "tie": parts.tie,
        "tie_exact": parts.tie_exact,
        "margin_of_victory": parts.margin,
        "margin_of_victory_exact": parts.margin_exact,
        "summary": f"{a_name} (skill {a_skill}) wins {percent(parts.a_wins)}, "
        f"{b_name} (skill {b_skill}) {percent(parts.b_wins)}, tie {percent(parts.tie)}.",
    }


def resistance_roll_answer(
    attacker: str, attacker_skill: int, defender: str, defender_skill: int
) -> OddsResistanceRollAnswer:
    """The probability that the defender is affected."""
    affected = gurps_odds.resistance_odds(attacker_skill, defender_skill)
    return {
        "method": "exact",
        "attacker": attacker,
        "defender": defender,
        "affected": probability(affected),
        "affected_exact": exact(affected),
        "summary": f"{defender} is affected by {attacker} {percent(float(affected))} of the time.",
    }
