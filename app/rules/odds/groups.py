"""Exact odds of one against many, and of a ranking (docs/rules.md#one-against-many).

The one competitor's roll is shared by every pair, so the pairs' results are not independent:
given that roll they are, and the odds are taken over it. For each value of the shared roll,
each opponent's chance of losing, tying and winning is counted over its own dice; the number
of opponents beaten is the convolution of those chances, in integers over one common
denominator; the figures are the average over the shared roll, weighted by its chance.
Multiplying each opponent's own chance instead (as if the pairs were independent) is wrong
whenever the shared roll matters, which it does but for trivial cases.

A ranking's rolls are all independent: competitor i places first alone with the chance of each
of its results times the chance that everyone else does worse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Final

from app.rules import gurps
from app.rules.common import MAX_OPPOSED_REROLLS
from app.rules.groups import standing
from app.rules.odds.gurps import ROLLS_3D6, judged_totals

D20: Final = 20
#: The chance that the first side wins a fresh opposed check between equal modifiers: each
#: attempt it wins 190 of the 400 pairs of d20s and ties 20; after the last reroll still tied,
#: the second side wins.
EQUAL_REROLLS_WIN: Final = Fraction(190, 400) * sum(
    (Fraction(1, 20) ** k for k in range(MAX_OPPOSED_REROLLS)), Fraction(0)
)


@dataclass(frozen=True, slots=True)
class PairOdds:
    """One opponent's own figures: the one competitor beats it, ties, or is beaten."""

    beats: Fraction
    ties: Fraction
    beaten_by: Fraction


@dataclass(frozen=True, slots=True)
class GroupOdds:
    """`pairs` in the opponents' order; `beaten[k]` is the chance of beating exactly k of
    them; `all_beaten` is `beaten[n]`; `beaten_by_any` the chance that at least one opponent
    wins its pair; `independent_all_beaten` the product of the pairs' own `beats`, which is
    what treating the pairs as independent would claim."""

    pairs: tuple[PairOdds, ...]
    beaten: tuple[Fraction, ...]
    all_beaten: Fraction
    beaten_by_any: Fraction
    independent_all_beaten: Fraction


def _group(
    shared: Sequence[tuple[int, Sequence[tuple[int, int, int]]]], denominator: int
) -> GroupOdds:
    """The figures from, for each value of the shared roll, its weight and each opponent's
    (wins, ties, losses) counts for the one competitor, each triple summing to `denominator`.
    """
    total_weight = sum(weight for weight, _ in shared)
    count = len(shared[0][1])
    beats = [0] * count
    ties = [0] * count
    beaten_by = [0] * count
    # Weighted sums of integer polynomials: coefficient k over denominator**count.
    beaten = [0] * (count + 1)
    nobody_wins = 0
    for weight, triples in shared:
        poly = [1]
        unbeaten = 1
        for index, (win, tie, loss) in enumerate(triples):
            beats[index] += weight * win
            ties[index] += weight * tie
            beaten_by[index] += weight * loss
            rest = denominator - win
            grown = [0] * (len(poly) + 1)
            for k, coefficient in enumerate(poly):
                grown[k] += coefficient * rest
                grown[k + 1] += coefficient * win
            poly = grown
            unbeaten *= denominator - loss
        for k, coefficient in enumerate(poly):
            beaten[k] += weight * coefficient
        nobody_wins += weight * unbeaten
    scale = total_weight * denominator**count
    pairs = tuple(
        PairOdds(
            Fraction(beats[i], total_weight * denominator),
            Fraction(ties[i], total_weight * denominator),
            Fraction(beaten_by[i], total_weight * denominator),
        )
        for i in range(count)
    )
    distribution = tuple(Fraction(value, scale) for value in beaten)
    independent = Fraction(1)
    for pair in pairs:
        independent *= pair.beats
    return GroupOdds(
        pairs,
        distribution,
        distribution[-1],
        1 - Fraction(nobody_wins, scale),
        independent,
    )


