"""The retention sweep off the requests' way: each batch a bounded range of the retention index
after the last session the batch before it passed over (keyset, no re-scan and no sort), sized
to a time and followed by a rest (`Pacing`), on SQLite and PostgreSQL.

What it costs the rounds beside it is a bench (bench/sweep.py), not a test; the deleting
itself is tests/store/test_retention.py's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, func, insert, select, text

from app.main import Pacing, purge_once
from app.settings import Settings
from app.store.database import Store, null_pool_engine
from app.store.repository import (
    EXPIRING,
    PurgeCursor,
    Statement,
    _expired_page,
    purge_sessions,
    rounds,
    sessions,
    touched_hour,
)
from tests.store.test_retention import round_rows

FINISHED_DAYS = 30
ABANDONED_DAYS = 7


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    direct = null_pool_engine(database_url)
    with direct.begin() as connection:
        connection.execute(sessions.delete())
    yield direct
    direct.dispose()


def session_rows(
    prefix: str, count: int, *, status: str, updated_at: datetime
) -> list[dict[str, Any]]:
    return [
        {
            "id": f"{prefix}{number:06d}",
            "kind": "arm-wrestles",
            "status": status,
            "version": 1,
            "rounds_played": 0,
            "config": {},
            "state": {},
            "result": None,
            "seed": None,
            "gm_token_hash": "0" * 64,
            "party_token_hashes": {},
            "created_at": updated_at,
            "updated_at": updated_at,
            "touched_hour": touched_hour(updated_at),
        }
        for number in range(count)
    ]


def present(engine: Engine) -> set[str]:
    with engine.connect() as connection:
        return set(connection.execute(select(sessions.c.id)).scalars())


def batch(
    database_url: str, cursor: PurgeCursor | None, *, limit: int, moment: datetime
) -> tuple[int, PurgeCursor | None]:
    async def run() -> tuple[int, PurgeCursor | None]:
        store = Store(database_url)
        try:
            return await store.run(
                "write",
                lambda tx: purge_sessions(
                    tx,
                    finished_before=moment - timedelta(days=FINISHED_DAYS),
                    abandoned_before=moment - timedelta(days=ABANDONED_DAYS),
                    limit=limit,
                    round_budget=10_000,
                    cursor=cursor,
                ),
            )
        finally:
            await store.close()

    return asyncio.run(run())


def test_a_batch_starts_after_the_cursor_and_walks_each_range_in_turn(
    database_url: str, engine: Engine
) -> None:
    """Batches of 3 over 5 expired finished sessions and 4 abandoned ones: the finished range
    first, then the active one, each batch after the last session passed over; a cursor set
    past sessions leaves them (a batch reads nothing before its cursor), and the last batch
    says the walk is over."""
    moment = datetime.now(UTC)
    old = moment - timedelta(days=FINISHED_DAYS + 2)
    finished = session_rows("f", 5, status="finished", updated_at=old)
    abandoned = session_rows("a", 4, status="active", updated_at=old)
    kept = session_rows("k", 2, status="active", updated_at=moment - timedelta(days=1))
    with engine.begin() as connection:
        connection.execute(insert(sessions), finished + abandoned + kept)
    hour = touched_hour(old)

    deleted, cursor = batch(database_url, None, limit=3, moment=moment)
    assert (deleted, cursor) == (3, PurgeCursor(0, hour, "f000002"))
    # From a cursor past f000003: f000003 itself stays, f000004 goes, then the active range.
    deleted, cursor = batch(database_url, PurgeCursor(0, hour, "f000003"), limit=3, moment=moment)
    assert (deleted, cursor) == (3, PurgeCursor(2, hour, "a000001"))
    assert "f000003" in present(engine)
    assert not {"f000004", "a000000", "a000001"} & present(engine)
    deleted, cursor = batch(database_url, cursor, limit=3, moment=moment)
    assert (deleted, cursor) == (2, None)
    assert present(engine) == {"f000003", "k000000", "k000001"}


def test_a_session_of_the_cutoffs_hour_not_yet_expired_is_passed_over_once(
    database_url: str, engine: Engine
) -> None:
    """In the cutoff's own hour the exact time decides: a session changed after it stays, and
    the cursor moves past it, so the next batch does not read it again."""
    moment = datetime.now(UTC).replace(minute=30, second=0, microsecond=0)
    cutoff = moment - timedelta(days=FINISHED_DAYS)
    before = session_rows("b", 1, status="finished", updated_at=cutoff - timedelta(minutes=10))
    after = session_rows("c", 2, status="finished", updated_at=cutoff + timedelta(minutes=10))
    with engine.begin() as connection:
        connection.execute(insert(sessions), before + after)
    deleted, cursor = batch(database_url, None, limit=10, moment=moment)
    assert deleted == 1
    assert cursor is None
    assert present(engine) == {"c000000", "c000001"}
    # A batch of two reads both, passes over them, and reads on after them to the end of the
    # walk (a cursor left before them would read them for ever).
    deleted, cursor = batch(database_url, PurgeCursor(), limit=2, moment=moment)
    assert (deleted, cursor) == (0, None)
    assert present(engine) == {"c000000", "c000001"}


def plan(engine: Engine) -> str:
    """The plan of a batch's read of one range, on a table of 2,000 sessions."""
    compiled = Statement(_expired_page(lock=engine.dialect.name == "postgresql"))._build()
    query = compiled.compile(dialect=engine.dialect)  # type: ignore[attr-defined]
    params = {"status": "finished", "after_hour": 10, "after_id": "x", "hour": 20, "limit": 500}
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
            rows = connection.exec_driver_sql(f"EXPLAIN {query.string}", _named(query, params))
        else:
            rows = connection.exec_driver_sql(
                f"EXPLAIN QUERY PLAN {query.string}", _ordered(query, params)
            )
        return "\n".join(str(row[-1]) for row in rows)


