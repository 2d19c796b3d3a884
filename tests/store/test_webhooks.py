"""Signed outbound webhooks through the transactional outbox (docs/webhooks.md), on SQLite and
PostgreSQL, received by a real HTTP receiver that verifies every delivery with the
`standardwebhooks` package from PyPI, as a receiver would.

In-process apps here (their delivery worker runs in the app's lifespan); the tests of several
server processes and of a killed one are in tests/store/test_webhooks_across_processes.py.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import random
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app.api.sessions import outbound
from app.api.sessions.deliveries import COALESCE_S, DeliveryWorker, backoff
from app.main import create_app
from app.settings import Settings
from app.store.database import null_pool_engine
from app.store.webhooks import Job
from tests.conformance import Conforming
from tests.helpers import Session, assert_problem, bearer
from tests.store.receiver import Receiver, payloads
from tests.store.test_ids import PAST_32_BITS

#: A match nobody tires in, long enough for every test's rounds (first to a DS of 30).
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Lydia", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Ogre", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 30,
    "max_rounds": 10_000,
}
#: A round whose dice are supplied and cannot end the match.
ROUND = {"rolls": {"Lydia": {"strength": 10}, "Ogre": {"strength": 10}}}
WAIT_S = 30.0
#: Quick retries and deadlines, so a test's receiver coming back is met within a second.
FAST: dict[str, Any] = {
    "webhook_allow_private": True,
    "webhook_retry_first_seconds": 0.05,
    "webhook_retry_max_seconds": 0.2,
    "webhook_timeout_seconds": 0.5,
    "webhook_connect_timeout_seconds": 0.5,
    "webhook_poll_seconds": 0.05,
    "webhook_lease_seconds": 5.0,
}


#: A sender that waits for a slow receiver (one the test holds) as long as it takes.
PATIENT: dict[str, Any] = {**FAST, "webhook_timeout_seconds": 60.0, "webhook_lease_seconds": 90.0}


def held_by(receiver: Receiver, count: int) -> None:
    """Wait until `count` requests are in `receiver`'s hands (a slow one's held unanswered)."""
    with receiver.changed:
        assert receiver.changed.wait_for(lambda: receiver.arrived == count, WAIT_S)


def app_client(database_url: str, **settings: Any) -> TestClient:
    return TestClient(Conforming(create_app(Settings(database_url=database_url, **settings))))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.stop()


@pytest.fixture
def fast(database_url: str) -> Iterator[TestClient]:
    with app_client(database_url, **FAST) as client:
        yield client


def subscribe(session: Session, url: str, **body: Any) -> dict[str, Any]:
    response = session.post("webhooks", {"url": url, **body})
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    assert made["secret"].startswith("whsec_")
    return made


def heard_by(session: Session, receiver: Receiver, **body: Any) -> dict[str, Any]:
    """`receiver` subscribed to `session` (`subscribe`), and told its secret before any
    delivery can come."""
    made = subscribe(session, receiver.url, **body)
    receiver.secrets.append(made["secret"])
    return made


def deliveries(session: Session, webhook_id: str) -> list[dict[str, Any]]:
    response = session.get(f"webhooks/{webhook_id}/deliveries")
    assert response.status_code == 200, response.text
    listed: list[dict[str, Any]] = response.json()["deliveries"]
    return listed


def wait_for_deliveries(session: Session, webhook_id: str, condition: Any) -> list[dict[str, Any]]:
    """The subscription's deliveries once `condition` holds of them (read through the API
    until it does; fails after `WAIT_S`)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        listed = deliveries(session, webhook_id)
        if condition(listed):
            return listed
        assert time.monotonic() < deadline, listed
        time.sleep(0.02)


def play(session: Session, rounds: int) -> list[int]:
    """Play `rounds` rounds; the session's version after each."""
    versions = []
    for _ in range(rounds):
        versions.append(session.play_round(ROUND).json()["session"]["version"])
    return versions


def test_a_receiver_down_then_slow_then_failing_then_back_gets_every_event_in_order(
    fast: TestClient, receiver: Receiver
) -> None:
    """The issue's measure: down (connections refused), slow (past the sender's deadline),
    answering 500s, then back: every event arrives, in the session's order, each verified by
    `standardwebhooks` with the secret shown at subscription, with the same `webhook-id` on
    every attempt."""
    from app.observability import REGISTRY

    def attempts(outcome: str) -> float:
        counted = REGISTRY.get_sample_value("arbiter_webhook_attempts_total", {"outcome": outcome})
        return counted or 0.0

    counted_before = {outcome: attempts(outcome) for outcome in ("delivered", "retried")}
    passes_before = REGISTRY.get_sample_value("arbiter_webhook_passes_total") or 0.0
    session = Session(fast, "arm-wrestles", ARM_WRESTLE)
    made = heard_by(session, receiver)
    versions = play(session, 3)
    # Down: the first delivery is tried and retried while nothing listens.
    wait_for_deliveries(session, made["id"], lambda listed: listed[-1]["attempts"] >= 2)
    waiting = deliveries(session, made["id"])
    first = waiting[-1]
    assert first["status"] == "pending"
    assert "cannot connect" in first["last_error"]
    # Those behind it are not due before it (the workers' search passes over them).
    assert all(each["next_attempt_at"] >= first["next_attempt_at"] for each in waiting[:-1])
    assert [each["attempts"] for each in waiting[:-1]] == [0, 0]
    # Slow: held past the sender's 0.5 s deadline, twice.
    receiver.mode = "slow"
    receiver.start()
    versions += play(session, 2)
    # (Attempts while it was still down may be more than two, as the machine's load paces
    # the retries: the slow ones are counted as they arrive.)
    with receiver.changed:  # (held, a slow request is listed only once it is answered)
        assert receiver.changed.wait_for(lambda: receiver.arrived >= 2, WAIT_S)
    timed_out = wait_for_deliveries(
        session, made["id"], lambda listed: listed[-1]["last_error"].startswith("no answer")
    )
    assert timed_out[-1]["last_error"] == "no answer within 0.5 s"
    assert timed_out[-1]["attempts"] >= 3
    # 500s. The held requests are let go once two after them have come: the sender had
    # given them up (a queue's attempts are one after another), so none counts as answered.
    receiver.mode = "fail"
    versions += play(session, 2)
    receiver.wait_for(lambda got: sum(each.mode == "fail" for each in got) >= 2)
    receiver.release.set()
    # Back.
    receiver.mode = "ok"
    versions += play(session, 2)
    receiver.wait_for(lambda got: len({e.webhook_id for e in got if e.mode == "ok"}) == 9)
    delivered = payloads(receiver.delivered)
    assert [each["session"]["version"] for each in delivered] == versions
    assert versions == list(range(2, 11))
    assert [each["type"] for each in delivered] == ["round"] * 9
    assert [each["data"]["round"]["number"] for each in delivered] == list(range(1, 10))
    assert {each["session"]["id"] for each in delivered} == {session.id}
    # Every request, whatever answered it, was signed and verifies; and an event retried
    # kept its webhook-id: the ids of all the requests are the nine delivered ones.
    assert all(each.verified is not None for each in receiver.requests)
    assert {each.webhook_id for each in receiver.requests} == {
        each.webhook_id for each in receiver.delivered
    }
    listed = wait_for_deliveries(
        session, made["id"], lambda listed: all(d["status"] == "delivered" for d in listed)
    )
    assert [d["version"] for d in listed] == versions[::-1]
    assert listed[-1]["attempts"] >= 5  # down twice, slow twice, then at least one 500 or ok
    # The metrics count them (this run's other apps, on the other database, count apart
    # only when run at once: none is).
    assert attempts("delivered") - counted_before["delivered"] == 9
    assert attempts("retried") - counted_before["retried"] == sum(
        each["attempts"] - 1 for each in listed
    )
    # Each attempt of the first delivery was a pass of its own (a retry waits for a later
    # one); no pass attempted nothing.
    passes = (REGISTRY.get_sample_value("arbiter_webhook_passes_total") or 0.0) - passes_before
    assert listed[-1]["attempts"] <= passes <= sum(each["attempts"] for each in listed)


