"""Webhooks delivered by real server processes sharing one database, SQLite's file or
PostgreSQL (docs/webhooks.md#delivery): two servers' delivery workers send each event once,
and a server killed with SIGKILL in the middle of a delivery loses none of the events it
acknowledged: another process sends them, the one under way again with the same
`webhook-id`. Every delivery is verified by the receiver with `standardwebhooks`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers import Session
from tests.store.receiver import Receiver, payloads
from tests.store.servers import (
    kill_server,
    running_servers,
    start_server,
    stop_server,
    wait_until_healthy,
)
from tests.store.test_webhooks import ARM_WRESTLE, ROUND

pytestmark = pytest.mark.slow

WAIT_S = 60.0
SETTINGS = {
    "ARBITER_WEBHOOK_ALLOW_PRIVATE": "true",
    "ARBITER_WEBHOOK_RETRY_FIRST_SECONDS": "0.05",
    "ARBITER_WEBHOOK_RETRY_MAX_SECONDS": "0.2",
    "ARBITER_WEBHOOK_POLL_SECONDS": "0.05",
    "ARBITER_WEBHOOK_TIMEOUT_SECONDS": "10",
}


def all_delivered(session: Session, webhook_id: str, count: int) -> list[dict[str, Any]]:
    """The subscription's deliveries once `count` of them are recorded delivered (read through
    the API until they are)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        response = session.get(f"webhooks/{webhook_id}/deliveries")
        assert response.status_code == 200, response.text
        listed: list[dict[str, Any]] = response.json()["deliveries"]
        if len(listed) == count and all(each["status"] == "delivered" for each in listed):
            return listed
        assert time.monotonic() < deadline, listed
        time.sleep(0.05)


def test_two_servers_deliver_each_event_once(database_url: str, tmp_path: Path) -> None:
    receiver = Receiver().start()
    try:
        with running_servers(database_url, 2, tmp_path, SETTINGS) as servers:
            clients = [httpx.Client(base_url=server.base_url, timeout=30) for server in servers]
            sessions = [Session(clients[0], "arm-wrestles", ARM_WRESTLE) for _ in range(3)]
            made = {}
            for session in sessions:
                response = session.post("webhooks", {"url": receiver.url})
                assert response.status_code == 201, response.text
                made[session.id] = response.json()
                receiver.secrets.append(response.json()["secret"])
            versions: dict[str, list[int]] = {session.id: [] for session in sessions}
            for turn in range(10):
                for index, session in enumerate(sessions):
                    # Each round through one server or the other.
                    answer = clients[(turn + index) % 2].post(
                        f"{session.url}/rounds", json=ROUND, headers=session.headers
                    )
                    assert answer.status_code == 200, answer.text
                    versions[session.id].append(answer.json()["session"]["version"])
            for session in sessions:
                all_delivered(session, made[session.id]["id"], 10)
            # All 30 are recorded delivered: no worker sends any of them again.
            assert len(receiver.requests) == 30
            assert len({each.webhook_id for each in receiver.requests}) == 30
            assert all(each.verified is not None for each in receiver.requests)
            got = payloads(receiver.requests)
            for session in sessions:
                mine = [
                    each["session"]["version"]
                    for each in got
                    if each["session"]["id"] == session.id
                ]
                assert mine == versions[session.id] == list(range(2, 12))
            for client in clients:
                client.close()
    finally:
        receiver.stop()


def test_a_server_killed_mid_delivery_loses_no_event(database_url: str, tmp_path: Path) -> None:
    """SIGKILL while the receiver holds the first delivery: every round the server
    acknowledged is delivered by the next server process, the first again with its
    `webhook-id` (at least once)."""
    receiver = Receiver()
    receiver.mode = "slow"
    receiver.start()
    # The delivery held is not timed out before the kill; its claim runs out 12 s after it.
    settings = {**SETTINGS, "ARBITER_WEBHOOK_LEASE_SECONDS": "12"}
    first = start_server(database_url, tmp_path, settings)
    try:
        wait_until_healthy(first)
        with httpx.Client(base_url=first.base_url, timeout=30) as client:
            session = Session(client, "arm-wrestles", ARM_WRESTLE)
            response = session.post("webhooks", {"url": receiver.url})
            assert response.status_code == 201, response.text
            made = response.json()
            receiver.secrets.append(made["secret"])
            acknowledged = [session.play_round(ROUND).json()["session"]["version"]]
            # The first delivery is under way (the receiver holds it) ...
            receiver.wait_for(lambda _got: receiver.arrived >= 1)
            # ... while more rounds are acknowledged, their deliveries queued behind it.
            for _ in range(14):
                acknowledged.append(session.play_round(ROUND).json()["session"]["version"])
        kill_server(first)
    finally:
        stop_server(first)
    receiver.mode = "ok"
    receiver.release.set()
    second = start_server(database_url, tmp_path, settings)
    try:
        wait_until_healthy(second)
        with httpx.Client(base_url=second.base_url, timeout=30) as client:
            session.client = client
            listed = all_delivered(session, made["id"], 15)
        by_id: dict[str, bytes] = {}
        for each in receiver.requests:
            assert each.verified is not None
            assert by_id.setdefault(each.webhook_id, each.body) == each.body
        got = payloads([each for each in receiver.requests if each.mode == "ok"])
        assert [each["session"]["version"] for each in got] == acknowledged == list(range(2, 17))
        # The delivery under way when the server died was sent again, with its webhook-id.
        held = [each for each in receiver.requests if each.mode == "slow"]
        assert len(held) == 1
        assert held[0].webhook_id == next(
            each.webhook_id for each in receiver.requests if each.mode == "ok"
        )
        assert json.loads(held[0].body)["session"]["version"] == 2
        assert sorted(each["version"] for each in listed) == acknowledged
    finally:
        stop_server(second)
        receiver.stop()
