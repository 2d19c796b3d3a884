"""One against many, and everyone at once (docs/rules.md#one-against-many).

- `quick_contests`: one GURPS success roll against each opponent's own success roll, every pair
  judged as a quick contest (docs/rules.md#quick-contest); the one roll is shared by all pairs.
- `ranked`: everyone makes one success roll; the better result places higher, as a quick
  contest would judge each pair.
- `opposed_checks`: one d20 check against each opponent's opposed check
  (docs/rules.md#opposed-checks); the one first d20 is shared, and a pair's tie-break rerolls
  are that pair's own.
- `ranked_checks`: everyone makes one d20 check; the higher total places higher, equal totals
  go to the higher modifier, and those equal in both roll again among themselves (at most
  `MAX_OPPOSED_REROLLS` times, then they share the place), as an opposed check breaks a tie.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from app.rules import gurps
from app.rules.common import MAX_OPPOSED_REROLLS, CheckRoll
from app.rules.dice import Dice
from app.rules.messages import Argument, Listing, Message, english, m

#: Most opponents one competitor faces in one call, and most competitors a ranking takes.
MAX_OPPONENTS: Final = 64
MAX_RANKED: Final = 64
#: Dice purposes: the d20 of an opposed check, and a pair's tie-break reroll of the one side.
CHECK: Final = "check"
REROLL_PREFIX: Final = "reroll against "
#: A ranked check's reroll of a tie among those equal in total and modifier.
REROLL: Final = "reroll"


def reroll_purpose(opponent: str) -> str:
    """The purpose of the one side's rerolls in its tie with `opponent`."""
    return REROLL_PREFIX + opponent


# --- GURPS: one against many ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PairResult:
    """One opponent's roll and how its quick contest with the one competitor ended: `winner`
    is "competitor", "opponent" or None (a tie)."""

    name: str
    roll: gurps.SuccessRoll
    winner: Literal["competitor", "opponent"] | None
    margin_of_victory: int | None


@dataclass(frozen=True, slots=True)
class QuickContests:
    competitor: gurps.SuccessRoll
    results: tuple[PairResult, ...]

    @property
    def beaten(self) -> int:
        return sum(result.winner == "competitor" for result in self.results)

    @property
    def beaten_by(self) -> int:
        return sum(result.winner == "opponent" for result in self.results)

    @property
    def ties(self) -> int:
        return sum(result.winner is None for result in self.results)


def judge_pair(name: str, competitor: gurps.SuccessRoll, opponent: gurps.SuccessRoll) -> PairResult:
    """How the quick contest of `competitor`'s roll and opponent `name`'s ends
    (docs/rules.md#quick-contest)."""
    contest = gurps.judge_quick_contest(competitor, opponent)
    winner: Literal["competitor", "opponent"] | None = (
        None if contest.winner is None else "competitor" if contest.winner == "a" else "opponent"
    )
    return PairResult(name, opponent, winner, contest.margin_of_victory)


def quick_contests(
    competitor: tuple[str, int], opponents: Sequence[tuple[str, int]], dice: Dice
) -> QuickContests:
    """`competitor` (name, skill) rolls once; each opponent rolls and is judged against it."""
    name, skill = competitor
    own = gurps.success_roll(skill, dice, who=name)
    results = tuple(
        judge_pair(opponent, own, gurps.success_roll(opponent_skill, dice, who=opponent))
        for opponent, opponent_skill in opponents
    )
    return QuickContests(own, results)


# --- GURPS: everyone ranked -------------------------------------------------------------------


def standing(result: gurps.SuccessRoll) -> tuple[bool, int]:
    """What ranks a success roll: success first, then the signed margin (as a quick contest
    judges a pair: docs/rules.md#quick-contest)."""
    return result.success, result.margin


@dataclass(frozen=True, slots=True)
class Placed:
    """A competitor's place (1 is first; equal results share a place, the next skipped)."""

    name: str
    place: int
    roll: gurps.SuccessRoll


def ranked(competitors: Sequence[tuple[str, int]], dice: Dice) -> tuple[Placed, ...]:
    """Everyone rolls once, in the order given; the ranking, best first (equal results keep
    the order given)."""
    rolled = [(name, gurps.success_roll(skill, dice, who=name)) for name, skill in competitors]
    order = sorted(range(len(rolled)), key=lambda index: standing(rolled[index][1]), reverse=True)
    placed: list[Placed] = []
    for position, index in enumerate(order):
        name, result = rolled[index]
        if placed and standing(placed[-1].roll) == standing(result):
            place = placed[-1].place
        else:
            place = position + 1
        placed.append(Placed(name, place, result))
    return tuple(placed)


