"""Rounds that wait for the players' dice (docs/api.md#rounds-that-wait-for-the-players-dice):
the seats' dice, the GM rolling for a seat, and the GM cancelling the round.

The GM opens such a round with `POST …/rounds` and `"collect": true`
(app/api/sessions/lifecycle.py); these routes give it its dice. Each is a change through `mutate`,
with its guarantees (If-Match, Idempotency-Key, a live event), and a round waiting past its deadline
plays before any call touches its session (`lifecycle.settle`). What a round waits for is shown
(who), never what a seat rolled, until the round plays (app/api/sessions/pending.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import Field, create_model
from starlette.responses import Response

from app.api.common import message_doc
from app.api.kinds import RoundKind, load_session
from app.api.routing import DeferredBody, declare_body
from app.api.schemas.common import Name, Strict
from app.api.sessions import pending
from app.api.sessions.lifecycle import (
    AnyRoundKind,
    Change,
    bound,
    collecting_of,
    gm_only,
    kind_router,
    mutate,
    play_collected,
    require_active,
    round_inputs,
    round_supply,
    schema_prefix,
    waiting_change,
)
from app.api.sessions.presentation import AnswerTypes, session_answer
from app.api.sessions.security import Role
from app.errors import Conflict, Forbidden
from app.rules.errors import RulesError
from app.rules.messages import N_, m
from app.store.repository import SessionRecord


class RollFor(Strict):
    """The seats to roll for: the server's dice. The GM's token names any seat the round waits
    for (recorded as the GM's, `dice_from` "gm"); a seat's token only its own, its "roll for
    me" (`dice_from` "roll-for-me": any dice it sent are kept, the server rolls the rest)."""

    names: Annotated[list[Name], Field(min_length=1, max_length=64)]


@cache
def dice_model(kind: AnyRoundKind) -> type[Strict]:
    """The body of `POST …/rounds/pending/dice`: dice as a round body carries them."""
    rolls: Any = Annotated[dict[Name, kind.dice_model], Field(min_length=1)]  # type: ignore[name-defined]
    made: type[Strict] = create_model(
        f"{schema_prefix(kind)}SeatDice",
        __base__=Strict,
        __doc__="One competitor's dice for the round waiting for them, as a round body's "
        "`rolls` carries them (a seat's token: only its own competitor's).",
        rolls=(rolls, ...),
    )
    return made


def _seat_or_gm(body: DeferredBody[Any]) -> Callable[[Role, SessionRecord], None]:
    """The GM's token, or the seat of every competitor the dice are for."""

    def authorize(role: Role, _record: SessionRecord) -> None:
        if role.is_gm:
            return
        if role.kind != "seat":
            raise Forbidden(N_("only a seat's token or the GM's may give a seat's dice"))
        for name in body.value.rolls:
            if name != role.seat:
                raise Forbidden(
                    m(
                        "this seat's token gives {seat}'s dice, not {name}'s",
                        seat=str(role.seat),
                        name=name,
                    )
                )

    return authorize


async def give_dice(
    kind: AnyRoundKind, request: Request, session_id: str, body: DeferredBody[Any]
) -> Response:
    """A seat's dice for the round waiting for them (its seat's token, or the GM's): 202 while
    others are missing; the last ones play the round (200)."""

    def mutation(record: SessionRecord, role: Role) -> Change[Any]:
        require_active(record)
        waiting = collecting_of(record)
        rolls = {
            name: dice.model_dump(exclude_none=True) for name, dice in body.value.rolls.items()
        }
        for name in rolls:
            if name not in waiting["needed"]:
                raise RulesError(
                    m("{name} has no seat in this round", name=repr(name)), ("rolls", name)
                )
            if not role.is_gm and waiting["from"].get(name) == "gm":
                raise Conflict(m("the GM has rolled for {name} in this round", name=name))
        for name, dice in rolls.items():
            waiting = pending.given(waiting, name, dice, "gm" if role.is_gm else "seat")
        # The dice now held for these names (a seat's added to those it sent before), checked
        # against what the round may take (never against a die: none is read yet), so that
        # the dice held always play, at the deadline too.
        config, state = load_session(kind, record.config, record.state, record.id)
        held = {name: waiting["dice"].get(name, {}) for name in rolls}
        round_supply(kind, config, state, round_inputs(kind, waiting), set(waiting["needed"]), held)
        return _after(kind, record, waiting, names=list(rolls))

    return await mutate(request, kind, session_id, mutation, authorize=_seat_or_gm(body), body=body)


async def roll_for(
    kind: AnyRoundKind, request: Request, session_id: str, body: DeferredBody[Any]
) -> Response:
    """Roll the server's dice for the named seats of the round waiting for dice (the GM's
    token, or a seat's for itself: "roll for me")."""

    def mutation(record: SessionRecord, role: Role) -> Change[Any]:
        require_active(record)
        waiting = collecting_of(record)
        missing = pending.waiting_for(waiting)
        for index, name in enumerate(body.value.names):
            if name not in missing:
                raise RulesError(
                    m("the round waits for no dice from {name}", name=repr(name)),
                    ("names", index),
                )
        for name in body.value.names:
            # The server rolls the dice the seat has not sent (any it sent are played).
            waiting = pending.given(waiting, name, None, "gm" if role.is_gm else "roll-for-me")
        return _after(kind, record, waiting, names=list(body.value.names))

    return await mutate(
        request, kind, session_id, mutation, authorize=_gm_or_own_seat(body), body=body
    )


def _gm_or_own_seat(body: DeferredBody[Any]) -> Callable[[Role, SessionRecord], None]:
    """The GM's token, or a seat's naming only its own competitor (its "roll for me")."""

    def authorize(role: Role, _record: SessionRecord) -> None:
        if role.is_gm:
            return
        if role.kind != "seat":
            raise Forbidden(N_("only the GM's token, or a seat's for itself, may roll for a seat"))
        for name in body.value.names:
            if name != role.seat:
                raise Forbidden(
                    m(
                        "this seat's token rolls for {seat}, not for {name}",
                        seat=str(role.seat),
                        name=name,
                    )
                )

    return authorize


def _after(
    kind: AnyRoundKind, record: SessionRecord, waiting: dict[str, Any], *, names: list[str]
) -> Change[Any]:
    """The round played once no dice are missing, else 202 and a `dice-in` event."""
    if not pending.waiting_for(waiting):
        return play_collected(kind, record, waiting)
    said: dict[str, Any] = {"name": names[0]} if len(names) == 1 else {"names": names}
    return waiting_change(kind, record, waiting, "dice-in", **said)


async def cancel(kind: AnyRoundKind, request: Request, session_id: str) -> Response:
    """Cancel the round waiting for dice (GM token): the dice given are dropped, unseen."""

    def mutation(record: SessionRecord, _role: Role) -> Change[Any]:
        collecting_of(record)
        _config, state = load_session(kind, record.config, record.state, record.id)
        return Change(
            state,
            "active",
            None,
            answer=lambda updated: (200, {"session": session_answer(kind, updated, state)}),
            event="pending-cancelled",
        )

    return await mutate(request, kind, session_id, mutation, authorize=gm_only)


@cache
def router(kind: AnyRoundKind) -> APIRouter:
    """The routes of a round kind's rounds that wait for dice."""
    routes = kind_router(kind)
    prefix = schema_prefix(kind)
    answer = AnswerTypes.of(prefix, kind.schemas.session, kind.schemas.round)
    example = dict(kind.examples.round or {}).get("rolls") or {}
    first = next(iter(example), "Lydia")
    routes.add_api_route(
        "/{session_id}/rounds/pending/dice",
        declare_body(
            bound(give_dice, kind),
            dice_model(kind),
            {"dice": {"rolls": {first: example.get(first, {})}}},
        ),
        methods=["POST"],
        operation_id=f"give{prefix}Dice",
        name=f"give{prefix}Dice",
        status_code=200,
        responses={**message_doc(model=answer.round), 202: {"model": answer.waiting}},
        summary="Give a seat's dice to the round waiting for them",
    )
    routes.add_api_route(
        "/{session_id}/rounds/pending/roll-for",
        declare_body(bound(roll_for, kind), RollFor, {"roll for": {"names": [first]}}),
        methods=["POST"],
        operation_id=f"rollFor{prefix}Seats",
        name=f"rollFor{prefix}Seats",
        responses={**message_doc(model=answer.round), 202: {"model": answer.waiting}},
        summary="Roll the server's dice for seats of the round waiting for dice",
    )
    routes.add_api_route(
        "/{session_id}/rounds/pending",
        bound(cancel, kind),
        methods=["DELETE"],
        operation_id=f"cancel{prefix}PendingRound",
        name=f"cancel{prefix}PendingRound",
        responses=message_doc(model=answer.changed),
        summary="Cancel the round waiting for dice",
    )
    return routes


def routers(kinds: Any) -> list[APIRouter]:
    """The routers of every round kind among `kinds` (a kind's path to the kind)."""
    return [router(kind) for kind in kinds.values() if isinstance(kind, RoundKind)]
