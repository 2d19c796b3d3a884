"""Queries on the store's tables. Repositories never commit: the request's transaction does.

Every statement is a SQLAlchemy Core construct on the mapped tables (their column lists come
from the tables), compiled once per dialect (`Statement`) and then run through the driver with
plain parameters, as a read (`fetch`) or a write (`execute`). A round is one read, then an
update and an insert (on PostgreSQL, one statement doing both); building, cache-keying and
compiling those statements on every request — or tracking ORM objects — cost more CPU than
SQLite spends executing them. JSON documents and times are therefore converted here, the same
way for both databases.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

import orjson
from sqlalchemy import (
    Dialect,
    Select,
    String,
    Update,
    any_,
    bindparam,
    cast,
    column,
    delete,
    func,
    insert,
    literal_column,
    or_,
    select,
    true,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.sql import Executable
from sqlalchemy.sql.compiler import Compiled

from app.store.database import StaleWrite, Transaction
from app.store.models import Base

sessions = Base.metadata.tables["sessions"]
rounds = Base.metadata.tables["rounds"]
idempotency = Base.metadata.tables["idempotency_keys"]


def now() -> datetime:
    return datetime.now(UTC)


class Statement:
    """A Core statement compiled once per dialect, run with driver-level parameters."""

    def __init__(self, build: Callable[[], Executable]) -> None:
        self._build = build
        #: (dialect, driver) -> (SQL, parameter names in order or None, whether it writes)
        self._compiled: dict[tuple[str, str], tuple[str, Sequence[str] | None, bool]] = {}

    async def fetch(
        self, connection: Transaction, params: Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """Read in `connection`'s transaction; rows come back as plain tuples."""
        dialect = connection.dialect
        entry = self._compiled.get((dialect.name, dialect.driver)) or self._compile(dialect)
        sql, order, writes = entry
        if writes:
            # A write run as a read would slip past the optimistic mode's one-write check.
            raise RuntimeError("a statement that writes is run with `execute`, not `fetch`")
        if order is not None:
            return await connection.fetch(sql, tuple(params[name] for name in order))
        return await connection.fetch(sql, dict(params))

    async def execute(self, connection: Transaction, params: Mapping[str, Any]) -> int:
        """Write in `connection`'s transaction; the count of rows changed."""
        dialect = connection.dialect
        entry = self._compiled.get((dialect.name, dialect.driver)) or self._compile(dialect)
        sql, order, _writes = entry
        # Positional drivers (asyncpg, sqlite3) take a tuple, named ones (psycopg) a dict.
        if order is not None:
            return await connection.execute(sql, tuple(params[name] for name in order))
        return await connection.execute(sql, dict(params))

    def _compile(self, dialect: Dialect) -> tuple[str, Sequence[str] | None, bool]:
        statement = self._build()
        compiled: Compiled = statement.compile(dialect=dialect)  # type: ignore[attr-defined]
        order = compiled.positiontup  # type: ignore[attr-defined]
        entry = (compiled.string, order, bool(getattr(statement, "is_dml", False)))
        self._compiled[(dialect.name, dialect.driver)] = entry
        return entry


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
    #: {competitor name: SHA-256 hex of its seat token}; None: a session without seats.
    seat_token_hashes: dict[str, str] | None = None
    #: A verifiable session's stored server seed (app/api/sessions/verifiable.py); None: another.
    dice_secret: bytes | None = None
    #: The webhook subscriptions told of its changes when it was read (its own, and the
    #: operator's: app/api/sessions/outbox.py), each `(id, events, view, language)`; none for
    #: a record not read from the store.
    subscriptions: tuple[tuple[str, list[str] | None, str, str | None], ...] = ()


#: The status of a verifiable session its GM deleted, kept for its proof until retention
#: removes it (docs/verifiable-dice.md#the-life-of-a-verifiable-session); no other read finds
#: it.
DELETED = "deleted"

