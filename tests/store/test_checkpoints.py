"""SQLite's WAL is checkpointed off the request path: by the store's checkpointer thread, and
once more when the store closes; a commit never checkpoints until the backstop."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path

import pytest

from app.store import database
from app.store.database import Store, Transaction, upgrade_to_head


def test_the_wal_reaches_the_database_file_when_the_store_closes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Interval longer than the test: the checkpoint seen is the one at close.
    monkeypatch.setattr(database, "CHECKPOINT_INTERVAL_S", 3600.0)
    path = tmp_path / "arbiter.db"
    upgrade_to_head(f"sqlite:///{path}")
    store = Store(f"sqlite:///{path}")

    async def write_and_close() -> None:
        await store.open()

        async def write(connection: Transaction) -> None:
            await connection.execute("CREATE TABLE probe (n INTEGER)", ())
            await connection.execute("INSERT INTO probe VALUES (?)", (42,))

        await store.run("write", write)
        # Before the checkpoint: the database file alone does not have the row yet.
        assert _rows_in_file_alone(path, tmp_path / "before.db") is None
        await store.close()

    asyncio.run(write_and_close())
    assert store.checkpoints == 1
    assert _rows_in_file_alone(path, tmp_path / "after.db") == [(42,)]


def _rows_in_file_alone(path: Path, copy: Path) -> list[tuple[int]] | None:
    """The probe table's rows as the database file has them, without its WAL."""
    shutil.copyfile(path, copy)
    connection = sqlite3.connect(copy)
    try:
        return connection.execute("SELECT n FROM probe ORDER BY n").fetchall()
    except sqlite3.OperationalError:
        return None  # no such table in the file yet
    finally:
        connection.close()


def test_a_long_log_all_copied_starts_again_and_a_waiter_hears_of_the_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`checkpointed` has the checkpointer's pass run now and returns when it has: the log's
    pages are then in the database file, and a log longer than `WAL_RESTART_PAGES`, all
    copied, starts again from its beginning at the next write (under a steady flow of writes
    it otherwise grew to the backstop, where commits checkpoint on the event loop). A shorter
    log is only copied."""
    monkeypatch.setattr(database, "CHECKPOINT_INTERVAL_S", 3600.0)  # only the passes asked for
    monkeypatch.setattr(database, "WAL_RESTART_PAGES", 40)
    path = tmp_path / "arbiter.db"
    upgrade_to_head(f"sqlite:///{path}")
    store = Store(f"sqlite:///{path}")

    async def insert(rows: int, first: int) -> None:
        async def write(connection: Transaction) -> None:
            for number in range(first, first + rows):
                # About a page each: a row of 3 KB.
                await connection.execute("INSERT INTO probe VALUES (?, ?)", (number, "x" * 3000))

        await store.run("write", write)

    async def scenario() -> tuple[int, int, int, int]:
        await store.open()
        try:
            await store.run(
                "write",
                lambda connection: connection.execute(
                    "CREATE TABLE probe (n INTEGER, filler TEXT)", ()
                ),
            )
            await insert(10, 0)  # a short log: copied, not started again
            await store.checkpointed()
            short = (store.checkpoints, store.wal_restarts)
            assert _rows_in_file_alone(path, tmp_path / "short.db") == [(n,) for n in range(10)]
            await insert(60, 10)  # past 40 pages
            await store.checkpointed()
            assert _rows_in_file_alone(path, tmp_path / "long.db") == [(n,) for n in range(70)]
            await insert(1, 70)  # the next write starts the log again
            return (*short, store.wal_restarts, _log_pages(path))
        finally:
            await store.close()

    checkpoints, restarts_short, restarts_long, pages_after = asyncio.run(scenario())
    assert (checkpoints, restarts_short, restarts_long) == (1, 0, 1)
    # One row's pages and the table's, not the 70 rows' before it.
    assert pages_after < 10


def _log_pages(path: Path) -> int:
    """The frames SQLite's write-ahead log of `path` holds now."""
    connection = sqlite3.connect(path)
    try:
        _busy, logged, _copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(logged)
    finally:
        connection.close()


def test_a_waiter_whose_loop_closed_does_not_stop_the_checkpointer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A wait given up with its event loop closed (a process shutting down, a test's loop)
    is passed over: the checkpointer goes on and answers the next waiter."""
    monkeypatch.setattr(database, "CHECKPOINT_INTERVAL_S", 3600.0)
    path = tmp_path / "arbiter.db"
    upgrade_to_head(f"sqlite:///{path}")
    store = Store(f"sqlite:///{path}")
    gone = asyncio.new_event_loop()
    abandoned: asyncio.Future[None] = gone.create_future()
    gone.close()

    async def scenario() -> int:
        await store.open()
        try:
            store._checkpoint_waiting.append((gone, abandoned))
            await store.checkpointed()  # the pass that meets the closed loop
            await store.checkpointed()  # and the next one still comes
            assert store._checkpointer is not None
            assert store._checkpointer.is_alive()
            return store.checkpoints
        finally:
            await store.close()

    assert asyncio.run(scenario()) == 2
    assert not abandoned.done()
