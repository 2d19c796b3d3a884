"""The odds of GURPS contests: success rolls, quick contests, resistance rolls, regular contests
(docs/rules.md#gurps)."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Final, NamedTuple

from app.api.odds.figures import distribution, exact, probability
from app.api.schemas.odds import (
    OddsQuickContestAnswer,
    OddsRegularContestAnswer,
    OddsResistanceRollAnswer,
    OddsSuccessRollAnswer,
)
from app.rules import gurps
from app.rules.messages import Fixed, Message, Percent, english, m
from app.rules.odds import fraction_text, ratio_text
from app.rules.odds import gurps as gurps_odds


def success_roll_answer(skill: int) -> OddsSuccessRollAnswer:
    odds = gurps_odds.success_roll_odds(skill)
    margin, margin_exact = distribution(odds.margin)
    answer: OddsSuccessRollAnswer = {
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
        "summary": "",
    }
    answer["summary"] = english(success_roll_said(answer))
    return answer


def success_roll_said(answer: OddsSuccessRollAnswer) -> Message:
    """A success roll's odds in one line (docs/languages.md)."""
    return m(
        "Skill {skill}: succeeds {success} (critical success {critical_success}, critical "
        "failure {critical_failure}).",
        skill=answer["skill"],
        success=Percent(answer["success"]),
        critical_success=Percent(answer["critical_success"]),
        critical_failure=Percent(answer["critical_failure"]),
    )


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
    answer: OddsRegularContestAnswer = {
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
        "summary": "",
    }
    answer["summary"] = english(regular_contest_said(config, answer))
    return answer


def regular_contest_said(config: gurps.RegularConfig, answer: OddsRegularContestAnswer) -> Message:
    """A regular contest's odds in one line (docs/languages.md)."""
    a, b = config.a.name, config.b.name
    return m(
        "{a} (effective {skill_a}) wins {a_wins}, {b} (effective {skill_b}) {b_wins}, "
        "undecided after {max_rounds} rounds {undecided}; {expected} rounds expected.",
        a=a,
        skill_a=answer["effective_skills"][a],
        a_wins=Percent(answer["a_wins"]),
        b=b,
        skill_b=answer["effective_skills"][b],
        b_wins=Percent(answer["b_wins"]),
        max_rounds=config.max_rounds,
        undecided=Percent(answer["undecided"]),
        expected=Fixed(answer["expected_rounds"]),
    )


def quick_contest_answer(
    a_name: str, a_skill: int, b_name: str, b_skill: int
) -> OddsQuickContestAnswer:
    """The quick contest's answer for these two (the figures shared by every pair of names
    with these skills)."""
    parts = _quick_contest_parts(a_skill, b_skill)
    answer: OddsQuickContestAnswer = {
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
        "summary": "",
    }
    answer["summary"] = english(quick_contest_said(answer, a_skill, b_skill))
    return answer


def quick_contest_said(answer: OddsQuickContestAnswer, a_skill: int, b_skill: int) -> Message:
    """A quick contest's odds in one line (docs/languages.md)."""
    return m(
        "{a} (skill {a_skill}) wins {a_wins}, {b} (skill {b_skill}) {b_wins}, tie {tie}.",
        a=answer["a"],
        a_skill=a_skill,
        a_wins=Percent(answer["a_wins"]),
        b=answer["b"],
        b_skill=b_skill,
        b_wins=Percent(answer["b_wins"]),
        tie=Percent(answer["tie"]),
    )


def resistance_roll_answer(
    attacker: str, attacker_skill: int, defender: str, defender_skill: int
) -> OddsResistanceRollAnswer:
    """The probability that the defender is affected."""
    affected = gurps_odds.resistance_odds(attacker_skill, defender_skill)
    answer: OddsResistanceRollAnswer = {
        "method": "exact",
        "attacker": attacker,
        "defender": defender,
        "affected": probability(affected),
        "affected_exact": exact(affected),
        "summary": "",
    }
    answer["summary"] = english(resistance_roll_said(answer))
    return answer


def resistance_roll_said(answer: OddsResistanceRollAnswer) -> Message:
    """A resistance roll's odds in one line (docs/languages.md)."""
    return m(
        "{defender} is affected by {attacker} {affected} of the time.",
        defender=answer["defender"],
        attacker=answer["attacker"],
        affected=Percent(answer["affected"]),
    )
