"""Deadlines that fire by themselves, on SQLite and PostgreSQL (app/api/sessions/deadlines.py,
docs/api.md#rounds-that-wait-for-the-players-dice).

`sessions.pending_deadline` follows the round waiting for dice (written when it opens, cleared
when it plays or is cancelled); one sweep plays every round past its deadline, the longest
overdue first, at most a batch of them, each as the next call would have (the missing dice
the server's, recorded as rolled at the deadline, with its live event), and nothing else;
two sweepers that both found the same overdue round play it once between them; and the
lifespan's loop runs the sweep by itself. The clock is the app's (`app.state.clock`), moved
by the test: nothing here waits for time to pass.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select
from sqlalchemy.dialects import sqlite

from app.api.kinds.registry import KINDS
from app.api.sessions import deadlines
from app.api.sessions.events import hub_of
from app.main import create_app
from app.settings import Settings
from app.store import repository
from app.store.database import Store, null_pool_engine, upgrade_to_head
from app.store.repository import past_deadline, sessions
from tests.conformance import Conforming
from tests.helpers import Session
from tests.store.test_seats import COLLECT, SEATED, SHORT_ARM_WRESTLE, START, Clock, dice_of

#: Longest the test waits for the lifespan's sweeper (never reached when it works).
WAIT_S = 30.0


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    direct = null_pool_engine(database_url)
    yield direct
    direct.dispose()


#: Each test sweeping by hand has an era of its own, before any other test's (whose sessions
#: share the database) and leaves no round waiting in it.
ERAS = {name: START.replace(year=1990 + index) for index, name in enumerate("abcdef")}


#: The retention of the apps here, in days: a round played at its deadline is stamped with the
#: era's time, decades ago, and an app's purge (at its start, batch after batch while the test
#: plays) would delete such a session as long abandoned under the real clock.
ERA_RETENTION_DAYS = 100 * 365
ERA_SETTINGS: dict[str, Any] = {
    "retention_finished_days": ERA_RETENTION_DAYS,
    "retention_abandoned_days": ERA_RETENTION_DAYS,
}


class EraClock(Clock):
    """The app's clock, from the start of an era of the test's own."""

    def __init__(self, era: str) -> None:
        self.start = ERAS[era]
        super().__init__(self.start)


@pytest.fixture
def clock(request: pytest.FixtureRequest) -> EraClock:
    era: str = getattr(request, "param", "a")
    return EraClock(era)


@pytest.fixture
def quiet(database_url: str, clock: EraClock) -> Iterator[TestClient]:
    """A client of an app on the app's clock, whose own sweeper looks once at start (before
    the test moves the clock) and then not for an hour: the test sweeps by hand."""
    app = create_app(
        Settings(database_url=database_url, deadline_sweep_seconds=3600, **ERA_SETTINGS)
    )
    app.state.clock = clock
    with TestClient(Conforming(app)) as client:
        yield client


def fastapi_app(client: TestClient) -> FastAPI:
    served: Any = client.app
    app: FastAPI = served.app if isinstance(served, Conforming) else served
    return app


def column(engine: Engine, session_id: str) -> tuple[datetime | None, int]:
    """The session's `pending_deadline` and `rounds_played`, read from the table itself."""
    with engine.connect() as connection:
        row = connection.execute(
            select(sessions.c.pending_deadline, sessions.c.rounds_played).where(
                sessions.c.id == session_id
            )
        ).one()
    deadline: datetime | None = row[0]
    if deadline is not None and deadline.tzinfo is None:  # SQLite's text, in UTC
        deadline = deadline.replace(tzinfo=START.tzinfo)
    return deadline, row[1]


def sweep(client: TestClient, batch: int = 100) -> list[str]:
    """One sweep of the client's app, on its own event loop."""
    portal: Any = client.portal
    settled: list[str] = portal.call(
        partial(deadlines.sweep_once, fastapi_app(client), KINDS, batch=batch)
    )
    return settled


def test_the_column_follows_the_round_waiting_for_dice(
    quiet: TestClient, engine: Engine, clock: EraClock
) -> None:
    made = Session(quiet, "arm-wrestles", SHORT_ARM_WRESTLE)
    assert column(engine, made.id) == (None, 0)
    deadline = clock.start + timedelta(seconds=60)
    assert made.post("rounds", COLLECT).status_code == 202
    assert column(engine, made.id) == (deadline, 0)
    assert dice_of(made, "Lydia", 10).status_code == 202
    assert column(engine, made.id) == (deadline, 0)
    assert dice_of(made, "Ogre", 10).status_code == 200
    assert column(engine, made.id) == (None, 1)
    # Cancelled, it is cleared too; a round played by the GM never writes it.
    clock.moment = clock.start + timedelta(minutes=5)
    assert made.post("rounds", COLLECT).status_code == 202
    assert column(engine, made.id) == (clock.start + timedelta(minutes=6), 1)
    cancelled = made.client.delete(f"{made.url}/rounds/pending", headers=made.headers)
    assert cancelled.status_code == 200
    assert column(engine, made.id) == (None, 1)
    assert made.post("rounds", {}).status_code == 200
    assert column(engine, made.id) == (None, 2)


