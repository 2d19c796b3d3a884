"""bench/replicas.py's workload against docker-compose.yml's profile `replicas`, as it runs.

    .venv/bin/python bench/compose.py [--base http://127.0.0.1:8000] [--engine podman]
        [--seconds 20] [--connections 32] [--sessions 200]

The deployment is up already (docs/capacity.md, deploy/offline/README.md); every request goes
through its proxy at `--base`, which spreads them over the app replicas. The databases are
read with `psql` inside their containers (`--engine exec`), found by compose's labels
(project `arbiter`, services `db` and `db-replica`), and the requests each replica answered
are counted from its request log. Then, for `--seconds` each:

1. rounds of live arm wrestles with verifiable dice, by `--connections` concurrent clients:
   rounds/s, p50/p99, each replica's share, and db-replica's lag sampled every half second
   (WAL bytes not yet replayed, and replay_lag as `db` reports it);
2. the proofs of finished sessions (ten rounds each): proofs/s, p50/p99, each replica's share,
   and the transactions each server committed meanwhile (`pg_stat_database.xact_commit`),
   with the rows each returned: the proofs' rounds are read on db-replica.

The rate limit counts every request from this one client: run the deployment with
ARBITER_RATE_LIMIT_PER_MINUTE above what the rounds reach (1000000), or 0 (off).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.replicas import FINISHED, LIVE, create, lag_summary, load  # noqa: E402
from bench.run import percentile  # noqa: E402

PROJECT = "arbiter"


class Stats(NamedTuple):
    """One server's counters of the database `arbiter` (pg_stat_database)."""

    commits: int
    returned: int
    fetched: int


class Compose:
    """The deployment's containers, reached through `engine` (podman or docker)."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.db = self.containers("db")[0]
        self.replica = self.containers("db-replica")[0]
        self.apps = self.containers("app")

    def containers(self, service: str) -> list[str]:
        names = subprocess.run(
            [
                self.engine,
                "ps",
                "--filter",
                f"label=com.docker.compose.project={PROJECT}",
                "--filter",
                f"label=com.docker.compose.service={service}",
                "--format",
                "{{.Names}}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        if not names:
            raise SystemExit(f"no running container of the service {service}: is the profile up?")
        return sorted(names)

    def sql(self, container: str, query: str) -> list[str]:
        """`query`'s rows (fields separated by |), run by psql as `arbiter` in `container`."""
        psql = ["psql", "-U", "arbiter", "-d", "arbiter", "-AtXq", "-c", query]
        ran = subprocess.run(
            [self.engine, "exec", container, *psql],
            capture_output=True,
            text=True,
            check=True,
        )
        return ran.stdout.splitlines()

    def lag(self) -> tuple[int, float | None]:
        """db-replica's lag as `db` sees it: WAL bytes not replayed, replay_lag's seconds."""
        rows = self.sql(
            self.db,
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint, "
            "extract(epoch FROM replay_lag)::float8 FROM pg_stat_replication",
        )
        if not rows:
            raise RuntimeError("db-replica is not streaming from db")
        sent, seconds = rows[0].split("|")
        return int(sent or 0), float(seconds) if seconds else None

    def wait_replayed(self, timeout: float = 30.0) -> None:
        target = self.sql(self.db, "SELECT pg_current_wal_lsn()")[0]
        deadline = time.monotonic() + timeout
        query = f"SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '{target}') >= 0"
        while self.sql(self.replica, query) != ["t"]:
            if time.monotonic() > deadline:
                raise RuntimeError(f"db-replica has not replayed {target} in {timeout:.0f} s")
            time.sleep(0.2)

    def stats(self, container: str) -> Stats:
        row = self.sql(
            container,
            "SELECT xact_commit, tup_returned, tup_fetched FROM pg_stat_database "
            "WHERE datname = 'arbiter'",
        )[0]
        commits, returned, fetched = (int(field) for field in row.split("|"))
        return Stats(commits, returned, fetched)

    def served(self, since: str, route: str) -> dict[str, int]:
        """Requests of `route` (its template's end) each app replica logged since `since`."""
        counts = {}
        for app in self.apps:
            logged = subprocess.run(
                [self.engine, "logs", "--since", since, app],
                capture_output=True,
                text=True,
                check=True,
            )
            lines = (logged.stdout + logged.stderr).splitlines()
            counts[app] = sum(f'{route}","status":' in line for line in lines)
        return counts


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def shares(counts: dict[str, int]) -> str:
    return ", ".join(f"{app} {count}" for app, count in counts.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000", help="the proxy's address")
    parser.add_argument("--engine", default="podman", help="podman or docker")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--sessions", type=int, default=200)
    arguments = parser.parse_args()
    compose = Compose(arguments.engine)
    bases = [arguments.base.rstrip("/")]
    print(f"{now()}, load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"through {bases[0]}: {len(compose.apps)} app replicas ({', '.join(compose.apps)})")

    live = create(bases, LIVE, arguments.sessions)
    rounds = [("POST", f"{path}/rounds", token) for path, token in live]
    since = now()
    ok, failed, latencies, lags = asyncio.run(
        load(bases, rounds, arguments.seconds, arguments.connections, compose.lag)
    )
    print(
        f"rounds through the proxy: {ok / arguments.seconds:.0f}/s, "
        f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
        f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, {failed} not 200; by replica: "
        f"{shares(compose.served(since, '/rounds'))}"
    )
    print(f"db-replica's lag meanwhile {lag_summary(lags)}")

    finished = create(bases, FINISHED, arguments.sessions)
    with httpx.Client(base_url=bases[0], timeout=30) as client:
        for path, token in finished:
            headers = {"authorization": f"Bearer {token}"}
            for _ in range(10):
                client.post(f"{path}/rounds", json={}, headers=headers)
            status = client.get(path, headers=headers).json()["status"]
            if status != "finished":
                raise RuntimeError(f"{path} is {status} after its 10 rounds")
    compose.wait_replayed()
    # A backend reports its statistics when idle for a while or when it ends: the apps'
    # pooled connections stay, so each count is taken once they have been idle 11 s.
    time.sleep(11)
    before = {name: compose.stats(name) for name in (compose.db, compose.replica)}
    proofs = [("GET", f"{path}/proof", token) for path, token in finished]
    since = now()
    ok, failed, latencies, _ = asyncio.run(
        load(bases, proofs, arguments.seconds, arguments.connections, lambda: None)
    )
    served = compose.served(since, "/proof")
    time.sleep(11)
    after = {name: compose.stats(name) for name in (compose.db, compose.replica)}
    print(
        f"finished proofs (10 rounds each) through the proxy: {ok / arguments.seconds:.0f}/s, "
        f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
        f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, {failed} not 200; by replica: "
        f"{shares(served)}"
    )
    clients = compose.sql(
        compose.replica,
        "SELECT count(*), count(DISTINCT client_addr) FROM pg_stat_activity "
        "WHERE datname = 'arbiter' AND client_addr IS NOT NULL",
    )[0].split("|")
    print(f"db-replica's clients: {clients[0]} connections from {clients[1]} addresses")
    for name, label in ((compose.db, "db"), (compose.replica, "db-replica")):
        commits = after[name].commits - before[name].commits
        returned = after[name].returned - before[name].returned
        fetched = after[name].fetched - before[name].fetched
        print(
            f"{label} meanwhile: {commits} transactions committed "
            f"({commits / max(ok, 1):.2f} per proof), {returned} rows returned and "
            f"{fetched} fetched ({(returned + fetched) / max(ok, 1):.1f} per proof)"
        )
    print(f"{now()}, load average after: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
