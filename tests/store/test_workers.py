"""One server of two uvicorn worker processes: its metrics and its rate limit are one.

`/metrics` is answered by either worker and must show both workers' counts
(`PROMETHEUS_MULTIPROC_DIR`); the rate limit must hold across them (Redis).
"""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import redis
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from app.store.database import upgrade_to_head
from tests.requirements import missing
from tests.store.servers import PROJECT_ROOT, Server, free_port, stop_server, wait_until_healthy
from tests.test_rate_limit import REDIS_URL

pytestmark = pytest.mark.slow

ROLL = "/v1/gurps/success-roll"
#: Requests sent until both workers have answered some; never reached in practice.
MAX_PROBES = 2000


@contextmanager
def two_workers(tmp_path: Path, prefix: str) -> Iterator[tuple[Server, Path]]:
    database = f"sqlite:///{tmp_path / 'arbiter.db'}"
    upgrade_to_head(database)
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database,
        "PROMETHEUS_MULTIPROC_DIR": str(metrics),
        "ARBITER_RATE_LIMIT_PER_MINUTE": "40",
        "ARBITER_REDIS_URL": REDIS_URL,
        "ARBITER_RATE_LIMIT_REDIS_PREFIX": prefix,
        # Every answered Redis call counts here: a busy test machine's slow event loop must
        # not make a working Redis look hung (its own tests: tests/test_rate_limit.py).
        "ARBITER_RATE_LIMIT_REDIS_BUDGET_MS": "2000",
        # No odds worker process per worker: none is asked for here (see servers.py).
        "ARBITER_ODDS_PRESTART": "0",
    }
    env.pop("ARBITER_DATABASE_URL", None)
    log = tmp_path / "uvicorn.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:create_app",
                "--factory",
                "--port",
                str(port),
                "--workers",
                "2",
                "--log-level",
                "warning",
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    server = Server(process, f"http://127.0.0.1:{port}", log)
    try:
        wait_until_healthy(server)
        yield server, metrics
    finally:
        stop_server(server)


def requests_total(text: str, method: str, route: str, status: int) -> float:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "arbiter_http_requests_total" and sample.labels == {
                "method": method,
                "route": route,
                "status": str(status),
            }:
                return sample.value
    return 0.0


def per_worker(metrics: Path, tmp_path: Path, route: str) -> dict[str, float]:
    """Each worker's own count of answers on `route` (any status), from its own files."""
    counts: dict[str, float] = {}
    for file in sorted(metrics.glob("counter_*.db")):
        pid = file.stem.removeprefix("counter_")
        alone = tmp_path / f"worker-{pid}-{uuid.uuid4().hex}"
        alone.mkdir()
        shutil.copy(file, alone)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(alone))  # type: ignore[no-untyped-call]
        counts[pid] = sum(
            sample.value
            for metric in registry.collect()
            for sample in metric.samples
            if sample.name == "arbiter_http_requests_total" and sample.labels["route"] == route
        )
    return counts


def scrape(server: Server) -> str:
    with httpx.Client() as client:
        answer = client.get(server.base_url + "/metrics")
    assert answer.status_code == 200
    return answer.text


@contextmanager
def fresh_clients() -> Iterator[Callable[[], httpx.Client]]:
    """The calling thread's client, each making a new connection for every request (so that
    either worker may accept it); closed when the block ends.

    A client of its own for each thread: httpcore's pool, shared by threads, may close a
    connection it has just handed to another thread's request (which then reads a closed
    socket: "Bad file descriptor"). One SSL context for them all (each would cost 20 ms)."""
    context = ssl.create_default_context()
    local = threading.local()
    made: list[httpx.Client] = []
    lock = threading.Lock()

    def client() -> httpx.Client:
        mine: httpx.Client | None = getattr(local, "client", None)
        if mine is None:
            mine = httpx.Client(verify=context, limits=httpx.Limits(max_keepalive_connections=0))
            local.client = mine
            with lock:
                made.append(mine)
        return mine

    try:
        yield client
    finally:
        for each in made:
            each.close()


def test_metrics_and_rate_limit_hold_across_two_workers(tmp_path: Path) -> None:
    connection = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        connection.ping()
    except redis.RedisError as exc:
        connection.close()
        missing(
            f"Redis unreachable at {REDIS_URL} ({type(exc).__name__}: {exc})",
            "start it, or set ARBITER_TEST_REDIS_URL",
        )
    prefix = f"arbiter-test:{uuid.uuid4().hex}:"
    try:
        with (
            two_workers(tmp_path, prefix) as (server, metrics),
            ThreadPoolExecutor(16) as pool,
            fresh_clients() as fresh,
        ):

            def fresh_get(path: str) -> int:
                return fresh().get(server.base_url + path).status_code

            def fresh_roll(_: int) -> int:
                return (
                    fresh()
                    .post(
                        server.base_url + ROLL,
                        json={"skill": 12},
                        headers={"x-client-key": "two-workers"},
                    )
                    .status_code
                )

            before = requests_total(scrape(server), "GET", "/healthz", 200)
            sent = 0
            while sent < MAX_PROBES:
                assert set(pool.map(fresh_get, ["/healthz"] * 32)) == {200}
                sent += 32
                if len([n for n in per_worker(metrics, tmp_path, "/healthz").values() if n]) == 2:
                    break
            workers = per_worker(metrics, tmp_path, "/healthz")
            assert len([count for count in workers.values() if count]) == 2
            text = scrape(server)
            # Whichever worker answered the scrape, it shows both workers' requests.
            assert requests_total(text, "GET", "/healthz", 200) - before == sent
            assert requests_total(text, "GET", "/healthz", 200) == sum(workers.values())

            statuses = list(pool.map(fresh_roll, range(60)))
            assert statuses.count(200) == 40
            assert statuses.count(429) == 20
            text = scrape(server)
            assert requests_total(text, "POST", ROLL, 200) == 40
            assert requests_total(text, "POST", ROLL, 429) == 20
            rolls = per_worker(metrics, tmp_path, ROLL)
            assert sum(rolls.values()) == 60
            assert len([count for count in rolls.values() if count]) == 2
    finally:
        for key in connection.scan_iter(match=prefix + "*"):
            connection.delete(key)
        connection.close()
