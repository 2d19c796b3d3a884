"""The capacity model's figures at 0, 100 k and 1 M stored sessions, on SQLite and PostgreSQL.

    make bench-scale                      # 0 and 100,000 sessions, both databases
    .venv/bin/python bench/scale.py [--volumes 0,100000,1000000] [--seconds 10] [--no-sqlite]
                                    [--no-postgres]

For each database and each volume: a fresh database migrated to head; an Arbiter server
(one uvicorn worker); one arm wrestle played 10 rounds through the API, whose rows every
filled session copies (`--volumes` finished sessions of 10 rounds each, written by SQL, in
chunks of 100,000 sessions, then ANALYZE); then the server started again on the filled
database, and, each for `--seconds` with 32 connections, closed loop:

* rounds of 200 live arm wrestles: rounds/s, p50/p99, and rounds per CPU second of the app
  process and of the database's PostgreSQL backends (/proc: their user and system time);
* sessions created (`POST /v1/arm-wrestles`): creations/s, p50/p99, per app CPU second;
* reads of stored sessions picked at random among the filled ones (half `GET …/{id}`, half
  `GET …/{id}/rounds`): reads/s, p50/p99, per app CPU second;
* the app process's resident memory after them;

and the bytes a session and a round take (table, indexes and TOAST on PostgreSQL; SQLite's
pages from `dbstat`), from the filled tables' sizes over their rows.

PostgreSQL: the server of `ARBITER_BENCH_POSTGRES_URL` (default the local one at 127.0.0.1:5432),
in a database of the bench's own, dropped at the end; the CPU counted is that of the backends
serving that database (the server's WAL writer and checkpointer, shared with whatever else
runs on it, are not). SQLite: a file in a temporary directory.

Run time on a 2-core machine: about 5 minutes for 0 and 100 k on both databases; 1 M adds
about 8 minutes (its fills: 3 minutes on PostgreSQL, 13 GB, and 2 on SQLite, 9 GB).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import drop_postgres, percentile, postgres_database  # noqa: E402
from bench.sweep import ARM_WRESTLE, migrate, serving  # noqa: E402

LIVE = ARM_WRESTLE
LIVE_SESSIONS = 200
TEMPLATE_ROUNDS = 10
CONNECTIONS = 32
#: The filled sessions' ids: this prefix, then 27 digits (32 characters, as a session's id).
FILLED = "scale"
CHUNK = 100_000
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User and system time of these processes so far (those gone count nothing)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLOCK_TICKS


def raw(method: str, path: str, token: str | None, body: bytes = b"") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    if method == "POST":
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


@dataclass
class Load:
    done: int
    #: Answers not 2xx, by status (a round of a match just won is a 409; a 503 is refused).
    failed: Counter[int]
    seconds: float
    latencies: list[float]
    app_cpu: float
    db_cpu: float

    def line(self, what: str) -> str:
        rate = self.done / self.seconds
        parts = [
            f"{what}: {rate:,.0f}/s",
            f"p50 {percentile(self.latencies, 0.5):.1f} ms",
            f"p99 {percentile(self.latencies, 0.99):.1f} ms",
            f"{self.done / self.app_cpu:,.0f} per app CPU s" if self.app_cpu else "",
            f"{self.done / self.db_cpu:,.0f} per PostgreSQL CPU s" if self.db_cpu else "",
            "not 2xx: " + ", ".join(f"{n} x {status}" for status, n in sorted(self.failed.items()))
            if self.failed
            else "",
        ]
        return ", ".join(part for part in parts if part)


async def closed_loop(
    port: int, requests: list[bytes], seconds: float
) -> tuple[int, Counter[int], list[float]]:
    """Each of `CONNECTIONS` sends the next of `requests` once its last is answered."""
    latencies: list[float] = []
    refused: Counter[int] = Counter()
    stop = time.perf_counter() + seconds
    turn = 0

    async def connection() -> None:
        nonlocal turn
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while time.perf_counter() < stop:
                request = requests[turn % len(requests)]
                turn += 1
                started = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head.split(b" ", 2)[1])
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
                latencies.append((time.perf_counter() - started) * 1000)
                if not 200 <= status < 300:
                    refused[status] += 1
        finally:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(CONNECTIONS)))
    return len(latencies) - refused.total(), refused, latencies


def backends(engine: Engine) -> list[int]:
    """The PostgreSQL backends serving this database now, but this one."""
    if engine.dialect.name != "postgresql":
        return []
    with engine.connect() as connection:
        return [
            row[0]
            for row in connection.execute(
                text(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                    " AND pid <> pg_backend_pid()"
                )
            )
        ]


def measure(base: str, engine: Engine, app_pid: int, requests: list[bytes], seconds: float) -> Load:
    port = int(base.rsplit(":", 1)[1])
    asyncio.run(closed_loop(port, requests[:CONNECTIONS], min(2.0, seconds)))  # warm up
    pids = backends(engine)
    app_before, db_before = cpu_seconds([app_pid]), cpu_seconds(pids)
    started = time.perf_counter()
    done, failed, latencies = asyncio.run(closed_loop(port, requests, seconds))
    elapsed = time.perf_counter() - started
    return Load(
        done,
        failed,
        elapsed,
        latencies,
        cpu_seconds([app_pid]) - app_before,
        cpu_seconds(pids) - db_before,
    )


def play_template(base: str) -> tuple[str, str]:
    with httpx.Client(base_url=base, timeout=30) as client:
        made = client.post("/v1/arm-wrestles", json=LIVE).json()
        headers = {"authorization": f"Bearer {made['tokens']['gm']}"}
        for _ in range(TEMPLATE_ROUNDS):
            played = client.post(f"/v1/arm-wrestles/{made['id']}/rounds", json={}, headers=headers)
            assert played.status_code == 200, played.text
    return made["id"], made["tokens"]["gm"]


def fill(engine: Engine, template: str, count: int) -> float:
    """`count` finished sessions of a minute ago, each a copy of the template's row and its
    rounds, in chunks of `CHUNK`; the seconds it took."""
    started = time.perf_counter()
    postgres = engine.dialect.name == "postgresql"
    moment = datetime.now(UTC) - timedelta(minutes=1)
    stamp = moment if postgres else moment.replace(tzinfo=None).isoformat(" ", "microseconds")
    with engine.connect() as connection:
        columns = [
            row[0]
            for row in connection.execute(
                text(
                    "SELECT column_name FROM information_schema.columns"
                    " WHERE table_name = 'sessions' ORDER BY ordinal_position"
                )
                if postgres
                else text("SELECT name FROM pragma_table_info('sessions')")
            )
        ]
    copied = ", ".join(
        c for c in columns if c not in ("id", "status", "updated_at", "touched_hour")
    )
    numbers = (
        "generate_series(CAST(:first AS integer), CAST(:last AS integer)) AS g(n)"
        if postgres
        else "(WITH RECURSIVE g(n) AS (SELECT :first UNION ALL SELECT n + 1 FROM g WHERE n < :last)"
        " SELECT n FROM g) AS g"
    )
    name = "'scale' || lpad(g.n::text, 27, '0')" if postgres else "'scale' || printf('%027d', g.n)"
    for first in range(0, count, CHUNK):
        last = min(count, first + CHUNK) - 1
        bounds = {"first": first, "last": last}
        with engine.begin() as connection:
            connection.execute(
                text(
                    f"INSERT INTO sessions (id, status, updated_at, touched_hour, {copied})"
                    f" SELECT {name}, 'finished', :stamp, :hour, {copied}"
                    f" FROM sessions t, {numbers} WHERE t.id = :template"
                ),
                {
                    **bounds,
                    "stamp": stamp,
                    "hour": int(moment.timestamp()) // 3600,
                    "template": template,
                },
            )
            connection.execute(
                text(
                    "INSERT INTO rounds (session_id, number, inputs, dice, outcome, created_at,"
                    " link) SELECT s.id, r.number, r.inputs, r.dice, r.outcome, s.updated_at,"
                    " r.link FROM sessions s JOIN rounds r ON r.session_id = :template"
                    " WHERE s.id >= :low AND s.id <= :high"
                ),
                {
                    "template": template,
                    "low": f"{FILLED}{first:027d}",
                    "high": f"{FILLED}{last:027d}",
                },
            )
        print(
            f"    filled {last + 1:,} sessions ({time.perf_counter() - started:.0f} s)", flush=True
        )
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("VACUUM ANALYZE" if postgres else "ANALYZE"))
    return time.perf_counter() - started


def sizes(engine: Engine) -> tuple[int, int, int, int]:
    """Bytes of `sessions` and of `rounds` (with their indexes), and their rows."""
    with engine.connect() as connection:
        count = {
            table: connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in ("sessions", "rounds")
        }
        if engine.dialect.name == "postgresql":
            size = {
                table: connection.execute(
                    text("SELECT pg_total_relation_size(:table)"), {"table": table}
                ).scalar_one()
                for table in ("sessions", "rounds")
            }
        else:
            size = {
                table: connection.execute(
                    text(
                        "SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM"
                        " sqlite_master WHERE tbl_name = :table)"
                    ),
                    {"table": table},
                ).scalar_one()
                for table in ("sessions", "rounds")
            }
    return size["sessions"], count["sessions"], size["rounds"], count["rounds"]


def one_volume(url: str, volume: int, seconds: float) -> None:
    engine = create_engine(url)
    migrate(ROOT, url)
    with serving(ROOT, url) as (base, _pid):
        template, token = play_template(base)
    filled = fill(engine, template, volume) if volume else 0.0
    session_bytes, session_rows, round_bytes, round_rows = sizes(engine)
    print(
        f"  {volume:,} sessions filled in {filled:.0f} s; stored: {session_rows:,} sessions, "
        f"{round_rows:,} rounds; {session_bytes / max(session_rows, 1):,.0f} bytes a session, "
        f"{round_bytes / max(round_rows, 1):,.0f} bytes a round "
        f"({(session_bytes + round_bytes) / 2**20:,.0f} MB)",
        flush=True,
    )
    with serving(ROOT, url) as (base, pid):
        with httpx.Client(base_url=base, timeout=30) as client:
            live = [client.post("/v1/arm-wrestles", json=LIVE).json() for _ in range(LIVE_SESSIONS)]
        rounds = [
            raw("POST", f"/v1/arm-wrestles/{made['id']}/rounds", made["tokens"]["gm"], b"{}")
            for made in live
        ]
        print("  " + measure(base, engine, pid, rounds, seconds).line("rounds"), flush=True)
        body = httpx.Request("POST", "/", json=LIVE).content
        creations = [raw("POST", "/v1/arm-wrestles", None, body)]
        print("  " + measure(base, engine, pid, creations, seconds).line("creations"), flush=True)
        picked = random.Random(44)
        ids = (
            [f"{FILLED}{picked.randrange(volume):027d}" for _ in range(5000)]
            if volume
            else [template]
        )
        reads = [
            raw("GET", f"/v1/arm-wrestles/{each}{suffix}", token)
            for each in ids
            for suffix in ("", "/rounds")
        ]
        print("  " + measure(base, engine, pid, reads, seconds).line("reads"), flush=True)
        print(f"  the app process's resident memory after: {resident_mb(pid):.0f} MB", flush=True)
    engine.dispose()


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--volumes", default="0,100000")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("--no-postgres", action="store_true")
    arguments = parser.parse_args()
    volumes = [int(each) for each in arguments.volumes.split(",")]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    for volume in volumes:
        if not arguments.no_sqlite:
            print(f"SQLite, {volume:,} stored sessions", flush=True)
            with tempfile.TemporaryDirectory() as directory:
                one_volume(f"sqlite:///{directory}/scale.db", volume, arguments.seconds)
        if not arguments.no_postgres:
            made = postgres_database()
            if made is None:
                continue
            name, url = made
            print(f"PostgreSQL, {volume:,} stored sessions", flush=True)
            try:
                one_volume(url, volume, arguments.seconds)
            finally:
                drop_postgres(name)
        print(f"load average {os.getloadavg()[0]:.1f} now", flush=True)


if __name__ == "__main__":
    main()
