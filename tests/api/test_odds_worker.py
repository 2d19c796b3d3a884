"""The odds worker (app/api/odds/worker.py): a worker that ends is replaced and readiness says
so meanwhile; its queue is bounded (503 with Retry-After), each question has a deadline, a
question whose caller left is never computed; the answer cache is bounded in bytes.

Interleavings are forced by a gate (a manager's Event) that a question in the worker waits on,
never by sleeping; what was computed is counted in a list the worker appends to.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import threading
from collections.abc import Iterator
from fractions import Fraction
from multiprocessing import get_context
from multiprocessing.managers import SyncManager
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from fastapi.testclient import TestClient
from starlette.requests import Request
from starlette.types import Message

from app.api.common import CALLER
from app.api.odds import worker as odds_worker
from app.api.odds.worker import AnswerCache, OddsWorker, weight
from app.errors import ClientClosedRequest, OddsBusy, OddsLate
from app.main import create_app
from app.settings import Settings
from app.store.database import upgrade_to_head
from tests.api import odds_jobs
from tests.conformance import Conforming
from tests.helpers import assert_problem
from tests.store.servers import start_server, stop_server, wait_until_healthy

#: Long enough for any question of these tests on a loaded machine; never reached when they pass.
PATIENCE_S = 60.0


@pytest.fixture(scope="module")
def manager() -> Iterator[SyncManager]:
    """Shared objects the worker process can reach: gates and the list of computed questions."""
    with get_context("spawn").Manager() as shared:
        yield shared


@pytest.fixture
def worker() -> Iterator[OddsWorker]:
    """A worker of its own (not the app's), ended after the test."""
    own = OddsWorker(queue_limit=2, deadline_seconds=PATIENCE_S)
    own.start()
    yield own
    own.shutdown()


class Gate:
    """A question held in the worker until `open()`: `started` once it computes."""

    def __init__(self, manager: SyncManager) -> None:
        self.started = manager.Event()
        self.gate = manager.Event()

    def args(self, name: str, computed: Any) -> tuple[Any, ...]:
        return (name, self.started, self.gate, computed)

    async def wait_started(self) -> None:
        assert await asyncio.to_thread(self.started.wait, PATIENCE_S)

    def open(self) -> None:
        self.gate.set()


class Leaving:
    """A caller whose connection closes when the test says so. Its first message is its
    (empty) body; the next `receive()`, made once its question waits for the worker, tells
    the test (`listening`) and returns `http.disconnect` after `leave()` (if ever)."""

    def __init__(self) -> None:
        self.listening = asyncio.Event()
        self.left = asyncio.Event()
        self.sent_body = False

    async def receive(self) -> Message:
        if not self.sent_body:
            self.sent_body = True
            return {"type": "http.request", "body": b"", "more_body": False}
        self.listening.set()
        await self.left.wait()
        return {"type": "http.disconnect"}

    def request(self) -> Request:
        return Request({"type": "http", "method": "POST", "headers": []}, self.receive)

    def leave(self) -> None:
        self.left.set()


async def queued(worker: OddsWorker, function: Any, *args: Any) -> asyncio.Task[bytes]:
    """`worker.ask(function, *args)` as a task, once its question waits in the queue."""
    caller = Leaving()
    token = CALLER.set(caller.request())
    try:
        task = asyncio.create_task(worker.ask(function, *args))
    finally:
        CALLER.reset(token)
    await caller.listening.wait()
    return task


# --- the queue ------------------------------------------------------------------------------


def test_past_the_queue_limit_a_question_is_refused_with_retry_after(
    worker: OddsWorker, manager: SyncManager
) -> None:
    async def scenario() -> None:
        computed = manager.list()
        held = Gate(manager)
        first = asyncio.create_task(worker.ask(odds_jobs.gated, *held.args("first", computed)))
        await held.wait_started()
        waiting = [
            await queued(worker, odds_jobs.counted, name, computed) for name in ("second", "third")
        ]
        with pytest.raises(OddsBusy) as refused:
            await worker.ask(odds_jobs.counted, "fourth", computed)
        assert refused.value.status == 503
        assert int(refused.value.headers["Retry-After"]) >= 1
        held.open()
        answers = [orjson.loads(await task) for task in (first, *waiting)]
        assert [answer["name"] for answer in answers] == ["first", "second", "third"]
        assert list(computed) == ["first", "second", "third"]

    asyncio.run(scenario())


def test_a_question_past_its_deadline_is_a_503_and_never_computed(
    worker: OddsWorker, manager: SyncManager
) -> None:
    async def scenario() -> None:
        computed = manager.list()
        held = Gate(manager)
        first = asyncio.create_task(worker.ask(odds_jobs.gated, *held.args("first", computed)))
        await held.wait_started()
        # The worker is held by the first question: the second cannot be answered in time.
        worker.deadline_seconds = 0.001
        with pytest.raises(OddsLate) as late:
            await worker.ask(odds_jobs.counted, "late", computed)
        assert late.value.status == 503
        assert "Retry-After" in late.value.headers
        worker.deadline_seconds = PATIENCE_S
        held.open()
        await first
        await worker.ask(odds_jobs.counted, "after", computed)
        assert list(computed) == ["first", "after"]

    asyncio.run(scenario())


def test_a_question_whose_caller_left_before_it_started_is_never_computed(
    worker: OddsWorker, manager: SyncManager
) -> None:
    async def scenario() -> None:
        computed = manager.list()
        held = Gate(manager)
        first = asyncio.create_task(worker.ask(odds_jobs.gated, *held.args("first", computed)))
        await held.wait_started()
        caller = Leaving()
        CALLER.set(caller.request())
        left = asyncio.create_task(worker.ask(odds_jobs.counted, "left", computed))
        await caller.listening.wait()  # it waits for the worker, watching its caller
        caller.leave()
        with pytest.raises(ClientClosedRequest):
            await left
        # A cancelled request (the server shutting down, a timeout above it) likewise.
        cancelled_caller = Leaving()
        CALLER.set(cancelled_caller.request())
        cancelled = asyncio.create_task(worker.ask(odds_jobs.counted, "cancelled", computed))
        await cancelled_caller.listening.wait()
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        CALLER.set(None)
        held.open()
        await first
        # One question at a time: when this one is answered, any before it was computed.
        await worker.ask(odds_jobs.counted, "after", computed)
        assert list(computed) == ["first", "after"]

    asyncio.run(scenario())


def test_the_quickest_kind_of_question_goes_first(worker: OddsWorker, manager: SyncManager) -> None:
    async def scenario() -> None:
        computed = manager.list()
        held = Gate(manager)
        first = asyncio.create_task(worker.ask(odds_jobs.gated, *held.args("slow 1", computed)))
        await held.wait_started()
        # As the worker timed them: the held kind slow, the counted kind quick.
        worker.cost[f"{odds_jobs.__name__}.gated"] = 1.0
        worker.cost[f"{odds_jobs.__name__}.counted"] = 0.001
        slow = await queued(worker, odds_jobs.gated, *held.args("slow 2", computed))
        quick = await queued(worker, odds_jobs.counted, "quick", computed)
        held.open()
        await asyncio.gather(first, slow, quick)
        assert list(computed) == ["slow 1", "quick", "slow 2"]

    asyncio.run(scenario())


def test_with_the_queue_full_a_quicker_question_takes_a_slow_ones_place(
    worker: OddsWorker, manager: SyncManager
) -> None:
    async def scenario() -> None:
        computed = manager.list()
        held = Gate(manager)
        first = asyncio.create_task(worker.ask(odds_jobs.gated, *held.args("slow 1", computed)))
        await held.wait_started()
        worker.cost[f"{odds_jobs.__name__}.gated"] = 1.0
        worker.cost[f"{odds_jobs.__name__}.counted"] = 0.001
        slow = [
            await queued(worker, odds_jobs.gated, *held.args(name, computed))
            for name in ("slow 2", "slow 3")
        ]
        quick = await queued(worker, odds_jobs.counted, "quick", computed)
        # The newest of the slow ones gave up its place: refused as the queue is full.
        with pytest.raises(OddsBusy):
            await slow[1]
        held.open()
        await asyncio.gather(first, slow[0], quick)
        assert list(computed) == ["slow 1", "quick", "slow 2"]

    asyncio.run(scenario())


def test_a_question_computing_when_its_worker_dies_is_asked_of_the_next(
    worker: OddsWorker, manager: SyncManager
) -> None:
    async def scenario() -> None:
        computed = manager.list()
        held = Gate(manager)
        asked = asyncio.create_task(worker.ask(odds_jobs.gated, *held.args("held", computed)))
        await held.wait_started()
        held.started.clear()
        dead = worker.pid
        assert dead is not None
        os.kill(dead, signal.SIGKILL)
        # The new worker computes it again, and waits at the gate again.
        await held.wait_started()
        assert worker.pid != dead
        held.open()
        assert orjson.loads(await asked) == {"name": "held"}
        assert list(computed) == ["held", "held"]
        assert worker.problem() is None

    asyncio.run(scenario())


# --- a worker that ends ---------------------------------------------------------------------


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[TestClient]:
    """The service on a migrated database (so that readiness speaks of the odds alone)."""
    url = f"sqlite:///{tmp_path / 'odds.db'}"
    upgrade_to_head(url)
    app = create_app(Settings(database_url=url))
    with TestClient(Conforming(app)) as client:
        yield client


def kill_worker(client: TestClient, rating: int) -> None:
    """Ask a question (so that the worker has started), then SIGKILL the worker process, as
    the kernel's OOM killer would, and wait until it has ended."""
    assert client.post("/v1/odds/cairn", json={"rating": rating}).status_code == 200
    pid = odds_worker.WORKER.pid
    assert pid is not None
    ended = os.pidfd_open(pid)
    try:
        os.kill(pid, signal.SIGKILL)
        readable, _, _ = select.select([ended], [], [], PATIENCE_S)
        assert readable == [ended]
    finally:
        os.close(ended)


def test_a_killed_worker_is_replaced_and_readiness_says_so_meanwhile(
    app_client: TestClient,
) -> None:
    kill_worker(app_client, 2)
    ready = app_client.get("/readyz")
    problem = assert_problem(ready, 503)
    assert problem["detail"] == ("the odds worker process ended; a new odds worker is starting")
    assert ready.headers["retry-after"] == "1"
    # The next question starts nothing more: it is answered by the new worker.
    answer = app_client.post("/v1/odds/cairn", json={"rating": 4, "target": 50})
    assert answer.status_code == 200, answer.text
    assert answer.json()["rating"] == 4
    assert app_client.get("/readyz").json() == {"status": "ready"}
    assert odds_worker.WORKER.pid is not None


def test_the_next_question_after_a_killed_worker_is_answered(app_client: TestClient) -> None:
    kill_worker(app_client, 5)
    answer = app_client.post("/v1/odds/cairn", json={"rating": 6, "target": 40})
    assert answer.status_code == 200, answer.text
    assert answer.json()["target"] == 40
    assert app_client.get("/readyz").json() == {"status": "ready"}


def test_a_full_queue_is_a_503_problem_with_retry_after(
    tmp_path: Path, manager: SyncManager
) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'odds.db'}", odds_queue_limit=0))
    computed = manager.list()
    held = Gate(manager)
    holder = threading.Thread(
        target=lambda: asyncio.run(
            odds_worker.WORKER.ask(odds_jobs.gated, *held.args("held", computed))
        )
    )
    with TestClient(Conforming(app)) as client:
        holder.start()
        try:
            assert held.started.wait(PATIENCE_S)
            answer = client.post("/v1/odds/cairn", json={"rating": 8, "target": 33})
            problem = assert_problem(answer, 503)
            assert problem["type"].endswith("/odds-busy")
            assert int(answer.headers["retry-after"]) >= 1
        finally:
            held.open()
            holder.join()
        assert client.post("/v1/odds/cairn", json={"rating": 8, "target": 33}).status_code == 200
    assert list(computed) == ["held"]


