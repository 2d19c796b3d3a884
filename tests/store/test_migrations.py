"""Migrations and readiness, on SQLite and PostgreSQL.

`alembic upgrade head` builds the schema from nothing; the models and the migrations describe the
same schema (no autogenerate drift); downgrading to base and upgrading again works; several
processes upgrading one fresh database at once all succeed (replicas starting together);
sessions stored before the generic serialiser (`data/sessions_before_the_serialiser.json`:
one of each kind as the service at commit b938e43 stored them, made through its API) answer
and play on after 0004, and go back to their old shape on downgrade; sessions of every kind,
their rounds and stored answers go down every revision and back up with nothing lost; a
downgrade that would drop data refuses unless `-x allow-data-loss=true`; SQLite migrates with
foreign keys off and checks them after every step, the app's connections keep them on;
`/readyz` is 503 while the database is unreachable or behind head, and 200 once migrated.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.operations import Operations
from alembic.runtime.environment import EnvironmentContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from fastapi.testclient import TestClient
from sqlalchemy import Column, Engine, Integer, MetaData, create_engine, inspect, select, text
from sqlalchemy.engine import make_url

from app.main import create_app
from app.settings import Settings
from app.store.database import (
    MIGRATIONS_DIR,
    _journal_in_wal,
    build_engine,
    migration_head,
    normalise_url,
    null_pool_engine,
)
from app.store.models import Base
from app.store.repository import CREATION_SHARD, creation_shard, sessions, touched_hour
from app.store.webhooks import _insert_delivery
from migrations.guard import refuse_data_loss
from tests.conformance import Conforming
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.helpers import Session, bearer
from tests.store.migrator import migrate_after

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TABLES = {"sessions", "rounds", "idempotency_keys"}
UNREACHABLE = "postgresql+psycopg://postgres@127.0.0.1:1/x"
#: The `-x` argument that lets a downgrade drop data (migrations/guard.py).
ALLOW_DATA_LOSS = "allow-data-loss=true"
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


def alembic_config(url: str, *x: str) -> Config:
    """Alembic's configuration for `url`, with `x` as the command line's `-x` arguments."""
    config = Config(str(PROJECT_ROOT / "alembic.ini"), cmd_opts=argparse.Namespace(x=list(x)))
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

    command.downgrade(alembic_config(empty_database_url, ALLOW_DATA_LOSS), "base")
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


def test_rounds_waiting_for_dice_get_their_deadline_in_its_column(
    empty_database_url: str,
) -> None:
    """0007 fills `pending_deadline` from the state of each session holding a round waiting
    for the seats' dice, so the deadline sweeper finds the rounds opened before it; the others
    stay null. Down again, it goes and the state still holds the deadline."""
    url = empty_database_url
    config = alembic_config(url)
    command.upgrade(config, "head")
    deadline = datetime(2026, 12, 2, 6, 30, 15, 250000, tzinfo=UTC)
    seated = {**ARM_WRESTLE, "seats": True}
    app = create_app(Settings(database_url=url))
    app.state.clock = lambda: deadline - timedelta(seconds=90)
    with TestClient(app) as client:
        waiting = Session(client, "arm-wrestles", seated)
        opened = waiting.post("rounds", {"collect": True, "deadline_seconds": 90})
        assert opened.status_code == 202, opened.text
        idle = Session(client, "arm-wrestles", seated)
    command.downgrade(config, "0006")
    engine = null_pool_engine(url)
    try:
        with engine.connect() as connection:
            assert "pending_deadline" not in {
                column["name"] for column in inspect(connection).get_columns("sessions")
            }
        command.upgrade(config, "0007")
        with engine.connect() as connection:
            found = dict(
                connection.execute(select(sessions.c.id, sessions.c.pending_deadline)).all()
            )
    finally:
        engine.dispose()
    stored = found[waiting.id]
    assert stored is not None
    if stored.tzinfo is None:  # SQLite's text, in UTC
        stored = stored.replace(tzinfo=UTC)
    assert stored == deadline
    assert found[idle.id] is None


def test_keys_stored_under_their_session_get_its_id_and_keep_every_row_both_ways(
    empty_database_url: str,
) -> None:
    """0008 gives each stored key of a session's change (scoped `<kind>/<id>` before it, as
    the service stored them; `<kind>/<id>/<token>` after it) its session's id, and a
    creation's none; the downgrade keeps every row as it was."""
    url = empty_database_url
    config = alembic_config(url)
    command.upgrade(config, "0007")
    session_id = "0123456789abcdef0123456789abcdef"
    scopes = [
        f"arm-wrestles/{session_id}",
        f"regular-contests/{session_id}/AbCdEfGhIjKlMn",
        "create/arm-wrestles",
        "create/arm-wrestles/0123456789abcdef0123456789abcdef",
    ]
    engine = null_pool_engine(url)
    rows = [
        {
            "scope": scope,
            "key": f"{number:064x}",
            "fingerprint": bytes([number]) * 32,
            "status_code": 200,
            "headers": "{}" if engine.dialect.name == "sqlite" else {},
            "body": b"sealed",
            "created_at": datetime(2026, 12, 6, 12, 0, tzinfo=UTC),
        }
        for number, scope in enumerate(scopes)
    ]
    try:
        metadata = MetaData()
        with engine.begin() as connection:
            metadata.reflect(connection, only=["idempotency_keys"])
            connection.execute(metadata.tables["idempotency_keys"].insert(), rows)
        before = contents(url)["idempotency_keys"]
        command.upgrade(config, "0008")
        with engine.connect() as connection:
            found: dict[str, str | None] = dict(
                connection.execute(text("SELECT scope, session_id FROM idempotency_keys")).all()
            )
        assert found == {
            scopes[0]: session_id,
            scopes[1]: session_id,
            scopes[2]: None,
            scopes[3]: None,
        }
        command.downgrade(config, "0007")
        assert contents(url)["idempotency_keys"] == before
    finally:
        engine.dispose()


