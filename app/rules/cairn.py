"""The Cairn Hill roll (docs/rules.md#cairn-hill-roll).

A rating `r` (the sum of two stats, -100..100) picks two of seven sorted d100s; their floored
average plus `r` is the base score. A critical die may then make it a critical success or
failure, and on a critical a magnitude die sets how many times `|r|` is added or subtracted.

Dice, keyed (who, purpose) with `who` None: (None, "cairn") for the 7d100, (None, "critical")
for the critical die (always rolled) and (None, "magnitude") for the magnitude die, rolled only
on a critical.

Rulings where docs/rules.md#cairn-hill-roll is silent:

- `chosen` lists the two averaged dice lowest first (by their position among the sorted dice),
  and `chosen_names` names them in the same order: rating 1 gives ("worst", "middle").
- A magnitude die supplied for a roll that turns out not to be a critical is not used: it is
  ignored and does not appear in the dice log (callers should not count it as a wrong count).
- With rating 0 a critical (necessarily a failure) adjusts the score by `|0| * m` = 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from app.rules.dice import Dice, outside
from app.rules.errors import Loc, RulesError
from app.rules.messages import N_, Argument, Listing, Message, Signed, english, m, term

Critical = Literal["success", "failure"] | None
#: How the x2 and x3 rows treat a critical success (docs/rules.md#cairn-hill-roll): "raised",
#: like the other rows (the default, a Ruling), or "lowered", as the text writes those two rows.
SuccessRows = Literal["raised", "lowered"]
#: The rows whose text says "lowered" for a critical success and failure alike.
LOWERED_AS_WRITTEN: Final = (2, 3)

#: docs/rules.md#cairn-hill-roll
MIN_RATING: Final = -100
MAX_RATING: Final = 100
#: docs/rules.md#cairn-hill-roll: roll 7d100; the critical and magnitude dice are d100s too.
DICE_COUNT: Final = 7
DIE_SIDES: Final = 100
#: docs/rules.md#cairn-hill-roll: a critical die above the rating but below 21 is a critical
#: failure.
CRITICAL_FAILURE_BELOW: Final = 21

#: Dice purposes (docs/api.md#dice-in-every-result: one 7d100 entry for the Cairn dice).
CAIRN: Final = "cairn"
CRITICAL: Final = "critical"
MAGNITUDE: Final = "magnitude"

#: The sorted dice by position, worst (lowest) first, in the rule's own words
#: (docs/rules.md#cairn-hill-roll).
POSITION_NAMES: Final[tuple[str, ...]] = (
    N_("worst"),
    N_("second worst"),
    N_("third worst"),
    N_("middle"),
    N_("third best"),
    N_("second best"),
    N_("best"),
)
WORST, SECOND_WORST, THIRD_WORST, MIDDLE, THIRD_BEST, SECOND_BEST, BEST = range(DICE_COUNT)

#: docs/rules.md#cairn-hill-roll's table: (highest rating of the band, positions averaged); the last
#: band is open.
_BANDS: Final[tuple[tuple[int, tuple[int, int]], ...]] = (
    (-2, (WORST, SECOND_WORST)),
    (0, (WORST, THIRD_WORST)),
    (3, (WORST, MIDDLE)),
    (6, (SECOND_WORST, MIDDLE)),
    (9, (THIRD_WORST, MIDDLE)),
    (11, (WORST, BEST)),
    (14, (MIDDLE, THIRD_BEST)),
    (17, (MIDDLE, SECOND_BEST)),
    (20, (MIDDLE, BEST)),
    (24, (THIRD_BEST, BEST)),
)
_ABOVE_ALL_BANDS: Final = (SECOND_BEST, BEST)


def check_rating(rating: int, loc: Loc = ("rating",)) -> None:
    """The rating lies in -100..100 (docs/rules.md#cairn-hill-roll)."""
    if not MIN_RATING <= rating <= MAX_RATING:
        raise RulesError(
            m("the rating must be between {low} and {high}", low=MIN_RATING, high=MAX_RATING),
            loc,
        )


def resolve_rating(rating: int | None, stats: Sequence[int] | None) -> int:
    """The rating from exactly one of `rating` or the two `stats` (their sum),
    docs/rules.md#cairn-hill-roll."""
    if rating is not None and stats is not None:
        raise RulesError(N_("give either the rating or the two stats, not both"), ("stats",))
    if stats is not None:
        if len(stats) != 2:
            raise RulesError(N_("exactly two stats are needed"), ("stats",))
        total = stats[0] + stats[1]
        check_rating(total, ("stats",))
        return total
    if rating is None:
        raise RulesError(N_("give the rating or the two stats"), ("rating",))
    check_rating(rating)
    return rating


def chosen_positions(rating: int) -> tuple[int, int]:
    """Which two sorted dice (0 = worst … 6 = best) a rating averages, lower first
    (docs/rules.md#cairn-hill-roll, its table)."""
    for highest, positions in _BANDS:
        if rating <= highest:
            return positions
    return _ABOVE_ALL_BANDS


def critical_of(rating: int, critical_die: int) -> Critical:
    """`<= r` is a critical success; otherwise `< 21` a critical failure
    (docs/rules.md#cairn-hill-roll)."""
    if critical_die <= rating:
        return "success"
    if critical_die < CRITICAL_FAILURE_BELOW:
        return "failure"
    return None


def multiplier_of(magnitude_die: int) -> int:
    """1-33 -> x1, 34-66 -> x2, 67-99 -> x3, 100 -> x10 (docs/rules.md#cairn-hill-roll)."""
    if magnitude_die <= 33:
        return 1
    if magnitude_die <= 66:
        return 2
    if magnitude_die <= 99:
        return 3
    return 10


def adjustment_of(
    rating: int, critical: Critical, multiplier: int | None, success_rows: SuccessRows = "raised"
) -> int:
    """`|r| * multiplier`, added on a critical success, subtracted on a failure
    (docs/rules.md#cairn-hill-roll, a Ruling). With `success_rows` "lowered" a critical
    success on the x2 and x3 rows is subtracted too, as the text writes those rows."""
    if critical is None or multiplier is None:
        return 0
    size = abs(rating) * multiplier
    if critical == "success":
        lowered = success_rows == "lowered" and multiplier in LOWERED_AS_WRITTEN
        return -size if lowered else size
    return -size


@dataclass(frozen=True, slots=True)
class CairnRoll:
    """One Cairn Hill roll, every step of docs/rules.md#cairn-hill-roll as
    docs/api.md#cairn-hill-roll lists it."""

    rating: int
    dice_sorted: tuple[int, ...]
    chosen: tuple[int, int]
    chosen_names: tuple[str, str]
    average: int
    base_score: int
    critical_die: int
    critical: Critical
    magnitude_die: int | None
    multiplier: int | None
    adjustment: int
    score: int
    target: int | None
    success: bool | None


def judge_cairn(
    rating: int,
    dice: Sequence[int],
    critical_die: int,
    magnitude_die: int | None,
    target: int | None = None,
    success_rows: SuccessRows = "raised",
) -> CairnRoll:
    """Judge a Cairn Hill roll from its die values (docs/rules.md#cairn-hill-roll).

    `dice` are the seven d100s in any order. `magnitude_die` is needed on a critical and
    ignored otherwise. `success_rows`: see `adjustment_of`.
    """
    check_rating(rating)
    if len(dice) != DICE_COUNT:
        raise RulesError(
            m("{count} dice are needed, {given} given", count=DICE_COUNT, given=len(dice)),
            ("dice",),
        )
    _check_d100s(dice, ("dice",))
    _check_d100s((critical_die,), ("critical_die",))
    dice_sorted = tuple(sorted(dice))
    lower, higher = chosen_positions(rating)
    chosen = (dice_sorted[lower], dice_sorted[higher])
    average = (chosen[0] + chosen[1]) // 2
    base_score = average + rating
    critical = critical_of(rating, critical_die)
    multiplier: int | None = None
    if critical is None:
        magnitude_die = None
    elif magnitude_die is None:
        raise RulesError(N_("a critical needs a magnitude die"), ("magnitude_die",))
    else:
        _check_d100s((magnitude_die,), ("magnitude_die",))
        multiplier = multiplier_of(magnitude_die)
    adjustment = adjustment_of(rating, critical, multiplier, success_rows)
    score = base_score + adjustment
    return CairnRoll(
        rating=rating,
        dice_sorted=dice_sorted,
        chosen=chosen,
        chosen_names=(POSITION_NAMES[lower], POSITION_NAMES[higher]),
        average=average,
        base_score=base_score,
        critical_die=critical_die,
        critical=critical,
        magnitude_die=magnitude_die,
        multiplier=multiplier,
        adjustment=adjustment,
        score=score,
        target=target,
        success=None if target is None else score >= target,
    )


def _check_d100s(values: Sequence[int], loc: Loc) -> None:
    for value in values:
        if not 1 <= value <= DIE_SIDES:
            raise RulesError(outside(value, DIE_SIDES), loc)


def cairn_roll(
    rating: int, dice: Dice, *, target: int | None = None, success_rows: SuccessRows = "raised"
) -> CairnRoll:
    """Roll 7d100 and the critical die, and the magnitude die on a critical
    (docs/rules.md#cairn-hill-roll)."""
    check_rating(rating)
    values = dice.roll(DICE_COUNT, DIE_SIDES, who=None, purpose=CAIRN)
    critical_die = dice.die(DIE_SIDES, who=None, purpose=CRITICAL)
    magnitude_die = None
    if critical_of(rating, critical_die) is not None:
        magnitude_die = dice.die(DIE_SIDES, who=None, purpose=MAGNITUDE)
    return judge_cairn(rating, values, critical_die, magnitude_die, target, success_rows)


# --- presentation -------------------------------------------------------------------------


def cairn_message(result: CairnRoll) -> Message:
    """One line for a Discord bot, e.g. the docs/rules.md#cairn-hill-roll worked example:

    `Rating 12 rolled 7 36 37 62 75 78 87: middle 62 and third best 75 average 68, base score
    80; critical die 13: critical failure, magnitude 51 (x2): -24; score 56 vs target 45:
    success.`
    """
    (low_name, high_name), (low, high) = result.chosen_names, result.chosen
    if result.critical is None:
        critical = m("no critical")
    else:
        critical = m(
            "critical {critical}, magnitude {magnitude} (x{multiplier}): {adjustment}",
            critical=term(result.critical),
            magnitude=str(result.magnitude_die),
            multiplier=str(result.multiplier),
            adjustment=Signed(result.adjustment, bare_zero=True),
        )
    rolled: dict[str, Argument] = {
        "rating": result.rating,
        "dice": Listing(result.dice_sorted, " "),
        "low_name": term(low_name),
        "low": low,
        "high_name": term(high_name),
        "high": high,
        "average": result.average,
        "base": result.base_score,
        "critical_die": result.critical_die,
        "critical": critical,
        "score": result.score,
    }
    if result.target is None:
        return m(
            "Rating {rating} rolled {dice}: {low_name} {low} and {high_name} {high} average "
            "{average}, base score {base}; critical die {critical_die}: {critical}; score {score}.",
            **rolled,
        )
    if result.success:
        return m(
            "Rating {rating} rolled {dice}: {low_name} {low} and {high_name} {high} average "
            "{average}, base score {base}; critical die {critical_die}: {critical}; score {score} "
            "vs target {target}: success.",
            **rolled,
            target=result.target,
        )
    return m(
        "Rating {rating} rolled {dice}: {low_name} {low} and {high_name} {high} average "
        "{average}, base score {base}; critical die {critical_die}: {critical}; score {score} "
        "vs target {target}: failure.",
        **rolled,
        target=result.target,
    )


def cairn_summary(result: CairnRoll) -> str:
    """`cairn_message` in English."""
    return english(cairn_message(result))