@lru_cache(maxsize=4096)
def _quick_pair_counts(own: gurps.SuccessRoll, skill: int) -> tuple[int, int, int]:
    """Of an opponent's 216 rolls against `own`, how many it loses, ties and wins."""
    win = tie = loss = 0
    for theirs, count in judged_totals(skill):
        contest = gurps.judge_quick_contest(own, theirs)
        if contest.winner == "a":
            win += count
        elif contest.winner is None:
            tie += count
        else:
            loss += count
    return win, tie, loss


def quick_contests_odds(skill: int, opponents: Sequence[int]) -> GroupOdds:
    """One success roll at `skill` against each opponent's own roll at its skill, every pair
    a quick contest (docs/rules.md#quick-contest)."""
    shared = [
        (count, [_quick_pair_counts(own, theirs) for theirs in opponents])
        for own, count in judged_totals(skill)
    ]
    return _group(shared, ROLLS_3D6)


def opposed_checks_odds(modifier: int, opponents: Sequence[int]) -> GroupOdds:
    """One d20 check at `modifier` against each opponent's opposed check at its modifier
    (docs/rules.md#opposed-checks; equal totals with equal modifiers reroll, the pair alone)."""
    # Per shared d20 and opponent: (wins, ties, losses) over 20 * q of the opponent's d20 and
    # the rerolls' chance p / q, so that the counts stay integers.
    p, q = EQUAL_REROLLS_WIN.numerator, EQUAL_REROLLS_WIN.denominator
    shared: list[tuple[int, list[tuple[int, int, int]]]] = []
    for roll in range(1, D20 + 1):
        ours = roll + modifier
        triples = []
        for theirs_modifier in opponents:
            above = sum(1 for d in range(1, D20 + 1) if ours > d + theirs_modifier)
            equal = sum(1 for d in range(1, D20 + 1) if ours == d + theirs_modifier)
            if modifier > theirs_modifier:
                win = (above + equal) * q
            elif modifier < theirs_modifier:
                win = above * q
            else:
                win = above * q + equal * p
            triples.append((win, 0, D20 * q - win))
        shared.append((1, triples))
    return _group(shared, D20 * q)


@dataclass(frozen=True, slots=True)
class RankedOdds:
    """Per competitor, in the order given: the chance to place first alone, and to share first
    place with at least one other; `nobody_alone` is the chance that first place is shared."""

    first: tuple[Fraction, ...]
    shared_first: tuple[Fraction, ...]
    nobody_alone: Fraction


def ranked_odds(skills: Sequence[int]) -> RankedOdds:
    """Everyone rolls once; results rank by success, then the signed margin."""
    standings: list[dict[tuple[bool, int], int]] = []
    for skill in skills:
        counts: dict[tuple[bool, int], int] = {}
        for result, count in judged_totals(skill):
            key = standing(result)
            counts[key] = counts.get(key, 0) + count
        standings.append(counts)
    keys = sorted({key for counts in standings for key in counts})
    # below[j][key]: how many of j's rolls rank below `key`; level[j][key]: how many rank equal.
    below: list[dict[tuple[bool, int], int]] = []
    for counts in standings:
        running = 0
        under: dict[tuple[bool, int], int] = {}
        for key in keys:
            under[key] = running
            running += counts.get(key, 0)
        below.append(under)
    n = len(skills)
    scale = ROLLS_3D6**n
    first: list[Fraction] = []
    shared_first: list[Fraction] = []
    for i, counts in enumerate(standings):
        alone = at_most = 0
        for key, count in counts.items():
            strictly = not_above = count
            for j, other in enumerate(standings):
                if j != i:
                    strictly *= below[j][key]
                    not_above *= below[j][key] + other.get(key, 0)
            alone += strictly
            at_most += not_above
        first.append(Fraction(alone, scale))
        shared_first.append(Fraction(at_most - alone, scale))
    return RankedOdds(tuple(first), tuple(shared_first), 1 - sum(first, Fraction(0)))


