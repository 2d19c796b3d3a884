"""Live-event fan-out that no one notices: thousands of streams of one session, a round a second.

    .venv/bin/python -m bench.fanout [--streams 2000] [--tokens 5] [--seconds 60]
        [--traced-rounds 10] [--skip-latency] [--skip-traced] [--no-trim] [--frames 1]
        [--dump PATH]

Arbiter runs as a real process (one uvicorn worker, SQLite), serving one race of `--tokens`
competitors: its streams are opened with the competitors' party tokens in turn (2,000 over five
tokens is 400 a token: under the per-token cap of 500, and at the per-session cap of 2,000),
by a separate process of raw asyncio connections that reopens a stream the server ends, with
`Last-Event-ID`, as a browser's EventSource does. Then a round is posted every second for
`--seconds`, while a thread times `POST /v1/gurps/quick-contest` (an unrelated request) one
after another. Printed, for the quick contest: p50, p99, p99.9 and max with no stream open,
with the streams open and idle, and during the rounds (and p99's ratio to the no-stream p99);
each round's fan-out (posted until the last stream showed it); the collector's full
collections meanwhile; the server's resident set before the streams, with them open, after
they closed, and after `malloc_trim(0)` then; the interpreter's 1 MiB arenas held and the
bytes of their blocks in use. `--no-trim` leaves out the app's own trim after a burst of
streams ends (app/api/sessions/events.py, `MemoryTrim`), to measure what it gives.

Then the same again with the server under tracemalloc (`PYTHONTRACEMALLOC=1`; slower, so
no latency is printed from it), for the memory Python allocates per open stream (traced
with the streams open, less before, over the streams) and after they closed, with the lines
that hold the most of it. With `--frames N` (more than 1) tracemalloc keeps N frames of each
allocation from the moment before the streams open (tracing from the start with deep
tracebacks takes minutes), and what the open streams hold is grouped by whole traceback
instead (each group's innermost frames printed): what each layer of a stream holds, rather
than the line that happened to allocate it; `--dump PATH` writes that snapshot
(`tracemalloc.Snapshot.load`) for a closer look.

The server answers `/_bench/memory` here (`traced_app` wraps the app for the bench alone):
its resident set, tracemalloc's figures and the streams it serves.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import os
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.events import PATIENCE_S, Prober, StreamReader, Subscribers  # noqa: E402
from bench.run import QUICK_CONTEST  # noqa: E402
from bench.run import percentile as pct  # noqa: E402
from bench.run import served as serve  # noqa: E402

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


# --- the server, for the bench -------------------------------------------------------------------


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def pymalloc_arenas() -> dict[str, int]:
    """The interpreter's small-object allocator: its arenas (1 MiB each) held, and the bytes
    of its blocks in use (`sys._debugmallocstats`, which writes to the C stderr)."""
    with tempfile.TemporaryFile() as captured:
        saved = os.dup(2)
        os.dup2(captured.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        text = captured.read().decode()
    wanted = {
        "# arenas allocated current": "arenas",
        "# bytes in allocated blocks": "allocated",
        "# bytes in available blocks": "available",
    }
    found: dict[str, int] = {}
    for line in text.splitlines():
        label, _, value = line.rpartition("=")
        label = label.strip()
        if label in wanted:
            found[wanted[label]] = int(value.strip().replace(",", ""))
    return found


def traced_app() -> Any:
    """Arbiter's app, answering `GET /_bench/memory` too (`?collect=1` collects garbage first;
    `?mark=1` keeps a tracemalloc snapshot; `?top=N` the N lines grown most since it, or with
    `&group=traceback` the N tracebacks, each with its innermost frames)."""
    from app.main import create_app

    app = create_app()
    if os.environ.get("ARBITER_BENCH_NO_TRIM"):
        # The app's own trim after a burst of streams ends, left out to be measured apart.
        from app.api.sessions import events

        events.TRIM_AFTER = sys.maxsize
        events.TRIM_BURST_S = 0.0
    marked: list[tracemalloc.Snapshot] = []
    #: The collector's full collections: how many, and the longest (ms).
    full: list[float] = []
    began = [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        if info["generation"] == 2:
            if phase == "start":
                began[0] = time.perf_counter()
            else:
                full.append((time.perf_counter() - began[0]) * 1000)

    gc.callbacks.append(timed)

    def figures(query: dict[str, str]) -> dict[str, Any]:
        # Since the last collecting call: the server's own, not the bench's.
        collections = {"full_collections": len(full), "longest_full_ms": max(full, default=0.0)}
        if "collect" in query:
            gc.collect()
            full.clear()
        if "trim" in query:
            ctypes.CDLL(None).malloc_trim(0)
        hub = getattr(app.state, "events", None)
        answer: dict[str, Any] = {
            "rss": rss_bytes(),
            "streams": sum(len(s) for s in hub._subscribers.values()) if hub else 0,
            "objects": len(gc.get_objects()),
            **collections,
            "pymalloc": pymalloc_arenas(),
        }
        frames = int(os.environ.get("ARBITER_BENCH_FRAMES", "0"))
        if frames and "mark" in query and not tracemalloc.is_tracing():
            # Deep tracebacks from the start would take minutes of imports: from here on.
            tracemalloc.start(frames)
        if tracemalloc.is_tracing():
            answer["traced"] = tracemalloc.get_traced_memory()[0]
            if "mark" in query:
                marked[:] = [tracemalloc.take_snapshot()]
            if "top" in query and marked:
                group = query.get("group", "lineno")
                snapshot = tracemalloc.take_snapshot()
                if os.environ.get("ARBITER_BENCH_DUMP") and group == "traceback":
                    snapshot.dump(os.environ["ARBITER_BENCH_DUMP"])
                grown = snapshot.compare_to(marked[0], group)
                answer["top"] = [
                    str(stat)
                    if group == "lineno"
                    else "\n".join([str(stat).split(":", 2)[-1].strip(), *traceback_of(stat)])
                    for stat in grown[: int(query["top"])]
                ]
        return answer

    async def with_memory(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/_bench/memory":
            query = dict(
                part.split("=", 1) for part in scope["query_string"].decode().split("&") if part
            )
            body = orjson.dumps(figures(query))
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return with_memory


def traceback_of(stat: tracemalloc.StatisticDiff, frames: int = 8) -> list[str]:
    """The innermost `frames` frames of a grown traceback, innermost last, shortened."""
    shown = []
    for frame in list(stat.traceback)[-frames:]:  # oldest first
        name = frame.filename
        for prefix in (str(ROOT) + "/", "site-packages/", "lib/python3."):
            if prefix in name:
                name = name.split(prefix, 1)[1]
        shown.append(f"        {name}:{frame.lineno}")
    return shown


@contextlib.contextmanager
def served(
    url: str, traced: bool, trim: bool = True, frames: int = 1, dump: str = ""
) -> Iterator[str]:
    """`traced_app` served on the SQLite database at `url` (bench/run.py's `served`: one
    uvicorn worker, as scripts/dev.py serves Arbiter): its base URL."""
    env = {
        **({} if trim else {"ARBITER_BENCH_NO_TRIM": "1"}),
        "DATABASE_URL": url,
        "ARBITER_ODDS_PRESTART": "0",
        "ARBITER_RATE_LIMIT_PER_MINUTE": "100000000",
    }
    if traced and frames > 1:
        env["ARBITER_BENCH_FRAMES"] = str(frames)
        if dump:
            env["ARBITER_BENCH_DUMP"] = dump
    elif traced:
        env["PYTHONTRACEMALLOC"] = "1"
    patience = PATIENCE_S * 5  # tracemalloc starts slowly
    with serve("bench.fanout:traced_app", env, factory=True, patience=patience) as (base, _pid):
        yield base


def memory(client: httpx.Client, **query: int | str) -> dict[str, Any]:
    answer = client.get("/_bench/memory", params=query, timeout=PATIENCE_S * 5)
    figures: dict[str, Any] = answer.json()
    return figures


# --- the streams' process ------------------------------------------------------------------------


class FrameReader(StreamReader):
    """A stream's reader finding the last event id in what came without a regular expression
    (a race's events are 15 KB each, 2,000 of them a round: the reader must not be what is
    measured). An event's `data` is one line of JSON, so `\nid: ` begins an event only."""

    def data_received(self, data: bytes) -> None:
        chunk = self.tail + data
        cut = chunk.rfind(b"\n\n")
        if cut < 0:
            self.tail = chunk
            return
        self.tail = chunk[cut + 2 :]
        start = chunk.rfind(b"\nid: ", 0, cut + 1)
        if start >= 0:
            end = chunk.index(b"\n", start + 5)
            self.owner.seen(self.index, int(chunk[start + 5 : end]))


