"""`Idempotency-Key`: one claim per keyed request, answered by a replay, a claim, or a refusal.

The stored answer is written in the same transaction as the change it describes, keyed by the
digest of (scope, key) and sealed under the raw key (app/api/sessions/security.py). A key's scope is
the token that used it within its session (`session_scope`: no other token of the session,
whatever its role, can block, probe or replay it), or for creations the kind, narrowed to the
caller when it sends a bearer secret of its own (`creation_scope`).
"""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

import orjson
from fastapi import Request
from starlette.responses import Response

from app.api.answers.formats import preferred_form
from app.api.common import JSON, header, message_response, read_body
from app.api.sessions.security import (
    TamperedAnswer,
    key_digest,
    open_body,
    request_fingerprint,
    seal_body,
    token_hash,
)
from app.api.sessions.work import UnitOfWork
from app.errors import Conflict, InvalidInput
from app.rules.messages import N_
from app.store import repository
from app.store.database import Contended, Transaction
from app.store.repository import StoredResponse

MAX_IDEMPOTENCY_KEY = 255
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Answer:
    """A mutating call's answer as stored and replayed: status, headers and JSON bytes."""

    status: int
    headers: dict[str, str]
    body: bytes
    replayed: bool = False


def idempotency_key(request: Request) -> str | None:
    key = header(request, b"idempotency-key")
    if key is None:
        return None
    if not key or len(key) > MAX_IDEMPOTENCY_KEY:
        raise InvalidInput(
            N_("Idempotency-Key must be 1 to 255 characters"),
            errors=[{"loc": ["header", "Idempotency-Key"], "msg": "1 to 255 characters"}],
        )
    return key


def creation_scope(path: str, caller: str | None) -> str:
    """Where a creation's Idempotency-Key lives: the kind's, or the caller's within it.

    A caller that sends `Authorization: Bearer <a secret of its own>` with a creation scopes
    its keys to that secret, and a replay answers the tokens again. Without one, keys are
    shared by every caller of the kind, so a replay answers the session without its tokens.
    """
    if caller is None:
        return f"create/{path}"
    # 128 bits of the secret's digest: enough to keep callers apart, and the scope fits its
    # column (64 characters) for every kind's path.
    return f"create/{path}/{token_hash(caller)[:32]}"


#: The longest a scope is (the store's column).
MAX_SCOPE = 64


def session_scope(path: str, session_id: str, token: str) -> str:
    """Where a session change's Idempotency-Key lives: the token that sent it, in its session.

    `<kind>/<session id>/` and as much of the token's SHA-256 (base64url) as the column holds
    (at least 84 bits for every kind: tests/store/test_keys_apart.py). Scoped by the token,
    not its role: two seats, or a seat and the GM, never share a key.
    """
    prefix = f"{path}/{session_id}/"
    caller = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).decode()
    return prefix + caller[: MAX_SCOPE - len(prefix)]


