"""Odds of an arm wrestle (docs/rules.md#arm-wrestling, docs/rules.md#odds): exact dynamic
programming, else Monte Carlo.

The exact method walks the match round by round over every reachable DS pair, with integer
weights over one common denominator (each round multiplies it by 400 for the two Strength
checks and by 20 per fatigue check due: the number of checks made is fixed by the round, so
every pair of a round shares it). It uses the rules' own formulas: `check_modifier`,
`free_rounds`, `fatigue_modifier`, `fatigue_dc`, `push` and `leader_index`.

The DS pairs are not bounded (a leader's DS may fall below 0, and the lead change hands again
and again), so the walk counts its work (pairs x outcomes of the Strength checks); past
`EXACT_BUDGET` it stops and the odds are estimated by conditional Monte Carlo
(`simulated_odds`: seeded Strength checks, fatigue by its exact chances), within
`SIMULATION_BUDGET` rounds.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Final

from app.rules import arm_wrestling as rules
from app.rules.dice import SeededRng
from app.rules.odds.simulation import Estimate, Moments

#: Most pair x outcome steps an exact walk may take (about 0.2 ms of work on one core): a
#: match near its end, or a short one, fits; a fresh full-length match does not (its DS pairs
#: number in the thousands within a few rounds, and the exact weights grow by 400 a round).
EXACT_BUDGET: Final = 1_000
#: Rounds a Monte Carlo estimate plays (about half a millisecond on one core), so the odds of
#: an arm wrestle cost no more than three round trips of a resolution: a fresh match between
#: Lydia and an ogre gets about 150 trials (standard error about 1.4%), an even match with
#: long free rounds about 90 (about 4%).
SIMULATION_BUDGET: Final = 1_000
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
    layer: dict[tuple[int, int], int] = {state.ds: 1}
    denominator = 1
    a_wins = b_wins = draw = Fraction(0)
    expected = Fraction(state.rounds_played)
    steps = 0
    target = config.target
    for due in _fatigue_passes(config, state):
        alive = sum(layer.values())
        if not alive:
            break
        expected += Fraction(alive, denominator)
        # 1. Fatigue: each check due passes on so many faces of 20.
        passing = [D20 if faces is None else faces for faces in due]
        scale = D20 ** sum(faces is not None for faces in due)
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
    """Conditional Monte Carlo from `state`: seeded Strength checks, exact fatigue.

    Each trial rolls the opposed Strength checks round after round (seeded dice, `push`,
    the target), and takes the fatigue checks by their exact chances rather than rolling
    them: a round's fatigue checks depend on its number alone, never on the DS. So a trial
    adds to each outcome its exact probability given the Strength rolls it made (one
    failing: the other wins; both: the leader, or a draw), and goes on with the chance that
    both passed, until someone reaches the target, nobody can pass any more, or `max_rounds`
    stop it. The average of these is unbiased and varies less than counting played-out
    matches; the standard errors are the trials' own. Trials are played until `budget`
    rounds are spent.
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
    mod_a = rules.check_modifier(config, config.a)
    mod_b = rules.check_modifier(config, config.b)
    rolls = SeededRng(seed, "odds:arm-wrestle").rolls(D20)
    target = config.target
    push, leader_index = rules.push, rules.leader_index
    # Per round: the chances that it ends for a, for b, for the leader (both fail), and
    # that both pass; a round within both free rounds is (0, 0, 0, 1).
    steps = [
        (fail_b * (1 - fail_a), fail_a * (1 - fail_b), fail_a * fail_b, (1 - fail_a) * (1 - fail_b))
        for fail_a, fail_b in _fatigue_failures(config, state)
    ]
    totals = [Moments(), Moments(), Moments(), Moments()]  # a, b, draw, undecided
    rounds = trials = 0
    total_rounds = 0.0
    while rounds < budget or trials == 0:
        ds = state.ds
        alive = 1.0
        won = [0.0, 0.0, 0.0, 0.0]
        played = float(state.rounds_played)
        for for_a, for_b, for_leader, survive in steps:
            rounds += 1
            played += alive
            if survive != 1.0:
                # Fatigue: exactly one failing ends it for the other; both, for the leader.
                won[0] += alive * for_a
                won[1] += alive * for_b
                if for_leader:
                    leader = leader_index(ds)
                    won[2 if leader is None else leader] += alive * for_leader
                alive *= survive
                if alive == 0.0:
                    break
            difference = (next(rolls) + mod_a) - (next(rolls) + mod_b)
            if difference:
                winner = 0 if difference > 0 else 1
                ds = push(ds, winner, abs(difference))
                if ds[winner] >= target:
                    won[winner] += alive
                    alive = 0.0
                    break
        won[3] += alive  # stopped by max_rounds
        trials += 1
        total_rounds += played
        for moments, value in zip(totals, won, strict=True):
            moments.add(value)
    return ArmWrestleEstimate(
        a_wins=totals[0].estimate(),
        b_wins=totals[1].estimate(),
        draw=totals[2].estimate(),
        undecided=totals[3].estimate(),
        expected_rounds=total_rounds / trials,
        trials=trials,
        seed=seed,
    )


def longest_trial(config: rules.Config, state: rules.State) -> int:
    """The most rounds one trial of `simulated_odds` may play from `state`: until nobody can
    pass a fatigue check any more, or `max_rounds`."""
    return len(_fatigue_failures(config, state))


def _fatigue_passes(config: rules.Config, state: rules.State) -> Iterator[tuple[int | None, ...]]:
    """For each round left before `max_rounds`: on how many faces of 20 a's and b's fatigue
    checks pass, given that both passed every earlier one (`fatigue_dc` grows with each
    check); None for one still within her free rounds."""
    free = [rules.free_rounds(config, side) for side in config.competitors]
    modifier = [rules.fatigue_modifier(config, side) for side in config.competitors]
    checks = list(state.con_checks_made)
    for number in range(state.rounds_played + 1, config.max_rounds + 1):
        due: list[int | None] = [None, None]
        for index in (0, 1):
            if number > free[index]:
                due[index] = _passes(modifier[index], rules.fatigue_dc(checks[index]))
                checks[index] += 1
        yield tuple(due)


def _fatigue_failures(config: rules.Config, state: rules.State) -> list[tuple[float, float]]:
    """`_fatigue_passes` as the chances that the checks fail, up to the first round in which
    nobody can pass (no round after it is reached)."""
    chances: list[tuple[float, float]] = []
    for due in _fatigue_passes(config, state):
        fail_a, fail_b = (0.0 if faces is None else (D20 - faces) / D20 for faces in due)
        chances.append((fail_a, fail_b))
        if fail_a == 1.0 and fail_b == 1.0:
            break
    return chances


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