@pytest.mark.parametrize("clock", ["b"], indirect=True)
def test_one_sweep_plays_the_rounds_past_their_deadline_and_nothing_else(
    quiet: TestClient, engine: Engine, clock: EraClock
) -> None:
    overdue = Session(quiet, "arm-wrestles", SHORT_ARM_WRESTLE)
    assert overdue.post("rounds", COLLECT).status_code == 202
    assert dice_of(overdue, "Lydia", 14).status_code == 202
    later = Session(quiet, "arm-wrestles", SHORT_ARM_WRESTLE)
    clock.moment = clock.start + timedelta(seconds=30)
    assert later.post("rounds", COLLECT).status_code == 202  # due at 90 s
    idle = Session(quiet, "arm-wrestles", SHORT_ARM_WRESTLE)
    assert sweep(quiet) == []  # nothing is due yet

    clock.moment = clock.start + timedelta(seconds=60)
    hub = hub_of(fastapi_app(quiet))
    assert hub is not None
    assert sweep(quiet) == [overdue.id]
    assert column(engine, overdue.id) == (None, 1)
    assert column(engine, later.id) == (clock.start + timedelta(seconds=90), 0)
    assert column(engine, idle.id) == (None, 0)
    # Played as the next call would have: the missing die the server's, at the deadline.
    shown = overdue.get(token=overdue.tokens["seats"]["Ogre"]).json()
    assert "pending" not in shown
    assert (shown["round"], shown["version"]) == (1, 4)
    assert shown["updated_at"] == (clock.start + timedelta(seconds=60)).isoformat()
    record = overdue.rounds()[0]
    assert record["dice_from"] == {"Lydia": "seat", "Ogre": "deadline"}
    assert record["checks"]["Lydia"]["roll"] == 14
    # Its live event, as for any change: the round.
    [event] = hub.recent(overdue.id, 3)
    assert (event.version, event.name) == (4, "round")
    assert orjson.loads(event.data)["round"] == record
    assert sweep(quiet) == []  # played once
    assert later.session()["pending"]["waiting_for"] == ["Lydia", "Ogre"]
    clock.moment = clock.start + timedelta(seconds=90)
    assert sweep(quiet) == [later.id]
    assert [record["dice_from"] for record in later.rounds()] == [
        {"Lydia": "deadline", "Ogre": "deadline"}
    ]


@pytest.mark.parametrize("clock", ["c"], indirect=True)
def test_a_sweep_plays_a_batch_at_most_the_longest_overdue_first(
    quiet: TestClient, engine: Engine, clock: EraClock
) -> None:
    made = []
    for offset in (20, 0, 10):  # opened in this order, due at 60 s + offset
        clock.moment = clock.start + timedelta(seconds=offset)
        session = Session(quiet, "arm-wrestles", SHORT_ARM_WRESTLE)
        assert session.post("rounds", COLLECT).status_code == 202
        made.append(session)
    third, first, second = (session.id for session in made)
    clock.moment = clock.start + timedelta(minutes=5)
    assert sweep(quiet, batch=2) == [first, second]
    assert column(engine, third) == (clock.start + timedelta(seconds=80), 0)
    assert sweep(quiet, batch=2) == [third]
    assert sweep(quiet, batch=2) == []
    assert [column(engine, session.id) for session in made] == [(None, 1)] * 3


