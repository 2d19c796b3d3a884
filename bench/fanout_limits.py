"""The limits of the cross-process fan-out: PostgreSQL LISTEN/NOTIFY, Redis for the rate limit.

    .venv/bin/python bench/fanout_limits.py [--seconds 3] [--listeners 1,8,32]
                                            [--payloads 100,1000,7900] [--no-redis]

NOTIFY, as app/store/notify.py sends it: one channel (`CHANNEL`) that every app process's one
connection LISTENs on, and a sender that sends its messages in batches of 50, one
`SELECT pg_notify($1, payload) FROM unnest($2::text[])` (one transaction) a batch, as fast as
the server takes them, for `--seconds`. The listeners are `--listeners` connections held by a
process of their own (each stands for an app process). For each count of listeners and each
payload size: notifications sent a second, the share the listeners received and how long after
the sender stopped the last arrived (a listener behind is a backlog in the server's queue),
what the listening process received a second over the whole time, and the highest
`pg_notification_queue_usage()` sampled meanwhile (a listener that falls behind fills the
queue for everyone). The server is `ARBITER_BENCH_POSTGRES_URL`'s (default the local one), in a
database of the bench's own.

Redis, as app/middleware.py checks a request (`SLIDING_WINDOW_LUA`, EVALSHA on the server's
clock), from 1 and from 2 processes of 32 concurrent checks each, over 10,000 clients with
the limit of 120 a minute: checks a second, and checks per CPU second of the Redis server
(`INFO cpu`): Redis runs a script on one core, so that is its ceiling. `ARBITER_BENCH_REDIS_URL`
(default redis://127.0.0.1:6379/15; the keys, under a prefix of the run's own, are deleted).

About a minute and a half with the defaults.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.middleware import SLIDING_WINDOW_LUA  # noqa: E402
from app.store.database import asyncpg_dsn  # noqa: E402
from app.store.notify import CHANNEL  # noqa: E402
from bench.run import drop_postgres, postgres_database  # noqa: E402

BATCH = 50
#: Longest wait for the listeners to receive what was sent before the sender stopped.
DRAIN_LIMIT_S = 60.0
REDIS_URL = os.environ.get("ARBITER_BENCH_REDIS_URL", "redis://127.0.0.1:6379/15")
REDIS_CLIENTS = 10_000
REDIS_CONCURRENCY = 32


def listen(dsn: str, count: int, ready: Any, stop: Any, received: Any, drained: Any) -> None:
    """`count` connections LISTENing on the channel, counting what they receive; once the
    sender has stopped, until a second passes with nothing more (`drained`: how long after
    the stop the last arrived, at most `DRAIN_LIMIT_S`)."""
    import asyncpg

    async def run() -> None:
        counted = 0

        def heard(*_: Any) -> None:
            nonlocal counted
            counted += 1

        connections = [await asyncpg.connect(dsn) for _ in range(count)]
        for connection in connections:
            await connection.add_listener(CHANNEL, heard)
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        stopped = last_change = time.perf_counter()
        seen = counted
        while (
            time.perf_counter() - last_change < 1.0
            and time.perf_counter() - stopped < DRAIN_LIMIT_S
        ):
            await asyncio.sleep(0.05)
            if counted != seen:
                seen, last_change = counted, time.perf_counter()
        received.value = counted
        drained.value = last_change - stopped
        for connection in connections:
            await connection.close()

    asyncio.run(run())


async def send(dsn: str, size: int, seconds: float) -> tuple[int, float]:
    """Notifications sent in `seconds` (batches of `BATCH`); the highest queue usage seen."""
    import asyncpg

    sender = await asyncpg.connect(dsn)
    watcher = await asyncpg.connect(dsn)
    # Each different, as app/store/notify.py's are: PostgreSQL delivers identical payloads
    # sent on one channel in one transaction once.
    pad = "x" * max(0, size - 12)
    sent, usage = 0, 0.0
    stop = time.perf_counter() + seconds

    async def watch() -> None:
        nonlocal usage
        while time.perf_counter() < stop:
            usage = max(usage, await watcher.fetchval("SELECT pg_notification_queue_usage()"))
            await asyncio.sleep(0.2)

    watching = asyncio.create_task(watch())
    while time.perf_counter() < stop:
        payloads = [f"{number:012d}{pad}" for number in range(sent, sent + BATCH)]
        await sender.execute(
            "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", CHANNEL, payloads
        )
        sent += BATCH
    await watching
    await sender.close()
    await watcher.close()
    return sent, usage


def notify_limits(dsn: str, listeners: list[int], payloads: list[int], seconds: float) -> None:
    context = multiprocessing.get_context("spawn")
    print(f"LISTEN/NOTIFY, batches of {BATCH}, {seconds:g} s each")
    for count in listeners:
        for size in payloads:
            ready, stop = context.Event(), context.Event()
            received, drained = context.Value("q", 0), context.Value("d", 0.0)
            process = context.Process(
                target=listen, args=(dsn, count, ready, stop, received, drained)
            )
            process.start()
            if not ready.wait(60):
                raise RuntimeError("the listeners did not start")
            sent, usage = asyncio.run(send(dsn, size, seconds))
            stop.set()
            process.join(DRAIN_LIMIT_S + 30)
            share = received.value / (sent * count) if sent else 0.0
            took = seconds + drained.value
            print(
                f"  {count:>3} listeners, {size:>5} B payloads: {sent / seconds:>8,.0f} sent/s "
                f"({sent * size / seconds / 2**20:5.1f} MB/s), {share:.0%} received, the last "
                f"{drained.value:4.1f} s after the sender stopped: "
                f"{received.value / took:>9,.0f} received/s by the listening process "
                f"({sent / took:,.0f}/s each listener), queue usage at most {usage:.2%}",
                flush=True,
            )


def redis_checks(url: str, prefix: str, seconds: float, result: Any) -> None:
    from redis import asyncio as redis_asyncio

    async def run() -> int:
        client = redis_asyncio.Redis.from_url(url, max_connections=REDIS_CONCURRENCY)
        script = client.register_script(SLIDING_WINDOW_LUA)
        done = 0
        stop = time.perf_counter() + seconds

        async def checker(worker: int) -> None:
            nonlocal done
            number = worker
            while time.perf_counter() < stop:
                key = f"{prefix}{number % REDIS_CLIENTS}"
                await script(keys=[key], args=[120, 60_000, f"{os.getpid()}-{number}"])
                number += REDIS_CONCURRENCY
                done += 1

        await asyncio.gather(*(checker(worker) for worker in range(REDIS_CONCURRENCY)))
        await client.aclose()
        return done

    result.value = asyncio.run(run())


def redis_cpu(url: str) -> float:
    import redis

    info = redis.Redis.from_url(url).info("cpu")
    return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


def redis_limits(url: str, seconds: float) -> None:
    import redis

    context = multiprocessing.get_context("spawn")
    prefix = f"arbiter:bench:{uuid.uuid4().hex[:8]}:"
    print(f"Redis rate-limit checks (the sliding window's script), {seconds:g} s each")
    try:
        for processes in (1, 2):
            results = [context.Value("q", 0) for _ in range(processes)]
            before = redis_cpu(url)
            workers = [
                context.Process(target=redis_checks, args=(url, prefix, seconds, result))
                for result in results
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join(seconds + 60)
            used = redis_cpu(url) - before
            done = sum(result.value for result in results)
            print(
                f"  {processes} process(es) x {REDIS_CONCURRENCY} concurrent: "
                f"{done / seconds:,.0f} checks/s, Redis CPU {used:.2f} s "
                f"({done / used if used else 0:,.0f} checks per Redis CPU second)",
                flush=True,
            )
    finally:
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(f"{prefix}*", count=1000):
            client.delete(key)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--listeners", default="1,8,32")
    parser.add_argument("--payloads", default="100,1000,7900")
    parser.add_argument("--no-redis", action="store_true")
    arguments = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    made = postgres_database()
    if made is not None:
        name, url = made
        try:
            notify_limits(
                asyncpg_dsn(url),
                [int(each) for each in arguments.listeners.split(",")],
                [int(each) for each in arguments.payloads.split(",")],
                arguments.seconds,
            )
        finally:
            drop_postgres(name)
    if not arguments.no_redis:
        redis_limits(REDIS_URL, arguments.seconds)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