def test_a_slow_receiver_never_holds_up_another_sessions_deliveries(database_url: str) -> None:
    """One GM's receiver that takes its time (here, until the test lets it answer, within the
    sender's deadline) must not delay another GM's webhooks: while its request is held, a
    round of another session is delivered to that session's receiver, then the held one is
    answered 2xx and counted delivered, each once."""
    slow, quick = Receiver().start(), Receiver().start()
    try:
        with app_client(database_url, **PATIENT) as client:
            held = Session(client, "arm-wrestles", ARM_WRESTLE)
            held_hook = heard_by(held, slow)
            other = Session(client, "arm-wrestles", ARM_WRESTLE)
            other_hook = heard_by(other, quick)
            slow.mode = "slow"
            play(held, 1)
            held_by(slow, 1)
            versions = play(other, 2)
            # Bounded well below the held request's deadline: a worker waiting for it
            # would send nothing else until it is answered.
            quick.wait_for(lambda got: len(got) == 2, timeout=WAIT_S / 2)
            assert slow.requests == []
            assert [each["session"]["version"] for each in payloads(quick.delivered)] == versions
            slow.release.set()
            slow.wait_for(lambda got: len(got) == 1)
            for session, hook in ((held, held_hook), (other, other_hook)):
                listed = wait_for_deliveries(
                    session, hook["id"], lambda got: all(d["status"] == "delivered" for d in got)
                )
                assert [d["attempts"] for d in listed] == [1] * len(listed)
            # Sent once (its 204 came after the test let it go: listed as held).
            assert [each.mode for each in slow.requests] == ["slow"]
    finally:
        slow.stop()
        quick.stop()


def test_metrics_show_the_outbox_backlog_while_a_receiver_holds_it(own_database_url: str) -> None:
    """`GET /metrics` reads the outbox's backlog from the database: while a receiver holds a
    delivery (unanswered, within its deadline) it is due and not sent, for longer than
    nothing; once answered, nothing is due. In a database of the test's own (the gauges
    count every subscription's deliveries)."""
    from prometheus_client.parser import text_string_to_metric_families

    def gauges(client: TestClient) -> tuple[float, float]:
        answer = client.get("/metrics")
        assert answer.status_code == 200
        found = {
            sample.name: sample.value
            for family in text_string_to_metric_families(answer.text)
            for sample in family.samples
        }
        return found["arbiter_webhook_deliveries_due"], found["arbiter_webhook_oldest_due_seconds"]

    slow = Receiver().start()
    try:
        with app_client(own_database_url, **PATIENT) as client:
            assert gauges(client) == (0, 0)
            session = Session(client, "arm-wrestles", ARM_WRESTLE)
            hook = heard_by(session, slow)
            slow.mode = "slow"
            play(session, 1)
            held_by(slow, 1)
            due, oldest = gauges(client)
            assert due == 1
            assert oldest > 0
            slow.release.set()
            wait_for_deliveries(
                session, hook["id"], lambda got: [d["status"] for d in got] == ["delivered"]
            )
            assert gauges(client) == (0, 0)
    finally:
        slow.stop()


def test_a_delivery_is_shown_with_its_body_exactly_as_signed_and_sent(
    fast: TestClient, receiver: Receiver
) -> None:
    """`GET …/deliveries/{id}`: the delivery as listed, and its body, the very bytes the
    receiver was sent and verified (a receiver's signature check can be tried on them); a
    delivery of another subscription, or none, is a 404."""
    receiver.start()
    session = Session(fast, "arm-wrestles", ARM_WRESTLE)
    made = heard_by(session, receiver)
    other = heard_by(session, receiver, events=["pending"])
    play(session, 2)
    receiver.wait_for(lambda got: len(got) == 2)
    listed = wait_for_deliveries(
        session, made["id"], lambda got: [d["status"] for d in got] == ["delivered"] * 2
    )
    for delivery in listed:
        answer = session.get(f"webhooks/{made['id']}/deliveries/{delivery['id']}")
        assert answer.status_code == 200, answer.text
        shown = answer.json()
        body = shown.pop("body")
        assert shown == delivery
        (sent,) = [each for each in receiver.delivered if each.webhook_id == delivery["webhook_id"]]
        assert body.encode() == sent.body
        assert json.loads(body)["session"]["version"] == delivery["version"]
    first = listed[-1]["id"]
    assert_problem(session.get(f"webhooks/{other['id']}/deliveries/{first}"), 404)
    assert_problem(session.get(f"webhooks/{made['id']}/deliveries/{PAST_32_BITS}"), 404)
    assert_problem(session.get(f"webhooks/{made['id']}/deliveries/{2**63}"), 422)
    assert_problem(session.get(f"webhooks/{made['id']}/deliveries/{first}", token="x" * 43), 404)


def test_a_subscription_gets_only_the_events_it_asked_for_and_never_a_token(
    fast: TestClient, receiver: Receiver
) -> None:
    receiver.start()
    session = Session(fast, "arm-wrestles", ARM_WRESTLE)
    rounds_only = subscribe(session, receiver.url, events=["round"])
    everything = subscribe(session, receiver.url)
    receiver.secrets += [rounds_only["secret"], everything["secret"]]
    play(session, 2)
    assert session.client.delete(session.url, headers=session.headers).status_code == 204
    receiver.wait_for(lambda got: len(got) == 5)

    def signed_with(secret: str) -> list[tuple[str, int]]:
        checker = Receiver()
        checker.secrets.append(secret)
        return [
            (json.loads(each.body)["type"], json.loads(each.body)["session"]["version"])
            for each in receiver.requests
            if checker.verify(each.body, each.headers) is not None
        ]

    assert signed_with(rounds_only["secret"]) == [("round", 2), ("round", 3)]
    assert signed_with(everything["secret"]) == [("round", 2), ("round", 3), ("deleted", 4)]
    # (In order per subscription; the two subscriptions' requests interleave as they will.)
    (deleted,) = [
        json.loads(each.body)
        for each in receiver.requests
        if json.loads(each.body)["type"] == "deleted"
    ]
    assert deleted["data"] == {"id": session.id}
    for each in receiver.requests:
        assert session.gm.encode() not in each.body
        assert b"tokens" not in each.body


def test_addresses_in_10_8_and_127_8_are_refused_unless_allowed(
    database_url: str, receiver: Receiver
) -> None:
    """SSRF: a URL whose host is (or resolves to) a private, loopback or link-local address is
    refused at subscription (422 naming it), unless the operator allows them."""
    receiver.start()
    with app_client(database_url) as client:
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        for url, why in [
            ("http://10.0.0.5/hook", "10.0.0.5 is a private address"),
            ("https://10.255.1.2:8443/x", "10.255.1.2 is a private address"),
            ("http://127.0.0.1:9/hook", "127.0.0.1 is a loopback address"),
            ("http://127.200.0.1/hook", "127.200.0.1 is a loopback address"),
            (receiver.url, "127.0.0.1 is a loopback address"),
            ("http://localhost/hook", "is a loopback address"),
            ("http://[::1]/hook", "::1 is a loopback address"),
            ("http://169.254.169.254/latest", "169.254.169.254 is a link-local address"),
            ("http://192.168.1.1/", "192.168.1.1 is a private address"),
            ("http://[::ffff:10.0.0.1]/", "10.0.0.1 is a private address"),
        ]:
            response = session.post("webhooks", {"url": url})
            problem = assert_problem(response, 422, ["body", "url"])
            assert why in problem["detail"], (url, problem)
        for url in ("ftp://example.com/x", "http://user:pw@example.com/", "/relative"):
            assert_problem(session.post("webhooks", {"url": url}), 422, ["body", "url"])
        assert session.get("webhooks").json() == {"webhooks": []}
    with app_client(database_url, webhook_allow_private=True) as client:
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        assert session.post("webhooks", {"url": "http://10.0.0.5/hook"}).status_code == 201
        assert session.post("webhooks", {"url": receiver.url}).status_code == 201


def test_a_delivery_to_a_refused_address_is_never_made() -> None:
    """At delivery too, after resolving the host: a name that resolves to loopback is refused
    before any connection (a name can be re-pointed after the subscription was checked)."""
    receiver = Receiver().start()
    try:
        url = f"http://localhost:{receiver.port}/hook"
        with pytest.raises(outbound.Refused, match="loopback"):
            asyncio.run(
                outbound.post(
                    url,
                    [],
                    b"{}",
                    allow_private=False,
                    connect_timeout=1,
                    total_timeout=2,
                    max_answer_bytes=10,
                )
            )
        assert receiver.requests == []
        answered = asyncio.run(
            outbound.post(
                url,
                [],
                b"{}",
                allow_private=True,
                connect_timeout=1,
                total_timeout=2,
                max_answer_bytes=10,
            )
        )
        assert answered.status == 204
        assert len(receiver.requests) == 1
    finally:
        receiver.stop()


