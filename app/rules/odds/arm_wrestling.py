"""Odds of an arm wrestle (docs/rules.md#arm-wrestling, §6): exact dynamic programming, else Monte
Carlo.

The exact method walks the match round by round over every reachable DS pair, with integer
weights over one common denominator (each round multiplies it by 400 for the two Strength
checks and by 20 per fatigue check due: the number of checks made is fixed by the round, so
every pair of a round shares it). It uses the rules' own formulas: `check_modifier`,
`free_rounds`, `fatigue_modifier`, `fatigue_dc`, `push` and `leader_index`.

The DS pairs are not bounded (a leader's DS may fall below 0, and the lead change hands again
and again), so the walk counts its work (pairs x outcomes of the Strength checks); past
`EXACT_BUDGET` it stops and the odds are estimated by playing the match itself
(`arm_wrestling.play_round`) with seeded dice, within `SIMULATION_BUDGET` rounds.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Final

from app.rules import arm_wrestling as rules
from app.rules.dice import SeededRng
from app.rules.odds.simulation import Estimate, estimate

#: Most pair x outcome steps an exact walk may take (about 0.05 s of work on one core).
EXACT_BUDGET: Final = 60_000
#: Most rounds a Monte Carlo estimate plays (about 0.05 s of work on one core).
SIMULATION_BUDGET: Final = 20_000
D20: Final = 20


@dataclass(frozen=True, slots=True)
class ArmWrestleOdds:
    """`a_wins`, `b_wins`, `draw`, `undecided` (stopped by `max_rounds`) and the expected
    rounds of the whole match (the rounds already played included)."""

    a_wins: Fraction
    b_wins: Fraction
    draw: Fraction
    undecided: Fraction
    expected_rounds: Fraction


def _passes(modifier: int, dc: int) -> int:
    """How many of the 20 faces of a d20 pass `d20 + modifier >= dc`."""
    return sum(1 for roll in range(1, D20 + 1) if roll + modifier >= dc)


def _differences(config: rules.Config) -> dict[int, int]:
    """Of the 400 pairs of Strength checks, how many give each `a - b` total."""
    mod_a = rules.check_modifier(config, config.a)
    mod_b = rules.check_modifier(config, config.b)
    counts: Counter[int] = Counter()
    for roll_a in range(1, D20 + 1):
        for roll_b in range(1, D20 + 1):
            counts[(roll_a + mod_a) - (roll_b + mod_b)] += 1
    return dict(counts)


class TooLarge(Exception):
    """The exact walk would pass its budget."""


def exact_odds(
    config: rules.Config, state: rules.State, budget: int = EXACT_BUDGET
) -> ArmWrestleOdds:
    """The exact odds from `state` on; raises `TooLarge` past `budget` steps."""
    if state.finished:
        return _finished(state)
    differences = sorted(_differences(config).items())
    free = [rules.free_rounds(config, side) for side in config.competitors]
    fatigue_mod = [rules.fatigue_modifier(config, side) for side in config.competitors]
    checks_made = list(state.con_checks_made)
    layer: dict[tuple[int, int], int] = {state.ds: 1}
    denominator = 1
    a_wins = b_wins = draw = Fraction(0)
    expected = Fraction(state.rounds_played)
    steps = 0
    target = config.target
    for number in range(state.rounds_played + 1, config.max_rounds + 1):
        alive = sum(layer.values())
        if not alive:
            break
        expected += Fraction(alive, denominator)
        # 1. Fatigue: each check due passes on so many faces of 20.
        passing = [D20, D20]
        scale = 1
        for index in (0, 1):
            if number > free[index]:
                passing[index] = _passes(fatigue_mod[index], rules.fatigue_dc(checks_made[index]))
                checks_made[index] += 1
                scale *= D20
        pass_both = passing[0] * passing[1] * scale // (D20 * D20)
        # Weights over `scale`: only a fails, only b fails, both fail, both pass.
        only_a = (D20 - passing[0]) * passing[1] * scale // (D20 * D20)
        only_b = passing[0] * (D20 - passing[1]) * scale // (D20 * D20)
        both = (D20 - passing[0]) * (D20 - passing[1]) * scale // (D20 * D20)
        round_denominator = denominator * scale * D20 * D20
        won_a = won_b = drawn = 0
        if only_a or only_b or both:
            for ds, weight in layer.items():
                won_b += weight * only_a * D20 * D20
                won_a += weight * only_b * D20 * D20
                leader = rules.leader_index(ds)
                if leader is None:
                    drawn += weight * both * D20 * D20
                elif leader == 0:
                    won_a += weight * both * D20 * D20
                else:
                    won_b += weight * both * D20 * D20
        following: defaultdict[tuple[int, int], int] = defaultdict(int)
        if pass_both:
            steps += len(layer) * len(differences)
            if steps > budget:
                raise TooLarge
            for ds, weight in layer.items():
                carried = weight * pass_both
                for difference, count in differences:
                    moved = carried * count
                    if difference == 0:
                        following[ds] += moved
                        continue
                    winner = 0 if difference > 0 else 1
                    pushed = rules.push(ds, winner, abs(difference))
                    if pushed[winner] >= target:
                        if winner == 0:
                            won_a += moved
                        else:
                            won_b += moved
                    else:
                        following[pushed] += moved
        a_wins += Fraction(won_a, round_denominator)
        b_wins += Fraction(won_b, round_denominator)
        draw += Fraction(drawn, round_denominator)
        layer = dict(following)
        denominator = round_denominator
    undecided = Fraction(sum(layer.values()), denominator)
    return ArmWrestleOdds(a_wins, b_wins, draw, undecided, expected)


def _finished(state: rules.State) -> ArmWrestleOdds:
    """A finished match: its result, with probability 1."""
    one, zero = Fraction(1), Fraction(0)
    return ArmWrestleOdds(
        a_wins=one if state.winner == state.names[0] else zero,
        b_wins=one if state.winner is not None and state.winner == state.names[1] else zero,
        draw=one if state.reason == "draw" else zero,
        undecided=one if state.reason == "max_rounds" else zero,
        expected_rounds=Fraction(state.rounds_played),
    )


@dataclass(frozen=True, slots=True)
class ArmWrestleEstimate:
    """A Monte Carlo estimate: each probability with its standard error, and the trials."""

    a_wins: Estimate
    b_wins: Estimate
    draw: Estimate
    undecided: Estimate
    expected_rounds: float
    trials: int
    seed: int


def simulated_odds(
    config: rules.Config, state: rules.State, seed: int, budget: int = SIMULATION_BUDGET
) -> ArmWrestleEstimate:
    """Play the match from `state` with seeded dice until `budget` rounds are spent.

    The rounds follow `play_round`'s steps with the same formulas (`fatigue_dc`, `push`,
    `leader_index`), without building a round record per round: damage and consequences do
    not change who wins.
    """
    if state.finished:
        exact = _finished(state)
        return ArmWrestleEstimate(
            a_wins=Estimate(float(exact.a_wins), 0.0),
            b_wins=Estimate(float(exact.b_wins), 0.0),
            draw=Estimate(float(exact.draw), 0.0),
            undecided=Estimate(float(exact.undecided), 0.0),
            expected_rounds=float(exact.expected_rounds),
            trials=1,
            seed=seed,
        )
    die = SeededRng(seed, "odds:arm-wrestle").die
    free = [rules.free_rounds(config, side) for side in config.competitors]
    fatigue_mod = [rules.fatigue_modifier(config, side) for side in config.competitors]
    mod_a = rules.check_modifier(config, config.a)
    mod_b = rules.check_modifier(config, config.b)
    target, max_rounds = config.target, config.max_rounds
    outcomes: Counter[str] = Counter()
    rounds = trials = total_rounds = 0
    while rounds < budget or trials == 0:
        ds = state.ds
        checks = list(state.con_checks_made)
        number = state.rounds_played
        result = "max_rounds"
        while number < max_rounds:
            number += 1
            rounds += 1
            failed = [False, False]
            for index in (0, 1):
                if number > free[index]:
                    dc = rules.fatigue_dc(checks[index])
                    checks[index] += 1
                    failed[index] = die(D20) + fatigue_mod[index] < dc
            if failed[0] or failed[1]:
                if failed[0] and failed[1]:
                    leader = rules.leader_index(ds)
                    result = "draw" if leader is None else "ab"[leader]
                else:
                    result = "b" if failed[0] else "a"
                break
            difference = (die(D20) + mod_a) - (die(D20) + mod_b)
            if difference:
                winner = 0 if difference > 0 else 1
                ds = rules.push(ds, winner, abs(difference))
                if ds[winner] >= target:
                    result = "ab"[winner]
                    break
        trials += 1
        total_rounds += number
        outcomes[result] += 1
    return ArmWrestleEstimate(
        a_wins=estimate(outcomes["a"], trials),
        b_wins=estimate(outcomes["b"], trials),
        draw=estimate(outcomes["draw"], trials),
        undecided=estimate(outcomes["max_rounds"], trials),
        expected_rounds=total_rounds / trials,
        trials=trials,
        seed=seed,
    )


@lru_cache(maxsize=256)
def arm_wrestle_odds(
    config: rules.Config, state: rules.State, seed: int = 0
) -> ArmWrestleOdds | ArmWrestleEstimate:
    """Exact odds when the walk fits its budget, else a seeded estimate (docs/rules.md#odds)."""
    rules.check_config(config)
    try:
        return exact_odds(config, state)
    except TooLarge:
        return simulated_odds(config, state, seed)
