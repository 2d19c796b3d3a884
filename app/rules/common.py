"""Conventions shared by the d20 rules (docs/rules.md#dice-and-checks)."""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.dice import Dice

#: Opposed checks reroll equal totals with equal modifiers at most this often
#: (docs/rules.md#dice-and-checks).
MAX_OPPOSED_REROLLS = 20


def ability_modifier(score: int) -> int:
    """`floor((score - 10) / 2)` (docs/rules.md#dice-and-checks)."""
    return (score - 10) // 2


def ability_bonus(score: int) -> int:
    """A bonus is `max(modifier, 0)` (docs/rules.md#dice-and-checks)."""
    return max(ability_modifier(score), 0)


@dataclass(frozen=True, slots=True)
class CheckRoll:
    roll: int
    total: int


@dataclass(frozen=True, slots=True)
class OpposedResult:
    """An opposed d20 check: who won and every pair of rolls made (the last decided it)."""

    first_wins: bool
    attempts: tuple[tuple[CheckRoll, CheckRoll], ...]

    @property
    def first(self) -> CheckRoll:
        return self.attempts[-1][0]

    @property
    def second(self) -> CheckRoll:
        return self.attempts[-1][1]


def opposed_check(
    dice: Dice,
    *,
    first: tuple[str | None, str, int],
    second: tuple[str | None, str, int],
) -> OpposedResult:
    """Opposed d20 checks (docs/rules.md#dice-and-checks).

    `first` and `second` are (who, purpose, modifier). The higher total wins; equal totals go
    to the higher modifier; equal modifiers too and both roll again, at most
    `MAX_OPPOSED_REROLLS` times, after which the second (defending) side wins.
    """
    who_a, purpose_a, mod_a = first
    who_b, purpose_b, mod_b = second
    attempts: list[tuple[CheckRoll, CheckRoll]] = []
    for _ in range(1 + MAX_OPPOSED_REROLLS):
        roll_a = dice.d20(who=who_a, purpose=purpose_a)
        roll_b = dice.d20(who=who_b, purpose=purpose_b)
        a = CheckRoll(roll_a, roll_a + mod_a)
        b = CheckRoll(roll_b, roll_b + mod_b)
        attempts.append((a, b))
        if a.total != b.total:
            return OpposedResult(a.total > b.total, tuple(attempts))
        if mod_a != mod_b:
            return OpposedResult(mod_a > mod_b, tuple(attempts))
    return OpposedResult(False, tuple(attempts))
