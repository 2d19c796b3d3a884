"""The rate limit: sliding windows per client, shared through Redis, and trusted proxies.

The Redis tests use the server at `ARBITER_TEST_REDIS_URL` (default 127.0.0.1:6379, db 0)
under a key prefix of their own, deleted afterwards; without a reachable server they are
skipped, except in CI where they fail.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.types import Message

from app.main import create_app
from app.middleware import (
    SLIDING_WINDOW_LUA,
    LocalWindows,
    RateLimit,
    RedisWindows,
    TrustedProxies,
)
from app.settings import Settings
from tests.requirements import missing

REDIS_URL = os.environ.get("ARBITER_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
ROLL = "/v1/gurps/success-roll"


def app_on(tmp_path: Path, **settings: Any) -> FastAPI:
    # One-shot requests only: the store is opened but never used.
    return create_app(Settings(database_url=f"sqlite:///{tmp_path / 'arbiter.db'}", **settings))


def roll(client: TestClient, **headers: str) -> int:
    status: int = client.post(ROLL, json={"skill": 12}, headers=headers).status_code
    return status


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix of this test's own in the test Redis, its keys deleted afterwards."""
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
        yield prefix
    finally:
        for key in connection.scan_iter(match=prefix + "*"):
            connection.delete(key)
        connection.close()


def test_sliding_window_counts_the_last_minute() -> None:
    windows = LocalWindows(limit=2, window=60.0, max_clients=10)
    assert windows.admit_at("a", 0.0) == 0.0
    assert windows.admit_at("a", 10.0) == 0.0
    # Full until the first hit is a minute old.
    assert windows.admit_at("a", 30.0) == 30.0
    assert windows.admit_at("b", 30.0) == 0.0
    assert windows.admit_at("a", 60.0) == 0.0
    assert windows.admit_at("a", 61.0) == 9.0
    # Refused requests do not count against the window.
    assert windows.admit_at("a", 70.0) == 0.0


def test_sliding_window_keeps_at_most_max_clients() -> None:
    windows = LocalWindows(limit=1, window=60.0, max_clients=2)
    for client in ("a", "b", "c"):
        assert windows.admit_at(client, 0.0) == 0.0
    assert list(windows.hits) == ["b", "c"]


def test_per_process_limit_with_retry_after(tmp_path: Path) -> None:
    with TestClient(app_on(tmp_path, rate_limit_per_minute=3)) as client:
        assert [roll(client) for _ in range(3)] == [200, 200, 200]
        refused = client.post(ROLL, json={"skill": 12})
        assert refused.status_code == 429
        assert refused.headers["content-type"] == "application/problem+json"
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        # Operations are never limited.
        assert client.get("/healthz").status_code == 200
        assert client.get("/metrics").status_code == 200


def test_keyed_by_a_client_key_the_operator_handed_out(tmp_path: Path) -> None:
    app = app_on(tmp_path, rate_limit_per_minute=2, rate_limit_client_keys="bot-1, bot-2")
    with TestClient(app) as client:
        assert [roll(client, **{"x-client-key": "bot-1"}) for _ in range(3)] == [200, 200, 429]
        assert [roll(client, **{"x-client-key": "bot-2"}) for _ in range(3)] == [200, 200, 429]
        # Without a key, the address: a window of its own.
        assert [roll(client) for _ in range(3)] == [200, 200, 429]
        # A key nobody handed out, or one too long to be one, is ignored: the address's window.
        assert roll(client, **{"x-client-key": "bot-3"}) == 429
        assert roll(client, **{"x-client-key": "k" * 129}) == 429


def test_a_new_key_each_time_is_still_one_client(tmp_path: Path) -> None:
    """A key sent straight from a client is not believed: 60 keys from one address at 20 a
    minute get 20 requests through, not 60."""
    with TestClient(app_on(tmp_path, rate_limit_per_minute=20)) as client:
        statuses = [roll(client, **{"x-client-key": f"key-{n}"}) for n in range(60)]
    assert statuses == [200] * 20 + [429] * 40


def test_a_trusted_proxy_passes_client_keys_on(tmp_path: Path) -> None:
    app = app_on(tmp_path, rate_limit_per_minute=1, forwarded_allow_ips="10.0.0.1")
    with TestClient(app, client=("10.0.0.1", 5000)) as proxy:
        assert roll(proxy, **{"x-client-key": "tenant-a"}) == 200
        assert roll(proxy, **{"x-client-key": "tenant-b"}) == 200
        assert roll(proxy, **{"x-client-key": "tenant-a"}) == 429
    with TestClient(app, client=("10.0.0.9", 5000)) as direct:
        assert roll(direct, **{"x-client-key": "tenant-c"}) == 200
        assert roll(direct, **{"x-client-key": "tenant-d"}) == 429


def test_forwarded_for_ignored_from_an_untrusted_peer(tmp_path: Path) -> None:
    app = app_on(tmp_path, rate_limit_per_minute=1, forwarded_allow_ips="10.0.0.1")
    with TestClient(app, client=("10.0.0.9", 5000)) as client:
        assert roll(client, **{"x-forwarded-for": "1.2.3.4"}) == 200
        # A different claimed client, the same peer: the same window.
        assert roll(client, **{"x-forwarded-for": "5.6.7.8"}) == 429


