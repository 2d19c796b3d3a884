"""Long-running contests: the lifecycle every kind shares (API.md "Shared behaviour").

A contest kind is data: a `SessionKind` names its schemas and the rules functions that create
it and play a round; `session_router` turns it into create / get / rounds / round / resolve /
delete routes. Kind-specific calls (ending a chase, a skill game's sealed choices) use
`mutate`, which gives them the same guarantees:

* one write transaction per request, taken with its lock up front (see app/store/database.py);
* tokens checked in constant time: no token 401, a token of no role in this session 404,
  a role that may not do this 403;
* `If-Match` against the session's version (412 and nothing changes);
* `Idempotency-Key`: the stored answer is written in the same transaction as the change, and
  replayed for the same request (`Idempotent-Replayed: true`); another request under the same
  key is a 422; a key still being processed is a 409;
* every round appended with its inputs and every die, version bumped by exactly one.
"""

from __future__ import annotations

import inspect
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Body, Depends, Request
from pydantic import BaseModel
from starlette.responses import Response

from app.api.common import JSON, TEXT, wants_text
from app.api.kinds import ContestKind, Schemas, purposes
from app.api.presentation import AnswerTypes
from app.api.routing import LeanRoute
from app.api.security import (
    Role,
    TamperedAnswer,
    bearer_token,
    identify,
    key_digest,
    new_token,
    open_body,
    optional_bearer,
    request_fingerprint,
    seal_body,
    token_hash,
)
from app.errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    PreconditionFailed,
    ServiceUnavailable,
)
from app.notation import NOTATION_ROLLER
from app.rules import serial
from app.rules.dice import Dice, Key, session_round_rng
from app.rules.errors import Loc, RulesError
from app.store import repository
from app.store.database import Contended, Mode, Store, Transaction
from app.store.repository import SessionRecord, StoredResponse

Status = Literal["active", "finished"]
MAX_IDEMPOTENCY_KEY = 255
#: A safety net on rounds played by one `resolve`; every kind's own limit is lower.
MAX_RESOLVE_ROUNDS = 10_000


# --- what a kind provides ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Created:
    """A new session's normalised config and first state."""

    config: dict[str, Any]
    state: dict[str, Any]
    parties: tuple[str, ...] = ()
    status: Status = "active"
    result: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Played:
    """One round played by the rules: the new state and the round's record."""

    state: dict[str, Any]
    finished: bool
    result: dict[str, Any] | None
    #: The API round record without `number`, `rolls` and `summary`.
    record: dict[str, Any]
    summary: str


@dataclass(frozen=True)
class SessionKind:
    """Everything the shared lifecycle needs to know about one kind of long-running contest."""

    path: str
    title: str
    create_model: type[BaseModel]
    create: Callable[[Any, Dice], Created]
    public_state: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
    create_example: dict[str, Any]
    #: Plays one round: (config, state, round body, dice) -> Played. None: no plain rounds.
    play: Callable[[dict[str, Any], dict[str, Any], Any, Dice], Played] | None = None
    round_model: type[BaseModel] | None = None
    round_example: dict[str, Any] | None = None
    #: Who may be named in supplied dice, and for which purposes.
    names: Callable[[dict[str, Any]], Iterable[str]] = lambda _config: ()
    purposes: frozenset[str] = frozenset()
    #: `resolve`: the body it takes and the round body each server-dice round plays.
    resolve_model: type[BaseModel] | None = None
    resolve_round: Callable[[dict[str, Any], dict[str, Any], Any], Any] | None = None
    resolve_example: dict[str, Any] | None = None
    describe: Callable[[dict[str, Any], dict[str, Any], dict[str, Any] | None], str] | None = None
    #: The TypedDicts of the kind's config, state, result and round record (None: untyped).
    schemas: Schemas | None = None

    @property
    def schema_prefix(self) -> str:
        """The kind in schema and operation names: "arm wrestle" -> "ArmWrestle"."""
        return "".join(word.capitalize() for word in self.title.split())

    def answer_types(self) -> AnswerTypes:
        parts = self.schemas or Schemas(dict[str, Any], dict[str, Any], dict[str, Any], Any)
        return AnswerTypes.of(
            self.schema_prefix, parts.config, parts.state, parts.result, parts.round
        )