#: The columns a `SessionRecord` holds (`touched_hour` is derived from `updated_at`, and
#: `pending_deadline` from the round waiting for dice in `state`).
_DERIVED = ("touched_hour", "pending_deadline")
_FIELDS = tuple(column.name for column in sessions.columns if column.name not in _DERIVED)
_DOCUMENTS = ("config", "state", "result", "party_token_hashes", "seat_token_hashes")
_TIMES = ("created_at", "updated_at")


def _select_session(lock: bool, postgres: bool) -> Callable[[], Executable]:
    def build() -> Executable:
        # The subscriptions told of the session's changes, in the same read: a change without
        # any writes no outbox row and asks nothing more, and one with some asks nothing more
        # before it writes its deliveries (app/api/sessions/outbox.py).
        hooks = Base.metadata.tables["webhook_subscriptions"]
        if postgres:
            listed = func.jsonb_agg(
                func.jsonb_build_array(hooks.c.id, hooks.c.events, hooks.c.view, hooks.c.language)
            )
        else:
            listed = func.json_group_array(
                func.json_array(
                    hooks.c.id, func.json(hooks.c.events), hooks.c.view, hooks.c.language
                )
            )
        subscribed = (
            select(listed)
            .where(or_(hooks.c.session_id == sessions.c.id, hooks.c.session_id.is_(None)))
            .scalar_subquery()
            .label("subscriptions")
        )
        statement = select(*(sessions.c[name] for name in _FIELDS), subscribed).where(
            sessions.c.id == bindparam("id"), sessions.c.kind == bindparam("kind")
        )
        return statement.with_for_update(of=sessions) if lock else statement

    return build


_GET_SESSION = Statement(_select_session(lock=False, postgres=False))
_GET_SESSION_PG = Statement(_select_session(lock=False, postgres=True))
_GET_SESSION_FOR_UPDATE = Statement(_select_session(lock=True, postgres=True))
_INSERT_SESSION = Statement(
    lambda: insert(sessions).values({name: bindparam(name) for name in (*_FIELDS, "touched_hour")})
)
#: What every change writes to its session's row; and what only a change of its status or of
#: the hour of its last change does. Retention's index is on those two: a round of an active
#: session in the same hour as the change before it leaves the index alone (SQLite updates an
#: index only for the columns a statement sets; PostgreSQL can then update the row in place).
_CHANGED = ("state", "result", "rounds_played", "version", "updated_at")
_INDEXED = ("status", "touched_hour")
#: `update_session`'s `pending_deadline` for a change that leaves it as it is (most do).
UNCHANGED: Final = "unchanged"


def touched_hour(moment: datetime) -> int:
    """The hour since the Unix epoch (UTC) of `moment`: what `touched_hour` keeps."""
    return int(moment.timestamp()) // 3600


