"""The exact arm-wrestle walk over GMP's integers (app/numeric/exact.py), which the service
answers with, against the same walk over Python's (itself checked against every die of small
matches played through the rules, tests/rules/test_odds.py): the same fractions, the same
work counted, the same refusal past the budget."""

from __future__ import annotations

import pytest
from gmpy2 import mpz
from hypothesis import given, settings

from app.numeric import exact as gmp_walk
from app.rules import arm_wrestling as rules
from app.rules.dice import Dice
from app.rules.odds import arm_wrestling as exact
from tests.numeric.matches import competitor, small_matches

LYDIA = rules.Config(competitor("Lydia", 2, 12, 1), competitor("Ogre", 6, 15, 2))


def test_lydia_and_the_ogre_in_gmp_integers() -> None:
    state = rules.start(LYDIA, Dice())
    odds = exact.arm_wrestle_odds(LYDIA, state, gmp_walk.gmp)
    assert odds == exact.exact_odds(LYDIA, state)
    # The answer is Python's: fractions of ints, whatever the walk's integers were.
    assert type(odds.a_wins.numerator) is int
    assert type(odds.draw.denominator) is int
    assert float(odds.a_wins) == pytest.approx(0.040344, abs=1e-6)
    assert float(odds.draw) == pytest.approx(0.0000544, abs=1e-7)


def test_the_walk_is_in_gmp_integers() -> None:
    # Not Python's ints with a cast around them: the weights the walk steps are GMP's.
    state = rules.start(LYDIA, Dice())
    walk = exact._Walk(LYDIA, state, 24, exact.EXACT_BUDGET, gmp_walk.gmp)
    walk.step()
    assert any(type(column) is type(mpz(0)) for column in walk.positive + walk.negative)
    assert all(type(value) is int for value in walk.leading())


@settings(max_examples=80, deadline=None)
@given(small_matches(most_target=40, most_con=10))
def test_any_match_from_any_state_is_the_same_fraction(
    match: tuple[rules.Config, rules.State],
) -> None:
    config, state = match
    assert exact.exact_odds(config, state, integer=gmp_walk.gmp) == exact.exact_odds(config, state)


@pytest.mark.parametrize("budget", [10_000, 1_000_000, 30_000_000])
def test_the_same_work_is_counted_and_refused(budget: int) -> None:
    # An even match to 100 that can last 52 rounds: refused at the same round in both, or
    # answered the same by both.
    side = competitor("A", 0, 30, 10)
    config = rules.Config(side, rules.Competitor("B", 0, 30, 10), target=100)
    state = rules.start(config, Dice())
    rounds = exact.strength_rounds(exact.fatigue_rounds(config, state))
    walks = [
        exact._Walk(config, state, rounds, budget),
        exact._Walk(config, state, rounds, budget, gmp_walk.gmp),
    ]
    refused = []
    for walk in walks:
        steps = 0
        try:
            for _ in range(rounds):
                walk.step()
                steps += 1
        except exact.TooLarge:
            pass
        refused.append((steps, walk.work))
    assert refused[0] == refused[1]
    assert refused[0][0] < rounds  # each budget here is passed
