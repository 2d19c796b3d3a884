"""Live events (docs/api.md#live-events): the fan-out, LISTEN/NOTIFY between processes, the stream.

Three layers, each proven on its own:

* `Hub` and `Subscription` in one process: order, no repeats, resume, a resume older than
  what is kept, chunking;
* hubs on one PostgreSQL database, as separate processes would hold them (each its own
  listening connection): events cross, a resume is answered by the process that made the
  changes, announcements racing out of order are put back in order;
* the endpoint, on a real server: an app served by uvicorn in a thread (the events route and
  the hub added to it here, changes published as the lifecycle does after its commit), and
  then two server processes on one PostgreSQL database with the lifecycle's own wiring.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx
import orjson
import pytest
import uvicorn
from fastapi import FastAPI

from app.api.kinds.registry import KINDS
from app.api.sessions import events
from app.api.sessions.events import event_data, publish, start_events, stop_events
from app.main import create_app
from app.settings import Settings
from app.store import notify
from app.store.database import upgrade_to_head
from app.store.notify import ENDED, GAP, Event, Hub, Subscription, _chunks, postgres_dsn
from tests.conftest import migrated
from tests.helpers import Session
from tests.store.servers import (
    POLL_INTERVAL_S,
    STOP_TIMEOUT_S,
    Server,
    free_port,
    running_servers,
    start_server,
    stop_server,
    wait_until_healthy,
)

T = TypeVar("T")
#: Longest any one read of a stream may block before the test fails (never reached when
#: the code works; it only keeps a broken test from hanging).
READ_TIMEOUT_S = 20.0
ARM = "/v1/arm-wrestles"
SKILL = "/v1/skill-games"
#: An arm wrestle that lasts: many rounds are played without it finishing.
LONG_ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "target": 100,
    "max_rounds": 10_000,
}


def run(coroutine: Awaitable[T]) -> T:
    async def main() -> T:
        return await coroutine

    return asyncio.run(main())


def event(version: int, name: str = "round", session_id: str = "s1", size: int = 0) -> Event:
    data = orjson.dumps({"number": version, "padding": "é" * size})
    return Event(session_id, version, name, data)


async def drain(subscription: Subscription, count: int) -> list[Event]:
    got: list[Event] = []
    while len(got) < count:
        item = await subscription.next(READ_TIMEOUT_S)
        assert isinstance(item, Event), f"expected an event after {[e.version for e in got]}"
        got.append(item)
    return got


# --- one process ------------------------------------------------------------------------------


def test_a_subscription_hands_out_versions_in_order_once_each() -> None:
    async def scenario() -> None:
        hub = Hub()
        subscription = hub.subscribe("s1", 0)
        for version in (2, 1, 1, 3, 2):
            hub.publish(event(version))
        assert [e.version for e in await drain(subscription, 3)] == [1, 2, 3]
        assert await subscription.next(0) is None  # nothing more, and no repeat
        hub.publish(event(3))
        hub.publish(event(4))
        assert [e.version for e in await drain(subscription, 1)] == [4]
        subscription.close()
        assert hub.streams("s1") == 0

    run(scenario())


def test_another_sessions_events_do_not_reach_a_subscription() -> None:
    async def scenario() -> None:
        hub = Hub()
        subscription = hub.subscribe("s1", 0)
        hub.publish(event(1, session_id="s2"))
        hub.publish(event(1, session_id="s1"))
        (only,) = await drain(subscription, 1)
        assert (only.session_id, only.version) == ("s1", 1)
        assert await subscription.next(0) is None

    run(scenario())


def test_a_resume_replays_the_kept_events_after_its_version() -> None:
    async def scenario() -> None:
        hub = Hub()
        for version in range(1, 6):
            hub.publish(event(version))
        subscription = hub.subscribe("s1", 2)
        subscription.expect(5)
        got = await drain(subscription, 3)
        assert [(e.version, orjson.loads(e.data)["number"]) for e in got] == [
            (3, 3),
            (4, 4),
            (5, 5),
        ]
        assert await subscription.next(0) is None

    run(scenario())


def test_a_resume_older_than_what_is_kept_is_a_gap_then_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(notify, "RECENT_PER_SESSION", 3)

    async def scenario() -> None:
        hub = Hub()
        for version in range(1, 7):
            hub.publish(event(version))
        assert [e.version for e in hub.recent("s1", 0)] == [4, 5, 6]
        subscription = hub.subscribe("s1", 1)
        subscription.expect(6)
        # In one process a version missing after the replay never comes: a gap at once.
        assert await subscription.next(READ_TIMEOUT_S) is GAP
        subscription.resync(6)  # the stream showed the session at version 6
        assert await subscription.next(0) is None
        hub.publish(event(7))
        assert [e.version for e in await drain(subscription, 1)] == [7]

    run(scenario())


def test_a_process_shutting_down_ends_every_stream() -> None:
    async def scenario() -> None:
        hub = Hub()
        open_one = hub.subscribe("s1", 0)
        hub.end_streams()
        assert await open_one.next(READ_TIMEOUT_S) is ENDED
        assert await hub.subscribe("s2", 0).next(READ_TIMEOUT_S) is ENDED

    run(scenario())


def test_a_fan_out_reaches_a_batch_per_turn_and_every_subscription_in_order() -> None:
    async def scenario() -> None:
        hub = Hub()
        subscriptions = [hub.subscribe("s1", 0) for _ in range(5 * notify.FANOUT_BATCH + 3)]
        first, second = event(1), event(2)
        hub.publish(first)
        hub.publish(second)
        # The first event handed at once to one batch; the rest, and the second event after
        # it, in the following turns of the event loop.
        reached = [s for s in subscriptions if s.ready() == [first]]
        assert len(reached) == notify.FANOUT_BATCH
        assert all(s.ready() == [] for s in subscriptions if s not in reached)
        got = [await drain(s, 1 if s in reached else 2) for s in subscriptions]
        assert [[e.version for e in events] for events in got] == [
            [2] if s in reached else [1, 2] for s in subscriptions
        ]
        # Every subscription got the very same event, its frame encoded once.
        assert {id(events[-1]) for events in got} == {id(second)}
        assert second.frame == b'id: 2\nevent: round\ndata: {"number":2,"padding":""}\n\n'

    run(scenario())


def waiting(subscription: Subscription, timeout: float) -> Coroutine[Any, Any, object]:
    """`subscription.next(timeout)`, run up to its wait: the future it awaits is handed out
    by the coroutine's first step (no other task runs meanwhile, nothing is left to timing)."""
    wait = subscription.next(timeout)
    assert isinstance(wait.send(None), asyncio.Future)  # waiting, not returned
    return wait


