"""Every outcome of a rule function that rolls dice, with its exact probability
(docs/rules.md#odds).

`outcomes(play)` runs `play(dice)` once per distinct sequence of dice it can draw, depth first
(a replaying `Rng`: the values given so far, then 1s; each run opens the siblings of the dice
it drew past its prefix), so a rule is enumerated by the rule itself, not by a copy of it. A
sequence's probability is the product of `1 / sides` over its dice. `budget` bounds the runs.

Damage notation draws nothing here (`no_damage`): damage is recorded by the race rules but
never changes a gain, a forfeit or a lead, so the odds do not depend on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from math import prod
from typing import Final, TypeVar

from app.rules.dice import Dice, NotationResult

T = TypeVar("T")

#: Most runs one enumeration may make.
DEFAULT_BUDGET: Final = 20_000
#: Most dice one run may draw (a retry chain without a cap never ends on all 1s).
MAX_DICE_PER_RUN: Final = 64


class TooLarge(Exception):
    """An exact computation would pass its budget."""


def no_damage(expr: str, draw: Callable[[int], int]) -> NotationResult:
    """A notation evaluator that draws no die: 0 damage (see the module's docstring)."""
    del draw
    return NotationResult(0, expr, (), ())


class _Replay:
    """An `Rng` giving `prefix` first, then 1s, recording the sides of every die drawn."""

    __slots__ = ("prefix", "sides", "values")

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.sides: list[int] = []
        self.values: list[int] = []

    def die(self, sides: int) -> int:
        index = len(self.values)
        if index >= MAX_DICE_PER_RUN:
            raise TooLarge
        value = self.prefix[index] if index < len(self.prefix) else 1
        self.sides.append(sides)
        self.values.append(value)
        return value


def outcomes(
    play: Callable[[Dice], T], budget: int = DEFAULT_BUDGET
) -> Iterator[tuple[T, Fraction]]:
    """`(play's result, its probability)` for every sequence of dice `play` can draw; the
    probabilities sum to 1. Raises `TooLarge` past `budget` runs (an unbounded retry chain
    included)."""
    stack: list[tuple[int, ...]] = [()]
    runs = 0
    while stack:
        prefix = stack.pop()
        runs += 1
        if runs > budget:
            raise TooLarge
        replay = _Replay(prefix)
        result = play(Dice(replay, notation=no_damage))
        yield result, Fraction(1, prod(replay.sides))
        for index in range(len(prefix), len(replay.sides)):
            head = tuple(replay.values[:index])
            stack.extend((*head, value) for value in range(2, replay.sides[index] + 1))