def test_a_large_token_question_is_checked_and_written_by_the_worker(
    app_client: TestClient,
) -> None:
    """A body past `INLINE_TOKEN_BODY_BYTES` goes to the worker whole: the same answers in
    every form, and the same 400, 415 and 422, as a small one's."""
    question = odds_jobs.large_token_question()
    skills = question["skills"]["Horde"]
    raw = orjson.dumps(question)
    path = "/v1/odds/skill-games/tokens"
    answer = app_client.post(path, content=raw, headers={"content-type": "application/json"})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert list(body["parties"]) == ["Horde"]
    assert sum(Fraction(p) for p in body["parties"]["Horde"]["tokens_exact"].values()) == 1
    text = app_client.post(path, json=question, headers={"accept": "text/plain"})
    assert text.headers["content-type"] == "text/plain; charset=utf-8"
    assert text.headers["vary"] == "Accept, Accept-Language"
    assert text.text == body["summary"] + "\n"
    svg = app_client.post(path, json=question, headers={"accept": "image/svg+xml"})
    assert svg.headers["content-type"] == "image/svg+xml"
    assert b"Tokens earned in one round" in svg.content
    stranger = {**question, "skills": {"Nobody": skills}}
    assert_problem(app_client.post(path, json=stranger), 422, ["body", "skills", "Nobody"])
    not_json = raw[:-2] + b"NaN}}"
    assert_problem(
        app_client.post(path, content=not_json, headers={"content-type": "application/json"}),
        400,
    )
    assert_problem(app_client.post(path, content=raw, headers={"content-type": "text/plain"}), 415)