def test_forwarded_for_honoured_from_a_trusted_proxy(tmp_path: Path) -> None:
    app = app_on(tmp_path, rate_limit_per_minute=1, forwarded_allow_ips="10.0.0.0/8")
    with TestClient(app, client=("10.0.0.1", 5000)) as client:
        assert roll(client, **{"x-forwarded-for": "1.2.3.4"}) == 200
        assert roll(client, **{"x-forwarded-for": "5.6.7.8"}) == 200
        assert roll(client, **{"x-forwarded-for": "1.2.3.4"}) == 429
        # Through a second trusted proxy, the same client.
        assert roll(client, **{"x-forwarded-for": "5.6.7.8, 10.2.0.1"}) == 429


def test_forwarded_for_off_by_default(tmp_path: Path) -> None:
    with TestClient(app_on(tmp_path, rate_limit_per_minute=1), client=("127.0.0.1", 1)) as client:
        assert roll(client, **{"x-forwarded-for": "1.2.3.4"}) == 200
        assert roll(client, **{"x-forwarded-for": "5.6.7.8"}) == 429


def test_trusted_proxies_read_forwarded_for_from_the_right() -> None:
    proxies = TrustedProxies("10.0.0.1, 192.168.0.0/16")
    assert proxies.trusts("10.0.0.1")
    assert proxies.trusts("192.168.4.5")
    assert not proxies.trusts("10.0.0.2")
    assert not proxies.trusts("not-an-address")
    # Whatever a client writes on the left is not believed past the first untrusted hop.
    assert proxies.client("10.0.0.1", b"6.6.6.6, 1.2.3.4") == "1.2.3.4"
    assert proxies.client("10.0.0.1", b"6.6.6.6, 1.2.3.4, 192.168.0.7") == "1.2.3.4"
    assert proxies.client("10.0.0.1", b"2001:db8::1") == "2001:db8::1"
    # Garbage where the client should be: the proxy's own address.
    assert proxies.client("10.0.0.1", b"unknown") == "10.0.0.1"
    everyone = TrustedProxies("*")
    assert everyone.client("10.0.0.1", b"6.6.6.6, 1.2.3.4") == "6.6.6.6"


def test_redis_window_is_shared_between_processes(tmp_path: Path, redis_prefix: str) -> None:
    # Two apps with windows of their own stand for two workers (or replicas).
    settings = {
        "rate_limit_per_minute": 5,
        "redis_url": REDIS_URL,
        "rate_limit_redis_prefix": redis_prefix,
        "rate_limit_client_keys": "shared",
        # What is shown here is the sharing: no call is given up on a busy test machine.
        "rate_limit_redis_budget_ms": 2000,
    }
    (tmp_path / "1").mkdir()
    (tmp_path / "2").mkdir()
    first, second = app_on(tmp_path / "1", **settings), app_on(tmp_path / "2", **settings)
    with TestClient(first) as one, TestClient(second) as two:
        statuses = [roll(client, **{"x-client-key": "shared"}) for client in (one, two) * 4]
        refused = two.post(ROLL, json={"skill": 12}, headers={"x-client-key": "shared"})
    assert statuses == [200] * 5 + [429] * 3
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    keys = redis.Redis.from_url(REDIS_URL).keys(redis_prefix + "*")
    assert len(keys) == 1


def test_unreachable_redis_fails_open_with_one_log_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nothing listens on port 1: every connection is refused at once.
    app = app_on(tmp_path, rate_limit_per_minute=3, redis_url="redis://127.0.0.1:1/0")
    capsys.readouterr()
    with TestClient(app) as client:  # the probe's first check, at startup, finds it down
        statuses = [roll(client) for _ in range(4)]
    logged = capsys.readouterr().err
    # Limited by this process alone meanwhile.
    assert statuses == [200, 200, 200, 429]
    warnings = [
        json.loads(line)
        for line in logged.splitlines()
        if line.startswith("{") and "rate limit store" in line
    ]
    assert len(warnings) == 1
    assert warnings[0]["level"] == "warning"
    assert "Traceback" not in logged


# --- a hung Redis: accepts connections, never answers -----------------------------------------