def rows_of(url: str, name: str, order: list[str]) -> list[dict[str, Any]]:
    """Every row of the table `name`, ordered by `order` (the same whatever its key)."""
    engine = null_pool_engine(url)
    try:
        with engine.connect() as connection:
            metadata = MetaData()
            metadata.reflect(connection, only=[name])
            table = metadata.tables[name]
            query = select(table).order_by(*(table.c[column] for column in order))
            return [dict(row) for row in connection.execute(query).mappings()]
    finally:
        engine.dispose()


def keyed_columns(url: str, name: str) -> list[str]:
    engine = null_pool_engine(url)
    try:
        with engine.connect() as connection:
            return list(inspect(connection).get_pk_constraint(name)["constrained_columns"])
    finally:
        engine.dispose()


def test_deliveries_and_stored_answers_keyed_by_their_session_both_ways(
    empty_database_url: str,
) -> None:
    """0014 keys `webhook_deliveries` by (session_id, id) and `idempotency_keys` by
    (session_id, scope, key), every row kept: a creation's stored answer gets the value of
    its key (`creation_shard`), a session change's keeps its session; each delivery keeps its
    id, and the app's own insert numbers the next one after the largest. The downgrade gives
    back exactly what was."""
    url = empty_database_url
    config = alembic_config(url)
    command.upgrade(config, "0013")
    engine = null_pool_engine(url)
    postgres = engine.dialect.name == "postgresql"
    at = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    session_a, session_b = "a" * 32, "b" * 32
    answers = [
        ("create/arm-wrestles", "1" * 64, None),
        ("create/arm-wrestles/" + "9" * 32, "2" * 64, None),
        (f"arm-wrestles/{session_a}/AbCdEfGhIjKlMn", "3" * 64, session_a),
    ]
    try:
        metadata = MetaData()
        with engine.begin() as connection:
            metadata.reflect(connection)
            connection.execute(
                metadata.tables["webhook_subscriptions"].insert(),
                {
                    "id": "s" * 32,
                    "session_id": None,
                    "kind": None,
                    "url": "https://example.com/hook",
                    "events": None,
                    "view": "gm",
                    "secret": b"sealed",
                    "status": "active",
                    "created_at": at,
                },
            )
            # Numbered by the database (its sequence, or the rowid), four in two sessions.
            for number, session in enumerate([session_a, session_b, session_a, session_b]):
                connection.execute(
                    metadata.tables["webhook_deliveries"].insert(),
                    {
                        "message_id": f"msg_{number}",
                        "subscription_id": "s" * 32,
                        "session_id": session,
                        "version": number + 1,
                        "event": "round",
                        "payload": b"{}",
                        "status": "delivered" if number else "pending",
                        "attempts": number,
                        "next_attempt_at": at,
                        "first_due_at": at,
                        "created_at": at,
                    },
                )
            # Two deleted between the first and the last: the next id is 5 all the same (a
            # rowid numbered again from 1 on SQLite would give 3, before the last).
            connection.execute(text("DELETE FROM webhook_deliveries WHERE id IN (2, 3)"))
            connection.execute(
                metadata.tables["idempotency_keys"].insert(),
                [
                    {
                        "scope": scope,
                        "key": key,
                        "session_id": session,
                        "fingerprint": bytes(32),
                        "status_code": 201,
                        "headers": "{}" if not postgres else {},
                        "body": b"sealed",
                        "created_at": at,
                    }
                    for scope, key, session in answers
                ],
            )
        deliveries_before = rows_of(url, "webhook_deliveries", ["id"])
        answers_before = rows_of(url, "idempotency_keys", ["scope", "key"])
        assert [row["id"] for row in deliveries_before] == [1, 4]

        command.upgrade(config, "0014")
        assert keyed_columns(url, "webhook_deliveries") == ["session_id", "id"]
        assert keyed_columns(url, "idempotency_keys") == ["session_id", "scope", "key"]
        assert rows_of(url, "webhook_deliveries", ["id"]) == deliveries_before
        found = rows_of(url, "idempotency_keys", ["scope", "key"])
        assert {row["scope"]: row["session_id"] for row in found} == {
            answers[0][0]: "~" + "1" * 31,
            answers[1][0]: "~" + "2" * 31,
            answers[2][0]: session_a,
        }
        assert creation_shard("1" * 64) == "~" + "1" * 31
        # Nothing else changed.
        assert [
            {**row, "session_id": row["session_id"] if row["scope"] == answers[2][0] else None}
            for row in found
        ] == answers_before
        # The app's own insert, on the tables it writes now (0017's among them).
        command.upgrade(config, "head")
        with engine.begin() as connection:
            connection.execute(
                _insert_delivery(sqlite=not postgres),
                {
                    "message_id": "msg_new",
                    "subscription_id": "s" * 32,
                    "session_id": session_b,
                    "version": 9,
                    "event": "round",
                    "payload": b"{}",
                    "at": at,
                },
            )
            numbered = connection.execute(
                text("SELECT id, message_id FROM webhook_deliveries ORDER BY id")
            ).all()
            assert [tuple(row) for row in numbered] == [(1, "msg_0"), (4, "msg_3"), (5, "msg_new")]
            if not postgres:
                # Each row's rowid is its id, as the next insert's numbering needs.
                pairs = connection.execute(text("SELECT rowid, id FROM webhook_deliveries")).all()
                assert all(rowid == delivery_id for rowid, delivery_id in pairs)
            connection.execute(text("DELETE FROM webhook_deliveries WHERE id = 5"))

        command.downgrade(config, "0013")
        assert keyed_columns(url, "webhook_deliveries") == ["id"]
        assert keyed_columns(url, "idempotency_keys") == ["scope", "key"]
        assert rows_of(url, "webhook_deliveries", ["id"]) == deliveries_before
        assert rows_of(url, "idempotency_keys", ["scope", "key"]) == answers_before
        command.upgrade(config, "head")
        assert drift(engine, Base.metadata) == []
    finally:
        engine.dispose()


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
            # As stored, with the cards rendered when served (never stored).
            served = page.json()["rounds"]
            assert all(len(record.pop("cards")) == 1 for record in served)
            assert served == [played["outcome"] for played in stored["rounds"]]
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
    command.upgrade(config, "0004")  # 0004 again, on states already in the new shape
    assert stored_states(empty_database_url) == upgraded


