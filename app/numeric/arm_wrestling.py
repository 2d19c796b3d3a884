"""The odds of an arm wrestle too long for the exact walk (docs/rules.md#odds "bounded"):
the same walk in doubles, every rounding error bounded, the answer given with its bound.

`app.rules.odds.arm_wrestling` walks the Strength checks exactly over `(delta, C)`; a match
that can last a few hundred rounds has millions of states whose exact weights run to
thousands of bits, more than a question may take. This walk follows the same rules over the
same states, written as two distances to the target:

- `g`, the leader's distance to the target, and `c >= g`, the trailer's (`T - DS`). A round
  of Strength checks with total difference `X = a - b` moves only `g`: by `-X` when a leads,
  `+X` when b leads (`rules.push`: the round's winner's DS rises when she leads, the leader's
  falls when she trails). `g <= 0`: the leader reached the target. `g == c`: the DS are equal,
  nobody leads. `g > c`: the lead changed hands; the new leader's distance is the old
  trailer's, `c`, and the new trailer's is `g` — the state moves to the transposed cell of the
  other leader's array. From equal DS at distance `c` the round's winner leads at `c - |X|`.
- So one round is a convolution along `g` of each row (the 400 pairs of checks, a triangle of
  weights `20 - |k|`, summed as two windows of 20 in a tree of adds), a transpose of the upper
  triangle (the crossings) and a slice (the targets reached). Fatigue stays out of the walk:
  its checks are the same for every state alive, so `rules.odds.arm_wrestling.combine` weighs
  them in from what this walk reports per round, exactly as it does for the exact walk.

**The bound.** Every value here is a sum of products of non-negative numbers, so each
computed value is its exact counterpart times at most `(1 + u)**n` (`u = 2**-53`, `n` the
depth of roundings on its way: at most `DEPTH_PER_ROUND` a round, plus the sums that read it
out), never worse through cancellation — there is no subtraction. States whose weight falls
under `PRUNE` are dropped; their total is kept, and no answer can move by more than that
total (the expected length by more than it times the rounds left). The walk's figures go to
the combination as exact integers, so the combination adds no error; the answer is the
double nearest the combination's exact fraction, and `Bounded.bound` gives, per answer, a
bound on its distance from the exact odds (docs/rules.md#odds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

from app.numeric import _kernel
from app.rules import arm_wrestling as rules
from app.rules.odds import arm_wrestling as exact

Array = npt.NDArray[np.float64]
Bounds = npt.NDArray[np.int64]

#: The unit of the integers handed to the combination: every double is an integer number of
#: `2**-1074` (the smallest subnormal), so `value * 2**UNIT_BITS` is exact.
UNIT_BITS: Final = 1074
#: States lighter than this are dropped (their total is part of the bound): about 1e-24.
PRUNE: Final = 2.0**-80
#: `u`, the unit roundoff of a double.
ROUNDOFF: Final = Fraction(1, 2**53)
#: Roundings on a state's weight in one round: 10 in the two windows of 20, 2 in the scale by
#: 1/400 (the rounded constant and the product), 3 in the additions of the equal-DS row and
#: the diagonal, 1 in the crossing's addition.
DEPTH_PER_ROUND: Final = 16
SPREAD: Final = exact.SPREAD
SCALE: Final = 1.0 / 400.0


@dataclass(frozen=True, slots=True)
class Bounded:
    """The odds as `exact.ArmWrestleOdds`, each probability the double nearest a fraction
    within `bound` of the exact one (the same keys)."""

    odds: exact.ArmWrestleOdds
    bound: dict[str, float]


class Walk:
    """The Strength checks' walk in doubles (see the module's docstring); `leading` and
    `step` answer as `exact._Walk`'s do, in integers of `2**-UNIT_BITS` of probability.

    The weights live in two sets of buffers, read from one and written to the other each
    round (no allocation, no copy): `lead_a`, `lead_b` and `level` are views of the current
    set's used window. An even match from equal DS (the same check modifier on both sides)
    is its own mirror image, round after round, so `mirror` walks b's array as a's.
    """

    def __init__(self, config: rules.Config, state: rules.State) -> None:
        self.shift = rules.check_modifier(config, config.a) - rules.check_modifier(config, config.b)
        self.reach = SPREAD + abs(self.shift)
        self.mirror = self.shift == 0 and state.ds[0] == state.ds[1]
        target = config.target
        # Index `i` of either axis stands for the distance `i + self.base`.
        distances = [target - ds for ds in state.ds]
        self.base = min(distances)
        size = max(distances) - self.base + 1
        self._sets = [self._buffers(size), self._buffers(size)]
        self._current = 0
        lead_a, lead_b, level, lo_a, lo_b = self._sets[0]
        lead_a[:size, :size] = 0.0
        lead_b[:size, :size] = 0.0
        level[:size] = 0.0
        lo_a[:size] = 0
        lo_b[:size] = 0
        g_a, g_b = (d - self.base for d in distances)
        if g_a < g_b:
            lead_a[g_b, g_a] = 1.0
        elif g_b < g_a:
            lead_b[g_a, g_b] = 1.0
        else:
            level[g_a] = 1.0
        self._view(0, size)
        self.rounds = 0
        self.pruned = 0.0
        #: The widest window walked (the depth of the sums that read it out).
        self.size = size
        self.alive: tuple[float, float, float] = (
            float(self.lead_a.sum()),
            float(self.lead_b.sum()),
            float(self.level.sum()),
        )

    @staticmethod
    def _buffers(size: int) -> tuple[Array, Array, Array, Bounds, Bounds]:
        """The weights (a leading, b leading, equal DS) and each leader's rows' lower bounds
        (the first column that may not be zero: nothing under it is read or cleared)."""
        capacity = size + size // 2 + 64
        return (
            np.empty((capacity, capacity), dtype=np.float64),
            np.empty((capacity, capacity), dtype=np.float64),
            np.empty(capacity, dtype=np.float64),
            np.empty(capacity, dtype=np.int64),
            np.empty(capacity, dtype=np.int64),
        )

    def _view(self, low: int, high: int) -> None:
        lead_a, lead_b, level, lo_a, lo_b = self._sets[self._current]
        self.lead_a = lead_a[low:high, low:high]
        self.lead_b = self.lead_a if self.mirror else lead_b[low:high, low:high]
        self.level = level[low:high]
        self.lo_a = lo_a[low:high]
        self.lo_b = self.lo_a if self.mirror else lo_b[low:high]

    def leading(self) -> tuple[int, int, int]:
        return tuple(_units(value) for value in self.alive)  # type: ignore[return-value]

    def step(self) -> tuple[int, int]:
        """One round of Strength checks; the weights that reach the target, a's and b's."""
        reach = self.reach
        self.base -= reach
        cut = max(-self.base + 1, 0)
        size = self.lead_a.shape[0] + 2 * reach
        target = 1 - self._current
        if self._sets[target][2].shape[0] < size:
            self._sets[target] = self._buffers(size)
        out_a, out_b, out_level, out_lo_a, out_lo_b = self._sets[target]
        (
            size,
            reached_a,
            reached_b,
            alive_a,
            alive_b,
            alive_level,
            pruned,
            low,
            high,
        ) = _kernel.play_round(
            self.lead_a,
            self.lead_b,
            self.level,
            self.lo_a,
            self.lo_b,
            out_a,
            out_b,
            out_level,
            out_lo_a,
            out_lo_b,
            self.shift,
            cut,
            PRUNE,
            SCALE,
            self.mirror,
        )
        self._current = target
        self._view(low, high)
        self.pruned += pruned
        self.base += low
        self.size = max(self.size, size)
        self.alive = (alive_a, alive_b, alive_level)
        self.rounds += 1
        return _units(reached_a), _units(reached_b)


def read_depth(size: int) -> int:
    """Most roundings of a figure read out of a window of `size` rows: each row added in
    order (`_kernel._finish_row`; the targets reached by halving), the rows' sums by halving
    (`_kernel._pairwise`), and the scale by 1/400 (the rounded constant and the product) of
    the weights reaching the target."""
    return size + math.ceil(math.log2(size + 1)) + 2


def _units(value: float) -> int:
    """`value` in integers of `2**-UNIT_BITS`, exactly."""
    numerator, denominator = value.as_integer_ratio()
    return numerator * ((1 << UNIT_BITS) // denominator)


def bounded_odds(config: rules.Config, state: rules.State) -> Bounded:
    """The odds from `state` with their bounds (docs/rules.md#odds)."""
    rounds = exact.fatigue_rounds(config, state)
    walk = Walk(config, state)
    odds = exact.combine(state, rounds, walk, paths=1, unit=1 << UNIT_BITS)
    depth = DEPTH_PER_ROUND * exact.strength_rounds(rounds) + read_depth(walk.size)
    gamma = depth * ROUNDOFF / (1 - depth * ROUNDOFF)
    pruned = Fraction(walk.pruned) * (1 + gamma)
    bound: dict[str, float] = {}
    for name in ("a_wins", "b_wins", "draw", "undecided", "expected_rounds"):
        value: Fraction = getattr(odds, name)
        spread = pruned * (len(rounds) if name == "expected_rounds" else 1)
        if name == "expected_rounds":
            value -= state.rounds_played
        # The walk's relative error, what was dropped, and the final rounding to a double.
        total = gamma / (1 - gamma) * value + spread / (1 - gamma) + ROUNDOFF * value
        bound[name] = _up(total)
    return Bounded(odds=odds, bound=bound)


def _up(value: Fraction) -> float:
    """The smallest double at or above `value`."""
    nearest = float(value)
    return nearest if Fraction(nearest) >= value else math.nextafter(nearest, math.inf)


@lru_cache(maxsize=16)
def arm_wrestle_odds(config: rules.Config, state: rules.State) -> Bounded:
    """`bounded_odds`, kept for the questions asked again (docs/rules.md#odds)."""
    rules.check_config(config)
    return bounded_odds(config, state)


def warm() -> None:
    """Load (or, the first time on a machine, compile) the round's kernel for the arrays a
    walk hands it: the odds worker does it when it starts, so that no question waits."""
    for strength in (0, 1):
        config = rules.Config(
            rules.Competitor("A", strength, 1, 0), rules.Competitor("B", 0, 1, 0), target=3
        )
        bounded_odds(config, rules.State(names=("A", "B")))
