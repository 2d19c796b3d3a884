"""A round that waits for the players' dice (docs/api.md#rounds-that-wait-for-the-players-dice):
its stored shape and what is shown of it.

The GM opens it (`POST …/rounds` with `"collect": true`); it is kept in the session's stored
state under `collecting`, beside the rules' state (which never sees it):
`{"number", "deadline", "inputs", "needed", "dice": {name: {purpose: value}}, "from": {name:
"seat" | "gm"}}` — `inputs` the round body the GM sent, without its dice, and `from` who gave
each name's dice (the seat itself, or the GM rolling for it). What is shown of it (the
session's `pending`, every answer and live event about it) is its number, who it waits for and
its deadline: never a die before the round plays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import FastAPI
from pydantic import WithJsonSchema, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import ANSWER
from app.store import repository
from app.store.repository import SessionRecord

#: The stored state's key of the round waiting for dice.
COLLECTING = "collecting"
#: Who gave a name's dice in a collected round: its seat, the GM rolling for it, or the
#: server once the deadline passed.
DiceFrom = Literal["seat", "gm", "deadline"]
#: Fields of a round body that open a collected round rather than play one.
OPENING = frozenset({"collect", "deadline_seconds"})


@with_config(ANSWER)
class PendingRound(TypedDict):
    """A round waiting for the seats' dice: its number, who it still waits for, and the
    moment the server rolls the dice still missing."""

    number: int
    waiting_for: list[str]
    deadline: Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]


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
    number: int, names: Iterable[str], inputs: Mapping[str, Any], deadline: datetime
) -> dict[str, Any]:
    """A round `number` waiting for dice from `names`, to play with `inputs` by `deadline`."""
    return {
        "number": number,
        "deadline": deadline.astimezone(UTC).isoformat(),
        "inputs": {key: value for key, value in inputs.items() if key not in OPENING | {"rolls"}},
        "needed": list(names),
        "dice": {},
        "from": {},
    }


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
    """`pending` with `name`'s dice given by `by` (`dice` None: the server rolls them)."""
    held = dict(pending["dice"])
    if dice:
        held[name] = dict(dice)
    else:
        held.pop(name, None)
    return {**pending, "dice": held, "from": {**pending["from"], name: by}}


def shown(pending: Mapping[str, Any]) -> PendingRound:
    """What anyone is shown of a round waiting for dice: never its dice."""
    return {
        "number": pending["number"],
        "waiting_for": waiting_for(pending),
        "deadline": pending["deadline"],
    }


def summary(pending: Mapping[str, Any]) -> str:
    waiting = waiting_for(pending)
    return (
        f"Round {pending['number']} waits for dice from {', '.join(waiting)} "
        f"(until {pending['deadline']})."
    )
