"""Retention, on SQLite and PostgreSQL: expired sessions go with their rounds and answers.

A finished session is deleted once it finished more than `retention_finished_days` ago, an
active one after `retention_abandoned_days` without a change; both are judged by the time of
the session's last change (`updated_at`), which the tests move back as an idle month would.
The purge deletes at most a batch of sessions per transaction and stops between batches when
asked to; stored idempotent answers past their TTL are forgotten as before.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, insert, select, text, update

from app.main import PURGE_BATCH_ROUNDS, PURGE_BATCH_SESSIONS, create_app, purge_once
from app.observability import REGISTRY
from app.settings import Settings
from app.store import repository
from app.store.database import Store, null_pool_engine
from app.store.repository import idempotency, rounds, sessions
from tests.helpers import Session

#: Tires within a few rounds, so a resolve finishes it.
SHORT_BOUT: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 3, "con_mod": -4},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 3, "con_mod": -4},
}
TIE = {"rolls": {"Ann": {"strength": 10}, "Bob": {"strength": 10}}}
SETTINGS = Settings()
FINISHED_DAYS = SETTINGS.retention_finished_days
ABANDONED_DAYS = SETTINGS.retention_abandoned_days


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """Direct access to the test database, to age rows and check what the purge left."""
    direct = null_pool_engine(database_url)
    yield direct
    direct.dispose()


def purge(
    database_url: str,
    *,
    stop_after_batches: int | None = None,
    batch: int = PURGE_BATCH_SESSIONS,
    round_budget: int = PURGE_BATCH_ROUNDS,
) -> tuple[int, list[int]]:
    """One purge pass on the test database: (sessions deleted, sessions per batch)."""
    batches: list[int] = []

    async def main() -> int:
        store = Store(database_url)
        stop = asyncio.Event()

        def heard(purged: int) -> None:
            batches.append(purged)
            if len(batches) == stop_after_batches:
                stop.set()

        try:
            return await purge_once(
                store,
                # Batches of the sizes asked, unpaced (the pace: tests/store/test_sweep.py).
                Settings(
                    database_url=database_url,
                    purge_batch_ms=0,
                    purge_rest_ratio=0,
                    purge_wal_mb_per_s=0,
                ),
                stop,
                heard,
                batch=batch,
                round_budget=round_budget,
            )
        finally:
            await store.close()

    return asyncio.run(main()), batches


def age(engine: Engine, session_ids: list[str], days: float) -> None:
    """Move the sessions' last change `days` back (computed here: SQLite keeps text), its hour
    with it, as the store keeps them."""
    with engine.begin() as connection:
        for session_id in session_ids:
            stamp = connection.execute(
                select(sessions.c.updated_at).where(sessions.c.id == session_id)
            ).scalar_one()
            moved = stamp - timedelta(days=days)
            connection.execute(
                update(sessions)
                .where(sessions.c.id == session_id)
                .values(
                    updated_at=moved,
                    touched_hour=repository.touched_hour(
                        moved if moved.tzinfo else moved.replace(tzinfo=UTC)
                    ),
                )
            )


def count(engine: Engine, table: Any, *where: Any) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(select(func.count()).select_from(table).where(*where)).scalar_one()
        )


def present(engine: Engine, session_ids: list[str]) -> set[str]:
    with engine.connect() as connection:
        return set(
            connection.execute(select(sessions.c.id).where(sessions.c.id.in_(session_ids)))
            .scalars()
            .all()
        )


# --- through the API --------------------------------------------------------------------------


def played_session(client: TestClient, *, finish: bool) -> tuple[str, dict[str, str]]:
    """A session with two rounds played under Idempotency-Keys, resolved if `finish`."""
    bout = Session(client, "arm-wrestles", SHORT_BOUT)
    path, auth = bout.url, bout.headers
    for number in (1, 2):
        bout.play_round(TIE, {"Idempotency-Key": f"round-{number}"})
    if finish:
        resolved = bout.resolve(headers={"Idempotency-Key": "end"})
        assert resolved.status_code == 200, resolved.text
    assert client.get(path, headers=auth).json()["status"] == ("finished" if finish else "active")
    return path, auth


def test_expired_sessions_go_with_their_rounds_and_answers(
    store_client: TestClient, database_url: str, engine: Engine
) -> None:
    purge(database_url)  # nothing older than the retention is left from earlier tests
    finished_old, finished_recent, abandoned, idle = (
        played_session(store_client, finish=finish) for finish in (True, True, False, False)
    )
    ids = {
        name: path.rsplit("/", 1)[1]
        for name, (path, _) in {
            "finished_old": finished_old,
            "finished_recent": finished_recent,
            "abandoned": abandoned,
            "idle": idle,
        }.items()
    }
    age(engine, [ids["finished_old"]], FINISHED_DAYS + 1)
    # Older than the abandoned limit, but finished: a finished session keeps its month.
    age(engine, [ids["finished_recent"]], FINISHED_DAYS - 1)
    age(engine, [ids["abandoned"]], ABANDONED_DAYS + 1)
    age(engine, [ids["idle"]], ABANDONED_DAYS - 1)
    rounds_of = {
        name: count(engine, rounds, rounds.c.session_id == session_id)
        for name, session_id in ids.items()
    }
    assert all(played >= 2 for played in rounds_of.values()), rounds_of
    # A session's keys, whichever of its tokens used them, are stored with its id.
    scopes = ids
    assert count(engine, idempotency, idempotency.c.session_id == scopes["finished_old"]) == 3
    assert count(engine, idempotency, idempotency.c.session_id == scopes["abandoned"]) == 2

    assert purge(database_url) == (2, [2])

    assert present(engine, list(ids.values())) == {ids["finished_recent"], ids["idle"]}
    for name in ("finished_old", "abandoned"):
        assert count(engine, rounds, rounds.c.session_id == ids[name]) == 0
        assert count(engine, idempotency, idempotency.c.session_id == scopes[name]) == 0
    for name in ("finished_recent", "idle"):
        assert count(engine, rounds, rounds.c.session_id == ids[name]) == rounds_of[name]
    assert count(engine, idempotency, idempotency.c.session_id == scopes["finished_recent"]) == 3
    assert count(engine, idempotency, idempotency.c.session_id == scopes["idle"]) == 2

    gone_path, gone_auth = abandoned
    assert store_client.get(gone_path, headers=gone_auth).status_code == 404
    kept_path, kept_auth = idle
    assert store_client.get(kept_path, headers=kept_auth).json()["round"] == rounds_of["idle"]
    # A kept session carries on where it was.
    assert store_client.post(kept_path + "/rounds", json=TIE, headers=kept_auth).status_code == 200
    assert purge(database_url) == (0, [])


def test_answers_past_their_ttl_are_forgotten_while_their_session_stays(
    store_client: TestClient, database_url: str, engine: Engine
) -> None:
    path, _ = played_session(store_client, finish=False)
    scope = path.rsplit("/", 1)[1]
    ttl = timedelta(seconds=SETTINGS.idempotency_ttl_seconds)
    with engine.begin() as connection:
        # Only the first round's answer outlives the TTL.
        first = connection.execute(
            select(idempotency.c.key, idempotency.c.created_at)
            .where(idempotency.c.session_id == scope)
            .order_by(idempotency.c.created_at)
            .limit(1)
        ).one()
        connection.execute(
            update(idempotency)
            .where(idempotency.c.session_id == scope, idempotency.c.key == first.key)
            .values(created_at=first.created_at - ttl - timedelta(minutes=1))
        )

    assert purge(database_url) == (0, [])

    assert count(engine, idempotency, idempotency.c.session_id == scope) == 1
    assert present(engine, [path.rsplit("/", 1)[1]]) == {path.rsplit("/", 1)[1]}


# --- batches ----------------------------------------------------------------------------------


def session_rows(
    count: int, *, status: str, updated_at: datetime, played: int = 2
) -> list[dict[str, Any]]:
    # Created long ago either way: retention looks at the last change only.
    created_at = updated_at - timedelta(days=365)
    return [
        {
            "id": uuid.uuid4().hex,
            "kind": "arm-wrestles",
            "status": status,
            "version": played + 1,
            "rounds_played": played,
            "config": {},
            "state": {},
            "result": None,
            "seed": None,
            "gm_token_hash": "0" * 64,
            "party_token_hashes": {},
            "created_at": created_at,
            "updated_at": updated_at,
        }
        for _ in range(count)
    ]


def round_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rounds of these sessions' rows (`rounds_played` each), played when each session
    last changed."""
    return [
        {
            "session_id": row["id"],
            "number": number,
            "inputs": {},
            "dice": [],
            "outcome": {},
            "created_at": row["updated_at"],
        }
        for row in rows
        for number in range(1, row["rounds_played"] + 1)
    ]