def _update_session(indexed: bool, deadline: bool) -> Callable[[], Update]:
    """The change, written only if the session is still at the version that was read (with
    the indexed columns, and with `pending_deadline`, only if asked)."""

    def build() -> Update:
        columns = (*_CHANGED, *_INDEXED) if indexed else _CHANGED
        if deadline:
            columns = (*columns, "pending_deadline")
        return (
            update(sessions)
            .where(
                sessions.c.id == bindparam("match_id"),
                sessions.c.version == bindparam("match_version"),
            )
            .values({name: bindparam(name) for name in columns})
        )

    return build


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
    A deleted verifiable session, kept for its proof, is no session here.
    """
    found = await get_session_or_proof(connection, session_id, kind, lock=lock)
    return None if found is None or found.status == DELETED else found


async def get_session_or_proof(
    connection: Transaction, session_id: str, kind: str, *, lock: bool = False
) -> SessionRecord | None:
    """`get_session`, and a deleted verifiable session kept for its proof too."""
    if _postgres(connection):
        statement = _GET_SESSION_FOR_UPDATE if lock else _GET_SESSION_PG
    else:
        statement = _GET_SESSION
    found = await statement.fetch(connection, {"id": session_id, "kind": kind})
    if not found:
        return None
    *row, subscribed = found[0]
    values = dict(zip(_FIELDS, row, strict=True))
    # (No subscription: PostgreSQL's aggregate is null, SQLite's an empty array.)
    values["subscriptions"] = tuple(
        (each[0], each[1], each[2], each[3]) for each in _document_out(subscribed) or ()
    )
    for name in _DOCUMENTS:
        values[name] = _document_out(values[name])
    for name in _TIMES:
        values[name] = _time_out(values[name])
    secret = values["dice_secret"]
    if secret is not None:
        values["dice_secret"] = bytes(secret)
    return SessionRecord(**values)


async def insert_session(connection: Transaction, record: SessionRecord) -> None:
    params = {name: getattr(record, name) for name in _FIELDS}
    for name in _DOCUMENTS:
        params[name] = _document_in(connection, params[name])
    for name in _TIMES:
        params[name] = _time_in(connection, params[name])
    params["touched_hour"] = touched_hour(record.updated_at)
    await _INSERT_SESSION.execute(connection, params)


#: What each played round brings (`link`: a verifiable session's, else None; `message`: its
#: summary in no language, or None); the store adds its session and time.
_PLAYED = ("number", "inputs", "dice", "outcome", "link", "message")


def _played(updated: Any) -> Any:
    """The rounds' insert, after the session's update (`updated`: its CTE returning the id and
    new `updated_at`): one array per column (`played_<column>`), unnested side by side; they
    are inserted only if the update matched, and take the session's new `updated_at`."""
    played = (
        func.unnest(
            *(cast(bindparam(f"played_{name}"), ARRAY(rounds.c[name].type)) for name in _PLAYED)
        )
        .table_valued(*_PLAYED)
        .render_derived(name="played")
    )
    return insert(rounds).from_select(
        ["session_id", *_PLAYED, "created_at"],
        select(updated.c.id, *(played.c[name] for name in _PLAYED), updated.c.updated_at)
        .select_from(updated)
        .join(played, true()),
    )


def _updated(indexed: bool, deadline: bool) -> Any:
    return (
        _update_session(indexed, deadline)()
        .returning(sessions.c.id, sessions.c.updated_at)
        .cte("updated")
    )


def _update_session_with_rounds(indexed: bool, deadline: bool) -> Callable[[], Executable]:
    """PostgreSQL: the session's update and its new rounds in one statement (one round trip)."""

    def build() -> Executable:
        statement: Executable = _played(_updated(indexed, deadline))
        return statement

    return build


@dataclass(frozen=True, slots=True)
class Alongside:
    """Rows a change writes in its session's update statement (PostgreSQL), after the update
    and only if it matched, so that the change stays one statement: `build` makes their
    INSERT from the update's CTE (the session's `id` and new `updated_at`), `key` names that
    statement's compiled form, `params` are its parameters (named apart from the update's)
    and `rows` how many it writes when the update matched."""

    key: str
    build: Callable[[Any], Any]
    params: Mapping[str, Any]
    rows: int


#: Compiled once per shape: (indexed, deadline, with rounds, what goes alongside).
_ALONGSIDE: dict[tuple[bool, bool, bool, str], Statement] = {}


def _with_alongside(indexed: bool, deadline: bool, played: bool, also: Alongside) -> Statement:
    shape = (indexed, deadline, played, also.key)
    statement = _ALONGSIDE.get(shape)
    if statement is None:

        def build() -> Executable:
            updated = _updated(indexed, deadline)
            written = also.build(updated)
            if played:
                # Run by PostgreSQL although nothing reads it (a data-modifying CTE).
                written = written.add_cte(_played(updated).cte("played"))
            built: Executable = written
            return built

        statement = _ALONGSIDE[shape] = Statement(build)
    return statement


#: By whether the change writes the indexed columns, and the pending deadline: the session's
#: update alone, and with its rounds (PostgreSQL).
_UPDATES = {
    (indexed, deadline): (
        Statement(_update_session(indexed, deadline)),
        Statement(_update_session_with_rounds(indexed, deadline)),
    )
    for indexed in (False, True)
    for deadline in (False, True)
}


