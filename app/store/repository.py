"""Queries on the store's tables. Repositories never commit: the request's transaction does.

Every statement is a SQLAlchemy Core construct on the mapped tables, compiled once per dialect
(`Statement`) and then run through the driver with plain parameters. A round is one locked
read, one insert and one update; building, cache-keying and compiling those statements on
every request — or tracking ORM objects — cost more CPU than SQLite spends executing them.
JSON documents and times are therefore converted here, the same way for both databases.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import bindparam, delete, insert, select, text, update
from sqlalchemy.sql import Executable
from sqlalchemy.sql.compiler import Compiled

from app.store.database import Rows, StaleWrite, Transaction
from app.store.models import Base

sessions = Base.metadata.tables["sessions"]
rounds = Base.metadata.tables["rounds"]
idempotency = Base.metadata.tables["idempotency_keys"]


def now() -> datetime:
    return datetime.now(UTC)


class Statement:
    """A Core statement compiled once per dialect, executed with driver-level parameters."""

    def __init__(self, build: Callable[[], Executable]) -> None:
        self._build = build
        self._compiled: dict[tuple[str, str], tuple[str, Sequence[str] | None]] = {}

    async def execute(self, connection: Transaction, params: Mapping[str, Any]) -> Rows:
        """Run in `connection`'s transaction; rows come back as plain tuples."""
        dialect = connection.dialect
        entry = self._compiled.get((dialect.name, dialect.driver))
        if entry is None:
            compiled: Compiled = self._build().compile(dialect=dialect)  # type: ignore[attr-defined]
            entry = (compiled.string, compiled.positiontup)  # type: ignore[attr-defined]
            self._compiled[(dialect.name, dialect.driver)] = entry
        sql, order = entry
        if order is not None:
            return await connection.execute(sql, tuple(params[name] for name in order))
        return await connection.execute(sql, dict(params))


def _postgres(connection: Transaction) -> bool:
    return connection.dialect.name == "postgresql"


def _document_in(connection: Transaction, value: Any) -> Any:
    """A JSON document as a driver parameter: text (PostgreSQL casts it to JSONB)."""
    del connection
    return None if value is None else orjson.dumps(value).decode()


def _document_out(value: Any) -> Any:
    # SQLite hands back the JSON text; psycopg has already parsed JSONB.
    return orjson.loads(value) if isinstance(value, str | bytes) else value


def _time_in(connection: Transaction, moment: datetime) -> Any:
    if _postgres(connection):
        return moment
    # SQLAlchemy's SQLite DATETIME format (sortable text), in UTC.
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


def _time_out(value: Any) -> datetime:
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


# --- sessions ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A session row as the API layer sees it."""

    id: str
    kind: str
    status: str
    version: int
    rounds_played: int
    config: dict[str, Any]
    state: dict[str, Any]
    result: dict[str, Any] | None
    seed: int | None
    gm_token_hash: str
    party_token_hashes: dict[str, str]
    created_at: datetime
    updated_at: datetime


_FIELDS = SessionRecord.__slots__
_DOCUMENTS = ("config", "state", "result", "party_token_hashes")
_TIMES = ("created_at", "updated_at")


def _select_session(lock: bool) -> Callable[[], Executable]:
    def build() -> Executable:
        statement = select(*(sessions.c[name] for name in _FIELDS)).where(
            sessions.c.id == bindparam("id"), sessions.c.kind == bindparam("kind")
        )
        return statement.with_for_update() if lock else statement

    return build


_GET_SESSION = Statement(_select_session(lock=False))
_GET_SESSION_FOR_UPDATE = Statement(_select_session(lock=True))
_INSERT_SESSION = Statement(
    lambda: insert(sessions).values({name: bindparam(name) for name in _FIELDS})
)
_UPDATE_SESSION = Statement(
    lambda: (
        update(sessions)
        .where(
            sessions.c.id == bindparam("match_id"), sessions.c.version == bindparam("match_version")
        )
        .values(
            status=bindparam("status"),
            state=bindparam("state"),
            result=bindparam("result"),
            rounds_played=bindparam("rounds_played"),
            version=bindparam("version"),
            updated_at=bindparam("updated_at"),
        )
    )
)
#: Its rounds go with it (ON DELETE CASCADE).
_DELETE_SESSION = Statement(
    lambda: delete(sessions).where(
        sessions.c.id == bindparam("id"), sessions.c.version == bindparam("version")
    )
)


