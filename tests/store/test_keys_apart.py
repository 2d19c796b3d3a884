"""One player's Idempotency-Key never blocks, answers or betrays another's (issue 43), on SQLite
and PostgreSQL (`store_client`).

Tried as a seat would attack the GM: the README's own style of key (`round-1`) used first on
`POST …/seeds`, the GM's key sent with the GM's body, a key probed for use. A key belongs to
the token that used it (docs/api.md#idempotency-key): another token's use of the same key is
never a replay, a 422 or a 409 for the first, and a new claim checks the role before anything
is said about the key.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, func, select, update

from app.api.kinds.registry import KINDS
from app.api.sessions.idempotency import MAX_SCOPE, session_scope
from app.api.sessions.security import key_digest, open_body, seal_body
from app.store import repository
from app.store.database import Transaction, null_pool_engine
from app.store.repository import idempotency
from tests.helpers import Session, assert_problem, bearer

REPLAYED = "idempotent-replayed"
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
TIE = {"rolls": {"Ann": {"strength": 10}, "Bob": {"strength": 10}}}


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    direct = null_pool_engine(database_url)
    yield direct
    direct.dispose()


def seated(client: TestClient, **more: Any) -> Session:
    """A seated arm wrestle with verifiable dice: its seats may add seeds."""
    return Session(client, "arm-wrestles", {**ARM_WRESTLE, "seats": True, **more})


def verifiable(client: TestClient) -> Session:
    return seated(client, dice="verifiable")


def rounds_played(made: Session) -> int:
    played: int = made.session()["round"]
    return played


def test_a_seat_using_the_gms_next_key_first_does_not_block_the_gm(
    store_client: TestClient,
) -> None:
    """The issue's attack: a seat sends `POST …/seeds` under `round-1` before the GM's keyed
    round. The GM's round is played (not a 422, not the seat's answer replayed), and each
    retry answers its own caller's stored answer."""
    made = verifiable(store_client)
    seat = made.tokens["seats"]["Ann"]
    seeded = made.post(
        "seeds", {"seed": "mine"}, headers={"Idempotency-Key": "round-1"}, token=seat
    )
    assert seeded.status_code == 200, seeded.text

    played = made.post("rounds", TIE, headers={"Idempotency-Key": "round-1"})
    assert played.status_code == 200, played.text
    assert REPLAYED not in played.headers
    assert played.json()["round"]["number"] == 1

    gm_again = made.post("rounds", TIE, headers={"Idempotency-Key": "round-1"})
    assert (gm_again.status_code, gm_again.headers.get(REPLAYED)) == (200, "true")
    assert gm_again.content == played.content
    seat_again = made.post(
        "seeds", {"seed": "mine"}, headers={"Idempotency-Key": "round-1"}, token=seat
    )
    assert (seat_again.status_code, seat_again.headers.get(REPLAYED)) == (200, "true")
    assert seat_again.content == seeded.content
    assert rounds_played(made) == 1


def test_a_seat_sending_the_gms_key_and_body_gets_403_never_the_gms_answer(
    store_client: TestClient,
) -> None:
    """Not a replay of the GM's stored answer, and the very answer a fresh key gets: the
    seat cannot tell whether the GM used the key."""
    made = seated(store_client)
    seat = made.tokens["seats"]["Bob"]
    gm = made.post("rounds", TIE, headers={"Idempotency-Key": "round-1"})
    assert gm.status_code == 200

    used = made.post("rounds", TIE, headers={"Idempotency-Key": "round-1"}, token=seat)
    fresh = made.post("rounds", TIE, headers={"Idempotency-Key": "never-used"}, token=seat)
    for answer in (used, fresh):
        assert REPLAYED not in answer.headers
        assert_problem(answer, 403)
    assert used.json()["detail"] == fresh.json()["detail"]
    assert gm.content not in (used.content, fresh.content)
    assert rounds_played(made) == 1


def test_a_key_reused_with_another_body_is_the_callers_own_422_after_its_role(
    store_client: TestClient,
) -> None:
    """Another request under a key is a 422 only for the token that used it; a role that may
    not make the change hears 403 first, whatever the key."""
    made = verifiable(store_client)
    seat = made.tokens["seats"]["Ann"]
    assert (
        made.post("seeds", {"seed": "a"}, headers={"Idempotency-Key": "k"}, token=seat).status_code
        == 200
    )
    # The seat's own key, on a change only the GM may make: its role first.
    assert_problem(made.post("rounds", TIE, headers={"Idempotency-Key": "k"}, token=seat), 403)
    # The seat's own key with another seed: its own 422.
    assert_problem(
        made.post("seeds", {"seed": "b"}, headers={"Idempotency-Key": "k"}, token=seat),
        422,
        ["header", "Idempotency-Key"],
    )
    # The GM's use of the same key is a change of its own.
    gm = made.post("seeds", {"seed": "b"}, headers={"Idempotency-Key": "k"})
    assert gm.status_code == 200, gm.text
    assert REPLAYED not in gm.headers
    assert [added["by"] for added in gm.json()["seeds"]] == ["seat:Ann", "gm"]


