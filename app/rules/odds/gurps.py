"""Exact odds of GURPS contests (docs/rules.md#gurps, docs/rules.md#odds), from `app.rules.gurps`'s
own judges.

A success roll depends on its 3d6 only through their total, so each of the 16 totals is
judged once by `judge_success` (with a representative roll) and weighted by how many of the
216 rolls make it; a quick contest judges the 16 x 16 pairs with `judge_quick_contest`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Final

from app.rules import gurps
from app.rules.odds import normalised

#: Every 3d6 roll: 6**3 of them.
ROLLS_3D6: Final = 6**3
#: How many 3d6 rolls make each total.
TOTAL_COUNTS: Final[dict[int, int]] = dict(
    sorted(Counter(sum(roll) for roll in product(range(1, 7), repeat=3)).items())
)


def _representative(total: int) -> tuple[int, int, int]:
    """One 3d6 roll with this total (the judge reads only the total)."""
    first = min(6, total - 2)
    second = min(6, total - first - 1)
    return first, second, total - first - second


@lru_cache(maxsize=1024)
def judged_totals(skill: int) -> tuple[tuple[gurps.SuccessRoll, int], ...]:
    """Each 3d6 total judged against `skill` by the rules (`judge_success`), with its count."""
    return tuple(
        (gurps.judge_success(skill, _representative(total)), count)
        for total, count in TOTAL_COUNTS.items()
    )


@dataclass(frozen=True, slots=True)
class SuccessRollOdds:
    """docs/rules.md#success-roll: success, criticals and the signed margin's distribution."""

    skill: int
    success: Fraction
    critical_success: Fraction
    critical_failure: Fraction
    margin: dict[int, Fraction]


@lru_cache(maxsize=1024)
def success_roll_odds(skill: int) -> SuccessRollOdds:
    """The exact odds of a success roll against effective `skill` (docs/rules.md#success-roll)."""
    success = critical_success = critical_failure = 0
    margins: Counter[int] = Counter()
    for judged, count in judged_totals(skill):
        success += count if judged.success else 0
        critical_success += count if judged.critical == "success" else 0
        critical_failure += count if judged.critical == "failure" else 0
        margins[judged.margin] += count
    return SuccessRollOdds(
        skill=skill,
        success=Fraction(success, ROLLS_3D6),
        critical_success=Fraction(critical_success, ROLLS_3D6),
        critical_failure=Fraction(critical_failure, ROLLS_3D6),
        margin=normalised(margins, ROLLS_3D6),
    )


@dataclass(frozen=True, slots=True)
class QuickContestOdds:
    """docs/rules.md#quick-contest: who wins, and the margin of victory (of the winner, whoever she
    is)."""

    a_wins: Fraction
    b_wins: Fraction
    tie: Fraction
    margin_of_victory: dict[int, Fraction]


@dataclass(frozen=True, slots=True)
class QuickContestCounts:
    """docs/rules.md#quick-contest counted in whole pairs of rolls: of the `outcomes` (6**6)
    pairs, how many `a` wins, `b` wins and tie; of the decided ones, how many win by each
    margin (sorted by margin). `quick_contest_odds` is these counts as fractions."""

    a_wins: int
    b_wins: int
    tie: int
    margin_of_victory: dict[int, int]
    outcomes: int = ROLLS_3D6 * ROLLS_3D6

    @property
    def decided(self) -> int:
        """The pairs of rolls somebody wins: the denominator of `margin_of_victory`."""
        return self.outcomes - self.tie


#: The quick contest's judge's verdicts (winner, margin of victory), by what it reads of the
#: two rolls: (success, margin) of each. Bounded: past `MAX_VERDICTS` they are not kept.
_verdicts: dict[tuple[bool, int, bool, int], tuple[str | None, int | None]] = {}
MAX_VERDICTS: Final = 65_536
#: The skills `warm_verdicts` judges ahead: 3d6 totals run 3-18, so these cover every margin
#: from -15 to 15.
WARM_SKILLS: Final = range(3, 19)


@lru_cache(maxsize=1024)
def _results(skill: int) -> tuple[tuple[gurps.SuccessRoll, tuple[bool, int], int], ...]:
    """`judged_totals(skill)` grouped by what the quick contest's judge reads of a roll
    (success, margin): a representative judged roll, that key, and how many of the 216 rolls
    give it."""
    grouped: dict[tuple[bool, int], tuple[gurps.SuccessRoll, int]] = {}
    for judged, count in judged_totals(skill):
        key = (judged.success, judged.margin)
        seen = grouped.get(key)
        grouped[key] = (judged, count if seen is None else seen[1] + count)
    return tuple((judged, key, count) for key, (judged, count) in grouped.items())


def _verdict(a: gurps.SuccessRoll, b: gurps.SuccessRoll) -> tuple[str | None, int | None]:
    """`judge_quick_contest(a, b)`'s winner and margin, remembered by (success, margin)."""
    key = (a.success, a.margin, b.success, b.margin)
    verdict = _verdicts.get(key)
    if verdict is None:
        contest = gurps.judge_quick_contest(a, b)
        verdict = (contest.winner, contest.margin_of_victory)
        if len(_verdicts) < MAX_VERDICTS:
            _verdicts[key] = verdict
    return verdict


def warm_verdicts(skills: range = WARM_SKILLS) -> None:
    """Judge every pair of distinct results of rolls against `skills` ahead (about 3 ms), so
    a first quick-contest question in that range costs table lookups, not judgements (each
    skill's results are grouped ahead too)."""
    results = {key: judged for skill in skills for judged, key, _count in _results(skill)}
    for a in results.values():
        for b in results.values():
            _verdict(a, b)


