"""Migrations and readiness, on SQLite and PostgreSQL.

`alembic upgrade head` builds the schema from nothing; the models and the migrations describe the
same schema (no autogenerate drift); downgrading to base and upgrading again works; several
processes upgrading one fresh database at once all succeed (replicas starting together);
sessions stored before the generic serialiser (`data/sessions_before_the_serialiser.json`:
one of each kind as the service at commit b938e43 stored them, made through its API) answer
and play on after 0004, and go back to their old shape on downgrade;
`/readyz` is 503 while the database is unreachable or behind head, and 200 once migrated.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import Column, Engine, Integer, MetaData, create_engine, inspect, text
from sqlalchemy.engine import make_url

from app.main import create_app
from app.settings import Settings
from app.store.database import MIGRATIONS_DIR, migration_head, normalise_url, null_pool_engine
from app.store.models import Base
from app.store.repository import touched_hour
from tests.conformance import Conforming
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.store.migrator import migrate_after

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TABLES = {"sessions", "rounds", "idempotency_keys"}
UNREACHABLE = "postgresql+psycopg://postgres@127.0.0.1:1/x"
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 12, "con_mod": 1},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 12, "con_mod": 1},
}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database of each kind (PostgreSQL: skipped when down, failing in CI)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    url = create_postgres_database()
    try:
        yield url
    finally:
        drop_postgres_database(url)


def alembic_config(url: str) -> Config:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["database_url"] = normalise_url(url)
    return config


def alembic_cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`alembic <args>` as an operator runs it: the URL from DATABASE_URL, cwd the project."""
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("ARBITER_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "alembic", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def start_alembic(url: str, *args: str) -> subprocess.Popen[str]:
    """`alembic_cli`, started and not waited for."""
    env = {**os.environ, "DATABASE_URL": url}
    env.pop("ARBITER_DATABASE_URL", None)
    return subprocess.Popen(
        [sys.executable, "-m", "alembic", *args],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def schema(url: str) -> tuple[set[str], list[str]]:
    """(the app's tables present, the recorded alembic revisions)."""
    engine = null_pool_engine(url)
    try:
        with engine.connect() as connection:
            tables = set(inspect(connection).get_table_names())
            revisions: list[str] = []
            if "alembic_version" in tables:
                revisions = list(
                    connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalars()
                )
        return tables & TABLES, revisions
    finally:
        engine.dispose()


def drift(engine: Engine, metadata: MetaData) -> list[Any]:
    """What autogenerate would change to make the database match `metadata`."""
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, metadata))


def ready(url: str) -> Any:
    with TestClient(create_app(Settings(database_url=url))) as client:
        return client.get("/readyz")


# --- upgrade, drift, downgrade ---------------------------------------------------------------


def test_alembic_upgrade_head_builds_an_empty_database(empty_database_url: str) -> None:
    assert schema(empty_database_url) == (set(), [])
    upgraded = alembic_cli(empty_database_url, "upgrade", "head")
    assert upgraded.returncode == 0, upgraded.stderr
    assert schema(empty_database_url) == (TABLES, [migration_head()])
    current = alembic_cli(empty_database_url, "current")
    assert current.returncode == 0, current.stderr
    assert f"{migration_head()} (head)" in current.stdout


def test_the_models_match_the_migrations(database_url: str) -> None:
    engine = null_pool_engine(database_url)
    try:
        assert drift(engine, Base.metadata) == []
        # The check is not blind: a column the migrations lack is reported.
        changed = MetaData()
        for table in Base.metadata.tables.values():
            table.to_metadata(changed)
        changed.tables["rounds"].append_column(Column("extra", Integer, nullable=True))
        differences = drift(engine, changed)
        assert [(entry[0], entry[2], entry[3].name) for entry in differences] == [
            ("add_column", "rounds", "extra")
        ]
    finally:
        engine.dispose()


