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
        return connection.execute("SELECT n FROM probe").fetchall()
    except sqlite3.OperationalError:
        return None  # no such table in the file yet
    finally:
        connection.close()