def test_thousands_of_waiting_streams_cost_one_timer() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        hub = Hub()
        subscriptions = [hub.subscribe(f"s{n % 7}", 0) for n in range(3_000)]
        timers_before = len(loop._scheduled)  # type: ignore[attr-defined]
        waits = [waiting(s, events.KEEPALIVE_S) for s in subscriptions]
        assert len(hub.alarms) == 3_000
        assert hub.alarms.timers == 1
        assert len(loop._scheduled) == timers_before + 1  # type: ignore[attr-defined]
        for wait in waits:
            wait.close()
        for subscription in subscriptions:
            subscription.close()
        assert (len(hub.alarms), hub.alarms.timers) == (0, 0)

    run(scenario())


def test_a_wait_is_filed_on_the_first_tick_at_or_after_its_time_and_moves_only_earlier() -> None:
    async def scenario() -> None:
        hub = Hub()
        tick = hub.alarms.tick
        subscription = hub.subscribe("s1", 0)
        wait = waiting(subscription, 60.0)
        filed = subscription._tick
        assert filed is not None
        # Never before its time, and at most a tick after it.
        assert filed * tick >= subscription._wake_at > (filed - 1) * tick
        wait.close()
        # A later wait keeps the earlier alarm (it is filed again when that rings early).
        later = waiting(subscription, 120.0)
        assert subscription._tick == filed
        later.close()
        # An earlier one (a missing version's) moves it: filed once, under the earlier tick.
        sooner = waiting(subscription, 1.0)
        assert subscription._tick is not None
        assert subscription._tick < filed
        assert len(hub.alarms) == 1
        sooner.close()
        subscription.close()

    run(scenario())


def test_a_closed_stream_is_dropped_from_the_alarms() -> None:
    async def scenario() -> None:
        hub = Hub()
        staying, leaving = hub.subscribe("s1", 0), hub.subscribe("s1", 0)
        waits = [waiting(staying, 30.0), waiting(leaving, 30.0)]
        assert len(hub.alarms) == 2
        waits[1].close()
        leaving.close()
        assert len(hub.alarms) == 1
        assert leaving._tick is None
        assert hub.streams("s1") == 1
        assert hub.alarms.timers == 1  # still ringing for the one left
        waits[0].close()
        staying.close()
        assert (len(hub.alarms), hub.alarms.timers) == (0, 0)

    run(scenario())


def test_every_idle_stream_of_thousands_comes_back_for_its_keep_alive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Short waits on short ticks: the test takes a few of them, not the 15 s keep-alive.
    monkeypatch.setattr(notify, "ALARM_TICK_S", 0.01)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        hub = Hub()
        subscriptions = [hub.subscribe("s1", 0) for _ in range(2_000)]
        started = loop.time()
        got = await asyncio.gather(*(s.next(0.05) for s in subscriptions))
        assert got == [None] * 2_000  # each wait ended by its alarm: nothing came
        # None ended before its time (by the loop's own clock).
        assert loop.time() + notify.ALARM_SLACK_S >= started + 0.05
        # And an event still ends a wait at once, alarm or not.
        waits = [asyncio.ensure_future(s.next(READ_TIMEOUT_S)) for s in subscriptions[:3]]
        hub.publish(event(1))
        assert [e.version for e in await asyncio.gather(*waits)] == [1, 1, 1]  # type: ignore[union-attr]
        for subscription in subscriptions:
            subscription.close()
        assert (len(hub.alarms), hub.alarms.timers) == (0, 0)

    run(scenario())


def test_a_subscription_that_falls_too_far_behind_is_ended_and_resumes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(notify, "BEHIND_LIMIT", 4)

    async def scenario() -> None:
        hub = Hub()
        slow = hub.subscribe("s1", 0)
        keeping_up = hub.subscribe("s1", 0)
        for version in range(1, 5):
            hub.publish(event(version))
        assert [e.version for e in await drain(keeping_up, 4)] == [1, 2, 3, 4]
        assert not slow.behind
        hub.publish(event(5))  # a fifth event unread: the slow stream ends
        assert slow.behind
        assert await slow.next(READ_TIMEOUT_S) is ENDED
        assert [e.version for e in await drain(keeping_up, 1)] == [5]
        slow.close()
        # Its client comes back with Last-Event-ID: what it missed is replayed.
        resumed = hub.subscribe("s1", 0)
        assert [e.version for e in await drain(resumed, 5)] == [1, 2, 3, 4, 5]

    run(scenario())


def test_recent_events_are_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(notify, "RECENT_BYTES", 10_000)
    hub = Hub()
    for session in range(20):
        hub.publish(event(1, session_id=f"s{session}", size=500))  # ~1 KB each
    kept = [f"s{session}" for session in range(20) if hub.recent(f"s{session}", 0)]
    assert kept == [f"s{session}" for session in range(11, 20)]  # the latest changed stay