def test_downgrade_to_base_then_upgrade_again(empty_database_url: str) -> None:
    config = alembic_config(empty_database_url)
    command.upgrade(config, "head")
    with TestClient(create_app(Settings(database_url=empty_database_url))) as client:
        assert client.post("/v1/arm-wrestles", json=ARM_WRESTLE).status_code == 201

    command.downgrade(config, "base")
    assert schema(empty_database_url) == (set(), [])
    assert ready(empty_database_url).status_code == 503

    command.upgrade(config, "head")
    assert schema(empty_database_url) == (TABLES, [migration_head()])
    engine = null_pool_engine(empty_database_url)
    try:
        assert drift(engine, Base.metadata) == []
    finally:
        engine.dispose()
    with TestClient(create_app(Settings(database_url=empty_database_url))) as client:
        assert client.get("/readyz").status_code == 200
        created = client.post("/v1/arm-wrestles", json=ARM_WRESTLE)
        assert created.status_code == 201
        token = created.json()["tokens"]["gm"]
        played = client.post(
            created.headers["location"] + "/rounds",
            json={},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert played.status_code == 200


def test_sessions_made_before_touched_hour_get_the_hour_of_their_last_change(
    empty_database_url: str,
) -> None:
    """0003 fills `touched_hour` of the sessions already there from their `updated_at`, so
    retention's narrowing by hour keeps every one that its exact comparison would purge."""
    config = alembic_config(empty_database_url)
    command.upgrade(config, "0002")
    changed = datetime(2026, 11, 30, 17, 59, 59, 999999, tzinfo=UTC)
    engine = null_pool_engine(empty_database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO sessions (id, kind, status, version, rounds_played, config, "
                    "state, gm_token_hash, party_token_hashes, created_at, updated_at) VALUES "
                    "('s1', 'arm-wrestles', 'active', 1, 0, '{}', '{}', :hash, '{}', :at, :at)"
                ),
                {
                    "hash": "0" * 64,
                    # As the store writes it: SQLite keeps UTC text without a zone.
                    "at": changed
                    if empty_database_url.startswith("postgresql")
                    else changed.replace(tzinfo=None).isoformat(" ", "microseconds"),
                },
            )
        command.upgrade(config, "head")
        with engine.connect() as connection:
            hour = connection.execute(text("SELECT touched_hour FROM sessions")).scalar_one()
        assert hour == touched_hour(changed) == int(changed.timestamp()) // 3600
    finally:
        engine.dispose()


# --- sessions stored before the generic serialiser ------------------------------------------

#: Sessions as the service stored them before `app.rules.serial` (each one's row, rounds,
#: tokens, its answer then and the round body it was played with), each after a round (races
#: with obstacles, hazards and mounts, a chase with a mount and a hazard tactic), or resolved
#: to its end, or, for the skill game, after its skills, a grant and one sealed bid: what 0004
#: must bring into the shape read now.
LEGACY: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "sessions_before_the_serialiser.json").read_text()
)


def insert_legacy(url: str) -> None:
    sessions, rounds = Base.metadata.tables["sessions"], Base.metadata.tables["rounds"]
    engine = null_pool_engine(url)
    try:
        with engine.begin() as connection:
            for stored in LEGACY:
                row = dict(stored["row"])
                for name in ("created_at", "updated_at"):
                    row[name] = datetime.fromisoformat(row[name]).replace(tzinfo=UTC)
                connection.execute(sessions.insert().values(row))
                for played in stored["rounds"]:
                    at = datetime.fromisoformat(played["created_at"]).replace(tzinfo=UTC)
                    connection.execute(
                        rounds.insert().values(
                            {**played, "session_id": row["id"], "created_at": at}
                        )
                    )
    finally:
        engine.dispose()


def stored_states(url: str) -> dict[str, Any]:
    """Every session's stored state, by id."""
    engine = null_pool_engine(url)
    try:
        with engine.connect() as connection:
            found = connection.execute(text("SELECT id, state FROM sessions")).all()
    finally:
        engine.dispose()
    return {key: json.loads(state) if isinstance(state, str) else state for key, state in found}


def legacy(name: str) -> dict[str, Any]:
    return next(stored for stored in LEGACY if stored["name"] == name)


