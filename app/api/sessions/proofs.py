"""A verifiable session's seeds and proof (docs/verifiable-dice.md, docs/api.md#verifiable-dice).

`POST …/{id}/seeds`: any token of the session adds its seed, once, before the session's first
change of any other kind (a change through `mutate`, with its guarantees). `GET …/{id}/proof`:
any token reads the commitment, the seeds added and the chain's head; once the session is
finished, ended by its GM or deleted, the server seed too and every round as chained with its
link (a bidding game's losing actions sealed, opened to their party and the GM), a page at a
time. Every kind's sessions have both (the lifecycle is shared).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache, partial
from typing import Annotated, Any, Literal, NotRequired

from fastapi import APIRouter, Query, Request
from pydantic import with_config
from starlette.responses import Response
from typing_extensions import TypedDict

from app.api import i18n
from app.api.common import message_doc, respond
from app.api.kinds import AnyKind, load_session
from app.api.routing import DeferredBody, answers, declare_body
from app.api.schemas.common import ANSWER, RollRecord, SeedBody
from app.api.sessions import pending, verifiable
from app.api.sessions.lifecycle import (
    MAX_PAGE,
    START_ROLLS,
    Change,
    SettleFirst,
    bound,
    kind_router,
    mutate,
    require_active,
    schema_prefix,
    settled_read,
)
from app.api.sessions.presentation import AnswerTypes, etag, session_answer
from app.api.sessions.security import Role, bearer_token, role_of
from app.api.sessions.work import has_replica, lagging_read, unit_of_work
from app.errors import Conflict, not_found
from app.rules.messages import N_, m, term
from app.rules.verifiable import SCHEME, seeds_digest
from app.store import repository
from app.store.database import Transaction
from app.store.repository import DELETED, SessionRecord

#: Rounds a proof lists per page, by default.
DEFAULT_PROOF_PAGE = 100


@with_config(ANSWER)
class AddedSeedRecord(TypedDict):
    """A seed a token holder added: who (`gm`, `party:<name>`, `seat:<name>`) and the seed."""

    by: str
    seed: str


@with_config(ANSWER)
class ProofGenesis(TypedDict):
    """The chain's first record (docs/verifiable-dice.md#the-chain)."""

    scheme: str
    session: str
    kind: str
    commitment: str
    config: dict[str, Any]
    start_rolls: list[RollRecord]


@with_config(ANSWER)
class ProofOpening(TypedDict):
    """What a sealed choice hides, and the salt it was sealed with: the SHA-256 of this
    object's canonical JSON is the choice's `seal` (docs/verifiable-dice.md#sealed-choices)."""

    action: str
    salt: str


@with_config(ANSWER)
class ProofRound(TypedDict):
    """A stored round as the chain covers it (a bidding game's losing actions sealed), and
    its link."""

    number: int
    inputs: dict[str, Any]
    dice: list[RollRecord]
    outcome: dict[str, Any]
    link: str
    #: The sealed choices this token may open, by party: all of them for the GM's, its own
    #: for a party's; absent when none.
    openings: NotRequired[dict[str, ProofOpening]]


@with_config(ANSWER)
class Proof(TypedDict):
    """A verifiable session's proof (docs/verifiable-dice.md#the-proof): while it runs, the
    commitment, the seeds added and the chain's head; once it is over (`revealed`), the
    server seed too and its rounds as chained, a page at a time (`after`, `limit`)."""

    scheme: str
    session: str
    kind: str
    status: Literal["active", "finished", "deleted"]
    revealed: bool
    commitment: str
    seeds: list[AddedSeedRecord]
    seeds_digest: str
    seeds_open: bool
    #: The seeds' link in the chain, once no more are taken (null while they still are).
    seeds_link: str | None
    chain_head: str
    rounds_played: int
    genesis: ProofGenesis
    #: hash_0, the genesis record's link.
    genesis_link: str
    server_seed: NotRequired[str]
    rounds: NotRequired[list[ProofRound]]
    summary: str


