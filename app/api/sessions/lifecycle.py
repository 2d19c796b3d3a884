"""Long-running contests: the lifecycle every kind shares (docs/api.md#sessions).

Its endpoints are the functions below, each taking the kind it serves first; `router(kind)`
binds them to one kind: create / get / rounds / events / delete for every kind, play a round
and resolve for a `RoundKind`, odds from here for a kind with `odds`, odds at a choice for a
kind with `choices`, then the kind's own routes. Every change, the kinds' own included, goes
through `mutate`, which gives it the same guarantees:

* one write transaction per request (see app/store/database.py), the body read before it —
  but for a round waiting for the seats' dice past its deadline, which the request finds and
  plays first in a transaction of its own (`settle`: a change of its own, at the deadline;
  the deadline sweeper, app/api/sessions/deadlines.py, plays such rounds the same way when no call
  comes);
* tokens checked in constant time: no token 401, a token of no role in this session 404,
  a role that may not do this 403;
* `If-Match` against the session's version (412 and nothing changes);
* `Idempotency-Key` (app/api/sessions/idempotency.py): the stored answer is written in the same
  transaction as the change and replayed for the same request;
* every round appended with its inputs and every die, version bumped by exactly one;
* what the change announces (its live event) and counts (rounds, finished sessions) comes
  back from the transaction as its `Applied` result, acted on once it has committed (an
  optimistic transaction may run more than once); its webhooks' deliveries are written in
  the transaction itself (app/api/sessions/outbox.py).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Annotated, Any, Generic, Literal, TypeVar, cast

import orjson
from fastapi import APIRouter, FastAPI, Query, Request
from pydantic import BaseModel
from starlette.responses import Response

from app.api import i18n
from app.api.answers.cards import with_cards
from app.api.answers.formats import postable
from app.api.common import header, message_doc, read_body, respond
from app.api.kinds import (
    AnyKind,
    OddsQuestion,
    RoundKind,
    TacticPolicy,
    load_config,
    load_session,
    purposes,
)
from app.api.routing import DeferredBody, LeanRoute, answers, declare_body, declare_no_body
from app.api.schemas.common import Collecting, RoundCard, validate_json
from app.api.sessions import deliveries, outbox, pending, verifiable
from app.api.sessions.events import events_doc, publish, stream_events
from app.api.sessions.idempotency import (
    Answer,
    answer_response,
    creation_scope,
    guarded,
    keyed,
    session_keyed,
)
from app.api.sessions.presentation import AnswerTypes, etag, session_answer
from app.api.sessions.security import (
    Role,
    bearer_token,
    new_token,
    optional_bearer,
    role_of,
    seal_seed,
    token_hash,
)
from app.api.sessions.verifiable import Derivation, seeding
from app.api.sessions.work import unit_of_work
from app.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    PreconditionFailed,
    ServiceUnavailable,
    not_found,
)
from app.notation import NOTATION_ROLLER, notation_dice
from app.observability import (
    count_dice_rolled,
    count_rounds_played,
    count_session_created,
    count_session_finished,
)
from app.rules import serial
from app.rules.dice import (
    MAX_DICE_PER_REQUEST,
    Dice,
    DiceBudget,
    Key,
    check_supplied,
    session_round_rng,
)
from app.rules.errors import Loc, RulesError
from app.rules.messages import (
    N_,
    Listing,
    MalformedDocument,
    Message,
    document,
    english,
    from_document,
    m,
)
from app.rules.odds.simulation import MAX_TRIALS
from app.rules.verifiable import commitment, new_server_seed, seeds_digest
from app.store import repository
from app.store.database import Store, Transaction
from app.store.repository import SessionRecord

Status = Literal["active", "finished"]
StateT = TypeVar("StateT")
T = TypeVar("T")
E = TypeVar("E", bound=Callable[..., Awaitable[Any]])
AnyRoundKind = RoundKind[Any, Any, Any]
#: A safety net on rounds played by one `resolve`; every kind's own limit is lower.
MAX_RESOLVE_ROUNDS = 10_000
#: Rounds listed by `GET …/rounds`: by default, and at most, per page.
DEFAULT_PAGE = 100
MAX_PAGE = 500
#: Round numbers fit the database's integer column.
MAX_ROUND_NUMBER = 2**31 - 1
#: The last rounds a `resolve` answer lists (all of them are in `GET …/rounds`).
RESOLVE_RECENT_ROUNDS = 5
#: How long a `resolve` computes before it lets the worker's other requests run.
SLICE_SECONDS = 0.005
#: How many times a call plays a round past its deadline before it gives up (another is opened
#: and passes its deadline in between only under a clock that jumps).
SETTLE_ATTEMPTS = 3
#: Dice rolled at a session's creation (a chase's initiative), kept beside its state.
START_ROLLS = "start_rolls"


# --- changes --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A round as the store keeps it: its inputs, every die, and the record the API shows."""

    number: int
    inputs: Any
    dice: Any
    outcome: Any
    #: A verifiable session's round: its link in the chain (docs/verifiable-dice.md).
    link: str | None = None
    #: The inputs and outcome as the chain covers them, when not as stored (a sealed choice
    #: in its sealed form, docs/verifiable-dice.md#sealed-choices).
    chained: tuple[Any, Any] | None = None
    #: The summary as the rules built it, for the answer of the request that played the round
    #: in its language; stored beside the round in no language (`message`), the stored
    #: summary being the English line.
    said: Message | None = None
    #: `said` as the store keeps it, once the round is packed (encoded already).
    said_stored: Any = None

    def linked(self, previous: str) -> StoredRound:
        """The same round with its link after `previous` (before it is packed)."""
        inputs, outcome = self.chained or (self.inputs, self.outcome)
        made = verifiable.link_of(previous, self.number, inputs, self.dice, outcome)
        return StoredRound(self.number, self.inputs, self.dice, self.outcome, made, said=self.said)

    def message(self) -> Any:
        """The summary's message as the store keeps it (app/rules/messages.py, `document`);
        None for a round whose summary is no message."""
        if self.said_stored is not None:
            return self.said_stored
        return None if self.said is None else document(self.said)

    def packed(self) -> StoredRound:
        """The same round with its documents encoded already (as `orjson.Fragment`s).

        A resolve keeps thousands of rounds until it writes them: as encoded text they are a
        few objects each instead of hundreds, which the garbage collector would walk again and
        again, stalling the worker (ARCHITECTURE.md, "Speed").
        """
        return StoredRound(
            self.number,
            orjson.Fragment(orjson.dumps(self.inputs)),
            orjson.Fragment(orjson.dumps(self.dice)),
            orjson.Fragment(orjson.dumps(self.outcome)),
            self.link,
            said_stored=None
            if self.said is None
            else orjson.Fragment(orjson.dumps(self.message())),
        )


