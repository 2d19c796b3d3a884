"""Exact odds of an arm wrestle (docs/rules.md#arm-wrestling, docs/rules.md#odds), from its start
or from any state of a match.

The walk rests on three facts of the rules (`rules.push`, `rules.leader_index`):

- **The difference is a free walk.** Whoever leads, `push` moves the difference
  `delta = DS(a) - DS(b)` by exactly the round's `a - b` total, so `delta` adds one draw of the
  same kernel (the 400 pairs of Strength checks) every round: the leader is `a` while
  `delta > 0`, `b` while `delta < 0`, nobody at 0.
- **Only a crossing lowers the trailing DS.** The trailing DS never moves; when the difference
  changes sign (not through 0), the old leader becomes the trailer at `leader - d`, below the
  old trailing DS by the new `|delta|`. So the lowest DS falls by the sum `C` of those
  overshoots, and the leader's DS is `lowest at the start + |delta| - C`: the leader reaches
  the target when `|delta| >= K + C`, `K` being the target minus the lowest DS at the start.
- **Fatigue depends on the round alone.** A round's fatigue checks are due by its number, and
  their chances are the same for every state still alive, so the fatigue checks are weighed
  in per round from how much of the match is alive and who leads; they never enter the walk.

So the walk's state is `(delta, C)`. For each `delta` the weights of every `C` are one big
integer, `C` its slot (`slot` bits each, wide enough for every count of the walk's 400**n
paths): one round is the kernel's convolution along `delta` (two running sums of 20, as
`400 = 20 x 20` pairs), a shift by the overshoot of the slots that crossed, and the target
taking the slots `C <= |delta| - K`. A state that cannot reach the target in the rounds left
(its leader's DS more than `rounds x (19 + |modifier difference|)` short) only matters for who
leads, which the free walk of `delta` alone answers: its slots leave the big integers.
Lydia against the Ogre from creation takes about 30 ms of CPU, a match that can last 52
rounds about 0.9 s (docs/performance.md#odds); tests compare the walk with every die of small
matches played through `rules.play_round`, and with a plain walk over the DS pairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Final, Protocol

from app.rules import arm_wrestling as rules
from app.rules.dice import WorkLimitExceeded
from app.rules.errors import Loc

D20: Final = 20
#: The 400 pairs of Strength checks: their difference is the modifier difference plus
#: `roll_a - roll_b`, which gives `k` (|k| <= 19) in `20 - |k|` pairs.
SPREAD: Final = D20 - 1
#: Most work one walk may do, in bits of the columns it steps (see `_Walk.step`): about 1 s
#: of CPU on one core in Python's integers, about half that in GMP's, which the service walks
#: in (app/numeric/exact.py), so that no question holds the odds worker longer. Matches that can
#: last up to about 55 rounds fit (Lydia against the Ogre, 25 rounds, takes 3% of it; an even
#: match of 52 rounds to target 100, 68%); longer ones stop within that second (the longest
#: the creation limits allow, about 316 rounds, would take many minutes and gigabytes) and
#: the service answers them by the bounded walk (app/numeric, docs/rules.md#odds).
EXACT_BUDGET: Final = 2_500_000_000


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


def fatigue_rounds(config: rules.Config, state: rules.State) -> list[tuple[int | None, ...]]:
    """`_fatigue_passes` up to the first round in which one of them cannot pass (no round
    after it is reached): the match's horizon from `state`."""
    rounds: list[tuple[int | None, ...]] = []
    for due in _fatigue_passes(config, state):
        rounds.append(due)
        if 0 in due:
            break
    return rounds


def strength_rounds(rounds: list[tuple[int | None, ...]]) -> int:
    """The rounds of Strength checks among `fatigue_rounds`: all but a last one in which a
    fatigue check cannot pass (the match ends before its checks)."""
    return len(rounds) - (1 if rounds and 0 in rounds[-1] else 0)


#: The longest match the exact walk answers from creation, by the difference of the check
#: modifiers (docs/performance.md#odds, at target 100; a little more at lower targets).
EXACT_ROUNDS: Final = ((18, 123), (17, 97), (16, 85), (15, 77), (10, 61), (5, 57), (0, 56))
#: A match this many times longer than that is not tried exactly: its walk would pass the
#: budget (the work grows faster than the cube of the rounds) after a second of work.
SURE_MARGIN: Final = 1.25