def test_sessions_stored_before_the_serialiser_play_on(empty_database_url: str) -> None:
    """0004 rewrites the arm wrestle's and the skill game's state and fills the race's and
    chase's new options; every kind then answers as its document says, shows the state it
    showed before, and plays on."""
    config = alembic_config(empty_database_url)
    command.upgrade(config, "0003")
    insert_legacy(empty_database_url)
    command.upgrade(config, "head")
    arm, game = legacy("arm-wrestles"), legacy("skill-games")
    states = stored_states(empty_database_url)
    assert states[arm["row"]["id"]]["ds"] == [
        arm["row"]["state"]["ds"][name] for name in arm["row"]["state"]["names"]
    ]
    assert set(states[game["row"]["id"]]) == {"game", "pending"}
    assert states[game["row"]["id"]]["pending"]["grants"] == [
        {"party": "Heroes", "tokens": 1, "reason": "a bribe"}
    ]
    with TestClient(Conforming(create_app(Settings(database_url=empty_database_url)))) as client:
        for stored in LEGACY:
            kind, session_id = stored["row"]["kind"], stored["row"]["id"]
            gm = {"Authorization": f"Bearer {stored['tokens']['gm']}"}
            shown = client.get(f"/v1/{kind}/{session_id}", headers=gm)
            assert shown.status_code == 200, (stored["name"], shown.text)
            before, now = stored["answer"], shown.json()
            assert (now["version"], now["round"]) == (before["version"], before["round"])
            for field, value in before["state"].items():
                assert now["state"].get(field) == value, (stored["name"], field)
            page = client.get(f"/v1/{kind}/{session_id}/rounds", headers=gm)
            assert page.json()["rounds"] == [played["outcome"] for played in stored["rounds"]]
            if kind == "skill-games":
                # The other party's bid reveals the round: the one sealed before counts.
                action, body = "choices", {"party": "Villains", "action": "Press", "bid": 0}
            else:
                action, body = "rounds", stored["next"]
            moved = client.post(f"/v1/{kind}/{session_id}/{action}", json=body, headers=gm)
            if before["status"] == "finished":
                assert moved.status_code == 409, (stored["name"], moved.text)
                assert now["result"] == before["result"]
                continue
            assert moved.status_code == 200, (stored["name"], moved.text)
            assert moved.json()["session"]["version"] == before["version"] + 1
        revealed = client.get(
            f"/v1/skill-games/{game['row']['id']}/rounds",
            headers={"Authorization": f"Bearer {game['tokens']['gm']}"},
        ).json()["rounds"]
        assert {party: choice["bid"] for party, choice in revealed[0]["choices"].items()} == {
            "Heroes": 1,
            "Villains": 0,
        }


def test_the_states_go_back_to_their_old_shape_on_downgrade(empty_database_url: str) -> None:
    config = alembic_config(empty_database_url)
    command.upgrade(config, "0003")
    insert_legacy(empty_database_url)
    before = stored_states(empty_database_url)
    command.upgrade(config, "head")
    upgraded = stored_states(empty_database_url)
    assert upgraded != before
    command.downgrade(config, "0003")
    assert stored_states(empty_database_url) == before
    command.upgrade(config, "head")
    assert stored_states(empty_database_url) == upgraded
    command.stamp(config, "0003")
    command.upgrade(config, "head")  # 0004 again, on states already in the new shape
    assert stored_states(empty_database_url) == upgraded


# --- several processes migrating at once ---------------------------------------------------

#: Processes upgrading one fresh database together, and how many fresh databases each test
#: tries (unlocked, three replicas failed on 2 fresh PostgreSQL databases out of 5).
MIGRATORS = 3
ATTEMPTS = 3
#: The key of the advisory lock migrations/env.py holds on PostgreSQL.
MIGRATION_LOCK_KEY = int.from_bytes(b"Arbiter!", "big", signed=True)


