"""Seats and rounds that wait for their dice, served by two server processes over one database,
on SQLite and PostgreSQL (docs/api.md#rounds-that-wait-for-the-players-dice).

A seated arm wrestle is played to its end by its two seat tokens and the GM, every call sent to
one process or the other: seats' dice, the GM rolling for a seat, a cancelled round, and rounds
whose deadline passes with no call at all (the processes' deadline sweepers play them). Each
seat streams its live events from one process while the other process changes the session:
on PostgreSQL every stream sees every change (LISTEN/NOTIFY), on SQLite a process's own; either
way no event shows a seat's dice before its round plays. Then overdue rounds nobody calls for,
both processes' sweepers looking for them every 50 ms: each plays once, and no process fails.

Deadlines here are real time (a server's clock is the system's): a round due in a second is
waited for through the live events that announce it, never by sleeping.
"""

from __future__ import annotations

import copy
import queue
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import orjson
import pytest

from tests.helpers import Session, assert_problem
from tests.store.servers import Server, running_servers

pytestmark = pytest.mark.slow

#: Longest any wait for an event may take (never reached when the code works).
WAIT_S = 30.0
#: A short arm wrestle nobody tires in: the first to a DS of 30 wins.
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Lydia", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Ogre", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 30,
    "max_rounds": 10_000,
    "seats": True,
}
LATER = {"collect": True, "deadline_seconds": 300}
SOON = {"collect": True, "deadline_seconds": 1}
#: Every event that tells of a round waiting for dice, or shows the session as it stands (a
#: stream resyncing after a change it could not see: on SQLite, another process's), and so
#: may show no die of a round not played yet.
WAITING = {"pending", "dice-in", "pending-cancelled", "session"}


@pytest.fixture(scope="module")
def servers(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Server]]:
    """Two server processes on the run's database (SQLite's file, or PostgreSQL's), each
    sweeping for overdue rounds every 50 ms."""
    logs = tmp_path_factory.mktemp("servers")
    with running_servers(
        database_url, 2, logs, {"ARBITER_DEADLINE_SWEEP_SECONDS": "0.05"}
    ) as started:
        first, second = started
        yield first, second
        for server in started:
            assert_quiet(server)


def assert_quiet(server: Server) -> None:
    """The server logged no warning, no error and no traceback."""
    text = server.log.read_text(errors="replace")
    for sign in ('"level":"warning"', '"level":"error"', "Traceback"):
        assert sign not in text, text


class Watched:
    """A live event stream read in a thread of its own, its events queued as they come."""

    def __init__(self, server: Server, path: str, token: str, into: queue.Queue[Any]) -> None:
        self.server = server
        self.events: list[tuple[int, str, Any, bytes]] = []
        self.ready = threading.Event()
        self.closed = False
        self._into = into
        self._client = httpx.Client(base_url=server.base_url, timeout=httpx.Timeout(WAIT_S))
        self._request = self._client.build_request(
            "GET", path, headers={"Authorization": f"Bearer {token}"}
        )
        self._response: httpx.Response | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            self._response = self._client.send(self._request, stream=True)
            fields: dict[str, str] = {}
            for line in self._response.iter_lines():
                if line.startswith(":"):
                    continue
                if line:
                    name, _, value = line.partition(": ")
                    fields[name] = value
                    continue
                if not fields:
                    continue
                event = (
                    int(fields["id"]),
                    fields["event"],
                    orjson.loads(fields["data"]),
                    fields["data"].encode(),
                )
                fields = {}
                if self.closed:
                    return
                if not self.ready.is_set():
                    assert event[1] == "session", event
                    self.ready.set()  # the stream is subscribed: changes from now reach it
                    continue
                self.events.append(event)
                self._into.put((self, event))
        except (httpx.HTTPError, ValueError):
            pass  # closed by the test

    def close(self) -> None:
        """Stop reading. The thread, blocked on the socket, is not waited for: it ends at the
        stream's next line, or when its server stops and ends its streams."""
        self.closed = True
        if self._response is not None:
            self._response.close()