def test_a_host_is_looked_up_once_in_its_ttl_and_every_address_checked_each_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A delivery's host name is looked up again only after `DNS_TTL_SECONDS` (a busy
    receiver would otherwise cost a lookup a delivery); the addresses kept are checked at
    each delivery all the same, a failed lookup is not kept, and a name re-pointed is seen
    once its addresses have expired."""
    answers: list[list[str] | OSError] = [
        OSError(-2, "Name or service not known"),
        ["127.0.0.1"],
        ["10.0.0.7"],
    ]
    looked_up: list[tuple[str, int]] = []

    async def getaddrinfo(host: str, port: int) -> list[Any]:
        looked_up.append((host, port))
        answer = answers.pop(0)
        if isinstance(answer, OSError):
            raise answer
        return [(2, 1, 6, "", (address, port)) for address in answer]

    monkeypatch.setattr(outbound, "_getaddrinfo", getaddrinfo)
    monkeypatch.setattr(outbound, "_LOOKED_UP", {})

    def resolve(allow_private: bool) -> list[str]:
        return asyncio.run(outbound.resolve("hooks.example", 443, allow_private=allow_private))

    with pytest.raises(outbound.Refused, match="does not resolve"):
        resolve(True)
    assert resolve(True) == ["127.0.0.1"]  # the failure was not kept: looked up again
    assert resolve(True) == ["127.0.0.1"]  # kept
    with pytest.raises(outbound.Refused, match="loopback"):
        resolve(False)  # kept, and checked all the same
    assert looked_up == [("hooks.example", 443)] * 2
    monkeypatch.setattr(outbound, "DNS_TTL_SECONDS", 0.0)  # what was kept has expired
    assert resolve(True) == ["10.0.0.7"]
    assert len(looked_up) == 3


def test_only_the_gm_manages_a_sessions_webhooks(fast: TestClient, receiver: Receiver) -> None:
    session = Session(fast, "arm-wrestles", ARM_WRESTLE)
    other = Session(fast, "arm-wrestles", ARM_WRESTLE)
    assert_problem(fast.post(f"{session.url}/webhooks", json={"url": receiver.url}), 401)
    assert_problem(
        fast.post(f"{session.url}/webhooks", json={"url": receiver.url}, headers=other.headers),
        404,
    )
    made = subscribe(session, receiver.url)
    assert_problem(other.get(f"webhooks/{made['id']}/deliveries"), 404)
    listed = session.get("webhooks").json()["webhooks"]
    assert [each["id"] for each in listed] == [made["id"]]
    assert "secret" not in listed[0]
    assert listed[0]["status"] == "active"
    assert_problem(session.post("webhooks", {"url": receiver.url, "events": ["nope"]}), 422)
    assert (
        session.client.delete(
            f"{session.url}/webhooks/{made['id']}", headers=session.headers
        ).status_code
        == 204
    )
    assert session.get("webhooks").json() == {"webhooks": []}


def test_a_rotated_secret_signs_beside_the_old_one_and_a_replay_keeps_its_webhook_id(
    fast: TestClient, receiver: Receiver
) -> None:
    receiver.start()
    session = Session(fast, "arm-wrestles", ARM_WRESTLE)
    made = heard_by(session, receiver)
    play(session, 1)
    receiver.wait_for(lambda got: len(got) == 1)
    rotated = session.post(f"webhooks/{made['id']}/secret")
    assert rotated.status_code == 200, rotated.text
    new_secret = rotated.json()["secret"]
    assert new_secret != made["secret"]
    assert rotated.json()["previous_secret_until"] is not None
    play(session, 1)
    receiver.wait_for(lambda got: len(got) == 2)
    second = receiver.requests[1]
    # Both signatures, as the spec allows during a rotation: each receiver's secret verifies.
    assert len(second.headers["webhook-signature"].split(" ")) == 2
    for secret in (made["secret"], new_secret):
        only = Receiver()
        only.secrets.append(secret)
        assert only.verify(second.body, second.headers) is not None
    # A replay: the same webhook-id and body, signed again.
    first_delivery = deliveries(session, made["id"])[-1]
    replayed = session.post(f"webhooks/{made['id']}/deliveries/{first_delivery['id']}/replay")
    assert replayed.status_code == 202, replayed.text
    receiver.wait_for(lambda got: len(got) == 3)
    again = receiver.requests[2]
    assert again.webhook_id == receiver.requests[0].webhook_id
    assert again.body == receiver.requests[0].body
    assert again.verified is not None
    # A receiver deduplicating by webhook-id (docs/webhooks.md) handles the replay as the
    # event it already has: two events, though three requests.
    assert len({each.webhook_id for each in receiver.requests}) == 2
    assert [event["session"]["version"] for event in payloads(receiver.requests)] == [2, 3]
    assert_problem(session.post(f"webhooks/{made['id']}/deliveries/999999/replay"), 404)


#: The last 64-bit id, the largest a delivery's id can be.
LAST_64_BIT = 2**63 - 1


def test_deliveries_numbered_past_2_to_the_31_are_listed_paged_and_replayed(
    own_database_url: str, receiver: Receiver
) -> None:
    """Delivery ids are 64-bit: with the numbering moved past 2^31 (in a database of the
    test's own), the newest deliveries are the first listed, `before` pages below any of
    them, a replay finds one; an id past 64 bits is refused as invalid input (never a server
    error)."""
    receiver.start()
    with app_client(own_database_url, **FAST) as fast:
        session = Session(fast, "arm-wrestles", ARM_WRESTLE)
        made = heard_by(session, receiver)
        play(session, 1)
        # Renumbered once its worker has recorded it (a claim is recorded by its id).
        wait_for_deliveries(session, made["id"], lambda got: got[0]["status"] == "delivered")
        engine = null_pool_engine(own_database_url)
        try:
            with engine.begin() as connection:
                if own_database_url.startswith("sqlite"):
                    # An id is its row's rowid there: the next is numbered after the largest.
                    connection.execute(
                        text("UPDATE webhook_deliveries SET id = :past, rowid = :past"),
                        {"past": PAST_32_BITS},
                    )
                else:
                    connection.execute(
                        text("UPDATE webhook_deliveries SET id = :past"), {"past": PAST_32_BITS}
                    )
                    connection.execute(
                        text("SELECT setval('webhook_deliveries_id_seq', :past)"),
                        {"past": PAST_32_BITS},
                    )
        finally:
            engine.dispose()
        play(session, 1)
        receiver.wait_for(lambda got: len(got) == 2)
        listed = wait_for_deliveries(
            session, made["id"], lambda got: [each["status"] for each in got] == ["delivered"] * 2
        )
        assert [(each["id"], each["version"]) for each in listed] == [
            (PAST_32_BITS + 1, 3),
            (PAST_32_BITS, 2),
        ]
        below = session.get(f"webhooks/{made['id']}/deliveries?before={PAST_32_BITS + 1}")
        assert below.status_code == 200, below.text
        assert [each["id"] for each in below.json()["deliveries"]] == [PAST_32_BITS]
        below_last = session.get(f"webhooks/{made['id']}/deliveries?before={LAST_64_BIT}")
        assert [each["id"] for each in below_last.json()["deliveries"]] == [
            PAST_32_BITS + 1,
            PAST_32_BITS,
        ]
        replayed = session.post(f"webhooks/{made['id']}/deliveries/{PAST_32_BITS + 1}/replay")
        assert replayed.status_code == 202, replayed.text
        receiver.wait_for(lambda got: len(got) == 3)
        assert receiver.requests[2].webhook_id == receiver.requests[1].webhook_id
        assert receiver.requests[2].body == receiver.requests[1].body
        assert_problem(session.post(f"webhooks/{made['id']}/deliveries/{LAST_64_BIT}/replay"), 404)
        for past in (LAST_64_BIT + 1, 2**64):
            assert_problem(session.post(f"webhooks/{made['id']}/deliveries/{past}/replay"), 422)
            assert_problem(session.get(f"webhooks/{made['id']}/deliveries?before={past}"), 422)


def test_no_delivery_is_numbered_again_with_an_id_the_store_deleted(
    own_database_url: str, receiver: Receiver
) -> None:
    """Once retention has forgotten every delivery, and once a removed subscription took the
    newest with it, the next delivery is still numbered past every id shown before (SQLite
    numbers by its rowid, which would start again below them; PostgreSQL by its sequence)."""
    from app.store.database import Store
    from app.store.repository import now
    from app.store.webhooks import purge

    def forget_every_sent_delivery() -> int:
        async def run() -> int:
            store = Store(own_database_url)
            await store.open()
            try:
                return await store.run(
                    "write",
                    lambda tx: purge(tx, sent_before=now() + timedelta(days=1), limit=1000),
                )
            finally:
                await store.close()

        return asyncio.run(run())

    receiver.start()
    with app_client(own_database_url, **FAST) as fast:
        session = Session(fast, "arm-wrestles", ARM_WRESTLE)
        made = heard_by(session, receiver)
        play(session, 2)
        sent = wait_for_deliveries(
            session, made["id"], lambda got: [each["status"] for each in got] == ["delivered"] * 2
        )
        newest = sent[0]["id"]
        assert forget_every_sent_delivery() == 2
        assert deliveries(session, made["id"]) == []
        play(session, 1)
        [after_retention] = wait_for_deliveries(session, made["id"], lambda got: len(got) == 1)
        assert after_retention["id"] > newest
        # A second subscription's delivery is the newest; removing the subscription deletes it.
        other = subscribe(session, "http://127.0.0.1:9/nobody-listens")
        play(session, 1)
        [removed] = deliveries(session, other["id"])
        assert removed["id"] > after_retention["id"]
        removing = session.client.delete(
            f"{session.url}/webhooks/{other['id']}", headers=session.headers
        )
        assert removing.status_code == 204
        play(session, 1)
        latest = wait_for_deliveries(session, made["id"], lambda got: len(got) == 3)
        assert latest[0]["id"] > removed["id"]
        assert [each["version"] for each in latest] == [6, 5, 4]


def test_a_delivery_given_up_after_the_window_marks_its_subscription_failing(
    database_url: str, receiver: Receiver
) -> None:
    """Past the retry window a delivery is failed and its subscription `failing`, which its GM
    sees; the next delivery answered 2xx makes it active again."""
    receiver.mode = "fail"
    receiver.start()
    with app_client(database_url, **{**FAST, "webhook_retry_window_seconds": 0.5}) as client:
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        made = heard_by(session, receiver)
        play(session, 1)
        listed = wait_for_deliveries(session, made["id"], lambda got: got[-1]["status"] == "failed")
        assert listed[-1]["last_status"] == 500
        assert listed[-1]["attempts"] >= 2
        shown = session.get("webhooks").json()["webhooks"][0]
        assert shown["status"] == "failing"
        assert shown["failing_since"] is not None
        receiver.mode = "ok"
        play(session, 1)
        wait_for_deliveries(session, made["id"], lambda got: got[0]["status"] == "delivered")
        shown = session.get("webhooks").json()["webhooks"][0]
        assert (shown["status"], shown["failing_since"]) == ("active", None)


def test_retry_after_is_honoured_and_backoff_grows_with_jitter(receiver: Receiver) -> None:
    """A 429's `Retry-After` sets the next attempt exactly (the backoff would be under a
    second); without it the wait doubles per attempt up to its ceiling, between half of it and
    all of it."""
    receiver.mode = "busy"
    receiver.retry_after = "120"
    receiver.start()
    moment = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    settings = Settings(**FAST)
    worker = DeliveryWorker(None, settings, clock=lambda: moment)  # type: ignore[arg-type]
    job = Job(
        1,
        "msg_x",
        "sub",
        "session",
        2,
        "round",
        b"{}",
        0,
        moment,
        receiver.url,
        b"\x00" + b"k" * 32,
        None,
        None,
    )
    outcome = asyncio.run(worker.attempt(job))
    assert (outcome.status, outcome.error) == (429, "answered 429")
    assert outcome.next_at == moment + timedelta(seconds=120)
    rng = random.Random(7)
    for attempts, ceiling in [(1, 5.0), (2, 10.0), (3, 20.0), (10, 2560.0), (30, 3600.0)]:
        waits = [backoff(attempts, 5.0, 3600.0, rng) for _ in range(200)]
        assert all(ceiling / 2 <= wait <= ceiling for wait in waits)
        assert max(waits) - min(waits) > ceiling / 4  # jittered, not one value


def _without_config(value: Any) -> Any:
    """`value` without any session's `config` (which lists every action of the game)."""
    if isinstance(value, dict):
        return {key: _without_config(item) for key, item in value.items() if key != "config"}
    if isinstance(value, list):
        return [_without_config(item) for item in value]
    return value


