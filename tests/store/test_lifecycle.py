"""The session lifecycle through HTTP, on SQLite and PostgreSQL (docs/api.md#sessions).

Create, read, play, resolve and delete arm wrestles and regular contests; versions and ETags;
tokens (shown once, stored only as hashes, 401/403/404); and seeded sessions: dice derived from
(seed, round number), every round stored with its inputs and dice, and stored dice replaying
the same outcomes.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from app.rules.dice import SeededRng
from app.store.database import null_pool_engine
from app.store.repository import idempotency, rounds, sessions
from tests.helpers import Session, assert_problem, bearer

#: A long arm wrestle: nobody tires before round 200 and nobody reaches DS 100 on ties.
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Lydia", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Ogre", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
REGULAR_CONTEST: dict[str, Any] = {
    "a": {"name": "Ann", "skill": 12},
    "b": {"name": "Bob", "skill": 10},
}
CREATE_BODIES = {"arm-wrestles": ARM_WRESTLE, "regular-contests": REGULAR_CONTEST}
SESSION_FIELDS = {
    "id", "kind", "status", "version", "created_at", "updated_at", "config", "state", "result",
    "round",
}  # fmt: skip
BASE64URL = re.compile(r"^[A-Za-z0-9_-]+$")


def strength(lydia: int, ogre: int) -> dict[str, Any]:
    """A round body supplying both Strength dice of the arm wrestle."""
    return {"rolls": {"Lydia": {"strength": lydia}, "Ogre": {"strength": ogre}}}


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """Direct access to the test database, to check what the store really wrote."""
    direct = null_pool_engine(database_url)
    yield direct
    direct.dispose()


def session_row(engine: Engine, session_id: str) -> dict[str, Any] | None:
    with engine.connect() as connection:
        row = connection.execute(select(sessions).where(sessions.c.id == session_id)).first()
    return None if row is None else dict(row._mapping)


def round_rows(engine: Engine, session_id: str) -> list[dict[str, Any]]:
    with engine.connect() as connection:
        result = connection.execute(
            select(rounds).where(rounds.c.session_id == session_id).order_by(rounds.c.number)
        )
        return [dict(row._mapping) for row in result]


def contains(value: Any, needle: str) -> bool:
    """Whether `needle` occurs anywhere in a stored column value (text, JSON or bytes)."""
    if value is None:
        return False
    if isinstance(value, bytes | bytearray | memoryview):
        return needle.encode() in bytes(value)
    if isinstance(value, str):
        return needle in value
    return needle in json.dumps(value, default=str)


# --- create and read --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["arm-wrestles", "regular-contests"])
def test_create_answers_201_with_location_etag_and_tokens_shown_once(
    store_client: TestClient, kind: str
) -> None:
    created = store_client.post(f"/v1/{kind}", json=CREATE_BODIES[kind])
    assert created.status_code == 201, created.text
    body = created.json()
    assert created.headers["location"] == f"/v1/{kind}/{body['id']}"
    assert created.headers["etag"] == '"1"'
    assert set(body) >= SESSION_FIELDS | {"tokens"}
    assert (body["kind"], body["status"], body["version"], body["round"]) == (kind, "active", 1, 0)
    assert body["result"] is None
    assert body["created_at"] == body["updated_at"]
    assert set(body["tokens"]) == {"gm"}  # no parties in these kinds
    token = body["tokens"]["gm"]

    fetched = store_client.get(created.headers["location"], headers=bearer(token))
    assert fetched.status_code == 200
    assert fetched.headers["etag"] == '"1"'
    assert fetched.json() == {key: value for key, value in body.items() if key != "tokens"}
    assert token not in fetched.text

    played = store_client.get(created.headers["location"] + "/rounds", headers=bearer(token))
    assert played.status_code == 200
    assert played.json() == {"rounds": []}
    assert played.headers["etag"] == '"1"'
    assert token not in played.text


def test_gm_tokens_carry_at_least_128_bits(store_client: TestClient) -> None:
    tokens = [Session(store_client, "arm-wrestles", ARM_WRESTLE).gm for _ in range(3)]
    for token in tokens:
        # URL-safe base64: 6 bits a character, so 128 bits need at least 22 characters.
        assert BASE64URL.fullmatch(token), token
        assert len(token) * 6 >= 128, token
    assert len(set(tokens)) == len(tokens)


# --- rounds, versions, resolve ----------------------------------------------------------


def test_rounds_advance_the_version_by_exactly_one(store_client: TestClient) -> None:
    """The worked example of docs/rules.md#pushing-the-ds, one POST per round, with supplied
    dice."""
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, token = made.url, made.gm
    # Lydia beats the Ogre by 5, he beats her by 8, by 6, she beats him by 1, he beats her by 8.
    script = [
        (strength(15, 10), {"Lydia": 5, "Ogre": 0}, "Lydia"),
        (strength(10, 18), {"Lydia": -3, "Ogre": 0}, "Ogre"),
        (strength(10, 16), {"Lydia": -3, "Ogre": 6}, "Ogre"),
        (strength(11, 10), {"Lydia": -3, "Ogre": 5}, "Ogre"),
        (strength(10, 18), {"Lydia": -3, "Ogre": 13}, "Ogre"),
    ]
    records = []
    for number, (round_body, ds, leader) in enumerate(script, start=1):
        response = store_client.post(path + "/rounds", json=round_body, headers=bearer(token))
        assert response.status_code == 200, response.text
        answer = response.json()
        assert set(answer) >= {"round", "session"}
        record, session = answer["round"], answer["session"]
        assert {"number", "rolls", "summary"} <= set(record)
        assert record["number"] == number
        assert (record["ds"], record["leader"]) == (ds, leader)
        assert session["version"] == number + 1
        assert session["round"] == number
        assert session["state"]["ds"] == ds
        assert response.headers["etag"] == f'"{number + 1}"'
        records.append(record)

    fetched = store_client.get(path, headers=bearer(token))
    assert (fetched.json()["version"], fetched.headers["etag"]) == (6, '"6"')
    listed = store_client.get(path + "/rounds", headers=bearer(token))
    assert listed.json() == {"rounds": records}
    assert listed.headers["etag"] == '"6"'


def test_resolve_plays_to_the_end_and_a_finished_session_refuses_more(
    store_client: TestClient,
) -> None:
    made = Session(store_client, "regular-contests", REGULAR_CONTEST)
    path, token = made.url, made.gm
    first = store_client.post(
        path + "/rounds",
        json={"rolls": {"Ann": {"success": [6, 6, 6]}, "Bob": {"success": [6, 6, 5]}}},
        headers=bearer(token),
    )
    assert first.status_code == 200, first.text
    assert first.json()["round"]["finished"] is False  # both failed: roll again

    resolved = store_client.post(path + "/resolve", headers=bearer(token))
    assert resolved.status_code == 200, resolved.text
    body = resolved.json()
    # The answer lists the last (at most 5) of the rounds it played.
    session, count, played = body["session"], body["played"], body["rounds"]
    assert [record["number"] for record in played] == list(
        range(2 + count - len(played), 2 + count)
    )
    assert len(played) == min(count, 5)
    assert all(record["finished"] is False for record in played[:-1])
    assert played[-1]["finished"] is True
    assert session["status"] == "finished"
    assert session["round"] == 1 + count
    assert session["version"] == 3  # one change, however many rounds it played
    assert session["result"]["winner"] == played[-1]["winner"]
    assert session["result"]["rounds_taken"] == session["round"]

    for call in ("/rounds", "/resolve"):
        refused = store_client.post(path + call, json={}, headers=bearer(token))
        assert_problem(refused, 409)
    after = store_client.get(path, headers=bearer(token)).json()
    assert (after["version"], after["round"]) == (3, session["round"])
    listed = store_client.get(path + "/rounds", headers=bearer(token)).json()["rounds"]
    # Every round is stored; the resolve's answer showed the last (at most 5) of them.
    assert len(listed) == 1 + count
    assert listed[0] == first.json()["round"]
    assert listed[len(listed) - len(played) :] == played


def test_resolve_stops_at_max_rounds(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "max_rounds": 3})
    path, token = made.url, made.gm
    resolved = store_client.post(path + "/resolve", headers=bearer(token))
    assert resolved.status_code == 200, resolved.text
    body = resolved.json()
    assert [record["number"] for record in body["rounds"]] == [1, 2, 3]
    assert body["rounds"][-1]["reason"] == "max_rounds"
    assert body["session"]["status"] == "finished"
    assert body["session"]["result"]["reason"] == "max_rounds"
    assert body["session"]["result"]["winner"] is None
    assert_problem(store_client.post(path + "/rounds", json={}, headers=bearer(token)), 409)


def test_delete_answers_204_then_everything_is_404(
    store_client: TestClient, engine: Engine
) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, token = made.url, made.gm
    session_id = path.rsplit("/", 1)[1]
    assert store_client.post(path + "/rounds", json={}, headers=bearer(token)).status_code == 200
    assert len(round_rows(engine, session_id)) == 1

    deleted = store_client.delete(path, headers=bearer(token))
    assert deleted.status_code == 204
    assert deleted.content == b""

    assert_problem(store_client.get(path, headers=bearer(token)), 404)
    assert_problem(store_client.get(path + "/rounds", headers=bearer(token)), 404)
    assert_problem(store_client.post(path + "/rounds", json={}, headers=bearer(token)), 404)
    assert_problem(store_client.post(path + "/resolve", headers=bearer(token)), 404)
    assert_problem(store_client.delete(path, headers=bearer(token)), 404)
    assert session_row(engine, session_id) is None
    assert round_rows(engine, session_id) == []


# --- tokens -------------------------------------------------------------------------------


def test_the_store_keeps_only_hashes_of_tokens(store_client: TestClient, engine: Engine) -> None:
    created = store_client.post(
        "/v1/arm-wrestles",
        json=ARM_WRESTLE,
        headers={"Idempotency-Key": f"hash-check-create-{uuid.uuid4().hex}"},
    )
    assert created.status_code == 201
    session_id, token = created.json()["id"], created.json()["tokens"]["gm"]
    played = store_client.post(
        f"/v1/arm-wrestles/{session_id}/rounds",
        json={},
        headers={**bearer(token), "Idempotency-Key": "hash-check-round"},
    )
    assert played.status_code == 200

    row = session_row(engine, session_id)
    assert row is not None
    assert row["gm_token_hash"] == hashlib.sha256(token.encode()).hexdigest()
    assert row["party_token_hashes"] == {}
    for column, value in row.items():
        assert not contains(value, token), f"sessions.{column} holds the token"
    for stored_round in round_rows(engine, session_id):
        for column, value in stored_round.items():
            assert not contains(value, token), f"rounds.{column} holds the token"
    with engine.connect() as connection:
        keyed = [dict(found._mapping) for found in connection.execute(select(idempotency))]
    assert keyed, "the keyed calls stored their answers"
    for stored in keyed:
        for column, value in stored.items():
            assert not contains(value, token), f"idempotency_keys.{column} holds the token"
            assert not contains(value, "hash-check-"), f"idempotency_keys.{column} holds a key"


def test_calls_without_a_token_are_401(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    path, token = made.url, made.gm
    calls = [
        ("GET", path),
        ("GET", path + "/rounds"),
        ("POST", path + "/rounds"),
        ("POST", path + "/resolve"),
        ("DELETE", path),
    ]
    for method, url in calls:
        for headers in ({}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer "}):
            response = store_client.request(method, url, json={}, headers=headers)
            assert_problem(response, 401)
            assert response.headers["www-authenticate"] == "Bearer"
    assert store_client.get(path, headers=bearer(token)).json()["version"] == 1


def test_a_token_of_another_session_or_an_unknown_id_is_404(store_client: TestClient) -> None:
    a, b = (Session(store_client, "regular-contests", REGULAR_CONTEST) for _ in range(2))
    path_a, token_a = a.url, a.gm
    path_b, token_b = b.url, b.gm
    unknown = "/v1/regular-contests/" + "0" * 32
    strangers = [
        (path_b, token_a),  # session A's GM token on session B: mutate's authorisation
        (path_b, "not-a-token-of-anything"),
        (unknown, token_a),
        # The right token on the right id, but under another kind's path.
        ("/v1/arm-wrestles/" + path_a.rsplit("/", 1)[1], token_a),
    ]
    for path, token in strangers:
        assert_problem(store_client.get(path, headers=bearer(token)), 404)
        assert_problem(store_client.get(path + "/rounds", headers=bearer(token)), 404)
        assert_problem(store_client.post(path + "/rounds", json={}, headers=bearer(token)), 404)
        assert_problem(store_client.post(path + "/resolve", headers=bearer(token)), 404)
        assert_problem(store_client.delete(path, headers=bearer(token)), 404)
    for path, token in ((path_a, token_a), (path_b, token_b)):
        session = store_client.get(path, headers=bearer(token)).json()
        assert (session["version"], session["round"], session["status"]) == (1, 0, "active")


SKILL_GAME: dict[str, Any] = {
    "dc": 10,
    "skill_list": ["Athletics", "Stealth"],
    "skills_per_round": 1,
    "kind": "bidding",
    "actions": [{"name": "push", "effects": [{"min_margin": 0, "text": "pushes", "progress": 1}]}],
    "goal": 3,
    "parties": [
        {
            "name": "Heroes",
            "controller": "players",
            "members": [{"name": "Ann", "skills": {"Athletics": 2}}],
        },
        {
            "name": "Villains",
            "controller": "gm",
            "members": [{"name": "Bob", "skills": {"Stealth": 2}}],
        },
    ],
}


def test_a_party_token_acting_as_gm_is_403(store_client: TestClient) -> None:
    created = store_client.post("/v1/skill-games", json=SKILL_GAME)
    assert created.status_code == 201, created.text
    path = created.headers["location"]
    tokens = created.json()["tokens"]
    party_token = tokens["parties"]["Heroes"]
    assert store_client.get(path, headers=bearer(party_token)).status_code == 200
    assert_problem(store_client.delete(path, headers=bearer(party_token)), 403)
    assert_problem(store_client.post(path + "/end", json={}, headers=bearer(party_token)), 403)
    for_villains = {"party": "Villains", "skills": ["Stealth"]}
    assert_problem(
        store_client.post(path + "/skills", json=for_villains, headers=bearer(party_token)), 403
    )
    session = store_client.get(path, headers=bearer(tokens["gm"]))
    assert (session.status_code, session.json()["version"]) == (200, 1)


# --- seeded sessions, stored rounds, replay -----------------------------------------------


def play_rounds(session: Session, count: int) -> list[dict[str, Any]]:
    """Up to `count` rounds with server dice (fewer if the contest finishes)."""
    records = []
    for _ in range(count):
        answer = session.play_round().json()
        records.append(answer["round"])
        if answer["session"]["status"] == "finished":
            break
    return records


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("arm-wrestles", {**ARM_WRESTLE, "target": 20}),
        ("regular-contests", {**REGULAR_CONTEST, "a": {"name": "Ann", "skill": 5}}),
    ],
)
def test_sessions_with_the_same_seed_play_the_same_rounds(
    store_client: TestClient, kind: str, body: dict[str, Any]
) -> None:
    seeded = {**body, "seed": 20_261_129}
    first = play_rounds(Session(store_client, kind, seeded), 8)
    second = play_rounds(Session(store_client, kind, seeded), 8)
    assert first == second
    assert all(entry["source"] == "rolled" for record in first for entry in record["rolls"])
    # Resolving a third one plays the very same rounds too.
    made = Session(store_client, kind, seeded)
    path, token = made.url, made.gm
    assert store_client.post(path + "/resolve", headers=bearer(token)).status_code == 200
    resolved = store_client.get(path + "/rounds", headers=bearer(token)).json()["rounds"]
    assert resolved[: len(first)] == first


def test_a_seeded_round_rolls_dice_of_its_seed_and_number(store_client: TestClient) -> None:
    """Round 2's dice come from (seed, 2), whatever was rolled or supplied in round 1."""
    seed = 77
    a = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seed": seed})
    b = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seed": seed})
    path_a, token_a = a.url, a.gm
    supplied = store_client.post(path_a + "/rounds", json=strength(3, 19), headers=bearer(token_a))
    assert supplied.status_code == 200
    play_rounds(b, 1)
    second_a = play_rounds(a, 1)[0]
    second_b = play_rounds(b, 1)[0]

    round_two = SeededRng(seed, "round:2")
    expected = [round_two.die(20), round_two.die(20)]  # Lydia's Strength die, then the Ogre's
    for record in (second_a, second_b):
        assert record["number"] == 2
        assert [entry["values"] for entry in record["rolls"]] == [[expected[0]], [expected[1]]]
        assert [(entry["who"], entry["purpose"]) for entry in record["rolls"]] == [
            ("Lydia", "strength"),
            ("Ogre", "strength"),
        ]