def _public(kind: AnyKind, record: SessionRecord) -> dict[str, Any]:
    public = verifiable.block(record)
    if public is None:
        raise Conflict(m("this {kind}'s dice are not verifiable", kind=term(kind.title)))
    return public


async def add_seed(
    kind: AnyKind, request: Request, session_id: str, body: DeferredBody[SeedBody]
) -> Response:
    """Add this token's seed to a verifiable session (any token of the session, once each),
    before its first change of any other kind: every server die derives from it too."""

    def mutation(record: SessionRecord, role: Role) -> Change[Any]:
        require_active(record)
        public = _public(kind, record)
        if not public["open"]:
            raise Conflict(N_("seeds are taken only before the session's first round"))
        by = verifiable.supplier(role)
        if any(entry["by"] == by for entry in public["seeds"]):
            raise Conflict(m("this token ({by}) has added its seed already", by=by))
        seeds = [*public["seeds"], {"by": by, "seed": body.value.seed}]
        _config, state = load_session(kind, record.config, record.state, record.id)
        return Change(
            state,
            "active",
            record.result,
            answer=lambda updated: (
                200,
                {
                    "seeds": seeds,
                    "seeds_digest": seeds_digest(seeds),
                    "session": session_answer(kind, updated, state),
                    "summary": i18n.said(
                        m("{by} added a seed ({count} in all).", by=by, count=len(seeds))
                    ),
                },
            ),
            event="seed",
            verifiable={**public, "seeds": seeds},
        )

    return await mutate(request, kind, session_id, mutation, authorize=_anyone, body=body)


def _anyone(_role: Role, _record: SessionRecord) -> None:
    """Every token of the session may add its seed."""


async def proof(
    kind: AnyKind,
    request: Request,
    session_id: str,
    after: Annotated[
        int, Query(ge=0, le=2**31 - 1, description="once revealed: rounds numbered above this")
    ] = 0,
    limit: Annotated[
        int, Query(ge=1, le=MAX_PAGE, description="once revealed: at most this many rounds")
    ] = DEFAULT_PROOF_PAGE,
) -> Response:
    """A verifiable session's proof (any token of the session, also for the retention period
    after its GM deleted it): the commitment, the seeds added and the chain's head; once the
    session is finished, ended or deleted, its server seed and every round as chained with its
    link, and the sealed choices this token may open.

    `Link: <…>; rel="next"` points at the next page of rounds while more remain.
    """
    token = bearer_token(request)

    async def transaction(
        connection: Transaction, now: datetime | None
    ) -> tuple[SessionRecord, list[dict[str, Any]] | None]:
        record = await repository.get_session_or_proof(connection, session_id, kind.path)
        role = None if record is None else role_of(token, record)
        if record is None or role is None:
            raise not_found(kind.title, session_id)
        _public(kind, record)
        if record.status != DELETED and now is not None and pending.due(record, now):
            raise SettleFirst
        if record.status == "active" or replicated:
            return record, None
        return record, await rounds_page(connection, role)

    async def rounds_page(connection: Transaction, role: Role) -> list[dict[str, Any]]:
        page = await repository.list_proof_rounds(connection, session_id, after=after, limit=limit)
        view = kind.round_view.proof if kind.round_view is not None else None
        if view is not None:
            # As the live events read a role: the GM's token (None) or its party (a seat has none).
            reader = None if role.is_gm else role.party
            page = [view(stored, reader) for stored in page]
        return page

    # With a read replica, an ended session's rounds (which no longer change) are read there.
    replicated = has_replica(request)
    record, page = await settled_read(request, kind, session_id, transaction)
    if replicated and record.status != "active":
        role = role_of(token, record)
        assert role is not None  # the read above found the token's role

        async def on_replica(connection: Transaction) -> list[dict[str, Any]] | None:
            # The replica's copy at the version the primary answered with holds every round
            # of it (each committed before the change that ended the session); at any other
            # version (not replayed yet, or changed since), the primary answers.
            seen = await repository.get_session_or_proof(connection, session_id, kind.path)
            if seen is None or seen.version != record.version:
                return None
            return await rounds_page(connection, role)

        page = await lagging_read(request, on_replica)
        if page is None:
            page = await unit_of_work(request).run("read", partial(rounds_page, role=role))
    public = _public(kind, record)
    status: Literal["active", "finished", "deleted"] = (
        "deleted"
        if record.status == DELETED
        else "finished"
        if record.status == "finished"
        else "active"
    )
    start_rolls = record.state.get(START_ROLLS, [])
    answer: Proof = {
        "scheme": SCHEME,
        "session": record.id,
        "kind": record.kind,
        "status": status,
        "revealed": page is not None,
        "commitment": public["commitment"],
        "seeds": public["seeds"],
        "seeds_digest": seeds_digest(public["seeds"]),
        "seeds_open": bool(public["open"]) and status == "active",
        "seeds_link": public.get("seeds_link"),
        "chain_head": public["head"],
        "rounds_played": record.rounds_played,
        "genesis": verifiable.genesis_of(record, start_rolls),  # type: ignore[typeddict-item]
        "genesis_link": public["genesis_link"],
        "summary": "",
    }
    headers = {"ETag": etag(record.version)}
    if page is None:
        answer["summary"] = i18n.said(
            m(
                "Dice committed to {commitment}…, {seeds} seed(s) added, {rounds} round(s) "
                "chained; the server seed is revealed once the session is over.",
                commitment=public["commitment"][:16],
                seeds=len(public["seeds"]),
                rounds=record.rounds_played,
            )
        )
    else:
        answer["server_seed"] = verifiable.server_seed(record).hex()
        answer["rounds"] = page  # type: ignore[typeddict-item]
        last = after + len(page)
        if page and last < record.rounds_played:
            headers["Link"] = (
                f'</v1/{kind.path}/{session_id}/proof?after={last}&limit={limit}>; rel="next"'
            )
        answer["summary"] = i18n.said(
            m(
                "Server seed revealed; {rounds} round(s) chained to {head}…",
                rounds=record.rounds_played,
                head=public["head"][:16],
            )
        )
    return respond(request, answer, 200, headers)