@lru_cache(maxsize=64)
def _rerolled_tops(size: int, max_rerolls: int) -> tuple[tuple[Fraction, Fraction], ...]:
    """For s from 1 to `size`: of s competitors tied in total and modifier at the top, who roll
    again among themselves (docs/rules.md#one-against-many), each one's chance to end first
    alone, and to end in the group still tied after `max_rerolls` rerolls (which shares first
    place).

    The size of the group still tied at the top is a chain: from s, one reroll of s d20s
    leaves m tied at the top in C(s, m) * sum over the top value v of (v - 1)**(s - m) of the
    20**s throws. `alone[s]` is the chance it ends at 1; `held[s]` the expected size of the
    group still tied after the last reroll (0 when it ended alone); by symmetry each of the s
    has `alone[s] / s` and `held[s] / s`. Counted in integers over 20**(size * rerolls), one
    denominator for every s (a Fraction per step cost seconds for 64 tied)."""
    ways = [
        [comb(s, m) * sum((v - 1) ** (s - m) for v in range(1, D20 + 1)) for m in range(s + 1)]
        for s in range(size + 1)
    ]
    # Each step's counts over 20**size: a throw of s dice is 20**(size - s) of those.
    widen = [D20 ** (size - s) for s in range(size + 1)]
    alone = [0, 1, *([0] * (size - 1))]
    held = [0, 0, *range(2, size + 1)]
    scale = 1
    for _reroll in range(max_rerolls):
        alone = [0, alone[1] * D20**size] + [
            widen[s] * sum(ways[s][m] * alone[m] for m in range(1, s + 1))
            for s in range(2, size + 1)
        ]
        held = [0, 0] + [
            widen[s] * sum(ways[s][m] * held[m] for m in range(1, s + 1))
            for s in range(2, size + 1)
        ]
        scale *= D20**size
    return tuple(
        (Fraction(alone[s], scale * s), Fraction(held[s], scale * s)) for s in range(1, size + 1)
    )


def _below(other: int, modifier: int, total: int) -> int:
    """Of the d20s of a competitor at modifier `other`, how many rank below `total` made at
    `modifier` (a lower total, or the same with a lower modifier)."""
    threshold = total - other + (1 if other < modifier else 0)
    return min(max(threshold - 1, 0), D20)


def ranked_checks_odds(
    modifiers: Sequence[int], *, max_rerolls: int = MAX_OPPOSED_REROLLS
) -> RankedOdds:
    """Everyone makes one d20 check: ranked by total, then by modifier, those equal in both
    rolling again among themselves (`groups.ranked_checks`). For a competitor and each of its
    d20s, every other at another modifier ranks below it or above; of the c - 1 others at its
    own modifier, those with a lower d20 rank below and those with the same d20 tie with it:
    k of them tie in C(c - 1, k) * (d20 - 1)**(c - 1 - k) of their throws, and a tie of k + 1
    at the top is broken by rerolls (`_rerolled_tops`). Competitors at one modifier have the
    same figures, computed once."""
    n = len(modifiers)
    tops = _rerolled_tops(n, max_rerolls)
    counts: dict[int, int] = {}
    for modifier in modifiers:
        counts[modifier] = counts.get(modifier, 0) + 1
    scale = D20**n
    figures: dict[int, tuple[Fraction, Fraction]] = {}
    for modifier, same in counts.items():
        # tied[k]: throws of everyone else leaving nobody above and k tied with this one.
        tied = [0] * same
        for roll in range(1, D20 + 1):
            total = roll + modifier
            rest = 1
            for other, many in counts.items():
                if other != modifier:
                    rest *= _below(other, modifier, total) ** many
            if rest:
                for k in range(same):
                    tied[k] += rest * comb(same - 1, k) * (roll - 1) ** (same - 1 - k)
        alone = sum((tied[k] * tops[k][0] for k in range(same)), Fraction(0))
        held = sum((tied[k] * tops[k][1] for k in range(same)), Fraction(0))
        figures[modifier] = (alone / scale, held / scale)
    first = tuple(figures[modifier][0] for modifier in modifiers)
    shared_first = tuple(figures[modifier][1] for modifier in modifiers)
    return RankedOdds(first, shared_first, 1 - sum(first, Fraction(0)))