def fresh_database(kind: str, directory: Path, attempt: int) -> str:
    if kind == "sqlite":
        return f"sqlite:///{directory / f'fresh-{attempt}.db'}"
    return create_postgres_database()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_processes_upgrading_a_fresh_database_together_all_succeed(
    kind: str, tmp_path: Path
) -> None:
    spawn = multiprocessing.get_context("spawn")
    for attempt in range(ATTEMPTS):
        url = fresh_database(kind, tmp_path, attempt)
        try:
            start = spawn.Barrier(MIGRATORS)
            migrators = [
                spawn.Process(target=migrate_after, args=(normalise_url(url), start))
                for _ in range(MIGRATORS)
            ]
            for migrator in migrators:
                migrator.start()
            for migrator in migrators:
                migrator.join(timeout=120)
            assert [migrator.exitcode for migrator in migrators] == [0] * MIGRATORS
            assert schema(url) == (TABLES, [migration_head()])
        finally:
            if kind == "postgresql":
                drop_postgres_database(url)


def advisory_waiters(holder: Any) -> int:
    """How many sessions of this database wait for the migrations' advisory lock."""
    high, low = divmod(MIGRATION_LOCK_KEY % 2**64, 2**32)
    waiting = holder.execute(
        text(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND classid = :high AND objid = :low AND objsubid = 1"
        ),
        {"high": high, "low": low},
    ).scalar_one()
    holder.commit()
    return int(waiting)


@pytest.mark.slow
@pytest.mark.postgres
def test_postgres_migrators_queue_on_the_advisory_lock() -> None:
    """The lock is what serialises them: while the test holds it, every `alembic upgrade head`
    waits on it with nothing applied; released, all of them go at once and all succeed."""
    for _ in range(ATTEMPTS):
        url = create_postgres_database()
        holder_engine = create_engine(make_url(url))
        try:
            with holder_engine.connect() as holder:
                holder.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
                holder.commit()
                migrators = [start_alembic(url, "upgrade", "head") for _ in range(MIGRATORS)]
                try:
                    deadline = time.monotonic() + 60
                    while advisory_waiters(holder) < MIGRATORS:
                        assert all(migrator.poll() is None for migrator in migrators)
                        assert time.monotonic() < deadline, "the migrators never queued"
                        time.sleep(0.05)
                    assert schema(url) == (set(), [])
                finally:
                    holder.execute(
                        text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY}
                    )
                    holder.commit()
                outcomes = [migrator.communicate(timeout=120) for migrator in migrators]
                assert [migrator.returncode for migrator in migrators] == [0] * MIGRATORS, outcomes
            assert schema(url) == (TABLES, [migration_head()])
        finally:
            holder_engine.dispose()
            drop_postgres_database(url)


# --- readiness ----------------------------------------------------------------------------


def assert_unavailable(response: Any) -> None:
    assert response.status_code == 503, response.text
    body = response.json()
    assert isinstance(body["detail"], str)
    assert body["detail"]


def test_readyz_is_503_while_the_database_is_unreachable() -> None:
    response = ready(UNREACHABLE)
    assert_unavailable(response)
    assert "unreachable" in response.json()["detail"]


def test_readyz_is_503_on_a_database_without_migrations(tmp_path: Path) -> None:
    response = ready(f"sqlite:///{tmp_path / 'unmigrated.db'}")
    assert_unavailable(response)


def test_readyz_is_503_on_a_database_behind_head(empty_database_url: str) -> None:
    config = alembic_config(empty_database_url)
    command.upgrade(config, "head")
    command.stamp(config, "base")  # the tables exist, but no revision is recorded
    response = ready(empty_database_url)
    assert_unavailable(response)
    assert migration_head() in response.json()["detail"]


def test_readyz_is_200_on_a_migrated_database(database_url: str) -> None:
    response = ready(database_url)
    assert response.status_code == 200
    assert response.json() == {"status": "ready"}


def test_readyz_503_is_problem_json() -> None:
    response = ready(UNREACHABLE)
    assert response.headers["content-type"].startswith("application/problem+json")
    assert {"type", "title", "status", "detail"} <= set(response.json())