@lru_cache(maxsize=1024)
def quick_contest_counts(skill_a: int, skill_b: int) -> QuickContestCounts:
    """The quick contest (docs/rules.md#quick-contest) counted over all 6**6 pairs of rolls.

    Each pair of results (16 x 16 at most) is judged by `judge_quick_contest`, its verdicts
    remembered by what it reads (`_verdict`), and weighted by how many pairs of rolls give it:
    integers throughout (a Fraction per pair was most of a first question's time).
    """
    a_wins = b_wins = tie = 0
    margins: dict[int, int] = {}
    results_b = _results(skill_b)
    verdicts = _verdicts
    for a, (success_a, margin_a), count_a in _results(skill_a):
        for b, (success_b, margin_b), count_b in results_b:
            verdict = verdicts.get((success_a, margin_a, success_b, margin_b))
            winner, margin = _verdict(a, b) if verdict is None else verdict
            weight = count_a * count_b
            if margin is None:
                tie += weight
            else:
                if winner == "a":
                    a_wins += weight
                else:
                    b_wins += weight
                margins[margin] = margins.get(margin, 0) + weight
    return QuickContestCounts(a_wins, b_wins, tie, dict(sorted(margins.items())))


@lru_cache(maxsize=1024)
def quick_contest_odds(skill_a: int, skill_b: int) -> QuickContestOdds:
    """The exact odds of a quick contest (docs/rules.md#quick-contest), over all 6**6 rolls:
    `quick_contest_counts` as fractions."""
    counts = quick_contest_counts(skill_a, skill_b)
    outcomes, decided = counts.outcomes, counts.decided
    return QuickContestOdds(
        a_wins=Fraction(counts.a_wins, outcomes),
        b_wins=Fraction(counts.b_wins, outcomes),
        tie=Fraction(counts.tie, outcomes),
        # Given that somebody wins: a distribution of its own, summing to 1.
        margin_of_victory=normalised(counts.margin_of_victory, decided) if decided else {},
    )


@lru_cache(maxsize=1024)
def resistance_odds(attacker_skill: int, defender_skill: int) -> Fraction:
    """The probability that the subject is affected (docs/rules.md#resistance-roll).

    The attacker must succeed and then win the quick contest outright (every tie goes to the
    defender); a failed attack affects nobody, whatever the defender would have rolled, so
    weighing every pair of rolls by the quick contest's judge gives the same answer.
    """
    affected = 0
    for (attack, count_a), (defence, count_d) in product(
        judged_totals(attacker_skill), judged_totals(defender_skill)
    ):
        if attack.success and gurps.judge_quick_contest(attack, defence).winner == "a":
            affected += count_a * count_d
    return Fraction(affected, ROLLS_3D6 * ROLLS_3D6)


@dataclass(frozen=True, slots=True)
class RegularContestOdds:
    """docs/rules.md#regular-contest: who wins within `max_rounds`, undecided, and the rounds
    played.

    `expected_rounds` counts an undecided contest as `max_rounds` rounds.
    """

    effective: tuple[int, int]
    a_wins: Fraction
    b_wins: Fraction
    undecided: Fraction
    expected_rounds: Fraction
    rounds_played: int


@lru_cache(maxsize=1024)
def regular_contest_odds(
    skill_a: int, skill_b: int, normalize: bool, max_rounds: int, rounds_played: int = 0
) -> RegularContestOdds:
    """The exact odds of a regular contest from `rounds_played` rounds in
    (docs/rules.md#regular-contest).

    Each round is an independent quick pair of success rolls: `a` alone succeeds with
    probability `p_a`, `b` alone with `p_b`, and otherwise (`q`) they roll again. With `n`
    rounds left, `a` wins with `p_a (1 - q**n) / (1 - q)`; the expected rounds are
    `(1 - q**n) / (1 - q)` more. Computed over one common denominator, in integers.
    """
    config = gurps.RegularConfig(
        gurps.Contestant("a", skill_a),
        gurps.Contestant("b", skill_b),
        normalize=normalize,
        max_rounds=max_rounds,
    )
    effective_a, effective_b = config.effective
    alone_a = alone_b = 0
    for (a, count_a), (b, count_b) in product(
        judged_totals(effective_a), judged_totals(effective_b)
    ):
        if a.success != b.success:
            if a.success:
                alone_a += count_a * count_b
            else:
                alone_b += count_a * count_b
    whole = ROLLS_3D6 * ROLLS_3D6
    again = whole - alone_a - alone_b
    left = max(max_rounds - rounds_played, 0)
    whole_n, again_n = whole**left, again**left
    undecided = Fraction(again_n, whole_n)
    if again == whole:  # nobody can ever win alone: every round is played
        return RegularContestOdds(
            (effective_a, effective_b),
            Fraction(0),
            Fraction(0),
            Fraction(1),
            Fraction(rounds_played + left),
            rounds_played,
        )
    # sum_{k<n} q**k = (1 - q**n) / (1 - q) = (W**n - Q**n) / (W**(n-1) (W - Q)).
    decided_share = whole_n - again_n
    scale = whole ** max(left - 1, 0) * (whole - again)
    if left == 0:
        expected_more = Fraction(0)
        a_wins = b_wins = Fraction(0)
    else:
        expected_more = Fraction(decided_share, scale)
        a_wins = Fraction(alone_a * decided_share, whole * scale)
        b_wins = Fraction(alone_b * decided_share, whole * scale)
    return RegularContestOdds(
        (effective_a, effective_b),
        a_wins,
        b_wins,
        undecided,
        rounds_played + expected_more,
        rounds_played,
    )
