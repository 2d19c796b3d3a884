"""How long migration 0011 (rounds keyed by (session_id, number), 64-bit ids) holds its locks
on PostgreSQL with many rounds stored.

    python bench/migrate_ids.py [--rounds 10000000]

A database migrated to 0010 is filled with `--rounds` rounds (10 a session), each a copy of a
round played through the API (one arm wrestle on a database at head: its inputs, dice and
outcome as the service stores them), then: the upgrade as it runs by itself (it builds the new
key's index under its lock); back down (the downgrade numbers every round again); the index
built beforehand with `CREATE UNIQUE INDEX CONCURRENTLY` (writes go on meanwhile), then the
upgrade taking it over. Prints each step's time: the upgrade's and downgrade's are the time
the table is locked (ACCESS EXCLUSIVE: no read or write of rounds meanwhile).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import httpx
from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import drop_postgres, postgres_database  # noqa: E402
from bench.sweep import ARM_WRESTLE, serving  # noqa: E402


def alembic(url: str, *args: str) -> float:
    """Run an alembic command in this process; its seconds (the interpreter's start and
    alembic's imports not counted: on a loaded machine they are seconds of their own)."""
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["database_url"] = url
    config.attributes["skip_logging"] = True
    action, revision = args
    started = time.perf_counter()
    getattr(command, action)(config, revision)
    return time.perf_counter() - started


def played_rounds(url: str) -> list[tuple[str, str, str]]:
    """(inputs, dice, outcome) of ten rounds played through the API, as JSON text."""
    alembic(url, "upgrade", "head")
    with serving(ROOT, url) as (base, _pid), httpx.Client(base_url=base, timeout=30) as client:
        made = client.post("/v1/arm-wrestles", json=ARM_WRESTLE).json()
        headers = {"authorization": f"Bearer {made['tokens']['gm']}"}
        for _ in range(10):
            client.post(f"/v1/arm-wrestles/{made['id']}/rounds", json={}, headers=headers)
    engine = create_engine(url)
    with engine.connect() as connection:
        found = connection.execute(
            text("SELECT inputs::text, dice::text, outcome::text FROM rounds ORDER BY number")
        ).all()
    engine.dispose()
    return [(inputs, dice, outcome) for inputs, dice, outcome in found]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10_000_000)
    count = parser.parse_args().rounds
    template = postgres_database()
    target = postgres_database()
    if template is None or target is None:
        return
    try:
        rows = played_rounds(template[1])
        url = target[1]
        alembic(url, "upgrade", "0010")
        engine = create_engine(url)
        started = time.perf_counter()
        sessions = count // 10
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO sessions (id, kind, status, version, rounds_played, config,"
                    " state, gm_token_hash, party_token_hashes, created_at, updated_at,"
                    " touched_hour) SELECT lpad(g::text, 32, '0'), 'arm-wrestles', 'active', 11,"
                    " 10, '{}', '{}', repeat('0', 64), '{}', now(), now(), 0"
                    " FROM generate_series(1, :sessions) g"
                ),
                {"sessions": sessions},
            )
            for number, (inputs, dice, outcome) in enumerate(rows, start=1):
                connection.execute(
                    text(
                        "INSERT INTO rounds (session_id, number, inputs, dice, outcome,"
                        " created_at) SELECT lpad(g::text, 32, '0'), :number, CAST(:inputs AS"
                        " jsonb), CAST(:dice AS jsonb), CAST(:outcome AS jsonb), now()"
                        " FROM generate_series(1, :sessions) g"
                    ),
                    {
                        "number": number,
                        "inputs": inputs,
                        "dice": dice,
                        "outcome": outcome,
                        "sessions": sessions,
                    },
                )
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE rounds"))
            size = connection.execute(
                text("SELECT pg_size_pretty(pg_total_relation_size('rounds'))")
            ).scalar_one()
        took = time.perf_counter() - started
        print(f"{sessions * 10:,} rounds ({size} with indexes) filled in {took:.0f} s")
        started = time.perf_counter()
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(
                text(
                    "CREATE UNIQUE INDEX CONCURRENTLY ix_rounds_new_key"
                    " ON rounds (session_id, number)"
                )
            )
        took = time.perf_counter() - started
        print(f"CREATE UNIQUE INDEX CONCURRENTLY beforehand (writes go on): {took:.1f} s")
        took = alembic(url, "upgrade", "0011")
        print(f"upgrade 0010 -> 0011 taking that index over: {took:.2f} s")
        took = alembic(url, "downgrade", "0010")
        print(f"downgrade 0011 -> 0010 (every round numbered again): {took:.1f} s")
        took = alembic(url, "upgrade", "0011")
        print(f"upgrade 0010 -> 0011, building the key under its lock: {took:.1f} s")
        engine.dispose()
    finally:
        drop_postgres(template[0])
        drop_postgres(target[0])


if __name__ == "__main__":
    main()
