"""The dice source (docs/rules.md#dice-and-checks): supplied values checked, server dice CSPRNG
or seeded."""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.dice import (
    MAX_SEED,
    Dice,
    DiceBudget,
    Key,
    Need,
    SeededRng,
    SystemRng,
    WorkLimitExceeded,
    check_supplied,
    session_round_rng,
)
from app.rules.errors import DiceError

RULES = Path(__file__).resolve().parents[2] / "app" / "rules"


def test_seeded_dice_are_a_fixed_function_of_the_seed() -> None:
    # Golden values: a change here changes every seeded result a client may have stored.
    assert [SeededRng(5).die(6) for _ in range(1)] == [5]
    rng = SeededRng(5)
    assert [rng.die(6) for _ in range(10)] == [5, 3, 4, 5, 3, 5, 3, 5, 4, 5]
    rng = SeededRng(123, "round:1")
    first = [rng.die(20) for _ in range(8)]
    rng = SeededRng(123, "round:1")
    assert [rng.die(20) for _ in range(8)] == first
    rng = SeededRng(123, "round:2")
    assert [rng.die(20) for _ in range(8)] != first


@pytest.mark.parametrize("sides", [1, 2, 6, 20, 100, 255, 256, 257, 100_000])
def test_dice_in_one_call_are_the_dice_of_a_call_each(sides: int) -> None:
    # Counts of 3, 64 and 200 cross the 64-byte blocks at different places.
    one_call, call_each = SeededRng(9, f"batch:{sides}"), SeededRng(9, f"batch:{sides}")
    for count in (3, 64, 200, 1):
        assert one_call.dice(count, sides) == tuple(call_each.die(sides) for _ in range(count))
    assert one_call.die(sides) == call_each.die(sides)


def test_session_rounds_derive_from_seed_and_number() -> None:
    one = session_round_rng(7, 3)
    two = session_round_rng(7, 3)
    assert [one.die(100) for _ in range(20)] == [two.die(100) for _ in range(20)]
    assert isinstance(session_round_rng(None, 3), SystemRng)


@pytest.mark.parametrize("seed", [-1, MAX_SEED])
def test_seed_range(seed: int) -> None:
    with pytest.raises(ValueError, match="seed"):
        SeededRng(seed)


@pytest.mark.parametrize("sides", [2, 6, 20, 100, 257, 100_000])
def test_dice_cover_their_range_uniformly(sides: int) -> None:
    rng = SeededRng(42, f"uniform:{sides}")
    draws = 20_000
    counts = Counter(rng.die(sides) for _ in range(draws))
    assert min(counts) >= 1
    assert max(counts) <= sides
    if sides <= 100:
        assert set(counts) == set(range(1, sides + 1))
        expected = draws / sides
        chi_square = sum((counts[face] - expected) ** 2 / expected for face in range(1, sides + 1))
        # Far beyond the 99.99th percentile for these degrees of freedom only if biased.
        assert chi_square < sides * 3 + 60


def test_system_dice_stay_in_range() -> None:
    rng = SystemRng()
    assert {rng.die(6) for _ in range(2000)} == {1, 2, 3, 4, 5, 6}


def test_supplied_values_are_used_first_and_logged() -> None:
    dice = Dice(SeededRng(1), {("Ann", "check"): [17, 3]})
    assert dice.d20(who="Ann", purpose="check") == 17
    assert dice.d20(who="Ann", purpose="check") == 3
    server = dice.d20(who="Ann", purpose="check")
    assert 1 <= server <= 20
    assert [entry.source for entry in dice.log] == ["supplied", "supplied", "rolled"]
    assert dice.rolls()[0] == {
        "who": "Ann",
        "purpose": "check",
        "dice": "1d20",
        "values": [17],
        "source": "supplied",
    }


def test_out_of_range_supplied_value_is_a_dice_error_naming_the_field() -> None:
    dice = Dice(SeededRng(1), {("Ann", "check"): [21]}, locs={("Ann", "check"): ("a", "roll")})
    with pytest.raises(DiceError) as caught:
        dice.d20(who="Ann", purpose="check")
    assert caught.value.violations[0].loc == ("a", "roll")


def test_partial_supply_of_one_roll_is_the_wrong_count() -> None:
    dice = Dice(SeededRng(1), {(None, "success"): [3, 4]})
    with pytest.raises(DiceError, match="needed"):
        dice.roll(3, 6, who=None, purpose="success")


def test_unused_supplied_values_are_reported_with_why() -> None:
    # Supplied dice count as thrown: leftovers are reported (docs/rules.md#supplied-and-server-
    # dice), surplus when some of the key's values were used, else ended or not-needed.
    supplied: dict[Key, list[int]] = {
        ("Ann", "check"): [5, 6],
        ("Bob", "check"): [7],
        ("Ann", "damage"): [2],
    }
    dice = Dice(SeededRng(1), supplied, by=lambda who: f"seat:{who}")
    dice.d20(who="Ann", purpose="check")
    assert [entry.record() for entry in dice.leftovers(ended=False)] == [
        {"who": "Ann", "purpose": "check", "values": [6], "why": "surplus", "by": "seat:Ann"},
        {"who": "Bob", "purpose": "check", "values": [7], "why": "not-needed", "by": "seat:Bob"},
        {"who": "Ann", "purpose": "damage", "values": [2], "why": "not-needed", "by": "seat:Ann"},
    ]
    assert [entry.why for entry in dice.leftovers(ended=True)] == ["surplus", "ended", "ended"]
    # A state-decided check (a creation's dice) still refuses leftovers.
    with pytest.raises(DiceError, match="not needed"):
        dice.require_all_used()


