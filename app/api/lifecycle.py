"""Long-running contests: the lifecycle every kind shares (API.md "Shared behaviour").

`routes(kind)` turns a `ContestKind` into its create / get / rounds / round / resolve / delete
routes, plus the kind's own (`extra_routes`). Every change, the kinds' own included, goes
through `mutate`, which gives it the same guarantees:

* one write transaction per request (see app/store/database.py);
* tokens checked in constant time: no token 401, a token of no role in this session 404,
  a role that may not do this 403;
* `If-Match` against the session's version (412 and nothing changes);
* `Idempotency-Key` (app/api/idempotency.py): the stored answer is written in the same
  transaction as the change and replayed for the same request;
* every round appended with its inputs and every die, version bumped by exactly one.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Generic, Literal, TypeVar

import orjson
from fastapi import APIRouter, Body, Request
from pydantic import BaseModel
from starlette.responses import Response
from starlette.routing import BaseRoute

from app.api.common import examples, respond
from app.api.idempotency import Answer, answer_response, creation_scope, guarded, keyed
from app.api.kinds import ContestKind, load_session, purposes
from app.api.presentation import AnswerTypes, etag, session_answer
from app.api.routing import LeanRoute
from app.api.security import (
    Role,
    bearer_token,
    identify,
    new_token,
    optional_bearer,
    token_hash,
)
from app.api.work import unit_of_work
from app.errors import Conflict, Forbidden, InvalidInput, NotFound, PreconditionFailed
from app.notation import NOTATION_ROLLER
from app.rules import serial
from app.rules.dice import Dice, Key, session_round_rng
from app.rules.errors import Loc, RulesError
from app.store import repository
from app.store.database import Transaction
from app.store.repository import SessionRecord

Status = Literal["active", "finished"]
StateT = TypeVar("StateT")
AnyKind = ContestKind[Any, Any, Any]
#: A safety net on rounds played by one `resolve`; every kind's own limit is lower.
MAX_RESOLVE_ROUNDS = 10_000
#: Dice rolled at a session's creation (a chase's initiative), kept beside its state.
START_ROLLS = "start_rolls"


# --- changes --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A round as the store keeps it: its inputs, every die, and the record the API shows."""

    number: int
    inputs: dict[str, Any]
    dice: list[dict[str, Any]]
    outcome: dict[str, Any]


@dataclass(frozen=True)
class Change(Generic[StateT]):
    """What a mutation does to a session, and how it answers."""

    state: StateT
    status: Status
    result: Mapping[str, Any] | None
    rounds: list[StoredRound] = field(default_factory=list)
    #: Builds the answer from the updated session: (status code, body).
    answer: Callable[[SessionRecord], tuple[int, Mapping[str, Any]]] | None = None


@dataclass(frozen=True)
class Deletion:
    """The mutation deletes the session."""


Authorize = Callable[[Role, SessionRecord], None]
Mutation = Callable[[SessionRecord, Role], Change[Any] | Deletion]


def gm_only(role: Role, _record: SessionRecord) -> None:
    if not role.is_gm:
        raise Forbidden("only the GM's token may do this")


def require_active(record: SessionRecord, what: str = "the contest") -> None:
    if record.status != "active":
        raise Conflict(f"{what} is finished")


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


def _stored_state(state: Any, before: Mapping[str, Any]) -> dict[str, Any]:
    """The state to store: the rules' state, keeping the dice rolled at creation."""
    stored: dict[str, Any] = serial.dump(state)
    if START_ROLLS in before:
        stored[START_ROLLS] = before[START_ROLLS]
    return stored


