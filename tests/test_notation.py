"""Dice notation through the d20 library with our dice (docs/rules.md#dice-notation,
app/notation.py)."""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence

import d20
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.notation import (
    MAX_DICE,
    MAX_EXPRESSION_LENGTH,
    MAX_PARENTHESES,
    MAX_SIDES,
    MAX_TOTAL,
    MAX_WORK,
    NOTATION_ROLLER,
    NotationError,
    _DrawContext,
    _Operator,
    _Selector,
    roll_expression,
    roll_notation,
    roll_summary,
    validate_notation,
)
from app.rules.dice import Dice, DieRoll, SeededRng
from app.rules.errors import DiceError, RulesError
from tests.helpers import ConstantRng, NoServerDice, ScriptedRng
from tests.work_meter import WorkMeter

#: A draw function for expressions that must roll no die.
NO_DICE = NoServerDice()


def seeded(seed: int = 1) -> SeededRng:
    return SeededRng(seed, "test-notation")


@pytest.fixture(autouse=True)
def _forbid_global_random(monkeypatch: pytest.MonkeyPatch) -> None:
    """d20 rolls with `random.randrange`; ours must never reach the global `random` module."""

    def forbidden(*_: object, **__: object) -> int:
        raise AssertionError("the global random module was used")

    for name in ("randrange", "randint", "random", "choice", "uniform"):
        monkeypatch.setattr(random, name, forbidden)


def roll(expr: str, values: Sequence[int]) -> tuple[int, str, tuple[int, ...], tuple[int, ...]]:
    """Roll `expr` with scripted dice, which must all be used; (total, breakdown, values, sides)."""
    draw = ScriptedRng(values)
    result = roll_notation(expr, draw)
    assert draw.left == 0, f"{draw.left} scripted dice left over"
    assert result.values == tuple(values)
    assert result.sides == tuple(draw.sides_drawn)
    return result.total, result.breakdown, result.values, result.sides


# --- notation features (docs/rules.md#grammar) -------------------------------------------------


def test_api_example_keep_highest_three_of_four() -> None:
    total, breakdown, values, sides = roll("4d6kh3", [5, 3, 2, 1])
    assert total == 10
    assert breakdown == "4d6kh3 (5, 3, 2, ~~1~~) = 10"
    assert values == (5, 3, 2, 1)
    assert sides == (6, 6, 6, 6)


@pytest.mark.parametrize(
    ("expr", "values", "total", "breakdown"),
    [
        ("3d6", [1, 2, 3], 6, "3d6 (1, 2, 3) = 6"),
        ("d20", [17], 17, "1d20 (17) = 17"),
        ("1d100000", [99_999], 99_999, "1d100000 (99999) = 99999"),
        ("0d6", [], 0, "0d6 () = 0"),
        ("5", [], 5, "5 = 5"),
        ("2d8+1d4*2-3", [3, 5, 4], 13, "2d8 (3, 5) + 1d4 (4) * 2 - 3 = 13"),
        ("(1d6+2)*3", [4], 18, "(1d6 (4) + 2) * 3 = 18"),
        ("-1d4", [3], -3, "-1d4 (3) = -3"),
        ("1d20>=10", [10], 1, "1d20 (10) >= 10 = 1"),
        ("1d20<10", [10], 0, "1d20 (10) < 10 = 0"),
        (" 1d6 + 2 ", [3], 5, "1d6 (3) + 2 = 5"),
    ],
)
def test_dice_and_arithmetic(expr: str, values: list[int], total: int, breakdown: str) -> None:
    assert roll(expr, values)[:2] == (total, breakdown)


