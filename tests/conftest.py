"""Shared fixtures: apps on throwaway SQLite and PostgreSQL databases, and HTTP clients.

The store's tests run on both databases. PostgreSQL comes from `ARBITER_TEST_POSTGRES_URL`
(default: the local server at 127.0.0.1:5432, database `test`, user `postgres`); each test run
creates its own database there and drops it afterwards. Outside CI an unreachable server skips
the PostgreSQL half; with `CI=true` it fails instead, so CI can never pass without it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.requirements import missing, skipped_groups

# The app, FastAPI and SQLAlchemy are imported where they are used: with `-n`, pytest's
# controlling process loads this file too, and runs no test; importing them here held it up
# (and with it the workers' start) by a second.
if TYPE_CHECKING:
    from fastapi.testclient import TestClient

# The odds' deadline (10 s by default) is about a served question's wait; a test machine busy
# with both test processes and their servers can take longer than that to start an odds worker.
# The tests of the deadline set their own.
os.environ.setdefault("ARBITER_ODDS_DEADLINE_SECONDS", "120")
# The apps of the tests keep ten years of sessions. Tests set an app's clock to a fixed moment
# (2026-12-01), and a round played at its deadline is stamped with it: an app's own purge,
# which runs at its start batch after batch while a test plays, would delete such a session
# as abandoned once that moment is a week old (as it did the deadline tests' 1990s, which keep
# a century: tests/store/test_deadlines.py). The retention tests judge ages by the settings.
os.environ.setdefault("ARBITER_RETENTION_FINISHED_DAYS", str(10 * 365))
os.environ.setdefault("ARBITER_RETENTION_ABANDONED_DAYS", str(10 * 365))
# Verifiable dice on PostgreSQL need a dice key shared by every process (the apps and servers
# of the tests included); and on SQLite a key given spares each test's app the key file in the
# user's state directory. The tests of the key file and of the refusal give their own settings
# (tests/store/test_dice_key.py).
os.environ.setdefault("ARBITER_DICE_KEY", "tests-dice-key-" + "0123456789abcdef" * 2)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """At the end of a run that skipped tests, one line per group: how many, what was not
    there, and what to install or start (tests/requirements.py), so that a run outside CI says
    what it did not try."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        if isinstance(longrepr, tuple) and len(longrepr) == 3:
            reasons.append(str(longrepr[2]))
    lines = skipped_groups(reasons)
    if lines:
        terminalreporter.write_sep("=", "skipped, and what to install or start")
        for line in lines:
            terminalreporter.write_line(line)


POSTGRES_URL = os.environ.get(
    "ARBITER_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A client for an app on a fresh SQLite file (enough for the one-shot endpoints)."""
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import Settings
    from tests.conformance import Conforming

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'one-shot.db'}")
    with TestClient(Conforming(create_app(settings))) as test_client:
        yield test_client


def create_postgres_database() -> str:
    """A new, empty PostgreSQL database; returns its URL."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"arbiter_test_{uuid.uuid4().hex[:12]}"
    engine = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        missing(
            f"PostgreSQL unreachable at {POSTGRES_URL} ({type(exc).__name__}: {reason})",
            "start it, or set ARBITER_TEST_POSTGRES_URL",
        )
    finally:
        engine.dispose()
    return make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


def drop_postgres_database(url: str) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = make_url(url).database
    engine = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


@contextmanager
def migrated(kind: str, folder: Path | None = None) -> Iterator[str]:
    """A new database of `kind` (`sqlite`: a file in `folder`; `postgresql`: a database of
    its own on the test server, dropped afterwards), migrated to head: its URL."""
    from app.store.database import upgrade_to_head

    if kind == "sqlite":
        assert folder is not None
        url = f"sqlite:///{folder / 'arbiter.db'}"
        upgrade_to_head(url)
        yield url
        return
    url = create_postgres_database()
    try:
        upgrade_to_head(url)
        yield url
    finally:
        drop_postgres_database(url)


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A migrated database of each kind, shared by the tests of one run."""
    with migrated(request.param, tmp_path_factory.mktemp("sqlite")) as url:
        yield url


@pytest.fixture
def own_database_url(database_url: str, tmp_path: Path) -> Iterator[str]:
    """A migrated database of `database_url`'s kind, this test's alone (for a test that
    changes what every other test would see, such as where ids are numbered from)."""
    kind = "sqlite" if database_url.startswith("sqlite") else "postgresql"
    with migrated(kind, tmp_path) as url:
        yield url


@pytest.fixture
def store_client(database_url: str) -> Iterator[TestClient]:
    """A client for an app on a migrated SQLite or PostgreSQL database."""
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import Settings
    from tests.conformance import Conforming

    with TestClient(Conforming(create_app(Settings(database_url=database_url)))) as test_client:
        yield test_client