def test_two_seats_under_one_key_each_make_their_own_change(store_client: TestClient) -> None:
    made = verifiable(store_client)
    for name in ("Ann", "Bob"):
        answer = made.post(
            "seeds",
            {"seed": "same words"},
            headers={"Idempotency-Key": "seed-1"},
            token=made.tokens["seats"][name],
        )
        assert answer.status_code == 200, answer.text
        assert REPLAYED not in answer.headers
    seeds = made.get("proof").json()["seeds"]
    assert [added["by"] for added in seeds] == ["seat:Ann", "seat:Bob"]


def test_a_key_in_flight_for_one_token_is_no_409_for_another(
    store_client: TestClient, engine: Engine
) -> None:
    """White-box, as tests/store/test_idempotency.py holds a key: the GM's key held in
    flight does not hold the seat's request under the same key."""
    made = verifiable(store_client)
    scope = session_scope("arm-wrestles", made.id, made.gm)
    store = store_client.app.state.store  # type: ignore[attr-defined]
    held = engine.raw_connection()
    try:
        transaction = Transaction(engine.dialect, held.driver_connection)
        if store.is_postgres:
            digest = key_digest(scope, "busy")
            assert asyncio.run(repository.try_lock_key(transaction, scope, digest))
        else:
            store.in_flight.add((scope, "busy"))
        assert_problem(made.post("seeds", {"seed": "g"}, headers={"Idempotency-Key": "busy"}), 409)
        seat = made.post(
            "seeds",
            {"seed": "s"},
            headers={"Idempotency-Key": "busy"},
            token=made.tokens["seats"]["Ann"],
        )
        assert seat.status_code == 200, seat.text
    finally:
        store.in_flight.discard((scope, "busy"))
        held.rollback()
        held.close()


def test_a_retried_delete_needs_no_role_and_another_token_gets_no_replay(
    store_client: TestClient,
) -> None:
    made = seated(store_client)
    seat = made.tokens["seats"]["Ann"]
    first = made.client.delete(made.url, headers=bearer(made.gm, **{"Idempotency-Key": "bye"}))
    assert first.status_code == 204
    again = made.client.delete(made.url, headers=bearer(made.gm, **{"Idempotency-Key": "bye"}))
    assert (again.status_code, again.headers.get(REPLAYED)) == (204, "true")
    # The seat's token no longer opens the session: 404, not the GM's 204.
    by_seat = made.client.delete(made.url, headers=bearer(seat, **{"Idempotency-Key": "bye"}))
    assert_problem(by_seat, 404)


def test_every_kinds_scope_fits_its_column_and_tells_tokens_apart() -> None:
    """At least 84 bits of the token's digest (14 base64url characters) for every kind."""
    session_id = uuid.uuid4().hex
    for path in KINDS:
        scopes = {session_scope(path, session_id, f"token-{n}") for n in range(50)}
        assert len(scopes) == 50, path
        for scope in scopes:
            assert len(scope) == MAX_SCOPE, (path, scope)
            assert len(scope) - len(f"{path}/{session_id}/") >= 14, path


def test_an_answer_stored_under_the_sessions_old_scope_replays_to_its_request_only(
    store_client: TestClient, engine: Engine
) -> None:
    """A key stored before keys were the token's (scope `<kind>/<id>`, migration 0008) is
    replayed to the same token and request, and is nothing to any other caller."""
    made = seated(store_client)
    seat = made.tokens["seats"]["Ann"]
    keyed = {"Idempotency-Key": "old-key"}
    first = made.post("rounds", TIE, headers=keyed)
    assert first.status_code == 200
    # Moved where the service stored it before 0008 (0008 gave it its session's id).
    scope = session_scope("arm-wrestles", made.id, made.gm)
    legacy = f"arm-wrestles/{made.id}"
    with engine.begin() as connection:
        row = connection.execute(
            select(idempotency).where(idempotency.c.session_id == made.id)
        ).one()
        assert row.scope == scope
        connection.execute(
            update(idempotency)
            .where(idempotency.c.scope == scope)
            .values(
                scope=legacy,
                key=key_digest(legacy, "old-key"),
                body=seal_body(legacy, "old-key", open_body(scope, "old-key", bytes(row.body))),
            )
        )

    replay = made.post("rounds", TIE, headers=keyed)
    assert (replay.status_code, replay.headers.get(REPLAYED)) == (200, "true")
    assert replay.content == first.content
    # Another token, or another request of the GM's, under the same key: no replay, no 422.
    assert_problem(made.post("rounds", TIE, headers=keyed, token=seat), 403)
    other = made.post(
        "rounds", {"rolls": {"Ann": {"strength": 11}, "Bob": {"strength": 9}}}, headers=keyed
    )
    assert other.status_code == 200, other.text
    assert REPLAYED not in other.headers
    assert other.json()["round"]["number"] == 2
    with engine.connect() as connection:
        kept = connection.execute(
            select(func.count()).select_from(idempotency).where(idempotency.c.session_id == made.id)
        ).scalar_one()
    assert kept == 2  # the old answer, and the GM's new one under its own scope