async def update_session(
    connection: Transaction,
    record: SessionRecord,
    *,
    status: str,
    state: dict[str, Any],
    result: dict[str, Any] | None,
    updated_at: datetime,
    rounds: Sequence[Mapping[str, Any]] = (),
    pending_deadline: datetime | Literal["unchanged"] | None = UNCHANGED,
    alongside: Callable[[SessionRecord], Alongside | None] | None = None,
) -> SessionRecord:
    """Write the new state, bump the version by exactly one and append `rounds`.

    Each round is `{"number", "inputs", "dice", "outcome"}`, and `"link"` for a verifiable
    session's, `"message"` for one whose summary is a message (its document).
    `pending_deadline`: the deadline of the round waiting for dice after the change, None
    when none waits, when it changes. `alongside` (PostgreSQL only): given the
    session as it will be, what else to write in the same statement (`Alongside`), if any.
    """
    new_version = record.version + 1
    rounds_played = record.rounds_played + len(rounds)
    params = {
        "match_id": record.id,
        "match_version": record.version,
        "state": _document_in(connection, state),
        "result": _document_in(connection, result),
        "rounds_played": rounds_played,
        "version": new_version,
        "updated_at": _time_in(connection, updated_at),
    }
    hour = touched_hour(updated_at)
    indexed = status != record.status or hour != touched_hour(record.updated_at)
    if indexed:
        params["status"] = status
        params["touched_hour"] = hour
    deadline = pending_deadline != UNCHANGED
    if isinstance(pending_deadline, datetime):
        params["pending_deadline"] = _time_in(connection, pending_deadline)
    elif deadline:
        params["pending_deadline"] = None
    updated = SessionRecord(
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
        seat_token_hashes=record.seat_token_hashes,
        dice_secret=record.dice_secret,
    )
    postgres = _postgres(connection)
    if alongside is not None and not postgres:
        raise RuntimeError("rows alongside a session's update are PostgreSQL's")
    also = None if alongside is None else alongside(updated)
    played: dict[str, Any] = {}
    if rounds and postgres:
        played = {
            "played_number": [entry["number"] for entry in rounds],
            "played_inputs": [_document_in(connection, entry["inputs"]) for entry in rounds],
            "played_dice": [_document_in(connection, entry["dice"]) for entry in rounds],
            "played_outcome": [_document_in(connection, entry["outcome"]) for entry in rounds],
            "played_link": [entry.get("link") for entry in rounds],
            "played_message": [_document_in(connection, entry.get("message")) for entry in rounds],
        }
    update_alone, update_with_rounds = _UPDATES[(indexed, deadline)]
    if also is not None:
        statement = _with_alongside(indexed, deadline, bool(played), also)
        written = await statement.execute(connection, {**params, **played, **also.params})
        changed = written == also.rows
    elif played:
        changed = await update_with_rounds.execute(connection, {**params, **played}) == len(rounds)
    else:
        changed = await update_alone.execute(connection, params) == 1
        if changed:
            await _insert_rounds(connection, record.id, rounds, params["updated_at"])
    if not changed:
        # Another writer got in first (optimistic mode), or the row changed outside the lock:
        # never silently overwrite.
        raise StaleWrite(f"session {record.id} is no longer at version {record.version}")
    return updated


_RETIRE_SESSION = Statement(
    lambda: (
        update(sessions)
        .where(sessions.c.id == bindparam("match_id"), sessions.c.version == bindparam("version"))
        .values(
            status=literal_column("'deleted'"),
            version=bindparam("new_version"),
            updated_at=bindparam("updated_at"),
            touched_hour=bindparam("touched_hour"),
        )
    )
)


async def retire_session(connection: Transaction, record: SessionRecord, at: datetime) -> None:
    """A verifiable session deleted by its GM: kept, as `deleted`, for its proof until
    retention removes it (its finished sessions' period from `at`); no other call finds it."""
    retired = await _RETIRE_SESSION.execute(
        connection,
        {
            "match_id": record.id,
            "version": record.version,
            "new_version": record.version + 1,
            "updated_at": _time_in(connection, at),
            "touched_hour": touched_hour(at),
        },
    )
    if retired != 1:
        raise StaleWrite(f"session {record.id} is no longer at version {record.version}")