def test_recent_events_are_bounded_in_number_and_per_session(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(notify, "RECENT_EVENTS", 10)
    monkeypatch.setattr(notify, "RECENT_PER_SESSION", 4)
    hub = Hub()
    for version in range(1, 7):
        hub.publish(event(version, session_id="busy"))
    for version in range(1, 6):
        hub.publish(event(version, session_id="quiet"))
    # Eleven events kept at most ten: the oldest one went; of those left, the last four of a
    # session are what a resume gets.
    assert [e.version for e in hub.recent("busy", 0)] == [3, 4, 5, 6]
    assert [e.version for e in hub.recent("busy", 4)] == [5, 6]
    assert [e.version for e in hub.recent("quiet", 0)] == [2, 3, 4, 5]
    for version in range(6, 16):
        hub.publish(event(version, session_id="quiet"))
    assert hub.recent("busy", 0) == []
    assert [e.version for e in hub.recent("quiet", 10)] == [12, 13, 14, 15]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 100])
def test_chunks_never_split_a_character_and_join_back(size: int) -> None:
    data = ("aé€😀" * 50).encode()
    pieces = _chunks(data, max(size, 4))
    assert "".join(pieces).encode() == data
    assert all(len(piece.encode()) <= max(size, 4) for piece in pieces)
    assert _chunks(b"", 10) == [""]


def test_a_submitted_event_says_who_never_what() -> None:
    answer = {
        "submitted": True,
        "party": "Heroes",
        "waiting_for": ["Bandits"],
        "session": {"id": "s1", "state": {"submitted": ["Heroes"]}},
        "summary": "Heroes has sealed its choice; waiting for Bandits.",
        "action": "Charge",
        "bid": 3,
        "actions": ["Charge"],
        "rolls": {"Heroes": {"order": 17}},
    }
    shown = orjson.loads(event_data("s1", "submitted", orjson.dumps(answer)))
    assert shown == {key: answer[key] for key in events.SUBMITTED_KEYS}


def test_an_event_never_carries_tokens_and_a_deletion_names_its_session() -> None:
    body = orjson.dumps({"session": {"id": "s1"}, "tokens": {"gm": "secret"}})
    assert orjson.loads(event_data("s1", "round", body)) == {"session": {"id": "s1"}}
    assert orjson.loads(event_data("s1", "deleted", b"")) == {"id": "s1"}
    plain = orjson.dumps({"round": {"number": 1}})
    assert event_data("s1", "round", plain) is plain  # untouched: no parsing on the way


def test_a_partys_stream_reads_round_records_as_its_token_may() -> None:
    # docs/rules.md#bidding: a losing party's action is that party's and the GM's alone.
    record = {
        "bids": {"Heroes": 2, "Bandits": 1},
        "choices": {
            "Heroes": {"action": "Charge", "bid": 2},
            "Bandits": {"action": "Sneak", "bid": 1},
        },
        "effects": [],
    }
    data = orjson.dumps({"round": record, "session": {"round": 1}, "summary": "..."})
    skill_games = KINDS["skill-games"]
    assert events.shown_to(skill_games, None, data) is data  # the GM's: whole
    assert orjson.loads(events.shown_to(skill_games, "Bandits", data))["round"] == record
    heroes = orjson.loads(events.shown_to(skill_games, "Heroes", data))
    assert heroes["round"]["choices"] == {
        "Heroes": {"action": "Charge", "bid": 2},
        "Bandits": {"bid": 1},
    }
    assert heroes["session"] == {"round": 1}
    chases = KINDS["chases"]
    assert events.shown_to(chases, "escapee", data) is data  # a kind that hides nothing


def test_a_partys_frame_of_an_event_is_made_once_for_all_its_streams() -> None:
    # 2,000 streams of one session share an event's frames: one a view, not one a stream.
    record = {
        "bids": {"Heroes": 2, "Bandits": 1},
        "choices": {
            "Heroes": {"action": "Charge", "bid": 2},
            "Bandits": {"action": "Sneak", "bid": 1},
        },
        "effects": [],
    }
    data = orjson.dumps({"round": record, "session": {"round": 1}, "summary": "..."})
    published = Event("s1", 4, "round", data)
    skill_games = KINDS["skill-games"]
    heroes = events._framed(skill_games, "Heroes", published)
    assert heroes.startswith(b"id: 4\nevent: round\ndata: ")
    assert b"Sneak" not in heroes
    assert b"Charge" in heroes
    assert events._framed(skill_games, "Heroes", published) is heroes
    # The losers read the winners' action too (docs/rules.md#bidding): the whole record.
    assert events._framed(skill_games, "Bandits", published) == published.frame
    assert events._framed(skill_games, None, published) is published.frame  # the GM's
    assert events._framed(KINDS["chases"], "escapee", published) is published.frame
    assert set(published.views) == {"Heroes", "Bandits"}


def test_a_burst_of_ended_streams_hands_memory_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(events, "_malloc_trim", calls.append)
    monkeypatch.setattr(events, "TRIM_AFTER", 3)
    monkeypatch.setattr(events, "TRIM_DELAY_S", 0.0)

    async def scenario() -> None:
        slots = events.StreamSlots(per_session=10, per_token=10, per_process=10)
        releases = [slots.claim("s1", f"token {n}") for n in range(7)]
        for release in releases[:2]:
            release()
        await asyncio.sleep(0)  # a turn of the loop: nothing is due below 3 ended
        assert (slots.trim.trims, slots.trim.due) == (0, None)
        releases[2]()
        releases[2]()  # given back twice: counted once
        assert slots.trim.due is not None
        for release in releases[3:6]:
            release()  # ended while a trim is due: that one trim covers them
        while slots.trim.due is not None:
            await asyncio.sleep(0)
        for _ in range(5):  # the worker thread's call
            if calls:
                break
            await asyncio.sleep(0.01)
        assert (slots.trim.trims, calls, slots.total) == (1, [0], 1)
        assert slots.trim.ended_since == 0
        # The burst's tail, however short, is trimmed after too.
        releases[6]()
        assert slots.trim.due is not None
        while slots.trim.due is not None:
            await asyncio.sleep(0)
        assert slots.trim.trims == 2
        # Past the burst, one stream ending is no burst.
        slots.trim.burst_until = 0.0
        slots.claim("s1", "token 7")()
        assert (slots.trim.due, slots.trim.ended_since) == (None, 1)

    run(scenario())