@dataclass(frozen=True)
class Change(Generic[StateT]):
    """What a mutation does to a session, and how it answers."""

    state: StateT
    status: Status
    result: Mapping[str, Any] | None
    rounds: list[StoredRound] = field(default_factory=list)
    #: Builds the answer from the updated session: (status code, body).
    answer: Callable[[SessionRecord], tuple[int, Mapping[str, Any]]] | None = None
    #: Its live event's name (app/api/sessions/events.py).
    event: str = "round"
    #: The live event's data when the answer is trimmed for the token that asked (a party's
    #: view of a round, `RoundView`): built like `answer`, whole; None: the answer's own.
    event_answer: Callable[[SessionRecord], Mapping[str, Any]] | None = None
    #: The round waiting for dice after the change (app/api/sessions/pending.py); None: none.
    collecting: Mapping[str, Any] | None = None
    #: A verifiable session's public part after a change of its seeds
    #: (app/api/sessions/verifiable.py); None: the lifecycle carries it on (its head moved on
    #: by the change's rounds).
    verifiable: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Deletion:
    """The mutation deletes the session."""


@dataclass(frozen=True, slots=True)
class Effects:
    """What a committed change announces and counts, once it has committed."""

    #: The session's version after the change, and the name of its live event.
    version: int
    event: str
    rounds_played: int = 0
    newly_finished: bool = False
    #: The live event's data when it is not the answer's body (`Change.event_answer`).
    event_body: bytes | None = None
    #: The live event's data in a language, for the streams asking for another than English.
    said: Callable[[str], bytes] | None = None


@dataclass(frozen=True, slots=True)
class Applied:
    """A mutation's transaction's result: its answer, and its effects (None for a replay)."""

    answer: Answer
    effects: Effects | None = None


Authorize = Callable[[Role, SessionRecord], None]
#: A change to a session: computed at once, or (a long one) in slices between which other
#: requests of the worker get their turn.
Mutation = Callable[
    [SessionRecord, Role], Change[Any] | Deletion | Awaitable[Change[Any] | Deletion]
]


def gm_only(role: Role, _record: SessionRecord) -> None:
    if not role.is_gm:
        raise Forbidden(N_("only the GM's token may do this"))


#: The 409 of a change to a finished session, by what it names.
FINISHED = {
    "the contest": N_("the contest is finished"),
    "the race": N_("the race is finished"),
    "the skill game": N_("the skill game is finished"),
}


def require_active(record: SessionRecord, what: str = "the contest") -> None:
    if record.status != "active":
        raise Conflict(FINISHED[what])


def _if_match(request: Request) -> int | Literal["*"] | None:
    sent = header(request, b"if-match")
    if sent is None:
        return None
    value = sent.strip()
    if value == "*":
        return "*"
    if value.startswith("W/"):
        value = value[2:]
    value = value.strip('"')
    try:
        return int(value)
    except ValueError:
        raise PreconditionFailed(
            m("If-Match {sent} does not match the session's version", sent=repr(sent))
        ) from None


