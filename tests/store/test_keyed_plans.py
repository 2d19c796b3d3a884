"""Keyed by the session first (migration 0014), the delivery workers' statements and the stored
answers' still read through an index, on SQLite and PostgreSQL: each statement that names a
delivery names its session with its id (the key's index, and under a distributed PostgreSQL
one shard), the claim's search its partial indexes, a stored answer its key, and retention's
purge of deliveries sent long ago the index of sent ones by time (migration 0015).

Plans are read from a database of 12,000 deliveries (a hundred pending) over 1,200 sessions
and 3,000 stored answers, its statistics taken (PostgreSQL: as autovacuum would have them),
with sequential scans allowed: what the planner picks, not what it is forced to.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from sqlalchemy import Engine, insert, text

from app.store import webhooks
from app.store.database import null_pool_engine, upgrade_to_head
from app.store.repository import (
    _FIND_RESPONSE,
    _FORGET_RESPONSE,
    _PURGE_KEYS,
    _PURGE_KEYS_PG,
    Statement,
    creation_shard,
    idempotency,
)
from tests.conftest import create_postgres_database, drop_postgres_database

AT = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
SESSIONS = 1_200
PER_SESSION = 10


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def filled(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Engine]:
    """A migrated database of each kind, filled and analysed."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('plans') / 'plans.db'}"
    else:
        url = create_postgres_database()
    try:
        upgrade_to_head(url)
        engine = null_pool_engine(url)
        fill(engine)
        yield engine
        engine.dispose()
    finally:
        if request.param != "sqlite":
            drop_postgres_database(url)


def fill(engine: Engine) -> None:
    subscriptions = webhooks.subscriptions
    deliveries = webhooks.deliveries
    with engine.begin() as connection:
        connection.execute(
            insert(subscriptions),
            [
                {
                    "id": f"sub{number:029d}",
                    "session_id": None,
                    "kind": None,
                    "url": "https://example.com/hook",
                    "events": None,
                    "view": "gm",
                    "secret": b"sealed",
                    "status": "active",
                    "created_at": AT,
                }
                for number in range(2)
            ],
        )
        rows = []
        for number in range(SESSIONS * PER_SESSION):
            session = number % SESSIONS
            rows.append(
                {
                    "id": number + 1,
                    "message_id": f"msg_{number}",
                    "subscription_id": f"sub{session % 2:029d}",
                    "session_id": f"{session:032x}",
                    "version": number // SESSIONS + 1,
                    "event": "round",
                    "payload": b"{}",
                    # The last round of a tenth of the sessions still to send.
                    "status": "pending"
                    if number // SESSIONS == 9 and session % 12 == 0
                    else "delivered",
                    "attempts": 1,
                    "next_attempt_at": AT,
                    "first_due_at": AT,
                    "created_at": AT - timedelta(days=number % 40),
                }
            )
        connection.execute(insert(deliveries), rows)
        connection.execute(
            insert(idempotency),
            [
                {
                    "session_id": f"{number % SESSIONS:032x}"
                    if number % 3
                    else creation_shard(key),
                    "scope": f"arm-wrestles/{number % SESSIONS:032x}/token",
                    "key": key,
                    "fingerprint": bytes(32),
                    "status_code": 200,
                    "headers": {},
                    "body": b"sealed",
                    "created_at": AT,
                }
                for number in range(3_000)
                for key in [f"{number:064x}"]
            ],
        )
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("ANALYZE webhook_deliveries, idempotency_keys"))
    else:
        with engine.begin() as connection:
            connection.execute(text("ANALYZE"))


def plan(engine: Engine, statement: Statement, params: dict[str, Any]) -> str:
    """The plan of `statement` (as the app compiles it for this database) with `params`."""
    built: Any = statement._build()
    query = built.compile(dialect=engine.dialect)
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            named = {name: params[name] for name in query.params}
            rows = connection.exec_driver_sql(f"EXPLAIN {query.string}", named)
            found = "\n".join(str(row[0]) for row in rows)
        else:
            ordered = tuple(params[name] for name in query.positiontup)
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {query.string}", ordered)
            found = "\n".join(str(row[-1]) for row in rows)
        connection.rollback()
    return found


def postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def listed(engine: Engine, values: list[Any]) -> Any:
    """A list parameter as each database's statements take it (an array; a JSON text)."""
    return values if postgres(engine) else orjson.dumps(values).decode()


def assert_no_full_scan(engine: Engine, found: str, table: str) -> None:
    if postgres(engine):
        assert f"Seq Scan on {table}" not in found, found
    else:
        # SQLite: `SCAN t` reads the whole table; `SEARCH t USING ...` a range of an index.
        assert f"SCAN {table}\n" not in found + "\n", found
        assert f"SCAN {table} " not in found, found


SESSION = f"{12:032x}"
DELIVERY = 9 * SESSIONS + 12 + 1  # that session's pending delivery
KEY_ARGS = {"session_id": SESSION, "id": DELIVERY, "holder": "c" * 32}


@pytest.mark.parametrize(
    ("name", "statement", "params"),
    [
        (
            "retry",
            webhooks._RETRY,
            {
                **KEY_ARGS,
                "attempts": 2,
                "last_status": 500,
                "last_error": "x",
                "next_at": AT,
            },
        ),
        (
            "give up",
            webhooks._GIVE_UP,
            {**KEY_ARGS, "attempts": 2, "last_status": 500, "last_error": "x"},
        ),
        ("release", webhooks._RELEASE, KEY_ARGS),
    ],
)
def test_a_delivery_is_written_through_its_key(
    filled: Engine, name: str, statement: Statement, params: dict[str, Any]
) -> None:
    found = plan(filled, statement, params)
    assert_no_full_scan(filled, found, "webhook_deliveries")
    if postgres(filled):
        assert "pk_webhook_deliveries" in found, (name, found)
        assert "Index Cond: (((session_id)::text = " in found, (name, found)
    else:
        assert "USING INDEX sqlite_autoindex_webhook_deliveries_1 (session_id=? AND id=?)" in (
            found
        ), (name, found)


