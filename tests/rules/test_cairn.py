"""The Cairn Hill roll (docs/rules.md#cairn-hill-roll): worked example, every band, criticals,
magnitudes, odds."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import cache

import icepool
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules import cairn, serial
from app.rules.cairn import (
    CAIRN,
    CRITICAL,
    MAGNITUDE,
    cairn_roll,
    cairn_summary,
    judge_cairn,
    resolve_rating,
)
from app.rules.dice import Dice
from app.rules.errors import DiceError, RulesError
from tests.helpers import ScriptedRng

WORKED_DICE = (87, 78, 75, 62, 37, 36, 7)
#: Distinct dice whose sorted position is obvious: worst 10 … best 70 (given out of order).
LADDER = (40, 70, 10, 60, 20, 50, 30)


def supplied(dice: Sequence[int], critical_die: int, magnitude_die: int | None = None) -> Dice:
    values: dict[tuple[str | None, str], Sequence[int]] = {
        (None, CAIRN): dice,
        (None, CRITICAL): (critical_die,),
    }
    if magnitude_die is not None:
        values[(None, MAGNITUDE)] = (magnitude_die,)
    return Dice(ScriptedRng(), values)


# --- the worked example -------------------------------------------------------------------


def test_worked_example_reproduces_exactly() -> None:
    dice = supplied(WORKED_DICE, 13, 51)
    result = cairn_roll(12, dice, target=45)
    assert result.dice_sorted == (7, 36, 37, 62, 75, 78, 87)
    assert result.chosen == (62, 75)
    assert result.chosen_names == ("middle", "third best")
    assert result.average == 68
    assert result.base_score == 80
    assert result.critical_die == 13
    assert result.critical == "failure"
    assert result.magnitude_die == 51
    assert result.multiplier == 2
    assert result.adjustment == -24
    assert result.score == 56
    assert result.target == 45
    assert result.success is True
    assert dice.rolls() == [
        {
            "who": None,
            "purpose": "cairn",
            "dice": "7d100",
            "values": [87, 78, 75, 62, 37, 36, 7],
            "source": "supplied",
        },
        {"who": None, "purpose": "critical", "dice": "1d100", "values": [13], "source": "supplied"},
        {
            "who": None,
            "purpose": "magnitude",
            "dice": "1d100",
            "values": [51],
            "source": "supplied",
        },
    ]
    assert cairn_summary(result) == (
        "Rating 12 rolled 7 36 37 62 75 78 87: middle 62 and third best 75 average 68, "
        "base score 80; critical die 13: critical failure, magnitude 51 (x2): -24; "
        "score 56 vs target 45: success."
    )


def test_worked_example_as_a_dict() -> None:
    result = judge_cairn(12, WORKED_DICE, 13, 51, target=45)
    assert serial.dump(result) == {
        "rating": 12,
        "dice_sorted": [7, 36, 37, 62, 75, 78, 87],
        "chosen": [62, 75],
        "chosen_names": ["middle", "third best"],
        "average": 68,
        "base_score": 80,
        "critical_die": 13,
        "critical": "failure",
        "magnitude_die": 51,
        "multiplier": 2,
        "adjustment": -24,
        "score": 56,
        "target": 45,
        "success": True,
    }


def test_worked_example_target_above_the_score_fails() -> None:
    assert judge_cairn(12, WORKED_DICE, 13, 51, target=57).success is False
    assert judge_cairn(12, WORKED_DICE, 13, 51, target=56).success is True
    assert judge_cairn(12, WORKED_DICE, 13, 51).success is None


# --- the rating bands, each at both boundaries ----------------------------------------------

BANDS = [
    # (lowest rating, highest rating, names averaged (lower first), values from LADDER)
    (-100, -2, ("worst", "second worst"), (10, 20)),
    (-1, 0, ("worst", "third worst"), (10, 30)),
    (1, 3, ("worst", "middle"), (10, 40)),
    (4, 6, ("second worst", "middle"), (20, 40)),
    (7, 9, ("third worst", "middle"), (30, 40)),
    (10, 11, ("worst", "best"), (10, 70)),
    (12, 14, ("middle", "third best"), (40, 50)),
    (15, 17, ("middle", "second best"), (40, 60)),
    (18, 20, ("middle", "best"), (40, 70)),
    (21, 24, ("third best", "best"), (50, 70)),
    (25, 100, ("second best", "best"), (60, 70)),
]
BOUNDARIES = [
    pytest.param(rating, names, values, id=f"r={rating}")
    for low, high, names, values in BANDS
    for rating in (low, high)
]


@pytest.mark.parametrize(("rating", "names", "values"), BOUNDARIES)
def test_band_boundaries_pick_the_table_dice(
    rating: int, names: tuple[str, str], values: tuple[int, int]
) -> None:
    # Critical die 100 is never a critical below rating 100.
    critical_die = 100 if rating < 100 else 1
    magnitude_die = None if rating < 100 else 1
    result = cairn_roll(rating, supplied(LADDER, critical_die, magnitude_die))
    assert result.chosen_names == names
    assert result.chosen == values
    assert result.average == (values[0] + values[1]) // 2
    assert result.base_score == result.average + rating


def test_bands_cover_every_rating_without_gaps() -> None:
    expected = {}
    for low, high, names, _ in BANDS:
        for rating in range(low, high + 1):
            expected[rating] = names
    for rating in range(cairn.MIN_RATING, cairn.MAX_RATING + 1):
        lower, higher = cairn.chosen_positions(rating)
        assert lower < higher
        assert (cairn.POSITION_NAMES[lower], cairn.POSITION_NAMES[higher]) == expected[rating]


def test_average_rounds_down() -> None:
    # Rating 12 averages middle 4 and third best 5: floor(9 / 2) = 4.
    result = judge_cairn(12, (1, 2, 3, 4, 5, 6, 7), 100, None)
    assert result.chosen == (4, 5)
    assert result.average == 4
    assert result.base_score == 16


def test_negative_rating_lowers_the_base() -> None:
    result = judge_cairn(-30, LADDER, 50, None)
    assert result.chosen_names == ("worst", "second worst")
    assert result.average == 15
    assert result.base_score == -15
    assert result.score == -15


def test_tied_dice_still_name_two_positions() -> None:
    result = judge_cairn(12, (50, 50, 50, 50, 50, 50, 50), 100, None)
    assert result.chosen == (50, 50)
    assert result.chosen_names == ("middle", "third best")
    assert result.average == 50


# --- criticals -----------------------------------------------------------------------------


@pytest.mark.parametrize("rating", [1, 5, 12, 19])
def test_critical_die_equal_to_rating_succeeds_one_above_fails(rating: int) -> None:
    assert cairn.critical_of(rating, rating) == "success"
    assert cairn.critical_of(rating, 1) == "success"
    assert cairn.critical_of(rating, rating + 1) == "failure"
    assert cairn.critical_of(rating, 20) == "failure"
    assert cairn.critical_of(rating, 21) is None


@pytest.mark.parametrize("rating", [20, 21, 50, 99])
def test_high_ratings_have_no_critical_failure(rating: int) -> None:
    assert cairn.critical_of(rating, rating) == "success"
    assert cairn.critical_of(rating, 20) == "success"
    assert cairn.critical_of(rating, rating + 1) is None
    assert all(cairn.critical_of(rating, die) != "failure" for die in range(1, 101))


def test_rating_100_always_critically_succeeds() -> None:
    assert all(cairn.critical_of(100, die) == "success" for die in range(1, 101))


@pytest.mark.parametrize("rating", [-100, -5, -1, 0])
def test_zero_or_negative_ratings_cannot_critically_succeed(rating: int) -> None:
    assert cairn.critical_of(rating, 1) == "failure"
    assert cairn.critical_of(rating, 20) == "failure"
    assert cairn.critical_of(rating, 21) is None
    assert all(cairn.critical_of(rating, die) != "success" for die in range(1, 101))


def test_critical_success_on_the_roll() -> None:
    result = judge_cairn(12, WORKED_DICE, 12, 51, target=100)
    assert result.critical == "success"
    assert result.multiplier == 2
    assert result.adjustment == 24
    assert result.score == 104
    assert result.success is True


@pytest.mark.parametrize(
    ("magnitude_die", "raised", "lowered"),
    [(20, 92, 92), (51, 104, 56), (70, 116, 44), (100, 200, 200)],
)
def test_success_rows_lowered_as_the_text_writes_the_x2_and_x3_rows(
    magnitude_die: int, raised: int, lowered: int
) -> None:
    # The worked example's dice (base score 80, rating 12) with a critical success (die 5):
    # x1 and x10 are "raised or lowered" in the text, x2 and x3 only "lowered".
    by_default = judge_cairn(12, WORKED_DICE, 5, magnitude_die)
    as_written = judge_cairn(12, WORKED_DICE, 5, magnitude_die, success_rows="lowered")
    assert by_default.critical == as_written.critical == "success"
    assert (by_default.score, as_written.score) == (raised, lowered)
    # A critical failure is lowered either way: the worked example itself.
    failure = judge_cairn(12, WORKED_DICE, 13, 51, target=45, success_rows="lowered")
    assert (failure.adjustment, failure.score, failure.success) == (-24, 56, True)


def test_success_rows_lowered_on_the_roll_reports_the_adjustment() -> None:
    result = cairn_roll(12, supplied(WORKED_DICE, 5, 51), success_rows="lowered")
    assert (result.multiplier, result.adjustment, result.score) == (2, -24, 56)
    assert "critical success, magnitude 51 (x2): -24; score 56" in cairn.cairn_summary(result)


def test_no_critical_leaves_the_base_score() -> None:
    result = judge_cairn(12, WORKED_DICE, 21, 51)
    assert result.critical is None
    assert result.magnitude_die is None
    assert result.multiplier is None
    assert result.adjustment == 0
    assert result.score == result.base_score == 80


# --- magnitude ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("magnitude_die", "multiplier"),
    [(1, 1), (33, 1), (34, 2), (66, 2), (67, 3), (99, 3), (100, 10)],
)
def test_magnitude_boundaries(magnitude_die: int, multiplier: int) -> None:
    assert cairn.multiplier_of(magnitude_die) == multiplier
    success = judge_cairn(15, LADDER, 3, magnitude_die)
    assert (success.critical, success.multiplier) == ("success", multiplier)
    assert success.adjustment == 15 * multiplier
    assert success.score == success.base_score + 15 * multiplier
    failure = judge_cairn(15, LADDER, 16, magnitude_die)
    assert (failure.critical, failure.multiplier) == ("failure", multiplier)
    assert failure.adjustment == -15 * multiplier
    assert failure.score == failure.base_score - 15 * multiplier


def test_critical_failure_with_a_negative_rating_still_lowers_the_score() -> None:
    # Ruling: the adjustment is |r| x multiplier, subtracted on a critical failure.
    result = judge_cairn(-7, LADDER, 5, 67)
    assert result.critical == "failure"
    assert result.multiplier == 3
    assert result.adjustment == -21
    assert result.base_score == 15 - 7
    assert result.score == 8 - 21


def test_spectacular_success_and_failure() -> None:
    assert judge_cairn(100, LADDER, 100, 100).adjustment == 1000
    assert judge_cairn(100, LADDER, 100, 100).score == 65 + 100 + 1000
    assert judge_cairn(-100, LADDER, 1, 100).adjustment == -1000
    assert judge_cairn(-100, LADDER, 1, 100).score == 15 - 100 - 1000


def test_rating_zero_critical_failure_adjusts_by_nothing() -> None:
    result = judge_cairn(0, LADDER, 7, 100)
    assert result.critical == "failure"
    assert result.multiplier == 10
    assert result.adjustment == 0
    assert result.score == result.base_score == 20


def test_magnitude_die_is_rolled_only_on_a_critical() -> None:
    rng = ScriptedRng([*WORKED_DICE, 50])
    dice = Dice(rng)
    result = cairn_roll(12, dice)
    assert result.critical is None
    assert [entry.purpose for entry in dice.log] == ["cairn", "critical"]
    assert rng.values == []

    rng = ScriptedRng([*WORKED_DICE, 13, 51])
    dice = Dice(rng)
    result = cairn_roll(12, dice, target=45)
    assert [entry.purpose for entry in dice.log] == ["cairn", "critical", "magnitude"]
    assert [entry.source for entry in dice.log] == ["rolled"] * 3
    assert (result.score, result.success) == (56, True)


def test_supplied_magnitude_without_a_critical_is_ignored() -> None:
    dice = supplied(WORKED_DICE, 50, 100)
    result = cairn_roll(12, dice)
    assert result.magnitude_die is None
    assert result.multiplier is None
    assert result.score == 80
    assert [entry.purpose for entry in dice.log] == ["cairn", "critical"]
    assert dice.unused() == [(None, MAGNITUDE)]
    dice.require_all_used(ignore=[(None, MAGNITUDE)])


def test_judge_ignores_a_magnitude_die_without_a_critical() -> None:
    assert judge_cairn(12, WORKED_DICE, 50, 100).magnitude_die is None


def test_a_critical_without_a_magnitude_die_is_an_error() -> None:
    with pytest.raises(RulesError) as caught:
        judge_cairn(12, WORKED_DICE, 13, None)
    assert caught.value.violations[0].loc == ("magnitude_die",)


# --- the rating: stats or rating, and its range ------------------------------------------------


def test_stats_sum_to_the_rating() -> None:
    assert resolve_rating(None, (5, 7)) == 12
    assert resolve_rating(None, (-60, -40)) == -100
    assert resolve_rating(None, (90, 10)) == 100
    assert resolve_rating(12, None) == 12
    stats = cairn_roll(resolve_rating(None, (5, 7)), supplied(WORKED_DICE, 13, 51), target=45)
    rating = cairn_roll(12, supplied(WORKED_DICE, 13, 51), target=45)
    assert stats == rating


@pytest.mark.parametrize(
    ("rating", "stats", "loc"),
    [
        (12, (5, 7), ("stats",)),
        (None, None, ("rating",)),
        (None, (90, 11), ("stats",)),
        (None, (-90, -11), ("stats",)),
        (101, None, ("rating",)),
        (-101, None, ("rating",)),
        (None, (1, 2, 3), ("stats",)),
    ],
)
def test_rating_errors_name_the_field(
    rating: int | None, stats: tuple[int, ...] | None, loc: tuple[str, ...]
) -> None:
    with pytest.raises(RulesError) as caught:
        resolve_rating(rating, stats)
    assert caught.value.violations[0].loc == loc


@pytest.mark.parametrize("rating", [-101, 101, 1000])
def test_roll_rejects_ratings_out_of_range_before_rolling(rating: int) -> None:
    rng = ScriptedRng()
    with pytest.raises(RulesError):
        cairn_roll(rating, Dice(rng))
    assert rng.drawn == []


def test_supplied_dice_of_the_wrong_count_or_range_are_rejected() -> None:
    with pytest.raises(DiceError):
        cairn_roll(12, Dice(ScriptedRng(), {(None, CAIRN): (1, 2, 3, 4, 5, 6)}))
    with pytest.raises(DiceError):
        cairn_roll(12, supplied((1, 2, 3, 4, 5, 6, 101), 50))
    with pytest.raises(RulesError) as caught:
        judge_cairn(12, (1, 2, 3), 50, None)
    assert caught.value.violations[0].loc == ("dice",)
    with pytest.raises(RulesError) as caught:
        judge_cairn(12, WORKED_DICE, 0, None)
    assert caught.value.violations[0].loc == ("critical_die",)
    with pytest.raises(RulesError) as caught:
        judge_cairn(12, WORKED_DICE, 13, 101)
    assert caught.value.violations[0].loc == ("magnitude_die",)


def test_summary_without_critical_or_target() -> None:
    assert cairn_summary(judge_cairn(1, LADDER, 50, None)) == (
        "Rating 1 rolled 10 20 30 40 50 60 70: worst 10 and middle 40 average 25, "
        "base score 26; critical die 50: no critical; score 26."
    )
    assert cairn_summary(judge_cairn(20, LADDER, 2, 100, target=1200)) == (
        "Rating 20 rolled 10 20 30 40 50 60 70: middle 40 and best 70 average 55, "
        "base score 75; critical die 2: critical success, magnitude 100 (x10): +200; "
        "score 275 vs target 1200: failure."
    )


# --- properties -----------------------------------------------------------------------------

ratings = st.integers(cairn.MIN_RATING, cairn.MAX_RATING)
d100 = st.integers(1, 100)
seven_d100 = st.lists(d100, min_size=7, max_size=7)


@given(ratings, seven_d100, d100, d100, st.none() | st.integers(-1500, 1500))
def test_formulas_hold(
    rating: int, dice: list[int], critical_die: int, magnitude_die: int, target: int | None
) -> None:
    original = list(dice)
    result = judge_cairn(rating, dice, critical_die, magnitude_die, target)
    assert dice == original
    assert list(result.dice_sorted) == sorted(dice)
    lower, higher = cairn.chosen_positions(rating)
    assert result.chosen == (result.dice_sorted[lower], result.dice_sorted[higher])
    assert result.chosen[0] <= result.chosen[1]
    assert result.average == math.floor((result.chosen[0] + result.chosen[1]) / 2)
    assert result.base_score == result.average + rating
    if critical_die <= rating:
        assert result.critical == "success"
        assert result.adjustment == abs(rating) * cairn.multiplier_of(magnitude_die) >= 0
    elif critical_die < 21:
        assert result.critical == "failure"
        assert result.adjustment == -abs(rating) * cairn.multiplier_of(magnitude_die) <= 0
    else:
        assert result.critical is None
        assert (result.magnitude_die, result.multiplier, result.adjustment) == (None, None, 0)
    assert result.score == result.base_score + result.adjustment
    assert result.success == (None if target is None else result.score >= target)


@given(ratings, seven_d100, d100, d100)
def test_a_roll_uses_the_dice_in_order_and_logs_them(
    rating: int, dice: list[int], critical_die: int, magnitude_die: int
) -> None:
    rng = ScriptedRng([*dice, critical_die, magnitude_die])
    log = Dice(rng)
    result = cairn_roll(rating, log)
    assert result == judge_cairn(rating, dice, critical_die, magnitude_die)
    expected = ["cairn", "critical"] + (["magnitude"] if result.critical else [])
    assert [entry.purpose for entry in log.log] == expected
    assert log.log[0].values == tuple(dice)
    assert all(entry.who is None for entry in log.log)


# --- exact distribution against icepool ----------------------------------------------------------

SIDES = 100
COUNT = 7


@cache
def _at_most(lower: int, higher: int, x: int, y: int) -> int:
    """Outcomes of 7d100 whose sorted dice `lower` <= x and `higher` <= y (x <= y)."""
    total = 0
    for below_x in range(lower + 1, COUNT + 1):
        for below_y in range(max(higher + 1, below_x), COUNT + 1):
            total += (
                math.comb(COUNT, below_x)
                * math.comb(COUNT - below_x, below_y - below_x)
                * x**below_x
                * (y - x) ** (below_y - below_x)
                * (SIDES - y) ** (COUNT - below_y)
            )
    return total


def _pair_counts(lower: int, higher: int) -> dict[tuple[int, int], int]:
    """How many of the 100**7 outcomes put a and b at the two sorted positions (brute force)."""

    def joint(x: int, y: int) -> int:
        return _at_most(lower, higher, min(x, y), y)

    return {
        (a, b): joint(a, b) - joint(a - 1, b) - joint(a, b - 1) + joint(a - 1, b - 1)
        for a in range(1, SIDES + 1)
        for b in range(a, SIDES + 1)
    }


def _rules_distribution(rating: int) -> dict[int, Fraction]:
    """The score distribution, every outcome judged by the rules core."""
    lower, higher = cairn.chosen_positions(rating)
    base: Counter[int] = Counter()
    quiet_die = 100  # no critical below rating 100
    for (a, b), count in _pair_counts(lower, higher).items():
        if count:
            # Seven dice whose sorted positions `lower` and `higher` hold a and b.
            dice = (a,) * higher + (b,) * (COUNT - higher)
            base[judge_cairn(rating, dice, quiet_die, None).base_score] += count
    adjustment: Counter[int] = Counter()
    for critical_die in range(1, SIDES + 1):
        for magnitude_die in range(1, SIDES + 1):
            adjustment[judge_cairn(rating, LADDER, critical_die, magnitude_die).adjustment] += 1
    scores: Counter[int] = Counter()
    for base_score, base_count in base.items():
        for change, change_count in adjustment.items():
            scores[base_score + change] += base_count * change_count
    denominator = SIDES**COUNT * SIDES**2
    assert sum(scores.values()) == denominator
    return {score: Fraction(count, denominator) for score, count in scores.items()}


# The table of docs/rules.md#cairn-hill-roll again, written out independently for icepool: keep
# masks over the sorted dice, lowest first.
ICEPOOL_KEEP = {
    -5: (1, 1, 0, 0, 0, 0, 0),
    12: (0, 0, 0, 1, 1, 0, 0),
    10: (1, 0, 0, 0, 0, 0, 1),
    22: (0, 0, 0, 0, 1, 0, 1),
}


def _icepool_distribution(rating: int) -> dict[int, Fraction]:
    pair = icepool.d100.pool(COUNT)[ICEPOOL_KEEP[rating]].sum()
    base = pair // 2 + rating
    sign = icepool.d100.map(lambda c: 1 if c <= rating else (-1 if c < 21 else 0))
    multiplier = icepool.d100.map(lambda m: 1 if m < 34 else 2 if m < 67 else 3 if m < 100 else 10)
    score = base + sign * multiplier * abs(rating)
    return {int(outcome): Fraction(score.probability(outcome)) for outcome in score.outcomes()}


@pytest.mark.parametrize("rating", sorted(ICEPOOL_KEEP))
def test_score_distribution_matches_icepool_exactly(rating: int) -> None:
    expected = {score: p for score, p in _icepool_distribution(rating).items() if p}
    assert _rules_distribution(rating) == expected