@cache
def router(kind: AnyKind) -> APIRouter:
    """A kind's seeds and proof routes."""
    routes = kind_router(kind)
    prefix = schema_prefix(kind)
    answer = AnswerTypes.of(prefix, kind.schemas.session, kind.schemas.round)
    seeded = _seeded(prefix, answer.session)
    routes.add_api_route(
        "/{session_id}/seeds",
        declare_body(bound(add_seed, kind), SeedBody, {"seed": {"seed": "my lucky words"}}),
        methods=["POST"],
        operation_id=f"add{prefix}Seed",
        name=f"add{prefix}Seed",
        responses=message_doc(model=seeded),
        summary=f"Add a seed to {'an' if kind.title[0] in 'aeiou' else 'a'} {kind.title} "
        "with verifiable dice",
    )
    routes.add_api_route(
        "/{session_id}/proof",
        bound(proof, kind),
        methods=["GET"],
        operation_id=f"get{prefix}Proof",
        name=f"get{prefix}Proof",
        responses=answers(200, Proof),
        summary=f"The proof of {'an' if kind.title[0] in 'aeiou' else 'a'} {kind.title}'s "
        "verifiable dice",
    )
    return routes


def _seeded(prefix: str, session: Any) -> Any:
    factory: Any = TypedDict
    made = factory(
        f"{prefix}SeedAdded",
        {
            "seeds": list[AddedSeedRecord],
            "seeds_digest": str,
            "session": session,
            "summary": str,
        },
    )
    made.__doc__ = "The seeds added so far (the new one last), their digest, and the session."
    return with_config(ANSWER)(made)


def routers(kinds: Any) -> list[APIRouter]:
    """The seeds and proof routers of every kind among `kinds` (a kind's path to the kind)."""
    return [router(kind) for kind in kinds.values()]