def insert_sessions(engine: Engine, rows: list[dict[str, Any]]) -> list[str]:
    """The sessions, each with its rounds and one stored answer under its scope."""
    with engine.begin() as connection:
        connection.execute(insert(sessions), rows)
        connection.execute(insert(rounds), round_rows(rows))
        connection.execute(
            insert(idempotency),
            [
                {
                    "scope": f"arm-wrestles/{row['id']}/a-token",
                    "session_id": row["id"],
                    "key": "k" * 64,
                    "fingerprint": b"\0" * 32,
                    "status_code": 200,
                    "headers": {},
                    "body": b"",
                    # Within the TTL: only the session's own purge removes it.
                    "created_at": repository.now(),
                }
                for row in rows
            ],
        )
    return [row["id"] for row in rows]


def expired_and_kept(engine: Engine, expired: int) -> tuple[list[str], list[str]]:
    """`expired` sessions past retention (finished and abandoned), and a few within it."""
    moment = repository.now()
    finished_half = expired // 2
    gone = insert_sessions(
        engine,
        session_rows(
            finished_half,
            status="finished",
            updated_at=moment - timedelta(days=FINISHED_DAYS, hours=1),
        )
        + session_rows(
            expired - finished_half,
            status="active",
            updated_at=moment - timedelta(days=ABANDONED_DAYS, hours=1),
        ),
    )
    kept = insert_sessions(
        engine,
        session_rows(5, status="finished", updated_at=moment - timedelta(days=FINISHED_DAYS - 1))
        + session_rows(5, status="active", updated_at=moment - timedelta(days=ABANDONED_DAYS - 1)),
    )
    return gone, kept


