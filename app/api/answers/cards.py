"""Rounds as cards: one description of a round per kind, built when the service answers.

A kind's `round_card(config, record)` reads a round's JSON record (as the reader's token is
shown it) and gives a `RoundCard`: who rolled which dice, with what modifier and total,
against what (an opponent, a DC, a skill), by what margin, what it changed (DS, lead,
progress, tokens) and who gave each die. The card is data, so that the table page, the
Discord markdown and the Foundry module word it in their own language; its `text` is one
English line of it. It is added to an answer's round records (`with_cards`) and never stored
or chained: the stored record stays what the rules made.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.api.schemas.common import CardAgainst, CardChange, CardDie, CardSource, RoundCard

#: A round record's roll entries, each taken once, by (who, purpose).
Queue = dict[tuple[str | None, str], deque[Mapping[str, Any]]]


class Rolls:
    """A round record's `rolls`, each entry taken once by the card's check that used it; the
    entries no check took are the card's other dice (damage, an obstacle's dice, ...)."""

    def __init__(self, record: Mapping[str, Any]) -> None:
        self.record = record
        self.queue: Queue = defaultdict(deque)
        self.order: list[Mapping[str, Any]] = []
        for entry in record.get("rolls") or ():
            if isinstance(entry, Mapping):
                self.queue[(entry.get("who"), str(entry.get("purpose", "")))].append(entry)
                self.order.append(entry)
        self.taken: set[int] = set()

    def take(self, who: str | None, purpose: str) -> Mapping[str, Any] | None:
        found = self.queue.get((who, purpose))
        if not found:
            return None
        entry = found.popleft()
        self.taken.add(id(entry))
        return entry

    def check(
        self,
        who: str | None,
        purpose: str,
        *,
        roll: int | Sequence[int] | None,
        total: int | None,
        against: CardAgainst | None = None,
        margin: int | None = None,
        success: bool | None = None,
        modifier: int | None = None,
        dice: str = "1d20",
    ) -> CardDie:
        """A check's line: its die from the record when there is one (else its roll as the
        record of the check gives it), its modifier the total less the dice."""
        entry = self.take(who, purpose)
        values: list[int]
        if entry is not None:
            values = [int(value) for value in entry.get("values", ())]
            dice = str(entry.get("dice", dice))
        elif isinstance(roll, int):
            values = [roll]
        else:
            values = [int(value) for value in roll or ()]
        if modifier is None and total is not None and len(values) == 1:
            modifier = total - values[0]
        return {
            "name": who,
            "purpose": purpose,
            "dice": dice,
            "values": values,
            "modifier": modifier,
            "total": total,
            "against": against,
            "margin": margin,
            "success": success,
            "source": source_of(self.record, entry),
        }

    def rest(self) -> list[CardDie]:
        """The dice no check took, as lines of their own (no total)."""
        return [
            {
                "name": entry.get("who"),
                "purpose": str(entry.get("purpose", "")),
                "dice": str(entry.get("dice", "")),
                "values": [int(value) for value in entry.get("values", ())],
                "modifier": None,
                "total": None,
                "against": None,
                "margin": None,
                "success": None,
                "source": source_of(self.record, entry),
            }
            for entry in self.order
            if id(entry) not in self.taken
        ]


def source_of(record: Mapping[str, Any], entry: Mapping[str, Any] | None) -> CardSource:
    """Who gave a die: a supplied die's `by` (verifiable dice) or the round's `dice_from`
    for its competitor; a rolled die is the server's (at the deadline, or at the seat's
    asking, when the round says so)."""
    if entry is None:
        return "server"
    answered = (record.get("dice_from") or {}).get(entry.get("who"))
    if entry.get("source") != "supplied":
        return answered if answered in ("deadline", "roll-for-me") else "server"
    by = entry.get("by")
    if isinstance(by, str):
        role = by.split(":", 1)[0]
        if role in ("gm", "seat", "party"):
            return role  # type: ignore[return-value]  # one of the three, checked
    if answered in ("seat", "gm"):
        return answered  # type: ignore[no-any-return]
    return "entered"


#: The dice purpose of each kind of race or chase check (app/rules/races.py).
CHECK_PURPOSES = {
    "increment": "check",
    "retry": "obstacle",
    "obstacle": "obstacle",
    "hazard": "obstacle",
    "constitution": "constitution",
    "ride": "ride",
}


def increment_checks(rolls: Rolls, name: str, checks: Sequence[Mapping[str, Any]]) -> list[CardDie]:
    """A racer's (or a chase side's) checks in one increment, each against its DC if any."""
    lines: list[CardDie] = []
    for check in checks:
        dc = check.get("dc")
        total = int(check["total"])
        lines.append(
            rolls.check(
                name,
                CHECK_PURPOSES.get(str(check.get("kind")), str(check.get("kind"))),
                roll=check.get("roll"),
                total=total,
                against=None if dc is None else {"dc": int(dc)},
                margin=None if dc is None else total - int(dc),
                success=check.get("success"),
            )
        )
    return lines


def card(
    record: Mapping[str, Any],
    dice: list[CardDie],
    changes: list[CardChange],
    *,
    winner: str | None,
    text: str,
) -> RoundCard:
    return {
        "number": int(record.get("number", 0)),
        "dice": dice,
        "changes": changes,
        "winner": winner,
        "finished": bool(record.get("finished", False)),
        "text": text,
    }


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"-{-value}"


def die_text(die: CardDie) -> str:
    """`Lydia 1d20+2 = 15`, `Ines 3d6 = 9 (skill 13)`, `Ann increment 1d20+10 = 25 vs DC 15`."""
    name = f"{die['name']} " if die["name"] else ""
    modifier = die["modifier"]
    shown = die["dice"]
    if modifier:
        shown += f"{modifier:+d}"
    if die["total"] is None:
        values = ", ".join(map(str, die["values"]))
        return f"{name}{die['purpose']} {die['dice']}: {values}"
    line = f"{name}{shown} = {die['total']}"
    against = die["against"] or {}
    if "dc" in against:
        line += f" vs DC {against['dc']}"
    if "skill" in against:
        line += f" vs skill {against['skill']}"
    return line


def change_text(change: CardChange) -> str:
    label = {"ds": "DS", "lead": "lead", "progress": "progress", "tokens": "tokens"}[change["kind"]]
    if change["delta"] is None:
        return f"{change['name']} {label} {change['to']}"
    return f"{change['name']} {signed(change['delta'])} ({label} {change['to']})"


def with_cards(
    answer: Mapping[str, Any],
    round_card: Callable[[Mapping[str, Any]], RoundCard | None],
) -> dict[str, Any]:
    """`answer` with the cards of its round record (`round`) and of each of its `rounds`: new
    dicts, the records it was given left as they were (they may be the stored ones)."""
    shown = dict(answer)
    played = shown.get("round")
    if isinstance(played, Mapping) and "rolls" in played:
        shown["round"] = carded(played, round_card)
    rounds = shown.get("rounds")
    if isinstance(rounds, list):
        shown["rounds"] = [
            carded(item, round_card) if isinstance(item, Mapping) else item for item in rounds
        ]
    return shown


def carded(
    record: Mapping[str, Any], round_card: Callable[[Mapping[str, Any]], RoundCard | None]
) -> dict[str, Any]:
    made = round_card(record)
    shown = dict(record)
    if made is not None:
        shown["cards"] = [made]
    return shown
