"""Engines and transactions for SQLite (default) and PostgreSQL.

Every request gets at most one transaction (`Store.run`), and concurrent writers to one
session are serialised, never interleaved:

* SQLite: `BEGIN IMMEDIATE` takes the database's write lock when the transaction starts
  (WAL mode lets readers carry on). Writers of this process queue for it on an asyncio lock;
  while another process holds it, the attempt is retried with backoff, awaiting between
  attempts, so the event loop serves other requests meanwhile (SQLite's own busy handler
  would sleep in the calling thread: the event loop's).
* PostgreSQL, a change with an Idempotency-Key: the session row is read `FOR UPDATE`
  (`repository.get_session`), so the change and its stored answer commit together while
  other writers of that session wait; other sessions are left alone.
* PostgreSQL, any other change (`optimistic`): one statement writes it only if the session
  is still at the version that was read, else the change is computed again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

import orjson
from sqlalchemy import Connection, Dialect, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import NullPool

from app.rules.messages import N_

T = TypeVar("T")
#: "optimistic": on PostgreSQL, no transaction around `work`; its reads see the latest
#: committed data and its one write statement (a second is refused) checks the version it
#: read (see `Store.run`).
#: "snapshot": a read whose statements all see one snapshot (PostgreSQL's REPEATABLE READ,
#: read-only, which a standby serves too; on SQLite every read transaction is one already).
Mode = Literal["read", "snapshot", "write", "optimistic"]
#: How often an optimistic write is retried after another writer got in first.
MAX_OPTIMISTIC_ATTEMPTS = 100


class StaleWrite(Exception):
    """A write whose version check failed: the session changed after it was read."""


class Contended(Exception):
    """An optimistic write lost to other writers `MAX_OPTIMISTIC_ATTEMPTS` times in a row."""


#: How often the checkpointer copies SQLite's WAL into the database.
CHECKPOINT_INTERVAL_S: Final = 1.0
#: WAL pages (4 KB) after which a commit checkpoints itself when no checkpointer runs.
WAL_BACKSTOP_PAGES: Final = 20_000
#: WAL pages after which the checkpointer, once it has copied them all, has the log start
#: again from its beginning (see `_checkpoint`): under a steady flow of writes a log is never
#: all copied when the next write begins, which is when SQLite restarts it, so without this it
#: grew to the backstop, past which a commit on the event loop checkpointed (a retention sweep
#: beside 500 rounds/s met one every second, of about 100 ms).
WAL_RESTART_PAGES: Final = 4_096
#: Longest wait for the checkpointer's next pass (`Store.checkpointed`).
CHECKPOINT_WAIT_S: Final = 10.0


class Unavailable(Exception):
    """The database cannot serve the request now (down, failing over, its connections used
    up, or SQLite's write lock held elsewhere for too long); a retry later may succeed."""

    def __init__(self, detail: str, *, retry_after: int) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


log = logging.getLogger("arbiter")

#: Seconds a client is asked to wait when the database is away (a restart or a failover).
UNAVAILABLE_RETRY_AFTER = 5
#: Seconds a client is asked to wait when SQLite's write lock stayed taken.
LOCKED_RETRY_AFTER = 1
#: Longest wait for a pooled PostgreSQL connection, and for any one statement: beyond these
#: the database is answering too slowly to be of use, and the request gets a 503.
POOL_ACQUIRE_TIMEOUT_S = 10.0
STATEMENT_TIMEOUT_S = 15.0
#: Longest wait for one PostgreSQL server to accept a request connection (each server of a
#: URL naming several is given this much in turn).
CONNECT_TIMEOUT_S = 5.0
#: Longest a readiness check may take: probes must not queue behind an unreachable host.
READINESS_TIMEOUT_S = 4.0
#: The first and the longest pause between attempts at SQLite's write lock.
LOCK_BACKOFF_FIRST_S = 0.001
LOCK_BACKOFF_MAX_S = 0.05


def _postgres_is_away(exc: BaseException) -> bool:
    """Whether an error from asyncpg means the server is not there to answer (rather than a
    fault of the statement): the connection was refused, reset or timed out, the server is
    shutting down or starting up, or it is a read-only standby after a failover."""
    import asyncpg

    if isinstance(exc, OSError):  # refused, reset, unreachable; TimeoutError is one too
        return True
    if isinstance(
        exc,
        # A connection broken mid-protocol by a shutdown: "cannot switch to state 15".
        asyncpg.InternalClientError
        | asyncpg.ConnectionDoesNotExistError
        | asyncpg.PostgresConnectionError
        | asyncpg.OperatorInterventionError
        | asyncpg.InsufficientResourcesError
        | asyncpg.ReadOnlySQLTransactionError,
    ):
        return True
    # A pooled connection the server dropped: "cannot call Connection.fetch(): connection
    # is closed". Other interface errors are the caller's bugs and stay 500.
    return isinstance(exc, asyncpg.InterfaceError) and "closed" in str(exc)


def _sqlite_is_away(exc: BaseException) -> bool:
    """Whether a SQLite error means the file cannot be used now (locked, unreadable, or its
    disk full)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    message = str(exc)
    return any(
        sign in message
        for sign in (
            "database is locked",
            "unable to open",
            "disk I/O error",
            "is busy",
            "database or disk is full",
        )
    )


class _Probed(Exception):
    """The write probe found the database unable to take changes: its transaction is rolled
    back by this."""


#: Readiness writes (and commits) a change at most this often; the checks between reuse the
#: last answer, so a probe every second from a load balancer costs one small write per interval.
WRITE_PROBE_INTERVAL_S: Final = 2.0
#: The write probe's statement: row 1 of `readiness_probe` inserted, or its count advanced
#: (a change to the row, so that SQLite writes it to the WAL and the commit reaches the disk).
#: The same text on SQLite and PostgreSQL.
PROBE_UPSERT: Final = (
    "INSERT INTO readiness_probe (id, probes) VALUES (1, 1) ON CONFLICT (id) "
    "DO UPDATE SET probes = readiness_probe.probes + 1"
)
#: On SQLite the probe also rewrites `PROBE_PAGES` pages of zeros beside its count: a file
#: that may not grow keeps taking a one-page change in the room its write-ahead log already
#: has (a checkpoint rewinds it) long after a round, which writes several pages, is refused,
#: so a probe of one page would call ready a database that refuses every round.
PROBE_PAGES: Final = 16
PROBE_UPSERT_SQLITE: Final = (
    "INSERT INTO readiness_probe (id, probes, padding) "
    f"VALUES (1, 1, zeroblob({PROBE_PAGES * 4096})) ON CONFLICT (id) "
    "DO UPDATE SET probes = readiness_probe.probes + 1, padding = excluded.padding"
)


MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def _json_serializer(value: Any) -> str:
    return orjson.dumps(value).decode()


def missing_database(url: str, exc: BaseException) -> str | None:
    """One line saying a PostgreSQL database does not exist and how to create it, when that
    is what `exc` (from connecting to `url`) says; else None."""
    text = str(exc)
    if "does not exist" not in text or "database" not in text:
        return None
    parsed = make_url(normalise_url(url))
    if not parsed.drivername.startswith("postgresql"):
        return None
    hosts = postgres_hosts(parsed)
    if len(hosts) > 1:
        # createdb's -h and -p would take the first server that answers, maybe a standby.
        servers = ",".join(hosts)
        user = f"{parsed.username}@" if parsed.username else ""
        return (
            f'the PostgreSQL database "{parsed.database}" does not exist on the primary of '
            f"{servers}; create it first: createdb --maintenance-db="
            f"'postgresql://{user}{servers}/postgres?target_session_attrs=read-write' "
            f"{parsed.database}"
        )
    host, port = parsed.host or "localhost", parsed.port or 5432
    user = f" -U {parsed.username}" if parsed.username else ""
    return (
        f'the PostgreSQL database "{parsed.database}" does not exist on {host}:{port}; '
        f"create it first: createdb -h {host} -p {port}{user} {parsed.database}"
    )


#: What psycopg says when no server answers at an address (refused, unresolvable, timed out).
UNREACHABLE_SIGNS: Final = (
    "Connection refused",
    "failed to resolve host",
    "Name or service not known",
    "timeout expired",
    "No route to host",
    "Network is unreachable",
    "could not connect",
)


def unreachable_database(url: str, exc: BaseException) -> str | None:
    """One line saying the PostgreSQL server `url` names is unreachable, and what to do, when
    that is what `exc` (from connecting to `url`) says; else None."""
    parsed = make_url(normalise_url(url))
    if not parsed.drivername.startswith("postgresql"):
        return None
    message = str(exc)
    sign = next((sign for sign in UNREACHABLE_SIGNS if sign in message), None)
    if sign is None:
        return None
    hosts = postgres_hosts(parsed)
    servers = (
        ",".join(hosts) if len(hosts) > 1 else f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
    )
    # No `@` in it: a problem's detail would break it with a zero-width space (against chat
    # mentions), which a reader copying the line would not see.
    return (
        f"the PostgreSQL server at {servers} is unreachable ({sign.lower()}); start it, or set "
        "DATABASE_URL to a server that runs, or unset it to use a local SQLite file"
    )


#: What a URL naming several PostgreSQL servers asks for unless it says otherwise: the one
#: that takes writes (the store writes on every change; a standby could only refuse them).
DEFAULT_TARGET_SESSION_ATTRS = "read-write"


def normalise_url(url: str) -> str:
    """Accept the common PostgreSQL spellings and use the psycopg 3 driver for them.

    Several servers (a primary and its standbys) may be named as libpq names them,
    `postgresql://user@host1:5432,host2:5432/arbiter?target_session_attrs=read-write`, or as
    SQLAlchemy does, `...@/arbiter?host=host1:5432&host=host2:5432`; both become the latter,
    and without `target_session_attrs` they get `read-write`, so that each new connection
    goes to whichever of them is the primary then."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            url = "postgresql+psycopg://" + url[len(prefix) :]
            break
    if not url.startswith("postgresql"):
        return url
    scheme, _, rest = url.partition("://")
    authority, _, tail = rest.partition("/")
    credentials, at, hostlist = authority.rpartition("@")
    if "," in hostlist:
        path, _, query = tail.partition("?")
        hosts = "&".join(f"host={host}" for host in hostlist.split(",") if host)
        url = f"{scheme}://{credentials}{at}/{path}?{hosts}" + (f"&{query}" if query else "")
    if len(postgres_hosts(make_url(url))) > 1 and "target_session_attrs=" not in url:
        attrs = f"target_session_attrs={DEFAULT_TARGET_SESSION_ATTRS}"
        url += ("&" if "?" in url else "?") + attrs
    return url


def database_file(url: str) -> tuple[bool, str | None]:
    """Whether `url` names a PostgreSQL database, and a SQLite database's file (None: in
    memory, or PostgreSQL)."""
    parsed = make_url(normalise_url(url))
    if parsed.get_backend_name() == "postgresql":
        return True, None
    database = parsed.database
    return False, database if database and database != ":memory:" else None


def postgres_hosts(parsed: URL) -> list[str]:
    """The `host[:port]` of every server a PostgreSQL URL names, in the order they are tried
    (one, or none for the driver's default)."""
    listed = parsed.query.get("host")
    if listed:
        entries = [listed] if isinstance(listed, str) else list(listed)
        return [host for entry in entries for host in entry.split(",") if host]
    if parsed.host is None:
        return []
    return [f"{parsed.host}:{parsed.port}" if parsed.port else parsed.host]


def asyncpg_dsn(url: str) -> str:
    """asyncpg's DSN for a PostgreSQL URL (any spelling `normalise_url` accepts): several
    servers as one comma-separated `host` (asyncpg keeps only the last of repeated ones),
    tried in order for the one `target_session_attrs` asks for."""
    parsed = make_url(normalise_url(url)).set(drivername="postgresql")
    hosts = postgres_hosts(parsed)
    if len(hosts) > 1:
        parsed = parsed.update_query_dict({"host": ",".join(hosts)})
    return parsed.render_as_string(hide_password=False)


def asyncpg_dsns(url: str) -> list[str]:
    """One asyncpg DSN per server of a PostgreSQL URL, in order, each with the URL's
    `target_session_attrs` (see `connect_asyncpg`)."""
    parsed = make_url(normalise_url(url)).set(drivername="postgresql")
    hosts = postgres_hosts(parsed)
    if len(hosts) <= 1:
        return [asyncpg_dsn(url)]
    return [
        parsed.update_query_dict({"host": host}).render_as_string(hide_password=False)
        for host in hosts
    ]


async def connect_asyncpg(dsns: Sequence[str], **options: Any) -> Any:
    """An asyncpg connection to the first of `dsns` that takes it and is what its
    `target_session_attrs` asks for, each tried with the whole `timeout` of `options`.

    asyncpg's own host list shares one timeout between all its hosts: a server that hangs
    rather than refusing (a lost machine, a frozen one) would use it all up, and the next
    server, the new primary, would never be tried. libpq gives each its own, as here."""
    import asyncpg

    last: BaseException | None = None
    for dsn in dsns:
        try:
            return await asyncpg.connect(dsn, **options)
        except (OSError, asyncpg.PostgresError, asyncpg.InternalClientError) as exc:
            last = exc  # refused, hung (TimeoutError), starting up, a standby: the next one
    assert last is not None, "no server to connect to"
    raise last


def build_engine(url: str, *, pool_size: int = 10, busy_timeout_ms: int = 30_000) -> Engine:
    url = normalise_url(url)
    parsed = make_url(url)
    common: dict[str, Any] = {
        "json_serializer": _json_serializer,
        "json_deserializer": orjson.loads,
    }
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
            **common,
        )
        _configure_sqlite(engine, busy_timeout_ms)
        return engine
    _use_orjson_for_jsonb()
    return create_engine(
        url,
        # A fixed set of connections: overflow ones would be opened and closed under load,
        # and a PostgreSQL connection costs milliseconds to open.
        pool_size=pool_size,
        max_overflow=0,
        pool_timeout=30,
        pool_recycle=1800,
        # A connection the server dropped (a restart, a failover) is found and replaced on
        # checkout, rather than failing the next use.
        pool_pre_ping=True,
        # An unreachable host must fail /readyz promptly, not hang it; keepalives find a
        # connection whose peer vanished without closing it.
        connect_args={
            "connect_timeout": 3,
            "keepalives": 1,
            "keepalives_idle": 5,
            "keepalives_interval": 2,
            "keepalives_count": 2,
        },
        **common,
    )