async def mutate(
    request: Request,
    kind: AnyKind,
    session_id: str,
    mutation: Mutation,
    *,
    authorize: Authorize = gm_only,
) -> Response:
    """Apply `mutation` to a session under the shared guarantees (see the module docstring)."""
    work = unit_of_work(request)
    token = bearer_token(request)
    if_match = _if_match(request)
    key = await keyed(request, f"{kind.path}/{session_id}", token)

    async def transaction(connection: Transaction) -> Answer:
        reused: InvalidInput | None = None
        if key is not None:
            try:
                # Replays come first, so a retried DELETE answers 204 again, not 404.
                replay = await key.claim(connection)
            except InvalidInput as exc:
                # Answered once the token is known to hold a role here: a stranger gets 404.
                reused = exc
            else:
                if replay is not None:
                    return replay
        # With a key, the stored answer is written with the change, in a transaction holding
        # the session's row lock; without one, the change is one optimistic statement.
        record = await repository.get_session(
            connection, session_id, kind.path, lock=key is not None
        )
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
            answer = Answer(204, {}, b"")
        else:
            updated = await repository.update_session(
                connection,
                record,
                status=change.status,
                state=_stored_state(change.state, record.state),
                result=None if change.result is None else dict(change.result),
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
            body: Mapping[str, Any]
            if change.answer is None:
                status, body = 200, {"session": session_answer(kind, updated)}
            else:
                status, body = change.answer(updated)
            answer = Answer(status, {"ETag": etag(updated.version)}, orjson.dumps(body))
        if key is not None:
            await key.remember(connection, answer)
        return answer

    return answer_response(request, await guarded(work, transaction, key))


# --- rounds ---------------------------------------------------------------------------------


def supplied_dice(
    kind: AnyKind, known: set[str] | None, rolls: Mapping[str, Any] | None
) -> tuple[dict[Key, list[int]], dict[Key, Loc]]:
    """Body dice `{name: {purpose: value or [values]}}` as a `Dice` supply, checked.

    `known` are the names dice may be supplied for; None leaves that to `require_all_used`
    (at creation, before the contest's names are normalised).
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
            raise RulesError(f"{name!r} is not in this contest", ("rolls", name))
        for purpose, value in by_purpose.items():
            if purpose not in allowed:
                raise RulesError(
                    f"unknown dice purpose {purpose!r}; expected one of "
                    f"{', '.join(sorted(allowed))}",
                    ("rolls", name, purpose),
                )
            supplied[(name, purpose)] = [value] if isinstance(value, int) else list(value)
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
    kind: ContestKind[Any, StateT, Any],
    config: Any,
    state: StateT,
    seed: int | None,
    number: int,
    body: Any,
) -> tuple[StateT, StoredRound]:
    """Play round `number`: the rules, then every supplied die checked used, then the record."""
    supplied, locs = supplied_dice(kind, set(kind.names(config)), getattr(body, "rolls", None))
    dice = round_dice(seed, number, supplied, locs)
    after, played = kind.play(config, state, body, dice)
    dice.require_all_used()
    summary = f"Round {number}: {kind.round_summary(config, after, played)}"
    rolls = dice.rolls()
    outcome = {
        "number": number,
        **kind.round_record(config, after, played),
        "rolls": rolls,
        "summary": summary,
    }
    inputs = body.model_dump(mode="json") if isinstance(body, BaseModel) else {}
    return after, StoredRound(number, inputs, rolls, outcome)


def _status(kind: AnyKind, state: Any) -> Status:
    return "finished" if kind.finished(state) else "active"


# --- the routes -----------------------------------------------------------------------------


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def schema_prefix(kind: AnyKind) -> str:
    """The kind in schema and operation names: "arm wrestle" -> "ArmWrestle"."""
    return "".join(word.capitalize() for word in kind.title.split())


def kind_router(kind: AnyKind) -> APIRouter:
    """An empty router for a kind's routes: its prefix, its tag, the lean route class."""
    return APIRouter(
        prefix=f"/v1/{kind.path}",
        tags=[kind.title[0].upper() + kind.title[1:] + "s"],
        route_class=LeanRoute,
    )


def _declare(
    endpoint: Callable[..., Awaitable[Response]],
    body: tuple[type[BaseModel], str, Mapping[str, Any] | None] | None,
) -> Callable[..., Awaitable[Response]]:
    """Give a lifecycle endpoint the signature `LeanRoute` reads: its path and its kind's body.

    The endpoints are written once for every kind, so their body's type is set here.
    """
    parameters = [
        inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request)
    ]
    if "session_id" in inspect.signature(endpoint).parameters:
        parameters.append(
            inspect.Parameter("session_id", inspect.Parameter.KEYWORD_ONLY, annotation=str)
        )
    if body is not None:
        model, name, example = body
        parameters.append(
            inspect.Parameter(
                "body",
                inspect.Parameter.KEYWORD_ONLY,
                annotation=Annotated[
                    model, Body(openapi_examples=examples({name: dict(example or {})}))
                ],
            )
        )
    endpoint.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    return endpoint