# --- nothing lost in either direction -------------------------------------------------------

LONG_ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
SKILL_GAME: dict[str, Any] = {
    "dc": 12,
    "skill_list": ["Persuade", "Intimidate", "Insight"],
    "skills_per_round": 2,
    "kind": "bidding",
    "actions": [
        {
            "name": "Press",
            "effects": [
                {"min_margin": 0, "text": "a small concession", "progress": 1},
                {"min_margin": 2, "text": "a confession", "progress": 2},
            ],
        },
        {"name": "Rally", "effects": [{"text": "Second wind.", "tokens": 2}]},
    ],
    "goal": 6,
    "parties": [
        {
            "name": "Heroes",
            "controller": "players",
            "members": [{"name": "Ann", "skills": {"Persuade": 5}}],
        },
        {
            "name": "Villains",
            "controller": "gm",
            "members": [{"name": "Rook", "skills": {"Intimidate": 3}}],
        },
    ],
}
SKILLS = ("Persuade", "Insight")
CHASE_TERRAIN: dict[str, Any] = {"terrain": {"check": "strength"}, "tactic": None}
CHASE_HAZARD: dict[str, Any] = {
    "terrain": {"check": "strength"},
    "tactic": {"kind": "hazard", "penalty": 2},
}
#: A call on a session: (its path under the session, its body, who makes it).
Call = tuple[str, Any, str]
#: The sessions the round trip carries, made through the API of the code now, and the calls
#: made on each: every kind, one finished (a resolved arm wrestle), seeded and unseeded ones,
#: a race with an option away from its default, a chase with mounts and a hazard tactic, a
#: skill game with grants, a revealed round and a sealed bid pending.
SESSIONS: list[tuple[str, dict[str, Any], list[Call]]] = [
    ("arm-wrestles", LONG_ARM_WRESTLE, [("rounds", {}, "gm")] * 3),
    ("arm-wrestles", {**ARM_WRESTLE, "seed": 7}, [("resolve", None, "gm")]),
    (
        "regular-contests",
        {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 11}, "seed": 3},
        [("rounds", {}, "gm")] * 2,
    ),
    (
        "races",
        {
            "course": "typical",
            "competitors": [
                {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
                {"name": "Bob", "speed": 40},
            ],
            "speed_bonus": "every-roll",
            "seed": 5,
        },
        [("rounds", {}, "gm")] * 2,
    ),
    (
        "chases",
        {
            "escapee": {
                "name": "Ralf",
                "speed": 30,
                "mods": {"dexterity": 3},
                "mount": {"strength_mod": 4, "speed": 50, "con_score": 15, "con_mod": 2},
            },
            "chaser": {
                "name": "Guard",
                "speed": 30,
                "mods": {"balance": 1},
                "mount": {"strength_mod": 4, "speed": 50, "con_score": 15, "con_mod": 2},
            },
            "start": {"mode": "lead", "lead": 2},
            "hazard_base_cost": 2,
            "seed": 11,
        },
        [("rounds", CHASE_TERRAIN, "gm"), ("rounds", CHASE_HAZARD, "gm")],
    ),
    (
        "skill-games",
        {**SKILL_GAME, "seed": 9},
        [
            ("grants", {"party": "Heroes", "tokens": 1, "reason": "a bribe"}, "gm"),
            ("skills", {"party": "Heroes", "skills": SKILLS}, "Heroes"),
            ("skills", {"party": "Villains", "skills": SKILLS}, "gm"),
            ("choices", {"party": "Heroes", "action": "Press", "bid": 1}, "Heroes"),
            ("choices", {"party": "Villains", "action": "Rally", "bid": 0}, "gm"),
            ("grants", {"party": "Villains", "tokens": 2, "reason": "reinforcements"}, "gm"),
            ("skills", {"party": "Heroes", "skills": SKILLS}, "Heroes"),
            ("skills", {"party": "Villains", "skills": SKILLS}, "gm"),
            ("choices", {"party": "Villains", "action": "Press", "bid": 1}, "gm"),
        ],
    ),
]