@contextmanager
def watching(*streams: tuple[Server, str, str]) -> Iterator[tuple[list[Watched], Shown]]:
    """Streams of (server, path, token), each subscribed before the block runs; and what
    any of them has shown."""
    into: queue.Queue[Any] = queue.Queue()
    with ExitStack() as stack:
        watched = []
        for server, path, token in streams:
            one = Watched(server, path, token, into)
            stack.callback(one.close)
            watched.append(one)
        for one in watched:
            assert one.ready.wait(WAIT_S), f"no stream from {one.server.base_url}"
        yield watched, Shown(into)


class Shown:
    """What the streams have shown: each session's highest version, as their events come."""

    def __init__(self, into: queue.Queue[Any]) -> None:
        self.into = into
        self.versions: dict[str, int] = {}

    def until(self, session_id: str, version: int) -> None:
        """Until a stream shows `session_id` at `version` or later: its change's own event,
        or (a stream that could not see a change: on SQLite, another process's) the session
        as it stands, shown once the stream has waited for the change in vain."""
        while self.versions.get(session_id, 0) < version:
            _stream, (at, _name, data, _raw) = self.into.get(timeout=WAIT_S)
            shown = data["session"]["id"]
            self.versions[shown] = max(self.versions.get(shown, 0), at)


def assert_no_dice_before_the_round(watched: Watched) -> None:
    """Of a round waiting for dice, a stream shows who, what each owes and when, never a die;
    the round's own event then shows every die."""
    for _version, name, data, raw in watched.events:
        if name in WAITING:
            assert "round" not in data
            assert b'"strength":' not in raw, raw
            assert b'"rolls"' not in raw, raw
            if "pending" in data:
                assert set(data["pending"]) == {"number", "waiting_for", "deadline", "owes"}
        else:
            assert name == "round", name
            assert {roll["who"] for roll in data["round"]["rolls"]} == {"Lydia", "Ogre"}


def on(server: Server, made: Session) -> Session:
    """`made`, called through `server`."""
    moved = copy.copy(made)
    moved.client = httpx.Client(base_url=server.base_url)
    return moved


