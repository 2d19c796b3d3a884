"""`/readyz` is 503 whenever a change cannot be made durable, and 200 again by itself once it
can (docs/api.md#health-and-readiness): readiness commits a one-row write (`readiness_probe`)
rather than trusting a database that still answers reads.

* SQLite on a file system that refuses to let the files grow: a real server process whose
  file-size limit (`RLIMIT_FSIZE`, lowered and raised from outside with `prlimit`) is the
  size its database files have, as a full disk would hold them.
* PostgreSQL whose transactions are read-only: `default_transaction_read_only` set on the
  test's own database, and the app's connections dropped (as a restart would) so that new
  ones open read-only; then the setting lifted, and nothing else done.
"""

from __future__ import annotations

import resource
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from app.main import create_app
from app.settings import Settings
from app.store import database
from app.store.database import upgrade_to_head
from tests.conftest import POSTGRES_URL, migrated
from tests.helpers import Session
from tests.store.servers import running_servers

ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
    "target": 100,
    "max_rounds": 100,
}
#: A bound on the checks that may pass before readiness sees a change of the database's state
#: (a dropped connection is found by the first, the read-only default by the next).
CHECKS = 5


def test_sqlite_that_cannot_grow_its_files_is_not_ready_until_it_can(tmp_path: Path) -> None:
    database = tmp_path / "arbiter.db"
    upgrade_to_head(f"sqlite:///{database}")
    with running_servers(f"sqlite:///{database}", 1, tmp_path) as (server,):
        pid = server.process.pid
        with httpx.Client(base_url=server.base_url, timeout=30.0) as client:
            ready = client.get("/readyz")
            assert ready.status_code == 200, ready.text
            made = Session(client, "arm-wrestles", ARM_WRESTLE)
            # Every file the server writes may keep its size but not grow: a full disk.
            sizes = [path.stat().st_size for path in tmp_path.glob("arbiter.db*")]
            _, hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (max(sizes), hard))
            try:
                statuses = []
                for _ in range(2_000):
                    answer = client.post(made.url + "/rounds", json={}, headers=made.headers)
                    statuses.append(answer.status_code)
                    if answer.status_code != 200:
                        break
                assert statuses[-1] == 503, statuses[-5:]
                not_ready = client.get("/readyz")
                assert not_ready.status_code == 503, not_ready.text
                assert not_ready.headers["content-type"] == "application/problem+json"
                assert "refuses changes" in not_ready.json()["detail"]
                # Each check commits again while the last one failed: still refused.
                assert client.get("/readyz").status_code == 503
            finally:
                resource.prlimit(pid, resource.RLIMIT_FSIZE, (hard, hard))
            # Room again, and nothing else done: the next check commits, and rounds resume.
            ready = client.get("/readyz")
            assert ready.status_code == 200, ready.text
            after = client.post(made.url + "/rounds", json={}, headers=made.headers)
            assert after.status_code in (200, 409), after.text  # 409: the match was won


@pytest.fixture
def own_postgres_database() -> Iterator[str]:
    """A migrated PostgreSQL database of this test's own: its settings are changed."""
    with migrated("postgresql") as url:
        yield url


def maintenance(sql: str) -> None:
    """Run `sql` on the test server's maintenance connection (not the app's database)."""
    dsn = make_url(POSTGRES_URL).set(drivername="postgresql", database="postgres")
    with psycopg.connect(dsn.render_as_string(hide_password=False), autocommit=True) as db:
        db.execute(sql)


def test_postgres_with_read_only_transactions_is_not_ready_until_they_write(
    own_postgres_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each check commits (no interval): no request fails here to say the database changed, and
    # the test does not wait out the interval (its own test is below).
    monkeypatch.setattr(database, "WRITE_PROBE_INTERVAL_S", 0.0)
    name = make_url(own_postgres_database).database
    assert name is not None
    assert name.startswith("arbiter_test_")
    with TestClient(create_app(Settings(database_url=own_postgres_database))) as client:
        assert client.get("/readyz").status_code == 200
        made = Session(client, "arm-wrestles", ARM_WRESTLE)
        try:
            maintenance(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
            maintenance(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                f"WHERE datname = '{name}' AND pid <> pg_backend_pid()"
            )
            details = []
            for _ in range(CHECKS):
                answer = client.get("/readyz")
                assert answer.status_code == 503, answer.text
                details.append(answer.json()["detail"])
                if "read-only" in details[-1]:
                    break
            assert "the PostgreSQL server's transactions are read-only" in details[-1], details
            refused = client.post(made.url + "/rounds", json={}, headers=made.headers)
            assert refused.status_code == 503, refused.text
            # Reads still answer: only changes are refused.
            assert client.get(made.url, headers=made.headers).status_code == 200
            assert client.get("/readyz").status_code == 503
        finally:
            maintenance(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
        # Lifted, and nothing else done: the app's read-only connections are replaced.
        statuses = []
        for _ in range(CHECKS):
            statuses.append(client.get("/readyz").status_code)
            if statuses[-1] == 200:
                break
        assert statuses[-1] == 200, statuses
        played = client.post(made.url + "/rounds", json={}, headers=made.headers)
        assert played.status_code == 200, played.text
        created = client.post("/v1/arm-wrestles", json=ARM_WRESTLE)
        assert created.status_code == 201, created.text


@pytest.mark.parametrize(("interval", "expected"), [(3600.0, 1), (0.0, 20)])
def test_a_committed_probe_is_repeated_only_after_the_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, interval: float, expected: int
) -> None:
    """While probes commit, one write per interval: 20 checks within an hour commit once (a
    load balancer checking many times a second costs one write per interval), and with no
    interval each check commits its own."""
    monkeypatch.setattr(database, "WRITE_PROBE_INTERVAL_S", interval)
    url = f"sqlite:///{tmp_path / 'probe.db'}"
    upgrade_to_head(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        for _ in range(20):
            assert client.get("/readyz").status_code == 200
    with sqlite3.connect(tmp_path / "probe.db") as db:
        rows = db.execute("SELECT id, probes FROM readiness_probe").fetchall()
    assert rows == [(1, expected)]
