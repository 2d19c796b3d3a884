"""The retention sweep's read of one batch, explained, with 100,000 and 1,000,000 expired
sessions stored, on SQLite and PostgreSQL.

    python bench/sweep_plan.py [--expired 100000,1000000]

A fresh database at head, `--expired` finished sessions 40 days old (the columns the read
touches; no rounds, which it does not read), then the batch read (app/store/repository.py,
`_expired_page`, as the app compiles it) at the start of the walk and with its cursor nine
tenths of the way along: its plan, and on PostgreSQL `EXPLAIN (ANALYZE, BUFFERS)` (the rows
and pages it read: the same at either point, whatever the backlog).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.store.database import upgrade_to_head  # noqa: E402
from app.store.repository import _expired_page, touched_hour  # noqa: E402
from bench.run import drop_postgres, postgres_database  # noqa: E402

LIMIT = 500


def explain(url: str, count: int) -> None:
    engine = create_engine(url)
    postgres = engine.dialect.name == "postgresql"
    upgrade_to_head(url)
    old = datetime.now(UTC) - timedelta(days=40)
    started = time.perf_counter()
    with engine.begin() as connection:
        for first in range(0, count, 50_000):
            rows = []
            for number in range(first, min(count, first + 50_000)):
                moment = old - timedelta(seconds=number)
                stamp = moment if postgres else moment.replace(tzinfo=None).isoformat(" ")
                rows.append((f"s{number:031d}", stamp, touched_hour(moment)))
            connection.exec_driver_sql(
                "INSERT INTO sessions (id, kind, status, version, rounds_played, config, state,"
                " gm_token_hash, party_token_hashes, created_at, updated_at, touched_hour)"
                " VALUES (%s, 'arm-wrestles', 'finished', 11, 10, '{}', '{}', '', '{}', %s, %s, %s)"
                if postgres
                else "INSERT INTO sessions (id, kind, status, version, rounds_played, config,"
                " state, gm_token_hash, party_token_hashes, created_at, updated_at, touched_hour)"
                " VALUES (?, 'arm-wrestles', 'finished', 11, 10, '{}', '{}', '', '{}', ?, ?, ?)",
                [(a, b, b, c) for a, b, c in rows],
            )
    if postgres:
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE sessions")
    took = time.perf_counter() - started
    print(f"\n{engine.dialect.name}, {count:,} expired sessions (filled in {took:.0f} s)")
    query: Any = _expired_page(lock=postgres)().compile(dialect=engine.dialect)  # type: ignore[attr-defined]
    cutoff = touched_hour(datetime.now(UTC) - timedelta(days=30))
    along = old - timedelta(seconds=count // 10)
    for label, after_hour, after_id in (
        ("start of the walk", -1, ""),
        ("cursor 9/10 along", touched_hour(along), f"s{count // 10:031d}"),
    ):
        params = {
            "status": "finished",
            "after_hour": after_hour,
            "after_id": after_id,
            "hour": cutoff,
            "limit": LIMIT,
        }
        with engine.begin() as connection:
            if postgres:
                found: list[Any] = list(
                    connection.exec_driver_sql(
                        f"EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) {query.string}",
                        {name: params[name] for name in query.params},
                    ).all()
                )
            else:
                ordered = tuple(params[name] for name in query.positiontup)
                found = list(
                    connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {query.string}", ordered).all()
                )
                started = time.perf_counter()
                connection.exec_driver_sql(query.string, ordered).all()
                found.append(
                    (f"read {LIMIT} rows in {(time.perf_counter() - started) * 1000:.2f} ms",)
                )
        print(f"  {label}:")
        for row in found:
            print(f"    {row[-1]}")
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--expired", default="100000,1000000")
    for count in (int(each) for each in parser.parse_args().expired.split(",")):
        folder = Path(tempfile.mkdtemp(prefix="arbiter-plan-"))
        explain(f"sqlite:///{folder / 'arbiter.db'}", count)
        made = postgres_database()
        if made is not None:
            try:
                explain(made[1], count)
            finally:
                drop_postgres(made[0])


if __name__ == "__main__":
    main()
