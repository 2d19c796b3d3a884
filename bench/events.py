"""Live events at scale, and a hung Redis: what an unrelated request waits meanwhile.

    .venv/bin/python bench/events.py [--subscribers 2000] [--rounds 20] [--hung-seconds 12]

1. **Fan-out.** Arbiter (one uvicorn worker, SQLite) serves `--subscribers` streams of one
   arm wrestle, opened by a separate process of raw asyncio connections (it reconnects a
   stream the server ends, with `Last-Event-ID`, as a browser's EventSource does). Rounds are
   then posted one at a time, each once every stream has shown the one before, while another
   thread times `POST /v1/gurps/quick-contest` over and over. Printed: the quick contest's
   p50/p99/max idle (every stream open, no round) and during the fan-outs, each fan-out's time
   (from posting the round until the last stream showed it) and the streams reopened.
2. **A hung Redis.** Arbiter with the rate limit in a "Redis" that accepts connections and
   reads commands but never answers (a TCP server in this process). Printed: the quick
   contest's p50/p99/max over `--hung-seconds` from 4 concurrent callers, and how many took
   over 100 ms.

The streams' caps (ARBITER_EVENTS_MAX_STREAMS_PER_SESSION, ..._PER_TOKEN) are raised for the
fan-out: its streams are one session's, under one token.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import QUICK_CONTEST, server  # noqa: E402
from bench.run import percentile as pct  # noqa: E402

LONG_ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "target": 100,
    "max_rounds": 10_000,
}
EVENT_ID = re.compile(rb"(?:^|\n)id: (\d+)\n")
#: A bound on any one wait of the benchmark (not a figure it reports).
PATIENCE_S = 60.0


def figures(values: list[float]) -> str:
    if not values:
        return "no requests"
    return (
        f"p50 {pct(values, 0.5):7.2f}  p99 {pct(values, 0.99):7.2f}  max {max(values):7.2f} ms"
        f"  (n={len(values)})"
    )


# --- the subscribers' process ----------------------------------------------------------------


class StreamReader(asyncio.Protocol):
    """One raw `text/event-stream` connection: the highest event id it has shown."""

    def __init__(self, owner: Subscribers, index: int, request: bytes) -> None:
        self.owner = owner
        self.index = index
        self.request = request
        self.tail = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        chunk = self.tail + data
        cut = chunk.rfind(b"\n\n")
        if cut < 0:
            self.tail = chunk
            return
        self.tail = chunk[cut + 2 :]
        found = EVENT_ID.findall(chunk[: cut + 2])
        if found:
            self.owner.seen(self.index, int(found[-1]))

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: ARG002 - reopened alike
        self.owner.lost(self.index)


class Subscribers:
    """`count` streams of one session; prints `v <version>` once every stream has shown it."""

    def __init__(self, host: str, port: int, path: str, token: str, count: int) -> None:
        self.host, self.port, self.path, self.token = host, port, path, token
        self.count = count
        self.latest = [0] * count
        self.at_least: dict[int, int] = {}
        self.announced = 0
        self.reopened = 0
        self.loop = asyncio.get_running_loop()

    def request(self, last: int) -> bytes:
        resume = f"Last-Event-ID: {last}\r\n" if last else ""
        return (
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\n"
            f"Authorization: Bearer {self.token}\r\nAccept: text/event-stream\r\n{resume}\r\n"
        ).encode()

    async def open(self, index: int) -> None:
        await self.loop.create_connection(
            lambda: StreamReader(self, index, self.request(self.latest[index])),
            self.host,
            self.port,
        )

    def seen(self, index: int, version: int) -> None:
        before = self.latest[index]
        if version <= before:
            return
        self.latest[index] = version
        for reached in range(max(before + 1, self.announced + 1), version + 1):
            self.at_least[reached] = self.at_least.get(reached, 0) + 1
        while self.at_least.get(self.announced + 1, 0) >= self.count:
            self.announced += 1
            del self.at_least[self.announced]
            print(f"v {self.announced} {self.reopened}", flush=True)

    def lost(self, index: int) -> None:
        self.reopened += 1
        self.loop.create_task(self.open(index))

    async def run(self) -> None:
        for start in range(0, self.count, 100):
            batch = range(start, min(self.count, start + 100))
            await asyncio.gather(*(self.open(index) for index in batch))
        await asyncio.Event().wait()


def subscribers_main(arguments: list[str]) -> None:
    host, port, path, token, count = arguments
    asyncio.run(_subscribe(host, int(port), path, token, int(count)))


async def _subscribe(host: str, port: int, path: str, token: str, count: int) -> None:
    await Subscribers(host, port, path, token, count).run()


# --- the fan-out -----------------------------------------------------------------------------


class Prober:
    """Times `POST /v1/gurps/quick-contest`, one after another, until stopped."""

    def __init__(self, base: str, callers: int = 1) -> None:
        self.base = base
        self.callers = callers
        self.timed: list[tuple[float, float]] = []  # (when it began, milliseconds)
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.run) for _ in range(callers)]

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=PATIENCE_S) as client:
            while not self.stopping.is_set():
                began = time.perf_counter()
                answer = client.post("/v1/gurps/quick-contest", json=QUICK_CONTEST)
                took = (time.perf_counter() - began) * 1000
                assert answer.status_code == 200, answer.text
                self.timed.append((began, took))

    def __enter__(self) -> Prober:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join()

    def between(self, start: float, end: float) -> list[float]:
        return [took for began, took in self.timed if start <= began < end]


def fan_out(subscribers: int, rounds: int) -> None:
    from app.store.database import upgrade_to_head

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/events.db"
        upgrade_to_head(url)
        env = {
            "DATABASE_URL": url,
            "ARBITER_EVENTS_MAX_STREAMS_PER_SESSION": str(subscribers * 2),
            "ARBITER_EVENTS_MAX_STREAMS_PER_TOKEN": str(subscribers * 2),
            "ARBITER_ODDS_PRESTART": "0",
        }
        with server("app.main:create_app", env, factory=True) as base:
            client = httpx.Client(base_url=base, timeout=PATIENCE_S)
            created = client.post("/v1/arm-wrestles", json=LONG_ARM_WRESTLE).json()
            session, token = created["id"], created["tokens"]["gm"]
            host, port = base.removeprefix("http://").split(":")
            process = subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--subscribe",
                    host,
                    port,
                    f"/v1/arm-wrestles/{session}/events",
                    token,
                    str(subscribers),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            assert process.stdout is not None
            lines = process.stdout

            def reached() -> tuple[int, int]:
                line = lines.readline()
                assert line.startswith("v "), f"the subscribers' process said {line!r}"
                _, version, reopened = line.split()
                return int(version), int(reopened)

            try:
                began = time.perf_counter()
                assert reached()[0] == 1  # every stream shows the session as it is
                print(f"{subscribers} streams open in {time.perf_counter() - began:.1f} s")
                headers = {"authorization": f"Bearer {token}"}
                with Prober(base) as prober:
                    idle_start = time.perf_counter()
                    while len(prober.timed) < 200:
                        time.sleep(0.01)
                    idle = prober.between(idle_start, time.perf_counter())
                    spans: list[float] = []
                    fan_start = time.perf_counter()
                    reopened = 0
                    for number in range(rounds):
                        posted = time.perf_counter()
                        answer = client.post(
                            f"/v1/arm-wrestles/{session}/rounds", json={}, headers=headers
                        )
                        assert answer.status_code == 200, answer.text
                        version, reopened = reached()
                        assert version == number + 2
                        spans.append((time.perf_counter() - posted) * 1000)
                    during = prober.between(fan_start, time.perf_counter())
            finally:
                process.kill()
                process.wait()
            print(f"quick contest, streams idle:        {figures(idle)}")
            print(f"quick contest, during the fan-outs: {figures(during)}")
            print(
                f"fan-out of one round to {subscribers} streams: "
                f"p50 {pct(spans, 0.5):.0f} ms, max {max(spans):.0f} ms "
                f"({rounds} rounds); streams reopened: {reopened}"
            )


# --- a hung Redis ------------------------------------------------------------------------------


class HungRedis:
    """A TCP server that accepts connections and reads whatever comes, never answering."""

    def __init__(self) -> None:
        self.port = 0
        self.connections = 0
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def swallow(reader: asyncio.StreamReader, _writer: asyncio.StreamWriter) -> None:
            self.connections += 1
            while await reader.read(65536):
                pass

        listening = self.loop.run_until_complete(asyncio.start_server(swallow, "127.0.0.1", 0))
        self.port = listening.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    def __enter__(self) -> HungRedis:
        self.thread.start()
        self.ready.wait()
        return self

    def __exit__(self, *_: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


def hung_redis(seconds: float) -> None:
    from app.store.database import upgrade_to_head

    with tempfile.TemporaryDirectory() as folder, HungRedis() as hung:
        url = f"sqlite:///{folder}/redis.db"
        upgrade_to_head(url)
        env = {
            "DATABASE_URL": url,
            "ARBITER_RATE_LIMIT_PER_MINUTE": "100000000",
            "ARBITER_ODDS_PRESTART": "0",
        }
        # The same load with the rate limit kept in the process: what this machine gives.
        for name, extra in (
            ("rate limit per process, no Redis", {}),
            (
                "rate limit in a hung Redis",
                {"ARBITER_REDIS_URL": f"redis://127.0.0.1:{hung.port}/0"},
            ),
        ):
            with (
                server("app.main:create_app", {**env, **extra}, factory=True) as base,
                Prober(base, 4) as prober,
            ):
                start = time.perf_counter()
                time.sleep(seconds)
                timed = prober.between(start, time.perf_counter())
            slow = sum(took > 100 for took in timed)
            print(
                f"quick contest, {name} ({seconds:.0f} s, 4 callers): "
                f"{figures(timed)}; over 100 ms: {slow}"
            )
        print(f"connections the hung Redis accepted: {hung.connections}")


def main() -> None:
    if sys.argv[1:2] == ["--subscribe"]:
        subscribers_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscribers", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--hung-seconds", type=float, default=12.0)
    parser.add_argument("--skip-fan-out", action="store_true")
    parser.add_argument("--skip-hung-redis", action="store_true")
    options = parser.parse_args()
    # Room for the subscribers' connections (and the server's, which inherits the limit).
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = min(hard, max(soft, options.subscribers * 2 + 512))
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ImportError, ValueError, OSError):
        pass
    socket.setdefaulttimeout(PATIENCE_S)
    if not options.skip_fan_out:
        fan_out(options.subscribers, options.rounds)
    if not options.skip_hung_redis:
        hung_redis(options.hung_seconds)


if __name__ == "__main__":
    main()
