"""The odds worker under load, over HTTP on one uvicorn process, a fresh server per figure.

    .venv/bin/python bench/odds_worker.py [flood] [event-loop] [memory]
                                             (all three: the last part of `make bench`)

Prints three figures:

* a flood: 120 different race questions (Monte Carlo, about 0.1 s each) sent at once, then a
  Cairn Hill question (a few ms): how long the Cairn waits for its answer, what it answered,
  how the 120 were answered (200, or 503 past the queue's bound) and how long they took;
* the event loop: the longest `GET /healthz` round trip (one after another, from this
  process, while another process asks the questions) while 40 different skill-game token
  questions of the largest shape the benchmarks ask (64 members in two parties choosing 64
  skills; an answer of about 530 KB) run (target: none over 100 ms);
* memory: the server process's resident set (its odds worker process apart) before and after
  600 different such token questions, asked two at a time.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.odds import BIG_GAME, RACE, token_question  # noqa: E402
from bench.run import free_port, served  # noqa: E402

FLOOD = 120
TOKEN_QUESTIONS = 40
MEMORY_QUESTIONS = 600


@contextmanager
def serving(env: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    """Arbiter in one uvicorn process (no supervisor), on a throwaway SQLite file: its base
    URL and its pid."""
    port = free_port()
    database = Path(f"/tmp/arbiter-bench-odds-worker-{port}.db")
    url = f"sqlite:///{database}"
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"from app.store.database import upgrade_to_head; upgrade_to_head({url!r})",
        ],
        cwd=ROOT,
        check=True,
    )
    try:
        with served(
            "app.main:create_app",
            {"DATABASE_URL": url, "ARBITER_LOG_REQUESTS": "false", **(env or {})},
            factory=True,
            ready="/readyz",
        ) as (base, pid):
            yield base, pid
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{database}{suffix}").unlink(missing_ok=True)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def big_tokens(variant: int) -> dict[str, Any]:
    """A token question of the largest shape, different for every `variant` (its members'
    names and ratings), so that none is answered from a cache."""
    game = {
        **BIG_GAME,
        "parties": [
            {
                **party,
                "members": [
                    {
                        "name": f"{member['name']} {variant}",
                        "skills": {k: (v + variant) % 10 for k, v in member["skills"].items()},
                    }
                    for member in party["members"]
                ],
            }
            for party in BIG_GAME["parties"]
        ],
    }
    return token_question(game)


async def warm(client: httpx.AsyncClient) -> None:
    """The worker's first questions of each kind (its imports, its first-call costs)."""
    for body in ({"rating": 4}, {"rating": 6, "target": 30}):
        (await client.post("/v1/odds/cairn", json=body)).raise_for_status()
    (await client.post("/v1/odds/races", json={**RACE, "seed": 1})).raise_for_status()
    (await client.post("/v1/odds/skill-games/tokens", json=big_tokens(10_000))).raise_for_status()


async def timed_post(client: httpx.AsyncClient, path: str, body: object) -> tuple[int, float]:
    start = time.perf_counter()
    answer = await client.post(path, json=body)
    return status(answer), time.perf_counter() - start


def status(answer: httpx.Response) -> Any:
    """The answer's status, and for a problem its type's last segment (`503 odds-busy`)."""
    if answer.headers.get("content-type") == "application/problem+json":
        return f"{answer.status_code} {answer.json()['type'].rsplit('/', 1)[-1]}"
    return answer.status_code


async def flood() -> None:
    limits = httpx.Limits(max_connections=FLOOD + 10, max_keepalive_connections=FLOOD + 10)
    with serving() as (base, _):
        async with httpx.AsyncClient(base_url=base, timeout=900, limits=limits) as client:
            await warm(client)
            start = time.perf_counter()
            races = [
                asyncio.create_task(
                    timed_post(client, "/v1/odds/races", {**RACE, "seed": 2000 + n})
                )
                for n in range(FLOOD)
            ]
            # Long enough for the 120 to be sent and taken in.
            await asyncio.sleep(0.5)
            cairn_status, cairn_s = await timed_post(
                client, "/v1/odds/cairn", {"rating": 9, "target": 41}
            )
            answered = await asyncio.gather(*races)
            drained = time.perf_counter() - start
    statuses = Counter(str(status) for status, _ in answered)
    print(
        f"flood: {FLOOD} race questions at once, then a Cairn question: the Cairn answered "
        f"{cairn_status} after {cairn_s * 1000:.0f} ms; the races: "
        + ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))
        + f", all answered within {drained:.1f} s"
    )


def token_load(base: str, count: int) -> list[str]:
    """In a process of its own (so that the probe's timings are the server's, not this
    client's): `count` different token questions at once; their statuses."""

    async def ask() -> list[str]:
        limits = httpx.Limits(max_connections=count + 10)
        async with httpx.AsyncClient(base_url=base, timeout=900, limits=limits) as client:
            answered = await asyncio.gather(
                *(
                    timed_post(client, "/v1/odds/skill-games/tokens", big_tokens(n))
                    for n in range(count)
                )
            )
        return [str(status) for status, _ in answered]

    return asyncio.run(ask())


async def event_loop() -> None:
    with serving() as (base, _):
        async with httpx.AsyncClient(base_url=base, timeout=900) as client:
            await warm(client)
        waits: list[float] = []
        with (
            httpx.Client(base_url=base, timeout=900) as health,
            ProcessPoolExecutor(1, mp_context=get_context("spawn")) as load,
        ):
            load.submit(int).result()  # the load's process started
            for _ in range(20):
                health.get("/healthz")
            questions = load.submit(token_load, base, TOKEN_QUESTIONS)
            while not questions.done():
                start = time.perf_counter()
                health.get("/healthz").raise_for_status()
                waits.append(time.perf_counter() - start)
            answered = questions.result()
    statuses = Counter(answered)
    waits.sort()
    print(
        f"event loop: GET /healthz while {TOKEN_QUESTIONS} token questions (64 members, 64 "
        f"skills) run: max {waits[-1] * 1000:.1f} ms, p99 "
        f"{waits[int(len(waits) * 0.99)] * 1000:.1f} ms, median "
        f"{statistics.median(waits) * 1000:.2f} ms over {len(waits)} requests (target: "
        "max <= 100 ms); the questions: "
        + ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))
    )


async def memory() -> None:
    with serving() as (base, pid):
        async with httpx.AsyncClient(base_url=base, timeout=900) as client:
            await warm(client)
            before = rss_mb(pid)
            start = time.perf_counter()
            statuses: Counter[str] = Counter()
            for n in range(0, MEMORY_QUESTIONS, 2):
                pair = await asyncio.gather(
                    *(
                        timed_post(client, "/v1/odds/skill-games/tokens", big_tokens(m))
                        for m in (n, n + 1)
                    )
                )
                statuses.update(str(status) for status, _ in pair)
            elapsed = time.perf_counter() - start
            after = rss_mb(pid)
    print(
        f"memory: the server process's RSS {before:.0f} MB before, {after:.0f} MB after "
        f"{MEMORY_QUESTIONS} different token questions (64 members, 64 skills) in "
        f"{elapsed:.0f} s; the questions: "
        + ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items()))
    )


FIGURES = {"flood": flood, "event-loop": event_loop, "memory": memory}


def main() -> None:
    """Every figure, or those named (`flood`, `event-loop`, `memory`; a name again: again)."""
    for name in sys.argv[1:] or list(FIGURES):
        asyncio.run(FIGURES[name]())


if __name__ == "__main__":
    main()