class Keyed:
    """A change made with an Idempotency-Key, and its first answer: replayed, it must answer
    the same again."""

    def __init__(self, path: str, body: Any, headers: dict[str, str], answer: Any) -> None:
        self.path, self.body, self.headers = path, body, headers
        self.status, self.content = answer.status_code, answer.content

    def replay(self, client: TestClient) -> None:
        again = client.post(self.path, json=self.body, headers=self.headers)
        assert (again.status_code, again.headers.get("idempotent-replayed")) == (
            self.status,
            "true",
        ), (self.path, again.text)
        assert again.content == self.content, self.path


def fill(client: TestClient) -> tuple[dict[str, dict[str, str]], list[Keyed]]:
    """Every session of `SESSIONS`, made and played through the API, each change with an
    Idempotency-Key; (each session's path and GM headers, the keyed changes)."""
    made: dict[str, dict[str, str]] = {}
    keyed: list[Keyed] = []
    for number, (kind, body, calls) in enumerate(SESSIONS):
        # A creation key scoped with a secret of the caller's: its replay carries the tokens.
        headers = {"Idempotency-Key": f"create-{number}", "Authorization": "Bearer my-secret"}
        created = client.post(f"/v1/{kind}", json=body, headers=headers)
        assert created.status_code == 201, created.text
        keyed.append(Keyed(f"/v1/{kind}", body, headers, created))
        path, tokens = created.headers["location"], created.json()["tokens"]
        made[path] = {"Authorization": f"Bearer {tokens['gm']}"}
        for step, (action, call, who) in enumerate(calls):
            token = tokens["gm"] if who == "gm" else tokens["parties"][who]
            headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": f"{number}-{step}"}
            answer = client.post(f"{path}/{action}", json=call, headers=headers)
            assert answer.status_code in (200, 202), (kind, action, answer.text)
            keyed.append(Keyed(f"{path}/{action}", call, headers, answer))
    return made, keyed