async def delete_session(connection: Transaction, record: SessionRecord) -> None:
    """Delete the session as read (its version), and with it its rounds."""
    deleted = await _DELETE_SESSION.execute(
        connection, {"id": record.id, "version": record.version}
    )
    if deleted != 1:
        raise StaleWrite(f"session {record.id} is no longer at version {record.version}")


# --- verifiable sessions' server seeds -------------------------------------------------------

#: Server seeds stored as they are (their first byte, `SEED_PLAIN` of app/api/sessions/security.py):
#: those of sessions made before every deployment had a dice key.
_PLAIN_SECRETS = Statement(
    lambda: select(sessions.c.id, sessions.c.dice_secret).where(
        sessions.c.dice_secret.is_not(None),
        func.substr(sessions.c.dice_secret, literal_column("1"), literal_column("1"))
        == bindparam("plain"),
    )
)
_RESEAL_SECRET = Statement(
    lambda: (
        update(sessions)
        .where(
            sessions.c.id == bindparam("match_id"), sessions.c.dice_secret == bindparam("stored")
        )
        .values(dice_secret=bindparam("sealed"))
    )
)


async def plain_secrets(connection: Transaction, plain: bytes) -> list[tuple[str, bytes]]:
    """(session id, stored secret) of every server seed stored beginning with `plain`."""
    found = await _PLAIN_SECRETS.fetch(connection, {"plain": plain})
    return [(session_id, bytes(stored)) for session_id, stored in found]


async def reseal_secret(
    connection: Transaction, session_id: str, stored: bytes, sealed: bytes
) -> bool:
    """Replace a session's stored server seed `stored` by `sealed` (the same seed), unless
    another process did first; whether this call did."""
    changed = await _RESEAL_SECRET.execute(
        connection, {"match_id": session_id, "stored": stored, "sealed": sealed}
    )
    return changed == 1


# --- rounds --------------------------------------------------------------------------------

#: Every column (a round is keyed by its session and number: no generated id).
_ROUND_FIELDS = tuple(column.name for column in rounds.columns)
_INSERT_ROUND = Statement(
    lambda: insert(rounds).values({name: bindparam(name) for name in _ROUND_FIELDS})
)
_LIST_ROUNDS = Statement(
    lambda: (
        select(rounds.c.outcome, rounds.c.message)
        .where(
            rounds.c.session_id == bindparam("id"),
            rounds.c.number > bindparam("after"),
            rounds.c.number <= bindparam("upto"),
        )
        .order_by(rounds.c.number)
    )
)


#: Rounds inserted (on SQLite, one statement each) before the worker's other requests get a
#: turn: a resolve may write thousands of rounds in its transaction.
ROUNDS_PER_SLICE = 8


async def _insert_rounds(
    connection: Transaction, session_id: str, played: Sequence[Mapping[str, Any]], stamp: Any
) -> None:
    for index, entry in enumerate(played):
        if index and index % ROUNDS_PER_SLICE == 0:
            await asyncio.sleep(0)
        await _INSERT_ROUND.execute(
            connection,
            {
                "session_id": session_id,
                "number": entry["number"],
                "inputs": _document_in(connection, entry["inputs"]),
                "dice": _document_in(connection, entry["dice"]),
                "outcome": _document_in(connection, entry["outcome"]),
                "link": entry.get("link"),
                "message": _document_in(connection, entry.get("message")),
                "created_at": stamp,
            },
        )


async def list_rounds(
    connection: Transaction, session_id: str, *, after: int = 0, limit: int | None = None
) -> list[dict[str, Any]]:
    """Round outcomes numbered above `after`, oldest first, at most `limit` of them."""
    return [
        outcome
        for outcome, _ in await list_said_rounds(connection, session_id, after=after, limit=limit)
    ]


async def list_said_rounds(
    connection: Transaction, session_id: str, *, after: int = 0, limit: int | None = None
) -> list[tuple[dict[str, Any], Any]]:
    """`list_rounds`, each outcome with its summary's message document (None for a round
    stored without one)."""
    # Rounds are numbered 1, 2, 3... with no gap, so a page is a range of numbers.
    upto = after + limit if limit is not None else 2**31 - 1
    found = await _LIST_ROUNDS.fetch(connection, {"id": session_id, "after": after, "upto": upto})
    return [(_document_out(outcome), _document_out(message)) for outcome, message in found]


