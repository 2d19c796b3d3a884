"""The d20 check: `d20 + modifier`, succeeding against a DC when `total >= DC`
(docs/rules.md#dice-and-checks).

Natural 1 and 20 are not automatic on checks. Dice: one d20 keyed (who, purpose), by default
(None, "check").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from app.rules.dice import Dice, outside
from app.rules.errors import RulesError
from app.rules.messages import Argument, Message, english, m

#: Sane bounds on a lone check's modifier and DC (docs/rules.md#d20-checks).
MIN_MODIFIER: Final = -1000
MAX_MODIFIER: Final = 1000
MIN_DC: Final = -1000
MAX_DC: Final = 1000
D20_SIDES: Final = 20

#: Dice purpose of a lone d20 check.
CHECK: Final = "check"


@dataclass(frozen=True, slots=True)
class D20Check:
    """One d20 check (docs/rules.md#dice-and-checks); `success` is None without a DC."""

    roll: int
    modifier: int
    total: int
    dc: int | None
    success: bool | None


def check_bounds(modifier: int, dc: int | None) -> None:
    """The modifier and DC lie in -1000..1000."""
    if not MIN_MODIFIER <= modifier <= MAX_MODIFIER:
        raise RulesError(
            m(
                "the modifier must be between {low} and {high}",
                low=MIN_MODIFIER,
                high=MAX_MODIFIER,
            ),
            ("modifier",),
        )
    if dc is not None and not MIN_DC <= dc <= MAX_DC:
        raise RulesError(
            m("the DC must be between {low} and {high}", low=MIN_DC, high=MAX_DC), ("dc",)
        )


def judge_check(roll: int, modifier: int, dc: int | None = None) -> D20Check:
    """`total = roll + modifier`; success when `total >= dc` (docs/rules.md#dice-and-checks), no
    automatic 1 or 20."""
    if not 1 <= roll <= D20_SIDES:
        raise RulesError(outside(roll, D20_SIDES), ("roll",))
    check_bounds(modifier, dc)
    total = roll + modifier
    return D20Check(roll, modifier, total, dc, None if dc is None else total >= dc)


def d20_check(
    modifier: int,
    dice: Dice,
    *,
    dc: int | None = None,
    who: str | None = None,
    purpose: str = CHECK,
) -> D20Check:
    """Roll a d20 check `d20 + modifier`, against `dc` when given
    (docs/rules.md#dice-and-checks)."""
    check_bounds(modifier, dc)
    roll = dice.d20(who=who, purpose=purpose)
    return judge_check(roll, modifier, dc)


# --- presentation -------------------------------------------------------------------------


def check_message(check: D20Check) -> Message:
    """One line, e.g. `d20 14 + 3 = 17 vs DC 15: success.`"""
    sign = "-" if check.modifier < 0 else "+"
    rolled: dict[str, Argument] = {
        "roll": check.roll,
        "sign": sign,
        "modifier": abs(check.modifier),
        "total": check.total,
    }
    if check.dc is None:
        return m("d20 {roll} {sign} {modifier} = {total}.", **rolled)
    if check.success:
        return m(
            "d20 {roll} {sign} {modifier} = {total} vs DC {dc}: success.", **rolled, dc=check.dc
        )
    return m("d20 {roll} {sign} {modifier} = {total} vs DC {dc}: failure.", **rolled, dc=check.dc)


def check_summary(check: D20Check) -> str:
    """One line, e.g. `d20 14 + 3 = 17 vs DC 15: success.`"""
    return english(check_message(check))
