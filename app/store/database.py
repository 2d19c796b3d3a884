"""Engines and transactions for SQLite (default) and PostgreSQL.

Every request gets at most one transaction (`Store.transaction`); writers take their locks up
front so concurrent writers to one session are serialised rather than interleaved:

* SQLite: `BEGIN IMMEDIATE` takes the database's write lock when the transaction starts
  (WAL mode lets readers carry on), and `busy_timeout` makes other writers — in this process
  or another — wait for it instead of failing.
* PostgreSQL: the session row is read `FOR UPDATE` (see `repository.get_session`), which
  serialises writers of that one session and leaves other sessions alone.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar

import orjson
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

T = TypeVar("T")
Mode = Literal["read", "write"]

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def _json_serializer(value: Any) -> str:
    return orjson.dumps(value).decode()


def normalise_url(url: str) -> str:
    """Accept the common PostgreSQL spellings and use the psycopg 3 driver for them."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


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
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_recycle=1800,
        # An unreachable host must fail /readyz promptly, not hang it.
        connect_args={"connect_timeout": 5},
        **common,
    )


def _use_orjson_for_jsonb() -> None:
    from psycopg.types.json import set_json_loads

    set_json_loads(orjson.loads)


def _configure_sqlite(engine: Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the sqlite3 module: we emit BEGIN ourselves.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Connection) -> None:
        # Writers take the write lock up front, so two read-modify-write transactions never
        # both read before either writes (which SQLite would answer with SQLITE_BUSY).
        write = connection.get_execution_options().get("arbiter_mode") == "write"
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


class Store:
    """The database behind the sessions: one engine, transactions, readiness."""

    def __init__(self, url: str, *, pool_size: int = 10, busy_timeout_ms: int = 30_000) -> None:
        self.url = normalise_url(url)
        self.engine = build_engine(self.url, pool_size=pool_size, busy_timeout_ms=busy_timeout_ms)
        self.dialect: str = self.engine.dialect.name
        #: Idempotency keys being processed in this process (SQLite has no row to lock yet).
        self.in_flight: set[tuple[str, str]] = set()
        self.in_flight_lock = threading.Lock()
        self._sqlite_writer = threading.Lock()

    @property
    def is_postgres(self) -> bool:
        return self.dialect == "postgresql"

    @contextmanager
    def transaction(self, mode: Mode) -> Iterator[Connection]:
        """One transaction: committed when the block ends normally, rolled back otherwise."""
        if mode == "write" and not self.is_postgres:
            # SQLite has one writer at a time. Queue this process's writers on a lock rather
            # than in SQLite's busy handler, which sleeps in growing steps (up to 100 ms) and
            # turns contention into long tails; other processes still wait in busy_timeout.
            with self._sqlite_writer, self._begin(mode) as connection:
                yield connection
            return
        with self._begin(mode) as connection:
            yield connection

    @contextmanager
    def _begin(self, mode: Mode) -> Iterator[Connection]:
        with self.engine.connect() as connection:
            connection.execution_options(arbiter_mode=mode)
            with connection.begin():
                yield connection

    def run(self, mode: Mode, work: Callable[[Connection], T]) -> T:
        with self.transaction(mode) as connection:
            return work(connection)

    def readiness_problem(self) -> str | None:
        """None when the database answers and is migrated to head, else what is wrong."""
        try:
            with self.engine.connect() as connection:
                current = (
                    connection.execute(text("SELECT version_num FROM alembic_version"))
                    .scalars()
                    .all()
                )
        except Exception as exc:  # any driver error means: not ready
            return f"database unreachable or not migrated: {type(exc).__name__}"
        head = migration_head()
        if head not in current:
            return f"database at {sorted(current) or 'no revision'}, expected {head}"
        return None

    def dispose(self) -> None:
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


def sqlite_path(url: str) -> str | None:
    parsed = make_url(normalise_url(url))
    if parsed.get_backend_name() != "sqlite":
        return None
    return os.path.abspath(parsed.database) if parsed.database else None