# --- processes sharing PostgreSQL -------------------------------------------------------------


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A migrated PostgreSQL database of its own (LISTEN/NOTIFY is per database)."""
    with migrated("postgresql") as url:
        yield url


@asynccontextmanager
async def hubs(url: str, count: int) -> AsyncIterator[list[Hub]]:
    """`count` hubs as `count` processes would hold them: each its own listening connection."""
    dsn = postgres_dsn(url)
    assert dsn is not None
    started = [Hub(dsn) for _ in range(count)]
    try:
        for hub in started:
            await hub.start()
        for hub in started:
            await asyncio.wait_for(hub.listening.wait(), READ_TIMEOUT_S)
        yield started
    finally:
        for hub in started:
            await hub.stop()


@pytest.mark.postgres
def test_events_cross_processes_in_order_large_ones_included(postgres_url: str) -> None:
    async def scenario() -> None:
        async with hubs(postgres_url, 2) as (writer, reader):
            subscription = reader.subscribe("s1", 0)
            published = [event(v, size=6000 if v % 3 == 0 else 10) for v in range(1, 21)]
            for item in published:  # 12 KB of "é" in every third: two NOTIFY payloads
                writer.publish(item)
            got = await drain(subscription, 20)
            assert got == published
            assert await subscription.next(0) is None

    run(scenario())


@pytest.mark.postgres
def test_a_resume_is_answered_by_the_process_that_made_the_changes(postgres_url: str) -> None:
    async def scenario() -> None:
        async with hubs(postgres_url, 2) as (writer, reader):
            for version in range(1, 6):
                writer.publish(event(version))  # nobody streams it yet
            subscription = reader.subscribe("s1", 2)
            subscription.expect(5)
            assert [e.version for e in await drain(subscription, 3)] == [3, 4, 5]
            writer.publish(event(6))
            assert [e.version for e in await drain(subscription, 1)] == [6]

    run(scenario())


@pytest.mark.postgres
def test_announcements_racing_between_processes_come_out_in_order(postgres_url: str) -> None:
    async def scenario() -> None:
        async with hubs(postgres_url, 3) as (first, second, reader):
            subscription = reader.subscribe("s1", 0)
            # The second process's change (version 2) is announced before the first's
            # (version 1), as two optimistic writers' announcements may be.
            second.publish(event(2))
            third_seen = drain(subscription, 3)
            first.publish(event(1))
            first.publish(event(3))
            assert [e.version for e in await third_seen] == [1, 2, 3]

    run(scenario())


@pytest.mark.postgres
def test_a_change_nobody_streams_sends_nothing(postgres_url: str) -> None:
    async def scenario() -> None:
        async with hubs(postgres_url, 1) as (writer,):
            writer.publish(event(1, session_id="unwatched"))
            assert writer._outbox == []

    run(scenario())


@pytest.mark.postgres
def test_a_lost_announcement_is_a_gap_after_the_wait(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notify, "GAP_WAIT_S", 0.01)

    async def scenario() -> None:
        async with hubs(postgres_url, 1) as (reader,):
            subscription = reader.subscribe("s1", 0)
            subscription.expect(2)  # the database is at version 2; nobody will announce it
            assert await subscription.next(READ_TIMEOUT_S) is GAP

    run(scenario())


# --- the stream, on a real server -------------------------------------------------------------


class Stream:
    """A `text/event-stream` read line by line: events as (id, name, data), and comments."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.lines = response.iter_lines()
        self.comments: list[str] = []

    def next_event(self) -> tuple[int, str, Any]:
        fields: dict[str, str] = {}
        for line in self.lines:
            if line == "":
                if fields:
                    return int(fields["id"]), fields["event"], orjson.loads(fields["data"])
                continue
            if line.startswith(":"):
                self.comments.append(line)
                continue
            name, _, value = line.partition(": ")
            fields[name] = value
        raise AssertionError("the stream ended")

    def events(self, count: int) -> list[tuple[int, str, Any]]:
        return [self.next_event() for _ in range(count)]

    def next_comment(self) -> str:
        for line in self.lines:
            if line.startswith(":"):
                return line
            assert line == "", f"expected a comment, got {line!r}"
        raise AssertionError("the stream ended")


@contextmanager
def stream(base: str, path: str, token: str, last_event_id: int | None = None) -> Iterator[Stream]:
    headers = {"Authorization": f"Bearer {token}"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    timeout = httpx.Timeout(READ_TIMEOUT_S)
    with httpx.stream("GET", base + path, headers=headers, timeout=timeout) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        # A stream carries a session's rounds as its token may read them: cached nowhere.
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["x-content-type-options"] == "nosniff"
        yield Stream(response)


class Served:
    """An app served by uvicorn in a thread, with the events route and a hub of its own."""

    def __init__(self, app: FastAPI, base: str) -> None:
        self.app = app
        self.base = base
        self.loop: asyncio.AbstractEventLoop | None = None

    def publish(self, session_id: str, version: int, name: str, body: bytes) -> None:
        """What the lifecycle does after a change commits, on the server's event loop."""
        assert self.loop is not None
        done = threading.Event()

        def on_loop() -> None:
            publish(self.app, session_id, version, name, body)
            done.set()

        self.loop.call_soon_threadsafe(on_loop)
        assert done.wait(READ_TIMEOUT_S)

    def streams_held(self, session_id: str) -> int:
        """The stream slots the session holds now, read on the server's event loop."""
        assert self.loop is not None
        held: list[int] = []
        done = threading.Event()

        def on_loop() -> None:
            held.append(events.slots_of(self.app).streams(session_id))
            done.set()

        self.loop.call_soon_threadsafe(on_loop)
        assert done.wait(READ_TIMEOUT_S)
        return held[0]

    def until_streams_held(self, session_id: str, count: int) -> None:
        """Wait until the server has given back the slots of the streams that ended."""
        for _ in range(int(READ_TIMEOUT_S / POLL_INTERVAL_S)):
            if self.streams_held(session_id) == count:
                return
            threading.Event().wait(POLL_INTERVAL_S)
        raise AssertionError(f"the session still holds {self.streams_held(session_id)} slots")


@contextmanager
def served(database_url: str, **settings: Any) -> Iterator[Served]:
    app = create_app(Settings(database_url=database_url, **settings))
    port = free_port()
    server = Served(app, f"http://127.0.0.1:{port}")
    opened = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(application: FastAPI) -> AsyncIterator[None]:
        async with opened(application):
            await start_events(application, database_url)
            server.loop = asyncio.get_running_loop()
            try:
                yield
            finally:
                await stop_events(application)

    app.router.lifespan_context = lifespan
    uvicorn_server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=uvicorn_server.run, daemon=True)
    thread.start()
    try:
        with httpx.Client(base_url=server.base) as client:
            for _ in range(1500):  # polled until it is up, as servers.py does
                try:
                    if client.get("/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                threading.Event().wait(POLL_INTERVAL_S)
        yield server
    finally:
        uvicorn_server.should_exit = True
        thread.join(READ_TIMEOUT_S)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'events.db'}"
    upgrade_to_head(url)
    return url