@cache
def routes(kind: AnyKind) -> tuple[BaseRoute, ...]:
    """The shared lifecycle routes of one kind, then the kind's own.

    Built once per kind by the first `create_app` (routes hold no state; building one
    generates its schemas, which costs far more than serving a request).
    """
    router = kind_router(kind)
    answers = AnswerTypes.of(schema_prefix(kind), kind.schemas.session, kind.schemas.round)
    prefix = schema_prefix(kind)

    async def create(request: Request, body: BaseModel) -> Response:
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

    router.add_api_route(
        "",
        _declare(create, (kind.create_model, "create", kind.examples.create)),
        methods=["POST"],
        status_code=201,
        response_model=answers.created,
        summary=f"Create {_a(kind.title)}",
        operation_id=f"create{prefix}",
    )

    async def get(request: Request, session_id: str) -> Response:
        """The session (any token of this session); ETag carries its version."""
        token = bearer_token(request)

        async def transaction(connection: Transaction) -> SessionRecord:
            return await _readable(connection, kind, session_id, token)

        record = await unit_of_work(request).run("read", transaction)
        return respond(request, session_answer(kind, record), 200, {"ETag": etag(record.version)})

    router.add_api_route(
        "/{session_id}",
        _declare(get, None),
        methods=["GET"],
        response_model=answers.session,
        summary=f"Get {_a(kind.title)}",
        operation_id=f"get{prefix}",
    )

    async def rounds(request: Request, session_id: str) -> Response:
        """Every round played so far, oldest first (any token of this session)."""
        token = bearer_token(request)

        async def transaction(
            connection: Transaction,
        ) -> tuple[SessionRecord, list[dict[str, Any]]]:
            record = await _readable(connection, kind, session_id, token)
            return record, await repository.list_rounds(connection, session_id)

        record, played = await unit_of_work(request).run("read", transaction)
        return respond(request, {"rounds": played}, 200, {"ETag": etag(record.version)})

    router.add_api_route(
        "/{session_id}/rounds",
        _declare(rounds, None),
        methods=["GET"],
        response_model=answers.rounds,
        summary=f"Rounds of {_a(kind.title)}",
        operation_id=f"list{prefix}Rounds",
    )

    if kind.round_model is not None:

        async def play_round(request: Request, session_id: str, body: BaseModel) -> Response:
            """Play one round (GM token) with supplied or server dice."""

            def mutation(record: SessionRecord, _role: Role) -> Change[Any]:
                require_active(record)
                config, state = load_session(kind, record.config, record.state)
                after, stored = play_one(
                    kind, config, state, record.seed, record.rounds_played + 1, body
                )
                return Change(
                    after,
                    _status(kind, after),
                    kind.result(config, after),
                    [stored],
                    lambda updated: (
                        200,
                        {
                            "round": stored.outcome,
                            "session": session_answer(kind, updated),
                            "summary": stored.outcome["summary"],
                        },
                    ),
                )

            return await mutate(request, kind, session_id, mutation)

        router.add_api_route(
            "/{session_id}/rounds",
            _declare(play_round, (kind.round_model, "round", kind.examples.round)),
            methods=["POST"],
            response_model=answers.round,
            summary=f"Play a round of {_a(kind.title)}",
            operation_id=f"play{prefix}Round",
        )

    if kind.resolvable:

        async def resolve(request: Request, session_id: str, body: Any = None) -> Response:
            """Play rounds with server dice until the contest finishes (GM token)."""

            def mutation(record: SessionRecord, _role: Role) -> Change[Any]:
                require_active(record)
                config, state = load_session(kind, record.config, record.state)
                played: list[StoredRound] = []
                number = record.rounds_played
                while not kind.finished(state) and len(played) < MAX_RESOLVE_ROUNDS:
                    number += 1
                    move = kind.resolve_move(config, state, body)
                    state, stored = play_one(kind, config, state, record.seed, number, move)
                    played.append(stored)
                return Change(
                    state,
                    _status(kind, state),
                    kind.result(config, state),
                    played,
                    lambda updated: (
                        200,
                        {
                            "session": session_answer(kind, updated),
                            "rounds": [stored.outcome for stored in played],
                            "summary": played[-1].outcome["summary"]
                            if played
                            else "Nothing to play.",
                        },
                    ),
                )

            return await mutate(request, kind, session_id, mutation)

        resolve_body = kind.resolve_model
        router.add_api_route(
            "/{session_id}/resolve",
            _declare(
                resolve,
                None if resolve_body is None else (resolve_body, "resolve", kind.examples.resolve),
            ),
            methods=["POST"],
            response_model=answers.resolved,
            summary=f"Play {_a(kind.title)} to its end",
            operation_id=f"resolve{prefix}",
        )

    async def remove(request: Request, session_id: str) -> Response:
        """Delete the session and its rounds (GM token); afterwards it is 404."""
        await request.body()  # ignored, but it still counts towards the size limit
        return await mutate(request, kind, session_id, lambda _record, _role: Deletion())

    router.add_api_route(
        "/{session_id}",
        _declare(remove, None),
        methods=["DELETE"],
        status_code=204,
        response_class=Response,
        summary=f"Delete {_a(kind.title)}",
        operation_id=f"delete{prefix}",
    )
    return (*router.routes, *kind.extra_routes())


