"""Exact odds of the Cairn Hill roll (docs/rules.md#cairn-hill-roll, docs/rules.md#odds).

The two dice a rating averages are two order statistics of 7d100 (`cairn.chosen_positions`).
Their exact joint distribution comes from the cumulative count

    F(a, b) = #{7d100 : at least i+1 dice <= a and at least j+1 dice <= b}   (a <= b)

differenced in both coordinates (positions `i < j`, 0 = worst). With `k` dice at or below `a`,
the terms with `k > j` do not depend on `b` and cancel in the difference, which leaves at most
`(j - i) (7 - j)` terms per point. The floored average plus the rating is the base score; the
critical die (`cairn.critical_of`) and the magnitude die (`cairn.multiplier_of`,
`cairn.adjustment_of`) mix in the adjustment. Everything is counted in integers over
100**9 outcomes (7 dice, the critical die and the magnitude die, which a roll without a
critical does not use: it counts 100 times).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Final

from app.rules import cairn
from app.rules.odds import normalised

SIDES: Final = cairn.DIE_SIDES
DICE: Final = cairn.DICE_COUNT
#: Every roll: the 7 dice, the critical die and the magnitude die.
OUTCOMES: Final = SIDES ** (DICE + 2)


def _powers() -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(base**exponent for exponent in range(DICE + 1)) for base in range(SIDES + 1))


_POW: Final = _powers()


@lru_cache(maxsize=32)
def order_statistics_joint(lower: int, higher: int) -> dict[tuple[int, int], int]:
    """How many of the 100**7 rolls put `a` at sorted position `lower` and `b` at `higher`.

    Positions count from 0 (the worst); the counts sum to 100**7.
    """
    if not 0 <= lower < higher < DICE:
        raise ValueError("positions must satisfy 0 <= lower < higher < 7")
    # G(a, b): the part of F(a, b) that depends on b, k dice at or below a, k in lower+1..higher.
    terms = [
        (comb(DICE, k) * comb(DICE - k, m), k, m, DICE - k - m)
        for k in range(lower + 1, higher + 1)
        for m in range(higher + 1 - k, DICE - k + 1)
    ]
    # Above the diagonal F = G + (a part that depends on a alone), which the double
    # difference cancels; on the diagonal F(a, a) - F(a - 1, a) is needed whole.
    pow_ = _POW
    grid: list[list[int]] = []
    for a in range(SIDES + 1):
        pa = pow_[a]
        row = [0] * (SIDES + 1)
        for b in range(a, SIDES + 1):
            pm, pu = pow_[b - a], pow_[SIDES - b]
            row[b] = sum(c * pa[k] * pm[m] * pu[r] for c, k, m, r in terms)
        grid.append(row)
    joint: dict[tuple[int, int], int] = {}
    for a in range(1, SIDES + 1):
        row, previous = grid[a], grid[a - 1]
        # a == b: #{X_lower <= a, X_higher <= a} - #{X_lower <= a-1, X_higher <= a}
        diagonal = _cumulative(lower, higher, a, a) - _cumulative(lower, higher, a - 1, a)
        if diagonal:
            joint[(a, a)] = diagonal
        for b in range(a + 1, SIDES + 1):
            count = row[b] - previous[b] - row[b - 1] + previous[b - 1]
            if count:
                joint[(a, b)] = count
    return joint


def _cumulative(lower: int, higher: int, a: int, b: int) -> int:
    """F(a, b) for a <= b, in full: at least lower+1 dice <= a and higher+1 dice <= b."""
    total = 0
    for k in range(lower + 1, DICE + 1):
        for m in range(max(higher + 1 - k, 0), DICE - k + 1):
            total += (
                comb(DICE, k)
                * comb(DICE - k, m)
                * a**k
                * (b - a) ** m
                * (SIDES - b) ** (DICE - k - m)
            )
    return total


@lru_cache(maxsize=32)
def average_counts(lower: int, higher: int) -> dict[int, int]:
    """How many of the 100**7 rolls give each floored average of the two chosen dice."""
    averages: Counter[int] = Counter()
    for (a, b), count in order_statistics_joint(lower, higher).items():
        averages[(a + b) // 2] += count
    return dict(averages)


@dataclass(frozen=True, slots=True)
class CairnOdds:
    """docs/rules.md#cairn-hill-roll: the score's distribution, its mean, the criticals and, with a
    target,
    the probability of success."""

    rating: int
    chosen: tuple[int, int]
    distribution: dict[int, Fraction]
    mean: Fraction
    critical_success: Fraction
    critical_failure: Fraction
    target: int | None
    success: Fraction | None


def critical_counts(
    rating: int, success_rows: cairn.SuccessRows = "raised"
) -> dict[tuple[cairn.Critical, int], int]:
    """Of the 100 x 100 (critical, magnitude) dice, how many give each (critical, adjustment)."""
    multipliers = Counter(cairn.multiplier_of(die) for die in range(1, SIDES + 1))
    counts: Counter[tuple[cairn.Critical, int]] = Counter()
    for die in range(1, SIDES + 1):
        critical = cairn.critical_of(rating, die)
        if critical is None:
            counts[(None, 0)] += SIDES  # the magnitude die is not rolled: all 100 alike
            continue
        for multiplier, count in multipliers.items():
            adjustment = cairn.adjustment_of(rating, critical, multiplier, success_rows)
            counts[(critical, adjustment)] += count
    return dict(counts)


@lru_cache(maxsize=512)
def cairn_odds(
    rating: int, target: int | None = None, success_rows: cairn.SuccessRows = "raised"
) -> CairnOdds:
    """The exact odds of a Cairn Hill roll with this rating (docs/rules.md#cairn-hill-roll);
    `success_rows` as the roll takes it (`cairn.adjustment_of`)."""
    cairn.check_rating(rating)
    lower, higher = cairn.chosen_positions(rating)
    averages = average_counts(lower, higher)
    criticals = critical_counts(rating, success_rows)
    scores: Counter[int] = Counter()
    for average, count in averages.items():
        base = average + rating
        for (_, adjustment), weight in criticals.items():
            scores[base + adjustment] += count * weight
    distribution = normalised(scores, OUTCOMES)
    mean = Fraction(sum(score * count for score, count in scores.items()), OUTCOMES)
    critical_success = sum(w for (c, _), w in criticals.items() if c == "success")
    critical_failure = sum(w for (c, _), w in criticals.items() if c == "failure")
    success = None
    if target is not None:
        success = Fraction(
            sum(count for score, count in scores.items() if score >= target), OUTCOMES
        )
    return CairnOdds(
        rating=rating,
        chosen=(lower, higher),
        distribution=distribution,
        mean=mean,
        critical_success=Fraction(critical_success, SIDES * SIDES),
        critical_failure=Fraction(critical_failure, SIDES * SIDES),
        target=target,
        success=success,
    )