def test_the_stream_shows_the_session_then_each_change_then_resumes(sqlite_url: str) -> None:
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        arm = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
        session_id, gm = arm.id, arm.gm
        path = f"{ARM}/{session_id}/events"
        answers: list[dict[str, Any]] = []
        with stream(server.base, path, gm) as live:
            version, name, data = live.next_event()
            assert (version, name, data["session"]["id"]) == (1, "session", session_id)
            assert data["session"]["version"] == 1
            for _ in range(3):
                played = arm.play_round()
                answers.append(played.json())
                server.publish(
                    session_id, answers[-1]["session"]["version"], "round", played.content
                )
            assert live.events(3) == [
                (v, "round", a) for v, a in zip((2, 3, 4), answers, strict=True)
            ]
        for _ in range(2):  # while nobody streams
            played = arm.play_round()
            answers.append(played.json())
            server.publish(session_id, answers[-1]["session"]["version"], "round", played.content)
        with stream(server.base, path, gm, last_event_id=3) as resumed:
            assert resumed.events(3) == [
                (v, "round", a) for v, a in zip((4, 5, 6), answers[2:], strict=True)
            ]
            deleted = client.delete(
                f"{ARM}/{session_id}", headers={"Authorization": f"Bearer {gm}"}
            )
            assert deleted.status_code == 204
            server.publish(session_id, 7, "deleted", b"")
            assert resumed.next_event() == (7, "deleted", {"id": session_id})
            assert list(resumed.lines) == []  # a deletion ends the stream


def test_a_resume_older_than_what_is_kept_shows_the_session(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notify, "RECENT_PER_SESSION", 2)
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        arm = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
        session_id, gm = arm.id, arm.gm
        for _ in range(4):
            played = arm.play_round()
            server.publish(session_id, played.json()["session"]["version"], "round", played.content)
        with stream(server.base, f"{ARM}/{session_id}/events", gm, last_event_id=1) as resumed:
            version, name, data = resumed.next_event()
            current = client.get(f"{ARM}/{session_id}", headers={"Authorization": f"Bearer {gm}"})
            assert (version, name, data) == (5, "session", {"session": current.json()})
            played = arm.play_round()
            server.publish(session_id, 6, "round", played.content)
            assert resumed.next_event() == (6, "round", played.json())