def shown(client: TestClient, made: dict[str, dict[str, str]]) -> dict[str, Any]:
    """What the API shows of each session: the session and all its rounds."""
    return {
        path: (
            client.get(path, headers=gm).json(),
            client.get(f"{path}/rounds?limit=500", headers=gm).json(),
        )
        for path, gm in made.items()
    }


Contents = dict[str, list[dict[str, Any]]]


def contents(url: str) -> Contents:
    """Every row of the app's tables, in key order, with the columns the revision has."""
    engine = null_pool_engine(url)
    try:
        with engine.connect() as connection:
            metadata = MetaData()
            metadata.reflect(connection, only=sorted(TABLES))
            found: Contents = {}
            for name in sorted(TABLES):
                table = metadata.tables[name]
                # Rounds by session and number, their key from 0011 on (their id's before);
                # stored answers by scope and key, theirs before 0014 (after it, behind their
                # session's id).
                ordered = {"rounds": ["session_id", "number"], "idempotency_keys": ["scope", "key"]}
                key = [table.c[column] for column in ordered.get(name, [])]
                query = select(table).order_by(*key, *table.primary_key.columns)
                found[name] = [dict(row) for row in connection.execute(query).mappings()]
            return found
    finally:
        engine.dispose()


def counts(found: Contents) -> dict[str, int]:
    return {name: len(rows) for name, rows in found.items()}


def in_columns_of(found: Contents, like: Contents, less: dict[str, set[str]]) -> Contents:
    """`found`, each table with only the columns it has in `like`, less those of `less`."""
    kept = {
        name: set(rows[0]) - less.get(name, set()) if rows else set() for name, rows in like.items()
    }
    return {
        name: [{key: value for key, value in row.items() if key in kept[name]} for row in rows]
        for name, rows in found.items()
    }


def assert_rounds_match(found: Contents, revision: str) -> None:
    """Each session has the rounds its `rounds_played` counts, numbered 1 to n, and a version
    past its first when it has any."""
    numbers: dict[str, list[int]] = {}
    for played in found["rounds"]:
        numbers.setdefault(played["session_id"], []).append(played["number"])
    for session in found["sessions"]:
        counted = sorted(numbers.get(session["id"], []))
        assert counted == list(range(1, session["rounds_played"] + 1)), (
            revision,
            session["kind"],
            session["rounds_played"],
            len(counted),
        )
        # Rounds are changes (a resolve is one, however many it plays).
        assert session["version"] > 1 or not counted, (revision, session["kind"])


def unsharded(found: Contents) -> Contents:
    """`found` as before 0014: a creation's stored answer with no `session_id`."""
    return {
        name: [
            {**row, "session_id": None}
            if name == "idempotency_keys" and row["session_id"].startswith(CREATION_SHARD)
            else row
            for row in rows
        ]
        for name, rows in found.items()
    }


def without_messages(found: Contents) -> Contents:
    """`found` with no round's message (as 0016's downgrade leaves the rounds)."""
    assert any(played["message"] is not None for played in found["rounds"])
    return {
        **found,
        "rounds": [{**played, "message": None} for played in found["rounds"]],
    }


def revisions() -> list[str]:
    """Every revision, head first."""
    return [script.revision for script in ScriptDirectory(str(MIGRATIONS_DIR)).walk_revisions()]


def test_every_step_down_and_up_loses_nothing(empty_database_url: str) -> None:
    """Sessions of every kind, their rounds and stored answers, made through the API at head,
    go down a revision at a time to the lowest one holding them (the first: it made the
    tables) and back up: at every revision the same rows (all columns but the state 0004
    writes in the old shape), each session's rounds counted by its `rounds_played` and its
    version; back at a revision, exactly what was there on the way down; back at head,
    exactly what was there before but the rounds' messages (read in English since), shown
    by the API as before, and every keyed change
    replays its stored answer. Then the same in one command each way."""
    url = empty_database_url
    config = alembic_config(url)
    command.upgrade(config, "head")
    with TestClient(create_app(Settings(database_url=url))) as client:
        made, keyed = fill(client)
        showing = shown(client, made)
    before = contents(url)
    assert counts(before)["sessions"] == len(SESSIONS)
    assert counts(before)["rounds"] > 2 * len(SESSIONS)
    assert counts(before)["idempotency_keys"] == len(keyed)
    assert {session["status"] for session in before["sessions"]} == {"active", "finished"}
    assert_rounds_match(before, "head")

    down = revisions()
    seen = {down[0]: before}
    for revision in down[1:]:
        command.downgrade(config, revision)
        now = contents(url)
        assert counts(now) == counts(before), f"at {revision}: {counts(now)}"
        assert_rounds_match(now, revision)
        # (And the rounds' id, which head has not: 0011 dropped it.)
        rewritten = {"sessions": {"state"}, "rounds": {"id"}}
        expected = before if revision >= "0014" else unsharded(before)
        assert in_columns_of(now, now, rewritten) == in_columns_of(expected, now, rewritten)
        seen[revision] = now
    for revision in reversed(down[:-1]):
        command.upgrade(config, revision)
        # From 0016 up, every round's message is gone (0016's downgrade drops it, asking
        # nothing: the English summary stays, and rounds are read back in it).
        again = seen[revision] if revision < "0016" else without_messages(seen[revision])
        assert contents(url) == again, f"back at {revision}"

    command.downgrade(config, down[-1])
    assert contents(url) == seen[down[-1]]
    command.upgrade(config, "head")
    assert contents(url) == without_messages(before)

    with TestClient(create_app(Settings(database_url=url))) as client:
        assert shown(client, made) == showing
        for change in keyed:
            change.replay(client)