# --- the unit of work -----------------------------------------------------------------------


class UnitOfWork:
    """The request's one transaction (how it runs on each database: `Store`)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.used = False

    async def run(self, mode: Mode, work: Callable[[Transaction], Awaitable[Any]]) -> Any:
        if self.used:
            raise RuntimeError("one transaction per request")
        self.used = True
        return await self.store.run(mode, work)


async def unit_of_work(request: Request) -> UnitOfWork:
    """The dependency that owns the request's one transaction (`UnitOfWork.run`).

    Injected as `Work` into FastAPI routes; the lean lifecycle routes (see `lean_route`)
    call it themselves.
    """
    store: Store | None = getattr(request.app.state, "store", None)
    if store is None:
        raise ServiceUnavailable("the session store is not configured")
    return UnitOfWork(store)


Work = Annotated[UnitOfWork, Depends(unit_of_work)]


# --- presentation ---------------------------------------------------------------------------


def session_body(kind: SessionKind, record: SessionRecord) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": record.id,
        "kind": record.kind,
        "status": record.status,
        "version": record.version,
        "created_at": record.created_at.astimezone(UTC).isoformat(),
        "updated_at": record.updated_at.astimezone(UTC).isoformat(),
        "config": record.config,
        "state": kind.public_state(record.config, record.state),
        "result": record.result,
        "round": record.rounds_played,
    }
    start_rolls = record.state.get("start_rolls")
    if start_rolls:
        body["start_rolls"] = start_rolls
    if kind.describe is not None:
        body["summary"] = kind.describe(record.config, record.state, record.result)
    return body


def etag(version: int) -> str:
    return f'"{version}"'


def _render(
    request: Request, status: int, body: Mapping[str, Any] | None, headers: dict[str, str]
) -> Response:
    if body is None:
        return Response(status_code=status, headers=headers)
    if wants_text(request) and "summary" in body:
        return Response(str(body["summary"]) + "\n", status, headers=headers, media_type=TEXT)
    return Response(orjson.dumps(body), status, headers=headers, media_type=JSON)


# --- mutations ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredRound:
    number: int
    inputs: dict[str, Any]
    dice: list[dict[str, Any]]
    outcome: dict[str, Any]


@dataclass(frozen=True)
class Change:
    """What a mutation does to a session, and how it answers."""

    state: dict[str, Any]
    status: Status
    result: dict[str, Any] | None
    rounds: list[StoredRound] = field(default_factory=list)
    #: Builds the answer from the updated session: (status code, body).
    answer: Callable[[SessionRecord], tuple[int, dict[str, Any]]] | None = None


@dataclass(frozen=True)
class Deletion:
    """The mutation deletes the session."""


Authorize = Callable[[Role, SessionRecord], None]
Mutation = Callable[[SessionRecord, Role], Change | Deletion]


def gm_only(role: Role, _record: SessionRecord) -> None:
    if not role.is_gm:
        raise Forbidden("only the GM's token may do this")


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    replayed: bool = False


def _if_match(request: Request) -> int | Literal["*"] | None:
    header = request.headers.get("if-match")
    if header is None:
        return None
    value = header.strip()
    if value == "*":
        return "*"
    if value.startswith("W/"):
        value = value[2:]
    value = value.strip('"')
    try:
        return int(value)
    except ValueError:
        raise PreconditionFailed(
            f"If-Match {header!r} does not match the session's version"
        ) from None


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    if not key or len(key) > MAX_IDEMPOTENCY_KEY:
        raise InvalidInput(
            "Idempotency-Key must be 1 to 255 characters",
            errors=[{"loc": ["header", "Idempotency-Key"], "msg": "1 to 255 characters"}],
        )
    return key


async def mutate(
    request: Request,
    work: UnitOfWork,
    kind: SessionKind,
    session_id: str,
    mutation: Mutation,
    *,
    authorize: Authorize = gm_only,
) -> Response:
    """Apply `mutation` to a session under the shared guarantees (see the module docstring)."""
    token = bearer_token(request)
    if_match = _if_match(request)
    keyed = await _keyed(request, f"{kind.path}/{session_id}", token)

    async def transaction(connection: Transaction) -> _Answer:
        reused: InvalidInput | None = None
        if keyed is not None:
            try:
                # Replays come first, so a retried DELETE answers 204 again, not 404.
                replay = await keyed.claim(connection)
            except InvalidInput as exc:
                # Answered once the token is known to hold a role here: a stranger gets 404.
                reused = exc
            else:
                if replay is not None:
                    return replay
        # With a key, the stored answer is written with the change, in a transaction holding
        # the session's row lock; without one, the change is one optimistic statement.
        locking = keyed is not None
        record = await repository.get_session(connection, session_id, kind.path, lock=locking)
        if record is None:
            raise NotFound(f"no {kind.title} with id {session_id}")
        role = identify(token, record.gm_token_hash, record.party_token_hashes)
        if role is None:
            raise NotFound(f"no {kind.title} with id {session_id}")
        if reused is not None:
            raise reused
        authorize(role, record)
        if if_match is not None and if_match != "*" and if_match != record.version:
            raise PreconditionFailed(
                f"If-Match {etag(if_match)} is stale: the session is at version {record.version}"
            )
        change = mutation(record, role)
        if isinstance(change, Deletion):
            await repository.delete_session(connection, record)
            answer = _Answer(204, {}, b"")
        else:
            updated = await repository.update_session(
                connection,
                record,
                status=change.status,
                state=change.state,
                result=change.result,
                updated_at=repository.now(),
                rounds=[
                    {
                        "number": played.number,
                        "inputs": played.inputs,
                        "dice": played.dice,
                        "outcome": played.outcome,
                    }
                    for played in change.rounds
                ],
            )
            if change.answer is None:
                status, body = 200, {"session": session_body(kind, updated)}
            else:
                status, body = change.answer(updated)
            answer = _Answer(status, {"ETag": etag(updated.version)}, orjson.dumps(body))
        if keyed is not None:
            await keyed.remember(connection, answer)
        return answer

    answer = await _guarded(work, transaction, keyed)
    return _answer_response(request, answer)


@dataclass(frozen=True, slots=True)
class _Keyed:
    """A mutating call's Idempotency-Key, within its scope (a session, or a kind's creations)."""

    scope: str
    key: str
    digest: str
    fingerprint: bytes
    ttl: timedelta

    async def claim(self, connection: Transaction) -> _Answer | None:
        """Take the key for this transaction: the stored answer to replay, if there is one.

        409 while another request holds the key; 422 if it was used with another request.
        """
        if not await repository.try_lock_key(connection, self.scope, self.digest):
            raise Conflict("a request with this Idempotency-Key is still being processed")
        stored = await repository.find_response(connection, self.scope, self.digest, ttl=self.ttl)
        if stored is None:
            return None
        if stored.fingerprint != self.fingerprint:
            raise InvalidInput(
                "this Idempotency-Key was used with a different request",
                errors=[
                    {"loc": ["header", "Idempotency-Key"], "msg": "reused with another request"}
                ],
            )
        try:
            body = open_body(self.scope, self.key, stored.body) if stored.body else b""
        except TamperedAnswer:
            logging.getLogger("arbiter").warning(
                "a stored idempotent answer failed authentication (scope %s)", self.scope
            )
            raise Conflict(
                "the answer stored under this Idempotency-Key failed its integrity check and "
                "is not replayed; send the request under a new key"
            ) from None
        return _Answer(stored.status_code, dict(stored.headers), body, True)

    async def remember(self, connection: Transaction, answer: _Answer) -> None:
        """Store the answer in the transaction that made the change it describes."""
        sealed = seal_body(self.scope, self.key, answer.body) if answer.body else b""
        await repository.save_response(
            connection,
            self.scope,
            self.digest,
            StoredResponse(self.fingerprint, answer.status, answer.headers, sealed),
        )


async def _keyed(request: Request, scope: str, token: str | None) -> _Keyed | None:
    key = _idempotency_key(request)
    if key is None:
        return None
    return _Keyed(
        scope,
        key,
        key_digest(scope, key),
        request_fingerprint(request.method, request.url.path, token, await request.body()),
        timedelta(seconds=request.app.state.settings.idempotency_ttl_seconds),
    )


async def _guarded(
    work: UnitOfWork,
    transaction: Callable[[Transaction], Awaitable[_Answer]],
    keyed: _Keyed | None,
) -> _Answer:
    """Run the transaction, refusing a second request under a key still in flight here.

    A keyed change runs in a locking transaction (its answer is stored with it); any other in
    `optimistic` mode (see `Store.run`).
    """
    if keyed is None:
        try:
            answer: _Answer = await work.run("optimistic", transaction)
        except Contended:
            raise Conflict("the session is changing too fast to apply this; retry") from None
        return answer
    marker = (keyed.scope, keyed.key)
    with work.store.in_flight_lock:
        if marker in work.store.in_flight:
            raise Conflict("a request with this Idempotency-Key is still being processed")
        work.store.in_flight.add(marker)
    try:
        answer = await work.run("write", transaction)
        return answer
    finally:
        with work.store.in_flight_lock:
            work.store.in_flight.discard(marker)


def _answer_response(request: Request, answer: _Answer) -> Response:
    headers = dict(answer.headers)
    if answer.replayed:
        headers["Idempotent-Replayed"] = "true"
    if answer.status == 204 or not answer.body:
        return Response(status_code=answer.status, headers=headers)
    if wants_text(request):
        body = orjson.loads(answer.body)
        if isinstance(body, dict) and "summary" in body:
            return _render(request, answer.status, body, headers)
    return Response(answer.body, answer.status, headers=headers, media_type=JSON)


# --- rounds ---------------------------------------------------------------------------------


def supplied_dice(
    kind: SessionKind, known: set[str] | None, rolls: Mapping[str, Mapping[str, Any]] | None
) -> tuple[dict[Key, list[int]], dict[Key, Loc]]:
    """Body dice `{name: {purpose: value or [values]}}` as a `Dice` supply, checked.

    `known` are the names dice may be supplied for; None leaves that to `require_all_used`
    (at creation, before the contest's names are normalised).
    """
    supplied: dict[Key, list[int]] = {}
    locs: dict[Key, Loc] = {}
    if not rolls:
        return supplied, locs
    for name, given in rolls.items():
        by_purpose: Mapping[str, Any] = (
            given.model_dump(exclude_none=True) if isinstance(given, BaseModel) else given
        )
        if known is not None and name not in known:
            raise RulesError(f"{name!r} is not in this contest", ("rolls", name))
        for purpose, value in by_purpose.items():
            if purpose not in kind.purposes:
                allowed = ", ".join(sorted(kind.purposes))
                raise RulesError(
                    f"unknown dice purpose {purpose!r}; expected one of {allowed}",
                    ("rolls", name, purpose),
                )
            values = [value] if isinstance(value, int) else list(value)
            supplied[(name, purpose)] = values
            locs[(name, purpose)] = ("rolls", name, purpose)
    return supplied, locs


def round_dice(
    seed: int | None,
    number: int,
    supplied: Mapping[Key, list[int]] | None = None,
    locs: Mapping[Key, Loc] | None = None,
) -> Dice:
    """Dice for round `number`: supplied values first, then seeded by (seed, number) or CSPRNG."""
    return Dice(session_round_rng(seed, number), supplied, locs=locs, notation=NOTATION_ROLLER)


def play_one(
    kind: SessionKind,
    config: dict[str, Any],
    state: dict[str, Any],
    seed: int | None,
    number: int,
    body: Any,
    rolls: Mapping[str, Mapping[str, Any]] | None,
) -> tuple[Played, StoredRound]:
    """Play round `number`: the rules, then every supplied die checked used, then the record."""
    assert kind.play is not None
    supplied, locs = supplied_dice(kind, set(kind.names(config)), rolls)
    dice = round_dice(seed, number, supplied, locs)
    played = kind.play(config, state, body, dice)
    dice.require_all_used()
    summary = f"Round {number}: {played.summary}"
    outcome = {"number": number, **played.record, "rolls": dice.rolls(), "summary": summary}
    inputs = body.model_dump(mode="json") if isinstance(body, BaseModel) else {}
    return played, StoredRound(number, inputs, outcome["rolls"], outcome)


# --- the router -----------------------------------------------------------------------------


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _declare(
    endpoint: Callable[..., Awaitable[Response]],
    body: tuple[type[BaseModel], str, Mapping[str, Any] | None] | None,
) -> Callable[..., Awaitable[Response]]:
    """Give a lifecycle endpoint the signature `LeanRoute` reads: its path and body."""
    parameters = [
        inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request)
    ]
    if "session_id" in inspect.signature(endpoint).parameters:
        parameters.append(
            inspect.Parameter("session_id", inspect.Parameter.KEYWORD_ONLY, annotation=str)
        )
    if body is not None:
        model, name, example = body
        examples = {name: {"summary": name, "value": dict(example or {})}}
        parameters.append(
            inspect.Parameter(
                "body",
                inspect.Parameter.KEYWORD_ONLY,
                annotation=Annotated[model, Body(openapi_examples=examples)],  # type: ignore[arg-type]
            )
        )
    endpoint.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return endpoint


def session_router(kind: SessionKind) -> APIRouter:
    """The shared lifecycle routes for one kind (API.md "Shared behaviour")."""
    router = APIRouter(
        prefix=f"/v1/{kind.path}",
        tags=[kind.title[0].upper() + kind.title[1:] + "s"],
    )
    answers = kind.answer_types()
    camel = kind.schema_prefix

    async def create(request: Request, body: BaseModel) -> Response:
        """Create a session: 201 with Location, ETag and the tokens (shown only here)."""
        work = await unit_of_work(request)
        seed: int | None = getattr(body, "seed", None)
        rolls = getattr(body, "rolls", None)
        caller = optional_bearer(request)
        keyed = await _keyed(request, creation_scope(kind, caller), caller)

        async def transaction(connection: Transaction) -> _Answer:
            if keyed is not None:
                replay = await keyed.claim(connection)
                if replay is not None:
                    return replay
            answer, tokenless = await _create(kind, body, seed, rolls, connection)
            if keyed is not None:
                # A replay must never hand the tokens to anyone but their creator: they are
                # kept only under a key the caller scoped with a secret of its own.
                await keyed.remember(connection, answer if caller is not None else tokenless)
            return answer

        answer = await _guarded(work, transaction, keyed)
        return _answer_response(request, answer)

    router.add_api_route(
        "",
        _declare(create, (kind.create_model, "create", kind.create_example)),
        methods=["POST"],
        route_class_override=LeanRoute,
        status_code=201,
        response_model=answers.created,
        summary=f"Create {_a(kind.title)}",
        operation_id=f"create{camel}",
    )

    async def get(request: Request, session_id: str) -> Response:
        """The session (any token of this session); ETag carries its version."""
        work = await unit_of_work(request)
        token = bearer_token(request)

        async def transaction(connection: Transaction) -> SessionRecord:
            return await _readable(connection, kind, session_id, token)

        record: SessionRecord = await work.run("read", transaction)
        return _render(request, 200, session_body(kind, record), {"ETag": etag(record.version)})

    router.add_api_route(
        "/{session_id}",
        _declare(get, None),
        methods=["GET"],
        route_class_override=LeanRoute,
        response_model=answers.session,
        summary=f"Get {_a(kind.title)}",
        operation_id=f"get{camel}",
    )

    async def rounds(request: Request, session_id: str) -> Response:
        """Every round played so far, oldest first (any token of this session)."""
        work = await unit_of_work(request)
        token = bearer_token(request)

        async def transaction(
            connection: Transaction,
        ) -> tuple[SessionRecord, list[dict[str, Any]]]:
            record = await _readable(connection, kind, session_id, token)
            return record, await repository.list_rounds(connection, session_id)

        record, played = await work.run("read", transaction)
        return _render(request, 200, {"rounds": played}, {"ETag": etag(record.version)})

    router.add_api_route(
        "/{session_id}/rounds",
        _declare(rounds, None),
        methods=["GET"],
        route_class_override=LeanRoute,
        response_model=answers.rounds,
        summary=f"Rounds of {_a(kind.title)}",
        operation_id=f"list{camel}Rounds",
    )

    if kind.play is not None and kind.round_model is not None:

        async def play_round(request: Request, session_id: str, body: BaseModel) -> Response:
            """Play one round (GM token) with supplied or server dice."""
            work = await unit_of_work(request)

            def mutation(record: SessionRecord, _role: Role) -> Change:
                _active(record)
                played, stored = play_one(
                    kind,
                    record.config,
                    record.state,
                    record.seed,
                    record.rounds_played + 1,
                    body,
                    getattr(body, "rolls", None),
                )
                return Change(
                    played.state,
                    "finished" if played.finished else "active",
                    played.result,
                    [stored],
                    lambda updated: (
                        200,
                        {
                            "round": stored.outcome,
                            "session": session_body(kind, updated),
                            "summary": stored.outcome["summary"],
                        },
                    ),
                )

            return await mutate(request, work, kind, session_id, mutation)

        router.add_api_route(
            "/{session_id}/rounds",
            _declare(play_round, (kind.round_model, "round", kind.round_example)),
            methods=["POST"],
            route_class_override=LeanRoute,
            response_model=answers.round,
            summary=f"Play a round of {_a(kind.title)}",
            operation_id=f"play{camel}Round",
        )

    if kind.resolve_round is not None:
        resolve_round = kind.resolve_round
        resolve_model = kind.resolve_model

        async def resolve(request: Request, session_id: str, body: Any = None) -> Response:
            """Play rounds with server dice until the contest finishes (GM token)."""
            work = await unit_of_work(request)

            def mutation(record: SessionRecord, _role: Role) -> Change:
                _active(record)
                state = record.state
                played_rounds: list[StoredRound] = []
                finished, result = False, record.result
                number = record.rounds_played
                while not finished and len(played_rounds) < MAX_RESOLVE_ROUNDS:
                    number += 1
                    round_body = resolve_round(record.config, state, body)
                    played, stored = play_one(
                        kind, record.config, state, record.seed, number, round_body, None
                    )
                    state, finished, result = played.state, played.finished, played.result
                    played_rounds.append(stored)
                return Change(
                    state,
                    "finished" if finished else "active",
                    result,
                    played_rounds,
                    lambda updated: (
                        200,
                        {
                            "session": session_body(kind, updated),
                            "rounds": [stored.outcome for stored in played_rounds],
                            "summary": played_rounds[-1].outcome["summary"]
                            if played_rounds
                            else "Nothing to play.",
                        },
                    ),
                )

            return await mutate(request, work, kind, session_id, mutation)

        router.add_api_route(
            "/{session_id}/resolve",
            _declare(
                resolve,
                None if resolve_model is None else (resolve_model, "resolve", kind.resolve_example),
            ),
            methods=["POST"],
            route_class_override=LeanRoute,
            response_model=answers.resolved,
            summary=f"Play {_a(kind.title)} to its end",
            operation_id=f"resolve{camel}",
        )

    async def remove(request: Request, session_id: str) -> Response:
        """Delete the session and its rounds (GM token); afterwards it is 404."""
        work = await unit_of_work(request)
        await parse_body_optional(request)
        return await mutate(request, work, kind, session_id, lambda _record, _role: Deletion())

    router.add_api_route(
        "/{session_id}",
        _declare(remove, None),
        methods=["DELETE"],
        route_class_override=LeanRoute,
        status_code=204,
        response_class=Response,
        summary=f"Delete {_a(kind.title)}",
        operation_id=f"delete{camel}",
    )
    return router


async def parse_body_optional(request: Request) -> None:
    """Bodies on DELETE are ignored, but still count towards the size limit."""
    await request.body()


def _active(record: SessionRecord) -> None:
    if record.status != "active":
        raise Conflict("the contest is finished")


async def _readable(
    connection: Transaction, kind: SessionKind, session_id: str, token: str
) -> SessionRecord:
    record = await repository.get_session(connection, session_id, kind.path, lock=False)
    if record is None or identify(token, record.gm_token_hash, record.party_token_hashes) is None:
        raise NotFound(f"no {kind.title} with id {session_id}")
    return record


def creation_scope(kind: SessionKind, caller: str | None) -> str:
    """Where a creation's Idempotency-Key lives: the kind's, or the caller's within it.

    A caller that sends `Authorization: Bearer <a secret of its own>` with a creation scopes
    its keys to that secret, and a replay answers the tokens again. Without one, keys are
    shared by every caller of the kind, so a replay answers the session without its tokens.
    """
    if caller is None:
        return f"create/{kind.path}"
    # 128 bits of the secret's digest: enough to keep callers apart, and the scope fits its
    # column (64 characters) for every kind's path.
    return f"create/{kind.path}/{token_hash(caller)[:32]}"


async def _create(
    kind: SessionKind,
    body: BaseModel,
    seed: int | None,
    rolls: Mapping[str, Mapping[str, Any]] | None,
    connection: Transaction,
) -> tuple[_Answer, _Answer]:
    """The new session's answer, and the same answer without its tokens."""
    # Dice at creation (a chase's initiative) derive from (seed, round 0).
    supplied, locs = supplied_dice(kind, None, rolls)
    dice = round_dice(seed, 0, supplied, locs)
    created = kind.create(body, dice)
    dice.require_all_used()
    state = dict(created.state)
    if dice.log:
        state["start_rolls"] = dice.rolls()
    gm_token = new_token()
    party_tokens = {party: new_token() for party in created.parties}
    stamp = repository.now()
    record = SessionRecord(
        id=uuid.uuid4().hex,
        kind=kind.path,
        status=created.status,
        version=1,
        rounds_played=0,
        config=created.config,
        state=state,
        result=created.result,
        seed=seed,
        gm_token_hash=token_hash(gm_token),
        party_token_hashes={party: token_hash(token) for party, token in party_tokens.items()},
        created_at=stamp,
        updated_at=stamp,
    )
    await repository.insert_session(connection, record)
    tokens: dict[str, Any] = {"gm": gm_token}
    if party_tokens:
        tokens["parties"] = party_tokens
    public = session_body(kind, record)
    headers = {"Location": f"/v1/{kind.path}/{record.id}", "ETag": etag(1)}
    return (
        _Answer(201, headers, orjson.dumps({**public, "tokens": tokens})),
        _Answer(201, headers, orjson.dumps(public)),
    )


# --- the bridge from a `ContestKind` (app/api/kinds.py) to this lifecycle --------------------


def from_contest_kind(kind: ContestKind[Any, Any, Any]) -> SessionKind:
    """A `SessionKind` whose dict-level functions go through a typed `ContestKind`."""

    def load(config: Mapping[str, Any], state: Mapping[str, Any]) -> tuple[Any, Any]:
        return serial.load(kind.config_type, config), serial.load(kind.state_type, state)

    def create(body: Any, dice: Dice) -> Created:
        config, state = kind.start(body, dice)
        finished = kind.finished(state)
        return Created(
            dict(kind.public_config(config)),
            serial.dump(state),
            parties=kind.parties(config),
            status="finished" if finished else "active",
            result=_plain(kind.result(config, state)),
        )

    def play(
        config_data: dict[str, Any], state_data: dict[str, Any], body: Any, dice: Dice
    ) -> Played:
        config, state = load(config_data, state_data)
        new_state, played = kind.play(config, state, body, dice)
        stored = serial.dump(new_state)
        if "start_rolls" in state_data:
            stored["start_rolls"] = state_data["start_rolls"]
        return Played(
            stored,
            kind.finished(new_state),
            _plain(kind.result(config, new_state)),
            dict(kind.round_record(config, new_state, played)),
            kind.round_summary(config, new_state, played),
        )

    def public_state(config_data: dict[str, Any], state_data: dict[str, Any]) -> dict[str, Any]:
        return dict(kind.public_state(*load(config_data, state_data)))

    def describe(
        config_data: dict[str, Any], state_data: dict[str, Any], _result: dict[str, Any] | None
    ) -> str:
        return kind.describe(*load(config_data, state_data)) or ""

    def resolve_round(config_data: dict[str, Any], state_data: dict[str, Any], body: Any) -> Any:
        return kind.resolve_move(*load(config_data, state_data), body)

    return SessionKind(
        path=kind.path,
        title=kind.title,
        create_model=kind.create_model,
        create=create,
        public_state=public_state,
        create_example=dict(kind.examples.create),
        play=play if kind.round_model is not None else None,
        round_model=kind.round_model,
        round_example=None if kind.examples.round is None else dict(kind.examples.round),
        names=lambda config: kind.names(serial.load(kind.config_type, config)),
        purposes=purposes(kind),
        resolve_model=kind.resolve_model,
        resolve_round=resolve_round if kind.resolvable else None,
        resolve_example=None if kind.examples.resolve is None else dict(kind.examples.resolve),
        describe=describe,
        schemas=kind.schemas,
    )


def _plain(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if result is None else dict(result)
