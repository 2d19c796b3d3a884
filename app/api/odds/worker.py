"""The odds worker: one process for the heavy questions, the bounded queue in front of it, and
the cache of their answers (docs/api.md#odds; ARCHITECTURE.md, "Speed").

* **One process** ("spawn": no fork of a running event loop), shared by every app of this
  process. When it ends (killed, out of memory), the next question or `/readyz` starts a new
  one; until that one has started, `/readyz` answers 503 naming the reason. A question whose
  worker ended under it is asked once more of the new one.
* **This process's own queue in front of it**: the worker is handed one question at a time,
  so that every question still waiting here can be dropped. At most `queue_limit` wait (one
  more is an `OddsBusy` 503 with `Retry-After`); the quickest kind of question goes first
  (each kind's recent time, kept here), so a Cairn question does not wait behind a hundred
  races, and with the queue full it takes the place of the newest of the slowest kind
  waiting (which is answered `OddsBusy` instead). Each question has a deadline: not answered
  by then, it is an `OddsLate` 503. A question whose caller went away, or whose deadline
  passed, before it started is never computed; one already computing finishes, and its answer
  is kept for the next asker.
* **Answers kept as bytes**, their encoded JSON (or an image), up to `cache_bytes` in all
  (questions included), oldest out first: a bound in memory, not in answers.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import math
import os
import select
import signal
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from multiprocessing import get_context
from typing import Any, Final, TypeVar, cast

import orjson
from starlette.types import Receive

from app.api.common import CALLER
from app.api.stopping import on_stop
from app.errors import ClientClosedRequest, OddsBusy, OddsLate, ServiceUnavailable
from app.rules import serial
from app.rules.messages import N_, m

T = TypeVar("T")

#: Each kind of question's recent time: this much of a new measure, the rest of the old.
COST_WEIGHT: Final = 0.3
#: The longest `Retry-After` asked of a caller turned away, in seconds.
MAX_RETRY_AFTER: Final = 30


class AnswerCache:
    """Encoded answers by question, at most `limit` bytes of them and their questions, the
    least recently asked leaving first. Shared by the threads that finish questions."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        #: Bytes held now: every kept answer's length and its question's (`weight`).
        self.bytes = 0
        self._entries: OrderedDict[Hashable, tuple[bytes, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> bytes | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: tuple[Any, ...], answer: bytes) -> None:
        cost = len(answer) + weight(key)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            if cost > self.limit:
                return  # larger than the whole cache: not kept
            self._entries[key] = (answer, cost)
            self.bytes += cost
            while self.bytes > self.limit:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.bytes -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


def weight(key: tuple[Any, ...]) -> int:
    """What a question counts in the cache: the length of its text (a JSON question's, or the
    written form of a dataclass's)."""
    return sum(len(part) if isinstance(part, str | bytes) else len(repr(part)) for part in key)


@dataclass(eq=False)
class _Question:
    key: tuple[Any, ...]
    kind: str
    function: Callable[..., Any]
    args: tuple[Any, ...]
    encode: bool
    deadline: float
    #: What the asker awaits: pending while the question waits (cancelling it drops it).
    answer: Future[bytes] = field(default_factory=Future)
    tries: int = 0
    #: Its asker stopped waiting (left, or past the deadline): not asked again of a new worker.
    abandoned: bool = False


def _run(function: Callable[..., Any], args: tuple[Any, ...], encode: bool) -> tuple[bytes, float]:
    """In the worker: the answer as JSON (`encode`), or the bytes the function gives, and the
    seconds it took (the worker's own: not the wait for a worker still starting)."""
    start = time.perf_counter()
    answer = function(*args)
    encoded = orjson.dumps(answer) if encode else cast(bytes, answer)
    return encoded, time.perf_counter() - start


#: The modules a new worker imports before its first question (about 0.7 s for the odds
#: routes and all they import): named by the modules themselves (`preload`), so that this
#: module, which they import, imports none of them.
_PRELOAD: list[str] = []


def preload(module: str) -> None:
    """Have every worker started from now on import `module` before its first question."""
    if module not in _PRELOAD:
        _PRELOAD.append(module)


def _ready(modules: tuple[str, ...]) -> int:
    """In the worker: import `modules` (the question's functions come from them); its process
    id."""
    for module in modules:
        importlib.import_module(module)
    return os.getpid()


def _follow_parent(parent: int) -> None:
    """In the worker: end when the server process is gone (killed, it cannot stop us)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _start_worker(parent: int) -> None:
    """In the worker, first: leave Ctrl+C to the server (a terminal sends it to the whole
    process group; the server's shutdown ends the worker, which would otherwise print a
    KeyboardInterrupt traceback), follow the parent, and load the bounded walk in the
    background."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _follow_parent(parent)
    threading.Thread(target=_warm, daemon=True).start()


def _warm() -> None:
    """In the worker: load the bounded walk's compiled kernel (about 1 s; the first time on a
    machine, its compilation, several) while the worker answers other questions."""
    from app.numeric import arm_wrestling

    arm_wrestling.warm()


class OddsWorker:
    """The worker process, the queue in front of it and the answer cache (module docstring).

    Its state is shared by the event loops of the process (each app's) and the pool's own
    threads, which finish questions and hand the worker the next: every change is made under
    one lock.
    """

    def __init__(
        self,
        *,
        queue_limit: int = 64,
        deadline_seconds: float = 10.0,
        cache_bytes: int = 32 * 1024 * 1024,
    ) -> None:
        self.queue_limit = queue_limit
        self.deadline_seconds = deadline_seconds
        self.cache = AnswerCache(cache_bytes)
        #: The worker's process id, once it has started (None before, and while a new one
        #: starts).
        self.pid: int | None = None
        self._lock = threading.RLock()
        self._pool: ProcessPoolExecutor | None = None
        self._pidfd: int | None = None
        #: Why the last worker ended, until its successor has started.
        self._ended: str | None = None
        self._waiting: dict[str, deque[_Question]] = {}
        self._queued = 0
        self._running: _Question | None = None
        #: Each kind of question's recent time in the worker, in seconds (the quickest kind
        #: waiting goes first).
        self.cost: dict[str, float] = {}

    def configure(self, *, queue_limit: int, deadline_seconds: float, cache_bytes: int) -> None:
        with self._lock:
            self.queue_limit = queue_limit
            self.deadline_seconds = deadline_seconds
            self.cache.limit = cache_bytes

    # --- the process ----------------------------------------------------------------------

    def start(self) -> None:
        """Start the worker now (a first heavy question then does not wait for its imports)."""
        with self._lock:
            self._live_pool()

    def problem(self) -> str | None:
        """Why odds questions cannot be answered now, for readiness (a worker that ended is
        replaced here); None when they can (or no worker was needed yet)."""
        with self._lock:
            if self._pool is None:
                return None
            self._live_pool()
            if self._ended is not None:
                return f"{self._ended}; a new odds worker is starting"
            return None

    def _dead(self, pool: ProcessPoolExecutor) -> bool:
        if pool._broken:
            return True
        if self._pidfd is None:
            return False
        ended, _, _ = select.select([self._pidfd], [], [], 0)
        return bool(ended)

    def _live_pool(self) -> ProcessPoolExecutor:
        """The worker's pool, a new one (and process) when there is none or its worker ended."""
        pool = self._pool
        if pool is not None and not self._dead(pool):
            return pool
        if pool is not None:
            self._ended = self._ended or "the odds worker process ended"
            # It stops its own threads once it knows; nothing is left in it to cancel.
            pool.shutdown(wait=False)
        self._close_pidfd()
        self.pid = None
        pool = ProcessPoolExecutor(
            max_workers=1,
            mp_context=get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(),),
        )
        self._pool = pool
        pool.submit(_ready, tuple(_PRELOAD)).add_done_callback(partial(self._started, pool))
        return pool

    def _started(self, pool: ProcessPoolExecutor, ready: Future[int]) -> None:
        with self._lock:
            if pool is not self._pool or ready.cancelled() or ready.exception() is not None:
                return  # replaced already, or it ended while starting: the next look replaces it
            self.pid = ready.result()
            self._ended = None
            try:
                self._pidfd = os.pidfd_open(self.pid)
            except (AttributeError, OSError):  # not Linux: the pool's own notice is enough
                self._pidfd = None

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            with suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None

    def shutdown(self) -> None:
        """End the worker and drop what waits (for tests; a server's ends with its process)."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._close_pidfd()
            self.pid = None
            self._ended = None
            dropped = [question for waiting in self._waiting.values() for question in waiting]
            self._waiting.clear()
            self._queued = 0
        for question in dropped:
            question.answer.cancel()
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    # --- questions ------------------------------------------------------------------------

    async def ask(self, function: Callable[..., Any], *args: Any, encode: bool = True) -> bytes:
        """`function(*args)` in the worker, from the cache when asked before: its answer as
        JSON (`encode`), or the bytes it returns."""
        key = (function.__module__, function.__qualname__, encode, *args)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        question = self._enqueue(key, function, args, encode)
        answer = asyncio.wrap_future(question.answer)
        request = CALLER.get()
        gone = None if request is None else asyncio.ensure_future(_left(request.receive))
        waiters: set[asyncio.Future[Any]] = {answer} if gone is None else {answer, gone}
        try:
            done, _ = await asyncio.wait(
                waiters,
                timeout=max(0.0, question.deadline - time.monotonic()),
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            if gone is not None:
                gone.cancel()
            # A question not started yet is dropped; one computing finishes (and is kept).
            question.abandoned = not answer.done()
            answer.cancel()
        if answer in done:
            return answer.result()
        if gone is not None and gone in done:
            raise ClientClosedRequest(N_("the client closed the connection before the answer"))
        raise OddsLate(
            m(
                "the odds were not computed within {seconds} s",
                seconds=f"{self.deadline_seconds:g}",
            ),
            retry_after=self._retry_after(),
        )

    def _enqueue(
        self,
        key: tuple[Any, ...],
        function: Callable[..., Any],
        args: tuple[Any, ...],
        encode: bool,
    ) -> _Question:
        with self._lock:
            kind = f"{function.__module__}.{function.__qualname__}"
            if self._running is not None and self._queued >= self.queue_limit:
                busy = OddsBusy(
                    m(
                        "the odds worker has {count} questions waiting, as many as it takes",
                        count=self._queued,
                    ),
                    retry_after=self._retry_after(),
                )
                displaced = self._displaced_by(kind)
                if displaced is None:
                    raise busy
                displaced.answer.set_exception(busy)
            question = _Question(
                key, kind, function, args, encode, time.monotonic() + self.deadline_seconds
            )
            self._waiting.setdefault(kind, deque()).append(question)
            self._queued += 1
            question.answer.add_done_callback(partial(self._forget, question))
            self._dispatch()
            return question

    def _forget(self, question: _Question, _: Future[bytes]) -> None:
        """A question left before it started (its caller, or its deadline): out of the queue,
        so that it neither counts against the limit nor is computed."""
        if not question.answer.cancelled():
            return
        with self._lock:
            waiting = self._waiting.get(question.kind)
            if waiting is not None and question in waiting:
                waiting.remove(question)
                self._queued -= 1

    def _displaced_by(self, kind: str) -> _Question | None:
        """With the queue full, the question a quicker kind's takes the place of: the newest
        of the slowest kind waiting, when that kind is slower (under the lock)."""
        cost = self.cost.get(kind, 0.0)
        slower = [
            other
            for other, waiting in self._waiting.items()
            if waiting and self.cost.get(other, 0.0) > cost
        ]
        if not slower:
            return None
        slowest = max(slower, key=lambda name: self.cost.get(name, 0.0))
        self._queued -= 1
        return self._waiting[slowest].pop()

    def _next(self) -> _Question | None:
        """The oldest question of the quickest kind (a kind not yet timed first)."""
        kinds = [kind for kind, waiting in self._waiting.items() if waiting]
        if not kinds:
            return None
        kind = min(kinds, key=lambda name: self.cost.get(name, 0.0))
        self._queued -= 1
        return self._waiting[kind].popleft()

    def _dispatch(self) -> None:
        """Hand the worker the next question, if it is free (under the lock)."""
        while self._running is None:
            question = self._next()
            if question is None:
                return
            if question.tries == 0 and not question.answer.set_running_or_notify_cancel():
                continue  # its caller left (or its deadline passed) while it waited
            if time.monotonic() >= question.deadline:
                question.answer.set_exception(
                    OddsLate(
                        m(
                            "the odds were not computed within {seconds} s",
                            seconds=f"{self.deadline_seconds:g}",
                        ),
                        retry_after=self._retry_after(),
                    )
                )
                continue
            question.tries += 1
            try:
                job = self._live_pool().submit(
                    _run, question.function, question.args, question.encode
                )
            except (BrokenProcessPool, RuntimeError):
                job = self._replaced().submit(
                    _run, question.function, question.args, question.encode
                )
            self._running = question
            job.add_done_callback(partial(self._finished, question))

    def _replaced(self) -> ProcessPoolExecutor:
        """A new worker, the present one having ended (under the lock)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        self._pool = None
        self._ended = self._ended or "the odds worker process ended"
        return self._live_pool()

    def _finished(self, question: _Question, job: Future[tuple[bytes, float]]) -> None:
        """In the pool's thread: the question's answer (kept), or its error; the next one."""
        with self._lock:
            self._running = None
            error = job.exception()
            if isinstance(error, BrokenProcessPool):
                if self._pool is not None and self._dead(self._pool):
                    self._ended = "the odds worker process ended while computing"
                    with suppress(RuntimeError):  # the interpreter is exiting: none to start
                        self._replaced()
                if question.tries < 2 and not question.abandoned:
                    # Asked once more of the new worker, ahead of the others.
                    self._waiting.setdefault(question.kind, deque()).appendleft(question)
                    self._queued += 1
                else:
                    question.answer.set_exception(
                        ServiceUnavailable(
                            N_("the odds worker ended while computing this question, twice"),
                            retry_after=1,
                        )
                    )
            elif error is not None:
                question.answer.set_exception(error)
            else:
                answer, elapsed = job.result()
                old = self.cost.get(question.kind)
                self.cost[question.kind] = (
                    elapsed if old is None else old + COST_WEIGHT * (elapsed - old)
                )
                self.cache.put(question.key, answer)
                question.answer.set_result(answer)
            self._dispatch()

    def _retry_after(self) -> int:
        """Seconds until the questions waiting now are likely answered (at least 1)."""
        with self._lock:
            waiting = sum(
                self.cost.get(kind, 0.0) * len(questions)
                for kind, questions in self._waiting.items()
            )
        return max(1, min(MAX_RETRY_AFTER, math.ceil(waiting)))