# --- the cache ------------------------------------------------------------------------------


def test_the_cache_holds_at_most_its_bytes() -> None:
    cache = AnswerCache(limit=1000)
    keys = [("module", "answer", True, f"question {n}") for n in range(6)]
    for key in keys:
        cache.put(key, b"x" * 300)
    # Each entry costs its answer and its question's text (6 + 6 + 4 + 10): 326 bytes;
    # three fit.
    cost = 300 + weight(keys[0])
    assert cost == 326
    assert len(cache) == 3
    assert cache.bytes == 3 * cost <= 1000
    assert [cache.get(key) is not None for key in keys] == [False] * 3 + [True] * 3
    # Asked again, an answer stays; the least recently asked leaves first.
    assert cache.get(keys[3]) is not None
    cache.put(("module", "answer", True, "question 6"), b"y" * 300)
    assert cache.get(keys[3]) is not None
    assert cache.get(keys[4]) is None
    # An answer larger than the whole cache is not kept, and pushes nothing out.
    cache.put(("module", "answer", True, "huge"), b"z" * 2000)
    assert cache.get(("module", "answer", True, "huge")) is None
    assert len(cache) == 3
    assert cache.bytes == 3 * cost


def test_the_apps_odds_cache_stays_within_its_setting(tmp_path: Path) -> None:
    limit = 40_000
    app = create_app(
        Settings(database_url=f"sqlite:///{tmp_path / 'odds.db'}", odds_cache_bytes=limit)
    )
    with TestClient(Conforming(app)) as client:
        odds_worker.WORKER.cache.clear()
        sizes = []
        for rating in range(1, 13):
            answer = client.post("/v1/odds/cairn", json={"rating": rating, "target": 60})
            assert answer.status_code == 200
            sizes.append(len(answer.content))
        cache = odds_worker.WORKER.cache
        assert cache.bytes <= limit
        # A Cairn answer is about 9 KB: some, not all, of the twelve are kept.
        assert 0 < len(cache) < 12
        assert cache.bytes >= len(cache) * min(sizes)