async def get_session(
    connection: Transaction, session_id: str, kind: str, *, lock: bool
) -> SessionRecord | None:
    """The session of that id and kind; `lock` holds its row until the transaction ends.

    (On SQLite the transaction already holds the database's write lock: see database.py.)
    """
    statement = _GET_SESSION_FOR_UPDATE if lock and _postgres(connection) else _GET_SESSION
    found = (await statement.execute(connection, {"id": session_id, "kind": kind})).rows
    if not found:
        return None
    row = found[0]
    values = dict(zip(_FIELDS, row, strict=True))
    for name in _DOCUMENTS:
        values[name] = _document_out(values[name])
    for name in _TIMES:
        values[name] = _time_out(values[name])
    return SessionRecord(**values)


async def insert_session(connection: Transaction, record: SessionRecord) -> None:
    params = {name: getattr(record, name) for name in _FIELDS}
    for name in _DOCUMENTS:
        params[name] = _document_in(connection, params[name])
    for name in _TIMES:
        params[name] = _time_in(connection, params[name])
    await _INSERT_SESSION.execute(connection, params)


#: PostgreSQL: the session's update and its new rounds in one statement (one round trip).
_UPDATE_SESSION_WITH_ROUNDS = Statement(
    lambda: text(
        "WITH updated AS ("
        " UPDATE sessions SET status = :status, state = CAST(:state AS JSONB),"
        " result = CAST(:result AS JSONB), rounds_played = :rounds_played,"
        " version = :version, updated_at = :updated_at"
        " WHERE id = :match_id AND version = :match_version RETURNING id)"
        " INSERT INTO rounds (session_id, number, inputs, dice, outcome, created_at)"
        " SELECT updated.id, played.number, played.inputs, played.dice, played.outcome,"
        " CAST(:updated_at AS TIMESTAMP WITH TIME ZONE)"
        " FROM updated, unnest(CAST(:numbers AS INTEGER[]), CAST(:inputs AS JSONB[]),"
        " CAST(:dice AS JSONB[]), CAST(:outcomes AS JSONB[]))"
        " AS played(number, inputs, dice, outcome)"
    )
)


async def update_session(
    connection: Transaction,
    record: SessionRecord,
    *,
    status: str,
    state: dict[str, Any],
    result: dict[str, Any] | None,
    updated_at: datetime,
    rounds: Sequence[Mapping[str, Any]] = (),
) -> SessionRecord:
    """Write the new state, bump the version by exactly one and append `rounds`.

    Each round is `{"number", "inputs", "dice", "outcome"}`.
    """
    new_version = record.version + 1
    rounds_played = record.rounds_played + len(rounds)
    params = {
        "match_id": record.id,
        "match_version": record.version,
        "status": status,
        "state": _document_in(connection, state),
        "result": _document_in(connection, result),
        "rounds_played": rounds_played,
        "version": new_version,
        "updated_at": _time_in(connection, updated_at),
    }
    if rounds and _postgres(connection):
        written = await _UPDATE_SESSION_WITH_ROUNDS.execute(
            connection,
            {
                **params,
                "numbers": [entry["number"] for entry in rounds],
                "inputs": [_document_in(connection, entry["inputs"]) for entry in rounds],
                "dice": [_document_in(connection, entry["dice"]) for entry in rounds],
                "outcomes": [_document_in(connection, entry["outcome"]) for entry in rounds],
            },
        )
        changed = written.rowcount == len(rounds)
    else:
        changed = (await _UPDATE_SESSION.execute(connection, params)).rowcount == 1
        if changed:
            await _insert_rounds(connection, record.id, rounds, params["updated_at"])
    if not changed:
        # Another writer got in first (optimistic mode), or the row changed outside the lock:
        # never silently overwrite.
        raise StaleWrite(f"session {record.id} is no longer at version {record.version}")
    return SessionRecord(
        id=record.id,
        kind=record.kind,
        status=status,
        version=new_version,
        rounds_played=rounds_played,
        config=record.config,
        state=state,
        result=result,
        seed=record.seed,
        gm_token_hash=record.gm_token_hash,
        party_token_hashes=record.party_token_hashes,
        created_at=record.created_at,
        updated_at=updated_at,
    )


async def delete_session(connection: Transaction, record: SessionRecord) -> None:
    """Delete the session as read (its version), and with it its rounds."""
    deleted = await _DELETE_SESSION.execute(
        connection, {"id": record.id, "version": record.version}
    )
    if deleted.rowcount != 1:
        raise StaleWrite(f"session {record.id} is no longer at version {record.version}")


