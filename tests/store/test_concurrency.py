"""Concurrent writers to one session, on SQLite and PostgreSQL (docs/api.md#versions-and-if-match).

`If-Match` with a stale version is a 412 that changes nothing. Without it, concurrent calls
are serialised: none is lost, none is applied twice, round numbers stay contiguous, and the
version is 1 + the number of changes — with one server process or many. Identical requests
under one `Idempotency-Key` fired at once apply exactly once. The multi-process proofs start
real uvicorn processes on one database (see tests/store/servers.py).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.store.database import null_pool_engine
from app.store.repository import rounds, sessions
from tests.helpers import Session, assert_problem, bearer
from tests.store.servers import Server, running_servers

REPLAYED = "idempotent-replayed"
#: Server dice, unseeded: a request played twice would almost surely answer differently.
SERVER_DICE: dict[str, Any] = {}
#: A long arm wrestle: nobody tires before round 200, and tied rounds never move a DS.
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
#: Both roll 10: a tie, so however many writers post, the match never finishes.
TIE = {"rolls": {"Ann": {"strength": 10}, "Bob": {"strength": 10}}}
WRITERS = 16
ROUNDS_PER_WRITER = 5


def count(database_url: str, table: Any, *where: Any) -> int:
    """Rows of `table` in the test database, read directly."""
    engine = null_pool_engine(database_url)
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(
                    select(func.count()).select_from(table).where(*where)
                ).scalar_one()
            )
    finally:
        engine.dispose()


def stored_round_count(database_url: str, session_id: str) -> int:
    return count(database_url, rounds, rounds.c.session_id == session_id)


# --- If-Match (one process) ---------------------------------------------------------------


def test_a_stale_if_match_is_412_and_changes_nothing(
    store_client: TestClient, database_url: str
) -> None:
    created = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE)
    path, token = created.headers["location"], created.json()["tokens"]["gm"]
    session_id = created.json()["id"]

    current = store_client.post(
        path + "/rounds", json=TIE, headers={**bearer(token), "If-Match": '"1"'}
    )
    assert current.status_code == 200, current.text
    assert current.headers["etag"] == '"2"'

    stale = {**bearer(token), "If-Match": '"1"'}
    assert_problem(store_client.post(path + "/rounds", json=TIE, headers=stale), 412)
    assert_problem(store_client.post(path + "/rounds", json={}, headers=stale), 412)
    assert_problem(store_client.post(path + "/resolve", headers=stale), 412)
    assert_problem(store_client.delete(path, headers=stale), 412)
    ahead = {**bearer(token), "If-Match": '"3"'}
    assert_problem(store_client.post(path + "/rounds", json=TIE, headers=ahead), 412)

    session = store_client.get(path, headers=bearer(token))
    assert (session.json()["version"], session.json()["round"], session.headers["etag"]) == (
        2,
        1,
        '"2"',
    )
    assert len(store_client.get(path + "/rounds", headers=bearer(token)).json()["rounds"]) == 1
    assert stored_round_count(database_url, session_id) == 1

    # The current version goes through, for a round and for a delete alike.
    fresh = {**bearer(token), "If-Match": '"2"'}
    assert store_client.post(path + "/rounds", json=TIE, headers=fresh).status_code == 200
    assert (
        store_client.delete(path, headers={**bearer(token), "If-Match": '"3"'}).status_code == 204
    )


# --- many processes, one database ----------------------------------------------------------


@pytest.fixture(scope="module")
def servers(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Server]]:
    """Two uvicorn processes on the (migrated) test database."""
    with running_servers(database_url, 2, tmp_path_factory.mktemp("servers")) as started:
        yield started


@pytest.mark.slow
def test_concurrent_writers_on_many_processes_lose_and_repeat_nothing(
    servers: list[Server], database_url: str
) -> None:
    with httpx.Client(base_url=servers[0].base_url, timeout=30) as client:
        made = Session(client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    start = Barrier(WRITERS)

    def writer(index: int) -> list[tuple[int, dict[str, Any]]]:
        answers = []
        with httpx.Client(base_url=servers[index % len(servers)].base_url, timeout=60) as client:
            start.wait()
            for _ in range(ROUNDS_PER_WRITER):
                response = client.post(path + "/rounds", json=TIE, headers=auth)
                answers.append((response.status_code, response.json()))
        return answers

    with ThreadPoolExecutor(WRITERS) as pool:
        answers = [answer for batch in pool.map(writer, range(WRITERS)) for answer in batch]

    statuses = [status for status, _ in answers]
    assert statuses == [200] * WRITERS * ROUNDS_PER_WRITER, statuses
    played = len(answers)
    numbers = sorted(body["round"]["number"] for _, body in answers)
    assert numbers == list(range(1, played + 1))  # each answer a round of its own
    for _, body in answers:
        assert body["session"]["version"] == body["round"]["number"] + 1
        assert body["session"]["round"] == body["round"]["number"]

    with httpx.Client(base_url=servers[1].base_url, timeout=30) as client:
        listed = client.get(path + "/rounds", headers=auth).json()["rounds"]
        session = client.get(path, headers=auth).json()
    assert [record["number"] for record in listed] == list(range(1, played + 1))
    by_number = {body["round"]["number"]: body["round"] for _, body in answers}
    assert listed == [by_number[number] for number in range(1, played + 1)]
    assert (session["version"], session["round"]) == (played + 1, played)
    assert stored_round_count(database_url, session["id"]) == played


@pytest.mark.slow
def test_concurrent_writers_with_the_same_if_match_apply_exactly_one(
    servers: list[Server], database_url: str
) -> None:
    with httpx.Client(base_url=servers[0].base_url, timeout=30) as client:
        made = Session(client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    start = Barrier(WRITERS)

    def writer(index: int) -> int:
        with httpx.Client(base_url=servers[index % len(servers)].base_url, timeout=60) as client:
            start.wait()
            response = client.post(path + "/rounds", json=TIE, headers={**auth, "If-Match": '"1"'})
            return response.status_code

    with ThreadPoolExecutor(WRITERS) as pool:
        statuses = sorted(pool.map(writer, range(WRITERS)))

    assert statuses == [200] + [412] * (WRITERS - 1)
    session = httpx.get(servers[1].base_url + path, headers=auth, timeout=30).json()
    assert (session["version"], session["round"]) == (2, 1)
    assert stored_round_count(database_url, session["id"]) == 1


@pytest.mark.slow
def test_a_delete_among_concurrent_writers_leaves_no_orphan_rounds(
    servers: list[Server], database_url: str
) -> None:
    with httpx.Client(base_url=servers[0].base_url, timeout=30) as client:
        made = Session(client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    session_id = path.rsplit("/", 1)[1]
    start = Barrier(WRITERS)

    def writer(index: int) -> list[tuple[int, Any]]:
        answers: list[tuple[int, Any]] = []
        with httpx.Client(base_url=servers[index % len(servers)].base_url, timeout=60) as client:
            start.wait()
            if index == WRITERS // 2:
                response = client.delete(path, headers=auth)
                return [(response.status_code, None)]
            for _ in range(ROUNDS_PER_WRITER):
                response = client.post(path + "/rounds", json=TIE, headers=auth)
                answers.append((response.status_code, response.json()))
        return answers

    with ThreadPoolExecutor(WRITERS) as pool:
        answers = [answer for batch in pool.map(writer, range(WRITERS)) for answer in batch]

    assert answers.count((204, None)) == 1
    rounds_answers = [(status, body) for status, body in answers if body is not None]
    assert {status for status, _ in rounds_answers} <= {200, 404}
    numbers = sorted(body["round"]["number"] for status, body in rounds_answers if status == 200)
    assert numbers == list(range(1, len(numbers) + 1))
    for status, body in rounds_answers:
        if status == 404:
            assert body["status"] == 404
    assert httpx.get(servers[1].base_url + path, headers=auth, timeout=30).status_code == 404
    assert stored_round_count(database_url, session_id) == 0


# --- identical requests under one Idempotency-Key at once, on two server processes ----------


CONCURRENT = 12


def fire_together(
    servers: list[Server], method: str, path: str, body: Any, headers: dict[str, str]
) -> list[tuple[int, bytes, str | None]]:
    """The same request from CONCURRENT threads at once, alternating between the servers."""
    start = Barrier(CONCURRENT)

    def send(index: int) -> tuple[int, bytes, str | None]:
        with httpx.Client(base_url=servers[index % len(servers)].base_url, timeout=60) as client:
            start.wait()
            response = client.request(method, path, json=body, headers=headers)
            return response.status_code, response.content, response.headers.get(REPLAYED)

    with ThreadPoolExecutor(CONCURRENT) as pool:
        return list(pool.map(send, range(CONCURRENT)))


def assert_one_answer_or_in_flight(
    answers: list[tuple[int, bytes, str | None]], status: int
) -> bytes:
    """Every answer is the one stored answer (original or replay) or a 409; returns it."""
    applied = [content for code, content, replayed in answers if code == status and not replayed]
    assert len(applied) == 1, answers
    for code, content, _ in answers:
        if code == 409:
            assert b"still being processed" in content
        else:
            assert code == status, (code, content)
            assert content == applied[0]
    return applied[0]


@pytest.mark.slow
def test_identical_keyed_rounds_at_once_apply_exactly_one(
    servers: list[Server], database_url: str
) -> None:
    created = httpx.post(servers[0].base_url + "/v1/arm-wrestles", json=ARM_WRESTLE, timeout=30)
    path, auth = created.headers["location"], bearer(created.json()["tokens"]["gm"])

    answers = fire_together(
        servers, "POST", path + "/rounds", SERVER_DICE, {**auth, "Idempotency-Key": "at-once"}
    )
    body = assert_one_answer_or_in_flight(answers, 200)
    for server in servers:  # afterwards, every process replays the stored answer
        again = httpx.post(
            server.base_url + path + "/rounds",
            json=SERVER_DICE,
            headers={**auth, "Idempotency-Key": "at-once"},
            timeout=30,
        )
        assert (again.status_code, again.headers.get(REPLAYED)) == (200, "true")
        assert again.content == body
    with httpx.Client(base_url=servers[1].base_url, timeout=30) as client:
        session = client.get(path, headers=auth).json()
        listed = client.get(path + "/rounds", headers=auth).json()["rounds"]
    assert (session["version"], session["round"]) == (2, 1)
    assert len(listed) == 1
    assert json.loads(body)["round"] == listed[0]

    assert stored_round_count(database_url, session["id"]) == 1


@pytest.mark.slow
def test_identical_keyed_creates_at_once_create_exactly_one(
    servers: list[Server], database_url: str
) -> None:
    before = count(database_url, sessions)
    # Scoped by the caller's own secret, so a replay is the whole answer, tokens included.
    keyed = {
        **bearer(f"caller-{uuid.uuid4().hex}"),
        "Idempotency-Key": f"create-at-once-{uuid.uuid4().hex}",
    }
    answers = fire_together(servers, "POST", "/v1/arm-wrestles", ARM_WRESTLE, keyed)
    assert_one_answer_or_in_flight(answers, 201)
    assert count(database_url, sessions) == before + 1