# --- d20: one against many --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OpposedPair:
    """One opponent's opposed check against the one competitor: every pair of checks made
    (the first holds the competitor's shared d20; the last decided it)."""

    name: str
    modifier: int
    competitor_wins: bool
    attempts: tuple[tuple[CheckRoll, CheckRoll], ...]


@dataclass(frozen=True, slots=True)
class OpposedChecks:
    competitor: CheckRoll
    modifier: int
    results: tuple[OpposedPair, ...]

    @property
    def beaten(self) -> int:
        return sum(result.competitor_wins for result in self.results)


def opposed_checks(
    competitor: tuple[str, int], opponents: Sequence[tuple[str, int]], dice: Dice
) -> OpposedChecks:
    """`competitor` (name, modifier) rolls one d20; each opponent rolls its own and the pair is
    judged as an opposed check: the higher total wins, equal totals go to the higher modifier,
    equal modifiers as well and the pair rolls again (the competitor's reroll is that pair's
    own), at most `MAX_OPPOSED_REROLLS` times, after which the opponent (the defending side)
    wins."""
    name, modifier = competitor
    first = dice.d20(who=name, purpose=CHECK)
    own = CheckRoll(first, first + modifier)
    results = []
    for opponent, opponent_modifier in opponents:
        attempts: list[tuple[CheckRoll, CheckRoll]] = []
        ours = own
        wins = False
        for attempt in range(1 + MAX_OPPOSED_REROLLS):
            if attempt:
                roll = dice.d20(who=name, purpose=reroll_purpose(opponent))
                ours = CheckRoll(roll, roll + modifier)
            # The opponent's reroll is the pair's own too: each die has its own key.
            theirs_roll = dice.d20(who=opponent, purpose=reroll_purpose(name) if attempt else CHECK)
            theirs = CheckRoll(theirs_roll, theirs_roll + opponent_modifier)
            attempts.append((ours, theirs))
            if ours.total != theirs.total:
                wins = ours.total > theirs.total
                break
            if modifier != opponent_modifier:
                wins = modifier > opponent_modifier
                break
        results.append(OpposedPair(opponent, opponent_modifier, wins, tuple(attempts)))
    return OpposedChecks(own, modifier, tuple(results))


# --- d20: everyone ranked ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RankedCheck:
    """A competitor's place in a ranked check (1 is first; those still tied after every reroll
    share a place, the next skipped), its check, and the natural d20s of its rerolls."""

    name: str
    place: int
    modifier: int
    check: CheckRoll
    rerolls: tuple[int, ...]


def ranked_checks(
    competitors: Sequence[tuple[str, int]],
    dice: Dice,
    *,
    max_rerolls: int = MAX_OPPOSED_REROLLS,
) -> tuple[RankedCheck, ...]:
    """Everyone (name, modifier) rolls one d20, in the order given; ranked by total, then by
    modifier (docs/rules.md#opposed-checks); each group equal in both rolls again among
    themselves, best group first and in the order given, ranked within the group by the
    reroll, at most `max_rerolls` times, after which the group still tied shares its place.
    The ranking, best first (a shared place keeps the order given)."""
    modifiers = dict(competitors)
    checks: dict[str, CheckRoll] = {}
    for name, modifier in competitors:
        roll = dice.d20(who=name, purpose=CHECK)
        checks[name] = CheckRoll(roll, roll + modifier)
    rerolls: dict[str, list[int]] = {name: [] for name, _ in competitors}
    order = [name for name, _ in competitors]

    def tiers(names: list[str], key: Callable[[str], tuple[int, ...]]) -> list[list[str]]:
        """`names` in groups of equal `key`, the highest first (each in the order given)."""
        grouped: dict[tuple[int, ...], list[str]] = {}
        for name in names:
            grouped.setdefault(key(name), []).append(name)
        return [grouped[value] for value in sorted(grouped, reverse=True)]

    def settle(group: list[str], depth: int) -> list[list[str]]:
        """A group tied in total and modifier, broken by rerolls into its places."""
        if len(group) == 1 or depth == max_rerolls:
            return [group]
        for name in group:
            rerolls[name].append(dice.d20(who=name, purpose=REROLL))
        placed: list[list[str]] = []
        for tied in tiers(group, lambda name: (rerolls[name][depth],)):
            placed.extend(settle(tied, depth + 1))
        return placed

    ranking: list[RankedCheck] = []
    for group in tiers(order, lambda name: (checks[name].total, modifiers[name])):
        for shared in settle(group, 0):
            place = len(ranking) + 1
            ranking.extend(
                RankedCheck(name, place, modifiers[name], checks[name], tuple(rerolls[name]))
                for name in shared
            )
    return tuple(ranking)