# --- rounds --------------------------------------------------------------------------------

_ROUND_FIELDS = ("session_id", "number", "inputs", "dice", "outcome", "created_at")
_INSERT_ROUND = Statement(
    lambda: insert(rounds).values({name: bindparam(name) for name in _ROUND_FIELDS})
)
_LIST_ROUNDS = Statement(
    lambda: (
        select(rounds.c.outcome)
        .where(rounds.c.session_id == bindparam("id"))
        .order_by(rounds.c.number)
    )
)


async def _insert_rounds(
    connection: Transaction, session_id: str, played: Sequence[Mapping[str, Any]], stamp: Any
) -> None:
    for entry in played:
        await _INSERT_ROUND.execute(
            connection,
            {
                "session_id": session_id,
                "number": entry["number"],
                "inputs": _document_in(connection, entry["inputs"]),
                "dice": _document_in(connection, entry["dice"]),
                "outcome": _document_in(connection, entry["outcome"]),
                "created_at": stamp,
            },
        )


async def list_rounds(connection: Transaction, session_id: str) -> list[dict[str, Any]]:
    """Round outcomes, oldest first."""
    result = await _LIST_ROUNDS.execute(connection, {"id": session_id})
    return [_document_out(row[0]) for row in result.rows]


# --- idempotency -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredResponse:
    fingerprint: bytes
    status_code: int
    headers: dict[str, str]
    body: bytes


_FIND_RESPONSE = Statement(
    lambda: select(
        idempotency.c.fingerprint,
        idempotency.c.status_code,
        idempotency.c.headers,
        idempotency.c.body,
        idempotency.c.created_at,
    ).where(idempotency.c.scope == bindparam("scope"), idempotency.c.key == bindparam("key"))
)
_FORGET_RESPONSE = Statement(
    lambda: delete(idempotency).where(
        idempotency.c.scope == bindparam("scope"), idempotency.c.key == bindparam("key")
    )
)
_IDEMPOTENCY_FIELDS = (
    "scope",
    "key",
    "fingerprint",
    "status_code",
    "headers",
    "body",
    "created_at",
)
_SAVE_RESPONSE = Statement(
    lambda: insert(idempotency).values({name: bindparam(name) for name in _IDEMPOTENCY_FIELDS})
)
_PURGE_RESPONSES = Statement(
    lambda: delete(idempotency).where(idempotency.c.created_at < bindparam("cutoff"))
)


_TRY_LOCK_KEY = Statement(
    lambda: text("SELECT pg_try_advisory_xact_lock(hashtextextended(:name, 0))")
)


async def try_lock_key(connection: Transaction, scope: str, key: str) -> bool:
    """PostgreSQL: take the key's transaction-scoped advisory lock, or report it is taken."""
    if not _postgres(connection):
        return True
    result = await _TRY_LOCK_KEY.execute(connection, {"name": f"{scope}\x1f{key}"})
    return bool(result.rows[0][0])


async def find_response(
    connection: Transaction, scope: str, key: str, *, ttl: timedelta
) -> StoredResponse | None:
    found = (await _FIND_RESPONSE.execute(connection, {"scope": scope, "key": key})).rows
    if not found:
        return None
    fingerprint, status_code, headers, body, created_at = found[0]
    if _time_out(created_at) < now() - ttl:
        return None
    return StoredResponse(bytes(fingerprint), status_code, _document_out(headers), bytes(body))


async def save_response(
    connection: Transaction, scope: str, key: str, response: StoredResponse
) -> None:
    """Store the answer in the same transaction as the change it describes."""
    await _FORGET_RESPONSE.execute(connection, {"scope": scope, "key": key})
    await _SAVE_RESPONSE.execute(
        connection,
        {
            "scope": scope,
            "key": key,
            "fingerprint": response.fingerprint,
            "status_code": response.status_code,
            "headers": _document_in(connection, response.headers),
            "body": response.body,
            "created_at": _time_in(connection, now()),
        },
    )


async def purge_responses(connection: Transaction, *, ttl: timedelta) -> int:
    """Forget answers older than the TTL."""
    cutoff = _time_in(connection, now() - ttl)
    outcome = await _PURGE_RESPONSES.execute(connection, {"cutoff": cutoff})
    return int(outcome.rowcount or 0)
