"""Queries on the store's tables. Repositories never commit: the request's transaction does.

SQLAlchemy Core statements on the mapped tables (not ORM unit-of-work objects): a round is one
locked read, one insert and one update, and the ORM's identity map and change tracking would
only add work to that.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, text, update

from app.store.models import ContestRound, ContestSession, IdempotencyRecord

sessions = ContestSession.__table__
rounds = ContestRound.__table__
idempotency = IdempotencyRecord.__table__


def now() -> datetime:
    return datetime.now(UTC)


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


_SESSION_COLUMNS = [sessions.c[name] for name in SessionRecord.__slots__]


def _as_utc(moment: datetime) -> datetime:
    # SQLite hands back naive datetimes; every stored time is UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _record(row: Any) -> SessionRecord:
    values = row._mapping
    return SessionRecord(
        **{
            **values,
            "created_at": _as_utc(values["created_at"]),
            "updated_at": _as_utc(values["updated_at"]),
        }
    )


def get_session(connection: Connection, session_id: str, kind: str, *, lock: bool) -> (
    SessionRecord | None
):
    """The session of that id and kind; `lock` holds its row until the transaction ends."""
    statement = select(*_SESSION_COLUMNS).where(sessions.c.id == session_id, sessions.c.kind == kind)
    if lock and connection.dialect.name == "postgresql":
        statement = statement.with_for_update()
    row = connection.execute(statement).first()
    return None if row is None else _record(row)


def insert_session(connection: Connection, record: SessionRecord) -> None:
    connection.execute(
        insert(sessions),
        {name: getattr(record, name) for name in SessionRecord.__slots__},
    )


def update_session(
    connection: Connection,
    record: SessionRecord,
    *,
    status: str,
    state: dict[str, Any],
    result: dict[str, Any] | None,
    rounds_played: int,
    updated_at: datetime,
) -> SessionRecord:
    """Write the new state and bump the version by exactly one."""
    new_version = record.version + 1
    outcome = connection.execute(
        update(sessions)
        .where(sessions.c.id == record.id, sessions.c.version == record.version)
        .values(
            status=status,
            state=state,
            result=result,
            rounds_played=rounds_played,
            version=new_version,
            updated_at=updated_at,
        )
    )
    if outcome.rowcount != 1:
        # Only possible if the row was changed outside the lock; never silently overwrite.
        raise RuntimeError(f"session {record.id} changed underneath a locked update")
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


def delete_session(connection: Connection, session_id: str) -> None:
    connection.execute(delete(rounds).where(rounds.c.session_id == session_id))
    connection.execute(delete(sessions).where(sessions.c.id == session_id))


def insert_rounds(connection: Connection, session_id: str, played: list[dict[str, Any]]) -> None:
    """Append rounds: each `{"number", "inputs", "dice", "outcome"}`."""
    if not played:
        return
    stamp = now()
    connection.execute(
        insert(rounds),
        [
            {
                "session_id": session_id,
                "number": entry["number"],
                "inputs": entry["inputs"],
                "dice": entry["dice"],
                "outcome": entry["outcome"],
                "created_at": stamp,
            }
            for entry in played
        ],
    )


def list_rounds(connection: Connection, session_id: str) -> list[dict[str, Any]]:
    """Round outcomes, oldest first."""
    result = connection.execute(
        select(rounds.c.outcome)
        .where(rounds.c.session_id == session_id)
        .order_by(rounds.c.number)
    )
    return [row[0] for row in result]


def count_rounds(connection: Connection, session_id: str) -> int:
    return int(
        connection.execute(
            select(func.count()).select_from(rounds).where(rounds.c.session_id == session_id)
        ).scalar_one()
    )


# --- idempotency -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredResponse:
    fingerprint: bytes
    status_code: int
    headers: dict[str, str]
    body: bytes


def try_lock_key(connection: Connection, scope: str, key: str) -> bool:
    """PostgreSQL: take the key's transaction-scoped advisory lock, or report it is taken."""
    if connection.dialect.name != "postgresql":
        return True
    taken = connection.execute(
        text("SELECT pg_try_advisory_xact_lock(hashtextextended(:name, 0))"),
        {"name": f"{scope}\x1f{key}"},
    ).scalar_one()
    return bool(taken)


def find_response(
    connection: Connection, scope: str, key: str, *, ttl: timedelta
) -> StoredResponse | None:
    row = connection.execute(
        select(
            idempotency.c.fingerprint,
            idempotency.c.status_code,
            idempotency.c.headers,
            idempotency.c.body,
            idempotency.c.created_at,
        ).where(idempotency.c.scope == scope, idempotency.c.key == key)
    ).first()
    if row is None or _as_utc(row.created_at) < now() - ttl:
        return None
    return StoredResponse(bytes(row.fingerprint), row.status_code, row.headers, bytes(row.body))


def save_response(
    connection: Connection, scope: str, key: str, response: StoredResponse
) -> None:
    """Store the answer in the same transaction as the change it describes."""
    connection.execute(
        delete(idempotency).where(idempotency.c.scope == scope, idempotency.c.key == key)
    )
    connection.execute(
        insert(idempotency),
        {
            "scope": scope,
            "key": key,
            "fingerprint": response.fingerprint,
            "status_code": response.status_code,
            "headers": response.headers,
            "body": response.body,
            "created_at": now(),
        },
    )


def purge_responses(connection: Connection, *, ttl: timedelta) -> int:
    """Forget answers older than the TTL."""
    outcome = connection.execute(
        delete(idempotency).where(idempotency.c.created_at < now() - ttl)
    )
    return int(outcome.rowcount or 0)
