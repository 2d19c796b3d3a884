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
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection, text

from app.settings import get_settings
from app.store.database import build_engine, normalise_url
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
    )
    with context.begin_transaction():
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
        with engine.connect() as connection:
            connection.execution_options(arbiter_mode="write")
            run_locked(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