_LIST_PROOF_ROUNDS = Statement(
    lambda: (
        select(rounds.c.number, rounds.c.inputs, rounds.c.dice, rounds.c.outcome, rounds.c.link)
        .where(
            rounds.c.session_id == bindparam("id"),
            rounds.c.number > bindparam("after"),
            rounds.c.number <= bindparam("upto"),
        )
        .order_by(rounds.c.number)
    )
)


async def list_proof_rounds(
    connection: Transaction, session_id: str, *, after: int, limit: int
) -> list[dict[str, Any]]:
    """Whole stored rounds numbered above `after` (at most `limit`), oldest first: number,
    inputs, dice, outcome and link (docs/verifiable-dice.md#the-proof)."""
    found = await _LIST_PROOF_ROUNDS.fetch(
        connection, {"id": session_id, "after": after, "upto": after + limit}
    )
    return [
        {
            "number": number,
            "inputs": _document_out(inputs),
            "dice": _document_out(dice),
            "outcome": _document_out(outcome),
            "link": link,
        }
        for number, inputs, dice, outcome, link in found
    ]


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
    ).where(
        idempotency.c.session_id == bindparam("session_id"),
        idempotency.c.scope == bindparam("scope"),
        idempotency.c.key == bindparam("key"),
    )
)
_FORGET_RESPONSE = Statement(
    lambda: delete(idempotency).where(
        idempotency.c.session_id == bindparam("session_id"),
        idempotency.c.scope == bindparam("scope"),
        idempotency.c.key == bindparam("key"),
    )
)
_IDEMPOTENCY_FIELDS = tuple(idempotency.c.keys())
_SAVE_RESPONSE = Statement(
    lambda: insert(idempotency).values({name: bindparam(name) for name in _IDEMPOTENCY_FIELDS})
)
_PURGE_RESPONSES = Statement(
    lambda: delete(idempotency).where(idempotency.c.created_at < bindparam("cutoff"))
)


_TRY_LOCK_KEY = Statement(
    lambda: select(
        func.pg_try_advisory_xact_lock(
            func.hashtextextended(bindparam("name"), literal_column("0"))
        )
    )
)


async def try_lock_key(connection: Transaction, scope: str, key: str) -> bool:
    """PostgreSQL: take the key's transaction-scoped advisory lock, or report it is taken."""
    if not _postgres(connection):
        return True
    found = await _TRY_LOCK_KEY.fetch(connection, {"name": f"{scope}\x1f{key}"})
    return bool(found[0][0])


#: What a creation's stored answer holds in `session_id` (its session does not exist yet when
#: its key is claimed): this, then the first characters of its key's digest. Never a session's
#: id (hex), and found again from the key alone: the column a distributed PostgreSQL shards
#: by, so the answer is read on one shard (docs/distributing.md#idempotency-keys).
CREATION_SHARD = "~"


def creation_shard(key: str) -> str:
    """The `session_id` a creation's stored answer is kept under (`key`: its digest)."""
    return CREATION_SHARD + key[: 32 - len(CREATION_SHARD)]


async def find_response(
    connection: Transaction,
    scope: str,
    key: str,
    *,
    ttl: timedelta,
    session_id: str | None = None,
) -> StoredResponse | None:
    """The answer stored under the key of a change of `session_id` (None: a creation)."""
    found = await _FIND_RESPONSE.fetch(
        connection,
        {"session_id": session_id or creation_shard(key), "scope": scope, "key": key},
    )
    if not found:
        return None
    fingerprint, status_code, headers, body, created_at = found[0]
    if _time_out(created_at) < now() - ttl:
        return None
    return StoredResponse(bytes(fingerprint), status_code, _document_out(headers), bytes(body))