def test_a_public_subscription_never_reads_a_losing_action_and_a_gm_one_reads_every_one(
    fast: TestClient, receiver: Receiver
) -> None:
    """Sealed choices stay hidden exactly as on a party's stream: a bidding round's losing
    actions (Legend: the parties "reveal the number of tokens they bid, but not the actions
    they chose") never reach a `public` subscription, before or after the reveal; only one
    the GM made with `"view": "gm"` reads them."""
    from tests.api.test_skill_games_api import RANGERS, at_choices, bidding_body, parties

    receiver.start()
    game = at_choices(fast, bidding_body(parties=parties(RANGERS)), 1, 2)
    public = subscribe(game, receiver.url)
    gm = subscribe(game, receiver.url, view="gm")
    assert game.bid("Heroes", "Ambush", 1).status_code == 202
    assert game.bid("Villains", "Charge", 2, who="gm").status_code == 202
    assert game.bid("Rangers", "Rally", 0).status_code == 200
    # Two `submitted` events and the `revealed` one, to each subscription.
    receiver.wait_for(lambda got: len(got) == 6)

    def read_with(secret: str) -> list[dict[str, Any]]:
        checker = Receiver()
        checker.secrets.append(secret)
        return [
            json.loads(each.body)
            for each in receiver.requests
            if checker.verify(each.body, each.headers) is not None
        ]

    publicly, wholly = read_with(public["secret"]), read_with(gm["secret"])
    assert [each["type"] for each in publicly] == ["submitted", "submitted", "revealed"]
    assert [each["type"] for each in wholly] == ["submitted", "submitted", "revealed"]
    for each in publicly:
        text = json.dumps(_without_config(each))
        assert "Ambush" not in text
        assert "Rally" not in text
    assert publicly[-1]["data"]["round"]["choices"] == {
        "Heroes": {"bid": 1},
        "Villains": {"action": "Charge", "bid": 2},
        "Rangers": {"bid": 0},
    }
    assert wholly[-1]["data"]["round"]["choices"] == {
        "Heroes": {"action": "Ambush", "bid": 1},
        "Villains": {"action": "Charge", "bid": 2},
        "Rangers": {"action": "Rally", "bid": 0},
    }
    # Before the reveal, not even the GM's view holds a submitted action.
    for each in wholly[:2]:
        assert "Ambush" not in json.dumps(_without_config(each))
        assert "Charge" not in json.dumps(_without_config(each))


OPERATOR_KEY = "operator-" + "k" * 32


@contextmanager
def operator_subscription(
    client: TestClient, receiver: Receiver, events: list[str]
) -> Iterator[str]:
    """The operator's subscription of `receiver` to every session's `events` (its secret
    told to the receiver): its id, the subscription removed after (the database is every
    test's: it would hear their sessions)."""
    made = client.post(
        "/v1/webhooks",
        json={"url": receiver.url, "events": events},
        headers=bearer(OPERATOR_KEY),
    )
    assert made.status_code == 201, made.text
    receiver.secrets.append(made.json()["secret"])
    try:
        yield made.json()["id"]
    finally:
        client.delete(f"/v1/webhooks/{made.json()['id']}", headers=bearer(OPERATOR_KEY))


def test_the_operators_subscription_hears_every_sessions_changes(
    database_url: str, receiver: Receiver
) -> None:
    receiver.start()
    with app_client(database_url, **FAST, operator_key=OPERATOR_KEY) as client:
        assert_problem(client.post("/v1/webhooks", json={"url": receiver.url}), 401)
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        # A GM's token is no operator's key.
        assert_problem(
            client.post("/v1/webhooks", json={"url": receiver.url}, headers=session.headers), 403
        )
        made = client.post(
            "/v1/webhooks",
            json={"url": receiver.url, "events": ["round"]},
            headers=bearer(OPERATOR_KEY),
        )
        assert made.status_code == 201, made.text
        receiver.secrets.append(made.json()["secret"])
        other = Session(client, "arm-wrestles", ARM_WRESTLE)
        versions = {session.id: play(session, 2), other.id: play(other, 1)}
        receiver.wait_for(lambda got: len(got) == 3)
        got = payloads(receiver.requests)
        for session_id, played in versions.items():
            assert [
                each["session"]["version"] for each in got if each["session"]["id"] == session_id
            ] == played
        # Not the GM's to list or remove.
        assert session.get("webhooks").json() == {"webhooks": []}
        assert_problem(
            client.delete(f"{session.url}/webhooks/{made.json()['id']}", headers=session.headers),
            404,
        )
        listed = client.get("/v1/webhooks", headers=bearer(OPERATOR_KEY)).json()["webhooks"]
        assert [each["id"] for each in listed] == [made.json()["id"]]
        # The database is every test's: an operator's subscription would hear their sessions.
        removed = client.delete(f"/v1/webhooks/{made.json()['id']}", headers=bearer(OPERATOR_KEY))
        assert removed.status_code == 204, removed.text
        assert client.get("/v1/webhooks", headers=bearer(OPERATOR_KEY)).json() == {"webhooks": []}


