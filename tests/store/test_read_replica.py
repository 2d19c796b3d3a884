"""The read replica (`ARBITER_READ_DATABASE_URL`) on a real PostgreSQL streaming standby.

A primary and its standby are made on this machine (bench/pgpair.py: initdb, then
pg_basebackup -R, both started with pg_ctl). Every statement the app sends is counted by the
server it went to (asyncpg's query logger on each connection the store opens; SQLAlchemy's
`before_cursor_execute` on each store's engine, which readiness uses): an ended session's proof
rounds are read on the replica, a live session, its rounds and its changes never are, nor is
/readyz, and a replica that has not replayed the session's last change leaves the proof to
the primary, whose answer is the same.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

import app.store.database as database
from app.main import create_app
from app.settings import Settings
from bench.pgpair import NotHere, Pair, free_port, primary_and_replica, wait_replayed
from tests.helpers import Session
from tests.requirements import missing

#: Tires within a few rounds: a resolve finishes it.
SHORT_BOUT: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 3, "con_mod": -4},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 3, "con_mod": -4},
    "dice": "verifiable",
}
#: Ten thousand rounds long at least: a round or two leaves it live.
LONG_BOUT: dict[str, Any] = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "target": 100,
    "max_rounds": 10_000,
    "dice": "verifiable",
}


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    root = Path(tempfile.mkdtemp(prefix="arbiter-replica-"))
    try:
        with primary_and_replica(root) as made:
            with psycopg.connect(
                made.primary_url().replace("+psycopg", ""), autocommit=True
            ) as connection:
                connection.execute("CREATE DATABASE arbiter")
            database.upgrade_to_head(made.primary_url("arbiter"))
            wait_replayed(made)
            yield made
    except NotHere as exc:
        missing(f"a PostgreSQL primary and standby cannot be made here ({exc.what})", exc.remedy)
    finally:
        shutil.rmtree(root, ignore_errors=True)


class Statements:
    """Each statement the app sent, as (the port of the server it went to, its text)."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, str]] = []

    def on(self, port: int) -> list[str]:
        """What went to `port`, its transactions' BEGIN and COMMIT left out."""
        return [
            text
            for sent_to, text in self.sent
            if sent_to == port and not text.startswith(("BEGIN", "COMMIT", "ROLLBACK"))
        ]

    def clear(self) -> None:
        self.sent.clear()


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Statements:
    counted = Statements()
    connect = database.connect_asyncpg

    async def logged(dsns: Any, **options: Any) -> Any:
        connection = await connect(dsns, **options)
        connection.add_query_logger(
            lambda query: counted.sent.append((query.conn_addr[1], query.query))
        )
        return connection

    monkeypatch.setattr(database, "connect_asyncpg", logged)
    return counted


@pytest.fixture
def client(pair: Pair, statements: Statements) -> Iterator[TestClient]:
    settings = Settings(
        database_url=pair.primary_url("arbiter"),
        read_database_url=pair.replica_url("arbiter"),
    )
    with TestClient(create_app(settings)) as test_client:
        for port, store in (
            (pair.primary_port, test_client.app.state.store),  # type: ignore[attr-defined]
            (pair.replica_port, test_client.app.state.read_store),  # type: ignore[attr-defined]
        ):
            event.listen(
                store.engine,
                "before_cursor_execute",
                lambda *args, port=port: statements.sent.append((port, str(args[2]))),
            )
        yield test_client


def test_an_ended_sessions_proof_is_read_on_the_replica_and_a_live_session_never(
    client: TestClient, pair: Pair, statements: Statements
) -> None:
    live = Session(client, "arm-wrestles", LONG_BOUT)
    live.play_round()
    ended = Session(client, "arm-wrestles", SHORT_BOUT)
    ended.play_round()
    assert ended.resolve().status_code == 200
    assert ended.session()["status"] == "finished"
    played = ended.rounds()
    wait_replayed(pair)

    statements.clear()
    assert live.get("proof").json()["revealed"] is False
    assert live.session()["status"] == "active"
    assert len(live.rounds()) == 1
    live.play_round()
    assert client.get("/readyz").status_code == 200
    # /readyz asked the primary (its migration, with psycopg) and nothing of the replica.
    assert any(
        "alembic_version" in text for port, text in statements.sent if port == pair.primary_port
    )
    assert [text for port, text in statements.sent if port == pair.replica_port] == []

    statements.clear()
    proof = ended.get("proof")
    assert proof.status_code == 200
    answer = proof.json()
    assert answer["status"] == "finished"
    assert answer["revealed"] is True
    assert [each["number"] for each in answer["rounds"]] == [each["number"] for each in played]
    assert len(answer["rounds"]) == answer["rounds_played"] == len(played) >= 2
    on_replica = statements.on(pair.replica_port)
    assert len(on_replica) == 2  # the session's version, then its page of rounds
    assert "FROM rounds" in on_replica[1]
    # The primary read the session (whose status decides), and not its rounds.
    assert not any("FROM rounds" in text for text in statements.on(pair.primary_port))


def test_a_replica_behind_the_ended_session_leaves_its_proof_to_the_primary(
    client: TestClient, pair: Pair, statements: Statements
) -> None:
    replica = f"postgresql://postgres@127.0.0.1:{pair.replica_port}/arbiter"
    with psycopg.connect(replica, autocommit=True) as standby:
        standby.execute("SELECT pg_wal_replay_pause()")
        try:
            ended = Session(client, "arm-wrestles", SHORT_BOUT)
            ended.play_round()
            assert ended.resolve().status_code == 200
            played = ended.rounds()
            statements.clear()
            answer = ended.get("proof").json()
            assert answer["revealed"] is True
            assert [each["number"] for each in answer["rounds"]] == [
                each["number"] for each in played
            ]
            # The replica was asked for the session only, found it missing, and the primary
            # read the rounds.
            on_replica = statements.on(pair.replica_port)
            assert len(on_replica) == 1
            assert "FROM rounds" not in on_replica[0]
            assert any("FROM rounds" in text for text in statements.on(pair.primary_port))
        finally:
            standby.execute("SELECT pg_wal_replay_resume()")
    wait_replayed(pair)
    statements.clear()
    again = ended.get("proof").json()
    assert again["rounds"] == answer["rounds"]
    assert len(statements.on(pair.replica_port)) == 2


def test_a_replica_away_leaves_ended_proofs_to_the_primary(
    pair: Pair, caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing listens at the replica's address: proofs answer in full from the primary, and
    the outage is logged once as the replica's, not as the service's."""
    settings = Settings(
        database_url=pair.primary_url("arbiter"),
        read_database_url=f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/arbiter",
    )
    with TestClient(create_app(settings)) as client:
        ended = Session(client, "arm-wrestles", SHORT_BOUT)
        ended.play_round()
        assert ended.resolve().status_code == 200
        played = ended.rounds()
        for _ in range(2):
            answer = ended.get("proof").json()
            assert answer["revealed"] is True
            assert [each["number"] for each in answer["rounds"]] == [
                each["number"] for each in played
            ]
    away = [
        record.getMessage() for record in caplog.records if "unavailable" in record.getMessage()
    ]
    assert len(away) == 1
    assert away[0].startswith(
        "the read replica is unavailable, its reads go to the primary until it is back"
    )
