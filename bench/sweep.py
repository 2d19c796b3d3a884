"""Rounds beside a retention sweep of 100,000 expired sessions, on SQLite and PostgreSQL.

    python bench/sweep.py [--expired 100000] [--rates 300,500] [--source DIR] [--no-postgres]
                          [--no-sqlite] [--watch DIR]

For each database and each rate: a fresh database migrated by the served source's own
migrations; an Arbiter server (one uvicorn worker) on which 500 arm wrestles are made and
one more is played 10 rounds through the API (the rows every filled session copies); rounds
posted at the rate, open loop (each round's latency counts from when it was due, so a stall
counts for every round it held up), for 15 s with nothing to sweep, on the server started
again (as it is for the sweep: a process just started is slower at first); then the server stopped,
`--expired` finished sessions 40 days old with 10 rounds each (copies of the played one)
written straight into the database, the server started again (its lifespan starts the sweep
at once) and rounds posted at the rate until no expired session is left. Prints the rounds'
p50, p99 and max with no sweep and during the sweep, the sweep's duration and how many rounds
failed (none is the requirement).

`--watch DIR` (PostgreSQL): what the backends wait on in each phase (bench/pgwatch.py),
summed up after the run's line, the raw samples and latencies written to DIR.

`--source DIR` serves another tree of the project (e.g. an older commit, `git archive` into a
directory): the same run, before and after a change.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pgwatch import Watch  # noqa: E402
from bench.run import drop_postgres, percentile, postgres_database, served  # noqa: E402

ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "target": 100,
    "max_rounds": 10_000,
}
#: A live session's round: equal dice supplied, so that the difference of success never moves
#: and no match ends under the bench (with the server's dice some reached the target, and
#: their rounds were 409s, not the sweep's doing).
ROUND = b'{"rolls":{"Lydia":{"strength":10},"Ogre":{"strength":10}}}'
LIVE_SESSIONS = 500
TEMPLATE_ROUNDS = 10
QUIET_SECONDS = 15
CONNECTIONS = 64
#: The filled sessions' ids: this prefix, then a number.
FILLED = "sweep"


def serving(source: Path, url: str) -> AbstractContextManager[tuple[str, int]]:
    """Arbiter served from the source tree `source` on the database at `url` (one uvicorn
    worker, with uvicorn's own httptools protocol): its base URL and its process's id."""
    return served(
        "app.main:create_app",
        {"DATABASE_URL": url, "ARBITER_DICE_KEY": "bench-" * 8},
        factory=True,
        root=source,
        guarded=False,
        patience=180,
    )


def migrate(source: Path, url: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "alembic", "upgrade", "head"],
        cwd=source,
        env={**os.environ, "DATABASE_URL": url},
        check=True,
        capture_output=True,
    )


def make_sessions(base: str) -> tuple[list[bytes], str]:
    """The live sessions' round requests, formatted; and the played template's id."""
    requests = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for _ in range(LIVE_SESSIONS):
            made = client.post("/v1/arm-wrestles", json=ARM_WRESTLE).json()
            requests.append(
                (
                    f"POST /v1/arm-wrestles/{made['id']}/rounds HTTP/1.1\r\n"
                    "Host: bench\r\nContent-Type: application/json\r\n"
                    f"Authorization: Bearer {made['tokens']['gm']}\r\n"
                    f"Content-Length: {len(ROUND)}\r\n\r\n"
                ).encode()
                + ROUND
            )
        template = client.post("/v1/arm-wrestles", json=ARM_WRESTLE).json()
        headers = {"authorization": f"Bearer {template['tokens']['gm']}"}
        for _ in range(TEMPLATE_ROUNDS):
            played = client.post(
                f"/v1/arm-wrestles/{template['id']}/rounds", json={}, headers=headers
            )
            assert played.status_code == 200, played.text
    return requests, template["id"]


def fill(engine: Engine, template: str, count: int) -> float:
    """`count` finished sessions 40 days old, each with the template's rows and rounds;
    the seconds it took."""
    started = time.perf_counter()
    postgres = engine.dialect.name == "postgresql"
    old = datetime.now(UTC) - timedelta(days=40)
    with engine.begin() as connection:
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
        copied = [c for c in columns if c not in ("id", "status", "updated_at", "touched_hour")]
        for first in range(0, count, 10_000):
            rows = []
            for number in range(first, min(count, first + 10_000)):
                moment = old - timedelta(seconds=number)
                rows.append(
                    {
                        "id": f"{FILLED}{number:027d}",
                        "updated_at": moment
                        if postgres
                        else moment.replace(tzinfo=None).isoformat(" ", "microseconds"),
                        "hour": int(moment.timestamp()) // 3600,
                    }
                )
            listed = ", ".join(copied)
            connection.execute(
                text(
                    f"INSERT INTO sessions (id, status, updated_at, touched_hour, {listed})"
                    f" SELECT :id, 'finished', :updated_at, :hour, {listed}"
                    " FROM sessions WHERE id = :template"
                ),
                [{**row, "template": template} for row in rows],
            )
        connection.execute(
            text(
                "INSERT INTO rounds (session_id, number, inputs, dice, outcome, created_at, link)"
                " SELECT s.id, r.number, r.inputs, r.dice, r.outcome, s.updated_at, r.link"
                " FROM sessions s JOIN rounds r ON r.session_id = :template"
                " WHERE s.id LIKE :filled"
            ),
            {"template": template, "filled": f"{FILLED}%"},
        )
    if postgres:
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
            # As a deployment's 40-day-old rows are: written out and checkpointed, so that the
            # sweep's first change to each page is written whole into the log (full-page
            # images), as it would be there.
            connection.execute(text("CHECKPOINT"))
    return time.perf_counter() - started


@dataclass
class Run:
    latencies: list[tuple[float, float]]  # (when due, latency ms)
    failed: int
    #: The failed rounds by their status, and the first detail of each status.
    statuses: dict[int, int] = field(default_factory=dict)
    details: dict[int, str] = field(default_factory=dict)
    #: When the first round was due (`time.perf_counter`), from which `latencies` count.
    start: float = 0.0


async def post_rounds(
    port: int, requests: list[bytes], rate: float, until: threading.Event, most: float
) -> Run:
    """Rounds at `rate` a second, open loop, until `until` is set (or `most` seconds)."""
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
    latencies: list[tuple[float, float]] = []
    failed = 0
    statuses: dict[int, int] = {}
    details: dict[int, str] = {}
    start = time.perf_counter()

    async def connection() -> None:
        nonlocal failed
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while True:
                due, request = await queue.get()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                status = int(head.split(b" ", 2)[1])
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                latencies.append((due - start, (time.perf_counter() - due) * 1000))
                if status != 200:
                    failed += 1
                    statuses[status] = statuses.get(status, 0) + 1
                    details.setdefault(status, body.decode(errors="replace")[:300])
                queue.task_done()
        finally:
            writer.close()

    workers = [asyncio.create_task(connection()) for _ in range(CONNECTIONS)]
    sent = 0
    while not until.is_set() and time.perf_counter() - start < most:
        due = start + sent / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        queue.put_nowait((due, requests[sent % len(requests)]))
        sent += 1
    await queue.join()
    for worker in workers:
        worker.cancel()
    await asyncio.gather(*workers, return_exceptions=True)
    return Run(latencies, failed, statuses, details, start)


def expired_left(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(
                # The filled ones: a live session may finish meanwhile, and is no backlog.
                text(f"SELECT count(*) FROM sessions WHERE id LIKE '{FILLED}%'")
            ).scalar_one()
        )


def watching(url: str, watch: Path | None) -> Watch | None:
    """PostgreSQL's backends sampled while a phase runs (`--watch`)."""
    if watch is None or not url.startswith("postgresql"):
        return None
    watched = Watch(url)
    watched.start()
    return watched


def one_run(
    source: Path, url: str, rate: float, expired: int, watch_dir: Path | None = None
) -> dict[str, Any]:
    engine = create_engine(url)
    migrate(source, url)
    with serving(source, url) as (base, _pid):
        requests, template = make_sessions(base)
    # Measured from a start as the sweep's is: a process just started is slower at first.
    with serving(source, url) as (base, _pid):
        quiet = threading.Event()
        timer = threading.Timer(QUIET_SECONDS, quiet.set)
        timer.start()
        port = int(base.rsplit(":", 1)[1])
        calm_watch = watching(url, watch_dir)
        calm = asyncio.run(post_rounds(port, requests, rate, quiet, QUIET_SECONDS + 1))
        if calm_watch:
            calm_watch.stop()
    filled = fill(engine, template, expired)
    assert expired_left(engine) == expired
    swept = threading.Event()
    with serving(source, url) as (base, _pid):
        started = time.perf_counter()

        def watch() -> None:
            while expired_left(engine) > 0:
                time.sleep(0.5)
            swept.set()

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        port = int(base.rsplit(":", 1)[1])
        sweep_watch = watching(url, watch_dir)
        during = asyncio.run(post_rounds(port, requests, rate, swept, 600))
        took = time.perf_counter() - started
        if sweep_watch:
            sweep_watch.stop()
    engine.dispose()
    if watch_dir is not None and calm_watch is not None and sweep_watch is not None:
        record = watch_dir / f"{engine.dialect.name}-{rate:.0f}.json"
        record.write_text(
            json.dumps(
                {
                    phase: {
                        "start": run.start,
                        "latencies": run.latencies,
                        "samples": watched.samples,
                        "summary": watched.summary(),
                    }
                    for phase, run, watched in (
                        ("calm", calm, calm_watch),
                        ("sweep", during, sweep_watch),
                    )
                },
                default=str,
            )
        )
        for phase, watched in (("calm", calm_watch), ("sweep", sweep_watch)):
            print(f"  watched, {phase}:", *watched.summary(), sep="\n")
    calm_ms = [ms for _, ms in calm.latencies]
    during_ms = [ms for _, ms in during.latencies]
    return {
        "fill_s": filled,
        "sweep_s": took,
        "swept": swept.is_set(),
        "calm": (percentile(calm_ms, 0.5), percentile(calm_ms, 0.99), max(calm_ms)),
        "during": (percentile(during_ms, 0.5), percentile(during_ms, 0.99), max(during_ms)),
        "rounds": len(during_ms),
        "failed": calm.failed + during.failed,
        "statuses": {
            status: calm.statuses.get(status, 0) + during.statuses.get(status, 0)
            for status in {*calm.statuses, *during.statuses}
        },
        "details": {**during.details, **calm.details},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--expired", type=int, default=100_000)
    parser.add_argument("--rates", default="300,500")
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument(
        "--watch",
        type=Path,
        help="PostgreSQL: sample the backends' wait events in each phase; write them here",
    )
    arguments = parser.parse_args()
    rates = [float(rate) for rate in arguments.rates.split(",")]
    print(
        f"rounds beside a sweep of {arguments.expired:,} expired sessions ({TEMPLATE_ROUNDS} rounds"
        f" each); source {arguments.source}; one uvicorn worker; latency from when each round"
        " was due (open loop); ms"
    )
    print(
        f"{'database':<11}{'rate/s':>7}{'calm p50':>10}{'p99':>8}{'max':>8}"
        f"{'sweep p50':>11}{'p99':>8}{'max':>8}{'sweep s':>9}{'rounds':>8}{'failed':>8}"
    )
    databases = [] if arguments.no_sqlite else ["sqlite"]
    databases += [] if arguments.no_postgres else ["postgresql"]
    for database in databases:
        for rate in rates:
            if database == "sqlite":
                folder = Path(tempfile.mkdtemp(prefix="arbiter-sweep-"))
                url, name = f"sqlite:///{folder / 'arbiter.db'}", None
            else:
                made = postgres_database()
                if made is None:
                    continue
                name, url = made
            try:
                found = one_run(arguments.source, url, rate, arguments.expired, arguments.watch)
            finally:
                if name is not None:
                    drop_postgres(name)
            calm, during = found["calm"], found["during"]
            print(
                f"{database:<11}{rate:>7.0f}{calm[0]:>10.1f}{calm[1]:>8.1f}{calm[2]:>8.0f}"
                f"{during[0]:>11.1f}{during[1]:>8.1f}{during[2]:>8.0f}"
                f"{found['sweep_s']:>9.1f}{found['rounds']:>8}{found['failed']:>8}"
                + ("" if found["swept"] else "  (not swept within 600 s)"),
                flush=True,
            )
            for status, count in sorted(found["statuses"].items()):
                print(f"    failed with {status}: {count}; the first: {found['details'][status]}")


if __name__ == "__main__":
    main()