# --- downgrades that would drop data --------------------------------------------------------


def failure(outcome: subprocess.CompletedProcess[str]) -> str:
    """The one line alembic's command line prints on stdout for a failed command."""
    assert outcome.returncode != 0
    failed = [line for line in outcome.stdout.splitlines() if line.startswith("FAILED: ")]
    assert len(failed) == 1, outcome.stdout
    return failed[0]


def test_a_downgrade_that_would_drop_data_refuses_unless_allowed(empty_database_url: str) -> None:
    """`alembic downgrade base` on a database holding sessions fails with one line naming what
    would be lost and how to allow it, and changes nothing (the steps before the refusing one
    are rolled back with it); with `-x allow-data-loss=true` it drops everything. Offline it
    refuses too, since nothing can be counted; on empty tables it asks nothing."""
    url = empty_database_url
    command.upgrade(alembic_config(url), "head")
    with TestClient(create_app(Settings(database_url=url))) as client:
        made = Session(client, "arm-wrestles", ARM_WRESTLE)
        assert made.post("rounds", {}, headers={"Idempotency-Key": "once"}).status_code == 200
    before = contents(url)

    assert failure(alembic_cli(url, "downgrade", "base")) == (
        "FAILED: downgrade 0001 -> base would lose 1 row of sessions, 1 row of rounds, "
        "1 row of idempotency_keys (nothing was changed); "
        "to allow it: alembic -x allow-data-loss=true downgrade base"
    )
    assert schema(url) == (TABLES, [migration_head()])
    assert contents(url) == before
    # However the downgrade is named, and whatever else -x says.
    steps = f"-{len(revisions())}"  # down to base, counted back from head
    relative = alembic_cli(url, "-x", "allow-data-loss=false", "downgrade", steps)
    assert failure(relative).endswith(
        f"; to allow it: alembic -x allow-data-loss=true downgrade {steps}"
    )
    unclear = alembic_cli(url, "-x", "allow-data-loss=maybe", "downgrade", "base")
    assert failure(unclear) == "FAILED: -x allow-data-loss=maybe: say true or false"
    offline = alembic_cli(url, "downgrade", "--sql", "0001:base")
    assert failure(offline) == (
        "FAILED: downgrade 0001 -> base drops sessions, rounds, idempotency_keys, and offline it "
        "cannot tell whether they hold data; "
        "to allow it: alembic -x allow-data-loss=true downgrade base"
    )
    assert schema(url) == (TABLES, [migration_head()])
    assert contents(url) == before

    allowed = alembic_cli(url, "-x", "allow-data-loss=true", "downgrade", "base")
    assert allowed.returncode == 0, allowed.stderr
    assert schema(url) == (set(), [])

    command.upgrade(alembic_config(url), "head")
    command.downgrade(alembic_config(url), "base")  # nothing to lose: nothing asked
    assert schema(url) == (set(), [])


def guard_columns(url: str, columns: list[tuple[str, str]], *x: str) -> None:
    """`refuse_data_loss` on `columns`, as a downgrade to 0001 would call it."""
    config = alembic_config(url, *x)
    engine = null_pool_engine(url)
    try:
        with (
            engine.connect() as connection,
            EnvironmentContext(
                config, ScriptDirectory.from_config(config), destination_rev="0001"
            ) as environment,
        ):
            environment.configure(connection=connection)
            with Operations.context(environment.get_context()):
                refuse_data_loss("0002 -> 0001", columns=columns)
    finally:
        engine.dispose()