def test_expired_sessions_are_purged_in_batches(database_url: str, engine: Engine) -> None:
    purge(database_url)
    gone, kept = expired_and_kept(engine, 1_050)

    assert purge(database_url) == (1_050, [500, 500, 50])

    assert present(engine, gone + kept) == set(kept)
    assert count(engine, rounds, rounds.c.session_id.in_(gone)) == 0
    assert count(engine, rounds, rounds.c.session_id.in_(kept)) == 2 * len(kept)
    assert count(engine, idempotency, idempotency.c.session_id.in_(gone)) == 0
    assert count(engine, idempotency, idempotency.c.session_id.in_(kept)) == len(kept)


def test_a_stopped_purge_ends_after_the_batch_under_way(database_url: str, engine: Engine) -> None:
    purge(database_url)
    gone, kept = expired_and_kept(engine, 25)

    assert purge(database_url, batch=10, stop_after_batches=1) == (10, [10])
    assert len(present(engine, gone)) == 15
    # The next pass carries on from there.
    assert purge(database_url, batch=10) == (15, [10, 5])
    assert present(engine, gone + kept) == set(kept)


def test_a_batch_takes_sessions_while_their_rounds_fit_its_budget(
    database_url: str, engine: Engine
) -> None:
    purge(database_url)
    old = repository.now() - timedelta(days=ABANDONED_DAYS + 1)
    # Two sessions of four rounds fit a budget of 10, a third would not.
    gone = insert_sessions(engine, session_rows(5, status="active", updated_at=old, played=4))
    assert purge(database_url, round_budget=10) == (5, [2, 2, 1])
    # A session with more rounds than the budget still goes, alone.
    alone = insert_sessions(engine, session_rows(2, status="active", updated_at=old, played=30))
    assert count(engine, rounds, rounds.c.session_id.in_(alone)) == 60
    assert purge(database_url, round_budget=10) == (2, [1, 1])

    assert present(engine, gone + alone) == set()
    assert count(engine, rounds, rounds.c.session_id.in_(gone + alone)) == 0