@pytest.mark.parametrize("clock", ["d"], indirect=True)
def test_two_sweepers_that_found_the_same_round_play_it_once(
    quiet: TestClient,
    engine: Engine,
    clock: EraClock,
    database_url: str,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two processes' sweepers (two apps, each its own store) both find the overdue round
    before either settles it: exactly one plays it, the other does nothing, neither fails."""
    made = Session(quiet, "arm-wrestles", SHORT_ARM_WRESTLE)
    assert made.post("rounds", COLLECT).status_code == 202
    clock.moment = clock.start + timedelta(seconds=61)

    async def race() -> list[list[str]]:
        both_found = asyncio.Barrier(2)

        async def find_then_wait(*args: Any, **options: Any) -> list[tuple[str, str]]:
            rows = await past_deadline(*args, **options)
            await both_found.wait()
            return rows

        apps = [create_app(Settings(database_url=database_url)) for _ in range(2)]
        for app in apps:
            app.state.store = Store(database_url)
            await app.state.store.open()
            app.state.clock = clock
        monkeypatch.setattr(deadlines, "past_deadline", find_then_wait)
        try:
            return list(
                await asyncio.gather(*(deadlines.sweep_once(app, KINDS, batch=5) for app in apps))
            )
        finally:
            for app in apps:
                await app.state.store.close()

    with caplog.at_level(logging.WARNING, logger="arbiter"):
        settled = asyncio.run(race())
    assert [record.getMessage() for record in caplog.records] == []
    assert sorted(settled, key=len) == [[], [made.id]]
    assert column(engine, made.id) == (None, 1)
    assert made.session()["version"] == 3
    assert [record["number"] for record in made.rounds()] == [1]
    assert made.rounds()[0]["dice_from"] == {"Lydia": "deadline", "Ogre": "deadline"}


def test_the_lifespans_sweeper_plays_a_round_by_itself(database_url: str, engine: Engine) -> None:
    """No call touches the session: the round past its deadline plays all the same."""
    clock = EraClock("e")
    swept: list[list[str]] = []
    played = threading.Event()
    watched: list[str] = []

    def on_swept(settled: list[str]) -> None:
        swept.append(settled)
        if watched and watched[0] in settled:
            played.set()

    settings = Settings(database_url=database_url, deadline_sweep_seconds=0.01, **ERA_SETTINGS)
    app = create_app(settings)
    app.state.clock = clock
    app.state.deadline_swept = on_swept
    with TestClient(Conforming(app)) as client:
        made = Session(client, "arm-wrestles", SHORT_ARM_WRESTLE)
        assert made.post("rounds", COLLECT).status_code == 202
        assert dice_of(made, "Ogre", 3).status_code == 202
        watched.append(made.id)
        assert column(engine, made.id) == (clock.start + timedelta(seconds=60), 0)
        clock.moment = clock.start + timedelta(seconds=60)
        assert played.wait(WAIT_S), f"the sweeper never played it: {swept[-5:]}"
        assert column(engine, made.id) == (None, 1)
        record = made.rounds()[0]
        assert record["dice_from"] == {"Lydia": "deadline", "Ogre": "seat"}
    assert sum(settled.count(made.id) for settled in swept) == 1


def test_a_sweep_that_keeps_failing_is_logged_once(
    tmp_path: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A database not migrated yet fails every sweep: one warning, not one a sweep."""
    sweeps: list[list[str]] = []
    swept_thrice = threading.Event()

    def on_swept(settled: list[str]) -> None:
        sweeps.append(settled)
        if len(sweeps) >= 3:
            swept_thrice.set()

    url = f"sqlite:///{tmp_path / 'unmigrated.db'}"
    app = create_app(Settings(database_url=url, deadline_sweep_seconds=0.01))
    app.state.deadline_swept = on_swept
    with caplog.at_level(logging.WARNING, logger="arbiter"), TestClient(app):
        assert swept_thrice.wait(WAIT_S)
    failed = [r for r in caplog.records if "sweeping rounds past their deadline" in r.message]
    assert len(failed) == 1, [r.message for r in failed]
    assert "no such table: sessions" in failed[0].message


@pytest.mark.parametrize("clock", ["f"], indirect=True)
def test_one_sweep_plays_an_overdue_round_of_every_kind_with_seats(
    quiet: TestClient, engine: Engine, clock: EraClock
) -> None:
    """Contests, races and chases too: each round past its deadline plays in the one sweep,
    every seat's dice the server's, a chase's with the terrain its GM opened it with."""
    opening = {
        "regular-contests": COLLECT,
        "races": COLLECT,
        "chases": {**COLLECT, "terrain": {"check": "strength"}},
    }
    made = {}
    for kind, body in opening.items():
        created, names = SEATED[kind]
        session = Session(quiet, kind, {**created, "seats": True})
        opened = session.post("rounds", body)
        assert opened.status_code == 202, opened.text
        assert set(opened.json()["pending"]["waiting_for"]) == names
        made[kind] = (session, names)
    clock.moment = clock.start + timedelta(seconds=60)
    assert sorted(sweep(quiet)) == sorted(session.id for session, _ in made.values())
    for kind, (session, names) in made.items():
        assert column(engine, session.id) == (None, 1), kind
        [record] = session.rounds()
        assert record["dice_from"] == dict.fromkeys(names, "deadline"), kind
        assert {roll["source"] for roll in record["rolls"]} == {"rolled"}, kind
    assert made["chases"][0].rounds()[0]["terrain"]["check"] == "strength"


def test_the_sweep_reads_the_partial_index_alone(tmp_path: Any) -> None:
    """SQLite's plan for the sweep's query searches the partial index on `pending_deadline`
    (which holds only the sessions with a round waiting): no scan of the sessions."""
    path = tmp_path / "plan.db"
    upgrade_to_head(f"sqlite:///{path}")
    query = repository.past_deadline_query().compile(dialect=sqlite.dialect())
    with closing(sqlite3.connect(path)) as connection:
        plan = connection.execute(
            f"EXPLAIN QUERY PLAN {query}", ("2026-12-01 20:00:00.000000", 10)
        ).fetchall()
    assert [row[3] for row in plan] == [
        "SEARCH sessions USING INDEX ix_sessions_pending_deadline (pending_deadline<?)"
    ]
