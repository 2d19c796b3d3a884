"""A chase's odds from here asked with a JSON body (`POST /v1/chases/{id}/odds`, docs/api.md#odds):
the same answer as `GET …/odds?terrain=<JSON>&…`, the same tokens, its own 422s."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import Session, assert_problem, bearer

CHASE = {
    "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2, "hide": 5}},
    "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1}},
    "start": {"mode": "lead", "lead": 12},
    "max_rounds": 30,
}
STRENGTH = {"check": "strength"}
#: A retried obstacle: too large a walk for exact odds, so a seeded Monte Carlo estimate.
OBSTACLE = {
    "check": "strength",
    "obstacle": {"kind": "obstacle", "check": "jump", "dc": 12, "retry": True},
}


def ask(client: TestClient, url: str, token: str, question: dict[str, Any]) -> Any:
    return client.post(url, json=question, headers=bearer(token))


def ask_by_query(client: TestClient, url: str, token: str, question: dict[str, Any]) -> Any:
    query = {**question, "terrain": json.dumps(question["terrain"])}
    return client.get(url, params=query, headers=bearer(token))


@pytest.mark.parametrize(
    "question",
    [
        {"terrain": STRENGTH},
        {"terrain": STRENGTH, "tactic_policy": "hide-when-possible"},
        {"terrain": {**STRENGTH, "flat": True}, "tactic_policy": "none", "seed": 0},
        {"terrain": OBSTACLE, "seed": 3},
    ],
)
def test_the_body_and_the_query_give_the_same_answer(
    store_client: TestClient, question: dict[str, Any]
) -> None:
    chase = Session(store_client, "chases", CHASE)
    url, tokens = f"{chase.url}/odds", chase.tokens
    asked = ask(store_client, url, tokens["gm"], question)
    assert asked.status_code == 200, asked.text
    assert asked.headers["content-type"] == "application/json"
    assert asked.headers["etag"] == '"1"'
    by_query = ask_by_query(store_client, url, tokens["gm"], question)
    assert by_query.status_code == 200, by_query.text
    assert asked.json() == by_query.json()
    assert asked.headers["etag"] == by_query.headers["etag"]
    # And it is the party's question too: any token of the session.
    assert ask(store_client, url, tokens["parties"]["Ralf"], question).json() == asked.json()


def test_exact_and_estimated_answers(store_client: TestClient) -> None:
    chase = Session(store_client, "chases", CHASE)
    url, tokens = f"{chase.url}/odds", chase.tokens
    exact = ask(store_client, url, tokens["gm"], {"terrain": STRENGTH}).json()
    assert exact["method"] == "exact"
    assert exact["tactic_policy"] == "none"
    assert exact["increments_played"] == 0
    parts = ("caught_exact", "escaped_exact", "gave_up_exact")
    assert sum(Fraction(exact[part]) for part in parts) == 1
    assert exact["hid"] == 0
    hiding = {"terrain": STRENGTH, "tactic_policy": "hide-when-possible"}
    hides = ask(store_client, url, tokens["gm"], hiding).json()
    assert 0 < hides["hid"] <= hides["escaped"]
    estimate = ask(store_client, url, tokens["gm"], {"terrain": OBSTACLE, "seed": 3}).json()
    assert estimate["method"] == "monte-carlo"
    assert (estimate["seed"], estimate["caught_exact"]) == (3, None)
    assert estimate["trials"] > 10
    again = ask(store_client, url, tokens["gm"], {"terrain": OBSTACLE, "seed": 3}).json()
    assert again == estimate
    asked = {"terrain": OBSTACLE, "seed": 3, "trials": 25}
    fewer = ask(store_client, url, tokens["gm"], asked).json()
    assert fewer["trials"] == 25
    assert ask_by_query(store_client, url, tokens["gm"], asked).json() == fewer
    refused = ask_by_query(store_client, url, tokens["gm"], {**asked, "trials": 10_001})
    assert refused.status_code == 422
    assert ask(store_client, url, tokens["gm"], {**asked, "trials": 0}).status_code == 422


def test_odds_from_a_later_state_name_its_version(store_client: TestClient) -> None:
    chase = Session(store_client, "chases", CHASE)
    url, tokens = f"{chase.url}/odds", chase.tokens
    session = url.removesuffix("/odds")
    played = store_client.post(
        f"{session}/rounds",
        json={"terrain": STRENGTH, "rolls": {"Ralf": {"check": 20}, "Guard": {"check": 1}}},
        headers=bearer(tokens["gm"]),
    )
    assert played.status_code == 200, played.text
    lead = played.json()["session"]["state"]["lead"]
    asked = ask(store_client, url, tokens["gm"], {"terrain": STRENGTH})
    assert asked.headers["etag"] == '"2"'
    assert asked.json()["increments_played"] == 1
    assert (
        asked.json() == ask_by_query(store_client, url, tokens["gm"], {"terrain": STRENGTH}).json()
    )
    # Asking changes nothing: the session is still at version 2, with the same lead.
    after = store_client.get(session, headers=bearer(tokens["gm"]))
    assert after.headers["etag"] == '"2"'
    assert after.json()["state"]["lead"] == lead


def test_a_finished_chase_answers_its_result(store_client: TestClient) -> None:
    chase = Session(store_client, "chases", CHASE)
    url, tokens = f"{chase.url}/odds", chase.tokens
    ended = store_client.post(f"{url.removesuffix('/odds')}/end", headers=bearer(tokens["gm"]))
    assert ended.status_code == 200, ended.text
    answer = ask(store_client, url, tokens["gm"], {"terrain": STRENGTH}).json()
    assert (answer["gave_up"], answer["caught"], answer["escaped"]) == (1.0, 0.0, 0.0)
    assert answer == ask_by_query(store_client, url, tokens["gm"], {"terrain": STRENGTH}).json()


@pytest.mark.parametrize(
    ("body", "content"),
    [
        ({"terrain": {"check": 5}}, None),  # invalid
        ({}, None),  # no terrain
        (None, b"{not json"),  # malformed
    ],
)
def test_who_is_asking_comes_before_the_body(
    store_client: TestClient, body: dict[str, Any] | None, content: bytes | None
) -> None:
    chase = Session(store_client, "chases", CHASE)
    url, tokens = f"{chase.url}/odds", chase.tokens
    sent: dict[str, Any] = {"json": body} if content is None else {"content": content}
    json_type = {"content-type": "application/json"}
    assert_problem(store_client.post(url, headers=json_type, **sent), 401)
    stranger = {**json_type, **bearer("not-a-token-of-this-chase")}
    assert_problem(store_client.post(url, headers=stranger, **sent), 404)
    unknown = url.replace("/chases/", "/chases/0")
    assert_problem(
        store_client.post(unknown, headers={**json_type, **bearer(tokens["gm"])}, **sent), 404
    )
    # With the chase's token, the body's own error.
    mine = store_client.post(url, headers={**json_type, **bearer(tokens["gm"])}, **sent)
    assert_problem(mine, 400 if content is not None else 422)


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"terrain": {"check": 5}}, ["body", "terrain", "check"]),
        ({"terrain": {**STRENGTH, "mounted": True}}, ["body", "terrain", "mounted"]),
        ({"terrain": {**STRENGTH, "slope": 1}}, ["body", "terrain", "slope"]),
        ({"tactic_policy": "none"}, ["body", "terrain"]),
        ({"terrain": STRENGTH, "tactic_policy": "always"}, ["body", "tactic_policy"]),
        ({"terrain": STRENGTH, "seed": -1}, ["body", "seed"]),
        ({"terrain": STRENGTH, "seed": "7"}, ["body", "seed"]),
        ({"terrain": STRENGTH, "rolls": {}}, ["body", "rolls"]),
    ],
)
def test_a_bad_question_is_a_422_naming_its_field(
    store_client: TestClient, body: dict[str, Any], loc: list[Any]
) -> None:
    chase = Session(store_client, "chases", CHASE)
    url, tokens = f"{chase.url}/odds", chase.tokens
    assert_problem(ask(store_client, url, tokens["gm"], body), 422, loc)


def test_only_chases_take_the_question_in_a_body(store_client: TestClient) -> None:
    created = store_client.post(
        "/v1/races",
        json={
            "course": "dash",
            "competitors": [
                {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
                {"name": "Bob", "speed": 30, "mods": {"strength": 0}},
            ],
        },
    )
    assert created.status_code == 201, created.text
    url = f"/v1/races/{created.json()['id']}/odds"
    gm = bearer(created.json()["tokens"]["gm"])
    refused = store_client.post(url, json={"seed": 1}, headers=gm)
    assert_problem(refused, 405)
    assert refused.headers["allow"] == "GET"
    assert store_client.get(url, params={"seed": 1}, headers=gm).status_code == 200


def test_the_document_declares_a_read_with_a_body(store_client: TestClient) -> None:
    document = store_client.get("/openapi.json").json()
    item = document["paths"]["/v1/chases/{session_id}/odds"]
    asked, by_query = item["post"], item["get"]
    assert asked["operationId"] == "oddsChaseFromHereWithTerrain"
    assert by_query["operationId"] == "oddsChaseFromHere"
    body = asked["requestBody"]
    assert body["required"] is True
    schema = body["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/OddsChaseFromHereRequest"}
    model = document["components"]["schemas"]["OddsChaseFromHereRequest"]
    assert model["required"] == ["terrain"]
    assert model["additionalProperties"] is False
    answer = asked["responses"]["200"]
    assert answer["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/OddsChaseAnswer"
    }
    assert set(answer["headers"]) == {"X-Request-ID", "ETag"}
    # A session call that only reads: a token, but no If-Match, Idempotency-Key, 403, 409, 412.
    assert asked["security"] == [{"bearer": []}]
    assert set(asked["responses"]) == {
        *("200", "400", "401", "404", "413", "415", "422", "429", "503")
    }
    # (`lang`, the language of its `summary`, as on every /v1 operation: test_openapi.py.)
    assert [parameter["name"] for parameter in asked["parameters"]] == [
        "session_id",
        "X-Request-ID",
        "lang",
    ]