@dataclass(frozen=True, slots=True)
class Keyed:
    """A mutating call's Idempotency-Key, within its scope."""

    scope: str
    key: str
    digest: str
    fingerprint: bytes
    ttl: timedelta
    #: The session a change's key belongs to (None for a creation's).
    session_id: str | None = None
    #: The scope keys of the session had before they were the token's (`<kind>/<id>`): an
    #: answer stored there is replayed to the request that made it (its fingerprint holds
    #: the token), and is nothing to any other.
    legacy_scope: str | None = None

    async def claim(self, connection: Transaction) -> Answer | None:
        """Take the key for this transaction: the stored answer to replay, if there is one.

        409 while another request holds the key, or when the stored answer fails its
        integrity check; 422 if this caller used the key with another request.
        """
        if not await repository.try_lock_key(connection, self.scope, self.digest):
            raise Conflict(N_("a request with this Idempotency-Key is still being processed"))
        scope = self.scope
        stored = await repository.find_response(
            connection, scope, self.digest, ttl=self.ttl, session_id=self.session_id
        )
        if stored is None and self.legacy_scope is not None:
            scope = self.legacy_scope
            stored = await repository.find_response(
                connection,
                scope,
                key_digest(scope, self.key),
                ttl=self.ttl,
                session_id=self.session_id,
            )
            if stored is not None and stored.fingerprint != self.fingerprint:
                return None  # another caller's (or another request's) key before the scoping
        if stored is None:
            return None
        if stored.fingerprint != self.fingerprint:
            raise InvalidInput(
                N_("this Idempotency-Key was used with a different request"),
                errors=[
                    {"loc": ["header", "Idempotency-Key"], "msg": "reused with another request"}
                ],
            )
        try:
            body = open_body(scope, self.key, stored.body) if stored.body else b""
        except TamperedAnswer:
            logging.getLogger("arbiter").warning(
                "a stored idempotent answer failed authentication (scope %s)", scope
            )
            raise Conflict(
                N_(
                    "the answer stored under this Idempotency-Key failed its integrity check "
                    "and is not replayed; send the request under a new key"
                )
            ) from None
        return Answer(stored.status_code, dict(stored.headers), body, True)

    async def remember(self, connection: Transaction, answer: Answer) -> None:
        """Store the answer in the transaction that made the change it describes."""
        sealed = seal_body(self.scope, self.key, answer.body) if answer.body else b""
        await repository.save_response(
            connection,
            self.scope,
            self.digest,
            StoredResponse(self.fingerprint, answer.status, answer.headers, sealed),
            self.session_id,
        )


async def keyed(
    request: Request,
    scope: str,
    token: str | None,
    *,
    session_id: str | None = None,
    legacy_scope: str | None = None,
) -> Keyed | None:
    """The request's Idempotency-Key in `scope`, or None when it sends none."""
    key = idempotency_key(request)
    if key is None:
        return None
    return Keyed(
        scope,
        key,
        key_digest(scope, key),
        request_fingerprint(request.method, request.url.path, token, await read_body(request)),
        timedelta(seconds=request.app.state.settings.idempotency_ttl_seconds),
        session_id,
        legacy_scope,
    )


async def session_keyed(request: Request, path: str, session_id: str, token: str) -> Keyed | None:
    """A session change's Idempotency-Key, the token's own (`session_scope`)."""
    return await keyed(
        request,
        session_scope(path, session_id, token),
        token,
        session_id=session_id,
        legacy_scope=f"{path}/{session_id}",
    )


async def guarded(
    work: UnitOfWork,
    transaction: Callable[[Transaction], Awaitable[T]],
    key: Keyed | None,
) -> T:
    """Run the transaction, refusing a second request under a key still in flight here.

    A keyed change runs in a locking transaction (its answer is stored with it); any other in
    `optimistic` mode (see `Store.run`).
    """
    if key is None:
        try:
            return await work.run("optimistic", transaction)
        except Contended:
            raise Conflict(N_("the session is changing too fast to apply this; retry")) from None
    marker = (key.scope, key.key)
    with work.store.in_flight_lock:
        if marker in work.store.in_flight:
            raise Conflict(N_("a request with this Idempotency-Key is still being processed"))
        work.store.in_flight.add(marker)
    try:
        return await work.run("write", transaction)
    finally:
        with work.store.in_flight_lock:
            work.store.in_flight.discard(marker)


def answer_response(request: Request, answer: Answer) -> Response:
    """The answer as sent: JSON bytes as stored, or a chat message for `Accept: text/plain`
    or `text/markdown` (app/api/answers/formats.py).

    A creation (201, carrying the session's tokens, shown nowhere else) is JSON whatever
    `Accept` says.
    """
    headers = dict(answer.headers)
    if answer.replayed:
        headers["Idempotent-Replayed"] = "true"
    if answer.status == 201:
        # A creation's answer carries the session's tokens, with or without a bearer secret.
        headers["Cache-Control"] = "no-store"
    if answer.status == 204 or not answer.body:
        return Response(status_code=answer.status, headers=headers)
    form = preferred_form(header(request, b"accept"))
    if form != "json" and answer.status != 201:
        body = orjson.loads(answer.body)
        if isinstance(body, dict) and "tokens" not in body:
            message = message_response(form, body, answer.status, headers)
            if message is not None:
                return message
    return Response(answer.body, answer.status, headers=headers, media_type=JSON)