def test_a_ping_is_a_signed_test_delivery_after_those_queued_whatever_the_events(
    database_url: str, receiver: Receiver
) -> None:
    """A GM checks a receiver without playing: `…/ping` writes a delivery of type `ping`
    (sent whatever the subscription's `events`), after the session's deliveries already
    queued, signed as any other (verified by `standardwebhooks`), its summary in the
    subscription's language, listed with the `webhook-id` the answer gave. The operator's
    subscription gets one too, told of no session. `ping` is no event to subscribe to."""
    receiver.start()
    with app_client(database_url, **FAST, operator_key=OPERATOR_KEY) as client:
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        assert_problem(session.post("webhooks", {"url": receiver.url, "events": ["ping"]}), 422)
        made = heard_by(session, receiver, events=["round"], language="de")
        versions = play(session, 1)
        answer = session.post(f"webhooks/{made['id']}/ping")
        assert answer.status_code == 202, answer.text
        pinged = answer.json()
        assert pinged["webhook_id"].startswith("msg_")
        assert pinged["summary"] == f"A ping is on its way to webhook {made['id']}."
        receiver.wait_for(lambda got: len(got) == 2)
        first, second = payloads(receiver.delivered)
        assert (first["type"], first["session"]["version"]) == ("round", versions[0])
        assert second == {
            "type": "ping",
            "timestamp": second["timestamp"],
            "session": {"id": session.id, "kind": "arm-wrestles", "version": versions[0]},
            "data": {
                "webhook": made["id"],
                "summary": f"Eine Testzustellung (Ping) des Webhooks {made['id']}.",
            },
        }
        assert receiver.delivered[1].webhook_id == pinged["webhook_id"]
        listed = wait_for_deliveries(
            session, made["id"], lambda got: all(d["status"] == "delivered" for d in got)
        )
        # Newest first: the ping, then the round before it.
        assert [(d["event"], d["version"]) for d in listed] == [
            ("ping", versions[0]),
            ("round", versions[0]),
        ]
        assert listed[0]["webhook_id"] == pinged["webhook_id"]
        # Only the GM's, and only of a subscription there is.
        assert_problem(session.post(f"webhooks/{made['id']}/ping", token="x" * 43), 404)
        assert_problem(session.post(f"webhooks/{'0' * 32}/ping"), 404)

        # The operator's: no session to name.
        with operator_subscription(client, receiver, ["deleted"]) as hook:
            answer = client.post(f"/v1/webhooks/{hook}/ping", headers=bearer(OPERATOR_KEY))
            assert answer.status_code == 202, answer.text
            receiver.wait_for(
                lambda got: any(e.webhook_id == answer.json()["webhook_id"] for e in got)
            )
            (ping,) = [
                payload
                for each, payload in zip(
                    receiver.delivered, payloads(receiver.delivered), strict=True
                )
                if each.webhook_id == answer.json()["webhook_id"]
            ]
            assert (ping["type"], ping["session"], ping["data"]["webhook"]) == ("ping", None, hook)
            assert ping["data"]["summary"] == f"A test delivery (ping) of webhook {hook}."
            # (Another test's session deleted meanwhile may be listed too: its `deleted`.)
            (shown,) = [
                each
                for each in client.get(
                    f"/v1/webhooks/{hook}/deliveries", headers=bearer(OPERATOR_KEY)
                ).json()["deliveries"]
                if each["webhook_id"] == answer.json()["webhook_id"]
            ]
            detail = client.get(
                f"/v1/webhooks/{hook}/deliveries/{shown['id']}", headers=bearer(OPERATOR_KEY)
            )
            assert detail.status_code == 200, detail.text
            assert json.loads(detail.json()["body"]) == ping
            assert_problem(client.post(f"/v1/webhooks/{hook}/ping", headers=session.headers), 403)


def test_a_subscription_changed_keeps_its_secret_and_sends_the_next_change_as_asked(
    database_url: str,
) -> None:
    """`PATCH …/webhooks/{id}` changes what is given (the URL, checked as at subscription;
    the events, null for every one; the view; the language) and keeps the rest: the secret
    still verifies, the deliveries listed stay, and the next change goes to the new URL in
    the new language. The operator changes theirs the same way."""
    first, moved = Receiver().start(), Receiver().start()
    try:
        with app_client(database_url, **FAST, operator_key=OPERATOR_KEY) as client:
            session = Session(client, "arm-wrestles", ARM_WRESTLE)
            made = heard_by(session, first, events=["round"])
            moved.secrets.append(made["secret"])
            play(session, 1)
            first.wait_for(lambda got: len(got) == 1)
            path = f"webhooks/{made['id']}"
            # Bad changes change nothing.
            for bad in (
                {"events": ["nope"]},
                {"url": "ftp://example.com/"},
                {"url": None},
                {"view": "everyone"},
                {"secret": "whsec_x"},
            ):
                assert_problem(session.patch(path, bad), 422)
            assert_problem(session.patch(f"webhooks/{'0' * 32}", {"view": "gm"}), 404)
            assert_problem(session.patch(path, {"view": "gm"}, token="x" * 43), 404)
            answer = session.patch(path, {"url": moved.url, "events": None, "language": "es"})
            assert answer.status_code == 200, answer.text
            changed = answer.json()
            assert "secret" not in changed
            assert {key: changed[key] for key in ("url", "events", "view", "language")} == {
                "url": moved.url,
                "events": None,
                "view": "public",
                "language": "es",
            }
            assert (changed["id"], changed["created_at"]) == (made["id"], made["created_at"])
            assert session.get("webhooks").json()["webhooks"] == [changed]
            versions = play(session, 1)
            moved.wait_for(lambda got: len(got) == 1)
            (sent,) = payloads(moved.delivered)
            assert (sent["type"], sent["session"]["version"]) == ("round", versions[0])
            assert sent["data"]["summary"] != payloads(first.delivered)[0]["data"]["summary"]
            assert len(first.requests) == 1
            assert [d["event"] for d in deliveries(session, made["id"])] == ["round", "round"]
            # An empty change changes nothing.
            assert session.patch(path, {}).json() == changed

            with operator_subscription(client, first, ["deleted"]) as hook:
                answer = client.patch(
                    f"/v1/webhooks/{hook}", json={"view": "gm"}, headers=bearer(OPERATOR_KEY)
                )
                assert answer.status_code == 200, answer.text
                assert (answer.json()["view"], answer.json()["events"]) == ("gm", ["deleted"])
                assert_problem(
                    client.patch(f"/v1/webhooks/{hook}", json={}, headers=session.headers), 403
                )
    finally:
        first.stop()
        moved.stop()


def test_secrets_rest_sealed_and_a_redirect_is_never_followed(
    database_url: str, receiver: Receiver
) -> None:
    """With `ARBITER_WEBHOOK_KEY` the stored secret is sealed (the database never holds it as
    the receiver knows it); a 307 is an answer that is not 2xx, retried, never followed."""
    from sqlalchemy import select

    from app.store.webhooks import subscriptions

    elsewhere = Receiver().start()
    receiver.mode = "redirect"
    receiver.location = elsewhere.url
    receiver.start()
    try:
        with app_client(database_url, **FAST, webhook_key="w" * 40) as client:
            session = Session(client, "arm-wrestles", ARM_WRESTLE)
            made = heard_by(session, receiver)
            raw = base64.b64decode(made["secret"].removeprefix("whsec_"))
            engine = null_pool_engine(database_url)
            with engine.connect() as connection:
                stored = connection.execute(
                    select(subscriptions.c.secret).where(subscriptions.c.id == made["id"])
                ).scalar_one()
            engine.dispose()
            assert bytes(stored)[:1] == b"\x01"
            assert raw not in bytes(stored)
            assert made["secret"].encode() not in bytes(stored)
            play(session, 1)
            receiver.wait_for(lambda got: len(got) >= 2)
            assert all(each.verified is not None for each in receiver.requests)
            listed = deliveries(session, made["id"])
            assert (listed[0]["status"], listed[0]["last_status"]) == ("pending", 307)
            assert elsewhere.requests == []
    finally:
        elsewhere.stop()


def test_an_answer_is_read_only_up_to_its_cap() -> None:
    """A receiver answering 64 MB: the sender reads at most its cap, then closes (the
    receiver's write is cut off), with the answer's status."""
    receiver = Receiver()
    receiver.mode = "huge"
    receiver.start()
    try:
        answered = asyncio.run(
            outbound.post(
                receiver.url,
                [],
                b"{}",
                allow_private=True,
                connect_timeout=5,
                total_timeout=20,
                max_answer_bytes=1024,
            )
        )
        assert answered.status == 200
        # (Its request is listed before the answer is written: wait for the write's end.)
        receiver.wait_for(lambda _got: receiver.cut_off == 1)
    finally:
        receiver.stop()
    assert receiver.cut_off == 1