async def _left(receive: Receive) -> None:
    """Return when the client has gone (its body already read, `receive` waits for that)."""
    while (await receive())["type"] != "http.disconnect":
        pass


#: The process's worker, configured from the settings by each app's lifespan.
WORKER: Final = OddsWorker()


#: Set when the process is told to stop (SIGTERM, SIGINT), by `watch_for_stop`'s handler.
STOP_SIGNALLED = threading.Event()


def watch_for_stop() -> Callable[[], None]:
    """Note when the process is told to stop, for `stop_with_server` at the lifespan's end: a
    server's process ends then, and uvicorn raises SIGTERM again after its shutdown, which
    ends it without its exit handlers. The handler before this one still runs; what it
    returns takes this one away again (the lifespan's end)."""
    return on_stop(STOP_SIGNALLED.set)


def stop_with_server() -> None:
    """End the worker before the server's process goes, and let go of its pool: its queues'
    semaphores are released as they are collected (else, ended by the signal, the process
    leaves them behind, and the resource tracker warns of them as leaked at every stop)."""
    WORKER.shutdown()
    gc.collect()


def start_pool() -> None:
    """Start the worker process now and have it import the odds modules (about 0.7 s), so a
    first heavy question does not wait for that; for the app's lifespan, at startup."""
    WORKER.start()


async def off_loop(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` (a JSON answer) in the worker process, from the cache when asked
    before."""
    return cast(T, orjson.loads(await WORKER.ask(function, *args)))


async def off_loop_bytes(function: Callable[..., bytes], *args: Any) -> bytes:
    """`function(*args)` (bytes: an image, an encoded answer) in the worker process, from the
    cache when asked before."""
    return await WORKER.ask(function, *args, encode=False)


def inline_cached(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` here, from the same cache as `off_loop` when asked before."""
    key = (function.__module__, function.__qualname__, True, *args)
    cached = WORKER.cache.get(key)
    if cached is not None:
        return cast(T, orjson.loads(cached))
    answer = function(*args)
    WORKER.cache.put(key, orjson.dumps(answer))
    return answer


def as_json(value: object) -> str:
    """A rules dataclass as the worker is sent it: JSON, which is also its key in the cache
    (the dataclasses hold dicts, which are unhashable)."""
    return json.dumps(serial.dump(value), sort_keys=True)