class TokenSubscribers(Subscribers):
    """Streams opened with several tokens in turn."""

    def __init__(self, host: str, port: int, path: str, tokens: list[str], count: int) -> None:
        super().__init__(host, port, path, tokens[0], count)
        self.tokens = tokens

    async def open(self, index: int) -> None:
        self.token = self.tokens[index % len(self.tokens)]
        request = self.request(self.latest[index])  # before any other stream's token is set
        await self.loop.create_connection(
            lambda: FrameReader(self, index, request), self.host, self.port
        )


def subscribers_main(arguments: list[str]) -> None:
    host, port, path, tokens, count = arguments

    async def run() -> None:
        await TokenSubscribers(host, int(port), path, tokens.split(","), int(count)).run()

    asyncio.run(run())


# --- one run -----------------------------------------------------------------------------------


def latency(values: list[float]) -> str:
    if not values:
        return "no requests"
    return (
        f"p50 {pct(values, 0.5):6.2f}  p99 {pct(values, 0.99):7.2f}  "
        f"p99.9 {pct(values, 0.999):7.2f}  max {max(values):7.2f} ms  (n={len(values)})"
    )


def race(tokens: int, rounds: int) -> dict[str, Any]:
    """A race that lasts `rounds` rounds and a few more (a competitor runs an increment a round)."""
    return {
        "course": {"increments": [{"check": "strength"}] * (rounds + 5)},
        "competitors": [{"name": f"Runner {n}", "speed": 30} for n in range(tokens)],
    }


def megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB"


def run(
    streams: int,
    tokens: int,
    rounds: int,
    *,
    traced: bool,
    trim: bool = True,
    frames: int = 1,
    dump: str = "",
) -> None:
    from app.store.database import upgrade_to_head

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/fanout.db"
        upgrade_to_head(url)
        with (
            served(url, traced, trim, frames, dump) as base,
            httpx.Client(base_url=base, timeout=PATIENCE_S) as client,
        ):
            created = client.post("/v1/races", json=race(tokens, rounds)).json()
            session = created["id"]
            gm = {"authorization": f"Bearer {created['tokens']['gm']}"}
            party_tokens = list(created["tokens"]["parties"].values())
            # Warm the server's paths (the first requests import and cache what they use).
            for _ in range(200):
                client.post("/v1/gurps/quick-contest", json=QUICK_CONTEST)
            with Prober(base) as prober:
                time.sleep(0.5)
                start = time.perf_counter()
                time.sleep(0 if traced else 8)
                alone = prober.between(start, time.perf_counter())
            before = memory(client, collect=1, mark=1)
            host, port = base.removeprefix("http://").split(":")
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bench.fanout",
                    "--subscribe",
                    host,
                    port,
                    f"/v1/races/{session}/events",
                    ",".join(party_tokens),
                    str(streams),
                ],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert process.stdout is not None
            shown: dict[int, float] = {}
            reopened = [0]
            every_stream = threading.Event()

            def follow() -> None:
                assert process.stdout is not None
                for line in process.stdout:
                    if line.startswith("v "):
                        _, version, again = line.split()
                        shown[int(version)] = time.perf_counter()
                        reopened[0] = int(again)
                        every_stream.set()

            reader = threading.Thread(target=follow, daemon=True)
            reader.start()
            try:
                opening = time.perf_counter()
                assert every_stream.wait(PATIENCE_S * 5), "the streams did not all open"
                opened_in = time.perf_counter() - opening
                opened = memory(client, collect=1)
                with Prober(base) as prober:
                    time.sleep(0.5)
                    start = time.perf_counter()
                    time.sleep(0 if traced else 8)
                    idle = prober.between(start, time.perf_counter())
                    posted: dict[int, float] = {}
                    start = time.perf_counter()
                    for number in range(rounds):
                        due = start + number
                        time.sleep(max(0.0, due - time.perf_counter()))
                        posted[number + 2] = time.perf_counter()
                        answer = client.post(f"/v1/races/{session}/rounds", json={}, headers=gm)
                        assert answer.status_code == 200, answer.text
                    time.sleep(1.0)
                    during = prober.between(start, time.perf_counter())
                deadline = time.monotonic() + PATIENCE_S
                while max(shown) < rounds + 1 and time.monotonic() < deadline:
                    time.sleep(0.1)
                grouping = {"group": "traceback"} if frames > 1 else {}
                open_now = memory(client, collect=1, top=12 if frames == 1 else 25, **grouping)
            finally:
                process.kill()
                process.wait()
            deadline = time.monotonic() + PATIENCE_S
            while memory(client)["streams"] and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(2.0)
            after = memory(client, collect=1, top=8)
            trimmed = memory(client, trim=1)
            spans = [(shown[v] - posted[v]) * 1000 for v in posted if v in shown]

    label = ("under tracemalloc" if traced else "no tracemalloc") + ("" if trim else ", no trim")
    print(f"--- {streams} streams of one race over {tokens} tokens, {rounds} rounds ({label})")
    print(f"streams open in {opened_in:.1f} s; reopened by the server ending them: {reopened[0]}")
    if not traced:
        print(f"quick contest, no stream open:   {latency(alone)}")
        print(f"quick contest, streams idle:     {latency(idle)}")
        print(f"quick contest, a round a second: {latency(during)}")
        print(
            f"  p99 during / p99 with no stream: {pct(during, 0.99) / pct(alone, 0.99):.2f}; "
            f"p99.9: {pct(during, 0.999) / pct(alone, 0.999):.2f}"
        )
        print(
            f"the collector's full collections with the streams open: "
            f"{open_now['full_collections']}, the longest {open_now['longest_full_ms']:.0f} ms"
        )
        print(
            f"fan-out of a round to every stream: p50 {pct(spans, 0.5):.0f} ms, "
            f"max {max(spans, default=float('nan')):.0f} ms ({len(spans)} of {rounds} rounds)"
        )
    print(
        f"resident set: before {megabytes(before['rss'])}, streams open "
        f"{megabytes(opened['rss'])}, after the rounds {megabytes(open_now['rss'])} "
        f"({open_now['streams']} streams), after they closed {megabytes(after['rss'])}"
    )
    print(
        f"  after they closed, malloc_trim(0) called: {megabytes(trimmed['rss'])}; the "
        f"interpreter's arenas (1 MiB) held: {before['pymalloc'].get('arenas')} before, "
        f"{open_now['pymalloc'].get('arenas')} open, {after['pymalloc'].get('arenas')} after; "
        f"their blocks in use: {megabytes(before['pymalloc'].get('allocated', 0))} before, "
        f"{megabytes(after['pymalloc'].get('allocated', 0))} after"
    )
    print(
        f"  per open stream: {(opened['rss'] - before['rss']) / streams / 1024:.1f} KB "
        f"of resident set opened, {(open_now['rss'] - before['rss']) / streams / 1024:.1f} KB "
        f"after the rounds; objects tracked by the collector: {before['objects']} before, "
        f"{open_now['objects']} open, {after['objects']} after"
    )
    if traced:
        per_stream = (opened["traced"] - before["traced"]) / streams
        later = (open_now["traced"] - before["traced"]) / streams
        print(
            f"tracemalloc: {megabytes(before['traced'])} before, "
            f"{megabytes(opened['traced'])} open ({per_stream / 1024:.1f} KB a stream; "
            f"{later / 1024:.1f} KB after the rounds), "
            f"{megabytes(after['traced'])} after they closed"
        )
        print("  grown most with the streams open (file:line, size, count):")
        for line in open_now.get("top", []):
            print(f"    {line}")
        print("  grown most, the streams closed (what outlived them):")
        for line in after.get("top", []):
            print(f"    {line}")


def main() -> None:
    if sys.argv[1:2] == ["--subscribe"]:
        subscribers_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--tokens", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--traced-rounds", type=int, default=10)
    parser.add_argument("--skip-traced", action="store_true")
    parser.add_argument(
        "--frames", type=int, default=1, help="frames tracemalloc keeps (over 1: by traceback)"
    )
    parser.add_argument(
        "--dump", default="", help="with --frames: the open streams' snapshot written there"
    )
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument(
        "--no-trim", action="store_true", help="leave out the app's trim after streams end"
    )
    options = parser.parse_args()
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = min(hard, max(soft, options.streams * 2 + 512))
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    if not options.skip_latency:
        run(
            options.streams, options.tokens, options.seconds, traced=False, trim=not options.no_trim
        )
    if not options.skip_traced:
        run(
            options.streams,
            options.tokens,
            options.traced_rounds,
            traced=True,
            trim=not options.no_trim,
            frames=options.frames,
            dump=options.dump,
        )


if __name__ == "__main__":
    main()
