"""The d20 check (docs/rules.md#d20-checks): `d20 + modifier`, success when `total >= DC`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules import checks, serial
from app.rules.checks import CHECK, check_summary, d20_check, judge_check
from app.rules.dice import Dice
from app.rules.errors import DiceError, RulesError
from tests.helpers import ScriptedRng


def test_total_meets_the_dc() -> None:
    result = judge_check(12, 3, 15)
    assert (result.roll, result.modifier, result.total, result.dc) == (12, 3, 15, 15)
    assert result.success is True
    assert judge_check(11, 3, 15).success is False


def test_natural_20_and_1_are_not_automatic() -> None:
    assert judge_check(20, 0, 25).success is False
    assert judge_check(1, 30, 25).success is True
    assert judge_check(1, 30, 25).total == 31


def test_without_a_dc_there_is_no_success() -> None:
    result = judge_check(7, -2)
    assert (result.total, result.dc, result.success) == (5, None, None)


def test_supplied_die_is_used_and_logged() -> None:
    dice = Dice(ScriptedRng(sides=20), {(None, CHECK): (14,)})
    result = d20_check(-2, dice, dc=12)
    assert (result.roll, result.total, result.success) == (14, 12, True)
    assert dice.rolls() == [
        {"who": None, "purpose": "check", "dice": "1d20", "values": [14], "source": "supplied"}
    ]


def test_server_die_is_rolled_and_logged() -> None:
    dice = Dice(ScriptedRng([9], sides=20))
    result = d20_check(5, dice, dc=15, who="Ann", purpose="spot")
    assert (result.roll, result.total, result.success) == (9, 14, False)
    assert dice.rolls() == [
        {"who": "Ann", "purpose": "spot", "dice": "1d20", "values": [9], "source": "rolled"}
    ]


def test_out_of_range_supplied_die_is_rejected() -> None:
    with pytest.raises(DiceError):
        d20_check(0, Dice(ScriptedRng(sides=20), {(None, CHECK): (21,)}))
    with pytest.raises(RulesError) as caught:
        judge_check(0, 0)
    assert caught.value.violations[0].loc == ("roll",)


@pytest.mark.parametrize(
    ("modifier", "dc", "loc"),
    [(1001, None, ("modifier",)), (-1001, 10, ("modifier",)), (0, 1001, ("dc",))],
)
def test_bounds(modifier: int, dc: int | None, loc: tuple[str, ...]) -> None:
    rng = ScriptedRng(sides=20)
    with pytest.raises(RulesError) as caught:
        d20_check(modifier, Dice(rng), dc=dc)
    assert caught.value.violations[0].loc == loc
    judge_check(20, checks.MAX_MODIFIER, checks.MIN_DC)


def test_summaries() -> None:
    assert check_summary(judge_check(14, 3, 15)) == "d20 14 + 3 = 17 vs DC 15: success."
    assert check_summary(judge_check(4, -2, 10)) == "d20 4 - 2 = 2 vs DC 10: failure."
    assert check_summary(judge_check(4, 0)) == "d20 4 + 0 = 4."


@given(
    st.integers(1, 20),
    st.integers(checks.MIN_MODIFIER, checks.MAX_MODIFIER),
    st.none() | st.integers(checks.MIN_DC, checks.MAX_DC),
)
def test_check_formula(roll: int, modifier: int, dc: int | None) -> None:
    result = judge_check(roll, modifier, dc)
    assert result.total == roll + modifier
    assert result.success == (None if dc is None else roll + modifier >= dc)
    assert serial.dump(result) == {
        "roll": roll,
        "modifier": modifier,
        "total": roll + modifier,
        "dc": dc,
        "success": result.success,
    }