def test_retention_forgets_sent_deliveries_and_a_gone_sessions_subscriptions(
    fast: TestClient, receiver: Receiver, database_url: str
) -> None:
    """Deliveries sent before the retention's cutoff are forgotten, those still to send are
    kept; a deleted session's subscription goes once nothing of it is left to send."""
    from sqlalchemy import func, select

    from app.store.database import Store
    from app.store.repository import now
    from app.store.webhooks import deliveries as outbox
    from app.store.webhooks import list_subscriptions, purge

    receiver.start()
    session = Session(fast, "arm-wrestles", ARM_WRESTLE)
    made = subscribe(session, receiver.url)
    waiting = Session(fast, "arm-wrestles", ARM_WRESTLE)
    nobody = subscribe(waiting, "http://127.0.0.1:9/nobody-listens")
    play(session, 2)
    play(waiting, 1)
    assert fast.delete(session.url, headers=session.headers).status_code == 204
    receiver.wait_for(lambda got: len(got) == 3)

    def held(subscription_id: str) -> int:
        engine = null_pool_engine(database_url)
        try:
            with engine.connect() as connection:
                return int(
                    connection.execute(
                        select(func.count())
                        .select_from(outbox)
                        .where(outbox.c.subscription_id == subscription_id)
                    ).scalar_one()
                )
        finally:
            engine.dispose()

    async def forget() -> list[Any]:
        store = Store(database_url)
        await store.open()
        try:
            # Until the receiver's answers are recorded and the session's subscription gone
            # with its deliveries (the run's earlier tests' sent deliveries go too).
            deadline = time.monotonic() + WAIT_S
            while True:
                await store.run(
                    "write",
                    lambda tx: purge(tx, sent_before=now() + timedelta(days=1), limit=1000),
                )
                left = await store.run("read", lambda tx: list_subscriptions(tx, session.id))
                if not left or time.monotonic() > deadline:
                    return left
                await asyncio.sleep(0.02)
        finally:
            await store.close()

    assert asyncio.run(forget()) == []
    assert held(made["id"]) == 0
    # A delivery still to send is kept, and so is its live session's subscription.
    assert held(nobody["id"]) == 1
    assert [each["id"] for each in waiting.get("webhooks").json()["webhooks"]] == [nobody["id"]]


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("10.1.2.3", "private"),
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("::1", "loopback"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("172.16.0.1", "private"),
        ("192.168.0.10", "private"),
        ("fd00::1", "private"),
        ("::ffff:127.0.0.1", "loopback"),
        ("100.64.0.1", "not a public"),
        ("0.0.0.0", "private"),  # "this network", in the standard library's private list
        ("224.0.0.1", "not a public"),
        ("8.8.8.8", None),
        ("2001:4860:4860::8888", None),
    ],
)
def test_which_addresses_a_webhook_may_reach(address: str, why: str | None) -> None:
    refused = outbound.refused_address(address)
    if why is None:
        assert refused is None
    else:
        assert refused is not None
        assert why in refused


def test_a_rotated_secret_stops_signing_when_its_overlap_ends() -> None:
    moment = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    clock = [moment]
    worker = DeliveryWorker(None, Settings(), clock=lambda: clock[0])  # type: ignore[arg-type]
    job = Job(
        1, "msg_x", "sub", "session", 2, "round", b"{}", 0, moment, "http://x/",
        b"\x00new", b"\x00old", moment + timedelta(hours=24),
    )  # fmt: skip
    assert worker.secrets(job) == [b"new", b"old"]
    clock[0] = moment + timedelta(hours=24)
    assert worker.secrets(job) == [b"new"]