class FakeRedis:
    """A Redis on a TCP port of its own that answers what the rate limit sends (PING, the
    handshake, the window's script: admitted) until `hang()`: from then on it reads every
    command and answers none, the way a hung server does."""

    def __init__(self) -> None:
        self.commands: list[str] = []
        self.unanswered = 0
        self.answering = True
        #: Set when a command arrives that will never be answered.
        self.stalled = asyncio.Event()
        self.server: asyncio.Server | None = None
        self.url = ""

    async def start(self) -> FakeRedis:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"redis://127.0.0.1:{port}/0"
        return self

    def hang(self) -> None:
        self.answering = False

    def resume(self) -> None:
        self.answering = True

    def count(self, name: str) -> int:
        return self.commands.count(name)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                header = await reader.readline()
                if not header:
                    return
                arguments = []
                for _ in range(int(header[1:])):
                    size = int((await reader.readline())[1:])
                    arguments.append((await reader.readexactly(size + 2))[:-2])
                name = arguments[0].decode().upper()
                self.commands.append(name)
                if not self.answering:
                    self.unanswered += 1
                    self.stalled.set()
                    continue
                writer.write(self._reply(name))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    @staticmethod
    def _reply(name: str) -> bytes:
        if name == "PING":
            return b"+PONG\r\n"
        if name == "HELLO":
            fields = {b"server": b"$5\r\nredis\r\n", b"version": b"$5\r\n7.2.0\r\n"}
            fields[b"proto"] = b":3\r\n"
            body = b"".join(
                b"$%d\r\n%s\r\n%s" % (len(key), key, value) for key, value in fields.items()
            )
            return b"%%%d\r\n%s" % (len(fields), body)
        if name == "SCRIPT":
            digest = hashlib.sha1(SLIDING_WINDOW_LUA.encode()).hexdigest().encode()
            return b"$40\r\n%s\r\n" % digest
        if name in ("EVALSHA", "EVAL"):
            return b"*2\r\n:1\r\n:0\r\n"  # admitted
        return b"+OK\r\n"

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()


@asynccontextmanager
async def lifespan_of(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """The app started (its lifespan run, through every middleware) and a client for it, in
    this event loop."""
    inbox: asyncio.Queue[Message] = asyncio.Queue()
    outbox: asyncio.Queue[Message] = asyncio.Queue()
    running = asyncio.create_task(
        app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, inbox.get, outbox.put)
    )
    await inbox.put({"type": "lifespan.startup"})
    assert (await outbox.get())["type"] == "lifespan.startup.complete"
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://arbiter") as client:
            yield client
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        assert (await outbox.get())["type"] == "lifespan.shutdown.complete"
        await running


def redis_windows(app: FastAPI) -> RedisWindows:
    layer: Any = app.middleware_stack
    while not isinstance(layer, RateLimit):
        layer = layer.app
    assert isinstance(layer.windows, RedisWindows)
    return layer.windows


async def a_roll(client: httpx.AsyncClient) -> int:
    status: int = (await client.post(ROLL, json={"skill": 12})).status_code
    return status


def test_requests_never_wait_for_a_redis_that_accepts_and_never_answers(tmp_path: Path) -> None:
    """While the probe's PING is pending, requests are limited by their process and send
    Redis nothing: the hung server holds one unanswered call and receives no request's."""

    async def scenario() -> None:
        hung = await FakeRedis().start()
        hung.hang()
        app = app_on(tmp_path, rate_limit_per_minute=3, redis_url=hung.url)
        try:
            async with lifespan_of(app) as client:
                await hung.stalled.wait()  # the probe's first call: never answered
                windows = redis_windows(app)
                assert windows.healthy is False
                statuses = [await a_roll(client) for _ in range(6)]
                # Every request answered, by the process's own windows, while it is pending.
                assert statuses == [200, 200, 200, 429, 429, 429]
                assert hung.count("EVALSHA") == hung.count("EVAL") == 0
                assert hung.unanswered >= 1
        finally:
            await hung.close()

    asyncio.run(scenario())


def test_a_redis_that_hangs_costs_one_call_its_budget_and_the_next_ones_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        redis_server = await FakeRedis().start()
        app = app_on(
            tmp_path,
            rate_limit_per_minute=5,
            redis_url=redis_server.url,
            rate_limit_redis_budget_ms=2000,  # answered calls are never given up here
        )
        try:
            async with lifespan_of(app) as client:
                windows = redis_windows(app)
                assert windows.healthy is True  # the first check, at startup
                assert [await a_roll(client) for _ in range(3)] == [200, 200, 200]
                assert redis_server.count("EVALSHA") == 3  # each through Redis

                windows.budget = 0.005
                redis_server.hang()
                first = asyncio.create_task(a_roll(client))
                await redis_server.stalled.wait()  # its call reached Redis, unanswered
                # Given up after its budget: answered by the process's own window.
                assert await first == 200
                assert windows.healthy is False
                answered = [await a_roll(client) for _ in range(10)]
                # Ten more answered while that call stays unanswered, none of them sent to
                # Redis: the process's window (5 a minute) has counted the first and these.
                assert answered == [200] * 4 + [429] * 6
                assert redis_server.count("EVALSHA") == 4
                assert redis_server.unanswered >= 1

                assert await windows.next_check() is False  # the probe's PING: unanswered
                redis_server.resume()
                assert await windows.next_check() is True
                windows.budget = 2.0
                await a_roll(client)
                assert redis_server.count("EVALSHA") == 5  # back through Redis
        finally:
            await redis_server.close()

    with caplog.at_level(logging.WARNING, logger="arbiter"):
        asyncio.run(scenario())
    lines = [r.getMessage() for r in caplog.records if "rate limit store" in r.getMessage()]
    assert lines == [
        "rate limit store unreachable, limiting per process until it returns: TimeoutError",
        "rate limit store reachable again",
    ]