def test_a_served_worker_killed_is_replaced(tmp_path: Path) -> None:
    """The same, with the server as it is deployed (a uvicorn process, its odds worker a
    child process of it)."""
    url = f"sqlite:///{tmp_path / 'served.db'}"
    upgrade_to_head(url)
    server = start_server(url, tmp_path, {"ARBITER_ODDS_PRESTART": "1"})
    try:
        wait_until_healthy(server)
        with httpx.Client(base_url=server.base_url, timeout=PATIENCE_S) as client:
            assert client.post("/v1/odds/cairn", json={"rating": 3}).status_code == 200
            pid = odds_worker_of(server.process.pid)
            ended = os.pidfd_open(pid)
            try:
                os.kill(pid, signal.SIGKILL)
                assert select.select([ended], [], [], PATIENCE_S)[0] == [ended]
            finally:
                os.close(ended)
            ready = client.get("/readyz")
            assert assert_problem(ready, 503)["detail"] == (
                "the odds worker process ended; a new odds worker is starting"
            )
            answer = client.post("/v1/odds/cairn", json={"rating": 7, "target": 20})
            assert answer.status_code == 200, answer.text
            assert answer.json()["rating"] == 7
            assert client.get("/readyz").json() == {"status": "ready"}
            assert odds_worker_of(server.process.pid) != pid
    finally:
        stop_server(server)


def odds_worker_of(server: int) -> int:
    """The server's odds worker: its child process started by multiprocessing's spawn (its
    other such child is multiprocessing's resource tracker)."""
    children = [
        int(child)
        for task in Path(f"/proc/{server}/task").iterdir()
        for child in (task / "children").read_text().split()
    ]
    workers = [
        child
        for child in children
        if b"spawn_main" in command_line(child) and b"resource_tracker" not in command_line(child)
    ]
    assert len(workers) == 1, children
    return workers[0]


def command_line(pid: int) -> bytes:
    """A process's command line; empty for one that has ended (a zombie's is empty too)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
