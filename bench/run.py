"""Throughput and latency of Arbiter against a bare FastAPI app, measured in the same run.

    python3 scripts/dev.py bench [--duration 10] [--connections 32] [--pairs 5] [--round-pairs 3]
                                 [--no-postgres]

Starts, one at a time, a bare FastAPI app (a constant from `GET /`) and Arbiter (one uvicorn
worker each) on 127.0.0.1 and loads them with wrk (Debian package `wrk`; a small asyncio load
generator is used when wrk is missing). Prints requests/s and p50/p99 latency for the bare
app, `POST /v1/gurps/quick-contest`, `POST /v1/cairn/roll`, and round POSTs with server dice
spread over many arm wrestles on SQLite and on PostgreSQL — each as a ratio to the bare app.
After the round load it checks that no round was lost: every 200 answer is a stored round,
numbers are contiguous and every session's version is its rounds + 1. Each endpoint's run
alternates with a run of the bare app (`--pairs` times for the one-shots, `--round-pairs` for
the rounds) and the run of median ratio is reported: one pair alone swings by a tenth. A few
non-2xx answers in the round load are rounds posted to a match that has just been won (409).

Targets (from the issues): quick contest >= 0.75x bare; arm-wrestle rounds >= 0.20x on SQLite
and >= 0.15x on PostgreSQL. Last, on SQLite: a quick contest's round trip, idle and while the
worst resolves the service allows run (a chase stalled to its 10,000-round limit, 64 racers
over 200 increments), with the resolve's time and answer size (targets: under 100 ms during,
answers under 1 MB).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

POSTGRES_URL = os.environ.get(
    "ARBITER_BENCH_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
#: The deployment's dice key of the servers the benches start: PostgreSQL needs one to seal the
#: server seeds of verifiable sessions at rest (a bench's own, never a deployment's).
BENCH_DICE_KEY = "bench-dice-key-0123456789abcdef0123456789abcdef"
QUICK_CONTEST = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}
CAIRN = {"rating": 12, "target": 45}


@dataclass
class Figures:
    name: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    ok: int
    failed: int


def percentile(values: Sequence[float], share: float) -> float:
    """The value `share` of the way up `values` sorted (nearest rank); NaN when there are none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def microsecond_percentiles(spent: Sequence[float]) -> tuple[float, float]:
    """p50 and p99 of request times in seconds, in microseconds."""
    ordered = sorted(spent)
    return ordered[len(ordered) // 2] * 1e6, ordered[int(len(ordered) * 0.99)] * 1e6


def print_against_bare(
    figures: Mapping[str, Sequence[tuple[float, float]]], requests: int, rounds: int
) -> None:
    """In-process request timings (each label's (p50, p99) a round, in µs) beside the bare
    app's (the label `bare FastAPI GET /`): the medians of the rounds and the p50's ratio."""
    bare_p50 = statistics.median(p50 for p50, _ in figures["bare FastAPI GET /"])
    print(f"{requests} requests x {rounds} rounds each, in process; median of the rounds")
    print(f"{'':38} {'p50 µs':>8} {'p99 µs':>8} {'p50 / bare':>11}")
    for label, measured in figures.items():
        p50 = statistics.median(p for p, _ in measured)
        p99 = statistics.median(p for _, p in measured)
        print(f"{label:38} {p50:8.0f} {p99:8.0f} {p50 / bare_p50:10.2f}x")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def uvicorn_command(
    app: str, port: int, factory: bool = False, *, guarded: bool = True
) -> list[str]:
    """The command serving `app` on one uvicorn worker at 127.0.0.1:`port`; a factory is
    Arbiter's, served as scripts/dev.py serves it: with its protocol's limits on heads
    (unless not `guarded`: uvicorn's own httptools protocol)."""
    args = [sys.executable, "-m", "uvicorn", app]
    if factory:
        args.append("--factory")
        if guarded:
            args += ["--http", "app.serving:GuardedHttpTools"]
    return [
        *args,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
        "--no-access-log",
        "--log-level",
        "warning",
    ]


@contextmanager
def server(
    app: str, env: dict[str, str] | None = None, factory: bool = False, root: Path = ROOT
) -> Iterator[str]:
    """`app` served from the source tree `root` (this checkout unless another is given): its
    base URL."""
    with served(app, env, factory, root) as (base, _pid):
        yield base


@contextmanager
def served(
    app: str,
    env: dict[str, str] | None = None,
    factory: bool = False,
    root: Path = ROOT,
    ready: str | None = None,
    *,
    guarded: bool = True,
    patience: float = 90,
) -> Iterator[tuple[str, int]]:
    """`app` served from the source tree `root` until `ready` answers 200 (Arbiter's
    `/healthz`, another app's `/`), given `patience` seconds to start: its base URL and its
    process's id. `guarded`: as `uvicorn_command`."""
    ready = ready or ("/healthz" if factory else "/")
    port = free_port()
    args = uvicorn_command(app, port, factory, guarded=guarded)
    # The server's request log goes to a file, as it would to a log collector: written to a
    # terminal, the terminal would be what is measured.
    log = tempfile.TemporaryFile()  # noqa: SIM115 - closed below, after the server
    process = subprocess.Popen(
        args, cwd=root, env={**os.environ, **(env or {})}, stderr=log, stdout=log
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + patience
        while True:
            try:
                if httpx.get(base + ready, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                log.seek(0)
                said = log.read().decode(errors="replace").strip().splitlines()[-15:]
                raise RuntimeError(f"{app} did not start from {root}:\n" + "\n".join(said))
            time.sleep(0.2)
        yield base, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


#: Round POSTs spread over many sessions: every request is formatted once, in init().
WRK_SESSIONS_SCRIPT = r"""
local requests = {}
local count = 0
function init(args)
  for line in io.lines(os.getenv("ARBITER_WRK_TARGETS")) do
    local path, token = line:match("([^ ]+) ([^ ]+)")
    count = count + 1
    requests[count] = wrk.format("POST", path, {["Content-Type"] = "application/json",
      ["Authorization"] = "Bearer " .. token}, "{}")
  end
end
function request()
  return requests[math.random(count)]
end
"""


def parse_latency(text: str, label: str) -> float:
    match = re.search(rf"^\s*{label}\s+([\d.]+)(us|ms|s)\s*$", text, re.MULTILINE)
    if not match:
        return float("nan")
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def wrk(
    name: str,
    url: str,
    *,
    duration: int,
    connections: int,
    method: str = "GET",
    body: Mapping[str, object] | None = None,
    targets: Path | None = None,
) -> Figures:
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "load.lua"
        env = dict(os.environ)
        if targets is not None:
            script.write_text(WRK_SESSIONS_SCRIPT)
            env["ARBITER_WRK_TARGETS"] = str(targets)
        else:
            # A fixed request: wrk sends it as is, with no Lua call per request.
            lines = [f"wrk.method = {json.dumps(method)}"]
            if body is not None:
                lines.append(f"wrk.body = {json.dumps(json.dumps(body))}")
                lines.append('wrk.headers["Content-Type"] = "application/json"')
            script.write_text("\n".join(lines) + "\n")
        output = subprocess.run(
            [
                "wrk",
                "-t1",
                f"-c{connections}",
                f"-d{duration}s",
                "--latency",
                "-s",
                str(script),
                url,
            ],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    total = int(re.search(r"(\d+) requests in", output).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    failed = (int(bad.group(1)) if bad else 0) + (
        sum(int(group) for group in errors.groups()) if errors else 0
    )
    return Figures(
        name,
        rate,
        parse_latency(output, "50%"),
        parse_latency(output, "99%"),
        total - (int(bad.group(1)) if bad else 0),
        failed,
    )


Request = tuple[str, dict[str, str], bytes]


async def _python_load(
    url: str, duration: int, connections: int, method: str, bodies: list[Request]
) -> tuple[int, int, list[float]]:
    ok = failed = 0
    latencies: list[float] = []
    stop = time.monotonic() + duration
    async with httpx.AsyncClient(
        base_url=url, timeout=30, limits=httpx.Limits(max_connections=connections)
    ) as client:

        async def worker() -> None:
            nonlocal ok, failed
            while time.monotonic() < stop:
                path, headers, content = random.choice(bodies)
                started = time.perf_counter()
                response = await client.request(method, path, headers=headers, content=content)
                latencies.append((time.perf_counter() - started) * 1000)
                if response.status_code < 300:
                    ok += 1
                else:
                    failed += 1

        await asyncio.gather(*(worker() for _ in range(connections)))
    return ok, failed, latencies


def load(
    name: str,
    base: str,
    path: str,
    *,
    duration: int,
    connections: int,
    method: str = "GET",
    body: Mapping[str, object] | None = None,
    sessions: list[tuple[str, str]] | None = None,
) -> Figures:
    if shutil.which("wrk"):
        if sessions:
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
                handle.write("".join(f"{p} {t}\n" for p, t in sessions))
            try:
                return wrk(
                    name,
                    base,
                    duration=duration,
                    connections=connections,
                    targets=Path(handle.name),
                )
            finally:
                os.unlink(handle.name)
        return wrk(
            name, base + path, duration=duration, connections=connections, method=method, body=body
        )
    if sessions:
        method = "POST"  # a round each: the session paths are their /rounds
        bodies = [
            (p, {"authorization": f"Bearer {t}", "content-type": "application/json"}, b"{}")
            for p, t in sessions
        ]
    else:
        bodies = [
            (
                path,
                {"content-type": "application/json"},
                json.dumps(body).encode() if body is not None else b"",
            )
        ]
    started = time.monotonic()
    ok, failed, latencies = asyncio.run(_python_load(base, duration, connections, method, bodies))
    elapsed = time.monotonic() - started
    latencies.sort()

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] if latencies else 0.0

    return Figures(name, (ok + failed) / elapsed, pct(0.5), pct(0.99), ok, failed)


def create_arm_wrestles(base: str, count: int) -> list[tuple[str, str]]:
    body = {
        "a": {"name": "Lydia", "strength_mod": 2, "con_score": 200, "con_mod": 1},
        "b": {"name": "Ogre", "strength_mod": 2, "con_score": 200, "con_mod": 1},
        "target": 100,
        "max_rounds": 10_000,
    }
    sessions = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for _ in range(count):
            created = client.post("/v1/arm-wrestles", json=body).json()
            sessions.append((f"/v1/arm-wrestles/{created['id']}/rounds", created["tokens"]["gm"]))
    return sessions


def verify_rounds(
    base: str, sessions: list[tuple[str, str]], answered_ok: int, in_flight: int
) -> str:
    """Every 200 is a stored round; numbers contiguous; version = rounds + 1. At most
    `in_flight` more are stored than were counted (wrk's connections, at the end of each run)."""
    stored = 0
    problems = []
    with httpx.Client(base_url=base, timeout=30) as client:
        for path, token in sessions:
            headers = {"authorization": f"Bearer {token}"}
            session = client.get(path.removesuffix("/rounds"), headers=headers).json()
            rounds: list[dict[str, Any]] = []
            page: str | None = path
            while page is not None:  # every page, following Link: rel="next"
                answer = client.get(page, headers=headers)
                rounds += answer.json()["rounds"]
                page = answer.links.get("next", {}).get("url")
            numbers = [entry["number"] for entry in rounds]
            if numbers != list(range(1, len(rounds) + 1)):
                problems.append(f"{path}: round numbers not contiguous")
            if session["version"] != len(rounds) + 1:
                problems.append(f"{path}: version {session['version']} != {len(rounds)} + 1")
            stored += len(rounds)
    # wrk stops with up to `connections` requests in flight: applied, but never counted.
    if not answered_ok <= stored <= answered_ok + in_flight:
        problems.append(f"{answered_ok} rounds answered 200 but {stored} stored")
    return "; ".join(problems) if problems else f"ok ({stored} rounds stored, none lost)"


def postgres_database() -> tuple[str, str] | None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"arbiter_bench_{uuid.uuid4().hex[:10]}"
    try:
        engine = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
        with engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        engine.dispose()
    except Exception as exc:
        print(f"  (PostgreSQL unavailable, skipped: {type(exc).__name__})")
        return None
    return name, make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


def drop_postgres(name: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


TARGETS = {
    "POST /v1/gurps/quick-contest": 0.75,
    "arm-wrestle rounds (SQLite)": 0.20,
    "arm-wrestle rounds (PostgreSQL)": 0.15,
}


#: The worst cases a request may ask for: a chase that never ends (an obstacle nobody passes)
#: resolved
#: to its 10,000-round limit, and 64 racers over 200 increments.
STALLED_CHASE = {
    "escapee": {"name": "Ralf", "speed": 30},
    "chaser": {"name": "Guard", "speed": 30},
    "start": {"mode": "lead", "lead": 12},
    "max_rounds": 10_000,
}
STALL_TERRAIN = {"terrain": {"check": "climb", "dc": 100, "on_fail": "stall"}}
LONG_RACE = {
    "course": {"increments": [{"check": "strength"}] * 200},
    "competitors": [{"name": f"Racer {n}", "speed": 30} for n in range(64)],
}


@dataclass
class Busy:
    name: str
    resolve_ms: float
    answer_bytes: int
    played: int
    idle: list[float]
    during: list[float]


def latencies_while(base: str, create: str, body: Mapping[str, Any], resolve: Any) -> Busy:
    """Quick-contest round trips, idle and while one worst-case resolve runs on the server."""
    import threading

    with httpx.Client(base_url=base, timeout=120) as client:
        created = client.post(create, json=body).json()
        path = f"{create}/{created['id']}/resolve"
        headers = {"authorization": f"Bearer {created['tokens']['gm']}"}

        def quick() -> float:
            started = time.perf_counter()
            response = client.post("/v1/gurps/quick-contest", json=QUICK_CONTEST)
            assert response.status_code == 200
            return (time.perf_counter() - started) * 1000

        idle = [quick() for _ in range(200)]
        outcome: dict[str, Any] = {}

        def run() -> None:
            with httpx.Client(base_url=base, timeout=120) as own:
                started = time.perf_counter()
                answer = own.post(path, json=resolve, headers=headers)
                outcome["ms"] = (time.perf_counter() - started) * 1000
                outcome["bytes"] = len(answer.content)
                outcome["played"] = answer.json().get("played", 0)

        worker = threading.Thread(target=run)
        worker.start()
        during: list[float] = []
        while worker.is_alive():
            during.append(quick())
        worker.join()
    return Busy(create, outcome["ms"], outcome["bytes"], outcome["played"], idle, during)


def print_busy(rows: list[Busy]) -> None:
    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    print(
        f"\n{'worst-case resolve':28} {'rounds':>7} {'ms':>7} {'answer KB':>10} "
        f"{'quick idle p50/p99/max ms':>27} {'during p50/p99/max ms':>23} {'n':>5}"
    )
    for row in rows:
        print(
            f"{row.name:28} {row.played:7d} {row.resolve_ms:7.0f} {row.answer_bytes / 1024:10.1f} "
            f"{pct(row.idle, 0.5):9.2f}/{pct(row.idle, 0.99):.2f}/{max(row.idle):.2f}"
            f"{pct(row.during, 0.5):11.2f}/{pct(row.during, 0.99):.2f}/"
            f"{max(row.during, default=0):.2f} {len(row.during):5d}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--pairs", type=int, default=5, help="alternating runs of each one-shot and the bare app"
    )
    parser.add_argument(
        "--round-pairs", type=int, default=3, help="the same for the round load on each database"
    )
    options = parser.parse_args()
    from app.store.database import upgrade_to_head

    duration, connections = options.duration, options.connections
    print(
        f"load: {'wrk' if shutil.which('wrk') else 'python asyncio'}, {connections} "
        f"connections, {duration} s each, one uvicorn worker per server, 127.0.0.1; the bare "
        "app is measured again right before each endpoint, and each ratio is to that run"
    )
    rows: list[tuple[Figures, Figures]] = []
    checks: list[str] = []

    with server("bench.bare:app") as bare:

        def measure(name: str, base: str, path: str, pairs: int = 1, **how: Any) -> int:
            # This machine's speed drifts by a fifth between runs a minute apart: compare
            # each endpoint with the bare app measured just before it, not at the start; a
            # stateless endpoint alternates with it `pairs` times, and the pair of median
            # ratio is reported.
            measured = []
            for _ in range(pairs):
                yardstick = load(
                    "bare FastAPI GET /", bare, "/", duration=duration, connections=connections
                )
                figures = load(name, base, path, duration=duration, connections=connections, **how)
                measured.append((figures, yardstick))
            measured.sort(key=lambda run: run[0].requests_per_second / run[1].requests_per_second)
            if pairs > 1:
                ratios = ", ".join(
                    f"{f.requests_per_second / y.requests_per_second:.2f}" for f, y in measured
                )
                print(f"{name}: ratios of {pairs} alternating runs {ratios}", flush=True)
            rows.append(measured[len(measured) // 2])
            return sum(figures.ok for figures, _ in measured)  # 2xx answers of every run

        with tempfile.TemporaryDirectory() as folder:
            sqlite_url = f"sqlite:///{folder}/bench.db"
            upgrade_to_head(sqlite_url)
            with server("app.main:create_app", {"DATABASE_URL": sqlite_url}, factory=True) as base:
                measure(
                    "POST /v1/gurps/quick-contest",
                    base,
                    "/v1/gurps/quick-contest",
                    pairs=options.pairs,
                    method="POST",
                    body=QUICK_CONTEST,
                )
                measure(
                    "POST /v1/cairn/roll",
                    base,
                    "/v1/cairn/roll",
                    pairs=options.pairs,
                    method="POST",
                    body=CAIRN,
                )
                sessions = create_arm_wrestles(base, options.sessions)
                answered = measure(
                    "arm-wrestle rounds (SQLite)",
                    base,
                    "",
                    pairs=options.round_pairs,
                    sessions=sessions,
                )
                checks.append(
                    "SQLite: "
                    + verify_rounds(base, sessions, answered, connections * options.round_pairs)
                )
                busy = [
                    latencies_while(base, "/v1/chases", STALLED_CHASE, STALL_TERRAIN),
                    latencies_while(base, "/v1/races", LONG_RACE, None),
                ]
        database = None if options.no_postgres else postgres_database()
        if database is not None:
            name, url = database
            try:
                upgrade_to_head(url)
                with server(
                    "app.main:create_app",
                    {"DATABASE_URL": url, "ARBITER_DICE_KEY": BENCH_DICE_KEY},
                    factory=True,
                ) as base:
                    sessions = create_arm_wrestles(base, options.sessions)
                    answered = measure(
                        "arm-wrestle rounds (PostgreSQL)",
                        base,
                        "",
                        pairs=options.round_pairs,
                        sessions=sessions,
                    )
                    checks.append(
                        "PostgreSQL: "
                        + verify_rounds(base, sessions, answered, connections * options.round_pairs)
                    )
            finally:
                drop_postgres(name)

    print(
        f"\n{'endpoint':36} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'bare r/s':>9} "
        f"{'x bare':>7} {'target':>11} {'non-2xx':>8}"
    )
    for figures, yardstick in rows:
        ratio = figures.requests_per_second / yardstick.requests_per_second
        target = TARGETS.get(figures.name)
        mark = ""
        if target is not None:
            mark = f">={target:.2f}" + (" ok" if ratio >= target else " MISS")
        print(
            f"{figures.name:36} {figures.requests_per_second:9.0f} {figures.p50_ms:8.2f} "
            f"{figures.p99_ms:8.2f} {yardstick.requests_per_second:9.0f} {ratio:7.3f} "
            f"{mark:>11} {figures.failed:8d}"
        )
    print(
        "\n(bare app, GET /: p50/p99 ms "
        + ", ".join(f"{y.p50_ms:.2f}/{y.p99_ms:.2f}" for _, y in rows)
        + ")"
    )
    for line in checks:
        print("rounds check —", line)
    print_busy(busy)


if __name__ == "__main__":
    main()