def _use_orjson_for_jsonb() -> None:
    from psycopg.types.json import set_json_loads

    set_json_loads(orjson.loads)


def _journal_in_wal(cursor: Any, busy_timeout_ms: int) -> None:
    """`PRAGMA journal_mode=WAL`, tried again while the database is locked, up to the busy
    timeout: processes switching a new database file to WAL at once (replicas starting, their
    migrations) can each hold its shared lock while asking for the exclusive one, and SQLite
    then answers one of them "database is locked" at once rather than waiting. Once the other
    has switched, the mode is the file's and this finds it set."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    pause = 0.001
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)  # the other process holds the lock for a few milliseconds
        pause = min(pause * 2, 0.1)


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the sqlite3 module: we emit BEGIN ourselves.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        _journal_in_wal(cursor, busy_timeout_ms)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        # Checkpoints run off the request path (`Store`'s checkpointer); this is the backstop
        # should none run (a store never opened).
        cursor.execute(f"PRAGMA wal_autocheckpoint={WAL_BACKSTOP_PAGES}")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Connection) -> None:
        # Writers take the write lock up front, so two read-modify-write transactions never
        # both read before either writes (which SQLite would answer with SQLITE_BUSY).
        write = connection.get_execution_options().get("arbiter_mode") == "write"
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class Transaction:
    """One open database transaction, on the driver's own connection.

    Queries (app/store/repository.py) compile their statements once for `dialect` and run
    them here on the driver directly: the per-call machinery of a SQLAlchemy `Connection`
    costs more than the short statements themselves. On PostgreSQL the driver is an asyncpg
    connection, so waiting for the server never holds up the event loop; SQLite runs in this
    process and answers at once.

    A statement that only reads runs with `fetch`, one that writes with `execute`. With
    `single_write` (the optimistic mode of `Store.run` on PostgreSQL, where no transaction
    surrounds the statements) a second `execute` is refused: only one statement is atomic
    on its own.
    """

    __slots__ = ("_asynchronous", "_begun", "_single_write", "_written", "dialect", "driver")

    def __init__(
        self,
        dialect: Dialect,
        driver: Any,
        *,
        asynchronous: bool = False,
        single_write: bool = False,
    ) -> None:
        self.dialect = dialect
        self.driver = driver
        self._asynchronous = asynchronous
        self._single_write = single_write
        self._written = False
        #: The transaction `atomic` began (the optimistic mode's, on PostgreSQL), if it did.
        self._begun: Any = None

    @property
    def single_write(self) -> bool:
        """Whether this work's writes must be one statement (the optimistic mode, on
        PostgreSQL, until `atomic`)."""
        return self._single_write

    async def atomic(self) -> None:
        """Make this work's writes from here on one transaction, committed when it returns.

        For the optimistic mode (PostgreSQL), whose work is otherwise one statement that
        writes: a change that must write more than that statement (a webhook's delivery in
        the outbox, app/api/sessions/outbox.py) begins a transaction before its first write. Its
        reads
        before that saw the latest committed data, and its write still checks the version it
        read, so nothing changes but that the writes commit together. Elsewhere (a write
        transaction already open) it does nothing."""
        if not self._single_write:
            return
        if self._written:
            raise RuntimeError("atomic() comes before the first write")
        self._single_write = False
        begun = self.driver.transaction()
        await begun.start()
        self._begun = begun

    async def end(self, *, commit: bool) -> None:
        """Commit (or roll back) the transaction `atomic` began, if it began one."""
        begun, self._begun = self._begun, None
        if begun is None:
            return
        if commit:
            await begun.commit()
            return
        try:
            await begun.rollback()
        except Exception:  # a broken connection: the pool's reset ends what is left of it
            log.debug("rolling back an optimistic change's transaction failed", exc_info=True)

    async def fetch(self, sql: str, params: Any) -> list[tuple[Any, ...]]:
        """Run one statement that reads; its rows, as tuples."""
        if self._asynchronous:
            records = await self.driver.fetch(sql, *params)
            return [tuple(record) for record in records]
        cursor = self.driver.cursor()
        try:
            cursor.execute(sql, params)
            rows: list[tuple[Any, ...]] = cursor.fetchall()
            return rows
        finally:
            cursor.close()

    async def execute(self, sql: str, params: Any) -> int:
        """Run one statement that writes; the count of rows it changed."""
        if self._single_write:
            if self._written:
                raise RuntimeError(
                    "a second write in optimistic mode: its work may issue one write "
                    "statement, which is atomic only on its own; use mode 'write'"
                )
            self._written = True
        if self._asynchronous:
            status: str = await self.driver.execute(sql, *params)  # e.g. "UPDATE 1"
            count = status.rpartition(" ")[2]
            return int(count) if count.isdigit() else -1
        cursor = self.driver.cursor()
        try:
            cursor.execute(sql, params)
            rowcount: int = cursor.rowcount
            return rowcount
        finally:
            cursor.close()


async def _end_open_transaction(connection: Any) -> None:
    """What a connection needs before it goes back to the pool: no open transaction.

    (asyncpg's default also unlistens, unlocks session advisory locks and resets settings, one
    more round trip per request; Arbiter uses none of those: its advisory locks are
    transaction-scoped.)
    """
    if connection.is_in_transaction():
        await connection.execute("ROLLBACK")


class Store:
    """The database behind the sessions: connections, transactions, readiness.

    SQLite: a transaction runs on the event loop (it is short CPU work in this process;
    handing it to a thread and back would cost more). Writers in this process queue on an
    asyncio lock and share one connection; the write lock held by another process is waited
    for by awaiting between attempts (`_lock_for_writing`), never in SQLite's busy handler,
    which would sleep on the event loop. Readers do not wait for writers (WAL).
    PostgreSQL: asyncpg connections from a pool, so many transactions wait on the server at
    once and commits share the server's WAL flushes. (psycopg, the driver of `DATABASE_URL`
    and of migrations, costs more CPU per statement in asyncio mode: see docs/performance.md.)

    A database that cannot answer (down, failing over, out of connections, SQLite's write
    lock held elsewhere past `busy_timeout_ms`) makes `run` raise `Unavailable`. It is
    logged once when it starts and once when a transaction succeeds again, not per request;
    the pool replaces connections the server dropped, so no restart is needed.
    """

    def __init__(
        self,
        url: str,
        *,
        pool_size: int = 20,
        busy_timeout_ms: int = 30_000,
        role: str = "the database",
        when_away: str = "answering 503 until it is back",
    ) -> None:
        self.url = normalise_url(url)
        #: What the outage's log lines call this store, and what its outage means.
        self.role = role
        self.when_away = when_away
        self.engine = build_engine(self.url, pool_size=2, busy_timeout_ms=busy_timeout_ms)
        self.dialect: str = self.engine.dialect.name
        self.pool_size = pool_size
        self.busy_timeout_ms = busy_timeout_ms
        #: Idempotency keys being processed in this process (SQLite has no row to lock yet).
        self.in_flight: set[tuple[str, str]] = set()
        self.in_flight_lock = threading.Lock()
        #: Attempts at SQLite's write lock that found it taken by another process.
        self.lock_waits = 0
        #: Whether the database is away (since a transaction failed for it, until one
        #: succeeds), and whether SQLite's write lock is (until a writer gets it).
        self.away = False
        self.locked_out = False
        self._sqlite_writer = asyncio.Lock()
        self._writer_connection: Any = None
        self._postgres_pool: Any = None
        self._postgres_dialect: Dialect | None = None
        # One thread for readiness checks: a check stuck on a vanished host holds it, and
        # the checks after it time out instead of piling up threads.
        self._readiness = ThreadPoolExecutor(max_workers=1, thread_name_prefix="readiness")
        self._checkpointer: threading.Thread | None = None
        self._stop_checkpoints = threading.Event()
        #: Set to have the checkpointer's next pass now (`checkpointed`, `close`); and those
        #: waiting for that pass to end: (their loop, their future).
        self._checkpoint_asked = threading.Event()
        self._checkpoint_waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._checkpoint_lock = threading.Lock()
        #: PASSIVE checkpoints the checkpointer has run, and the times it had the log start
        #: again (for tests and curiosity).
        self.checkpoints = 0
        self.wal_restarts = 0
        #: The last write probe: when it ran (monotonic), and what it found (None: committed).
        self._write_probe_lock = asyncio.Lock()
        self._write_probed_at: float | None = None
        self._write_problem: str | None = None

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    async def open(self) -> None:
        """Create the PostgreSQL pool; connections are made when first needed, so a server
        that is down at start makes requests (and /readyz) fail, not the start. On SQLite,
        start the checkpointer."""
        database = make_url(self.url).database
        on_file = not self.is_postgres and database and database != ":memory:"
        if on_file and self._checkpointer is None:
            self._stop_checkpoints.clear()
            self._checkpointer = threading.Thread(
                target=self._checkpoint_until_stopped,
                args=(database,),
                name="sqlite-checkpoints",
                daemon=True,
            )
            self._checkpointer.start()
        if self.is_postgres and self._postgres_pool is None:
            import asyncpg
            from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg

            self._postgres_dialect = PGDialect_asyncpg()  # type: ignore[no-untyped-call]
            dsns = asyncpg_dsns(self.url)

            async def connect(_pool_dsn: None, **options: Any) -> Any:
                return await connect_asyncpg(dsns, **options)

            self._postgres_pool = await asyncpg.create_pool(
                connect=connect,
                min_size=0,
                max_size=self.pool_size,
                timeout=CONNECT_TIMEOUT_S,
                command_timeout=STATEMENT_TIMEOUT_S,
                reset=_end_open_transaction,
            )

    async def run(self, mode: Mode, work: Callable[[Transaction], Awaitable[T]]) -> T:
        """Run `work` in one transaction: committed when it returns, rolled back if it raises.

        `optimistic` (PostgreSQL): `work` reads without locking and ends in exactly one
        statement that writes, guarded by the version it read (`StaleWrite` when another
        writer got in first); that statement is atomic on its own, so no BEGIN and COMMIT
        round trips are needed, and `work` is simply run again after a `StaleWrite`. Writers
        of one session are still serialised — each change applies to the version it read, or
        not at all. A second write statement would not be atomic with the first, so it raises
        `RuntimeError` (a programming error: such work needs `write`). On SQLite, where
        writers queue for the write lock anyway, it is `write`.

        `Unavailable` when the database cannot answer now; what `work` raises otherwise.
        """
        try:
            if self.is_postgres:
                result = await self._run_postgres(mode, work)
            else:
                result = await self._run_sqlite(mode, work)
        except Unavailable:
            raise
        except Exception as exc:
            if not (_postgres_is_away(exc) if self.is_postgres else _sqlite_is_away(exc)):
                raise
            if not self.away:
                self.away = True
                log.warning(
                    "%s is unavailable, %s: %s: %s",
                    self.role,
                    self.when_away,
                    type(exc).__name__,
                    exc,
                )
            raise Unavailable(
                N_("the database is unavailable; retry in a few seconds"),
                retry_after=UNAVAILABLE_RETRY_AFTER,
            ) from None
        if self.away:
            self.away = False
            log.info("%s is available again", self.role)
        return result

    async def _run_postgres(self, mode: Mode, work: Callable[[Transaction], Awaitable[T]]) -> T:
        if self._postgres_pool is None:
            await self.open()
        assert self._postgres_dialect is not None
        acquired = self._postgres_pool.acquire(timeout=POOL_ACQUIRE_TIMEOUT_S)
        if mode == "optimistic":
            async with acquired as driver:
                for attempt in range(MAX_OPTIMISTIC_ATTEMPTS):
                    # A fresh one per attempt: each attempt may write once.
                    transaction = Transaction(
                        self._postgres_dialect, driver, asynchronous=True, single_write=True
                    )
                    try:
                        result = await work(transaction)
                    except StaleWrite:
                        await transaction.end(commit=False)
                        await asyncio.sleep(0.001 * min(attempt, 20))
                        continue
                    except BaseException:
                        await transaction.end(commit=False)
                        raise
                    await transaction.end(commit=True)
                    return result
            raise Contended("the session changed under every attempt to write it")
        async with acquired as driver:
            begun = (
                driver.transaction(isolation="repeatable_read", readonly=True)
                if mode == "snapshot"
                else driver.transaction()
            )
            async with begun:
                return await work(Transaction(self._postgres_dialect, driver, asynchronous=True))

    async def _run_sqlite(self, mode: Mode, work: Callable[[Transaction], Awaitable[T]]) -> T:
        if mode not in ("read", "snapshot"):
            async with self._sqlite_writer:
                if self._writer_connection is None:
                    connection = self.engine.raw_connection()
                    sqlite: Any = connection.driver_connection
                    # Waits for the lock are `_lock_for_writing`'s, off the event loop.
                    sqlite.execute("PRAGMA busy_timeout=0")
                    self._writer_connection = connection
                driver = self._writer_connection.driver_connection
                await self._lock_for_writing(driver)
                return await self._run_begun(driver, work)
        pooled = self.engine.raw_connection()
        reader: Any = pooled.driver_connection
        try:
            reader.execute("BEGIN")
            return await self._run_begun(reader, work)
        finally:
            pooled.close()

    async def _lock_for_writing(self, driver: Any) -> None:
        """`BEGIN IMMEDIATE`: the write lock up front, so two read-modify-write transactions
        never both read before either writes. While another process holds it, try again
        after a pause that doubles up to `LOCK_BACKOFF_MAX_S`, for `busy_timeout_ms` in all;
        `Unavailable` after that."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.busy_timeout_ms / 1000
        pause = LOCK_BACKOFF_FIRST_S
        while True:
            try:
                driver.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
            else:
                if self.locked_out:
                    self.locked_out = False
                    log.info("the SQLite write lock is free again")
                return
            self.lock_waits += 1
            left = deadline - loop.time()
            if left <= 0:
                if not self.locked_out:
                    self.locked_out = True
                    log.warning(
                        "another process held the SQLite write lock for over %d ms; "
                        "writes answer 503 until it is free",
                        self.busy_timeout_ms,
                    )
                raise Unavailable(
                    N_("the database is busy with another process's write; retry shortly"),
                    retry_after=LOCKED_RETRY_AFTER,
                )
            await asyncio.sleep(min(pause, left))
            pause = min(pause * 2, LOCK_BACKOFF_MAX_S)

    async def _run_begun(self, driver: Any, work: Callable[[Transaction], Awaitable[T]]) -> T:
        try:
            result = await work(Transaction(self.engine.dialect, driver))
        except BaseException:
            driver.rollback()
            raise
        driver.commit()
        return result

    def readiness_problem(self) -> str | None:
        """None when the database answers and is migrated to head, else what is wrong; in
        `READINESS_TIMEOUT_S` at most, however the database fails."""
        try:
            return self._readiness.submit(self._check_readiness).result(READINESS_TIMEOUT_S)
        except TimeoutError:
            return f"the database did not answer within {READINESS_TIMEOUT_S:g} s"

    async def ready(self) -> str | None:
        """`readiness_problem`, then whether a change can be made durable: a committed write
        of the one-row `readiness_probe` table, at most every `WRITE_PROBE_INTERVAL_S` while it
        succeeds (the answers between reuse the last one), and on PostgreSQL whether the
        server is in recovery or its transactions read-only. A database that reads but refuses every
        change (a full disk, a read-only file system or server) is not ready; once writes
        succeed again it is ready again, without a restart."""
        problem = await asyncio.to_thread(self.readiness_problem)
        if problem is not None:
            return problem
        seen = self._write_probed_at
        async with self._write_probe_lock:
            if self._write_probed_at != seen:
                return self._write_problem  # a probe ended while this check waited: its answer
            # A probe that committed is repeated after the interval; one that failed, or a
            # request that met the database away since, makes the next check probe again, so
            # that an outage shows at once and its end at the first check after it.
            due = (
                self._write_probed_at is None
                or self._write_problem is not None
                or self.away
                or time.monotonic() - self._write_probed_at >= WRITE_PROBE_INTERVAL_S
            )
            if due:
                # A new connection tries each server of a list in turn, a hung one costing
                # its whole connect timeout: that much longer for each server before the last.
                servers = len(postgres_hosts(make_url(self.url))) if self.is_postgres else 1
                limit = READINESS_TIMEOUT_S + CONNECT_TIMEOUT_S * max(0, servers - 1)
                try:
                    self._write_problem = await asyncio.wait_for(self._probe_write(), limit)
                except TimeoutError:
                    self._write_problem = (
                        f"a write to the database did not commit within {limit:g} s"
                    )
                self._write_probed_at = time.monotonic()
            return self._write_problem

    async def _probe_write(self) -> str | None:
        """Commit one change to `readiness_probe`; None if it committed, else why not."""
        read_only: list[str] = []

        async def probe(transaction: Transaction) -> None:
            if self.is_postgres:
                ((in_recovery, transaction_read_only),) = await transaction.fetch(
                    "SELECT pg_is_in_recovery(), current_setting('transaction_read_only')", ()
                )
                if in_recovery:
                    read_only.append("the PostgreSQL server is a standby in recovery")
                elif transaction_read_only == "on":
                    read_only.append("the PostgreSQL server's transactions are read-only")
                if read_only:
                    raise _Probed
            else:
                # A file held at its page quota (`max_page_count`) with no free page left
                # refuses every change that needs a page, though this row's change needs none.
                ((pages,),) = await transaction.fetch("PRAGMA page_count", ())
                ((quota,),) = await transaction.fetch("PRAGMA max_page_count", ())
                ((free,),) = await transaction.fetch("PRAGMA freelist_count", ())
                if pages >= quota and not free:
                    read_only.append(f"the SQLite file is at its limit of {quota} pages")
                    raise _Probed
            await transaction.execute(PROBE_UPSERT if self.is_postgres else PROBE_UPSERT_SQLITE, ())

        try:
            await self.run("write", probe)
        except _Probed:
            if self._postgres_pool is not None:
                # Its connections keep the read-only default they were opened with: new ones
                # see whether it has been lifted.
                await self._postgres_pool.expire_connections()
            return f"{read_only[0]}; changes cannot be made"
        except Unavailable:
            return "the database refuses changes (full, read-only or going away)"
        return None

    def _check_readiness(self) -> str | None:
        try:
            with self.engine.connect() as connection:
                current = (
                    connection.execute(text("SELECT version_num FROM alembic_version"))
                    .scalars()
                    .all()
                )
        except Exception as exc:  # any driver error means: not ready
            missing = missing_database(self.url, exc) or unreachable_database(self.url, exc)
            return missing or f"database unreachable or not migrated: {type(exc).__name__}"
        head = migration_head()
        if head not in current:
            return f"database at {sorted(current) or 'no revision'}, expected {head}"
        return None

    def _checkpoint_until_stopped(self, database: str) -> None:
        """Copy the WAL's committed pages into the database every `CHECKPOINT_INTERVAL_S` (or
        at once when asked: `checkpointed`), in this thread (SQLite's own checkpoints run
        inside whichever commit crosses the limit: a fifth of the SQLite rounds' throughput
        went there), and once more when the store closes."""
        try:
            # Never waits for a lock: a checkpoint that would is tried again at the next pass.
            connection = sqlite3.connect(database, timeout=0, check_same_thread=False)
        except sqlite3.Error as exc:
            log.warning("SQLite checkpoints cannot start: %s", exc)
            return
        try:
            while True:
                self._checkpoint_asked.wait(CHECKPOINT_INTERVAL_S)
                self._checkpoint_asked.clear()
                stopping = self._stop_checkpoints.is_set()
                with self._checkpoint_lock:
                    waiting, self._checkpoint_waiting = self._checkpoint_waiting, []
                self._checkpoint(connection)
                for loop, future in waiting:
                    with contextlib.suppress(RuntimeError):  # its loop closed meanwhile
                        loop.call_soon_threadsafe(_settle, future)
                if stopping:
                    return  # after a last checkpoint, at the store's close
        finally:
            connection.close()

    def _checkpoint(self, connection: sqlite3.Connection) -> None:
        """One pass: PASSIVE (writers and readers go on meanwhile; what a reader still needs
        is copied next time); then, if the log is `WAL_RESTART_PAGES` long and all copied,
        RESTART, which has the next write start the log again from its beginning. RESTART
        takes the write lock only if it is free, and holds it for what was written since
        (a few pages), never waiting for a reader: one still reading from the log leaves it
        as it is until a later pass."""
        try:
            _busy, logged, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.checkpoints += 1
            if logged >= WAL_RESTART_PAGES and copied >= logged:
                busy, _logged, _copied = connection.execute(
                    "PRAGMA wal_checkpoint(RESTART)"
                ).fetchone()
                if not busy:
                    self.wal_restarts += 1
        except sqlite3.Error:
            pass  # busy or away: the next pass tries again

    async def checkpointed(self) -> None:
        """SQLite: return once the checkpointer has run a pass begun after this call (at
        once: it is asked to), so that what was committed before it is in the database file
        and the log can start again; at most `CHECKPOINT_WAIT_S`. A writer of much (the
        retention sweep) waits for it between batches, keeping the log short. PostgreSQL, or
        no checkpointer: at once."""
        if self._checkpointer is None or self._stop_checkpoints.is_set():
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._checkpoint_lock:
            self._checkpoint_waiting.append((loop, future))
        self._checkpoint_asked.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(future, CHECKPOINT_WAIT_S)

    async def close(self) -> None:
        self._stop_checkpoints.set()
        self._checkpoint_asked.set()
        if self._checkpointer is not None:
            await asyncio.to_thread(self._checkpointer.join, 5.0)
            self._checkpointer = None
        if self._postgres_pool is not None:
            await self._postgres_pool.close()
            self._postgres_pool = None
        async with self._sqlite_writer:
            if self._writer_connection is not None:
                self._writer_connection.close()
                self._writer_connection = None
        self._readiness.shutdown(wait=False, cancel_futures=True)
        self.engine.dispose()


def migration_head() -> str:
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(MIGRATIONS_DIR))
    head = script.get_current_head()
    if head is None:
        raise RuntimeError("the migrations directory has no head revision")
    return head


def upgrade_to_head(url: str) -> None:
    """Apply every migration (what `alembic upgrade head` does), for startup and tests."""
    from alembic import command
    from alembic.config import Config

    config = Config(str(MIGRATIONS_DIR.parent / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["database_url"] = normalise_url(url)
    command.upgrade(config, "head")


def null_pool_engine(url: str) -> Engine:
    """An engine without pooling, for migrations and one-off maintenance."""
    return create_engine(normalise_url(url), poolclass=NullPool)


def _settle(future: asyncio.Future[None]) -> None:
    """End a wait for the checkpointer (in the waiter's loop), unless it was given up."""
    if not future.done():
        future.set_result(None)
