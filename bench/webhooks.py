"""What a webhook subscription costs a round: rounds per second with one subscription per
session against rounds per second with none (target: at least 0.8 times).

    .venv/bin/python bench/webhooks.py [--seconds 3] [--repeats 4] [--sessions 256] [--callers 4]
        [--database URL]

Arbiter (one uvicorn worker; SQLite in a temporary file, or the PostgreSQL database given,
which must be migrated and empty of sessions) serves `--sessions` arm wrestles that never
end; `--callers` threads post rounds to them for `--seconds`, first to sessions without a
subscription, then to sessions each subscribed to a receiver (a separate process answering
204 at once, raw asyncio, keep-alive), alternating `--repeats` times, and the median rounds
per second of each way are printed with their ratio (alternating, so that another load on
the machine weighs on both alike). The service's delivery worker sends the subscribed
sessions' events meanwhile, in the same process: its cost is in the figure. The server's CPU
per round (from /proc, each phase until the receiver has every delivery; and the part of it
spent in the kernel, on the log's page writes and the sockets) is printed too, and
the receiver's per delivery: it runs on the same cores, so it weighs on the rounds per second
of the phases with a subscription, not on the server's CPU. Then that every delivery arrived,
and how many deliveries the worker's passes sent each (`arbiter_webhook_passes_total`).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import secrets
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

from bench.run import free_port, served  # noqa: E402

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


def cpu_times(pid: int) -> tuple[float, float]:
    """The CPU time process `pid` has used in user mode and in the kernel (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) process `pid` has used."""
    return sum(cpu_times(pid))


def counted(base: str, name: str) -> float:
    """A counter of the server's `/metrics` (its samples summed over their labels)."""
    total = 0.0
    for line in httpx.get(base + "/metrics", timeout=30).text.splitlines():
        if line.startswith(name) and line[len(name)] in " {":
            total += float(line.rsplit(" ", 1)[1])
    return total


def phase(
    base: str, sessions: list[tuple[str, str]], callers: int, seconds: float
) -> tuple[float, int]:
    """Rounds per second posted by `callers` threads to `sessions` for `seconds`, and how
    many."""
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
    return sum(played) / (time.monotonic() - started), sum(played)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--sessions", type=int, default=256)
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
            # A verifiable session's seed needs a key on PostgreSQL: one for this run alone.
            "ARBITER_DICE_KEY": os.environ.get("ARBITER_DICE_KEY", secrets.token_hex(32)),
            "ARBITER_WEBHOOK_ALLOW_PRIVATE": "true",
            "ARBITER_ODDS_PRESTART": "0",
            "ARBITER_LOG_REQUESTS": "false",
        }
        try:
            with served("app.main:create_app", env, factory=True) as (base, pid):
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
                cpu: dict[str, list[float]] = {"without": [], "with": []}
                in_kernel: dict[str, list[float]] = {"without": [], "with": []}
                sent = 0
                receiving: list[float] = []
                passes = -counted(base, "arbiter_webhook_passes_total")
                attempts = -counted(base, "arbiter_webhook_attempts_total")
                for _ in range(args.repeats):
                    for way, sessions in (("without", plain), ("with", subscribed)):
                        used = cpu_seconds(pid)
                        kernel = cpu_times(pid)[1]
                        heard = cpu_seconds(receiver.pid) if receiver.pid else 0.0
                        rate, played = phase(base, sessions, args.callers, args.seconds)
                        if way == "with":
                            # Its deliveries' cost too: until the receiver has them all.
                            sent += played
                            drained = time.monotonic()
                            while count.value < sent and time.monotonic() - drained < 60:
                                time.sleep(0.01)
                        rates[way].append(rate)
                        cpu[way].append((cpu_seconds(pid) - used) / played * 1000)
                        in_kernel[way].append((cpu_times(pid)[1] - kernel) / played * 1000)
                        if way == "with" and receiver.pid:
                            receiving.append((cpu_seconds(receiver.pid) - heard) / played * 1000)
                without = statistics.median(rates["without"])
                with_one = statistics.median(rates["with"])
                shown = {way: " ".join(f"{rate:.0f}" for rate in got) for way, got in rates.items()}
                print(f"rounds/s without a subscription: {without:7.1f}  ({shown['without']})")
                print(f"rounds/s with one per session:   {with_one:7.1f}  ({shown['with']})")
                print(f"ratio of the medians: {with_one / without:.2f} (target ≥ 0.80)")
                cpu_without = statistics.median(cpu["without"])
                cpu_with = statistics.median(cpu["with"])
                print(
                    f"server CPU per round: {cpu_without:.3f} ms without, {cpu_with:.3f} ms with "
                    f"(its delivery included): the rounds one CPU serves, with/without: "
                    f"{cpu_without / cpu_with:.2f}"
                )
                print(
                    f"  of which in the kernel (system calls: the log's pages, the sockets): "
                    f"{statistics.median(in_kernel['without']):.3f} ms without, "
                    f"{statistics.median(in_kernel['with']):.3f} ms with"
                )
                print(
                    f"the receiver's CPU per delivery (another process on the same cores): "
                    f"{statistics.median(receiving):.3f} ms"
                )
                print(f"deliveries received: {count.value} of {sent} rounds with a subscription")
                passes += counted(base, "arbiter_webhook_passes_total")
                attempts += counted(base, "arbiter_webhook_attempts_total")
                print(
                    f"the worker's passes: {passes:.0f}, {attempts / max(passes, 1):.1f} "
                    f"attempts a pass (ARBITER_WEBHOOK_BATCH_SECONDS="
                    f"{os.environ.get('ARBITER_WEBHOOK_BATCH_SECONDS', 'default')})"
                )
        finally:
            receiver.terminate()


if __name__ == "__main__":
    main()
