"""Alembic environment: the URL comes from DATABASE_URL (app settings) or the caller."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection

from app.settings import get_settings
from app.store.database import build_engine, normalise_url
from app.store.models import Base

config = context.config
if config.config_file_name is not None and not config.attributes.get("skip_logging"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


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
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    given = config.attributes.get("connection")
    if given is not None:
        run_with(given)
        return
    engine = build_engine(database_url())
    with engine.connect() as connection:
        connection.execution_options(arbiter_mode="write")
        run_with(connection)
        connection.commit()
    engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