def _named(query: Any, params: dict[str, Any]) -> dict[str, Any]:
    return {name: params[name] for name in query.params}


def _ordered(query: Any, params: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(params[name] for name in query.positiontup)


def test_a_batch_reads_one_range_of_the_retention_index_in_its_order(engine: Engine) -> None:
    moment = datetime.now(UTC) - timedelta(days=FINISHED_DAYS + 1)
    with engine.begin() as connection:
        connection.execute(
            insert(sessions), session_rows("p", 2_000, status="finished", updated_at=moment)
        )
        assert connection.execute(select(func.count()).select_from(sessions)).scalar() == 2_000
    if engine.dialect.name == "postgresql":
        # As autovacuum would have by then: with no statistics the planner guesses a handful
        # of rows, and a sort of a handful looks as cheap as the index's order.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("ANALYZE sessions"))
    found = plan(engine)
    assert "ix_sessions_status_touched_hour" in found, found
    if engine.dialect.name == "postgresql":
        # The cursor is a bound of the index scan itself, not a filter after it.
        assert "AND (ROW(touched_hour, (id)::text) > ROW(" in found, found
        assert "Sort" not in found, found
    else:
        assert "(status=? AND (touched_hour,id)>(?,?) AND touched_hour<?)" in found, found
        assert "TEMP B-TREE" not in found, found
    assert [status for status, _ in EXPIRING] == ["finished", "deleted", "active"]


def test_the_pace_shrinks_a_slow_batch_and_rests_in_proportion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first batch is a tenth of the largest; one that took five times its target makes
    the next a fifth as large; a quick one lets it grow back, at most twofold a batch and
    never past the largest; each rest is the ratio times the batch."""
    rests: list[float] = []

    async def waited(awaitable: Any, timeout: float) -> None:
        awaitable.close()
        rests.append(timeout)

    monkeypatch.setattr(asyncio, "wait_for", waited)
    pacing = Pacing(Settings(purge_batch_ms=10, purge_rest_ratio=2), sessions=500, rounds=5_000)
    stop = asyncio.Event()

    async def run() -> list[tuple[int, int]]:
        sizes = [(pacing.sessions, pacing.rounds)]
        for took in (0.001, 0.001, 0.001, 0.050, 0.010, 0.002, 0.001, 0.001):
            await pacing.rest(took, stop)
            sizes.append((pacing.sessions, pacing.rounds))
        return sizes

    assert asyncio.run(run()) == [
        (50, 500),
        (100, 1_000),
        (200, 2_000),
        (400, 4_000),
        (80, 800),
        (80, 800),
        (160, 1_600),
        (320, 3_200),
        (500, 5_000),
    ]
    assert rests == pytest.approx([0.002, 0.002, 0.002, 0.1, 0.02, 0.004, 0.002, 0.002])


def test_a_batch_that_wrote_more_log_than_its_bound_rests_for_the_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At 8 MB of WAL a second, a 10 ms batch that wrote 4 MB rests 0.49 s (4 MB in 0.5 s
    with the batch), one that wrote 100 kB rests the ratio's 20 ms (longer than the log's
    2.5 ms), and with no bound the log does not count. The batch's size follows its time
    alone."""
    rests: list[float] = []

    async def waited(awaitable: Any, timeout: float) -> None:
        awaitable.close()
        rests.append(timeout)

    monkeypatch.setattr(asyncio, "wait_for", waited)
    bounded = Pacing(
        Settings(purge_batch_ms=10, purge_rest_ratio=2, purge_wal_mb_per_s=8),
        sessions=500,
        rounds=5_000,
    )
    unbounded = Pacing(
        Settings(purge_batch_ms=10, purge_rest_ratio=2, purge_wal_mb_per_s=0),
        sessions=500,
        rounds=5_000,
    )
    stop = asyncio.Event()

    async def run() -> list[tuple[int, int]]:
        await bounded.rest(0.010, stop, 4_000_000)
        await bounded.rest(0.010, stop, 100_000)
        await unbounded.rest(0.010, stop, 4_000_000)
        return [(bounded.sessions, bounded.rounds), (unbounded.sessions, unbounded.rounds)]

    # Each took its 10 ms target: the first batch's size, a tenth of the largest, whatever it wrote.
    assert asyncio.run(run()) == [(50, 500), (50, 500)]
    assert rests == pytest.approx([0.49, 0.02, 0.02])


def test_each_batch_hands_its_pace_the_log_it_wrote(
    database_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pass over 120 expired sessions of 3 rounds, in batches of 50 (each rest waiting for
    the checkpointer too): on PostgreSQL each
    batch's rest hears at least 24 bytes of WAL (a record's header) for every row it deleted,
    its session and its rounds; on SQLite, whose commits do not wait for their log to reach
    the disk, none. Every expired session and round is gone."""
    heard: list[int] = []

    async def rest(_pacing: Pacing, _took: float, _stop: asyncio.Event, written: int = 0) -> None:
        heard.append(written)

    monkeypatch.setattr(Pacing, "rest", rest)
    checkpointed = 0
    original = Store.checkpointed

    async def counted(store: Store) -> None:
        nonlocal checkpointed
        checkpointed += 1
        await original(store)

    monkeypatch.setattr(Store, "checkpointed", counted)
    old = datetime.now(UTC) - timedelta(days=FINISHED_DAYS + 2)
    expired = session_rows("w", 120, status="finished", updated_at=old)
    for row in expired:
        row["rounds_played"] = 3
    kept = session_rows("k", 2, status="active", updated_at=datetime.now(UTC))
    with engine.begin() as connection:
        connection.execute(insert(sessions), expired + kept)
        connection.execute(insert(rounds), round_rows(expired))

    async def run() -> int:
        store = Store(database_url)
        try:
            return await purge_once(
                store,
                Settings(
                    database_url=database_url,
                    retention_finished_days=FINISHED_DAYS,
                    retention_abandoned_days=ABANDONED_DAYS,
                    purge_batch_ms=0,
                    purge_wal_mb_per_s=8,
                ),
                asyncio.Event(),
                batch=50,
                round_budget=10_000,
            )
        finally:
            await store.close()

    assert asyncio.run(run()) == 120
    # Batches of 50, 50 and 20 sessions, each with three rounds a session; each rest also
    # waits for SQLite's checkpointer (at once on PostgreSQL, or with none running).
    assert len(heard) == 3
    assert checkpointed == 3
    if engine.dialect.name == "postgresql":
        assert heard[0] >= 24 * 50 * 4
        assert heard[1] >= 24 * 50 * 4
        assert heard[2] >= 24 * 20 * 4
    else:
        assert heard == [0, 0, 0]
    assert present(engine) == {"k000000", "k000001"}
    with engine.connect() as connection:
        left = select(func.count()).select_from(rounds).where(rounds.c.session_id.like("w%"))
        assert connection.execute(left).scalar() == 0
