"""GURPS contests (docs/rules.md#gurps): success, quick, resistance and regular contests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Literal

from app.rules.dice import Dice, Key, Need
from app.rules.errors import PhaseError, RulesError
from app.rules.messages import N_, Message, english, m, ng, term
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
        raise RulesError(
            m("effective skill must be between {low} and {high}", low=MIN_SKILL, high=MAX_SKILL),
            loc,
        )


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
        violations.add(("b", "name"), N_("competitor names must differ"))
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
        raise PhaseError(N_("the contest is finished"))
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


#: The critical outcomes' words, as a summary shows them (`term`).
CRITICAL_WORDS: Final = (N_("success"), N_("failure"))


# --- presentation -------------------------------------------------------------------------


def describe_roll(name: str | None, result: SuccessRoll) -> Message:
    """`Ann (skill 12) rolled 9, made it by 3` — the API's summary phrasing."""
    if result.success:
        outcome = m("made it by {margin}", margin=result.margin)
    else:
        outcome = m("missed by {margin}", margin=-result.margin)
    if result.critical:
        outcome = m(
            "{outcome} (critical {critical})", outcome=outcome, critical=term(result.critical)
        )
    if name:
        return m(
            "{name} (skill {skill}) rolled {total}, {outcome}",
            name=name,
            skill=result.skill,
            total=result.total,
            outcome=outcome,
        )
    return m(
        "Skill {skill} rolled {total}, {outcome}",
        skill=result.skill,
        total=result.total,
        outcome=outcome,
    )


def success_roll_message(result: SuccessRoll) -> Message:
    return m("{roll}.", roll=describe_roll(None, result))


def success_roll_summary(result: SuccessRoll) -> str:
    return english(success_roll_message(result))


def quick_contest_message(name_a: str, name_b: str, contest: QuickContest) -> Message:
    a, b = describe_roll(name_a, contest.a), describe_roll(name_b, contest.b)
    if contest.winner is None:
        return m("{a}; {b}. A tie: nobody wins.", a=a, b=b)
    winner = name_a if contest.winner == "a" else name_b
    return m(
        "{a}; {b}. {winner} wins by {margin}.",
        a=a,
        b=b,
        winner=winner,
        margin=str(contest.margin_of_victory),
    )


def quick_contest_summary(name_a: str, name_b: str, contest: QuickContest) -> str:
    return english(quick_contest_message(name_a, name_b, contest))


def resistance_message(attacker: str, defender: str, resistance: ResistanceRoll) -> Message:
    line = describe_roll(attacker, resistance.attacker)
    if resistance.defender is None:
        return m(
            "{attacker_roll}; {defender} need not resist. {defender} is not affected.",
            attacker_roll=line,
            defender=defender,
        )
    rolls = {"attacker_roll": line, "defender_roll": describe_roll(defender, resistance.defender)}
    if resistance.affected:
        return m(
            "{attacker_roll}; {defender_roll}. {defender} is affected ({attacker} wins by "
            "{margin}).",
            **rolls,
            defender=defender,
            attacker=attacker,
            margin=resistance.margin_of_victory or 0,
        )
    if resistance.margin_of_victory is None:
        return m(
            "{attacker_roll}; {defender_roll}. A tie goes to the defender: {defender} resists.",
            **rolls,
            defender=defender,
        )
    return m(
        "{attacker_roll}; {defender_roll}. {defender} resists by {margin}.",
        **rolls,
        defender=defender,
        margin=resistance.margin_of_victory,
    )


def resistance_summary(attacker: str, defender: str, resistance: ResistanceRoll) -> str:
    return english(resistance_message(attacker, defender, resistance))


def regular_round_message(config: RegularConfig, number: int, played: RegularRound) -> Message:
    """Round `number`'s line, without a "Round N:" label (the caller adds one)."""
    a, b = describe_roll(config.a.name, played.a), describe_roll(config.b.name, played.b)
    if played.winner is not None:
        winner = config.a.name if played.winner == "a" else config.b.name
        return m("{a}; {b}. {winner} wins the contest.", a=a, b=b, winner=winner)
    if played.finished:
        return ng(
            "{a}; {b}. Undecided after {count} round.",
            "{a}; {b}. Undecided after {count} rounds.",
            number,
            a=a,
            b=b,
        )
    return m("{a}; {b}. No winner yet.", a=a, b=b)


def regular_round_summary(config: RegularConfig, number: int, played: RegularRound) -> str:
    """Round `number`'s line, without a "Round N:" label (the caller adds one)."""
    return english(regular_round_message(config, number, played))