def test_unseeded_sessions_roll_different_dice(store_client: TestClient) -> None:
    first = play_rounds(Session(store_client, "arm-wrestles", ARM_WRESTLE), 5)
    second = play_rounds(Session(store_client, "arm-wrestles", ARM_WRESTLE), 5)
    dice_first = [entry["values"] for record in first for entry in record["rolls"]]
    dice_second = [entry["values"] for record in second for entry in record["rolls"]]
    assert len(dice_first) == len(dice_second) == 10
    assert dice_first != dice_second  # equal with probability 20**-10


def test_every_round_is_stored_with_its_inputs_and_dice(
    store_client: TestClient, engine: Engine
) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seed": 5})
    path, token = made.url, made.gm
    session_id = path.rsplit("/", 1)[1]
    bodies = [strength(12, 7), {}, {"rolls": {"Ogre": {"strength": 20}}}]
    answers = []
    for round_body in bodies:
        response = store_client.post(path + "/rounds", json=round_body, headers=bearer(token))
        assert response.status_code == 200, response.text
        answers.append(response.json()["round"])

    stored = round_rows(engine, session_id)
    assert [row["number"] for row in stored] == [1, 2, 3]
    unused = {"constitution": None, "damage": None}
    assert [row["inputs"] for row in stored] == [
        {"rolls": {"Lydia": {"strength": 12, **unused}, "Ogre": {"strength": 7, **unused}}},
        {"rolls": None},
        {"rolls": {"Ogre": {"strength": 20, **unused}}},
    ]
    for row, answer in zip(stored, answers, strict=True):
        # The answer's round is the stored record, and its cards, rendered when served (never
        # stored: docs/api.md#round-cards).
        assert "cards" not in row["outcome"]
        assert row["outcome"] == {key: value for key, value in answer.items() if key != "cards"}
        assert answer["cards"][0]["number"] == row["number"]
        assert row["dice"] == answer["rolls"]
        assert row["dice"], "every round rolls dice"
        assert row["created_at"] is not None
    sources = [[entry["source"] for entry in row["dice"]] for row in stored]
    assert sources == [["supplied", "supplied"], ["rolled", "rolled"], ["rolled", "supplied"]]
    assert store_client.get(path + "/rounds", headers=bearer(token)).json()["rounds"] == answers


