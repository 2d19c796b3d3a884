"""Alembic environment: the URL comes from DATABASE_URL (app settings) or the caller.

Several processes may run `alembic upgrade head` at once (replicas starting together, a
migration job beside an app with ARBITER_MIGRATE=1). Each run reads the recorded revision and
applies what is missing in one critical section, so the later runs find the database at head:

* PostgreSQL: a session-level advisory lock on a fixed key, held from before the revision is
  read until after the last migration commits. Session-level rather than transaction-level,
  so that a migration which commits part-way (an `autocommit_block` for `CREATE INDEX
  CONCURRENTLY`) keeps it; a killed process's lock goes with its connection.
* SQLite: every migration in one transaction (SQLite's DDL is transactional) that begins with
  `BEGIN IMMEDIATE`, so the file's write lock covers the read of the revision and every step;
  other runs wait in busy_timeout.

On SQLite the migrations run with foreign keys off (the app's own connections keep them on): a
batch operation recreates a table by copying it and dropping the original, and with foreign
keys on, dropping `sessions` deletes every round (`ON DELETE CASCADE`). After each step
`PRAGMA foreign_key_check` must find no row naming a missing one, or the migration fails and
the transaction, every step of it, is rolled back. (PostgreSQL checks foreign keys itself.)

A downgrade step that would drop data (a table or a column holding any) refuses unless the
caller allows it: `alembic -x allow-data-loss=true downgrade ...` (migrations/guard.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from logging.config import fileConfig
from typing import Any

from alembic import context
from alembic.migration import MigrationContext, MigrationInfo
from alembic.util import CommandError
from sqlalchemy import Connection, text

from app.settings import get_settings
from app.store.database import (
    build_engine,
    missing_database,
    normalise_url,
    unreachable_database,
)
from app.store.models import Base

config = context.config
if config.config_file_name is not None and not config.attributes.get("skip_logging"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata

#: The advisory lock's key: the bytes of "Arbiter!" as a signed 64-bit integer. (The app's own
#: advisory locks are 64-bit hashes of idempotency keys: meeting this one is a hash collision.)
MIGRATION_LOCK_KEY = int.from_bytes(b"Arbiter!", "big", signed=True)


def database_url() -> str:
    url = config.attributes.get("database_url") or get_settings().database_url
    return normalise_url(str(url))


def run_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


@contextmanager
def foreign_keys_off(connection: Connection) -> Iterator[None]:
    """SQLite's foreign keys off on `connection` while the migrations run, then as they were.

    The pragma is a no-op inside a transaction, so it is set on the driver's connection before
    the migrations' transaction begins (through SQLAlchemy it would begin one)."""
    driver = connection.connection.driver_connection
    assert driver is not None
    enforced = driver.execute("PRAGMA foreign_keys").fetchone()[0]
    driver.execute("PRAGMA foreign_keys=OFF")
    if driver.execute("PRAGMA foreign_keys").fetchone()[0]:
        raise CommandError(
            "SQLite's foreign keys cannot be turned off for the migrations inside a "
            "transaction: pass a connection with none open"
        )
    try:
        yield
    finally:
        if enforced:
            driver.execute("PRAGMA foreign_keys=ON")


def revision_names(names: tuple[str, ...]) -> str:
    return ", ".join(names) or "base"


def check_foreign_keys(
    ctx: MigrationContext,
    step: MigrationInfo,
    heads: Collection[Any],  # noqa: ARG001 (alembic passes every argument by name)
    run_args: Mapping[str, Any],  # noqa: ARG001
) -> None:
    """After each SQLite step, inside its transaction: no row may name a row that is not
    there (`PRAGMA foreign_key_check`); if one does, the migration fails and is rolled back."""
    assert ctx.connection is not None
    violations = ctx.connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if not violations:
        return
    found = Counter((table, parent) for table, _rowid, parent, _key in violations)
    rows = ", ".join(
        f"{count} of {table} naming no row of {parent}" for (table, parent), count in found.items()
    )
    source, destination = step.source_revision_ids, step.destination_revision_ids
    raise CommandError(
        f"migration {revision_names(source)} -> {revision_names(destination)} leaves rows "
        f"whose foreign key names no row ({rows}); nothing was changed"
    )


def run_with(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=sqlite,
        # Alembic commits each SQLite step on its own by default; one transaction keeps the
        # revision it read valid until the last step (see the module's docstring).
        transactional_ddl=True if sqlite else None,
        compare_type=True,
        on_version_apply=check_foreign_keys if sqlite else None,
    )
    keys_off = foreign_keys_off(connection) if sqlite else nullcontext()
    with keys_off, context.begin_transaction():
        context.run_migrations()


def run_locked(connection: Connection) -> None:
    """`run_with`, holding the migrations' advisory lock on PostgreSQL."""
    if connection.dialect.name != "postgresql":
        run_with(connection)
        return
    connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
    # The lock outlives this transaction; ending it lets the migrations open their own.
    connection.commit()
    try:
        run_with(connection)
    finally:
        connection.rollback()
        connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY})
        connection.commit()


def run_online() -> None:
    given = config.attributes.get("connection")
    if given is not None:
        run_with(given)
        return
    engine = build_engine(database_url(), pool_size=1)
    try:
        try:
            connection_ = engine.connect()
        except Exception as exc:
            missing = missing_database(database_url(), exc) or unreachable_database(
                database_url(), exc
            )
            if missing is None:
                raise
            raise SystemExit(missing) from None
        with connection_ as connection:
            connection.execution_options(arbiter_mode="write")
            run_locked(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
