"""The bounded walk of an arm wrestle's odds (app/numeric/arm_wrestling.py) against the exact
walk (itself checked against every die of small matches played through the rules): every
answer within its stated bound of the exact fraction, and the bounds tight."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings

from app.numeric import arm_wrestling as numeric
from app.rules import arm_wrestling as rules
from app.rules.dice import Dice
from app.rules.odds import arm_wrestling as exact
from app.rules.odds.arm_wrestling import EXACT_ROUNDS, SURE_MARGIN, surely_too_long
from tests.numeric.matches import competitor, small_matches

NAMES = ("a_wins", "b_wins", "draw", "undecided", "expected_rounds")


LYDIA = rules.Config(competitor("Lydia", 2, 12, 1), competitor("Ogre", 6, 15, 2))


def assert_within(config: rules.Config, state: rules.State) -> numeric.Bounded:
    truth = exact.exact_odds(config, state, budget=10**12)
    answer = numeric.bounded_odds(config, state)
    for name in NAMES:
        true_value: Fraction = getattr(truth, name)
        told = float(getattr(answer.odds, name))
        bound = answer.bound[name]
        assert abs(Fraction(told) - true_value) <= Fraction(bound), (name, told, true_value)
        # Tight: the walk's own error is a few hundred roundings, the pruned weight tiny.
        assert bound <= 1e-11 * float(true_value) + 1e-18, (name, bound, float(true_value))
    return answer


def test_lydia_and_the_ogre() -> None:
    answer = assert_within(LYDIA, rules.start(LYDIA, Dice()))
    assert float(answer.odds.a_wins) == pytest.approx(0.040344, abs=1e-6)
    assert float(answer.odds.draw) == pytest.approx(0.0000544, abs=1e-7)


@pytest.mark.parametrize(
    ("config", "state"),
    [
        # An even match to 60 that can last about 40 rounds.
        (
            rules.Config(competitor("A", 0, 30, 1), competitor("B", 0, 30, 1), target=60),
            None,
        ),
        # Stopped by max_rounds, fatigue early: every ending possible.
        (
            rules.Config(
                competitor("A", 3, 5, 1), competitor("B", 0, 3, 3), target=20, max_rounds=12
            ),
            None,
        ),
        # From a session's state: b far ahead, a below 0, checks already made.
        (
            rules.Config(
                competitor("A", 0, 8, 1, endurance=True),
                competitor("B", 1, 6, 0, off_hand=True),
                target=100,
            ),
            rules.State(names=("A", "B"), ds=(-30, 50), con_checks_made=(4, 6), rounds_played=12),
        ),
        # Modifiers far apart (the kernel's shift past the spread), a tie at the start.
        (
            rules.Config(competitor("A", 25, 10, 0), competitor("B", 0, 10, 0), target=40),
            rules.State(names=("A", "B"), ds=(7, 7), rounds_played=3),
        ),
    ],
)
def test_matches_and_states(config: rules.Config, state: rules.State | None) -> None:
    assert_within(config, state or rules.start(config, Dice()))


@settings(max_examples=60, deadline=None)
@given(small_matches())
def test_any_small_match_from_any_state(match: tuple[rules.Config, rules.State]) -> None:
    assert_within(*match)


def test_what_is_pruned_is_in_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # Dropping every state lighter than 1e-6 moves the answers far more than the roundings
    # do; the bound still holds them, because it counts what was dropped.
    monkeypatch.setattr(numeric, "PRUNE", 1e-6)
    config = rules.Config(competitor("A", 0, 30, 1), competitor("B", 1, 30, 1), target=40)
    state = rules.start(config, Dice())
    truth = exact.exact_odds(config, state, budget=10**12)
    answer = numeric.bounded_odds(config, state)
    moved = max(abs(getattr(answer.odds, name) - getattr(truth, name)) for name in NAMES)
    assert moved > 1e-9
    for name in NAMES:
        told = Fraction(float(getattr(answer.odds, name)))
        assert abs(told - getattr(truth, name)) <= Fraction(answer.bound[name])


def test_the_longest_even_match_the_limits_allow() -> None:
    side = competitor("A", 0, 200, 100, endurance=True)
    config = rules.Config(side, replace(side, name="B"), target=100, max_rounds=10_000)
    state = rules.start(config, Dice())
    assert exact.horizon(config, state) == 316
    with pytest.raises(exact.TooLarge):
        exact.exact_odds(config, state)
    answer = numeric.arm_wrestle_odds(config, state)
    odds = answer.odds
    assert odds.a_wins == odds.b_wins
    assert odds.undecided == 0  # the fatigue checks end it within 316 rounds
    total = odds.a_wins + odds.b_wins + odds.draw
    spread = sum(Fraction(answer.bound[name]) for name in ("a_wins", "b_wins", "draw"))
    assert abs(total - 1) <= spread
    assert all(answer.bound[name] < 1e-12 for name in ("a_wins", "b_wins", "draw"))


def test_an_even_match_from_equal_ds_is_walked_as_its_own_mirror() -> None:
    # The mirrored walk (b's array is a's) gives, round by round, exactly what walking both
    # arrays gives.
    config = rules.Config(
        competitor("A", 2, 30, 1), competitor("B", 1, 30, 1, misc_mod=1), target=30
    )
    state = rules.State(names=("A", "B"), ds=(4, 4), rounds_played=2)
    mirrored, both = numeric.Walk(config, state), numeric.Walk(config, state)
    assert mirrored.mirror
    both.mirror = False
    both._view(0, both.lead_a.shape[0])  # its own array for b, as an uneven match has
    assert both.lead_b is not both.lead_a
    for _ in range(40):
        assert mirrored.leading() == both.leading()
        assert mirrored.step() == both.step()
    # The weight dropped is added in another order (a bound's part, not a figure).
    assert mirrored.pruned == pytest.approx(both.pruned, rel=1e-12)
    assert not numeric.Walk(config, replace(state, ds=(4, 3))).mirror


@pytest.mark.parametrize(("apart", "rounds"), EXACT_ROUNDS)
def test_the_exact_walk_is_skipped_only_where_it_would_be_refused(apart: int, rounds: int) -> None:
    # Target 10 (the exact walk answers a little longer there than at 100) and just past
    # the shortcut's margin: the exact walk passes its budget, so skipping it loses nothing.
    longer = math.floor(SURE_MARGIN * rounds) + 1
    side = competitor("B", 0, 200, 100, endurance=True)
    config = rules.Config(
        replace(side, name="A", strength_mod=apart), side, target=10, max_rounds=longer
    )
    state = rules.start(config, Dice())
    assert exact.horizon(config, state) == longer
    assert surely_too_long(config, state)
    assert not surely_too_long(replace(config, max_rounds=rounds), state)
    with pytest.raises(exact.TooLarge):
        exact.exact_odds(config, state)


@pytest.mark.parametrize(
    "config",
    [
        LYDIA,
        # Modifiers 1 apart (two arrays, the crossings between them), cut by the target.
        rules.Config(competitor("A", 1, 30, 1), competitor("B", 0, 30, 1), target=30),
        # Even from equal DS: the mirrored walk.
        rules.Config(competitor("A", 0, 30, 1), competitor("B", 0, 30, 1), target=40),
    ],
)
def test_nothing_under_a_rows_bound_is_read(
    config: rules.Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The walk's buffers are reused without clearing what lies under each row's first column
    # not zero: filled with NaN there, the walk must answer exactly as from zeroed buffers
    # (a NaN read anywhere would reach a sum and the answer).
    state = rules.start(config, Dice())
    plain = numeric.bounded_odds(config, state)
    made = numeric.Walk._buffers

    def poisoned(size: int) -> Any:
        buffers = made(size)
        for weights in buffers[:3]:
            weights.fill(math.nan)
        return buffers

    monkeypatch.setattr(numeric.Walk, "_buffers", staticmethod(poisoned))
    walk = numeric.Walk(config, state)
    assert math.isnan(walk._sets[1][0][0, 0])  # the first round writes into poisoned memory
    assert numeric.bounded_odds(config, state) == plain
