"""Odds of a race (docs/rules.md#races, docs/rules.md#odds): a seeded Monte Carlo estimate.

A race's state space (every racer's DS, standing and retries over every increment, obstacles,
hazards and endurance included) is too large to walk exactly, so the race is played by its own
rules (`races.play_round`) with seeded dice, trial after trial, until `SIMULATION_BUDGET`
competitor-increments are spent (at least one trial), or as many trials as the caller asks.
Each proportion's standard error follows the Agresti-Coull rule (`simulation.estimate`).
Damage is not rolled (`no_damage`): it is recorded by the rules but decides nothing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import Final

from app.rules import races as rules
from app.rules.dice import MAX_DICE_PER_REQUEST, Dice, DiceBudget, SeededRng, WorkLimitExceeded
from app.rules.odds.enumeration import no_damage
from app.rules.odds.simulation import Estimate, estimate

#: Most competitor-increments one estimate plays (about 0.15 s of work on one core).
SIMULATION_BUDGET: Final = 20_000


@dataclass(frozen=True, slots=True)
class RaceEstimate:
    """Per racer: winning outright (`wins`) and forfeiting (`forfeits`); `tie` a shared first
    place, `nobody` every racer forfeited; each with its standard error."""

    wins: dict[str, Estimate]
    forfeits: dict[str, Estimate]
    tie: Estimate
    nobody: Estimate
    trials: int
    seed: int
    exact: bool


def _racing(state: rules.State) -> int:
    return sum(1 for standing in state.standing.values() if standing == "racing")


def race_odds(
    config: rules.Config,
    state: rules.State,
    seed: int = 0,
    budget: int = SIMULATION_BUDGET,
    trials: int | None = None,
) -> RaceEstimate:
    """Play the race from `state` to its end, again and again, with seeded dice (a finished
    race: its result, certain, one trial): `trials` times when asked (at most `MAX_TRIALS`),
    else until `budget` competitor-increments are spent; the request's work limit of dice
    stops it sooner."""
    names = [competitor.name for competitor in config.competitors]
    if rules.is_finished(state):
        return _tally(names, [state], seed, exact=True)
    # Each racer at the pacing she races at, once, rather than in every increment played.
    config, state = rules.raced_config(config, state), replace(state, pacing={})
    rng = SeededRng(seed, "odds:race")
    # The resolution's own work limit: a race that cannot end within it is refused alike.
    work = DiceBudget(MAX_DICE_PER_REQUEST)
    ends: list[rules.State] = []
    played = 0
    while (played < budget if trials is None else len(ends) < trials) or not ends:
        here = state
        try:
            while not rules.is_finished(here):
                played += _racing(here)
                dice = Dice(rng, notation=no_damage, budget=work)
                here, _ = rules.play_round(config, here, dice)
        except WorkLimitExceeded:
            if not ends:
                raise
            break
        ends.append(here)
    return _tally(names, ends, seed, exact=False)


def _tally(names: list[str], ends: list[rules.State], seed: int, *, exact: bool) -> RaceEstimate:
    won: Counter[str] = Counter()
    forfeited: Counter[str] = Counter()
    tie = nobody = 0
    for end in ends:
        first = rules.winners(end)
        if len(first) == 1:
            won[first[0]] += 1
        elif first:
            tie += 1
        else:
            nobody += 1
        for name, standing in end.standing.items():
            if standing == "forfeited":
                forfeited[name] += 1
    trials = len(ends)

    def judged(hits: int) -> Estimate:
        return Estimate(float(hits), 0.0) if exact else estimate(hits, trials)

    return RaceEstimate(
        wins={name: judged(won[name]) for name in names},
        forfeits={name: judged(forfeited[name]) for name in names},
        tie=judged(tie),
        nobody=judged(nobody),
        trials=trials,
        seed=seed,
        exact=exact,
    )
