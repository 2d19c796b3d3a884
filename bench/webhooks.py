"""What a webhook subscription costs a round: rounds per second with one subscription per
session against rounds per second with none (target: at least 0.8 times).

    .venv/bin/python bench/webhooks.py [--seconds 3] [--repeats 4] [--sessions 64] [--callers 4]
        [--database URL]

Arbiter (one uvicorn worker; SQLite in a temporary file, or the PostgreSQL database given,
which must be migrated and empty of sessions) serves `--sessions` arm wrestles that never
end; `--callers` threads post rounds to them for `--seconds`, first to sessions without a
subscription, then to sessions each subscribed to a receiver (a separate process answering
204 at once, raw asyncio, keep-alive), alternating `--repeats` times, and the median rounds
per second of each way are printed with their ratio (alternating, so that another load on
the machine weighs on both alike). The service's delivery worker sends the subscribed
sessions' events meanwhile, in the same process: its cost is in the figure. Then how long the
outbox took to drain after the last round, and that every delivery arrived.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import free_port, server  # noqa: E402

NEVER_ENDS = {
    "a": {"name": "Lydia", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Ogre", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 30,
    "max_rounds": 10_000,
}
#: Equal dice: the difference of success never moves, so no match ends.
ROUND = {"rolls": {"Lydia": {"strength": 10}, "Ogre": {"strength": 10}}}


def receive(port: int, count: Any) -> None:
    """The receiver's process: 204 to every POST, counting them. Raw asyncio, so that it
    takes little of the CPU the server is measured on (a thread per request would)."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:  # keep-alive: requests until the sender closes
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                await reader.readexactly(length)
                with count.get_lock():
                    count.value += 1
                writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    async def serve() -> None:
        server = await asyncio.start_server(answer, "127.0.0.1", port, backlog=1024)
        await server.serve_forever()

    asyncio.run(serve())


def phase(base: str, sessions: list[tuple[str, str]], callers: int, seconds: float) -> float:
    """Rounds per second posted by `callers` threads to `sessions` for `seconds`."""
    played = [0] * callers
    stop = time.monotonic() + seconds

    def call(index: int) -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            turn = index
            while time.monotonic() < stop:
                path, token = sessions[turn % len(sessions)]
                turn += callers
                answer = client.post(path, json=ROUND, headers={"Authorization": f"Bearer {token}"})
                if answer.status_code != 200:
                    raise RuntimeError(f"{answer.status_code}: {answer.text}")
                played[index] += 1

    started = time.monotonic()
    threads = [threading.Thread(target=call, args=(index,)) for index in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(played) / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--callers", type=int, default=4)
    parser.add_argument("--database", default=None)
    args = parser.parse_args()
    from app.store.database import upgrade_to_head

    with tempfile.TemporaryDirectory() as folder:
        url = args.database or f"sqlite:///{folder}/bench.db"
        upgrade_to_head(url)
        port = free_port()
        count = multiprocessing.Value("l", 0)
        receiver = multiprocessing.Process(target=receive, args=(port, count), daemon=True)
        receiver.start()
        env = {
            "DATABASE_URL": url,
            "ARBITER_WEBHOOK_ALLOW_PRIVATE": "true",
            "ARBITER_ODDS_PRESTART": "0",
            "ARBITER_LOG_REQUESTS": "false",
        }
        try:
            with server("app.main:create_app", env, factory=True) as base:
                plain: list[tuple[str, str]] = []
                subscribed: list[tuple[str, str]] = []
                with httpx.Client(base_url=base, timeout=30) as client:
                    for group in (plain, subscribed):
                        for _ in range(args.sessions):
                            made = client.post("/v1/arm-wrestles", json=NEVER_ENDS).json()
                            group.append(
                                (f"/v1/arm-wrestles/{made['id']}/rounds", made["tokens"]["gm"])
                            )
                    for path, token in subscribed:
                        hook = client.post(
                            path.removesuffix("/rounds") + "/webhooks",
                            json={"url": f"http://127.0.0.1:{port}/hook"},
                            headers={"Authorization": f"Bearer {token}"},
                        )
                        assert hook.status_code == 201, hook.text
                phase(base, plain, args.callers, 1.0)  # warm-up
                rates: dict[str, list[float]] = {"without": [], "with": []}
                for _ in range(args.repeats):
                    rates["without"].append(phase(base, plain, args.callers, args.seconds))
                    rates["with"].append(phase(base, subscribed, args.callers, args.seconds))
                without = statistics.median(rates["without"])
                with_one = statistics.median(rates["with"])
                shown = {way: " ".join(f"{rate:.0f}" for rate in got) for way, got in rates.items()}
                print(f"rounds/s without a subscription: {without:7.1f}  ({shown['without']})")
                print(f"rounds/s with one per session:   {with_one:7.1f}  ({shown['with']})")
                print(f"ratio of the medians: {with_one / without:.2f} (target ≥ 0.80)")
                expected = round(sum(rates["with"]) * args.seconds)
                drained = time.monotonic()
                while count.value < expected and time.monotonic() - drained < 120:
                    time.sleep(0.05)
                print(
                    f"deliveries received: {count.value} (about {expected} rounds played with "
                    f"a subscription); the outbox drained {time.monotonic() - drained:.2f} s "
                    "after the last round"
                )
        finally:
            receiver.terminate()


if __name__ == "__main__":
    main()
