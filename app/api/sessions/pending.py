"""A round that waits for the players' dice (docs/api.md#rounds-that-wait-for-the-players-dice):
its stored shape and what is shown of it.

The GM opens it (`POST …/rounds` with `"collect": true`); it is kept in the session's stored
state under `collecting`, beside the rules' state (which never sees it):
`{"number", "deadline", "inputs", "needed", "owes", "dice": {name: {purpose: value}}, "from":
{name: "seat" | "gm" | "roll-for-me"}, "given": {name: "seat" | "gm"}}` — `inputs` the round body
the GM sent, without its dice; `owes` what each seat owes this round, worked out from the
session's state when the round opened (docs/api.md#rounds-that-wait-for-the-players-dice: the
dice surely rolled, and the conditional ones, which a seat may send too and the server rolls
when it does not); `from` who answered for each name that is done (its seat, having sent every
die it surely rolls; the GM, giving its dice or rolling for it; or the seat asking the server
to roll for it); `given` who gave the dice held for a name. What is shown of it (the session's
`pending`, every answer and live event about it) is its number, who it waits for, what each
seat owes and its deadline: never a die before the round plays.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal, NotRequired

from fastapi import FastAPI
from pydantic import WithJsonSchema, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import ANSWER
from app.rules.dice import Key, Need
from app.rules.messages import Listing, Message, m
from app.store import repository
from app.store.repository import SessionRecord

#: The stored state's key of the round waiting for dice.
COLLECTING = "collecting"
#: Who answered for a name in a collected round: its seat (its dice), the GM (its dice, or
#: rolling for it), the server once the deadline passed, or the server at the seat's own
#: asking ("roll for me").
DiceFrom = Literal["seat", "gm", "deadline", "roll-for-me"]
#: Fields of a round body that open a collected round rather than play one.
OPENING = frozenset({"collect", "deadline_seconds"})


@with_config(ANSWER)
class OwedDie(TypedDict):
    """Dice a seat owes in the round waiting for them: a purpose of its dice (as a round
    body's `rolls` names it), the die's `sides` (a dice expression's: its `notation`
    instead, whose `most` counts rolls), how many values it surely rolls (`certain`, owed
    before the seat is done) and how many it may roll at most (`most`, null: no bound), and
    for a conditional die when it is rolled. A seat may send its conditional dice with its
    sure ones; those it does not send the server rolls if the round needs them. A round
    opened before `sides` was told has none."""

    purpose: str
    sides: NotRequired[int]
    notation: NotRequired[str]
    certain: int
    most: int | None
    when: str | None


@with_config(ANSWER)
class PendingRound(TypedDict):
    """A round waiting for the seats' dice: its number, who it still waits for, what each
    seat owes (`owes`, by name), and the moment the server rolls the dice still missing."""

    number: int
    waiting_for: list[str]
    deadline: Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]
    owes: NotRequired[dict[str, list[OwedDie]]]
    #: The whole seconds left before the deadline as the service answers (`GET` a session).
    seconds_left: NotRequired[int]


def clock(app: FastAPI) -> datetime:
    """Now, as the app tells time: `app.state.clock` when set (a test's), else the system's."""
    told = getattr(app.state, "clock", None)
    moment: datetime = told() if told is not None else repository.now()
    return moment


def collecting(record: SessionRecord) -> dict[str, Any] | None:
    """The round waiting for dice in `record`, or None."""
    found: dict[str, Any] | None = record.state.get(COLLECTING)
    return found


def opened(
    number: int,
    names: Iterable[str],
    inputs: Mapping[str, Any],
    deadline: datetime,
    needs: Mapping[Key, Need] | None = None,
) -> dict[str, Any]:
    """A round `number` waiting for dice from `names`, to play with `inputs` by `deadline`;
    what each owes from `needs` (the kind's, for the round: None, every name owes nothing
    listed and is done with its first dice)."""
    seated = list(names)
    owes: dict[str, list[OwedDie]] = {name: [] for name in seated}
    for (who, purpose), need in (needs or {}).items():
        if who in owes:
            owed: OwedDie = {
                "purpose": purpose,
                "certain": need.certain,
                "most": need.most if need.notation is None else None,
                "when": None if need.certain else need.when,
            }
            if need.notation is None:
                owed["sides"] = need.sides
            else:
                owed["notation"] = need.notation
            owes[who].append(owed)
    return {
        "number": number,
        "deadline": deadline.astimezone(UTC).isoformat(),
        "inputs": {key: value for key, value in inputs.items() if key not in OPENING | {"rolls"}},
        "needed": seated,
        "owes": owes,
        "dice": {},
        "from": {},
        "given": {},
    }


def seconds_left(pending: Mapping[str, Any], now: datetime) -> int:
    """The whole seconds from `now` to the deadline of a round waiting for dice (0 once due)."""
    return max(0, math.ceil((deadline_of(pending) - now).total_seconds()))


def deadline_in(now: datetime, seconds: int) -> datetime:
    return now + timedelta(seconds=seconds)


def deadline_of(pending: Mapping[str, Any]) -> datetime:
    return datetime.fromisoformat(pending["deadline"])


def waiting_for(pending: Mapping[str, Any]) -> list[str]:
    """The names whose dice the round still waits for, in the contest's order."""
    given = pending["from"]
    return [name for name in pending["needed"] if name not in given]


def due(record: SessionRecord, now: datetime) -> bool:
    """Whether `record` has a round waiting for dice past its deadline."""
    pending = collecting(record)
    return pending is not None and deadline_of(pending) <= now


def given(
    pending: Mapping[str, Any], name: str, dice: Mapping[str, Any] | None, by: DiceFrom
) -> dict[str, Any]:
    """`pending` with `name` answered for by `by` (`dice` None: the server rolls them): a
    seat's dice are added to any it sent before, and it is done once it has sent every die it
    surely rolls (`owes`); the GM's dice replace them; a roll-for (the GM's, or the seat's
    "roll for me") keeps any dice the seat sent, the rest the server's when the round needs
    them."""
    held = dict(pending["dice"])
    who_gave = dict(pending.get("given") or {})
    answered = dict(pending["from"])
    if by == "seat":
        held[name] = {**held.get(name, {}), **(dice or {})}
        who_gave[name] = "seat"
        if owed_missing(pending, name, held[name]):
            return {**pending, "dice": held, "given": who_gave}
    elif dice:
        held[name] = dict(dice)
        who_gave[name] = "gm"
    # Else the server rolls for it ("roll for me", the GM's roll-for, the deadline): any dice
    # the seat sent stay its own and are played; the server rolls the rest.
    answered[name] = by
    return {**pending, "dice": held, "from": answered, "given": who_gave}


def owed_missing(pending: Mapping[str, Any], name: str, dice: Mapping[str, Any]) -> list[str]:
    """The purposes `name` surely rolls this round that `dice` does not hold yet."""
    owes: Mapping[str, list[Mapping[str, Any]]] = pending.get("owes") or {}
    return [
        owed["purpose"]
        for owed in owes.get(name, [])
        if owed["certain"] and owed["purpose"] not in dice
    ]


def shown(pending: Mapping[str, Any]) -> PendingRound:
    """What anyone is shown of a round waiting for dice: never its dice."""
    answer: PendingRound = {
        "number": pending["number"],
        "waiting_for": waiting_for(pending),
        "deadline": pending["deadline"],
    }
    owes = pending.get("owes")
    if owes is not None:
        answer["owes"] = {name: list(dice) for name, dice in owes.items()}
    return answer


def summary(pending: Mapping[str, Any]) -> Message:
    """The one line of a round waiting for dice (docs/languages.md)."""
    return m(
        "Round {number} waits for dice from {names} (until {deadline}).",
        number=pending["number"],
        names=Listing(waiting_for(pending)),
        deadline=str(pending["deadline"]),
    )
