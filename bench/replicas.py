"""Several app replicas on one PostgreSQL primary, with a streaming read replica.

    .venv/bin/python bench/replicas.py [--apps 2] [--seconds 20] [--connections 32]

The topology of docker-compose.yml's `replicas` profile, as local processes (no container
daemon needed): a primary and its standby made with initdb and pg_basebackup -R
(bench/pgpair.py), `--apps` uvicorn processes (one worker each) on the primary with
`ARBITER_READ_DATABASE_URL` naming the standby. Then, for `--seconds` each:

1. rounds of live arm wrestles with verifiable dice, posted round-robin across the apps by
   `--connections` concurrent clients: rounds/s, p50/p99, and the replica's lag sampled every
   half second (WAL bytes not yet replayed, and replay_lag as the primary reports it);
2. the proofs of finished sessions (ten rounds each), read round-robin across the apps:
   proofs/s, p50/p99, and the transactions the standby served meanwhile
   (`pg_stat_database.xact_commit` on it: each proof read there is one).

About two minutes with the defaults.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.pgpair import Pair, primary_and_replica, replay_lag, wait_replayed  # noqa: E402
from bench.run import BENCH_DICE_KEY, percentile, server  # noqa: E402
from bench.sweep import ARM_WRESTLE  # noqa: E402

LIVE = {**ARM_WRESTLE, "dice": "verifiable"}
#: Ten rounds, then resolved: a finished session with a proof of ten rounds.
FINISHED = {**LIVE, "max_rounds": 10}


@contextmanager
def apps(pair: Pair, count: int) -> Iterator[list[str]]:
    env = {
        "DATABASE_URL": pair.primary_url("arbiter"),
        "ARBITER_READ_DATABASE_URL": pair.replica_url("arbiter"),
        "ARBITER_DICE_KEY": BENCH_DICE_KEY,
        "ARBITER_ODDS_PRESTART": "0",
        "ARBITER_LOG_REQUESTS": "0",
        "ARBITER_DB_POOL_SIZE": "10",
    }
    with ExitStack() as stack:
        yield [
            stack.enter_context(server("app.main:create_app", env, factory=True))
            for _ in range(count)
        ]


def create(bases: list[str], body: dict[str, Any], count: int) -> list[tuple[str, str]]:
    made = []
    for base in itertools.islice(itertools.cycle(bases), count):
        answer = httpx.post(f"{base}/v1/arm-wrestles", json=body, timeout=30)
        answer.raise_for_status()
        created = answer.json()
        made.append((f"/v1/arm-wrestles/{created['id']}", created["tokens"]["gm"]))
    return made


async def load(
    bases: list[str],
    requests: list[tuple[str, str, str]],
    seconds: float,
    connections: int,
    sample: Any,
) -> tuple[int, int, list[float], list[Any]]:
    """`requests` (method, path, token) round-robin over `bases` by `connections` clients."""
    clients = [httpx.AsyncClient(base_url=base, timeout=30) for base in bases]
    latencies: list[float] = []
    failed = 0
    samples: list[Any] = []
    stop = time.monotonic() + seconds
    turn = itertools.count()

    async def client_loop(index: int) -> None:
        nonlocal failed
        client = clients[index % len(clients)]
        while time.monotonic() < stop:
            method, path, token = requests[next(turn) % len(requests)]
            started = time.perf_counter()
            headers = {"authorization": f"Bearer {token}"}
            try:
                if method == "POST":
                    answer = await client.post(path, json={}, headers=headers)
                else:
                    answer = await client.get(path, headers=headers)
            except httpx.HTTPError:  # a connection closed under it: counted as failed
                status = 0
            else:
                status = answer.status_code
            latencies.append(time.perf_counter() - started)
            if status != 200:
                failed += 1

    async def sampler() -> None:
        while time.monotonic() < stop:
            samples.append(await asyncio.to_thread(sample))
            await asyncio.sleep(0.5)

    await asyncio.gather(sampler(), *(client_loop(index) for index in range(connections)))
    for client in clients:
        await client.aclose()
    return len(latencies) - failed, failed, latencies, samples


def lag_summary(lags: list[tuple[int, float | None]]) -> str:
    """The replica's lag samples (WAL bytes not replayed, replay_lag's seconds) in a line."""
    lag_bytes = [each[0] for each in lags]
    lag_seconds = [each[1] for each in lags if each[1] is not None]
    return (
        f"({len(lags)} samples): WAL not replayed "
        f"p50 {percentile(lag_bytes, 0.5) / 1024:.0f} KB, "
        f"max {max(lag_bytes, default=0) / 1024:.0f} KB; replay_lag "
        f"p50 {percentile(lag_seconds, 0.5) * 1000:.1f} ms, "
        f"max {max(lag_seconds, default=0) * 1000:.1f} ms"
    )


def replica_commits(pair: Pair) -> int:
    with psycopg.connect(
        f"postgresql://postgres@127.0.0.1:{pair.replica_port}/arbiter", autocommit=True
    ) as connection:
        connection.execute("SELECT pg_stat_clear_snapshot()")
        row = connection.execute(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = 'arbiter'"
        ).fetchone()
    return int(row[0]) if row else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--sessions", type=int, default=200)
    arguments = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="arbiter-replicas-"))
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    try:
        with primary_and_replica(root) as pair:
            with psycopg.connect(
                f"postgresql://postgres@127.0.0.1:{pair.primary_port}/postgres", autocommit=True
            ) as connection:
                connection.execute("CREATE DATABASE arbiter")
            subprocess.run(
                [sys.executable, "-m", "alembic", "upgrade", "head"],
                cwd=ROOT,
                env={**os.environ, "DATABASE_URL": pair.primary_url("arbiter")},
                check=True,
                capture_output=True,
            )
            with apps(pair, arguments.apps) as bases:
                live = create(bases, LIVE, arguments.sessions)
                rounds = [("POST", f"{path}/rounds", token) for path, token in live]
                ok, failed, latencies, lags = asyncio.run(
                    load(
                        bases,
                        rounds,
                        arguments.seconds,
                        arguments.connections,
                        lambda: replay_lag(pair),
                    )
                )
                print(
                    f"rounds across {len(bases)} apps: {ok / arguments.seconds:.0f}/s, "
                    f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
                    f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, {failed} not 200"
                )
                print(f"replica lag meanwhile {lag_summary(lags)}")
                finished = create(bases, FINISHED, arguments.sessions)
                with httpx.Client(timeout=30) as client:
                    for index, (path, token) in enumerate(finished):
                        base = bases[index % len(bases)]
                        headers = {"authorization": f"Bearer {token}"}
                        for _ in range(10):
                            client.post(f"{base}{path}/rounds", json={}, headers=headers)
                        status = client.get(f"{base}{path}", headers=headers).json()["status"]
                        if status != "finished":
                            raise RuntimeError(f"{path} is {status} after its 10 rounds")
                wait_replayed(pair)
                before = replica_commits(pair)
                proofs = [("GET", f"{path}/proof", token) for path, token in finished]
                ok, failed, latencies, _ = asyncio.run(
                    load(bases, proofs, arguments.seconds, arguments.connections, lambda: None)
                )
            # Counted once the apps are gone: a backend reports its statistics when it ends.
            served = replica_commits(pair) - before
            print(
                f"finished proofs (10 rounds each) across {arguments.apps} apps: "
                f"{ok / arguments.seconds:.0f}/s, "
                f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
                f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, {failed} not 200; "
                f"the standby committed {served} read transactions meanwhile "
                f"({served / max(ok, 1):.2f} per proof)"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"load average after: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