def test_claimed_and_delivered_deliveries_are_found_through_their_key(filled: Engine) -> None:
    listing = webhooks._listing(
        postgres(filled), [(SESSION, DELIVERY), (f"{24:032x}", DELIVERY + 12)]
    )
    for statement, params in [
        (
            webhooks._CLAIM_PG if postgres(filled) else webhooks._CLAIM,
            {**listing, "claim": "c" * 32, "until": AT},
        ),
        (
            # The claimed deliveries read back for sending (by their key, not by the claim:
            # no index has the claim, and a read by it alone went through every row kept).
            webhooks._JOBS_PG if postgres(filled) else webhooks._JOBS,
            {**listing, "claim": "c" * 32},
        ),
        (
            webhooks._DELIVERED_PG if postgres(filled) else webhooks._DELIVERED,
            {**listing, "holder": "c" * 32, "last_status": 200, "at": AT},
        ),
    ]:
        found = plan(filled, statement, params)
        assert_no_full_scan(filled, found, "webhook_deliveries")
        if postgres(filled) and statement is webhooks._JOBS_PG:
            # Its key, or the index of the pending deliveries alone (the planner's choice
            # while they are few): either way not the rows sent long ago.
            assert any(
                index in found for index in ("pk_webhook_deliveries", "ix_webhook_deliveries_due")
            ), found
        elif postgres(filled):
            assert "pk_webhook_deliveries" in found, found
        else:
            # Each listed pair looked up in the key, on both of its columns (on the session
            # alone, every delivery it keeps would be read; as two lists, every session with
            # every id).
            assert (
                "SEARCH webhook_deliveries USING INDEX sqlite_autoindex_webhook_deliveries_1 "
                "(session_id=? AND id=?)"
            ) in found, found


def test_the_search_for_what_is_due_reads_the_pending_indexes(filled: Engine) -> None:
    due = webhooks._DUE_LOCKED if postgres(filled) else webhooks._DUE
    found = plan(filled, due, {"now": AT, "limit": 20})
    assert_no_full_scan(filled, found, "webhook_deliveries")
    assert "ix_webhook_deliveries_due" in found, found
    followers = webhooks._FOLLOWERS_PG if postgres(filled) else webhooks._FOLLOWERS
    found = plan(
        filled,
        followers,
        {
            **webhooks._pairs(postgres(filled), "queues", [(f"sub{0:029d}", SESSION)]),
            **({"sessions": [SESSION]} if postgres(filled) else {}),
            "after": 1,
            "now": AT,
            "per_queue": 5,
        },
    )
    assert_no_full_scan(filled, found, "webhook_deliveries")
    assert "ix_webhook_deliveries_due" in found or "ix_webhook_deliveries_pending" in found, found


@pytest.mark.parametrize("creation", [False, True])
def test_a_stored_answer_is_read_and_replaced_through_its_key(
    filled: Engine, creation: bool
) -> None:
    key = f"{(3 if creation else 4):064x}"
    params = {
        "session_id": creation_shard(key) if creation else f"{4:032x}",
        "scope": f"arm-wrestles/{(3 if creation else 4):032x}/token",
        "key": key,
    }
    for statement in (_FIND_RESPONSE, _FORGET_RESPONSE):
        found = plan(filled, statement, params)
        assert_no_full_scan(filled, found, "idempotency_keys")
        if postgres(filled):
            assert "pk_idempotency_keys" in found, found
        else:
            assert "sqlite_autoindex_idempotency_keys_1" in found, found


def test_retention_forgets_a_sessions_answers_through_the_key(filled: Engine) -> None:
    purge = _PURGE_KEYS_PG if postgres(filled) else _PURGE_KEYS
    found = plan(filled, purge, {"ids": listed(filled, [f"{5:032x}", f"{6:032x}"])})
    assert_no_full_scan(filled, found, "idempotency_keys")
    if postgres(filled):
        assert "pk_idempotency_keys" in found, found
    else:
        assert "sqlite_autoindex_idempotency_keys_1 (session_id=?)" in found, found


@pytest.mark.parametrize("days", [38, 45])
def test_retention_forgets_sent_deliveries_through_their_index_by_time(
    filled: Engine, days: int
) -> None:
    """A batch of deliveries sent before the cutoff (among a fortieth of them, or none: a pass
    with nothing to forget) is a range of `ix_webhook_deliveries_sent`, never the whole table.
    The batch is small beside the table, as a real one is (thousands among millions): then
    the planner deletes them through their key too."""
    found = plan(
        filled, webhooks._PURGE_DELIVERIES, {"cutoff": AT - timedelta(days=days), "limit": 50}
    )
    assert_no_full_scan(filled, found, "webhook_deliveries")
    if postgres(filled):
        assert "ix_webhook_deliveries_sent" in found, found
    else:
        assert "USING INDEX ix_webhook_deliveries_sent (created_at<?)" in found, found


def test_the_fill_is_what_the_plans_are_read_on(filled: Engine) -> None:
    with filled.connect() as connection:
        counted = connection.execute(
            text("SELECT status, count(*) FROM webhook_deliveries GROUP BY status ORDER BY status")
        ).all()
        keys = connection.execute(text("SELECT count(*) FROM idempotency_keys")).scalar()
    assert [tuple(row) for row in counted] == [("delivered", 11_900), ("pending", 100)]
    assert keys == 3_000