def test_an_idle_stream_gets_keep_alive_comments(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(events, "KEEPALIVE_S", 0.01)
    monkeypatch.setattr(notify, "ALARM_TICK_S", 0.01)
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        arm = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
        session_id, gm = arm.id, arm.gm
        with stream(server.base, f"{ARM}/{session_id}/events", gm) as live:
            assert live.next_event()[1] == "session"
            assert live.next_comment() == ": keep-alive"
            assert live.next_comment() == ": keep-alive"


def test_each_tokens_stream_of_a_bidding_game_hides_the_others_losing_actions(
    sqlite_url: str,
) -> None:
    create = KINDS["skill-games"].examples.create
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        made = client.post(SKILL, json=create)
        assert made.status_code == 201, made.text
        session_id, tokens = made.json()["id"], made.json()["tokens"]
        heroes, bandits, gm = (
            tokens["parties"]["Heroes"],
            tokens["parties"]["Bandits"],
            tokens["gm"],
        )
        path = f"{SKILL}/{session_id}/events"

        def post(what: str, body: dict[str, Any], token: str) -> httpx.Response:
            headers = {"Authorization": f"Bearer {token}"}
            return client.post(f"{SKILL}/{session_id}/{what}", json=body, headers=headers)

        with (
            stream(server.base, path, heroes) as as_heroes,
            stream(server.base, path, bandits) as as_bandits,
            stream(server.base, path, gm) as as_gm,
        ):
            for live in (as_heroes, as_bandits, as_gm):
                assert live.next_event()[1] == "session"
            # Ann's Athletics 20 + 5 earns the Heroes a token; Rook's dice earn nothing.
            heroes_rolls = {"Ann": {"Athletics": 20, "Stealth": 1}}
            bandits_rolls = {"Rook": {"Athletics": 1, "Stealth": 1}}
            skills = ["Athletics", "Stealth"]
            for party, rolls, token in (
                ("Heroes", heroes_rolls, heroes),
                ("Bandits", bandits_rolls, gm),
            ):
                chosen = post("skills", {"party": party, "skills": skills, "rolls": rolls}, token)
                assert chosen.status_code == 200, chosen.text
            assert (
                post("choices", {"party": "Bandits", "action": "Rally", "bid": 0}, gm).status_code
                == 202
            )
            revealed = post("choices", {"party": "Heroes", "action": "Charge", "bid": 1}, heroes)
            assert revealed.status_code == 200, revealed.text
            # The Heroes win with Charge; the Bandits' Rally lost.
            assert revealed.json()["round"]["choices"] == {
                "Heroes": {"action": "Charge", "bid": 1},
                "Bandits": {"bid": 0},
            }
            seen = {
                name: live.events(4)[-1]
                for name, live in (("Heroes", as_heroes), ("Bandits", as_bandits), ("gm", as_gm))
            }
    for name, (version, event_name, _data) in seen.items():
        assert (version, event_name) == (5, "revealed"), name
    choices = {name: data["round"]["choices"] for name, (_v, _n, data) in seen.items()}
    assert choices == {
        "Heroes": {"Heroes": {"action": "Charge", "bid": 1}, "Bandits": {"bid": 0}},
        "Bandits": {
            "Heroes": {"action": "Charge", "bid": 1},
            "Bandits": {"action": "Rally", "bid": 0},
        },
        "gm": {
            "Heroes": {"action": "Charge", "bid": 1},
            "Bandits": {"action": "Rally", "bid": 0},
        },
    }
    heroes_event = orjson.dumps(seen["Heroes"][2]).decode()
    assert "Rally" not in heroes_event.replace('"name":"Rally"', "")  # only the config names it


def test_the_stream_wants_a_token_of_the_session(sqlite_url: str) -> None:
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        session_id = Session(client, "arm-wrestles", LONG_ARM_WRESTLE).id
        other = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
        other_id, other_gm = other.id, other.gm
        path = f"{ARM}/{session_id}/events"
        missing = client.get(path)
        assert missing.status_code == 401
        assert missing.headers["content-type"] == "application/problem+json"
        assert client.get(path, headers={"Authorization": "Bearer nope"}).status_code == 404
        wrong = client.get(path, headers={"Authorization": f"Bearer {other_gm}"})
        assert wrong.status_code == 404
        assert wrong.json()["status"] == 404
        unknown = client.get(
            f"{ARM}/{'0' * 32}/events", headers={"Authorization": f"Bearer {other_gm}"}
        )
        assert unknown.status_code == 404
        assert other_id != session_id


def test_a_seat_streams_its_session(sqlite_url: str) -> None:
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        arm = Session(client, "arm-wrestles", {**LONG_ARM_WRESTLE, "seats": True})
        path = f"{ARM}/{arm.id}/events"
        with stream(server.base, path, arm.tokens["seats"]["Ogre"]) as live:
            version, name, data = live.next_event()
            assert (version, name, data["session"]["id"]) == (1, "session", arm.id)
            played = arm.play_round()
            server.publish(arm.id, 2, "round", played.content)
            assert live.next_event() == (2, "round", played.json())


def test_a_seats_stream_hears_who_gave_dice_never_what(sqlite_url: str) -> None:
    """A round waiting for dice, as another seat's stream tells it: `pending`, `dice-in`
    naming who (the same body the giver was answered, no die in it), then the round."""
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        arm = Session(client, "arm-wrestles", {**LONG_ARM_WRESTLE, "seats": True})
        seats = arm.tokens["seats"]
        with stream(server.base, f"{ARM}/{arm.id}/events", seats["Ogre"]) as live:
            assert live.next_event()[:2] == (1, "session")
            opened = arm.post("rounds", {"collect": True, "deadline_seconds": 600})
            assert opened.status_code == 202
            assert live.next_event() == (2, "pending", opened.json())
            given = arm.post(
                "rounds/pending/dice", {"rolls": {"Lydia": {"strength": 17}}}, token=seats["Lydia"]
            )
            assert given.status_code == 202
            version, name, data = live.next_event()
            assert (version, name, data) == (3, "dice-in", given.json())
            assert set(data) == {"pending", "name", "session", "summary"}
            assert (data["name"], data["pending"]["waiting_for"]) == ("Lydia", ["Ogre"])
            played = arm.post(
                "rounds/pending/dice", {"rolls": {"Ogre": {"strength": 4}}}, token=seats["Ogre"]
            )
            assert played.status_code == 200
            assert live.next_event() == (4, "round", played.json())
            assert played.json()["round"]["checks"]["Lydia"]["roll"] == 17


def test_a_stream_opened_past_a_deadline_shows_the_round_played(sqlite_url: str) -> None:
    """Opening a stream touches the session: a round waiting for dice past its deadline plays
    first, and the stream's opening `session` event shows it played."""
    moment = [datetime(2026, 12, 1, 20, 0, tzinfo=UTC)]
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        server.app.state.clock = lambda: moment[0]
        arm = Session(client, "arm-wrestles", {**LONG_ARM_WRESTLE, "seats": True})
        opened = arm.post("rounds", {"collect": True, "deadline_seconds": 60})
        assert opened.status_code == 202
        moment[0] += timedelta(seconds=60)
        with stream(server.base, f"{ARM}/{arm.id}/events", arm.tokens["seats"]["Lydia"]) as live:
            version, name, data = live.next_event()
            assert (version, name) == (3, "session")
            assert (data["session"]["round"], "pending" in data["session"]) == (1, False)
        played = arm.get("rounds").json()["rounds"][0]
        assert played["dice_from"] == {"Lydia": "deadline", "Ogre": "deadline"}


def refused(base: str, path: str, token: str) -> httpx.Response:
    answer = httpx.get(base + path, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 429, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["retry-after"] == str(events.STREAMS_RETRY_AFTER_S)
    return answer


def test_streams_of_a_session_are_capped_and_a_slot_comes_back_when_its_client_goes(
    sqlite_url: str,
) -> None:
    with (
        served(sqlite_url, events_max_streams_per_session=2) as server,
        httpx.Client(base_url=server.base) as client,
    ):
        arm = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
        path = f"{ARM}/{arm.id}/events"
        with stream(server.base, path, arm.gm) as first, stream(server.base, path, arm.gm):
            assert first.next_event()[1] == "session"
            assert server.streams_held(arm.id) == 2
            body = refused(server.base, path, arm.gm).json()
            assert body == {
                "type": "https://arbiter.example/problems/too-many-streams",
                "title": "Too Many Requests",
                "status": 429,
                "detail": "this session has 2 live streams already; retry in 5 s",
            }
            # Another session's streams are counted apart.
            other = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
            with stream(server.base, f"{ARM}/{other.id}/events", other.gm) as elsewhere:
                assert elsewhere.next_event()[1] == "session"
        # Both clients went away: the server gives both slots back.
        server.until_streams_held(arm.id, 0)
        with stream(server.base, path, arm.gm) as again:
            assert again.next_event()[1] == "session"
            assert server.streams_held(arm.id) == 1


def test_streams_of_a_process_are_capped_whatever_their_sessions(sqlite_url: str) -> None:
    with (
        served(sqlite_url, events_max_streams=2) as server,
        httpx.Client(base_url=server.base) as client,
    ):
        sessions = [Session(client, "arm-wrestles", LONG_ARM_WRESTLE) for _ in range(3)]
        paths = [f"{ARM}/{arm.id}/events" for arm in sessions]
        with (
            stream(server.base, paths[0], sessions[0].gm) as first,
            stream(server.base, paths[1], sessions[1].gm) as second,
        ):
            assert (first.next_event()[1], second.next_event()[1]) == ("session", "session")
            body = refused(server.base, paths[2], sessions[2].gm).json()
            assert body == {
                "type": "https://arbiter.example/problems/too-many-streams",
                "title": "Too Many Requests",
                "status": 429,
                "detail": "this server has 2 live streams already; retry in 5 s",
            }
        server.until_streams_held(sessions[0].id, 0)
        server.until_streams_held(sessions[1].id, 0)
        with stream(server.base, paths[2], sessions[2].gm) as third:
            assert third.next_event()[1] == "session"


def test_streams_opening_together_share_the_sessions_opening_frame(sqlite_url: str) -> None:
    with served(sqlite_url) as server, httpx.Client(base_url=server.base) as client:
        arm = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
        path = f"{ARM}/{arm.id}/events"
        with stream(server.base, path, arm.gm) as one, stream(server.base, path, arm.gm) as two:
            first, second = one.next_event(), two.next_event()
        assert first == second
        assert first[:2] == (1, "session")
        assert first[2]["session"]["id"] == arm.id
        kept = server.app.state.event_openings
        assert list(kept) == [("arm-wrestles", arm.id, 1, "en")]  # by version and language


def test_streams_of_a_token_are_capped_and_a_stream_that_ends_gives_its_slot_back(
    sqlite_url: str,
) -> None:
    with (
        served(sqlite_url, events_max_streams_per_token=1) as server,
        httpx.Client(base_url=server.base) as client,
    ):
        made = client.post(SKILL, json=KINDS["skill-games"].examples.create)
        assert made.status_code == 201, made.text
        session_id, tokens = made.json()["id"], made.json()["tokens"]
        path = f"{SKILL}/{session_id}/events"
        heroes = tokens["parties"]["Heroes"]
        with stream(server.base, path, heroes) as live:
            assert live.next_event()[1] == "session"
            detail = refused(server.base, path, heroes).json()["detail"]
            assert detail == "this token has 1 live streams open already; retry in 5 s"
            # The session's other tokens each have a stream of their own.
            with stream(server.base, path, tokens["gm"]) as gm_stream:
                assert gm_stream.next_event()[1] == "session"
                assert server.streams_held(session_id) == 2
            deleted = client.delete(
                f"{SKILL}/{session_id}", headers={"Authorization": f"Bearer {tokens['gm']}"}
            )
            assert deleted.status_code == 204
            server.publish(session_id, 2, "deleted", b"")
            assert live.next_event() == (2, "deleted", {"id": session_id})
            assert list(live.lines) == []  # the stream ended by itself
            server.until_streams_held(session_id, 0)


# --- server processes, with the lifecycle's own wiring ---------------------------------------


@pytest.fixture(scope="module")
def two_servers(
    postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Server]]:
    """Two server processes on the module's PostgreSQL database, one streaming what is posted
    to the other (the tests share them: each plays sessions of its own)."""
    with running_servers(postgres_url, 2, tmp_path_factory.mktemp("servers")) as started:
        watched, written = started
        yield watched, written


@pytest.mark.slow
def test_a_server_told_to_stop_ends_its_streams_and_exits(sqlite_url: str, tmp_path: Path) -> None:
    server = start_server(sqlite_url, tmp_path)
    try:
        wait_until_healthy(server)
        client = httpx.Client(base_url=server.base_url)
        arm = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
        session_id, gm = arm.id, arm.gm
        with stream(server.base_url, f"{ARM}/{session_id}/events", gm) as live:
            assert live.next_event()[1] == "session"
            server.process.terminate()
            assert list(live.lines) == []  # the stream ends rather than hold the server up
        server.process.wait(timeout=STOP_TIMEOUT_S)
    finally:
        stop_server(server)


@pytest.mark.slow
@pytest.mark.postgres
def test_a_stream_on_one_server_sees_every_round_posted_to_another(
    two_servers: tuple[Server, Server],
) -> None:
    watched, written = two_servers
    client = httpx.Client(base_url=written.base_url)
    arm = Session(client, "arm-wrestles", LONG_ARM_WRESTLE)
    session_id, gm = arm.id, arm.gm
    path = f"{ARM}/{session_id}/events"
    answers: list[dict[str, Any]] = []
    with stream(watched.base_url, path, gm) as live:
        assert live.next_event()[:2] == (1, "session")
        for _ in range(15):
            answers.append(arm.play_round().json())
        got = live.events(15)
    assert got == [(2 + i, "round", answer) for i, answer in enumerate(answers)]
    for _ in range(5):  # while nobody streams
        answers.append(arm.play_round().json())
    with stream(watched.base_url, path, gm, last_event_id=12) as resumed:
        assert resumed.events(9) == [
            (13 + i, "round", answer) for i, answer in enumerate(answers[11:])
        ]
    for base in (watched.base_url, written.base_url):
        assert httpx.get(base + path).status_code == 401
        wrong = httpx.get(base + path, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 404


@pytest.mark.slow
@pytest.mark.postgres
def test_a_sealed_choice_never_appears_in_an_event(two_servers: tuple[Server, Server]) -> None:
    create = KINDS["skill-games"].examples.create
    watched, written = two_servers
    client = httpx.Client(base_url=written.base_url)
    made = client.post(SKILL, json=create)
    assert made.status_code == 201, made.text
    session_id = made.json()["id"]
    tokens = made.json()["tokens"]
    as_heroes = {"Authorization": f"Bearer {tokens['parties']['Heroes']}"}
    as_gm = {"Authorization": f"Bearer {tokens['gm']}"}
    with stream(watched.base_url, f"{SKILL}/{session_id}/events", tokens["gm"]) as live:
        assert live.next_event()[1] == "session"
        for party, headers in (("Heroes", as_heroes), ("Bandits", as_gm)):
            skills = {"party": party, "skills": ["Athletics", "Stealth"]}
            chosen = client.post(f"{SKILL}/{session_id}/skills", json=skills, headers=headers)
            assert chosen.status_code == 200, chosen.text
        sealed = client.post(
            f"{SKILL}/{session_id}/choices",
            json={"party": "Heroes", "action": "Rally", "bid": 0},
            headers=as_heroes,
        )
        assert sealed.status_code == 202, sealed.text
        revealing = client.post(
            f"{SKILL}/{session_id}/choices",
            json={"party": "Bandits", "action": "Charge", "bid": 0},
            headers=as_gm,
        )
        assert revealing.status_code == 200, revealing.text
        got = live.events(4)
    versions = [version for version, _name, _data in got]
    assert versions == [2, 3, 4, 5]
    (_, name, submitted) = got[2]
    assert name == "submitted"
    assert submitted["party"] == "Heroes"
    assert set(submitted) <= set(events.SUBMITTED_KEYS)
    text = orjson.dumps(submitted).decode()
    assert '"bid"' not in text
    assert '"action"' not in text
    assert "Rally" not in text.replace('"name":"Rally"', "")  # only the config names it
    assert got[3][1] == "revealed"


# --- streams in another language, across processes -------------------------------------------


@pytest.mark.postgres
def test_an_event_crosses_processes_in_the_languages_its_streams_read(postgres_url: str) -> None:
    """The process that made the change makes its data in each language another process
    streams the session in (and in no other), sends it beside the English, and the reading
    process keeps it with the event for each of its streams of that language."""
    made: list[str] = []

    def said(language: str) -> bytes:
        made.append(language)
        return orjson.dumps({"summary": f"said in {language}"})

    async def scenario() -> None:
        async with hubs(postgres_url, 2) as (writer, reader):
            german = reader.subscribe("s-lang", 0, "de")
            english = reader.subscribe("s-lang", 0)
            data = orjson.dumps({"summary": "said in English"})
            writer.publish(events.SaidEvent("s-lang", 1, "round", data, said=said))
            [in_german] = await drain(german, 1)
            [in_english] = await drain(english, 1)
            assert in_german is in_english  # one event, shared by the process's streams
            assert in_german.data == data
            assert in_german.languages == {"de": orjson.dumps({"summary": "said in de"})}
            assert made == ["de"]
            kind = KINDS["arm-wrestles"]
            assert events._framed(kind, None, in_german, "de") == notify.sse_frame(
                "round", 1, b'{"summary":"said in de"}'
            )
            # A language nobody asked the writer for is shown as the event came: English.
            assert events._framed(kind, None, in_german, "fr") == in_german.frame
            german.close()
            english.close()

    run(scenario())


@pytest.mark.slow
@pytest.mark.postgres
def test_a_stream_on_one_server_reads_the_rounds_posted_to_another_in_its_language(
    two_servers: tuple[Server, Server],
) -> None:
    from tests.test_i18n import ARM_WRESTLE, ROUND_ONE, SESSION_AFTER_ROUND_ONE

    watched, written = two_servers
    client = httpx.Client(base_url=written.base_url)
    arm = Session(client, "arm-wrestles", ARM_WRESTLE)
    path = f"{ARM}/{arm.id}/events"
    with (
        stream(watched.base_url, path + "?lang=de", arm.gm) as german,
        stream(watched.base_url, path, arm.gm) as english,
    ):
        assert german.next_event()[:2] == (1, "session")
        assert english.next_event()[:2] == (1, "session")
        played = arm.play_round({"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}})
        version, name, data = german.next_event()
        assert (version, name) == (2, "round")
        assert data["summary"] == data["round"]["summary"] == ROUND_ONE["de"]
        assert data["session"]["summary"] == SESSION_AFTER_ROUND_ONE["de"]
        in_english = english.next_event()[2]
        assert in_english == played.json()
        unsaid = {"summary": None, "round": None, "session": None, "cards": None}
        assert {**data, **unsaid} == {**in_english, **unsaid}
        # The round's cards are worded in the stream's language too, as on a stream of the
        # process that made the change.
        assert {**data["round"], "summary": None, "cards": None} == {
            **in_english["round"],
            "summary": None,
            "cards": None,
        }
        assert data["round"]["cards"] != in_english["round"]["cards"]


def test_a_signal_after_the_loop_closed_still_reaches_the_handler_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The handler that ends the streams on SIGTERM and SIGINT may still be installed after
    its server's loop closed (a second signal during shutdown, before its lifespan's end
    takes it away): it then has nothing to end, and hands the signal on as always, without
    an error."""
    import signal

    heard: list[int] = []
    installed: dict[int, Any] = {}
    monkeypatch.setattr(signal, "getsignal", lambda _number: lambda got, _f: heard.append(got))
    monkeypatch.setattr(signal, "signal", lambda n, handler: installed.__setitem__(n, handler))

    async def install() -> None:
        events._end_streams_on_exit(Hub())

    asyncio.run(install())  # the loop is closed when this returns
    installed[signal.SIGTERM](signal.SIGTERM, None)
    installed[signal.SIGINT](signal.SIGINT, None)
    assert heard == [signal.SIGTERM, signal.SIGINT]
