"""A migrator process for tests/store/test_migrations.py, in a module of its own so that a
spawned process imports alembic and nothing else of the test suite (the app, FastAPI)."""

from __future__ import annotations

from multiprocessing.synchronize import Barrier
from pathlib import Path

from alembic import command
from alembic.config import Config

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def migrate_after(url: str, start: Barrier) -> None:
    """Load alembic's configuration first, then upgrade at the barrier, so that the processes'
    upgrades overlap rather than their start-ups."""
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.attributes["database_url"] = url
    config.attributes["skip_logging"] = True
    start.wait()
    command.upgrade(config, "head")