# --- summaries --------------------------------------------------------------------------------


def _outcomes(
    beaten: list[str], lost: list[str], tied: list[str], of: int, *, each_part: bool
) -> Listing:
    """`beats 2 of 3 (Bob, Cid); loses to Dee; ties with Eve`."""
    parts: list[Message] = []
    if beaten:
        parts.append(
            m(
                "beats {count} of {of} ({names})",
                count=len(beaten),
                of=of,
                names=Listing(beaten),
            )
        )
    else:
        parts.append(m("beats {count} of {of}", count=0, of=of))
    if lost:
        parts.append(m("loses to {names}", names=Listing(lost)))
    if tied and each_part:
        parts.append(m("ties with {names}", names=Listing(tied)))
    return Listing(parts, "; ")


def quick_contests_message(name: str, contests: QuickContests) -> Message:
    """`Ann (skill 12) rolled 9, made it by 3: beats 2 of 3 (Bob, Cid); loses to Dee.`"""
    own = gurps.describe_roll(name, contests.competitor)
    beaten = [r.name for r in contests.results if r.winner == "competitor"]
    lost = [r.name for r in contests.results if r.winner == "opponent"]
    tied = [r.name for r in contests.results if r.winner is None]
    outcomes = _outcomes(beaten, lost, tied, len(contests.results), each_part=True)
    return m("{roll}: {outcomes}.", roll=own, outcomes=outcomes)


def quick_contests_summary(name: str, contests: QuickContests) -> str:
    """`quick_contests_message` in English."""
    return english(quick_contests_message(name, contests))


def ranked_message(placed: Sequence[Placed]) -> Message:
    """`1. Ann (skill 12) rolled 9, made it by 3; 2. Bob (skill 10) rolled 11, missed by 1.`"""
    entries = [
        m("{place}. {roll}", place=p.place, roll=gurps.describe_roll(p.name, p.roll))
        for p in placed
    ]
    return m("{entries}.", entries=Listing(entries, "; "))


def ranked_summary(placed: Sequence[Placed]) -> str:
    """`ranked_message` in English."""
    return english(ranked_message(placed))


def opposed_checks_message(name: str, checks: OpposedChecks) -> Message:
    """`Ann (d20 14 + 3 = 17) beats 2 of 3 (Bob, Cid); loses to Dee.`"""
    beaten = [r.name for r in checks.results if r.competitor_wins]
    lost = [r.name for r in checks.results if not r.competitor_wins]
    return m(
        "{name} (d20 {roll} {modifier} = {total}) {outcomes}.",
        name=name,
        roll=checks.competitor.roll,
        modifier=_signed(checks.modifier),
        total=checks.competitor.total,
        outcomes=_outcomes(beaten, lost, [], len(checks.results), each_part=False),
    )


def opposed_checks_summary(name: str, checks: OpposedChecks) -> str:
    """`opposed_checks_message` in English."""
    return english(opposed_checks_message(name, checks))


def ranked_checks_message(ranking: Sequence[RankedCheck]) -> Message:
    """`1. Cid (d20 15 + 7 = 22); 2. Ann (d20 14 + 3 = 17, rerolls 12); 2. Bob (…).`"""
    parts: list[Message] = []
    for entry in ranking:
        check = entry.check
        rolled: dict[str, Argument] = {
            "place": entry.place,
            "name": entry.name,
            "roll": check.roll,
            "modifier": _signed(entry.modifier),
            "total": check.total,
        }
        if entry.rerolls:
            parts.append(
                m(
                    "{place}. {name} (d20 {roll} {modifier} = {total}, rerolls {rerolls})",
                    **rolled,
                    rerolls=Listing(entry.rerolls, " "),
                )
            )
        else:
            parts.append(m("{place}. {name} (d20 {roll} {modifier} = {total})", **rolled))
    return m("{entries}.", entries=Listing(parts, "; "))


def ranked_checks_summary(ranking: Sequence[RankedCheck]) -> str:
    """`ranked_checks_message` in English."""
    return english(ranked_checks_message(ranking))


def _signed(modifier: int) -> str:
    return f"+ {modifier}" if modifier >= 0 else f"- {-modifier}"
