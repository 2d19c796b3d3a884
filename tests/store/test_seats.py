"""Seats through HTTP, on SQLite and PostgreSQL (docs/api.md#tokens-and-roles).

A session created with `"seats": true` gives each competitor a seat token: shown once, stored
only as its SHA-256, reading the session (the session, its rounds, its odds) and refused (403)
everything that plays, resolves, ends or deletes it, without the session changing.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from app.store.database import null_pool_engine
from app.store.repository import sessions
from tests.helpers import Session, assert_problem, bearer

ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Lydia", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Ogre", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
CHASE: dict[str, Any] = {
    "escapee": {"name": "Ralf", "speed": 30},
    "chaser": {"name": "Guard", "speed": 30},
    "start": {"mode": "lead", "lead": 2},
}
#: A seated session of every kind that has seats, and its competitors.
SEATED: dict[str, tuple[dict[str, Any], set[str]]] = {
    "arm-wrestles": (ARM_WRESTLE, {"Lydia", "Ogre"}),
    "regular-contests": (
        {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}},
        {"Ann", "Bob"},
    ),
    "races": (
        {
            "course": "typical",
            "competitors": [{"name": "Ann", "speed": 30}, {"name": "Bob", "speed": 40}],
        },
        {"Ann", "Bob"},
    ),
    "chases": (CHASE, {"Ralf", "Guard"}),
}
#: 32 random bytes in URL-safe base64 without padding.
TOKEN_256_BITS = re.compile(r"^[A-Za-z0-9_-]{43}$")


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    direct = null_pool_engine(database_url)
    yield direct
    direct.dispose()


def stored_seats(engine: Engine, session_id: str) -> Any:
    with engine.connect() as connection:
        return connection.execute(
            select(sessions.c.seat_token_hashes).where(sessions.c.id == session_id)
        ).scalar_one()


@pytest.mark.parametrize("kind", sorted(SEATED))
def test_a_seated_session_gives_each_competitor_a_token_shown_once_and_stored_hashed(
    store_client: TestClient, engine: Engine, kind: str
) -> None:
    body, names = SEATED[kind]
    made = Session(store_client, kind, {**body, "seats": True})
    seats: dict[str, str] = made.tokens["seats"]
    assert set(seats) == names
    parties = made.tokens.get("parties", {})
    tokens = {made.gm, *seats.values(), *parties.values()}
    assert len(tokens) == 1 + len(seats) + len(parties)  # every token its own
    for token in seats.values():
        assert TOKEN_256_BITS.fullmatch(token), token
    assert stored_seats(engine, made.id) == {
        name: hashlib.sha256(token.encode()).hexdigest() for name, token in seats.items()
    }
    for token in seats.values():
        shown = made.get(token=token)
        assert shown.status_code == 200, shown.text
        assert shown.json() == {
            key: value for key, value in made.created.items() if key != "tokens"
        }
        assert all(seat not in shown.text for seat in seats.values())


@pytest.mark.parametrize("kind", sorted(SEATED))
def test_a_session_without_seats_has_no_seat_tokens(
    store_client: TestClient, engine: Engine, kind: str
) -> None:
    body, _names = SEATED[kind]
    for created in (body, {**body, "seats": False}):
        made = Session(store_client, kind, created)
        assert "seats" not in made.tokens
        assert stored_seats(engine, made.id) is None


def test_skill_games_have_no_seats(store_client: TestClient) -> None:
    game = {
        "dc": 10,
        "skill_list": ["Persuade"],
        "skills_per_round": 1,
        "kind": "option",
        "actions": [{"name": "Press", "effects": [{"text": "Ahead.", "progress": 1}]}],
        "parties": [
            {"name": "Heroes", "controller": "gm", "members": [{"name": "Ann", "skills": {}}]},
            {"name": "Villains", "controller": "gm", "members": [{"name": "Rook", "skills": {}}]},
        ],
        "seats": True,
    }
    assert_problem(store_client.post("/v1/skill-games", json=game), 422, ["body", "seats"])


def test_a_seat_reads_the_session_its_rounds_and_its_odds(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seats": True, "seed": 4})
    played = made.play_round({"rolls": {"Lydia": {"strength": 15}, "Ogre": {"strength": 10}}})
    for token in made.tokens["seats"].values():
        assert made.get(token=token).json() == played.json()["session"]
        rounds = made.get("rounds", token=token)
        assert rounds.status_code == 200
        assert rounds.json() == {"rounds": [played.json()["round"]]}
        assert rounds.json()["rounds"][0]["checks"]["Lydia"]["roll"] == 15
        odds = made.get("odds", token=token)
        assert odds.status_code == 200, odds.text
        assert odds.json() == made.get("odds").json()
        assert odds.headers["etag"] == '"2"'


def test_a_seat_may_not_play_resolve_or_delete(store_client: TestClient) -> None:
    """A seat token playing a round (with its own dice, another's, or none), resolving or
    deleting the session is 403, with If-Match and Idempotency-Key too, and nothing changes."""
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seats": True})
    lydia = made.tokens["seats"]["Lydia"]
    own = {"rolls": {"Lydia": {"strength": 12}}}
    others = {"rolls": {"Ogre": {"strength": 12}}}
    both = {"rolls": {"Lydia": {"strength": 12}, "Ogre": {"strength": 3}}}
    for body in ({}, own, others, both):
        problem = assert_problem(made.post("rounds", body, token=lydia), 403)
        assert problem["detail"] == "only the GM's token may do this"
    assert_problem(made.post("rounds", own, headers={"If-Match": '"1"'}, token=lydia), 403)
    keyed = {"Idempotency-Key": "seat-round"}
    assert_problem(made.post("rounds", own, headers=keyed, token=lydia), 403)
    assert_problem(made.post("resolve", token=lydia), 403)
    assert_problem(store_client.delete(made.url, headers=bearer(lydia)), 403)
    assert made.session()["version"] == 1
    assert made.rounds() == []
    # The key was not spent on the refusal: the GM's first use of it plays.
    assert made.post("rounds", {}, headers=keyed).status_code == 200


def test_a_chase_seat_may_not_end_the_chase(store_client: TestClient) -> None:
    made = Session(store_client, "chases", {**CHASE, "seats": True})
    for token in made.tokens["seats"].values():
        assert_problem(made.post("end", {"reason": "gave-up"}, token=token), 403)
    assert made.session()["status"] == "active"


def test_a_seat_of_another_session_is_a_stranger(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seats": True})
    other = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seats": True})
    stranger = other.tokens["seats"]["Lydia"]
    assert_problem(made.get(token=stranger), 404)
    assert_problem(made.get("rounds", token=stranger), 404)
    assert_problem(made.post("rounds", {}, token=stranger), 404)
    assert made.session()["version"] == 1