def surely_too_long(config: rules.Config, state: rules.State) -> bool:
    """Whether the exact walk from `state` would surely pass `EXACT_BUDGET` (so that a caller
    with another walk need not spend the budget to learn it)."""
    apart = abs(rules.check_modifier(config, config.a) - rules.check_modifier(config, config.b))
    if apart > SPREAD - 1:
        return False
    rounds = next(longest for least, longest in EXACT_ROUNDS if apart >= least)
    return horizon(config, state) > SURE_MARGIN * rounds


def _spread(weights: list[int]) -> list[int]:
    """`weights` convolved with the difference of two d20s: entry `k` of the answer is
    `sum(weights[s] * (20 - |k - 19 - s|))`, as two running sums of 20 faces each."""
    return _window(_window(weights))


def _window(weights: list[int]) -> list[int]:
    """Entry `k`: the sum of `weights[k - 19 .. k]` (the list grows by 19), a running sum.

    The weights are packed slots, but the sums are exact integers whatever the order: the
    answer's slots are sums of slots, all below the slot width, so they read back exactly."""
    count = len(weights)
    window: list[int] = []
    keep = window.append
    running = 0
    head = min(count, D20)
    for index in range(head):
        running += weights[index]
        keep(running)
    for _ in range(head, D20):  # a short list: the window covers all of it for a while
        keep(running)
    for index in range(D20, count):
        running += weights[index] - weights[index - D20]
        keep(running)
    for index in range(max(count, D20), count + SPREAD):
        running -= weights[index - D20]
        keep(running)
    return window


#: Makes the walk's integers from Python's: `int` itself, or a faster big-integer type with
#: the same operators (`+ - & >> << %`, `bit_length`), such as GMP's (app/numeric/exact.py).
Integers = Callable[[int], int]