def purged_so_far() -> float:
    return REGISTRY.get_sample_value("arbiter_sessions_purged_total") or 0.0


def test_a_starting_server_purges_and_counts_it_in_its_metrics(
    database_url: str, engine: Engine
) -> None:
    purge(database_url)
    gone, kept = expired_and_kept(engine, 12)
    before = purged_so_far()

    with TestClient(create_app(Settings(database_url=database_url))):
        # The purge runs beside the app from its start; wait for it, bounded.
        deadline = time.monotonic() + 30
        while purged_so_far() < before + len(gone) and time.monotonic() < deadline:
            time.sleep(0.01)

    assert purged_so_far() == before + len(gone)
    assert present(engine, gone + kept) == set(kept)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_the_purge_passes_over_a_session_a_request_holds(database_url: str, engine: Engine) -> None:
    """PostgreSQL: a session whose row a transaction has locked is left for the next pass,
    rather than the purge waiting for that transaction to end."""
    purge(database_url)
    gone, _ = expired_and_kept(engine, 4)
    with engine.connect() as holder:
        holder.execute(
            text("SELECT id FROM sessions WHERE id = :id FOR UPDATE"), {"id": gone[0]}
        ).all()
        assert purge(database_url) == (3, [3])
        holder.rollback()
    assert present(engine, gone) == {gone[0]}
    assert purge(database_url) == (1, [1])


def test_a_deleted_verifiable_sessions_proof_stays_for_the_finished_retention(
    store_client: TestClient, database_url: str, engine: Engine
) -> None:
    """Deleted by its GM, a verifiable session answers only its proof, for as long as a
    finished session is kept from the deletion (docs/verifiable-dice.md); then it goes with
    its rounds. An ordinary session's deletion still removes it at once."""
    purge(database_url)
    kept, expired = (
        Session(store_client, "arm-wrestles", {**SHORT_BOUT, "dice": "verifiable"})
        for _ in range(2)
    )
    plain = Session(store_client, "arm-wrestles", SHORT_BOUT)
    for made in (kept, expired, plain):
        made.play_round(TIE)
        assert store_client.delete(made.url, headers=made.headers).status_code == 204
        assert store_client.get(made.url, headers=made.headers).status_code == 404
    assert present(engine, [kept.id, expired.id, plain.id]) == {kept.id, expired.id}
    # Older than the abandoned limit: a deleted session keeps the finished one's month.
    age(engine, [kept.id], FINISHED_DAYS - 1)
    age(engine, [expired.id], FINISHED_DAYS + 1)

    assert purge(database_url) == (1, [1])

    assert present(engine, [kept.id, expired.id]) == {kept.id}
    assert count(engine, rounds, rounds.c.session_id == expired.id) == 0
    assert count(engine, rounds, rounds.c.session_id == kept.id) == 1
    proof = store_client.get(f"{kept.url}/proof", headers=kept.headers)
    assert proof.status_code == 200
    assert proof.json()["status"] == "deleted"
    assert len(proof.json()["rounds"]) == 1
    assert store_client.get(f"{expired.url}/proof", headers=expired.headers).status_code == 404