async def _readable(
    connection: Transaction, kind: AnyKind, session_id: str, token: str
) -> SessionRecord:
    record = await repository.get_session(connection, session_id, kind.path, lock=False)
    if record is None or identify(token, record.gm_token_hash, record.party_token_hashes) is None:
        raise NotFound(f"no {kind.title} with id {session_id}")
    return record


async def _create(kind: AnyKind, body: BaseModel, connection: Transaction) -> tuple[Answer, Answer]:
    """The new session's answer, and the same answer without its tokens."""
    seed: int | None = getattr(body, "seed", None)
    # Dice at creation (a chase's initiative) derive from (seed, round 0).
    supplied, locs = supplied_dice(kind, None, getattr(body, "rolls", None))
    dice = round_dice(seed, 0, supplied, locs)
    config, state = kind.start(body, dice)
    dice.require_all_used()
    stored_state = serial.dump(state)
    if dice.log:
        stored_state[START_ROLLS] = dice.rolls()
    result = kind.result(config, state)
    gm_token = new_token()
    party_tokens = {party: new_token() for party in kind.parties(config)}
    stamp = repository.now()
    record = SessionRecord(
        id=uuid.uuid4().hex,
        kind=kind.path,
        status=_status(kind, state),
        version=1,
        rounds_played=0,
        config=dict(kind.public_config(config)),
        state=stored_state,
        result=None if result is None else dict(result),
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
    public = session_answer(kind, record)
    headers = {"Location": f"/v1/{kind.path}/{record.id}", "ETag": etag(1)}
    return (
        Answer(201, headers, orjson.dumps({**public, "tokens": tokens})),
        Answer(201, headers, orjson.dumps(public)),
    )