def as_supplied(dice: list[dict[str, Any]]) -> dict[str, Any]:
    """A round's stored dice as a round body's `rolls`, to play the round again."""
    rolls: dict[str, dict[str, Any]] = {}
    for entry in dice:
        values = entry["values"]
        rolls.setdefault(entry["who"], {})[entry["purpose"]] = (
            values[0] if entry["dice"] == "1d20" else values
        )
    return {"rolls": rolls}


def without_source(record: dict[str, Any]) -> dict[str, Any]:
    """A round record less who gave its dice (in its rolls and its cards: a card's die says
    it in its `source` and in the words of its `note`)."""
    return {
        **record,
        "rolls": [{k: v for k, v in entry.items() if k != "source"} for entry in record["rolls"]],
        "cards": [
            {
                **card,
                "dice": [
                    {k: v for k, v in die.items() if k not in ("source", "note")}
                    for die in card["dice"]
                ],
            }
            for card in record.get("cards", [])
        ],
    }


@pytest.mark.parametrize(
    ("kind", "body"),
    [
        ("arm-wrestles", {**ARM_WRESTLE, "target": 20, "a": {**ARM_WRESTLE["a"], "con_score": 3}}),
        ("regular-contests", {**REGULAR_CONTEST, "b": {"name": "Bob", "skill": 12}}),
    ],
)
def test_stored_dice_replay_the_same_outcomes(
    store_client: TestClient, engine: Engine, kind: str, body: dict[str, Any]
) -> None:
    made = Session(store_client, kind, body)
    path, token = made.url, made.gm
    resolved = store_client.post(path + "/resolve", headers=bearer(token))
    assert resolved.status_code == 200, resolved.text
    original = store_client.get(path + "/rounds?limit=500", headers=bearer(token)).json()["rounds"]
    assert resolved.json()["played"] == len(original)
    stored = round_rows(engine, path.rsplit("/", 1)[1])
    # Stored as served, less the cards rendered when served.
    assert [row["outcome"] for row in stored] == [
        {key: value for key, value in record.items() if key != "cards"} for record in original
    ]

    made = Session(store_client, kind, body)
    replay_path, replay_token = made.url, made.gm
    replayed = []
    for row in stored:
        response = store_client.post(
            replay_path + "/rounds", json=as_supplied(row["dice"]), headers=bearer(replay_token)
        )
        assert response.status_code == 200, response.text
        record = response.json()["round"]
        assert all(entry["source"] == "supplied" for entry in record["rolls"])
        replayed.append(record)
    assert [without_source(record) for record in replayed] == [
        without_source(record) for record in original
    ]
    original_end = resolved.json()["session"]
    replay_end = store_client.get(replay_path, headers=bearer(replay_token)).json()
    assert (replay_end["status"], replay_end["result"], replay_end["state"]) == (
        original_end["status"],
        original_end["result"],
        original_end["state"],
    )