class _Walk:
    """The Strength checks' walk over `(delta, C)` (see the module's docstring), without
    fatigue: every weight counts paths out of `400**rounds`, in integers made by `integer`
    (what it answers is Python's `int`)."""

    def __init__(
        self,
        config: rules.Config,
        state: rules.State,
        strength_rounds: int,
        budget: int,
        integer: Integers = int,
    ) -> None:
        self.integer = integer
        self.shift = rules.check_modifier(config, config.a) - rules.check_modifier(config, config.b)
        #: The most a leader's DS can rise in one round: either's, a's, b's.
        self.rise = SPREAD + abs(self.shift)
        self.rises = (max(SPREAD + self.shift, 0), max(SPREAD - self.shift, 0))
        self.reach = config.target - min(state.ds)
        self.rounds_left = strength_rounds
        #: Slot width: every slot, and every sum of slots, is below 400**rounds.
        self.slot: int = (400**strength_rounds).bit_length() + 2
        self.ones: int = integer((1 << self.slot) - 1)
        delta = state.ds[0] - state.ds[1]
        # positive[i]: delta == i; negative[i]: delta == -i; index 0 unused.
        self.positive = [0] * (max(delta, 0) + 1)
        self.negative = [0] * (max(-delta, 0) + 1)
        self.zero = 0
        if delta > 0:
            self.positive[delta] = integer(1)
        elif delta < 0:
            self.negative[-delta] = integer(1)
        else:
            self.zero = integer(1)
        #: The states that can no longer reach the target, by delta (from `settled_low`).
        self.settled: list[int] = []
        self.settled_low = 0
        self._masks: dict[int, int] = {}
        #: Bits of the columns stepped so far, against `budget`.
        self.work = 0
        self.budget = budget

    def _mask(self, slots: int) -> int:
        mask = self._masks.get(slots)
        if mask is None:
            mask = self._masks[slots] = self.integer((1 << (slots * self.slot)) - 1)
        return mask

    def leading(self) -> tuple[int, int, int]:
        """The weights alive with a leading, b leading, and nobody leading."""
        ones = self.ones
        lead_a = sum(self.positive) % ones
        lead_b = sum(self.negative) % ones
        level = self.zero % ones
        for offset, weight in enumerate(self.settled):
            delta = self.settled_low + offset
            if delta > 0:
                lead_a += weight
            elif delta < 0:
                lead_b += weight
            else:
                level += weight
        return int(lead_a), int(lead_b), int(level)

    def step(self) -> tuple[int, int]:
        """One round of Strength checks: the weights (out of 400 times more) that reach the
        target, for a and for b."""
        slot, shift = self.slot, self.shift
        grown = self.rise + 1
        positive = [0] * (len(self.positive) + grown)
        negative = [0] * (len(self.negative) + grown)
        zero = 0
        if len(self.positive) > 1:
            offset = 1 - SPREAD + shift
            for index, column in enumerate(_spread(self.positive[1:])):
                if column:
                    delta = index + offset
                    if delta > 0:
                        positive[delta] += column
                    elif delta < 0:
                        # A crossing: the lowest DS falls by the overshoot.
                        negative[-delta] += column << (-delta * slot)
                    else:
                        zero += column
        if len(self.negative) > 1:
            offset = 1 - len(self.negative) - SPREAD + shift
            for index, column in enumerate(_spread(self.negative[:0:-1])):
                if column:
                    delta = index + offset
                    if delta < 0:
                        negative[-delta] += column
                    elif delta > 0:
                        positive[delta] += column << (delta * slot)
                    else:
                        zero += column
        if self.zero:
            for pairs, delta in _pairs(shift):
                moved = self.zero * pairs
                if delta > 0:
                    positive[delta] += moved
                elif delta < 0:
                    negative[-delta] += moved
                else:
                    zero += moved
        self.rounds_left -= 1
        self._settle_walk()
        reached = (self._reach(positive), self._reach(negative))
        self._settle(positive, 1)
        self._settle(negative, -1)
        cut = self.rounds_left * max(self.rises) - self.reach + 1
        if cut < 0:
            cut = 0
        if zero.bit_length() > cut * slot:
            self._add_settled(0, (zero >> (cut * slot)) % self.ones)
            zero &= self._mask(cut)
        while len(positive) > 1 and not positive[-1]:
            positive.pop()
        while len(negative) > 1 and not negative[-1]:
            negative.pop()
        self.positive, self.negative, self.zero = positive, negative, zero
        # The next round's work: each column is read a few times, at a cost by its length.
        self.work += sum(column.bit_length() for column in positive) + sum(
            column.bit_length() for column in negative
        )
        if self.work > self.budget:
            raise TooLarge
        return int(reached[0]), int(reached[1])

    def _reach(self, side: list[int]) -> int:
        """Take out the slots of `side` at or past the target (`C <= |delta| - K`)."""
        reached = 0
        for delta in range(max(self.reach, 1), len(side)):
            column = side[delta]
            if column:
                low = column & self._mask(delta - self.reach + 1)
                if low:
                    reached += low
                    side[delta] = column ^ low
        return reached % self.ones

    def _settle(self, side: list[int], sign: int) -> None:
        """Move to `settled` the slots from which neither can reach the target in the rounds
        left: the leader's DS is `K + C - |delta|` short of it and rises at most her `rises`
        a round; the trailer's, `K + C` short, stays until she leads, then rises at most hers."""
        slot = self.slot
        leads, trails = self.rises if sign > 0 else self.rises[::-1]
        base = self.rounds_left * leads - self.reach + 1
        floor = self.rounds_left * trails - self.reach + 1
        for delta in range(1, len(side)):
            column = side[delta]
            cut = delta + base
            if cut < floor:
                cut = floor
            if cut < 0:
                cut = 0
            if column.bit_length() > cut * slot:
                self._add_settled(sign * delta, (column >> (cut * slot)) % self.ones)
                side[delta] = column & self._mask(cut)

    def _add_settled(self, delta: int, weight: int) -> None:
        if not self.settled:
            self.settled, self.settled_low = [weight], delta
            return
        if delta < self.settled_low:
            self.settled[:0] = [0] * (self.settled_low - delta)
            self.settled_low = delta
        index = delta - self.settled_low
        if index >= len(self.settled):
            self.settled.extend([0] * (index + 1 - len(self.settled)))
        self.settled[index] += weight

    def _settle_walk(self) -> None:
        """The settled states' round: the free walk of `delta`."""
        if self.settled:
            self.settled = _spread(self.settled)
            self.settled_low += self.shift - SPREAD


@lru_cache(maxsize=64)
def _pairs(shift: int) -> tuple[tuple[int, int], ...]:
    """(pairs of Strength checks out of 400, the `a - b` difference they give)."""
    return tuple((D20 - abs(k), k + shift) for k in range(-SPREAD, SPREAD + 1))


