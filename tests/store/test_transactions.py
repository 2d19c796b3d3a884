"""`Store.run`'s modes and the repository's statements, on SQLite and PostgreSQL, without HTTP.

The optimistic mode (PostgreSQL) runs its work outside a transaction, where only one statement
is atomic: the work may read as often as it likes and write once; a second write is a
programming error and raises, instead of silently committing half a change. Each attempt after
a `StaleWrite` may write once again. On SQLite the mode is a write transaction.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime, timedelta
from typing import Any, TypeVar

import pytest
from sqlalchemy import Engine, func, select

from app.store import repository
from app.store.database import StaleWrite, Store, Transaction, null_pool_engine
from app.store.repository import SessionRecord, rounds, sessions

T = TypeVar("T")


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """Direct access to the test database, to check what the store really wrote."""
    direct = null_pool_engine(database_url)
    yield direct
    direct.dispose()


def on_store(database_url: str, use: Callable[[Store], Awaitable[T]]) -> T:
    """Run `use` with a store on the test database, closing it afterwards."""

    async def main() -> T:
        store = Store(database_url)
        try:
            return await use(store)
        finally:
            await store.close()

    return asyncio.run(main())


def new_session() -> SessionRecord:
    stamp = repository.now()
    return SessionRecord(
        id=uuid.uuid4().hex,
        kind="arm-wrestles",
        status="active",
        version=1,
        rounds_played=0,
        config={"target": 3},
        state={"lead": 0},
        result=None,
        seed=None,
        gm_token_hash="0" * 64,
        party_token_hashes={},
        created_at=stamp,
        updated_at=stamp,
    )


def played(*numbers: int) -> list[dict[str, Any]]:
    return [
        {"number": number, "inputs": {"n": number}, "dice": [{"die": number}], "outcome": {}}
        for number in numbers
    ]


def session_row(engine: Engine, session_id: str) -> dict[str, Any] | None:
    with engine.connect() as connection:
        row = connection.execute(select(sessions).where(sessions.c.id == session_id)).first()
    return None if row is None else dict(row._mapping)


def round_numbers(engine: Engine, session_id: str) -> list[int]:
    with engine.connect() as connection:
        found = connection.execute(
            select(rounds.c.number)
            .where(rounds.c.session_id == session_id)
            .order_by(rounds.c.number)
        )
        return list(found.scalars())


def insert(database_url: str, record: SessionRecord) -> None:
    async def use(store: Store) -> None:
        await store.run("write", lambda tx: repository.insert_session(tx, record))

    on_store(database_url, use)


def test_optimistic_work_may_read_often_and_write_once(database_url: str, engine: Engine) -> None:
    record = new_session()
    insert(database_url, record)

    async def work(tx: Transaction) -> SessionRecord:
        for _ in range(3):
            read = await repository.get_session(tx, record.id, record.kind, lock=False)
            assert read == record
        return await repository.update_session(
            tx,
            record,
            status="active",
            state={"lead": 1},
            result=None,
            updated_at=repository.now(),
            rounds=played(1, 2),
        )

    updated = on_store(database_url, lambda store: store.run("optimistic", work))
    assert updated.version == 2
    assert updated.rounds_played == 2
    row = session_row(engine, record.id)
    assert row is not None
    assert (row["version"], row["rounds_played"], row["state"]) == (2, 2, {"lead": 1})
    assert round_numbers(engine, record.id) == [1, 2]


def test_a_second_write_in_optimistic_mode_is_refused(database_url: str, engine: Engine) -> None:
    """PostgreSQL: raises at the second write. SQLite: the mode is a write transaction."""
    record = new_session()

    async def work(tx: Transaction) -> None:
        await repository.insert_session(tx, record)
        await repository.delete_session(tx, record)

    async def use(store: Store) -> bool:
        if store.is_postgres:
            with pytest.raises(RuntimeError, match="optimistic"):
                await store.run("optimistic", work)
        else:
            await store.run("optimistic", work)
        return store.is_postgres

    postgres = on_store(database_url, use)
    # Only PostgreSQL's first write went through (on its own, as the mode does), and the
    # second never ran; on SQLite both ran in one transaction.
    assert (session_row(engine, record.id) is not None) is postgres


# On SQLite optimistic work runs once, as a write transaction: no retry to count there.
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_each_optimistic_attempt_may_write_once(database_url: str, engine: Engine) -> None:
    """PostgreSQL: after a `StaleWrite` the work runs again, its one write allowed again."""
    record = new_session()
    insert(database_url, record)
    attempts: list[SessionRecord] = []

    async def work(tx: Transaction) -> SessionRecord:
        read = await repository.get_session(tx, record.id, record.kind, lock=False)
        assert read is not None
        # The first attempt writes from a stale copy, as if another writer had got in first.
        base = SessionRecord(**{**_fields(read), "version": 0}) if not attempts else read
        attempts.append(base)
        return await repository.update_session(
            tx,
            base,
            status="active",
            state={"lead": 2},
            result=None,
            updated_at=repository.now(),
            rounds=played(1),
        )

    async def use(store: Store) -> SessionRecord:
        assert store.is_postgres
        return await store.run("optimistic", work)

    updated = on_store(database_url, use)
    assert [attempt.version for attempt in attempts] == [0, 1]
    assert updated.version == 2
    assert round_numbers(engine, record.id) == [1]


def _fields(record: SessionRecord) -> dict[str, Any]:
    return {name: getattr(record, name) for name in SessionRecord.__slots__}


@pytest.mark.parametrize("number_of_rounds", [0, 1, 3])
def test_a_stale_update_writes_neither_the_session_nor_its_rounds(
    database_url: str, engine: Engine, number_of_rounds: int
) -> None:
    record = new_session()
    insert(database_url, record)
    stale = SessionRecord(**{**_fields(record), "version": 7})

    async def work(tx: Transaction) -> SessionRecord:
        return await repository.update_session(
            tx,
            stale,
            status="finished",
            state={"lead": 9},
            result={"winner": "a"},
            updated_at=repository.now(),
            rounds=played(*range(1, number_of_rounds + 1)),
        )

    async def use(store: Store) -> None:
        with pytest.raises(StaleWrite):
            await store.run("write", work)

    on_store(database_url, use)
    row = session_row(engine, record.id)
    assert row is not None
    assert (row["version"], row["status"], row["state"]) == (1, "active", {"lead": 0})
    assert round_numbers(engine, record.id) == []


def test_rounds_are_stamped_with_the_session_s_update(database_url: str, engine: Engine) -> None:
    record = new_session()
    insert(database_url, record)
    stamp = record.created_at + timedelta(seconds=5)

    async def work(tx: Transaction) -> SessionRecord:
        return await repository.update_session(
            tx,
            record,
            status="active",
            state={"lead": 1},
            result=None,
            updated_at=stamp,
            rounds=played(1, 2, 3),
        )

    on_store(database_url, lambda store: store.run("optimistic", work))

    async def read(tx: Transaction) -> tuple[SessionRecord | None, list[dict[str, Any]]]:
        found = await repository.get_session(tx, record.id, record.kind, lock=False)
        return found, await repository.list_rounds(tx, record.id)

    found, outcomes = on_store(database_url, lambda store: store.run("read", read))
    assert found is not None
    assert found.updated_at == stamp
    assert outcomes == [{}, {}, {}]
    with engine.connect() as connection:
        stamps = connection.execute(
            select(func.count()).where(
                rounds.c.session_id == record.id, rounds.c.created_at == stamp
            )
        ).scalar_one()
    assert stamps == 3


def test_fetch_refuses_a_statement_that_writes(database_url: str) -> None:
    """A write run as a read would slip past the optimistic mode's one-write check."""
    record = new_session()

    async def work(tx: Transaction) -> None:
        await repository._DELETE_SESSION.fetch(tx, {"id": record.id, "version": 1})

    async def use(store: Store) -> None:
        with pytest.raises(RuntimeError, match="execute"):
            await store.run("optimistic", work)

    on_store(database_url, use)