def test_check_supplied_refuses_only_what_no_path_can_use() -> None:
    needs: dict[Key, Need] = {
        ("Ann", "check"): Need(20),
        ("Ann", "obstacle"): Need(20, 3),
        ("Ann", "damage"): Need(0, 2, notation="1d6+1d4"),
        ("Ann", "success"): Need(6, 3, certain=3, per_roll=3),
        ("Ann", "retry"): Need(20, None),
    }
    notation = {"1d6+1d4": (6, 4)}.get
    ok: dict[Key, list[int]] = {
        ("Ann", "check"): [20],
        ("Ann", "obstacle"): [1, 2, 3],
        ("Ann", "damage"): [6, 4, 1, 1],
        ("Ann", "success"): [1, 6, 3],
        ("Ann", "retry"): [1] * 500,
    }
    check_supplied(needs, ok, None, notation)
    refused: list[tuple[dict[Key, list[int]], str]] = [
        ({("Ann", "spot"): [3]}, "can be needed"),
        ({("Bob", "check"): [3]}, "can be needed"),
        ({("Ann", "check"): [21]}, "outside 1..20"),
        ({("Ann", "check"): [0]}, "outside 1..20"),
        ({("Ann", "obstacle"): [1, 2, 3, 4]}, "at most 3"),
        ({("Ann", "damage"): [6, 5]}, "outside 1..4"),
        ({("Ann", "damage"): [6]}, "whole rolls"),
        ({("Ann", "damage"): [1, 1, 1, 1, 1, 1]}, "at most 4"),
        ({("Ann", "success"): [1, 2]}, "whole rolls"),
    ]
    for supplied, message in refused:
        with pytest.raises(DiceError, match=message):
            check_supplied(needs, supplied, None, notation)
    # A notation whose dice decide how many it rolls takes no supplied values.
    with pytest.raises(DiceError, match="dice decide"):
        check_supplied(
            {("Ann", "damage"): Need(0, notation="1d6e6")},
            {("Ann", "damage"): [6]},
            None,
            {"1d6e6": None}.get,
        )


@given(st.integers(0, MAX_SEED - 1), st.integers(1, 1000))
def test_any_seed_gives_dice_in_range(seed: int, sides: int) -> None:
    rng = SeededRng(seed)
    assert all(1 <= rng.die(sides) <= sides for _ in range(5))


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_rules_core_imports_only_the_standard_library() -> None:
    modules = sorted(RULES.rglob("*.py"))
    assert len(modules) >= 8
    for path in modules:
        for name in _imported_modules(path):
            if name == "app":
                continue  # the rules' own modules (checked below to be app.rules only)
            assert name in sys.stdlib_module_names or name == "__future__", (path.name, name)
        source = path.read_text()
        for line in source.splitlines():
            stripped = line.strip()
            if stripped.startswith(("from app", "import app")):
                assert stripped.startswith(("from app.rules", "import app.rules")), (
                    path.name,
                    stripped,
                )
        assert "import random" not in source, path.name


def test_a_budget_is_shared_by_every_dice_source_of_a_request() -> None:
    budget = DiceBudget(5)
    first = Dice(SeededRng(1), budget=budget)
    second = Dice(SeededRng(2), {("a", "x"): [3, 3]}, budget=budget)
    first.roll(3, 6, who="a", purpose="x")
    second.roll(2, 6, who="a", purpose="x")  # supplied dice count too
    assert budget.left == 0
    with pytest.raises(WorkLimitExceeded, match="more than 5 dice"):
        first.die(6, who="a", purpose="x")


def test_system_bytes_are_handed_out_once() -> None:
    from app.rules.dice import SYSTEM_POOL_BYTES, system_bytes

    chunks = [system_bytes(64) for _ in range(3 * SYSTEM_POOL_BYTES // 64)]
    assert all(len(chunk) == 64 for chunk in chunks)
    # 192 chunks of 64 random bytes: any repeat would be a chunk handed out twice.
    assert len(set(chunks)) == len(chunks)


def _child_bytes(pipe: Any) -> None:
    from app.rules.dice import system_bytes

    pipe.send(system_bytes(64))


def test_a_forked_process_has_a_pool_of_its_own() -> None:
    import multiprocessing

    from app.rules.dice import system_bytes

    system_bytes(64)  # this process's pool is filled
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_child_bytes, args=(sending,))
    child.start()
    theirs = receiving.recv()
    child.join()
    ours = system_bytes(64)  # what the parent hands out next
    assert theirs != ours


@pytest.mark.parametrize("sides", [1, 6, 20, 100, 255, 256, 1000])
def test_rolls_are_the_dice_die_would_give(sides: int) -> None:
    by_call = SeededRng(11, "s")
    by_iterator = SeededRng(11, "s").rolls(sides)
    assert [next(by_iterator) for _ in range(2_000)] == [by_call.die(sides) for _ in range(2_000)]


def test_rolls_continue_where_die_left_off() -> None:
    by_call = SeededRng(5)
    mixed = SeededRng(5)
    first = [mixed.die(20) for _ in range(7)]
    rolls = mixed.rolls(20)
    assert first + [next(rolls) for _ in range(100)] == [by_call.die(20) for _ in range(107)]
