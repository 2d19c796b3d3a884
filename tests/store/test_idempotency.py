"""`Idempotency-Key` on every mutating call, on SQLite and PostgreSQL (docs/api.md#idempotency-key).

The same key with the same request within 24 h answers the stored status and body again with
`Idempotent-Replayed: true` and changes nothing; another request under the key is a 422; a
key still in flight is a 409. The stored answer is written in the same transaction as the
change, so a request that fails leaves no key behind. Identical keyed requests fired at once
at several server processes are in tests/store/test_concurrency.py.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select, update

from app.api.sessions.idempotency import session_scope
from app.api.sessions.security import key_digest
from app.store import repository
from app.store.database import Transaction, null_pool_engine
from app.store.models import IdempotencyRecord
from app.store.repository import idempotency, rounds, sessions
from tests.helpers import Session, assert_problem, bearer

REPLAYED = "idempotent-replayed"
#: A long arm wrestle: nobody tires before round 200, nor reaches DS 100 in the few rounds here.
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
TIE = {"rolls": {"Ann": {"strength": 10}, "Bob": {"strength": 10}}}
#: Server dice, unseeded: a request played twice would almost surely answer differently.
SERVER_DICE: dict[str, Any] = {}


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    direct = null_pool_engine(database_url)
    yield direct
    direct.dispose()


def standing(client: TestClient, path: str, auth: dict[str, str]) -> tuple[int, int, int]:
    """(version, rounds played, round records listed) of a session."""
    session = client.get(path, headers=auth).json()
    listed = client.get(path + "/rounds", headers=auth).json()["rounds"]
    return session["version"], session["round"], len(listed)


def scope_of(path: str, auth: dict[str, str]) -> str:
    """Where the keys of the token of `auth` live in the session at `path`."""
    token = auth["Authorization"].removeprefix("Bearer ")
    return session_scope("arm-wrestles", path.rsplit("/", 1)[1], token)


def count(engine: Engine, table: Any, *where: Any) -> int:
    with engine.connect() as connection:
        return int(
            connection.execute(select(func.count()).select_from(table).where(*where)).scalar_one()
        )


# --- replays --------------------------------------------------------------------------------


def test_a_replayed_round_answers_the_same_and_changes_nothing(
    store_client: TestClient, engine: Engine
) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    keyed = {**auth, "Idempotency-Key": "round-1"}
    first = store_client.post(path + "/rounds", json=SERVER_DICE, headers=keyed)
    assert first.status_code == 200, first.text
    assert REPLAYED not in first.headers
    assert first.headers["etag"] == '"2"'

    for _ in range(2):
        again = store_client.post(path + "/rounds", json=SERVER_DICE, headers=keyed)
        assert again.status_code == 200
        assert again.headers[REPLAYED] == "true"
        assert again.content == first.content  # the same dice, not a second roll
        assert again.headers["etag"] == '"2"'
    assert standing(store_client, path, auth) == (2, 1, 1)
    assert count(engine, rounds, rounds.c.session_id == path.rsplit("/", 1)[1]) == 1

    # Another key is another request: it plays round 2.
    other = store_client.post(
        path + "/rounds", json=SERVER_DICE, headers={**auth, "Idempotency-Key": "round-2"}
    )
    assert (other.status_code, other.json()["round"]["number"]) == (200, 2)
    assert REPLAYED not in other.headers


def test_the_same_key_with_another_request_is_422(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    keyed = {**auth, "Idempotency-Key": "reused"}
    assert store_client.post(path + "/rounds", json=TIE, headers=keyed).status_code == 200

    other_dice = {"rolls": {"Ann": {"strength": 11}, "Bob": {"strength": 11}}}
    problem = assert_problem(
        store_client.post(path + "/rounds", json=other_dice, headers=keyed), 422
    )
    assert problem["errors"][0]["loc"] == ["header", "Idempotency-Key"]
    assert_problem(store_client.post(path + "/resolve", headers=keyed), 422)  # another path
    assert_problem(store_client.delete(path, headers=keyed), 422)  # another method
    assert standing(store_client, path, auth) == (2, 1, 1)


def test_keys_of_256_characters_are_422_and_255_are_fine(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    too_long = {**auth, "Idempotency-Key": "k" * 256}
    problem = assert_problem(store_client.post(path + "/rounds", json=TIE, headers=too_long), 422)
    assert problem["errors"][0]["loc"] == ["header", "Idempotency-Key"]
    assert_problem(store_client.delete(path, headers=too_long), 422)
    assert_problem(
        store_client.post(
            "/v1/arm-wrestles", json=ARM_WRESTLE, headers={"Idempotency-Key": "k" * 256}
        ),
        422,
    )
    assert standing(store_client, path, auth) == (1, 0, 0)

    longest = {**auth, "Idempotency-Key": "k" * 255}
    assert store_client.post(path + "/rounds", json=TIE, headers=longest).status_code == 200
    replay = store_client.post(path + "/rounds", json=TIE, headers=longest)
    assert (replay.status_code, replay.headers[REPLAYED]) == (200, "true")
    assert standing(store_client, path, auth) == (2, 1, 1)


def test_keys_belong_to_one_session(store_client: TestClient) -> None:
    a, b = (Session(store_client, "arm-wrestles", ARM_WRESTLE) for _ in range(2))
    path_a, auth_a = a.url, a.headers
    path_b, auth_b = b.url, b.headers
    for path, auth in ((path_a, auth_a), (path_b, auth_b)):
        response = store_client.post(
            path + "/rounds", json=TIE, headers={**auth, "Idempotency-Key": "shared-key"}
        )
        assert response.status_code == 200, response.text
        assert REPLAYED not in response.headers
        assert response.json()["session"]["id"] == path.rsplit("/", 1)[1]
    assert standing(store_client, path_a, auth_a) == (2, 1, 1)
    assert standing(store_client, path_b, auth_b) == (2, 1, 1)


def test_a_replayed_create_returns_the_same_session_and_tokens_to_its_caller(
    store_client: TestClient, engine: Engine
) -> None:
    before = count(engine, sessions)
    # The caller scopes its creation keys with a secret of its own (a bearer token it makes).
    caller = bearer(f"caller-secret-{uuid.uuid4().hex}")
    keyed = {**caller, "Idempotency-Key": "create-once"}
    first = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE, headers=keyed)
    assert first.status_code == 201, first.text
    assert REPLAYED not in first.headers
    again = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE, headers=keyed)
    assert again.status_code == 201
    assert again.headers[REPLAYED] == "true"
    assert again.content == first.content
    assert again.json()["tokens"] == first.json()["tokens"]
    assert (again.headers["location"], again.headers["etag"]) == (
        first.headers["location"],
        '"1"',
    )
    assert count(engine, sessions) == before + 1
    # The replayed token is the real one.
    token = again.json()["tokens"]["gm"]
    assert store_client.get(again.headers["location"], headers=bearer(token)).status_code == 200

    other = {**ARM_WRESTLE, "target": 50}
    assert_problem(store_client.post("/v1/arm-wrestles", json=other, headers=keyed), 422)
    assert count(engine, sessions) == before + 1


def test_a_replayed_create_never_hands_the_tokens_to_another_client(
    store_client: TestClient, engine: Engine
) -> None:
    """A bot using a public value (a chat message id) as its key, with a public body."""
    before = count(engine, sessions)
    keyed = {"Idempotency-Key": f"discord-message-{uuid.uuid4().hex[:8]}"}
    first = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE, headers=keyed)
    assert first.status_code == 201, first.text
    gm_token = first.json()["tokens"]["gm"]
    # A second client repeating the key and the body: the same session, and no token.
    again = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE, headers=keyed)
    assert (again.status_code, again.headers[REPLAYED]) == (201, "true")
    assert again.headers["location"] == first.headers["location"]
    assert again.json()["id"] == first.json()["id"]
    assert "tokens" not in again.json()
    assert gm_token not in again.text
    assert count(engine, sessions) == before + 1
    # Nor does another caller's secret reach the unscoped answer: it is a creation of its own.
    stranger = {**keyed, **bearer("someone-else")}
    own = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE, headers=stranger)
    assert own.status_code == 201
    assert REPLAYED not in own.headers
    assert own.json()["id"] != first.json()["id"]
    assert count(engine, sessions) == before + 2
    # The stored answers hold no token in the clear, nor the unscoped one at all.
    with engine.connect() as connection:
        stored = connection.execute(select(idempotency.c.body)).scalars().all()
    assert all(gm_token.encode() not in bytes(body) for body in stored)


def test_a_tampered_stored_answer_is_refused_not_replayed(
    store_client: TestClient, engine: Engine
) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    scope = scope_of(path, auth)
    keyed = {**auth, "Idempotency-Key": "tamper-with-me"}
    first = store_client.post(path + "/rounds", json=TIE, headers=keyed)
    assert first.status_code == 200
    with engine.begin() as connection:
        body = bytes(
            connection.execute(
                select(idempotency.c.body).where(idempotency.c.scope == scope)
            ).scalar_one()
        )
        flipped = body[:-1] + bytes([body[-1] ^ 1])
        connection.execute(
            update(IdempotencyRecord).where(IdempotencyRecord.scope == scope).values(body=flipped)
        )
    problem = assert_problem(store_client.post(path + "/rounds", json=TIE, headers=keyed), 409)
    assert "integrity" in problem["detail"]
    assert standing(store_client, path, auth) == (2, 1, 1)


def test_a_replayed_delete_answers_204_again(store_client: TestClient, engine: Engine) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    keyed = {**auth, "Idempotency-Key": "delete-once"}
    first = store_client.delete(path, headers=keyed)
    assert (first.status_code, first.content) == (204, b"")
    assert REPLAYED not in first.headers
    again = store_client.delete(path, headers=keyed)
    assert (again.status_code, again.content, again.headers[REPLAYED]) == (204, b"", "true")
    assert_problem(store_client.delete(path, headers=auth), 404)
    assert_problem(store_client.delete(path, headers={**auth, "Idempotency-Key": "later"}), 404)
    assert count(engine, sessions, sessions.c.id == path.rsplit("/", 1)[1]) == 0


def test_a_stranger_reusing_a_key_of_the_session_gets_404(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    other_auth = Session(store_client, "arm-wrestles", ARM_WRESTLE).headers
    keyed = {**auth, "Idempotency-Key": "used-here"}
    assert store_client.post(path + "/rounds", json=TIE, headers=keyed).status_code == 200
    for stranger in (other_auth, bearer("no-such-token")):
        reusing = {**stranger, "Idempotency-Key": "used-here"}
        assert_problem(store_client.post(path + "/rounds", json=TIE, headers=reusing), 404)
    assert standing(store_client, path, auth) == (2, 1, 1)


def test_a_key_still_in_flight_is_409(store_client: TestClient, engine: Engine) -> None:
    """White-box: hold the key the way an unfinished request would, then send the request.

    PostgreSQL: another connection (as another server process would) holds the key's
    transaction lock, taken with the store's own `try_lock_key`. SQLite, where writers queue
    for the database's write lock instead, marks the key in flight in this process.
    """
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    scope = scope_of(path, auth)
    keyed = {**auth, "Idempotency-Key": "slow-one"}
    store = store_client.app.state.store  # type: ignore[attr-defined]
    held = engine.raw_connection()
    try:
        transaction = Transaction(engine.dialect, held.driver_connection)
        if store.is_postgres:
            digest = key_digest(scope, "slow-one")
            assert asyncio.run(repository.try_lock_key(transaction, scope, digest))
        else:
            store.in_flight.add((scope, "slow-one"))
        for _ in range(2):
            problem = assert_problem(
                store_client.post(path + "/rounds", json=TIE, headers=keyed), 409
            )
            assert "still being processed" in problem["detail"]
    finally:
        store.in_flight.discard((scope, "slow-one"))
        held.rollback()
        held.close()
    assert standing(store_client, path, auth) == (1, 0, 0)

    # Once the other request is done (here: gone without an answer), the key works.
    applied = store_client.post(path + "/rounds", json=TIE, headers=keyed)
    assert applied.status_code == 200, applied.text
    assert REPLAYED not in applied.headers
    assert standing(store_client, path, auth) == (2, 1, 1)


# --- the key and the change share one transaction -------------------------------------------


def test_a_failed_request_stores_no_key(store_client: TestClient, engine: Engine) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    scope = scope_of(path, auth)
    keyed = {**auth, "Idempotency-Key": "retry-me"}
    stored = (idempotency.c.scope == scope,)

    # Refused inside the write transaction (the rules reject dice for a stranger): 422.
    stranger = {"rolls": {"Nobody": {"strength": 10}}}
    assert_problem(store_client.post(path + "/rounds", json=stranger, headers=keyed), 422)
    # Refused by the If-Match check inside the transaction: 412.
    stale = {**keyed, "If-Match": '"7"'}
    assert_problem(store_client.post(path + "/rounds", json=TIE, headers=stale), 412)
    assert count(engine, idempotency, *stored) == 0
    assert standing(store_client, path, auth) == (1, 0, 0)

    # So the key is still free: the same key with a valid request is applied, not a 422.
    applied = store_client.post(path + "/rounds", json=TIE, headers=keyed)
    assert applied.status_code == 200, applied.text
    assert REPLAYED not in applied.headers
    assert standing(store_client, path, auth) == (2, 1, 1)
    with engine.connect() as connection:
        row = connection.execute(select(idempotency).where(*stored)).one()
    assert row.key == key_digest(scope, "retry-me")  # only a digest of the key is kept
    assert row.status_code == 200
    assert row.headers == {"ETag": '"2"'}


def test_a_finished_session_keeps_no_key_for_its_409(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "max_rounds": 1})
    path, auth = made.url, made.headers
    assert store_client.post(path + "/rounds", json=TIE, headers=auth).status_code == 200
    keyed = {**auth, "Idempotency-Key": "too-late"}
    for _ in range(2):
        problem = assert_problem(store_client.post(path + "/rounds", json=TIE, headers=keyed), 409)
        assert "finished" in problem["detail"]
    assert standing(store_client, path, auth) == (2, 1, 1)


def test_answers_are_replayed_for_24_hours_only(store_client: TestClient, engine: Engine) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, auth = made.url, made.headers
    scope = scope_of(path, auth)
    keyed = {**auth, "Idempotency-Key": "a-day"}
    first = store_client.post(path + "/rounds", json=TIE, headers=keyed)
    assert first.status_code == 200

    def age_by(hours: float) -> None:
        # Computed here, not in SQL: SQLite keeps datetimes as text.
        with engine.begin() as connection:
            stamp = connection.execute(
                select(idempotency.c.created_at).where(idempotency.c.scope == scope)
            ).scalar_one()
            connection.execute(
                update(IdempotencyRecord)
                .where(IdempotencyRecord.scope == scope)
                .values(created_at=stamp - timedelta(hours=hours))
            )

    age_by(23.5)
    replay = store_client.post(path + "/rounds", json=TIE, headers=keyed)
    assert (replay.status_code, replay.headers.get(REPLAYED)) == (200, "true")
    assert standing(store_client, path, auth) == (2, 1, 1)

    age_by(1)  # now 24.5 hours old: forgotten, so the request is a new one
    fresh = store_client.post(path + "/rounds", json=TIE, headers=keyed)
    assert fresh.status_code == 200
    assert REPLAYED not in fresh.headers
    assert fresh.json()["round"]["number"] == 2
    assert standing(store_client, path, auth) == (3, 2, 2)