@pytest.mark.parametrize(
    ("expr", "values", "total", "breakdown"),
    [
        ("2d20kh1", [4, 15], 15, "2d20kh1 (~~4~~, 15) = 15"),
        ("2d20kl1", [15, 4], 4, "2d20kl1 (~~15~~, 4) = 4"),
        ("4d6ph1", [6, 2, 3, 4], 9, "4d6ph1 (~~6~~, 2, 3, 4) = 9"),
        ("3d6pl1", [1, 2, 3], 5, "3d6pl1 (~~1~~, 2, 3) = 5"),
        ("4d6k>3", [1, 4, 6, 3], 10, "4d6k>3 (~~1~~, 4, 6, ~~3~~) = 10"),
        ("4d6p<3", [1, 4, 2, 3], 7, "4d6p<3 (~~1~~, 4, ~~2~~, 3) = 7"),
        # ties: the first of equal dice is kept, as in d20
        ("3d6kh1", [5, 5, 2], 5, "3d6kh1 (5, ~~5~~, ~~2~~) = 5"),
        ("(1d6, 1d8)kh1", [3, 7], 7, "(~~1d6 (3)~~, 1d8 (7))kh1 = 7"),
        ("(1d6, 1d8, 4)kl2", [3, 7], 7, "(1d6 (3), ~~1d8 (7)~~, 4)kl2 = 7"),
    ],
)
def test_keep_and_drop(expr: str, values: list[int], total: int, breakdown: str) -> None:
    assert roll(expr, values)[:2] == (total, breakdown)


@pytest.mark.parametrize(
    ("expr", "values", "total", "breakdown"),
    [
        ("1d6rr1", [1, 1, 4], 4, "1d6rr1 (~~1~~, ~~1~~, 4) = 4"),
        ("1d6ro1", [1, 1], 1, "1d6ro1 (~~1~~, 1) = 1"),
        ("1d20ro<3", [2, 15], 15, "1d20ro<3 (~~2~~, 15) = 15"),
        ("2d6rr<3", [1, 2, 5, 6], 11, "2d6rr<3 (~~1~~, 5, ~~2~~, 6) = 11"),
        ("2d6e6", [6, 3, 2], 11, "2d6e6 (6!, 3, 2) = 11"),
        ("1d6e6", [6, 6, 1], 13, "1d6e6 (6!, 6!, 1) = 13"),
        ("1d6e>4", [5, 6, 2], 13, "1d6e>4 (5!, 6!, 2) = 13"),
        ("1d4ra4", [4, 4], 8, "1d4ra4 (4!, 4) = 8"),
        ("1d6mi3", [1], 3, "1d6mi3 (1 -> 3) = 3"),
        ("4d6ma4", [6, 1, 5, 4], 13, "4d6ma4 (6 -> 4, 1, 5 -> 4, 4) = 13"),
        ("4d6rr1kh3", [1, 3, 5, 2, 6], 14, "4d6rr1kh3 (~~1~~, 6, 3, 5, ~~2~~) = 14"),
    ],
)
def test_rerolls_explosions_minimum_maximum(
    expr: str, values: list[int], total: int, breakdown: str
) -> None:
    assert roll(expr, values)[:2] == (total, breakdown)


def test_rerolls_hand_values_to_dice_in_their_order() -> None:
    """d20 rerolls a Python set; ours rerolls in dice order, so a seed gives one breakdown."""
    values = [1] * 10 + [2, 3, 4, 5, 6, 2, 3, 4, 5, 6]
    total, breakdown, _, _ = roll("10d6rr1", values)
    assert total == 40
    struck = ", ".join(f"~~1~~, {value}" for value in values[10:])
    assert breakdown == f"10d6rr1 ({struck}) = 40"


def test_annotations_are_kept_in_the_breakdown() -> None:
    assert roll("1d6[fire]+2", [4])[:2] == (6, "1d6 (4) [fire] + 2 = 6")
    assert roll("2d6 [slashing] + 1d8 [radiant]", [1, 2, 8])[:2] == (
        11,
        "2d6 (1, 2) [slashing] + 1d8 (8) [radiant] = 11",
    )


def test_percentile_die_is_a_d10_counted_in_tens() -> None:
    """Ruling: d20's `d%` is the tens die 0..90; we draw a d10 `v` and count 10 * (v - 1)."""
    assert roll("d%", [9]) == (80, "1d% (80) = 80", (9,), (10,))
    assert roll("d%+1d10", [1, 10])[:2] == (10, "1d% (0) + 1d10 (10) = 10")


