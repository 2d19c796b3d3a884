"""The rate limit: sliding windows per client, shared through Redis, and trusted proxies.

The Redis tests use the server at `ARBITER_TEST_REDIS_URL` (default 127.0.0.1:6379, db 0)
under a key prefix of their own, deleted afterwards; without a reachable server they are
skipped, except in CI where they fail.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.main import create_app
from app.middleware import LocalWindows, TrustedProxies
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
    with TestClient(app) as client:
        capsys.readouterr()
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