async def save_response(
    connection: Transaction,
    scope: str,
    key: str,
    response: StoredResponse,
    session_id: str | None = None,
) -> None:
    """Store the answer in the same transaction as the change it describes (`session_id`:
    the session it changed, forgotten with it; None for a creation, kept under
    `creation_shard`)."""
    shard = session_id or creation_shard(key)
    await _FORGET_RESPONSE.execute(connection, {"session_id": shard, "scope": scope, "key": key})
    await _SAVE_RESPONSE.execute(
        connection,
        {
            "scope": scope,
            "key": key,
            "session_id": shard,
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
    return await _PURGE_RESPONSES.execute(connection, {"cutoff": cutoff})


# --- retention -------------------------------------------------------------------------------


#: Retention's ranges, walked in this order: each a status, and which period keeps it.
#: A deleted verifiable session is kept for its proof as long as a finished one is kept,
#: from its deletion.
EXPIRING: Final = (("finished", "finished"), ("deleted", "finished"), ("active", "abandoned"))


@dataclass(frozen=True, slots=True)
class PurgeCursor:
    """Where a purge pass has got to: the range (`EXPIRING[range]`) and the last session of
    it passed over, by (touched_hour, id), the order of the retention index."""

    range: int = 0
    hour: int = -1
    id: str = ""


def _expired_page(lock: bool) -> Callable[[], Executable]:
    """Up to `limit` sessions of one status, after the cursor's (touched_hour, id), whose
    hour is at most `hour`: one bounded range of the (status, touched_hour, id) index, in its
    order (keyset, never OFFSET: a batch reads no row a batch before it passed over, deleted
    or not). `lock` (PostgreSQL) locks the rows it picks and skips those a request holds, so a
    purge never waits on a busy session and two purging processes take different sessions.
    """

    def build() -> Executable:
        statement = (
            select(
                sessions.c.id,
                sessions.c.touched_hour,
                sessions.c.updated_at,
                sessions.c.rounds_played,
            )
            .where(
                sessions.c.status == bindparam("status"),
                tuple_(sessions.c.touched_hour, sessions.c.id)
                > tuple_(bindparam("after_hour"), bindparam("after_id")),
                sessions.c.touched_hour <= bindparam("hour"),
            )
            .order_by(sessions.c.touched_hour, sessions.c.id)
            .limit(bindparam("limit"))
            # Written out: SQLAlchemy's SQLite compiler would add an OFFSET parameter of its own.
            .offset(literal_column("0"))
        )
        return statement.with_for_update(skip_locked=True) if lock else statement

    return build


_EXPIRED_PAGE = Statement(_expired_page(lock=False))
_EXPIRED_PAGE_LOCKED = Statement(_expired_page(lock=True))


def _listed(parameter: str) -> Select[Any]:
    """SQLite: the values of a JSON array parameter, as a subquery for `IN`."""
    return select(column("value")).select_from(func.json_each(bindparam(parameter)))


def _any_of(parameter: str) -> Any:
    """PostgreSQL: `= ANY` of an array parameter (one statement whatever the list's length)."""
    return any_(cast(bindparam(parameter), ARRAY(String)))


#: Their rounds go with them (ON DELETE CASCADE).
_PURGE_SESSIONS = Statement(lambda: delete(sessions).where(sessions.c.id.in_(_listed("ids"))))
_PURGE_SESSIONS_PG = Statement(lambda: delete(sessions).where(sessions.c.id == _any_of("ids")))
#: A session's stored answers, whichever of its tokens used each key.
_PURGE_KEYS = Statement(
    lambda: delete(idempotency).where(idempotency.c.session_id.in_(_listed("ids")))
)
_PURGE_KEYS_PG = Statement(
    lambda: delete(idempotency).where(idempotency.c.session_id == _any_of("ids"))
)


async def purge_sessions(
    connection: Transaction,
    *,
    finished_before: datetime,
    abandoned_before: datetime,
    limit: int,
    round_budget: int,
    cursor: PurgeCursor | None = None,
) -> tuple[int, PurgeCursor | None]:
    """Delete up to `limit` expired sessions after `cursor` with their rounds and stored
    answers: (how many, where the next batch starts; None once every range is walked).

    Expired: finished and unchanged since `finished_before` (and a deleted verifiable
    session kept for its proof, deleted before it), or still active and unchanged since
    `abandoned_before`. Each status is a range of the retention index narrowed by the hour,
    the exact time then compared here (`updated_at < t` implies an hour at most `t`'s).
    Sessions are taken while their rounds together stay within `round_budget` (one at
    least), since the rounds are most of the rows deleted. One batch: the caller runs it in a
    short write transaction of its own, again from the cursor it returns.
    """
    postgres = _postgres(connection)
    page = _EXPIRED_PAGE_LOCKED if postgres else _EXPIRED_PAGE
    cutoffs = {"finished": finished_before, "abandoned": abandoned_before}
    at = cursor or PurgeCursor()
    taken: list[str] = []
    rounds_taken = 0
    while at.range < len(EXPIRING) and len(taken) < limit:
        status, period = EXPIRING[at.range]
        before = cutoffs[period]
        wanted = limit - len(taken)
        found = await page.fetch(
            connection,
            {
                "status": status,
                "after_hour": at.hour,
                "after_id": at.id,
                "hour": touched_hour(before),
                "limit": wanted,
            },
        )
        full = True
        for session_id, hour, updated_at, played in found:
            if _time_out(updated_at) < before:
                if taken and rounds_taken + played > round_budget:
                    full = False
                    break
                taken.append(session_id)
                rounds_taken += played
            at = PurgeCursor(at.range, hour, session_id)
        if not full or rounds_taken >= round_budget:
            break
        if len(found) < wanted:
            at = PurgeCursor(at.range + 1)
    if taken:
        # A session's keyed changes are stored with its id (app/api/sessions/idempotency.py).
        if postgres:
            await _PURGE_KEYS_PG.execute(connection, {"ids": taken})
            await _PURGE_SESSIONS_PG.execute(connection, {"ids": taken})
        else:
            listed = orjson.dumps(taken).decode()
            await _PURGE_KEYS.execute(connection, {"ids": listed})
            await _PURGE_SESSIONS.execute(connection, {"ids": listed})
    return len(taken), (at if at.range < len(EXPIRING) else None)


async def wal_position(connection: Transaction) -> int | None:
    """PostgreSQL: how far the server's write-ahead log has been written, in bytes (its insert
    position), so that the WAL a retention batch wrote is the difference of two; None on
    SQLite, whose commits here do not wait for their log to reach the disk."""
    if not _postgres(connection):
        return None
    ((position,),) = await connection.fetch(
        "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn", ()
    )
    return int(position)


# --- rounds past their deadline -------------------------------------------------------------


def past_deadline_query() -> Select[Any]:
    """The sessions whose round waiting for dice is past its deadline (`now`), at most
    `limit`, the longest overdue first: a range of the partial index on `pending_deadline`."""
    return (
        select(sessions.c.id, sessions.c.kind)
        .where(sessions.c.pending_deadline <= bindparam("now"))
        .order_by(sessions.c.pending_deadline)
        .limit(bindparam("limit"))
        # Written out: SQLAlchemy's SQLite compiler would add an OFFSET parameter of its own.
        .offset(literal_column("0"))
    )


_PAST_DEADLINE = Statement(past_deadline_query)


async def past_deadline(
    connection: Transaction, *, now: datetime, limit: int
) -> list[tuple[str, str]]:
    """(id, kind) of at most `limit` sessions whose round waiting for dice is past its
    deadline at `now`, the longest overdue first (through the partial index on
    `pending_deadline`)."""
    found = await _PAST_DEADLINE.fetch(
        connection, {"now": _time_in(connection, now), "limit": limit}
    )
    return [(session_id, kind) for session_id, kind in found]


# --- gauges --------------------------------------------------------------------------------

_ACTIVE_BY_KIND = Statement(
    lambda: (
        select(sessions.c.kind, func.count())
        .where(sessions.c.status == bindparam("status"))
        .group_by(sessions.c.kind)
    )
)


async def active_sessions_by_kind(connection: Transaction) -> dict[str, int]:
    """How many sessions of each kind are still being played."""
    return {
        str(kind): int(count)
        for kind, count in await _ACTIVE_BY_KIND.fetch(connection, {"status": "active"})
    }