def _stored_state(
    state: Any,
    before: Mapping[str, Any],
    collecting: Mapping[str, Any] | None = None,
    public_dice: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The state to store: the rules' state, keeping the dice rolled at creation, the round
    waiting for dice if there is one, and a verifiable session's public part."""
    stored: dict[str, Any] = serial.dump(state)
    if START_ROLLS in before:
        stored[START_ROLLS] = before[START_ROLLS]
    if collecting is not None:
        stored[pending.COLLECTING] = dict(collecting)
    if public_dice is not None:
        stored[verifiable.VERIFIABLE] = dict(public_dice)
    return stored


class SettleFirst(Exception):
    """The session has a round waiting for dice past its deadline: it plays first."""


async def mutate(
    request: Request,
    kind: AnyKind,
    session_id: str,
    mutation: Mutation,
    *,
    authorize: Authorize = gm_only,
    body: DeferredBody[Any] | None = None,
) -> Response:
    """Apply `mutation` to a session under the shared guarantees (see the module docstring).

    `body` is validated once the token is known to hold a role in the session, before
    `authorize` (which may read it) and `mutation` run.
    """
    work = unit_of_work(request)
    # The whole body is read before the transaction (a slow client holds no lock), and before
    # the token: a body over the limit is a 413 whoever sends it.
    await read_body(request)
    token = bearer_token(request)
    # The token's own key: no other caller's use of it is a replay or an error for this one.
    key = await session_keyed(request, kind.path, session_id, token)

    async def transaction(connection: Transaction) -> Applied:
        reused: InvalidInput | None = None
        if key is not None:
            try:
                # Replays come first and need no role (the key is the token's own), so a
                # retried DELETE answers 204 again, not 404.
                replay = await key.claim(connection)
            except InvalidInput as exc:
                # Answered once the token is known to hold a role that may do this: a
                # stranger gets 404, a role that may not 403.
                reused = exc
            else:
                if replay is not None:
                    return Applied(replay)
        # With a key, the stored answer is written with the change, in a transaction holding
        # the session's row lock; without one, the change is one optimistic statement.
        record = await repository.get_session(
            connection, session_id, kind.path, lock=key is not None
        )
        if record is None:
            raise not_found(kind.title, session_id)
        role = role_of(token, record)
        if role is None:
            raise not_found(kind.title, session_id)
        if pending.due(record, pending.clock(request.app)):
            raise SettleFirst
        # Read once the token is known to hold a role here: a stranger learns nothing from it.
        if_match = _if_match(request)
        if body is not None:
            await body.load()
        authorize(role, record)
        if reused is not None:
            raise reused
        if if_match is not None and if_match != "*" and if_match != record.version:
            raise PreconditionFailed(
                m(
                    "If-Match {sent} is stale: the session is at version {version}",
                    sent=etag(if_match),
                    version=str(record.version),
                )
            )
        made = mutation(record, role)
        change = await made if inspect.isawaitable(made) else made
        applied = await _apply(connection, kind, record, change)
        if key is not None:
            await key.remember(connection, applied.answer)
        return applied

    for _attempt in range(SETTLE_ATTEMPTS):
        try:
            applied = await guarded(work, transaction, key)
        except SettleFirst:
            # The round past its deadline is a change of its own, in its own transaction;
            # then this call runs in another, on the session as it left it.
            await settle(request, kind, session_id)
            work = unit_of_work(request)
        else:
            break
    else:
        raise Conflict(N_("the session is changing too fast to apply this; retry"))
    _announce(request, kind, session_id, applied.effects, applied.answer)
    return answer_response(request, applied.answer)


def _announce(
    request: Request, kind: AnyKind, session_id: str, effects: Effects | None, answer: Answer
) -> None:
    """Publish and count what a committed change did (nothing for a replay)."""
    _announce_in(request.app, kind, session_id, effects, answer)


def _announce_in(
    app: FastAPI, kind: AnyKind, session_id: str, effects: Effects | None, answer: Answer
) -> None:
    if effects is None:
        return
    data = answer.body if effects.event_body is None else effects.event_body
    publish(app, session_id, effects.version, effects.event, data, effects.said)
    deliveries.poke(app)
    if effects.rounds_played:
        count_rounds_played(kind.path, effects.rounds_played)
    if effects.newly_finished:
        count_session_finished(kind.path)


async def settle(request: Request, kind: AnyKind, session_id: str) -> None:
    """Play the round waiting for dice past its deadline, the missing dice the server's,
    recorded as rolled at the deadline (a change of its own, with its live event)."""
    await settle_in(request.app, kind, session_id)


async def settle_in(app: FastAPI, kind: AnyKind, session_id: str) -> bool:
    """`settle` for `app` (a request's, or the deadline sweeper's): whether this call played
    the round. Under the session's row lock (PostgreSQL) or the write lock (SQLite), and
    written only at the version read, so of callers settling one round at once exactly one
    plays it; the others find it played and do nothing."""
    store: Store | None = getattr(app.state, "store", None)
    if store is None:
        raise ServiceUnavailable(N_("the session store is not configured"))

    async def transaction(connection: Transaction) -> Applied | None:
        record = await repository.get_session(connection, session_id, kind.path, lock=True)
        if record is None or not pending.due(record, pending.clock(app)):
            return None  # another request settled it first
        waiting = collecting_of(record)
        assert isinstance(kind, RoundKind)  # only a round kind opens one
        # The dice that arrived are played (each was checked against the round when it was
        # given); only the missing ones are the server's.
        change = play_collected(kind, record, waiting, by_deadline=True)
        return await _apply(
            connection, kind, record, change, updated_at=pending.deadline_of(waiting)
        )

    applied = await store.run("write", transaction)
    if applied is None:
        return False
    _announce_in(app, kind, session_id, applied.effects, applied.answer)
    return True


def collecting_of(record: SessionRecord) -> dict[str, Any]:
    """The round waiting for dice, or 409."""
    waiting = pending.collecting(record)
    if waiting is None:
        raise Conflict(N_("no round is waiting for dice"))
    return waiting


def round_inputs(kind: AnyRoundKind, waiting: Mapping[str, Any], *, with_dice: bool = False) -> Any:
    """The round body of the round waiting for dice: the GM's, with the dice held when asked."""
    inputs = dict(waiting["inputs"])
    if with_dice:
        inputs["rolls"] = waiting["dice"] or None
    return validate_json(kind.round_model, orjson.dumps(inputs))


def play_collected(
    kind: AnyRoundKind,
    record: SessionRecord,
    waiting: Mapping[str, Any],
    *,
    by_deadline: bool = False,
) -> Change[Any]:
    """Play the round waiting for dice with the dice given (the server's for the rest)."""
    config, state = load_session(kind, record.config, record.state, record.id)
    given: dict[str, pending.DiceFrom] = dict(waiting["from"])
    if by_deadline:
        given.update(dict.fromkeys(pending.waiting_for(waiting), "deadline"))
    body = round_inputs(kind, waiting, with_dice=True)
    after, stored = play_one(
        kind,
        config,
        state,
        seeding(record),
        waiting["number"],
        body,
        dice_from=given,
        given_by=waiting.get("given") or None,
    )
    return played_change(kind, config, after, stored)


def _chained(
    record: SessionRecord, change: Change[Any]
) -> tuple[list[StoredRound], Mapping[str, Any]]:
    """A verifiable session's change: its rounds each linked after the one before (those a
    resolve linked already as they are), and its public part after it (seeds no longer taken
    once any change but a seed has been made: its first chains them)."""
    if change.verifiable is not None:
        return change.rounds, change.verifiable
    before = verifiable.block(record)
    assert before is not None
    public = verifiable.closed(before)
    head: str = public["head"]
    linked: list[StoredRound] = []
    for played in change.rounds:
        if played.link is None:
            played = played.linked(head)
        assert played.link is not None
        head = played.link
        linked.append(played)
    return linked, {**public, "head": head}


async def _apply(
    connection: Transaction,
    kind: AnyKind,
    record: SessionRecord,
    change: Change[Any] | Deletion,
    *,
    updated_at: datetime | None = None,
) -> Applied:
    """Store the change (or the deletion), its webhooks' deliveries with it
    (app/api/sessions/outbox.py), and make its answer and effects."""
    webhooks = await outbox.prepare(
        connection, kind, record, foldable=not isinstance(change, Deletion)
    )
    folded = webhooks if webhooks is not None and webhooks.folded else None
    applied = await _store(connection, kind, record, change, updated_at=updated_at, webhooks=folded)
    if webhooks is not None and folded is None and applied.effects is not None:
        effects = applied.effects
        await webhooks.write(
            effects.version, effects.event, _event_body(applied.answer, effects), effects.said
        )
    return applied


def _event_body(answer: Answer, effects: Effects) -> bytes:
    """What a change's live event (and its webhooks' payloads) are made from."""
    return answer.body if effects.event_body is None else effects.event_body


async def _store(
    connection: Transaction,
    kind: AnyKind,
    record: SessionRecord,
    change: Change[Any] | Deletion,
    *,
    updated_at: datetime | None = None,
    webhooks: outbox.Outbox | None = None,
) -> Applied:
    """Store the change (or the deletion) and make its answer and effects; with `webhooks`
    (PostgreSQL's optimistic mode), its deliveries in the change's own statement."""
    if isinstance(change, Deletion):
        if record.dice_secret is None:
            await repository.delete_session(connection, record)
        else:
            # Its proof stays readable for the retention period (docs/verifiable-dice.md).
            await repository.retire_session(connection, record, repository.now())
        return Applied(Answer(204, {}, b""), Effects(record.version + 1, "deleted"))
    rounds = change.rounds
    public_dice: Mapping[str, Any] | None = None
    if record.dice_secret is not None:
        rounds, public_dice = _chained(record, change)
    made: list[Applied] = []

    def alongside(updated: SessionRecord) -> repository.Alongside | None:
        # The answer is made before the statement runs (the session as it will be): its
        # event is what the deliveries carry.
        applied = _answered(kind, record, change, updated)
        made.append(applied)
        effects = applied.effects
        if webhooks is None or effects is None:
            return None
        return webhooks.alongside(
            effects.version, effects.event, _event_body(applied.answer, effects), effects.said
        )

    updated = await repository.update_session(
        connection,
        record,
        status=change.status,
        state=_stored_state(change.state, record.state, change.collecting, public_dice),
        result=None if change.result is None else dict(change.result),
        updated_at=updated_at if updated_at is not None else repository.now(),
        rounds=[
            {
                "number": played.number,
                "inputs": played.inputs,
                "dice": played.dice,
                "outcome": played.outcome,
                "link": played.link,
                "message": played.message(),
            }
            for played in rounds
        ],
        pending_deadline=_deadline_change(record, change.collecting),
        alongside=None if webhooks is None else alongside,
    )
    return made[-1] if made else _answered(kind, record, change, updated)


def _answered(
    kind: AnyKind, record: SessionRecord, change: Change[Any], updated: SessionRecord
) -> Applied:
    """A stored change's answer and effects, `updated` the session after it."""
    shown: Mapping[str, Any]
    if change.answer is None:
        status, shown = 200, {"session": session_answer(kind, updated)}
    else:
        status, shown = change.answer(updated)
    card = _card_maker(kind, updated)
    answer = Answer(
        status, {"ETag": etag(updated.version)}, orjson.dumps(postable(with_cards(shown, card)))
    )

    def said(language: str) -> bytes:
        """The live event's data in `language`, its cards' words too (docs/languages.md)."""
        with i18n.speaking(language):
            if change.event_answer is not None:
                shown = change.event_answer(updated)
            elif change.answer is not None:
                shown = change.answer(updated)[1]
            else:
                shown = {"session": session_answer(kind, updated)}
            return orjson.dumps(postable(with_cards(shown, card)))

    # The answer is in the request's language; its live event in English for every stream,
    # as the round it stores (docs/languages.md). The same bytes as the answer when those
    # are the event's.
    event_body = (
        said(i18n.DEFAULT)
        if i18n.current() != i18n.DEFAULT or change.event_answer is not None
        else None
    )

    return Applied(
        answer,
        Effects(
            updated.version,
            change.event,
            rounds_played=len(change.rounds),
            newly_finished=change.status == "finished" and record.status == "active",
            event_body=event_body,
            said=said,
        ),
    )


def _deadline_change(
    record: SessionRecord, collecting: Mapping[str, Any] | None
) -> datetime | Literal["unchanged"] | None:
    """The session's `pending_deadline` after the change, when it changes: the deadline of a
    round opened to wait for dice, None once it has played or been cancelled."""
    before = pending.collecting(record)
    was = None if before is None else before["deadline"]
    will_be = None if collecting is None else collecting["deadline"]
    if was == will_be:
        return repository.UNCHANGED
    return None if collecting is None else pending.deadline_of(collecting)


# --- rounds ---------------------------------------------------------------------------------


def supplied_dice(
    kind: AnyKind, known: set[str] | None, rolls: Mapping[str, Any] | None
) -> tuple[dict[Key, list[int]], dict[Key, Loc]]:
    """Body dice `{name: {purpose: value or [values]}}` as a `Dice` supply, checked.

    `known` are the names dice may be supplied for; None leaves that to the kind's `start`
    and `require_all_used` (at creation, before the contest's names are normalised, where
    whether a die is needed depends on the create body alone).
    """
    supplied: dict[Key, list[int]] = {}
    locs: dict[Key, Loc] = {}
    if not rolls:
        return supplied, locs
    allowed = purposes(kind)
    for name, given in rolls.items():
        by_purpose: Mapping[str, Any] = (
            given.model_dump(exclude_none=True) if isinstance(given, BaseModel) else given
        )
        if known is not None and name not in known:
            raise RulesError(m("{name} is not in this contest", name=repr(name)), ("rolls", name))
        for purpose, value in by_purpose.items():
            if purpose not in allowed:
                raise RulesError(
                    m(
                        "unknown dice purpose {purpose}; expected one of {purposes}",
                        purpose=repr(purpose),
                        purposes=Listing(sorted(allowed)),
                    ),
                    ("rolls", name, purpose),
                )
            supplied[(name, purpose)] = [value] if isinstance(value, int) else list(value)
            locs[(name, purpose)] = ("rolls", name, purpose)
    return supplied, locs


def round_supply(
    kind: AnyRoundKind,
    config: Any,
    state: Any,
    body: Any,
    known: set[str],
    rolls: Mapping[str, Any] | None,
) -> tuple[dict[Key, list[int]], dict[Key, Loc]]:
    """A round's supplied dice (`supplied_dice`), checked against what the round with `body`
    may take (the kind's `needs`), before any die is read
    (docs/rules.md#supplied-and-server-dice)."""
    supplied, locs = supplied_dice(kind, known, rolls)
    if supplied:
        needs = kind.needs(config, state, body)
        if needs is not None:
            check_supplied(needs, supplied, locs, notation_dice)
    return supplied, locs


def round_dice(
    seed: int | Derivation | None,
    number: int,
    supplied: Mapping[Key, list[int]] | None = None,
    locs: Mapping[Key, Loc] | None = None,
    *,
    budget: DiceBudget | None = None,
    by: Callable[[str | None], str] | None = None,
) -> Dice:
    """Dice for round `number`: supplied values first, then seeded by (seed, number) or
    CSPRNG, or (a verifiable session's) derived at their place, each supplied roll marked
    with who supplied it (`by`, given its competitor)."""
    if isinstance(seed, Derivation):
        return Dice(
            seed.rng(number),
            supplied,
            locs=locs,
            notation=NOTATION_ROLLER,
            budget=budget if budget is not None else DiceBudget(MAX_DICE_PER_REQUEST),
            by=by or _by_gm,
        )
    return Dice(
        session_round_rng(seed, number),
        supplied,
        locs=locs,
        notation=NOTATION_ROLLER,
        budget=budget if budget is not None else DiceBudget(MAX_DICE_PER_REQUEST),
    )


def _by_gm(_who: str | None) -> str:
    return "gm"


def _suppliers(dice_from: Mapping[str, pending.DiceFrom] | None) -> Callable[[str | None], str]:
    """Who supplied a competitor's dice in a round: its seat when the seat gave them (a round
    that waited for the seats' dice), else the GM (its round body, or dice it gave for one)."""
    if not dice_from:
        return _by_gm

    def by(who: str | None) -> str:
        return f"seat:{who}" if who is not None and dice_from.get(who) == "seat" else "gm"

    return by


def play_one(
    kind: RoundKind[Any, StateT, Any],
    config: Any,
    state: StateT,
    seed: int | Derivation | None,
    number: int,
    body: Any,
    *,
    budget: DiceBudget | None = None,
    dice_from: Mapping[str, pending.DiceFrom] | None = None,
    given_by: Mapping[str, pending.DiceFrom] | None = None,
) -> tuple[StateT, StoredRound]:
    """Play round `number`: the supplied dice checked against what the round may take (before
    any die is read), the rules, then the record: every die played in `rolls`, every supplied
    one the round did not use in `unused` (docs/rules.md#supplied-and-server-dice), and, for a
    round that waited for dice, who answered for each name (`dice_from`; `given_by`: who gave
    the dice supplied for a name, when not the name's `dice_from`)."""
    supplied, locs = round_supply(
        kind, config, state, body, set(kind.names(config)), getattr(body, "rolls", None)
    )
    suppliers = {**(dice_from or {}), **(given_by or {})}
    by = _suppliers(suppliers) if isinstance(seed, Derivation) else None
    dice = round_dice(seed, number, supplied, locs, budget=budget, by=by)
    after, played = kind.play(config, state, body, dice)
    count_dice_rolled(dice.rolled())
    said = m(
        "Round {number}: {line}", number=number, line=kind.round_summary(config, after, played)
    )
    summary = english(said)
    rolls = dice.rolls()
    outcome = {"number": number, **kind.round_record(config, after, played), "rolls": rolls}
    unused = dice.leftovers(ended=kind.finished(after))
    if unused:
        outcome["unused"] = [entry.record() for entry in unused]
    outcome["summary"] = summary
    if dice_from is not None:
        outcome["dice_from"] = dict(dice_from)
    inputs = (
        body.model_dump(mode="json", exclude=set(pending.OPENING))
        if isinstance(body, BaseModel)
        else {}
    )
    return after, StoredRound(number, inputs, rolls, outcome, said=said)


def resolved_answer(
    kind: AnyKind, updated: SessionRecord, played: int, recent: Sequence[StoredRound]
) -> dict[str, Any]:
    """What `resolve` answers: the session, how many rounds it played and the last few (in the
    request's language: they were played by it)."""
    language = i18n.current()
    rounds = [localised(stored, language) for stored in recent]
    return {
        "session": session_answer(kind, updated),
        "played": played,
        "summary": rounds[-1]["summary"] if rounds else i18n.gettext(NOTHING_TO_PLAY),
        "rounds": rounds,
    }


#: What `resolve` says of a session with no round left to play.
NOTHING_TO_PLAY = N_("Nothing to play.")


def _card_maker(
    kind: AnyKind, record: SessionRecord
) -> Callable[[Mapping[str, Any]], RoundCard | None]:
    """The session's round records as cards, made as the service answers (never stored)."""
    config = load_config(kind, record.config, record.id)
    return lambda played: kind.round_card(config, played)


def _status(kind: AnyKind, state: Any) -> Status:
    return "finished" if kind.finished(state) else "active"


# --- the endpoints --------------------------------------------------------------------------


async def create(kind: AnyKind, request: Request, body: Any) -> Response:
    """Create a session: 201 with Location, ETag and the tokens (shown only here)."""
    work = unit_of_work(request)
    caller = optional_bearer(request)
    key = await keyed(request, creation_scope(kind.path, caller), caller)

    async def transaction(connection: Transaction) -> Answer:
        if key is not None:
            replay = await key.claim(connection)
            if replay is not None:
                return replay
        answer, tokenless = await _create(kind, body, connection)
        if key is not None:
            # A replay must never hand the tokens to anyone but their creator: they are
            # kept only under a key the caller scoped with a secret of its own.
            await key.remember(connection, answer if caller is not None else tokenless)
        return answer

    return answer_response(request, await guarded(work, transaction, key))


async def get(kind: AnyKind, request: Request, session_id: str) -> Response:
    """The session (any token of this session); ETag carries its version."""
    record = await _read(kind, request, session_id)
    body = session_answer(kind, record)
    waiting = body.get("pending")
    if waiting is not None:
        # The seconds left by the service's clock, as it answers (a page counts them down on
        # its own monotonic clock, whatever the time its machine says).
        waiting["seconds_left"] = pending.seconds_left(waiting, pending.clock(request.app))
    return respond(request, body, 200, {"ETag": etag(record.version)})


async def list_rounds(
    kind: AnyKind,
    request: Request,
    session_id: str,
    after: Annotated[
        int, Query(ge=0, le=MAX_ROUND_NUMBER, description="only rounds numbered above this")
    ] = 0,
    limit: Annotated[
        int, Query(ge=1, le=MAX_PAGE, description=f"at most this many (≤ {MAX_PAGE})")
    ] = DEFAULT_PAGE,
) -> Response:
    """The rounds played, oldest first, a page at a time (any token of this session; a
    party's token sees each record as the kind shows it to that party).

    `Link: <…>; rel="next"` points at the next page while more rounds remain.
    """
    token = bearer_token(request)

    async def transaction(
        connection: Transaction, now: datetime | None
    ) -> tuple[SessionRecord, list[dict[str, Any]]]:
        record = await _readable(connection, kind, session_id, token, now)
        stored = await repository.list_said_rounds(connection, session_id, after=after, limit=limit)
        language = i18n.current()
        page = [read_back(outcome, message, language) for outcome, message in stored]
        view = kind.round_view
        if view is not None:
            role = role_of(token, record)
            if role is not None and role.party is not None and not role.is_gm:
                page = [dict(view.shown(played, role.party)) for played in page]
        return record, with_cards({"rounds": page}, _card_maker(kind, record))["rounds"]

    record, page = await settled_read(request, kind, session_id, transaction)
    headers = {"ETag": etag(record.version)}
    last = after + len(page)
    if page and last < record.rounds_played:
        headers["Link"] = (
            f'</v1/{kind.path}/{session_id}/rounds?after={last}&limit={limit}>; rel="next"'
        )
    return respond(request, {"rounds": page}, 200, headers)


def played_change(kind: AnyRoundKind, config: Any, after: Any, stored: Any) -> Change[Any]:
    """The change of one round played: the state after it, its record, and the answer (200:
    the round, the session, its summary). In another language than English, the answer's
    summary is in it and the live event's stays the stored English line."""

    def answer(updated: SessionRecord, language: str | None = None) -> dict[str, Any]:
        shown = localised(stored, language or i18n.current())
        return {
            "round": shown,
            "session": session_answer(kind, updated, after),
            "summary": shown["summary"],
        }

    language = i18n.current()
    return Change(
        after,
        _status(kind, after),
        kind.result(config, after),
        [stored],
        lambda updated: (200, answer(updated)),
        event_answer=None if language == i18n.DEFAULT else answer,
    )


def read_back(outcome: dict[str, Any], message: Any, language: str) -> dict[str, Any]:
    """A stored round's record with its summary in `language`, made from the message stored
    beside it; a round stored without one (or with one no longer read) keeps its English."""
    if language == i18n.DEFAULT or message is None:
        return outcome
    try:
        said = from_document(message)
    except MalformedDocument:
        return outcome
    return {**outcome, "summary": i18n.said(said, language)}


def localised(stored: StoredRound, language: str) -> Mapping[str, Any]:
    """A round's record with its summary in `language` (as stored in English)."""
    if language == i18n.DEFAULT or stored.said is None:
        return cast(Mapping[str, Any], stored.outcome)
    return {**stored.outcome, "summary": i18n.said(stored.said, language)}


async def play_round(
    kind: AnyRoundKind, request: Request, session_id: str, body: DeferredBody[Any]
) -> Response:
    """Play one round (GM token) with supplied or server dice; or, with `"collect": true`,
    open one that waits for the seats' dice (202)."""
    opened_at = pending.clock(request.app)

    def mutation(record: SessionRecord, _role: Role) -> Change[Any]:
        if isinstance(body.value, Collecting):
            body.value.check_collecting()
        require_active(record)
        if pending.collecting(record) is not None:
            raise Conflict(N_("a round is waiting for dice: it plays once they are in"))
        if getattr(body.value, "collect", False):
            return open_collecting(kind, record, body.value, opened_at)
        config, state = load_session(kind, record.config, record.state, record.id)
        after, stored = play_one(
            kind, config, state, seeding(record), record.rounds_played + 1, body.value
        )
        return played_change(kind, config, after, stored)

    return await mutate(request, kind, session_id, mutation, body=body)


def open_collecting(
    kind: AnyRoundKind, record: SessionRecord, body: Any, now: datetime
) -> Change[Any]:
    """The next round, waiting for every seat's dice until `deadline_seconds` from `now`."""
    if not record.seat_token_hashes:
        raise Conflict(N_("only a session created with seats collects its players' dice"))
    if getattr(body, "rolls", None):
        raise RulesError(N_("a round that collects dice takes none from the GM"), ("rolls",))
    config, state = load_session(kind, record.config, record.state, record.id)
    seated = [name for name in kind.rolling(config, state) if name in record.seat_token_hashes]
    if not seated:
        raise Conflict(N_("no seat rolls in the next round: the GM plays it"))
    waiting = pending.opened(
        record.rounds_played + 1,
        seated,
        body.model_dump(mode="json"),
        pending.deadline_in(now, body.deadline_seconds),
        kind.needs(config, state, body),
    )
    return waiting_change(kind, record, waiting, "pending")


def waiting_change(
    kind: AnyKind,
    record: SessionRecord,
    waiting: Mapping[str, Any],
    event: str,
    **said: Any,
) -> Change[Any]:
    """A change to the round waiting for dice (opened, or more dice in): 202 with what is
    shown of it, never its dice."""
    _config, state = load_session(kind, record.config, record.state, record.id)
    return Change(
        state,
        "active",
        None,
        answer=lambda updated: (
            202,
            {
                "pending": pending.shown(waiting),
                **said,
                "session": session_answer(kind, updated, state),
                "summary": i18n.said(pending.summary(waiting)),
            },
        ),
        event=event,
        collecting=waiting,
    )


async def resolve(
    kind: AnyRoundKind, request: Request, session_id: str, body: DeferredBody[Any] | None = None
) -> Response:
    """Play rounds with server dice until the contest finishes (GM token)."""
    empty = None if body is not None else await _empty_body(request)

    async def mutation(record: SessionRecord, _role: Role) -> Change[Any]:
        if empty is not None:
            raise empty
        require_active(record)
        if pending.collecting(record) is not None:
            raise Conflict(N_("a round is waiting for dice: it plays once they are in"))
        config, state = load_session(kind, record.config, record.state, record.id)
        move_body = body.value if body is not None else None
        state, played, recent = await play_to_the_end(kind, config, state, record, move_body)
        return Change(
            state,
            _status(kind, state),
            kind.result(config, state),
            played,
            lambda updated: (200, resolved_answer(kind, updated, len(played), recent)),
        )

    return await mutate(request, kind, session_id, mutation, body=body)


async def _empty_body(request: Request) -> RulesError | None:
    """The error of a body sent to a route that takes none (`resolve` of a kind without a
    resolve body): only no body or `{}` is taken, so dice sent to it are never ignored.
    Returned, to be raised once the caller is known to hold a role in the session."""
    raw = (await read_body(request)).strip()
    if not raw:
        return None
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        parsed = None
    if parsed == {}:
        return None
    return RulesError(
        N_("this call takes no body (or {}): it plays every round with the server's dice"),
        ("body",),
    )


async def play_to_the_end(
    kind: AnyRoundKind, config: Any, state: Any, record: SessionRecord, move_body: Any
) -> tuple[Any, list[StoredRound], deque[StoredRound]]:
    """Server-dice rounds until the contest finishes (or `MAX_RESOLVE_ROUNDS`), in slices of
    `SLICE_SECONDS` between which the worker's other requests get their turn, under one dice
    budget: the state after them, every round (packed), and the last few rounds (with their
    summaries' messages)."""
    played: list[StoredRound] = []
    recent: deque[StoredRound] = deque(maxlen=RESOLVE_RECENT_ROUNDS)
    number = record.rounds_played
    budget = DiceBudget(MAX_DICE_PER_REQUEST)
    seed = seeding(record)
    public = verifiable.block(record)
    # After the seeds, which this change chains if it is the session's first (`_chained`).
    head = None if public is None else verifiable.closed(public)["head"]
    slice_ends = time.perf_counter() + SLICE_SECONDS
    while not kind.finished(state) and len(played) < MAX_RESOLVE_ROUNDS:
        number += 1
        move = kind.resolve_move(config, state, move_body)
        state, stored = play_one(kind, config, state, seed, number, move, budget=budget)
        if head is not None:
            # Linked before it is packed: the link covers the round's canonical JSON.
            stored = stored.linked(head)
            head = stored.link
        recent.append(stored)
        played.append(stored.packed())
        if time.perf_counter() >= slice_ends:
            await asyncio.sleep(0)
            slice_ends = time.perf_counter() + SLICE_SECONDS
    return state, played, recent


async def odds_from_here(
    kind: AnyKind,
    request: Request,
    session_id: str,
    seed: Annotated[
        int | None, Query(ge=0, lt=2**63, description="for a Monte Carlo estimate")
    ] = None,
    terrain: Annotated[
        str | None,
        Query(
            max_length=4096,
            description="chases (required there): the terrain of the increments to "
            "come, as a round body's `terrain`, in JSON; other kinds ignore it",
        ),
    ] = None,
    tactic_policy: Annotated[
        TacticPolicy | None,
        Query(description="chases: when the escapee hides; other kinds ignore it"),
    ] = None,
    trials: Annotated[
        int | None,
        Query(
            ge=1,
            le=MAX_TRIALS,
            description=f"trials of a Monte Carlo estimate (races, chases), 1 to {MAX_TRIALS}; "
            "exact answers ignore it",
        ),
    ] = None,
) -> Response:
    """The odds from the session's current state (any token of this session).

    `ETag` names the version they were computed at.
    """
    odds = kind.odds
    assert odds is not None  # routed only for kinds with odds
    record = await _read(kind, request, session_id)
    config, state = load_session(kind, record.config, record.state, record.id)
    answer = await odds.ask(config, state, OddsQuestion(seed, terrain, tactic_policy, trials))
    return respond(request, answer, 200, {"ETag": etag(record.version)})


async def odds_asked(
    kind: AnyKind, request: Request, session_id: str, body: DeferredBody[Any]
) -> Response:
    """The odds from the session's current state, the question in a JSON body (any
    token of this session; the body is read once the token is known to hold a role
    here). Changes nothing: the same answer as `GET …/odds` for the same question.

    `ETag` names the version they were computed at.
    """
    asked = kind.odds.body if kind.odds is not None else None
    assert asked is not None  # routed only for kinds whose odds take a body
    record = await _read(kind, request, session_id)
    question = await body.load()
    config, state = load_session(kind, record.config, record.state, record.id)
    answer = await asked.ask(config, state, question)
    return respond(request, answer, 200, {"ETag": etag(record.version)})


async def odds_at_choices(
    kind: AnyKind, request: Request, session_id: str, body: DeferredBody[Any]
) -> Response:
    """The odds at a choice: for each option listed for the next step, the odds from here as
    `…/odds` would answer them once that option is taken, its dice still unknown (any token of
    this session; the body is read once the token is known to hold a role here). Changes
    nothing.

    `ETag` names the version they were computed at.
    """
    choices = kind.choices
    assert choices is not None  # routed only for kinds with choices
    record = await _read(kind, request, session_id)
    question = await body.load()
    config, state = load_session(kind, record.config, record.state, record.id)
    answer = await choices.ask(config, state, question)
    return respond(request, answer, 200, {"ETag": etag(record.version)})


async def remove(kind: AnyKind, request: Request, session_id: str) -> Response:
    """Delete the session and its rounds (GM token); afterwards it is 404."""
    return await mutate(request, kind, session_id, lambda _record, _role: Deletion())


async def live_events(kind: AnyKind, request: Request, session_id: str) -> Response:
    await _read(kind, request, session_id)  # a round past its deadline plays first
    return await stream_events(kind, request, session_id)


live_events.__doc__ = stream_events.__doc__


async def _read(kind: AnyKind, request: Request, session_id: str) -> SessionRecord:
    """The session, for a token holding a role in it (404 for any other)."""
    token = bearer_token(request)

    async def transaction(connection: Transaction, now: datetime | None) -> SessionRecord:
        return await _readable(connection, kind, session_id, token, now)

    return await settled_read(request, kind, session_id, transaction)


async def settled_read(
    request: Request,
    kind: AnyKind,
    session_id: str,
    transaction: Callable[[Transaction, datetime | None], Awaitable[T]],
) -> T:
    """A read (`transaction`, given now), once any round waiting for dice past its deadline
    has played; after `SETTLE_ATTEMPTS`, the session as it stands (given no time)."""
    for _attempt in range(SETTLE_ATTEMPTS):
        try:
            now = pending.clock(request.app)
            return await unit_of_work(request).run("read", _at(transaction, now))
        except SettleFirst:
            await settle(request, kind, session_id)
    return await unit_of_work(request).run("read", _at(transaction, None))


def _at(
    transaction: Callable[[Transaction, datetime | None], Awaitable[T]], now: datetime | None
) -> Callable[[Transaction], Awaitable[T]]:
    """A read transaction told the time `now` (None: no round's deadline has passed)."""
    return lambda connection: transaction(connection, now)


async def _readable(
    connection: Transaction, kind: AnyKind, session_id: str, token: str, now: datetime | None
) -> SessionRecord:
    record = await repository.get_session(connection, session_id, kind.path, lock=False)
    if record is None or role_of(token, record) is None:
        raise not_found(kind.title, session_id)
    if now is not None and pending.due(record, now):
        raise SettleFirst
    return record


def seats(kind: AnyKind, config: Any, body: BaseModel) -> tuple[str, ...]:
    """The competitors that get a seat token: every name of a round kind's contest created
    with `"seats": true` (a kind without `seats` in its create body has none)."""
    if not getattr(body, "seats", False) or not isinstance(kind, RoundKind):
        return ()
    return tuple(kind.names(config))


async def _create(kind: AnyKind, body: BaseModel, connection: Transaction) -> tuple[Answer, Answer]:
    """The new session's answer, and the same answer without its tokens."""
    seed: int | None = getattr(body, "seed", None)
    session_id = uuid.uuid4().hex
    server_seed: bytes | None = None
    derived: int | Derivation | None = seed
    if getattr(body, "dice", "server") == "verifiable":
        if seed is not None:
            raise RulesError(N_("a session with verifiable dice takes no seed"), ("seed",))
        # Dice at creation derive from the server seed alone: no seed is added yet.
        server_seed = new_server_seed()
        derived = Derivation(server_seed, seeds_digest(()), session_id)
    # Dice at creation (a chase's initiative) derive from (seed, round 0).
    supplied, locs = supplied_dice(kind, None, getattr(body, "rolls", None))
    dice = round_dice(derived, 0, supplied, locs)
    config, state = kind.start(body, dice)
    dice.require_all_used()
    stored_state = serial.dump(state)
    if dice.log:
        stored_state[START_ROLLS] = dice.rolls()
    public_config = dict(kind.public_config(config))
    if server_seed is not None:
        stored_state[verifiable.VERIFIABLE] = verifiable.opened(
            session_id,
            kind.path,
            commitment(server_seed),
            public_config,
            stored_state.get(START_ROLLS, []),
        )
    result = kind.result(config, state)
    gm_token = new_token()
    party_tokens = {party: new_token() for party in kind.parties(config)}
    seat_tokens = {name: new_token() for name in seats(kind, config, body)}
    stamp = repository.now()
    record = SessionRecord(
        id=session_id,
        kind=kind.path,
        status=_status(kind, state),
        version=1,
        rounds_played=0,
        config=public_config,
        state=stored_state,
        result=None if result is None else dict(result),
        seed=seed,
        gm_token_hash=token_hash(gm_token),
        party_token_hashes={party: token_hash(token) for party, token in party_tokens.items()},
        created_at=stamp,
        updated_at=stamp,
        seat_token_hashes=(
            {name: token_hash(token) for name, token in seat_tokens.items()}
            if seat_tokens
            else None
        ),
        dice_secret=(
            None
            if server_seed is None
            else seal_seed(session_id, server_seed, verifiable.sealing_key())
        ),
    )
    await repository.insert_session(connection, record)
    count_dice_rolled(dice.rolled())
    count_session_created(kind.path)
    if record.status == "finished":
        count_session_finished(kind.path)
    tokens: dict[str, Any] = {"gm": gm_token}
    if party_tokens:
        tokens["parties"] = party_tokens
    if seat_tokens:
        tokens["seats"] = seat_tokens
    public = postable(session_answer(kind, record))
    headers = {"Location": f"/v1/{kind.path}/{record.id}", "ETag": etag(1)}
    return (
        Answer(201, headers, orjson.dumps({**public, "tokens": tokens})),
        Answer(201, headers, orjson.dumps(public)),
    )


# --- the routes -----------------------------------------------------------------------------


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def schema_prefix(kind: AnyKind) -> str:
    """The kind in schema and operation names: "arm wrestle" -> "ArmWrestle"."""
    return "".join(word.capitalize() for word in kind.title.split())


def caller_check(
    kinds: Mapping[str, AnyKind],
) -> Callable[[Request, str, str], Awaitable[None]]:
    """What a session's operation asks before it answers an error of its query (routing's
    `LeanRoute`): 404 unless the token holds a role in the session (a deleted verifiable
    session's, for its proof, too), so a stranger learns nothing from it. Set on the app by
    `create_app` (`app.state.known_caller`)."""

    async def check(request: Request, path: str, session_id: str) -> None:
        kind = kinds.get(path)
        if kind is None:
            return
        token = bearer_token(request)

        async def read(connection: Transaction) -> None:
            record = await repository.get_session_or_proof(connection, session_id, kind.path)
            if record is None or role_of(token, record) is None:
                raise not_found(kind.title, session_id)

        await unit_of_work(request).run("read", read)

    return check


def kind_router(kind: AnyKind) -> APIRouter:
    """An empty router for a kind's routes: its prefix, its tag, the lean route class."""
    return APIRouter(
        prefix=f"/v1/{kind.path}",
        tags=[kind.title[0].upper() + kind.title[1:] + "s"],
        route_class=LeanRoute,
    )


def bound(endpoint: E, kind: AnyKind) -> E:
    """`endpoint` serving `kind`: the kind given, the rest of its signature and its docstring
    (the operation's description) as they are."""
    served: Any = functools.partial(endpoint, kind)
    served.__name__ = endpoint.__name__
    served.__doc__ = endpoint.__doc__
    # FastAPI reads the annotations of what the partial wraps in that function's module.
    served.__wrapped__ = endpoint
    signature = inspect.signature(endpoint, eval_str=True)
    served.__signature__ = signature.replace(parameters=list(signature.parameters.values())[1:])
    result: E = served
    return result


def create_examples(kind: AnyKind) -> dict[str, Any]:
    """A creation's examples: the kind's own, and for a kind with seats the same seated."""
    examples: dict[str, Any] = {"create": kind.examples.create}
    if "seats" in kind.create_model.model_fields:
        examples["seated"] = {**kind.examples.create, "seats": True}
    return examples


def round_examples(kind: AnyRoundKind) -> dict[str, Any]:
    """A round's examples: the kind's own, and the same round waiting for the seats' dice."""
    played = dict(kind.examples.round or {})
    waiting = {key: value for key, value in played.items() if key != "rolls"}
    return {"round": played, "collect": {**waiting, "collect": True, "deadline_seconds": 300}}


@cache
def router(kind: AnyKind) -> APIRouter:
    """The shared lifecycle routes of one kind, then the kind's own.

    Built once per kind by the first `create_app` (routes hold no state; building one
    generates its schemas, which costs far more than serving a request).
    """
    router = kind_router(kind)
    answer = AnswerTypes.of(schema_prefix(kind), kind.schemas.session, kind.schemas.round)
    prefix = schema_prefix(kind)

    def add(path: str, endpoint: Callable[..., Any], operation_id: str, **options: Any) -> None:
        # Named by its operation, so `url_path_for("getArmWrestle", ...)` finds it.
        router.add_api_route(
            path, endpoint, operation_id=operation_id, name=operation_id, **options
        )

    add(
        "",
        declare_body(bound(create, kind), kind.create_model, create_examples(kind), eager=True),
        f"create{prefix}",
        methods=["POST"],
        status_code=201,
        responses=answers(201, answer.created),
        summary=f"Create {_a(kind.title)}",
    )
    add(
        "/{session_id}",
        bound(get, kind),
        f"get{prefix}",
        methods=["GET"],
        responses=message_doc(model=answer.session),
        summary=f"Get {_a(kind.title)}",
    )
    add(
        "/{session_id}/rounds",
        bound(list_rounds, kind),
        f"list{prefix}Rounds",
        methods=["GET"],
        responses=message_doc(text=False, model=answer.rounds),
        summary=f"Rounds of {_a(kind.title)}",
    )
    if isinstance(kind, RoundKind):
        add(
            "/{session_id}/rounds",
            declare_body(bound(play_round, kind), kind.round_model, round_examples(kind)),
            f"play{prefix}Round",
            methods=["POST"],
            responses={**message_doc(model=answer.round), 202: {"model": answer.waiting}},
            summary=f"Play a round of {_a(kind.title)}",
        )
        resolving = bound(resolve, kind)
        if kind.resolve_model is not None:
            declare_body(resolving, kind.resolve_model, {"resolve": kind.examples.resolve or {}})
        else:
            declare_no_body(resolving)
        add(
            "/{session_id}/resolve",
            resolving,
            f"resolve{prefix}",
            methods=["POST"],
            responses=message_doc(model=answer.resolved),
            summary=f"Play {_a(kind.title)} to its end",
        )
    if kind.odds is not None:
        add(
            "/{session_id}/odds",
            bound(odds_from_here, kind),
            f"odds{prefix}FromHere",
            methods=["GET"],
            responses=answers(200, kind.odds.answer),
            summary=f"Odds of {_a(kind.title)} from where it stands",
        )
        asked = kind.odds.body
        if asked is not None:
            add(
                "/{session_id}/odds",
                declare_body(bound(odds_asked, kind), asked.model, asked.examples),
                asked.operation_id,
                methods=["POST"],
                responses=answers(200, kind.odds.answer),
                summary=f"Odds of {_a(kind.title)} from where it stands, asked in JSON",
            )
    choices = kind.choices
    if choices is not None:
        add(
            "/{session_id}/odds/choices",
            declare_body(bound(odds_at_choices, kind), choices.model, choices.examples),
            choices.operation_id,
            methods=["POST"],
            responses=answers(200, choices.answer),
            summary=f"Odds of {_a(kind.title)} at a choice of its next step",
        )
    add(
        "/{session_id}",
        bound(remove, kind),
        f"delete{prefix}",
        methods=["DELETE"],
        status_code=204,
        response_class=Response,
        summary=f"Delete {_a(kind.title)}",
    )
    events = events_doc(prefix, kind, plays_rounds=isinstance(kind, RoundKind))
    add(
        "/{session_id}/events",
        bound(live_events, kind),
        f"stream{prefix}Events",
        methods=["GET"],
        response_class=events.response_class,
        responses=events.responses,
        openapi_extra=events.openapi_extra,
        summary=f"Live events of {_a(kind.title)}",
    )
    router.routes.extend(kind.extra_routes())
    return router