@pytest.mark.parametrize(
    ("expr", "values", "total"),
    [
        ("7/2", [], 3),
        ("-7/2", [], -4),
        ("(7/2)*2", [], 6),  # every division rounds down, not only the total
        ("7//2", [], 3),
        ("7%3", [], 1),
        ("1d6/2", [5], 2),
        ("1.5*3", [], 4),
        ("-1.5", [], -2),
    ],
)
def test_every_division_and_fraction_rounds_down(expr: str, values: list[int], total: int) -> None:
    """Ruling (docs/rules.md#division-and-totals): every division rounds down, where d20 alone
    divides exactly."""
    assert roll(expr, values)[0] == total


def test_the_roller_to_inject_is_roll_notation() -> None:
    assert NOTATION_ROLLER is roll_notation
    dice = Dice(seeded(), notation=NOTATION_ROLLER)
    result = dice.notation("3d6+2", who="Ann", purpose="damage")
    assert len(result.values) == 3
    assert result.total == sum(result.values) + 2
    assert dice.log == [DieRoll("Ann", "damage", "3d6+2", result.values, "rolled")]


def test_supplied_dice_flow_through_draw() -> None:
    dice = Dice(supplied={(None, "damage"): [6, 1, 4]}, notation=NOTATION_ROLLER)
    result = dice.notation("1d6e6+1d4", who=None, purpose="damage")
    assert (result.total, result.breakdown) == (11, "1d6e6 (6!, 1) + 1d4 (4) = 11")
    assert dice.rolls() == [
        {
            "who": None,
            "purpose": "damage",
            "dice": "1d6e6+1d4",
            "values": [6, 1, 4],
            "source": "supplied",
        }
    ]


def test_errors_of_the_dice_source_pass_through_unchanged() -> None:
    out_of_range = Dice(supplied={(None, "damage"): [7]}, notation=NOTATION_ROLLER)
    with pytest.raises(DiceError, match=r"outside 1\.\.6"):
        out_of_range.notation("1d6", who=None, purpose="damage")
    partly_supplied = Dice(seeded(), {(None, "damage"): [3]}, notation=NOTATION_ROLLER)
    with pytest.raises(DiceError, match="supply all of them or none"):
        partly_supplied.notation("2d6", who=None, purpose="damage")


def test_roll_expression_logs_one_rolled_entry_and_is_deterministic_by_seed() -> None:
    first, dice = roll_expression("4d6kh3", seeded(42))
    again, _ = roll_expression("4d6kh3", seeded(42))
    assert first == again
    assert dice.rolls() == [
        {
            "who": None,
            "purpose": "roll",
            "dice": "4d6kh3",
            "values": list(first.values),
            "source": "rolled",
        }
    ]
    assert first.total == sum(sorted(first.values)[1:])
    assert roll_summary(first) == first.breakdown
    named, named_dice = roll_expression("1d8", seeded(), who="Ogre", purpose="damage")
    assert named_dice.log[0].who == "Ogre"
    assert named_dice.log[0].purpose == "damage"
    assert named.sides == (8,)