class TooLarge(WorkLimitExceeded):
    """The walk would pass its budget of work (`EXACT_BUDGET`). The service then asks the
    bounded walk (`app.numeric.arm_wrestling`); a caller of this module alone gets the
    refusal, as a request past the work limit of dice is (docs/rules.md#work-limit)."""

    def __init__(self, msg: str = "", loc: Loc = ()) -> None:
        super().__init__(
            msg
            or "the exact odds of this match need more work than the service does for one "
            "question (from creation: an even match that can last more than about 56 rounds, "
            "one whose check modifiers are 15 apart more than about 77); ask again once "
            "fewer rounds are left",
            loc,
        )


class StrengthWalk(Protocol):
    """A walk of the Strength checks without fatigue (`_Walk`, or a numeric one): weights in
    integers, scaled by `paths` a round (`400` for counted paths, `1` for probabilities)."""

    def leading(self) -> tuple[int, int, int]:
        """The weights alive with a leading, b leading, and nobody leading."""
        ...

    def step(self) -> tuple[int, int]:
        """One round: the weights (`paths` times more) that reach the target, a's and b's."""
        ...


def exact_odds(
    config: rules.Config,
    state: rules.State,
    budget: int = EXACT_BUDGET,
    integer: Integers = int,
) -> ArmWrestleOdds:
    """The exact odds from `state` on (docs/rules.md#odds); raises `TooLarge` past `budget`
    bits of columns stepped. `integer`: the walk's integers (`Integers`); the same answer
    whichever."""
    if state.finished:
        return _finished(state)
    rounds = fatigue_rounds(config, state)
    walk = _Walk(config, state, strength_rounds(rounds), budget, integer)
    return combine(state, rounds, walk, paths=400, unit=1)


def combine(
    state: rules.State,
    rounds: list[tuple[int | None, ...]],
    walk: StrengthWalk,
    paths: int,
    unit: int,
) -> ArmWrestleOdds:
    """The odds from a walk of the Strength checks and the fatigue checks of `rounds`
    (`fatigue_rounds`), all exact over the walk's integers: the walk starts with weight
    `unit`, and its weights grow by `paths` a round."""
    # Numerators over one common `denominator` (the walk's `paths` per round times 20 per
    # fatigue check): both passed every fatigue check so far in `passed` of its share of it.
    passed = 1
    denominator = unit
    a_wins = b_wins = draw = expected = 0
    alive = 0
    for due in rounds:
        lead_a, lead_b, level = walk.leading()
        alive = lead_a + lead_b + level
        if not alive:
            break
        # (faces passing, faces) of each check; a check not due passes on 1 of 1.
        (faces_a, of_a), (faces_b, of_b) = ((1, 1) if f is None else (f, D20) for f in due)
        fails_a, fails_b = of_a - faces_a, of_b - faces_b
        # Exactly one failing: the other wins; both: the leader, or a draw at equal DS.
        scale = of_a * of_b * paths
        a_wins = a_wins * scale + passed * paths * (
            alive * faces_a * fails_b + lead_a * fails_a * fails_b
        )
        b_wins = b_wins * scale + passed * paths * (
            alive * faces_b * fails_a + lead_b * fails_a * fails_b
        )
        draw = draw * scale + passed * paths * level * fails_a * fails_b
        expected = expected * scale + passed * alive * scale
        denominator *= scale
        passed *= faces_a * faces_b
        if not passed:
            break
        reached_a, reached_b = walk.step()
        a_wins += passed * reached_a
        b_wins += passed * reached_b
    else:
        lead_a, lead_b, level = walk.leading()
        alive = lead_a + lead_b + level
    return ArmWrestleOdds(
        a_wins=Fraction(a_wins, denominator),
        b_wins=Fraction(b_wins, denominator),
        draw=Fraction(draw, denominator),
        undecided=Fraction(passed * alive, denominator),
        expected_rounds=state.rounds_played + Fraction(expected, denominator),
    )


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


def horizon(config: rules.Config, state: rules.State) -> int:
    """The most rounds the match can still last: the walk's length, the measure of its work."""
    return 0 if state.finished else len(fatigue_rounds(config, state))


@lru_cache(maxsize=256)
def arm_wrestle_odds(
    config: rules.Config, state: rules.State, integer: Integers = int
) -> ArmWrestleOdds:
    """The exact odds of the match from `state` (docs/rules.md#odds), the walk in `integer`'s
    integers (the service's: GMP's, app/numeric/exact.py), kept for the questions asked
    again."""
    rules.check_config(config)
    return exact_odds(config, state, integer=integer)
