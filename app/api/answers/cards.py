"""Rounds as cards: one description of a round per kind, built when the service answers.

A kind's `round_card(config, record)` reads a round's JSON record (as the reader's token is
shown it) and gives a `RoundCard`: who rolled which dice, with what modifier and total,
against what (an opponent, a DC, a skill), by what margin, what it changed (DS, lead,
progress, tokens) and who gave each die. The card is data and words: its `text` (the round
as one line), each die's `text` and `note` and each change's `text` are messages
(app/rules/messages.py) rendered in the request's language (app/api/i18n.py), so that the
table page, the Discord markdown and the Foundry module show one card, worded once. It is
added to an answer's round records (`with_cards`) and never stored or chained: the stored
record stays what the rules made.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from app.api import i18n
from app.api.schemas.common import CardAgainst, CardChange, CardDie, CardSource, RoundCard
from app.rules.messages import N_, Argument, Listing, Message, Signed, m, ng, term

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
        return worded(
            {
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
                "text": "",
                "note": "",
            }
        )

    def rest(self) -> list[CardDie]:
        """The dice no check took, as lines of their own (no total)."""
        return [
            worded(
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
                    "text": "",
                    "note": "",
                }
            )
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
    text: Message,
) -> RoundCard:
    """The card, its one line (`text`) in the request's language."""
    return {
        "number": int(record.get("number", 0)),
        "dice": dice,
        "changes": changes,
        "winner": winner,
        "finished": bool(record.get("finished", False)),
        "text": i18n.said(text),
    }


#: A die's purpose as a card names it: the words of the rules (translated); a purpose not
#: listed (a skill, a race's own check) is the caller's word and stays as written.
PURPOSE_WORDS: dict[str, str] = {
    "constitution": N_("constitution"),
    "obstacle": N_("obstacle"),
    "ride": N_("ride"),
    "damage": N_("damage"),
    "initiative": N_("initiative"),
    "hide": N_("hide"),
    "spot": N_("spot"),
    "dexterity": N_("dexterity"),
    "hazard": N_("hazard"),
    "order": N_("order"),
    "critical": N_("critical"),
    "reroll": N_("reroll"),
}
#: The purposes a check's line need not name: each kind's own check (its dice say which).
PLAIN_PURPOSES = frozenset({"strength", "check", "success"})

#: Who gave a die, as a card's note says it.
SOURCE_WORDS: dict[CardSource, str] = {
    "server": N_("rolled by the server"),
    "deadline": N_("rolled by the server at the deadline"),
    "roll-for-me": N_("rolled by the server, as the seat asked"),
    "gm": N_("entered by the GM"),
    "seat": N_("entered by their seat"),
    "party": N_("entered by the party"),
    "entered": N_("entered"),
}


def purpose_word(purpose: str) -> Message | str:
    word = PURPOSE_WORDS.get(purpose)
    return purpose if word is None else term(word)


def die_message(die: CardDie, *, opponent: bool = True) -> Message:
    """`Lydia 1d20+2 = 19 vs Ogre 14`, `Ines 3d6 = 12 vs skill 13`, `Ann constitution 1d20+1
    = 13 vs DC 15`, `Ogre damage 1d6: 4`; `opponent=False` leaves an opponent's total out (a
    line that names both checks)."""
    name = die["name"]
    total = die["total"]
    if total is None:
        values = Listing(list(die["values"]))
        word = purpose_word(die["purpose"])
        if name:
            return m(
                "{name} {purpose} {dice}: {values}",
                name=name,
                purpose=word,
                dice=die["dice"],
                values=values,
            )
        return m("{purpose} {dice}: {values}", purpose=word, dice=die["dice"], values=values)
    shown = die["dice"]
    if die["modifier"]:
        shown += f"{die['modifier']:+d}"
    who: Argument = name or ""
    if die["purpose"] not in PLAIN_PURPOSES:
        word = purpose_word(die["purpose"])
        who = m("{name} {purpose}", name=name, purpose=word) if name else word
    if who:
        check = m("{name} {dice} = {total}", name=who, dice=shown, total=total)
    else:
        check = m("{dice} = {total}", dice=shown, total=total)
    against = die["against"] or {}
    if "dc" in against:
        return m("{check} vs DC {dc}", check=check, dc=against["dc"])
    if "skill" in against:
        return m("{check} vs skill {skill}", check=check, skill=against["skill"])
    if opponent and "name" in against and "total" in against:
        return m(
            "{check} vs {name} {total}", check=check, name=against["name"], total=against["total"]
        )
    return check


def note_message(die: CardDie) -> Message:
    """`margin +5, success, entered by the GM`: what a die's line adds to its check."""
    parts: list[Message] = []
    if die["margin"] is not None:
        parts.append(m("margin {margin}", margin=Signed(die["margin"])))
    if die["success"] is True:
        parts.append(term(N_("succeeded")))
    elif die["success"] is False:
        parts.append(term(N_("failed")))
    parts.append(term(SOURCE_WORDS[die["source"]]))
    return Message("{parts}", {"parts": Listing(parts)})


def worded(die: CardDie) -> CardDie:
    """`die` with its `text` and `note` in the request's language."""
    die["text"] = i18n.said(die_message(die))
    die["note"] = i18n.said(note_message(die))
    return die


def change_message(name: str, kind: str, delta: int | None, to: int) -> Message:
    """`Lydia +5 (DS 5)`, `Ralf -3 (lead 9)`, `Heroes progress +1 (now 3)`, `Heroes earned 2
    tokens (holds 1)`."""
    if delta is None:
        if kind == "ds":
            return m("{name} (DS {to})", name=name, to=to)
        if kind == "lead":
            return m("{name} (lead {to})", name=name, to=to)
        if kind == "progress":
            return m("{name} (progress {to})", name=name, to=to)
        return m("{name} (tokens {to})", name=name, to=to)
    moved = Signed(delta)
    if kind == "ds":
        return m("{name} {delta} (DS {to})", name=name, delta=moved, to=to)
    if kind == "lead":
        return m("{name} {delta} (lead {to})", name=name, delta=moved, to=to)
    if kind == "progress":
        return m("{name} progress {delta} (now {to})", name=name, delta=moved, to=to)
    return ng(
        "{name} earned {count} token (holds {to})",
        "{name} earned {count} tokens (holds {to})",
        delta,
        name=name,
        to=to,
    )


def change(
    name: str, kind: Literal["ds", "lead", "progress", "tokens"], delta: int | None, to: int
) -> CardChange:
    """What a round changed, with its words in the request's language."""
    return {
        "name": name,
        "kind": kind,
        "delta": delta,
        "to": to,
        "text": i18n.said(change_message(name, kind, delta, to)),
    }


def leads_to(checks: Argument, outcome: Argument) -> Message:
    """`{checks} → {outcome}`: a round's checks, then what came of them."""
    return m("{checks} → {outcome}", checks=checks, outcome=outcome)


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