def test_a_dropped_column_counts_its_values(empty_database_url: str) -> None:
    """A step dropping columns refuses when they hold values (nulls are nothing), naming each
    with its count, unless allowed."""
    url = empty_database_url
    command.upgrade(alembic_config(url), "head")
    with TestClient(create_app(Settings(database_url=url))) as client:
        made = Session(client, "arm-wrestles", {**LONG_ARM_WRESTLE, "seed": 3})
        for _ in range(2):
            made.play_round()
    seed, dice, result = ("sessions", "seed"), ("rounds", "dice"), ("sessions", "result")
    guard_columns(url, [result])  # still in play: no result
    guard_columns(url, [seed, dice, result], ALLOW_DATA_LOSS)
    with pytest.raises(CommandError) as refused:
        guard_columns(url, [seed, dice, result])
    assert str(refused.value) == (
        "downgrade 0002 -> 0001 would lose 1 value of sessions.seed, 2 values of rounds.dice "
        "(nothing was changed); to allow it: alembic -x allow-data-loss=true downgrade 0001"
    )


def test_a_downgrade_below_seats_refuses_while_a_session_has_seats(
    empty_database_url: str,
) -> None:
    """0005's downgrade drops the seat tokens' digests: it refuses while a session holds some
    (sessions without seats hold none, and go down as they are), unless allowed; allowed, the
    sessions and their rounds stay, and back at head the session is seatless."""
    url = empty_database_url
    command.upgrade(alembic_config(url), "head")
    with TestClient(create_app(Settings(database_url=url))) as client:
        Session(client, "arm-wrestles", LONG_ARM_WRESTLE).play_round()
        seated = Session(client, "arm-wrestles", {**LONG_ARM_WRESTLE, "seats": True})
        seated.play_round()
    before = contents(url)

    assert failure(alembic_cli(url, "downgrade", "0004")) == (
        "FAILED: downgrade 0005 -> 0004 would lose 1 value of sessions.seat_token_hashes "
        "(nothing was changed); to allow it: alembic -x allow-data-loss=true downgrade 0004"
    )
    assert schema(url) == (TABLES, [migration_head()])
    assert contents(url) == before

    allowed = alembic_cli(url, "-x", "allow-data-loss=true", "downgrade", "0004")
    assert allowed.returncode == 0, allowed.stderr
    assert schema(url) == (TABLES, ["0004"])
    after = contents(url)
    assert counts(after) == counts(before)
    assert all("seat_token_hashes" not in row for row in after["sessions"])
    command.upgrade(alembic_config(url), "head")
    with TestClient(create_app(Settings(database_url=url))) as client:
        assert client.get(seated.url, headers=seated.headers).json()["round"] == 1
        ann = seated.tokens["seats"]["Ann"]
        assert client.get(seated.url, headers=bearer(ann)).status_code == 404


def test_a_downgrade_below_verifiable_dice_refuses_while_a_session_has_them(
    empty_database_url: str,
) -> None:
    """0006's downgrade drops verifiable sessions' server seeds and rounds' links: it refuses
    while any holds one, unless allowed; allowed, the deleted verifiable sessions kept for their
    proofs go with their rounds, every other session stays, and back at head a verifiable
    session is shown as an ordinary one (its seed is gone)."""
    url = empty_database_url
    command.upgrade(alembic_config(url), "head")
    with TestClient(create_app(Settings(database_url=url))) as client:
        Session(client, "arm-wrestles", LONG_ARM_WRESTLE).play_round()
        kept = Session(client, "arm-wrestles", {**LONG_ARM_WRESTLE, "dice": "verifiable"})
        kept.play_round()
        deleted = Session(client, "arm-wrestles", {**LONG_ARM_WRESTLE, "dice": "verifiable"})
        deleted.play_round()
        assert client.delete(deleted.url, headers=deleted.headers).status_code == 204
    before = contents(url)
    assert counts(before) == {"sessions": 3, "rounds": 3, "idempotency_keys": 0}

    assert failure(alembic_cli(url, "downgrade", "0005")) == (
        "FAILED: downgrade 0006 -> 0005 would lose 2 values of sessions.dice_secret, "
        "2 values of rounds.link (nothing was changed); to allow it: "
        "alembic -x allow-data-loss=true downgrade 0005"
    )
    assert schema(url) == (TABLES, [migration_head()])
    assert contents(url) == before

    allowed = alembic_cli(url, "-x", "allow-data-loss=true", "downgrade", "0005")
    assert allowed.returncode == 0, allowed.stderr
    assert schema(url) == (TABLES, ["0005"])
    after = contents(url)
    assert counts(after) == {"sessions": 2, "rounds": 2, "idempotency_keys": 0}
    assert deleted.id not in {row["id"] for row in after["sessions"]}
    command.upgrade(alembic_config(url), "head")
    with TestClient(create_app(Settings(database_url=url))) as client:
        shown = client.get(kept.url, headers=kept.headers).json()
        assert shown["round"] == 1
        assert "dice" not in shown
        assert client.get(f"{kept.url}/proof", headers=kept.headers).status_code == 409