def test_a_seated_arm_wrestle_played_to_its_end_across_two_processes(
    servers: tuple[Server, Server], database_url: str
) -> None:
    first, second = servers
    made = Session(httpx.Client(base_url=first.base_url), "arm-wrestles", ARM_WRESTLE)
    a, b = on(first, made), on(second, made)
    seats = made.tokens["seats"]
    path = f"/v1/arm-wrestles/{made.id}/events"

    def dice(via: Session, name: str, value: int) -> httpx.Response:
        body = {"rolls": {name: {"strength": value}}}
        return via.post("rounds/pending/dice", body, token=seats[name])

    with watching((second, path, seats["Ogre"]), (first, path, seats["Lydia"])) as (
        (ogre, lydia),
        shown,
    ):
        # Round 1: both seats roll, each through another process than the GM's.
        assert a.post("rounds", LATER).status_code == 202
        assert dice(a, "Lydia", 17).status_code == 202
        played = dice(b, "Ogre", 5)
        assert played.status_code == 200, played.text
        assert played.json()["round"]["dice_from"] == {"Lydia": "seat", "Ogre": "seat"}
        assert played.json()["round"]["ds"] == {"Lydia": 12, "Ogre": 0}

        # Round 2: the Ogre rolls; the GM rolls for Lydia on the other process.
        assert b.post("rounds", LATER).status_code == 202
        assert dice(a, "Ogre", 3).status_code == 202
        assert_problem(b.post("rounds/pending/roll-for", {"names": ["Ogre"]}), 422)  # he rolled
        rolled = a.post("rounds/pending/roll-for", {"names": ["Lydia"]})
        assert rolled.status_code == 200, rolled.text
        assert rolled.json()["round"]["dice_from"] == {"Ogre": "seat", "Lydia": "gm"}

        # Round 3 is opened, given a die, and cancelled: the die dropped unseen.
        assert a.post("rounds", LATER).status_code == 202
        assert dice(b, "Lydia", 20).status_code == 202
        cancelled = a.client.delete(f"{a.url}/rounds/pending", headers=a.headers)
        assert cancelled.status_code == 200, cancelled.text
        assert_problem(dice(b, "Ogre", 9), 409)
        assert_problem(b.client.delete(f"{b.url}/rounds/pending", headers=b.headers), 409)

        # Round 3 again, due in a second: Lydia rolls, the Ogre does not, and nobody calls:
        # a process's sweeper plays it, the Ogre's die the server's.
        opened = b.post("rounds", SOON)
        assert opened.status_code == 202, opened.text
        assert dice(a, "Lydia", 2).status_code == 202
        shown.until(made.id, opened.json()["session"]["version"] + 2)
        swept = b.get("rounds?after=2", token=seats["Ogre"]).json()["rounds"][0]
        assert swept["number"] == 3
        assert swept["dice_from"] == {"Lydia": "seat", "Ogre": "deadline"}
        assert swept["checks"]["Lydia"]["roll"] == 2

        # To the end: Lydia 20 against the Ogre's 1 until she reaches 30.
        status = "active"
        while status == "active":
            assert a.post("rounds", LATER).status_code == 202
            assert dice(b, "Lydia", 20).status_code == 202
            answer = dice(a, "Ogre", 1)
            assert answer.status_code == 200, answer.text
            status = answer.json()["session"]["status"]
        final = b.session()
        last = final["version"]
        shown.until(made.id, last)
        if database_url.startswith("postgresql"):
            # Every change reached both streams, through whichever process made it.
            for stream in (ogre, lydia):
                while not stream.events or stream.events[-1][0] < last:
                    shown.into.get(timeout=WAIT_S)
                assert [event[0] for event in stream.events] == list(range(2, last + 1))
            assert [e[:3] for e in ogre.events] == [e[:3] for e in lydia.events]
    assert final["result"]["winner"] == "Lydia"
    rounds = a.rounds()
    assert [record["number"] for record in rounds] == list(range(1, final["round"] + 1))
    assert [record["dice_from"] for record in rounds[:3]] == [
        {"Lydia": "seat", "Ogre": "seat"},
        {"Ogre": "seat", "Lydia": "gm"},
        {"Lydia": "seat", "Ogre": "deadline"},
    ]
    for stream in (ogre, lydia):
        assert_no_dice_before_the_round(stream)
        names = [event[1] for event in stream.events]
        if database_url.startswith("postgresql"):
            assert names[:4] == ["pending", "dice-in", "round", "pending"]
            assert names[6:9] == ["pending", "dice-in", "pending-cancelled"]


def test_two_sweepers_play_each_overdue_round_once(servers: tuple[Server, Server]) -> None:
    """Rounds due in a second, no dice given and nobody calling: both processes' sweepers
    look for them every 50 ms; each round plays once, its dice the server's, and neither
    process logs a failure (checked as the servers stop)."""
    first, second = servers
    made = [
        Session(httpx.Client(base_url=first.base_url), "arm-wrestles", ARM_WRESTLE)
        for _ in range(4)
    ]
    streams = [
        (server, f"/v1/arm-wrestles/{session.id}/events", session.gm)
        for session in made
        for server in (first, second)
    ]
    with watching(*streams) as (_watched, shown):
        for session in made:
            assert on(second, session).post("rounds", SOON).status_code == 202
        for session in made:
            shown.until(session.id, 3)
    for session in made:
        state = on(first, session).session()
        assert (state["version"], state["round"]) == (3, 1)
        rounds = on(second, session).rounds()
        assert len(rounds) == 1
        assert rounds[0]["dice_from"] == {"Lydia": "deadline", "Ogre": "deadline"}
