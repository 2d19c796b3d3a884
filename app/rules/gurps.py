"""GURPS contests (docs/rules.md#gurps): success, quick, resistance and regular contests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from app.rules.dice import Dice, Key, Need
from app.rules.errors import PhaseError, RulesError
from app.rules.text import name_key
from app.rules.violations import Violations

Critical = Literal["success", "failure"] | None

MIN_SKILL = -100
MAX_SKILL = 1000
DEFAULT_MAX_ROUNDS = 100
MAX_ROUNDS_LIMIT = 10_000
#: Dice purpose of a success roll's 3d6.
SUCCESS = "success"


def check_skill(skill: int, loc: tuple[str | int, ...] = ("skill",)) -> None:
    """Effective skill lies in -100..1000 (docs/rules.md#success-roll)."""
    if not MIN_SKILL <= skill <= MAX_SKILL:
        raise RulesError(f"effective skill must be between {MIN_SKILL} and {MAX_SKILL}", loc)


@dataclass(frozen=True, slots=True)
class SuccessRoll:
    """One 3d6 roll against effective skill (docs/rules.md#success-roll)."""

    skill: int
    roll: tuple[int, int, int]
    total: int
    success: bool
    critical: Critical
    margin: int


def judge_success(skill: int, roll: tuple[int, int, int]) -> SuccessRoll:
    """Judge a 3d6 roll against `skill` (docs/rules.md#success-roll), with criticals and the signed
    margin."""
    total = sum(roll)
    if total <= 4:
        success = True
    elif total >= 17:
        success = False
    else:
        success = total <= skill
    critical: Critical
    if total <= 4 or (total == 5 and skill >= 15) or (total == 6 and skill >= 16):
        critical = "success"
    elif total == 18 or (total == 17 and skill <= 15) or total >= skill + 10:
        critical = "failure"
    else:
        critical = None
    margin = max(skill - total, 0) if success else -max(total - skill, 0)
    return SuccessRoll(skill, roll, total, success, critical, margin)


def success_roll(skill: int, dice: Dice, *, who: str | None = None) -> SuccessRoll:
    """Roll 3d6 against effective skill (docs/rules.md#success-roll)."""
    a, b, c = dice.roll(3, 6, who=who, purpose=SUCCESS)
    return judge_success(skill, (a, b, c))


@dataclass(frozen=True, slots=True)
class QuickContest:
    """docs/rules.md#quick-contest; `winner` is "a", "b" or None (a tie)."""

    a: SuccessRoll
    b: SuccessRoll
    winner: Literal["a", "b"] | None
    margin_of_victory: int | None


def judge_quick_contest(a: SuccessRoll, b: SuccessRoll) -> QuickContest:
    """Compare two success rolls (docs/rules.md#quick-contest); criticals do not change who wins."""
    if a.success != b.success:
        winner: Literal["a", "b"] | None = "a" if a.success else "b"
    elif a.margin != b.margin:
        winner = "a" if a.margin > b.margin else "b"
    else:
        winner = None
    if winner is None:
        return QuickContest(a, b, None, None)
    won, lost = (a, b) if winner == "a" else (b, a)
    return QuickContest(a, b, winner, won.margin - lost.margin)


def quick_contest(
    skill_a: int, skill_b: int, dice: Dice, *, who_a: str, who_b: str
) -> QuickContest:
    """Both roll; the better result wins (docs/rules.md#quick-contest)."""
    a = success_roll(skill_a, dice, who=who_a)
    b = success_roll(skill_b, dice, who=who_b)
    return judge_quick_contest(a, b)


@dataclass(frozen=True, slots=True)
class ResistanceRoll:
    """docs/rules.md#resistance-roll"""

    attacker: SuccessRoll
    defender: SuccessRoll | None
    affected: bool
    margin_of_victory: int | None


def resistance_roll(
    attacker_skill: int, defender_skill: int, dice: Dice, *, attacker: str, defender: str
) -> ResistanceRoll:
    """Attacker first; the defender rolls only if the attacker succeeds
    (docs/rules.md#resistance-roll)."""
    attack = success_roll(attacker_skill, dice, who=attacker)
    if not attack.success:
        return ResistanceRoll(attack, None, False, None)
    defence = success_roll(defender_skill, dice, who=defender)
    contest = judge_quick_contest(attack, defence)
    affected = contest.winner == "a"
    if contest.winner is None:
        return ResistanceRoll(attack, defence, False, None)
    return ResistanceRoll(attack, defence, affected, contest.margin_of_victory)


def adjust_extreme_scores(a: int, b: int) -> tuple[int, int]:
    """The regular contest's extreme-score adjustment (docs/rules.md#regular-contest)."""
    lo, hi = min(a, b), max(a, b)
    if lo > 20:
        new_lo, new_hi = 10, hi * 10 // lo
        return (new_lo, new_hi) if a <= b else (new_hi, new_lo)
    if lo >= 14:
        return a - (lo - 10), b - (lo - 10)
    if hi <= 6:
        return a + (10 - lo), b + (10 - lo)
    return a, b


@dataclass(frozen=True, slots=True)
class Contestant:
    name: str
    skill: int


@dataclass(frozen=True, slots=True)
class RegularConfig:
    """A regular contest as created (docs/rules.md#regular-contest)."""

    a: Contestant
    b: Contestant
    normalize: bool = True
    max_rounds: int = DEFAULT_MAX_ROUNDS
    seconds_per_round: int = 1

    @property
    def effective(self) -> tuple[int, int]:
        if not self.normalize:
            return self.a.skill, self.b.skill
        return adjust_extreme_scores(self.a.skill, self.b.skill)


def check_regular_config(config: RegularConfig) -> None:
    """The check of a regular contest's setup that spans fields: the two names differ
    (docs/rules.md#names). The create body's schema checks each field's bounds
    (docs/rules.md#success-roll, docs/rules.md#regular-contest)."""
    violations = Violations()
    if name_key(config.a.name) == name_key(config.b.name):
        violations.add(("b", "name"), "competitor names must differ")
    violations.raise_if_any()


@dataclass(frozen=True, slots=True)
class RegularState:
    rounds: int = 0
    winner: Literal["a", "b"] | None = None
    finished: bool = False


@dataclass(frozen=True, slots=True)
class RegularRound:
    """One round of a regular contest: both roll; exactly one success wins
    (docs/rules.md#regular-contest)."""

    a: SuccessRoll
    b: SuccessRoll
    winner: Literal["a", "b"] | None
    finished: bool


def regular_dice_needs(
    config: RegularConfig,
    state: RegularState,  # noqa: ARG001 - every round rolls the same dice
) -> dict[Key, Need]:
    """Every round both roll 3d6, surely (docs/rules.md#supplied-and-server-dice)."""
    return {
        (config.a.name, SUCCESS): Need(6, 3, certain=3, per_roll=3),
        (config.b.name, SUCCESS): Need(6, 3, certain=3, per_roll=3),
    }


def regular_round(
    config: RegularConfig, state: RegularState, dice: Dice
) -> tuple[RegularState, RegularRound]:
    """Play one round of a regular contest (docs/rules.md#regular-contest)."""
    if state.finished:
        raise PhaseError("the contest is finished")
    skill_a, skill_b = config.effective
    a = success_roll(skill_a, dice, who=config.a.name)
    b = success_roll(skill_b, dice, who=config.b.name)
    winner: Literal["a", "b"] | None = None
    if a.success != b.success:
        winner = "a" if a.success else "b"
    rounds = state.rounds + 1
    finished = winner is not None or rounds >= config.max_rounds
    new_state = replace(state, rounds=rounds, winner=winner, finished=finished)
    return new_state, RegularRound(a, b, winner, finished)


# --- presentation -------------------------------------------------------------------------


def describe_roll(name: str | None, result: SuccessRoll) -> str:
    """`Ann (skill 12) rolled 9, made it by 3` — the API's summary phrasing."""
    who = f"{name} (skill {result.skill})" if name else f"Skill {result.skill}"
    outcome = f"made it by {result.margin}" if result.success else f"missed by {-result.margin}"
    if result.critical:
        outcome += f" (critical {result.critical})"
    return f"{who} rolled {result.total}, {outcome}"


def success_roll_summary(result: SuccessRoll) -> str:
    return describe_roll(None, result) + "."


def quick_contest_summary(name_a: str, name_b: str, contest: QuickContest) -> str:
    line = f"{describe_roll(name_a, contest.a)}; {describe_roll(name_b, contest.b)}."
    if contest.winner is None:
        return line + " A tie: nobody wins."
    winner = name_a if contest.winner == "a" else name_b
    return line + f" {winner} wins by {contest.margin_of_victory}."


def resistance_summary(attacker: str, defender: str, resistance: ResistanceRoll) -> str:
    line = describe_roll(attacker, resistance.attacker)
    if resistance.defender is None:
        return line + f"; {defender} need not resist. {defender} is not affected."
    line += f"; {describe_roll(defender, resistance.defender)}."
    if resistance.affected:
        return (
            line + f" {defender} is affected ({attacker} wins by {resistance.margin_of_victory})."
        )
    if resistance.margin_of_victory is None:
        return line + f" A tie goes to the defender: {defender} resists."
    return line + f" {defender} resists by {resistance.margin_of_victory}."


def regular_round_summary(config: RegularConfig, number: int, played: RegularRound) -> str:
    """Round `number`'s line, without a "Round N:" label (the caller adds one)."""
    line = f"{describe_roll(config.a.name, played.a)}; {describe_roll(config.b.name, played.b)}."
    if played.winner is not None:
        winner = config.a.name if played.winner == "a" else config.b.name
        return line + f" {winner} wins the contest."
    if played.finished:
        return line + f" Undecided after {number} {'round' if number == 1 else 'rounds'}."
    return line + " No winner yet."