# --- foreign keys on SQLite -----------------------------------------------------------------


def test_sqlite_migrations_check_foreign_keys_after_each_step(tmp_path: Path) -> None:
    """Migrations run with SQLite's foreign keys off, so `PRAGMA foreign_key_check` after each
    step is what catches a row naming one that is not there: the migration fails, naming it,
    and nothing is changed."""
    path = tmp_path / "orphan.db"
    url = f"sqlite:///{path}"
    config = alembic_config(url)
    command.upgrade(config, "head")
    with closing(sqlite3.connect(path)) as raw, raw:  # sqlite3's foreign keys are off
        raw.execute(
            "INSERT INTO rounds (session_id, number, inputs, dice, outcome, created_at)"
            " VALUES ('gone', 1, '{}', '[]', '{}', '2026-12-01 00:00:00')"
        )
    before = contents(url)
    with pytest.raises(CommandError) as refused:
        command.downgrade(config, "0003")
    head, below = revisions()[:2]  # the first step down is the one that fails
    assert str(refused.value) == (
        f"migration {head} -> {below} leaves rows whose foreign key names no row "
        "(1 of rounds naming no row of sessions); nothing was changed"
    )
    assert schema(url) == (TABLES, [migration_head()])
    assert contents(url) == before


def test_sqlite_migrations_leave_the_apps_foreign_keys_on(tmp_path: Path) -> None:
    """A connection handed to the migrations gets its foreign keys back, and the app's own
    connections keep them: deleting a session deletes its rounds."""
    url = f"sqlite:///{tmp_path / 'keys.db'}"
    config = alembic_config(url)
    engine = build_engine(url)
    try:
        with engine.connect() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar_one() == 1
    finally:
        engine.dispose()
    with TestClient(create_app(Settings(database_url=url))) as client:
        made = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
        made.play_round()
        assert client.delete(made.url, headers=made.headers).status_code == 204
    assert counts(contents(url)) == {"idempotency_keys": 0, "rounds": 0, "sessions": 0}


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


class LockedCursor:
    """A cursor whose first `locked` journal-mode switches find the database locked (another
    process switching the same new file at that moment), then `error` or success."""

    def __init__(self, locked: int, error: str = "") -> None:
        self.locked, self.error, self.calls = locked, error, 0

    def execute(self, statement: str) -> None:
        assert statement == "PRAGMA journal_mode=WAL"
        self.calls += 1
        if self.calls <= self.locked:
            raise sqlite3.OperationalError("database is locked")
        if self.error:
            raise sqlite3.OperationalError(self.error)


def test_switching_to_wal_waits_for_another_process_switching_the_same_file() -> None:
    # SQLite answers a connection "locked" at once, without waiting, when two switch a new
    # file to WAL together: the switch is tried again until the other is done.
    cursor = LockedCursor(locked=3)
    _journal_in_wal(cursor, busy_timeout_ms=30_000)
    assert cursor.calls == 4
    # Another error is not a lock: it is raised at once.
    cursor = LockedCursor(locked=1, error="disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        _journal_in_wal(cursor, busy_timeout_ms=30_000)
    assert cursor.calls == 2
    # Locked past the busy timeout: the lock's error.
    cursor = LockedCursor(locked=10**9)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _journal_in_wal(cursor, busy_timeout_ms=0)
    assert cursor.calls == 1


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


def test_a_missing_postgres_database_is_one_clear_line() -> None:
    """Migrating (as `scripts/dev.py serve` does first) to a database that does not exist
    says so in one line, with how to create it: no traceback."""
    existing = create_postgres_database()  # skips (or fails in CI) without a server
    drop_postgres_database(existing)
    url = make_url(existing)  # a database that was there, and is not any more
    done = subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=PROJECT_ROOT,
        env={**os.environ, "DATABASE_URL": url.render_as_string(hide_password=False)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert f'"{url.database}" does not exist' in lines[0]
    assert f"createdb -h {url.host}" in lines[0]
    assert "Traceback" not in done.stderr