def test_a_steady_flow_of_changes_is_sent_a_batch_a_pass_and_a_quiet_spell_at_once() -> None:
    """A worker poked while changes keep coming starts its next pass `webhook_batch_seconds`
    after its last one began (so that one pass sends what they wrote together), or
    `COALESCE_S` after the last pass ended when that one took longer; poked after a quiet
    spell, it waits only `COALESCE_S`. Its clock and its sleep are the test's."""
    settings = Settings(webhook_batch_seconds=0.1, webhook_poll_seconds=3600)
    clock = [100.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    worker = DeliveryWorker(
        None,  # type: ignore[arg-type]
        settings,
        monotonic=lambda: clock[0],
        sleep=sleep,
    )
    stop = asyncio.Event()
    began: list[float] = []

    def quiet_spell_then_a_change() -> None:
        clock[0] += 5.0
        worker.poke(written=True)

    async def once() -> int:
        began.append(clock[0])
        passes = len(began)
        if passes == 1:  # a short pass while a change commits
            clock[0] += 0.02
            worker.wake.set()
        elif passes == 2:  # a pass longer than the batch, while a change commits
            clock[0] += 0.3
            worker.wake.set()
        elif passes == 3:  # nothing more: the worker waits, then a change comes
            clock[0] += 0.02
            asyncio.get_running_loop().call_soon(quiet_spell_then_a_change)
        else:
            stop.set()
        return 1

    worker.once = once  # type: ignore[method-assign]
    asyncio.run(worker.run(stop))
    assert slept == pytest.approx([0.08, COALESCE_S, COALESCE_S])
    assert began == pytest.approx([100.0, 100.1, 100.41, 105.44])
    assert worker.passes == 4


def test_a_shutdown_does_not_wait_for_the_batch() -> None:
    """A worker poked under a steady flow waits for its batch (up to `webhook_batch_seconds`)
    before its next pass; a shutdown meanwhile ends it then, not once the wait is over. Its
    sleep is the test's, and never ends by itself."""
    settings = Settings(webhook_batch_seconds=5, webhook_poll_seconds=3600)
    worker = DeliveryWorker(None, settings)  # type: ignore[arg-type]
    stop = asyncio.Event()
    asked: list[float] = []

    async def sleep(seconds: float) -> None:
        asked.append(seconds)
        stop.set()  # the shutdown comes while the worker waits for its batch
        await asyncio.Event().wait()

    worker.sleep = sleep

    async def once() -> int:
        worker.wake.set()  # a change committed during the pass
        return 1

    worker.once = once  # type: ignore[method-assign]

    async def run() -> None:
        # The bound fails the test (a worker still waiting) rather than hang it.
        await asyncio.wait_for(worker.run(stop), 60)

    asyncio.run(run())
    assert worker.passes == 1
    # It was waiting for its batch: 5 s after its pass began, less the pass's own time.
    assert len(asked) == 1
    assert asked[0] > 4


def test_a_pass_sends_at_most_webhook_concurrency_queues_at_once_and_every_queue_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pass's queues are sent by `webhook_concurrency` senders: never more at once, each
    queue by one of them, and what came of all of them recorded together. The claim, the
    sending and the record are the test's."""
    from app.store import webhooks
    from app.store.webhooks import Attempted

    moment = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
    jobs = [
        Job(
            number, f"msg_{number}", "sub", f"session-{number % 5}", 2, "round", b"{}", 0,
            moment, "http://x/", b"\x00k", None, None,
        )
        for number in range(1, 11)
    ]  # fmt: skip
    recorded: list[list[Attempted]] = []

    async def claim_due(*_: object, **__: object) -> list[Job]:
        return jobs

    async def record(*arguments: Any) -> None:
        recorded.append(arguments[2])  # (connection, claim, attempted, released, moment)

    class Store:
        async def run(self, _mode: str, work: Any) -> Any:
            return await work(None)

    monkeypatch.setattr(webhooks, "claim_due", claim_due)
    monkeypatch.setattr(webhooks, "record", record)
    worker = DeliveryWorker(Store(), Settings(webhook_concurrency=2))  # type: ignore[arg-type]
    in_flight, peak = [0], [0]
    sent: list[list[int]] = []

    async def send_queue(queue: list[Job], _deadline: float) -> tuple[list[Attempted], list[Job]]:
        in_flight[0] += 1
        peak[0] = max(peak[0], in_flight[0])
        if in_flight[0] == 2:
            gate[0].set()
        await gate[0].wait()  # the first two hold until both are in flight
        in_flight[0] -= 1
        sent.append([job.id for job in queue])
        return [Attempted(job, 1, 204) for job in queue], []

    async def run() -> int:
        gate.append(asyncio.Event())  # made in the loop that waits on it
        return await worker.once()

    gate: list[asyncio.Event] = []
    worker._send_queue = send_queue  # type: ignore[assignment,method-assign]
    assert asyncio.run(run()) == 5
    assert peak[0] == 2
    assert sorted(sent) == [[1, 6], [2, 7], [3, 8], [4, 9], [5, 10]]
    assert [sorted(outcome.job.id for outcome in pass_) for pass_ in recorded] == [
        list(range(1, 11))
    ]


def test_a_queue_past_a_passs_patience_goes_on_alone_and_its_receiver_gets_half_the_senders(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pass writes what came of the queues done within its patience and lets the others
    finish alone, each writing its own outcome when done; meanwhile they keep their senders,
    and a subscription that keeps half of them gets no more (a pass's claim passes over its
    queues). The claims, the sending and the records are the test's:
    subscription "slow" holds its requests until the test lets them go."""
    from app.api.sessions import deliveries
    from app.store import webhooks
    from app.store.webhooks import Attempted

    moment = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)

    def job(number: int, subscription: str) -> Job:
        return Job(
            number, f"msg_{number}", subscription, f"session-{number}", 2, "round", b"{}", 0,
            moment, "http://x/", b"\x00k", None, None,
        )  # fmt: skip

    claims = [
        [job(1, "slow"), job(2, "slow"), job(3, "quick")],  # the first pass's
        [job(4, "slow"), job(5, "quick")],  # the second's
    ]
    asked: list[tuple[int, list[str]]] = []
    recorded: list[tuple[list[int], list[int]]] = []

    async def claim_due(*_: object, limit: int, skip: list[str], **__: object) -> list[Job]:
        asked.append((limit, skip))
        return [job for job in claims.pop(0) if job.subscription_id not in skip]

    async def record(
        _connection: object, _claim: str, attempted: Any, released: Any, _at: Any
    ) -> None:
        recorded.append(
            (sorted(each.job.id for each in attempted), sorted(each.id for each in released))
        )

    class Store:
        async def run(self, _mode: str, work: Any) -> Any:
            return await work(None)

    monkeypatch.setattr(webhooks, "claim_due", claim_due)
    monkeypatch.setattr(webhooks, "record", record)
    # The quick queues are done in the senders' first step; the slow ones wait for the gate.
    monkeypatch.setattr(deliveries, "PATIENCE_S", 0.05)
    worker = DeliveryWorker(Store(), Settings(webhook_concurrency=4))  # type: ignore[arg-type]
    sent: list[int] = []

    async def send_queue(queue: list[Job], _deadline: float) -> tuple[list[Attempted], list[Job]]:
        if queue[0].subscription_id == "slow":
            await gate[0].wait()
        sent.extend(each.id for each in queue)
        return [Attempted(each, 1, 204) for each in queue], []

    worker._send_queue = send_queue  # type: ignore[assignment,method-assign]
    gate: list[asyncio.Event] = []

    async def run() -> None:
        gate.append(asyncio.Event())
        assert await worker.once() == 3
        # Only the quick queue was written; the two slow ones go on, keeping two senders.
        assert recorded == [([3], [])]
        assert sorted(worker.straggling.values()) == ["slow", "slow"]
        assert await worker.once() == 1
        # Two senders left for the second pass (its claim asked for their share); the slow
        # subscription already keeps half of the four: its claim passed over its queues.
        assert asked == [
            (4 * deliveries.QUEUES_PER_SENDER, []),
            (2 * deliveries.QUEUES_PER_SENDER, ["slow"]),
        ]
        assert recorded[1] == ([5], [])
        gate[0].set()
        while worker.straggling:
            await asyncio.wait(list(worker.straggling))

    asyncio.run(run())
    assert sorted(sent) == [1, 2, 3, 5]
    # Each slow queue wrote what came of it on its own.
    assert sorted(recorded[2:]) == [([1], []), ([2], [])]
    assert worker.wake.is_set()  # and woke the worker: what is behind them may be due


def test_two_workers_claiming_at_once_never_share_a_delivery(database_url: str) -> None:
    """Claims taken at the same moment by two stores (two processes' workers) on one database
    are disjoint — PostgreSQL's SKIP LOCKED, SQLite's write lock — and each queue's deliveries
    are claimed by one of them only, from its first in order."""
    from app.store.database import Store
    from app.store.repository import now
    from app.store.webhooks import (
        NewDelivery,
        SubscriptionRecord,
        claim_due,
        enqueue,
        insert_subscription,
    )

    async def run() -> tuple[list[Job], list[Job]]:
        first, second = Store(database_url), Store(database_url)
        await first.open()
        await second.open()
        try:
            moment = now()
            subscription = SubscriptionRecord(
                uuid.uuid4().hex, None, None, "http://x/", None, "public",
                b"\x00k", None, None, "active", None, moment,
            )  # fmt: skip
            sessions = [uuid.uuid4().hex for _ in range(6)]
            planned = [
                NewDelivery(
                    f"msg_{uuid.uuid4().hex}", subscription.id, session, 2 + n, "round", b"{}"
                )
                for n in range(5)
                for session in sessions
            ]

            async def setup(connection: Any) -> None:
                await insert_subscription(connection, subscription)
                await enqueue(connection, planned, moment - timedelta(seconds=1))

            await first.run("write", setup)

            def claim(store: Store, holder: str) -> Any:
                return store.run(
                    "write",
                    lambda connection: claim_due(
                        connection,
                        now=moment,
                        until=moment + timedelta(minutes=1),
                        claim=holder,
                        limit=4,
                        per_queue=3,
                    ),
                )

            got = await asyncio.gather(claim(first, "a" * 32), claim(second, "b" * 32))
            # Ours only (the run's other tests' deliveries are in the same tables).
            return (
                [job for job in got[0] if job.subscription_id == subscription.id],
                [job for job in got[1] if job.subscription_id == subscription.id],
            )
        finally:
            await first.close()
            await second.close()

    ours, theirs = asyncio.run(run())
    assert ours
    assert theirs
    assert not {job.id for job in ours} & {job.id for job in theirs}
    queues_ours = {job.session_id for job in ours}
    queues_theirs = {job.session_id for job in theirs}
    assert not queues_ours & queues_theirs
    for claimed in (ours, theirs):
        for session in {job.session_id for job in claimed}:
            versions = [job.version for job in claimed if job.session_id == session]
            assert versions == list(range(2, 2 + len(versions)))  # from its first, in order
            assert len(versions) == 3


def test_a_claim_passes_over_the_subscriptions_it_is_told_to_skip(database_url: str) -> None:
    """A worker whose senders are kept by one subscription's slow receiver claims the other
    subscriptions' deliveries only, on both databases: those skipped stay unclaimed, and the
    next claim that skips nothing takes them."""
    from app.store.database import Store
    from app.store.repository import now
    from app.store.webhooks import (
        NewDelivery,
        SubscriptionRecord,
        claim_due,
        enqueue,
        insert_subscription,
    )

    async def run() -> list[list[tuple[str, str]]]:
        store = Store(database_url)
        await store.open()
        try:
            moment = now()
            made = [
                SubscriptionRecord(
                    uuid.uuid4().hex, None, None, "http://x/", None, "public",
                    b"\x00k", None, None, "active", None, moment,
                )
                for _ in range(3)
            ]  # fmt: skip
            ours = {subscription.id: name for subscription, name in zip(made, "abc", strict=True)}
            sessions = [uuid.uuid4().hex for _ in range(2)]
            planned = [
                NewDelivery(f"msg_{uuid.uuid4().hex}", subscription.id, session, 2, "round", b"{}")
                for subscription in made
                for session in sessions
            ]

            async def setup(connection: Any) -> None:
                for subscription in made:
                    await insert_subscription(connection, subscription)
                await enqueue(connection, planned, moment - timedelta(seconds=1))

            await store.run("write", setup)
            claimed = []
            for skip in ([made[0].id, made[2].id], []):
                jobs = await store.run(
                    "write",
                    lambda connection, skip=skip: claim_due(  # type: ignore[misc]
                        connection,
                        now=moment,
                        until=moment + timedelta(minutes=1),
                        claim=uuid.uuid4().hex,
                        limit=1000,
                        per_queue=2,
                        skip=skip,
                    ),
                )
                # Ours only (the run's other tests' deliveries are in the same tables).
                claimed.append(
                    sorted(
                        (ours[job.subscription_id], job.session_id)
                        for job in jobs
                        if job.subscription_id in ours
                    )
                )
            return claimed
        finally:
            await store.close()

    skipping, then = asyncio.run(run())
    assert [name for name, _session in skipping] == ["b", "b"]
    assert [name for name, _session in then] == ["a", "a", "c", "c"]


def test_the_backlog_counts_the_deliveries_due_and_how_long_the_first_has_waited(
    own_database_url: str,
) -> None:
    """`backlog` at a moment: the pending deliveries due by then (those behind another of
    their queue too), not one waiting for a later attempt nor one sent; and how long the most
    overdue has been due (0 with none). In a database of the test's own: it counts every
    subscription's."""
    from app.store.database import Store
    from app.store.webhooks import (
        Attempted,
        NewDelivery,
        SubscriptionRecord,
        backlog,
        claim_due,
        enqueue,
        insert_subscription,
        record,
    )

    moment = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)

    def delivery(session: str) -> NewDelivery:
        return NewDelivery(f"msg_{uuid.uuid4().hex}", "s" * 32, session, 2, "round", b"{}")

    async def run() -> list[tuple[int, float]]:
        store = Store(own_database_url)
        await store.open()
        try:
            seen = []

            async def look(at: datetime) -> None:
                found = await store.run("read", lambda connection: backlog(connection, at))
                seen.append((found.due, found.oldest_seconds))

            await look(moment)  # nothing yet
            subscription = SubscriptionRecord(
                "s" * 32, None, None, "http://x/", None, "public",
                b"\x00k", None, None, "active", None, moment,
            )  # fmt: skip

            async def setup(connection: Any) -> None:
                await insert_subscription(connection, subscription)
                # Three due a minute ago (two in one queue), one due in an hour.
                await enqueue(connection, [delivery("a" * 32)] * 2, moment - timedelta(minutes=1))
                await enqueue(connection, [delivery("b" * 32)], moment - timedelta(seconds=30))
                await enqueue(connection, [delivery("c" * 32)], moment + timedelta(hours=1))

            await store.run("write", setup)
            await look(moment)

            # The first of queue "a" is sent: the one behind it is the most overdue now.
            async def send_first(connection: Any) -> None:
                jobs = await claim_due(
                    connection, now=moment, until=moment + timedelta(minutes=1),
                    claim="k" * 32, limit=1, per_queue=1,
                )  # fmt: skip
                await record(connection, "k" * 32, [Attempted(jobs[0], 1, 204)], [], moment)

            await store.run("write", send_first)
            await look(moment)
            await look(moment - timedelta(minutes=5))  # before any was due
            return seen
        finally:
            await store.close()

    assert asyncio.run(run()) == [(0, 0.0), (3, 60.0), (2, 60.0), (0, 0.0)]


def test_a_delivery_written_while_its_queue_is_held_back_is_not_due_before_its_first(
    database_url: str,
) -> None:
    """A change writes its delivery, reading its queue's first (waiting for its first
    attempt), and has not committed when a worker records that first's failure and holds the
    queue back: the worker waits for the change (PostgreSQL: the session's row; SQLite: the
    write lock), so the new delivery is held back too, never due before the first of its
    queue. The interleaving is forced: the change commits only once the worker is seen
    waiting for it, or has finished (as a worker that did not wait would, holding back
    nothing it could not see)."""
    from app.store.database import Store
    from app.store.repository import get_session, now, update_session
    from app.store.webhooks import (
        Attempted,
        NewDelivery,
        claim_due,
        enqueue,
        list_deliveries,
        record,
    )

    with app_client(database_url, webhook_allow_private=True) as client:
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        made = subscribe(session, "http://127.0.0.1:9/hook")
    # The app (and its delivery worker) is gone: the stores below are the change, the worker
    # and a watcher of the database's locks.
    postgres = database_url.startswith("postgresql")

    async def run() -> list[Any]:
        changing, working, watching = Store(database_url), Store(database_url), Store(database_url)
        for store in (changing, working, watching):
            await store.open()
        try:
            moment = now()
            first = NewDelivery(
                f"msg_{uuid.uuid4().hex}", made["id"], session.id, 2, "round", b"{}"
            )
            await working.run(
                "write",
                lambda connection: enqueue(connection, [first], moment - timedelta(seconds=1)),
            )
            holder = "c" * 32
            claimed = await working.run(
                "write",
                lambda connection: claim_due(
                    connection,
                    now=moment,
                    until=moment + timedelta(minutes=1),
                    claim=holder,
                    limit=1000,
                    per_queue=1,
                ),
            )
            (job,) = [each for each in claimed if each.subscription_id == made["id"]]
            retry_at = moment + timedelta(hours=1)
            written, go = asyncio.Event(), asyncio.Event()
            backend: list[int] = []

            async def change(connection: Any) -> None:
                if postgres:
                    backend.append((await connection.fetch("SELECT pg_backend_pid()", ()))[0][0])
                found = await get_session(connection, session.id, "arm-wrestles", lock=False)
                assert found is not None
                await update_session(
                    connection,
                    found,
                    status=found.status,
                    state=found.state,
                    result=found.result,
                    updated_at=now(),
                )
                second = NewDelivery(
                    f"msg_{uuid.uuid4().hex}", made["id"], session.id, 3, "round", b"{}"
                )
                await enqueue(connection, [second], now())
                written.set()
                await go.wait()

            changed = asyncio.ensure_future(changing.run("write", change))
            await written.wait()
            failed = Attempted(job, 1, 500, "answered 500", retry_at)
            recorded = asyncio.ensure_future(
                working.run(
                    "write", lambda connection: record(connection, holder, [failed], [], now())
                )
            )

            async def waiting_for_the_change() -> bool:
                if not postgres:
                    return working.lock_waits > 0
                found = await watching.run(
                    "read",
                    lambda connection: connection.fetch(
                        "SELECT count(*) FROM pg_stat_activity"
                        " WHERE $1 = ANY(pg_blocking_pids(pid))",
                        (backend[0],),
                    ),
                )
                return bool(found[0][0])

            while not recorded.done() and not await waiting_for_the_change():
                await asyncio.sleep(0)  # (a turn of the loop: the worker's attempts go on)
            go.set()
            await asyncio.gather(changed, recorded)
            return await watching.run(
                "read",
                lambda connection: list_deliveries(connection, made["id"], before=None, limit=10),
            )
        finally:
            for store in (changing, working, watching):
                await store.close()

    listed = asyncio.run(run())
    assert [(each.version, each.status) for each in listed] == [(3, "pending"), (2, "pending")]
    second, first = listed
    assert first.next_attempt_at > datetime.now(UTC) + timedelta(minutes=59)
    assert second.next_attempt_at >= first.next_attempt_at


def test_a_round_with_a_subscription_writes_its_delivery_in_its_own_statement(
    database_url: str, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL: a change with a subscription is still one statement (the session's update,
    its rounds and its delivery, each only if the update matched), as a change without one
    is; SQLite: the delivery is a statement of its own in the change's transaction. Either
    way, the delivery arrives."""
    from app.store.database import Transaction

    written: list[tuple[str, str]] = []
    execute = Transaction.execute

    async def counted(self: Transaction, sql: str, params: Any) -> int:
        written.append((sql, repr(params)))
        return await execute(self, sql, params)

    monkeypatch.setattr(Transaction, "execute", counted)
    with app_client(database_url, **FAST) as client:
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        made = heard_by(session, receiver, events=["round"])
        receiver.start()
        written.clear()
        play(session, 1)
        # This session's statements (the database is shared: another test's operator
        # subscription may hear every session's changes too).
        ours = [sql for sql, params in written if session.id in params]
        changes = [sql for sql in ours if "UPDATE sessions" in sql]
        deliveries_written = [
            sql
            for sql, params in written
            if "INSERT INTO webhook_deliveries" in sql and made["id"] in params
        ]
        receiver.wait_for(lambda got: len(got) == 1)
    (change,) = changes
    if database_url.startswith("postgresql"):
        assert deliveries_written == [change]
        assert "INSERT INTO rounds" in change
    else:
        assert len(deliveries_written) == 1
        assert deliveries_written != [change]
    (delivered,) = payloads(receiver.delivered)
    assert (delivered["type"], delivered["session"]["version"]) == ("round", 2)


def test_a_stale_change_writes_no_delivery_in_its_statement(database_url: str) -> None:
    """PostgreSQL: a change's statement with its deliveries at a version the session has left
    writes nothing at all: no session update, no round, no delivery (`StaleWrite`). SQLite
    has no such statement: asking for one is refused, and nothing is written either."""
    postgres_url = database_url
    postgres = database_url.startswith("postgresql")
    from app.store.database import StaleWrite, Store
    from app.store.repository import get_session, now, update_session
    from app.store.webhooks import NewDelivery, alongside

    with app_client(postgres_url, webhook_allow_private=True) as client:
        session = Session(client, "arm-wrestles", ARM_WRESTLE)
        made = subscribe(session, "http://127.0.0.1:9/hook")
        play(session, 1)  # the session moves on to version 2

    async def run() -> None:
        store = Store(postgres_url)
        await store.open()
        try:

            async def change(connection: Any) -> bool:
                found = await get_session(connection, session.id, "arm-wrestles", lock=False)
                assert found is not None
                try:
                    await update_session(
                        connection,
                        dataclasses.replace(found, version=1),
                        status=found.status,
                        state=found.state,
                        result=found.result,
                        updated_at=now(),
                        rounds=[{"number": 9, "inputs": {}, "dice": [], "outcome": {}}],
                        alongside=lambda updated: alongside(
                            [
                                NewDelivery(
                                    f"msg_{uuid.uuid4().hex}",
                                    made["id"],
                                    session.id,
                                    updated.version,
                                    "round",
                                    b"{}",
                                )
                            ],
                            now(),
                        ),
                    )
                except StaleWrite:
                    return postgres  # (caught here: the store would try again)
                except RuntimeError as exc:
                    return not postgres and "PostgreSQL's" in str(exc)
                return False

            assert await store.run("optimistic", change)
        finally:
            await store.close()

    asyncio.run(run())
    engine = null_pool_engine(postgres_url)
    try:
        with engine.connect() as connection:
            kept = connection.execute(
                text("SELECT version, rounds_played FROM sessions WHERE id = :id"),
                {"id": session.id},
            ).one()
            rounds = connection.execute(
                text("SELECT count(*) FROM rounds WHERE session_id = :id"), {"id": session.id}
            ).scalar()
            deliveries = connection.execute(
                text(
                    "SELECT version FROM webhook_deliveries"
                    " WHERE session_id = :id AND subscription_id = :subscription ORDER BY id"
                ),
                {"id": session.id, "subscription": made["id"]},
            ).all()
    finally:
        engine.dispose()
    assert tuple(kept) == (2, 1)
    assert rounds == 1
    assert [row[0] for row in deliveries] == [2]
