"""A database that goes away: 503 with Retry-After, one log line, recovery without a restart.

PostgreSQL runs as a throwaway cluster of this module's own (initdb in a temporary
directory, on a free port), so the test can stop it and start it again under a running app.
SQLite's write lock is held from a second connection, as another process would hold it.
"""

from __future__ import annotations

import asyncio
import glob
import logging
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.store.database import upgrade_to_head
from tests.helpers import Session
from tests.requirements import missing
from tests.store.servers import free_port

ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}
UNAVAILABLE = "the database is unavailable"
BACK = "the database is available again"


def postgres_bin() -> Path | None:
    found = shutil.which("initdb") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)), None
    )
    return Path(found).parent if found else None


@dataclass
class Cluster:
    """A PostgreSQL cluster in a directory of its own, run as the `postgres` user if we are
    root (the server refuses to run as root)."""

    bin: Path
    data: Path
    port: int

    def _run(self, *command: str, check: bool = True) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=check, capture_output=True, timeout=120)

    def init(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1"
        log = str(self.data / "server.log")
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", log, "-w", "start"
        )

    def stop(self, mode: str = "fast", *, check: bool = True) -> None:
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop", check=check
        )

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/arbiter"


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    bin_dir = postgres_bin()
    if bin_dir is None:
        missing("no PostgreSQL server programs (initdb, pg_ctl)", "apt-get install postgresql")
    # Not under pytest's temporary directory: the server's user must be able to reach it.
    root = Path(tempfile.mkdtemp(prefix="arbiter-cluster-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    cluster = Cluster(bin_dir, root / "data", free_port())
    try:
        cluster.init()
        cluster.start()
        with psycopg.connect(
            f"postgresql://postgres@127.0.0.1:{cluster.port}/postgres", autocommit=True
        ) as connection:
            connection.execute("CREATE DATABASE arbiter")
        upgrade_to_head(cluster.url)
        yield cluster
    finally:
        cluster.stop("immediate", check=False)
        shutil.rmtree(root, ignore_errors=True)


def store_lines(caplog: pytest.LogCaptureFixture, text: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if text in record.getMessage()]


def assert_unavailable(response: httpx.Response, retry_after: str) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["retry-after"] == retry_after
    assert response.json()["status"] == 503


def test_postgres_going_away_is_503_and_coming_back_needs_no_restart(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arbiter")
    with TestClient(create_app(Settings(database_url=cluster.url))) as client:
        arm = Session(client, "arm-wrestles", ARM_WRESTLE)
        path, gm = arm.url, arm.headers
        assert client.post(path + "/rounds", json={}, headers=gm).status_code == 200
        assert client.get("/readyz").status_code == 200

        cluster.stop()
        for _ in range(3):
            assert_unavailable(client.get(path, headers=gm), "5")
            assert_unavailable(client.post(path + "/rounds", json={}, headers=gm), "5")
            assert_unavailable(client.post("/v1/arm-wrestles", json=ARM_WRESTLE), "5")
        readiness = client.get("/readyz")
        assert readiness.status_code == 503
        assert "retry-after" in readiness.headers
        # One line for the incident, none per request, and no traceback anywhere.
        assert len(store_lines(caplog, UNAVAILABLE)) == 1
        assert store_lines(caplog, BACK) == []
        assert not [record for record in caplog.records if record.exc_info]

        cluster.start()
        session = client.get(path, headers=gm)
        assert session.status_code == 200, session.text
        assert session.json()["version"] == 2
        # A write too (a new session: a round might find the contest already won).
        assert client.post("/v1/arm-wrestles", json=ARM_WRESTLE).status_code == 201
        assert client.get("/readyz").status_code == 200
        assert len(store_lines(caplog, UNAVAILABLE)) == 1
        assert len(store_lines(caplog, BACK)) == 1


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    """A migrated SQLite database (migrated in setup: Alembic reconfigures logging)."""
    path = tmp_path / "arbiter.db"
    upgrade_to_head(f"sqlite:///{path}")
    return path


def test_a_sqlite_writer_waiting_for_the_lock_leaves_the_event_loop_free(
    sqlite_file: Path,
) -> None:
    settings = Settings(database_url=f"sqlite:///{sqlite_file}", sqlite_busy_timeout_ms=600_000)
    app = create_app(settings)

    async def scenario() -> None:
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://test"
            ) as client,
        ):
            store = app.state.store
            created = await client.post("/v1/arm-wrestles", json=ARM_WRESTLE)
            assert created.status_code == 201
            body = created.json()
            session = f"/v1/arm-wrestles/{body['id']}"
            gm = {"authorization": f"Bearer {body['tokens']['gm']}"}

            other_process = sqlite3.connect(sqlite_file, isolation_level=None)
            other_process.execute("BEGIN IMMEDIATE")
            write = asyncio.create_task(client.post(session + "/rounds", json={}, headers=gm))
            while store.lock_waits == 0:  # until the write has found the lock taken
                await asyncio.sleep(0)
            # The loop serves others while the write waits: a health check, and a read.
            assert (await client.get("/healthz")).status_code == 200
            read = await client.get(session, headers=gm)
            assert read.status_code == 200
            assert read.json()["version"] == 1
            assert not write.done()

            other_process.execute("COMMIT")
            other_process.close()
            played = await write
            assert played.status_code == 200, played.text
            assert played.json()["session"]["version"] == 2

    asyncio.run(scenario())


def test_a_sqlite_write_lock_held_too_long_is_503(
    sqlite_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arbiter")
    # No waiting at all: the first attempt that finds the lock taken gives up.
    settings = Settings(database_url=f"sqlite:///{sqlite_file}", sqlite_busy_timeout_ms=0)
    with TestClient(create_app(settings)) as client:
        arm = Session(client, "arm-wrestles", ARM_WRESTLE)
        session, gm = arm.url, arm.headers
        other_process = sqlite3.connect(sqlite_file, isolation_level=None)
        other_process.execute("BEGIN IMMEDIATE")
        try:
            # Reads carry on meanwhile, and do not end the incident: one line for it.
            for _ in range(3):
                assert_unavailable(client.post(session + "/rounds", json={}, headers=gm), "1")
                assert client.get(session, headers=gm).status_code == 200
            # Its detail in the request's language.
            german = client.post(
                session + "/rounds", json={}, headers={**gm, "accept-language": "de"}
            )
            assert_unavailable(german, "1")
            assert german.json()["detail"] == (
                "die Datenbank ist mit dem Schreiben eines anderen Prozesses beschäftigt; "
                "versuche es gleich erneut"
            )
            assert german.headers["content-language"] == "de"
        finally:
            other_process.execute("COMMIT")
            other_process.close()
        assert client.post(session + "/rounds", json={}, headers=gm).status_code == 200
    assert len(store_lines(caplog, "held the SQLite write lock")) == 1
    assert len(store_lines(caplog, "write lock is free again")) == 1
    assert store_lines(caplog, UNAVAILABLE) == []


def test_the_purge_loop_adds_no_line_of_its_own_to_an_outage(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import asyncio

    from app import main
    from app.store.database import Unavailable

    caplog.set_level(logging.INFO, logger="arbiter")
    stop = asyncio.Event()
    attempts: list[int] = []

    async def unavailable(*_: object) -> None:
        attempts.append(1)
        stop.set()  # one pass of the loop
        raise Unavailable("the database is unavailable", retry_after=5)

    monkeypatch.setattr(main, "purge_once", unavailable)
    asyncio.run(main.purge_expired(None, Settings(), stop))  # type: ignore[arg-type]
    assert attempts == [1]
    assert [record for record in caplog.records if record.name.startswith("arbiter")] == []


def test_a_full_sqlite_disk_is_503_and_readiness_says_so(tmp_path: Path) -> None:
    """SQLite's "database or disk is full" (the file held at its size with max_page_count, as
    a full disk would hold it): rounds answer 503 with Retry-After, readiness is 503 while
    changes are refused, and both recover once there is room, without a restart."""
    url = f"sqlite:///{tmp_path / 'full.db'}"
    upgrade_to_head(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        made = Session(client, "arm-wrestles", {**ARM_WRESTLE, "target": 100, "max_rounds": 100})
        assert client.get("/readyz").status_code == 200
        store = client.app.state.store  # type: ignore[attr-defined]
        writer = store._writer_connection.driver_connection
        pages = writer.execute("PRAGMA page_count").fetchone()[0]
        writer.execute(f"PRAGMA max_page_count = {pages}")
        statuses = []
        for _ in range(200):
            answer = client.post(made.url + "/rounds", json={}, headers=made.headers)
            statuses.append(answer.status_code)
            if answer.status_code != 200:
                break
        assert statuses[-1] == 503, statuses
        assert int(answer.headers["retry-after"]) >= 1
        assert answer.headers["content-type"] == "application/problem+json"
        assert client.get("/readyz").status_code == 503
        writer.execute(f"PRAGMA max_page_count = {pages * 100}")
        assert client.get("/readyz").status_code == 200
        after = client.post(made.url + "/rounds", json={}, headers=made.headers)
        assert after.status_code in (200, 409), after.text  # 409: the match was won meanwhile