def test_concurrent_rolls_do_not_share_dice() -> None:
    """Each roll holds its own draw function: no module state, safe across threads."""
    results: dict[int, tuple[int, ...]] = {}

    def worker(face: int) -> None:
        for _ in range(50):
            result = roll_notation("20d6e6rr1", ConstantRng(face))
            assert set(result.values) == {face}
        results[face] = result.values

    threads = [threading.Thread(target=worker, args=(face,)) for face in (2, 3, 4, 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {face: (face,) * 20 for face in (2, 3, 4, 5)}


def test_keep_selects_the_same_dice_as_d20() -> None:
    """Our keep selects once; d20's re-selects for every die. Same dice kept, every selector."""
    rng = SeededRng(7, "keep")
    selectors: list[tuple[str | None, int]] = [
        ("h", 1), ("h", 3), ("l", 2), ("<", 3), (">", 4), (None, 2), ("h", 0), ("l", 9)
    ]  # fmt: skip
    for _ in range(300):
        values = [rng.die(6) for _ in range(rng.die(8))]
        chosen = [selectors[rng.die(len(selectors)) - 1] for _ in range(rng.die(3))]
        ours = d20.Dice(len(values), 6, [d20.Die(6, [d20.Literal(v)]) for v in values])
        theirs = d20.Dice(len(values), 6, [d20.Die(6, [d20.Literal(v)]) for v in values])
        context = _DrawContext(NO_DICE)
        _Operator("k", [_Selector(cat, num, context) for cat, num in chosen], context).keep(ours)
        d20.SetOperator("k", [d20.SetSelector(cat, num) for cat, num in chosen]).keep(theirs)
        assert [die.kept for die in ours.values] == [die.kept for die in theirs.values], (
            values,
            chosen,
        )


# --- limits (docs/rules.md#limits, docs/rules.md#guards), checked before any die is drawn ------


def test_expression_length_limit() -> None:
    assert roll_notation("1d6".ljust(MAX_EXPRESSION_LENGTH), ScriptedRng([4])).total == 4
    with pytest.raises(NotationError, match="1001 characters long; at most 1000"):
        roll_notation("1d6".ljust(MAX_EXPRESSION_LENGTH + 1), NO_DICE)


def test_dice_count_limit_counts_every_dice_group() -> None:
    assert len(roll_notation(f"{MAX_DICE}d6", seeded().die).values) == MAX_DICE
    assert len(roll_notation("500d6+(250d6, 250d4)kh1", seeded().die).values) == MAX_DICE
    for expr in ("1001d6", "500d6+501d6", "(500d6, (1d4, 501d6))kh1", "99999999999999999999d6"):
        with pytest.raises(NotationError, match="more than 1000 dice"):
            roll_notation(expr, NO_DICE)


def test_sides_limit() -> None:
    assert roll_notation(f"2d{MAX_SIDES}", ScriptedRng([1, MAX_SIDES])).total == MAX_SIDES + 1
    for expr in ("1d100001", "1d6+(1d100001)", "0d999999999999"):
        with pytest.raises(NotationError, match="at most 100000 sides"):
            roll_notation(expr, NO_DICE)
    with pytest.raises(NotationError, match="at least 1 side"):
        roll_notation("1d0", NO_DICE)


def test_parenthesis_nesting_limit_is_checked_on_the_text() -> None:
    deepest = "(" * MAX_PARENTHESES + "1d6" + ")" * MAX_PARENTHESES
    assert roll_notation(deepest, ScriptedRng([2])).total == 2
    for depth in (MAX_PARENTHESES + 1, 400):
        with pytest.raises(NotationError, match="parentheses nest more than 50 deep"):
            roll_notation("(" * depth + "1" + ")" * depth, NO_DICE)
    # parentheses inside an annotation are text
    assert roll_notation("1d6[" + "(" * 60 + "]", ScriptedRng([3])).total == 3


def test_flat_chains_of_any_length_roll() -> None:
    # Issue 12 point 6: a chain of operations is not nesting; only parentheses are limited.
    chain = "+".join(["1d4"] * 250)
    assert len(chain) == 999
    result = roll_notation(chain, ScriptedRng([1, 2, 3, 4] * 62 + [1, 2]))
    assert result.total == 10 * 62 + 3
    assert result.breakdown.startswith("1d4 (1) + 1d4 (2) + 1d4 (3)")
    assert result.breakdown.endswith(" + 1d4 (2) = 623")
    # the issue's own example: 128 terms, 511 characters
    assert roll_notation("+".join(["1d6"] * 128), ScriptedRng([6] * 128)).total == 768
    for expr, total in (
        ("+".join(["1"] * 500), 500),
        ("-".join(["1"] * 500), -498),
        ("1" + "*2" * 10 + "*1" * 389, 1024),
        ("100" + "//1" * 299, 100),
        ("-" * 998 + "1", 1),
        ("-" * 999 + "1", -1),
        ("+".join(["-1"] * 333), -333),
    ):
        assert roll_notation(expr, NO_DICE).total == total, expr[:20]


def test_parentheses_are_the_only_nesting_limit() -> None:
    # At the limit, every level also nests each precedence (comparison, +, *, sign) once more.
    worst = "(1<1+1*-" * MAX_PARENTHESES + "1" + ")" * MAX_PARENTHESES
    result = roll_notation(worst, NO_DICE)  # innermost 1 < 1 + 1 * -1 is 0, and so each level
    assert (result.total, result.breakdown[:16]) == (0, "(1 < 1 + 1 * -(1")
    with pytest.raises(NotationError, match=f"parentheses nest more than {MAX_PARENTHESES} deep"):
        roll_notation("(1<1+1*-" * (MAX_PARENTHESES + 1) + "1" + ")" * 51, NO_DICE)


def test_chains_total_and_show_dropped_terms_as_d20_does() -> None:
    result = roll_notation("(1d4+1d4, 1d6+1d6)kh1+(2+3, 1)kl1-2", ScriptedRng([4, 3, 5, 1]))
    assert result.total == 4 + 3 + 1 - 2
    assert result.breakdown == (
        "(1d4 (4) + 1d4 (3), ~~1d6 (5) + 1d6 (1)~~)kh1 + (~~2 + 3~~, 1)kl1 - 2 = 6"
    )
    assert roll_notation("7/2/2", NO_DICE).total == 1
    with pytest.raises(NotationError, match="divide by zero"):
        roll_notation("1+2/0+3", NO_DICE)


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("1d1e1", "too much work|more than 1000 dice"),
        ("1d1rr1", "more than 1000 dice"),
        ("1d6rr<7", "more than 1000 dice"),
        ("1000d2e2", "more than 1000 dice"),
        ("1000d2rr2", "more than 1000 dice"),
        ("1d100000" + "e>1" * 300, "too much work"),
        ("500d100000" + "rrh1" * 120, "too much work"),
        ("1000d6" + "kh999pl1" * 120, "too much work"),
        ("1000d6" + "mi2" * 330, "too much work"),
    ],
)
def test_runaway_rolls_stop_fast(monkeypatch: pytest.MonkeyPatch, expr: str, message: str) -> None:
    # "Fast" as work done, not time: the dice drawn and the dice d20's own selection and
    # minimum/maximum passes look at, counted inside the library, stay within the limits.
    meter = WorkMeter(monkeypatch)
    drawn = 0

    def highest(sides: int) -> int:  # always the highest face
        nonlocal drawn
        drawn += 1
        return sides

    with pytest.raises(NotationError, match=message):
        roll_notation(expr, highest)
    assert 0 < drawn <= MAX_DICE
    assert 0 < meter.looked_at <= MAX_WORK