def test_touched_hour_follows_the_last_change_and_only_moves_with_its_hour(
    database_url: str, engine: Engine
) -> None:
    """Retention's index is on (status, touched_hour): each change keeps `touched_hour` the
    hour of `updated_at`, though a change in the same hour, of an unchanged status, does not
    write it (nor the status) at all."""
    record = new_session()
    start = record.updated_at.replace(minute=0, second=0, microsecond=0)
    moments = [
        (start + timedelta(minutes=10), "active"),  # same hour: neither written
        (start + timedelta(minutes=50), "active"),
        (start + timedelta(hours=1, minutes=5), "active"),  # the next hour: both written
        (start + timedelta(hours=1, minutes=6), "finished"),  # the status changes
        (start + timedelta(hours=30), "finished"),
    ]

    def stored() -> tuple[str, int]:
        row = session_row(engine, record.id)
        assert row is not None
        return row["status"], row["touched_hour"]

    insert(database_url, record)
    assert stored() == ("active", repository.touched_hour(record.updated_at))
    current = record
    for moment, status in moments:

        async def change(
            connection: Transaction,
            before: SessionRecord = current,
            status: str = status,
            moment: datetime = moment,
        ) -> SessionRecord:
            return await repository.update_session(
                connection, before, status=status, state={"lead": 1}, result=None, updated_at=moment
            )

        current = on_store(database_url, lambda store: store.run("write", change))
        assert stored() == (status, repository.touched_hour(moment))
        assert repository.touched_hour(moment) == int(moment.timestamp()) // 3600