def test_limits_reject_before_any_die_is_drawn() -> None:
    for expr in ("1001d6", "1d100001", "(" * 60 + "1d6" + ")" * 60, "1d6+" * 300 + "1"):
        with pytest.raises(NotationError):
            roll_notation(expr, NO_DICE)


# --- what cannot be rolled: always a NotationError ---------------------------------------------


@pytest.mark.parametrize(
    "expr",
    [
        "",
        "   ",
        "x",
        "1d",
        "d",
        "1+",
        "1d6)",
        "((1)",
        "1d6kh",
        "1d6 fire",
        "[fire]",
        "1d6e",
        "1d-6",
        "kh3",
        "1,2",
        "4d6kh3\n\x00",
        "1d6 # comment",
    ],
)
def test_unreadable_notation(expr: str) -> None:
    with pytest.raises(NotationError, match="not valid dice notation"):
        roll_notation(expr, NO_DICE)


def test_syntax_errors_say_where() -> None:
    with pytest.raises(NotationError, match=r"unexpected '\)' at character 4"):
        roll_notation("1d6)", NO_DICE)
    with pytest.raises(NotationError, match=r"unexpected 'x' at character 3"):
        roll_notation("  x", NO_DICE)
    with pytest.raises(NotationError, match="ends too early"):
        roll_notation("1d6+", NO_DICE)


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("1/0", "division by zero|divide by zero"),
        ("1//0", "divide by zero"),
        ("1%0", "divide by zero"),
        ("1.0/0", "divide by zero"),
        ("2d6mi>3", "not a valid selector for minimums"),
        ("2d6mah6", "not a valid selector for maximums"),
        ("9" * 17, "beyond"),
        ("99999999*99999999", "beyond"),
        ("9" * 400 + ".0*" + "9" * 400 + ".0", "not a finite number"),
        (
            "(" + "9" * 155 + ".0*" + "9" * 155 + ".0)*2-" + "9" * 155 + ".0*" + "9" * 155 + ".0",
            "finite",
        ),
        ("9" * 400 + "*1.0", "out of range"),
    ],
)
def test_evaluation_failures(expr: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        roll_notation(expr, seeded().die)


def test_total_limit_is_inclusive() -> None:
    assert roll_notation(str(MAX_TOTAL), NO_DICE).total == MAX_TOTAL
    assert roll_notation(f"-{MAX_TOTAL}", NO_DICE).total == -MAX_TOTAL


def test_notation_errors_are_rules_errors() -> None:
    assert issubclass(NotationError, RulesError)


# --- validate_notation: for session creation ---------------------------------------------------


@pytest.mark.parametrize("expr", ["1d6", "2d6+3", "1d4+1d6[fire]", "1d6e6", "4d6kh3", "d%"])
def test_validate_accepts_rollable_notation(expr: str) -> None:
    validate_notation(expr)


@pytest.mark.parametrize("expr", ["1d1e1", "1/0", "2d6mi>3", "x", "1001d6", "1d0", ""])
def test_validate_rejects_with_the_callers_loc(expr: str) -> None:
    loc = ("increments", 3, "obstacle", "damage")
    with pytest.raises(NotationError) as caught:
        validate_notation(expr, loc)
    assert caught.value.violations[0].loc == loc
    with pytest.raises(NotationError) as unplaced:
        validate_notation(expr)
    assert unplaced.value.violations[0].loc == ()


# --- properties --------------------------------------------------------------------------------

DICE_TOKENS = st.sampled_from(
    [
        "1", "2", "6", "20", "0", "100000", "d", "d%", "kh", "kl", "ph", "pl", "k", "p", "rr",
        "ro", "ra", "e", "mi", "ma", "h", "l", "<", ">", "+", "-", "*", "/", "//", "%", "==",
        ">=", "(", ")", ",", " ", "[x]", ".5", "1d6", "4d6kh3", "1d1e1", "d20", "999",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    expr=st.one_of(st.text(max_size=40), st.lists(DICE_TOKENS, max_size=25).map("".join)),
    seed=st.integers(0, 2**32),
)
def test_any_text_rolls_or_is_a_notation_error(expr: str, seed: int) -> None:
    try:
        result = roll_notation(expr, SeededRng(seed).die)
    except NotationError:
        return
    assert abs(result.total) <= MAX_TOTAL
    assert len(result.values) == len(result.sides) <= MAX_DICE
    assert all(
        1 <= value <= sides for value, sides in zip(result.values, result.sides, strict=True)
    )
    assert result.breakdown.endswith(f" = {result.total}")


@settings(max_examples=200, deadline=None)
@given(count=st.integers(0, 30), sides=st.integers(1, 100), seed=st.integers(0, 2**32))
def test_plain_dice_total_is_the_sum_of_the_dice(count: int, sides: int, seed: int) -> None:
    result = roll_notation(f"{count}d{sides}", SeededRng(seed).die)
    assert len(result.values) == count
    assert result.sides == (sides,) * count
    assert all(1 <= value <= sides for value in result.values)
    assert result.total == sum(result.values)


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(1, 20), min_size=1, max_size=12),
    keep=st.integers(0, 14),
    highest=st.booleans(),
)
def test_keep_highest_or_lowest_sums_the_best_or_worst_dice(
    values: list[int], keep: int, highest: bool
) -> None:
    expr = f"{len(values)}d20k{'h' if highest else 'l'}{keep}"
    result = roll_notation(expr, ScriptedRng(values))
    ordered = sorted(values, reverse=highest)
    assert result.total == sum(ordered[:keep])
    assert result.breakdown.count("~~") == 2 * max(len(values) - keep, 0)
