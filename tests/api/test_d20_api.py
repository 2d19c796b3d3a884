"""POST /v1/d20/check (docs/api.md#d20-check, docs/rules.md#d20-checks)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

URL = "/v1/d20/check"
FIELDS = {"roll", "total", "dc", "success", "rolls", "summary"}


def test_supplied_roll_against_a_dc(client: TestClient) -> None:
    response = client.post(URL, json={"modifier": 3, "dc": 15, "roll": 12})
    assert response.status_code == 200
    body = response.json()
    assert set(body) >= FIELDS
    assert (body["roll"], body["total"], body["dc"], body["success"]) == (12, 15, 15, True)
    assert body["rolls"] == [
        {"who": None, "purpose": "check", "dice": "1d20", "values": [12], "source": "supplied"}
    ]
    assert body["summary"] == "d20 12 + 3 = 15 vs DC 15: success."


def test_natural_20_does_not_beat_a_high_dc(client: TestClient) -> None:
    body = client.post(URL, json={"modifier": 0, "dc": 21, "roll": 20}).json()
    assert (body["total"], body["success"]) == (20, False)


def test_without_a_dc(client: TestClient) -> None:
    body = client.post(URL, json={"modifier": -2, "roll": 5}).json()
    assert (body["total"], body["dc"], body["success"]) == (3, None, None)


def test_seeded_server_roll_is_deterministic(client: TestClient) -> None:
    first = client.post(URL, json={"modifier": 1, "dc": 10, "seed": 42})
    second = client.post(URL, json={"modifier": 1, "dc": 10, "seed": 42})
    assert first.status_code == 200
    assert first.content == second.content
    body = first.json()
    assert body["rolls"][0]["source"] == "rolled"
    assert body["rolls"][0]["values"] == [body["roll"]]
    assert 1 <= body["roll"] <= 20
    assert body["total"] == body["roll"] + 1


def test_text_plain(client: TestClient) -> None:
    response = client.post(
        URL, json={"modifier": -2, "dc": 10, "roll": 4}, headers={"Accept": "text/plain"}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == "d20 4 - 2 = 2 vs DC 10: failure.\n"


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, ["body", "modifier"]),
        ({"modifier": 1001}, ["body", "modifier"]),
        ({"modifier": 0, "dc": -1001}, ["body", "dc"]),
        ({"modifier": 0, "roll": 0}, ["body", "roll"]),
        ({"modifier": 0, "roll": 21}, ["body", "roll"]),
        ({"modifier": 0, "roll": [12]}, ["body", "roll"]),
        ({"modifier": 0, "seed": -1}, ["body", "seed"]),
        ({"modifier": 0, "bonus": 2}, ["body", "bonus"]),
    ],
)
def test_invalid_input_is_422(
    client: TestClient, body: dict[str, Any], loc: list[str | int]
) -> None:
    response = client.post(URL, json=body)
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["status"] == 422
    assert loc in [error["loc"] for error in problem["errors"]]


def test_malformed_json_is_400(client: TestClient) -> None:
    response = client.post(URL, content=b"{modifier", headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["status"] == 400


bodies = st.fixed_dictionaries(
    {"modifier": st.integers(-1000, 1000)},
    optional={
        "dc": st.integers(-1000, 1000),
        "roll": st.integers(1, 20),
        "seed": st.integers(0, 2**63 - 1),
    },
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=bodies)
def test_any_schema_valid_body_resolves(client: TestClient, body: dict[str, Any]) -> None:
    response = client.post(URL, json=body)
    assert response.status_code == 200
    result = response.json()
    assert result["total"] == result["roll"] + body["modifier"]
    if "dc" in body:
        assert result["success"] == (result["total"] >= body["dc"])
    if "roll" in body:
        assert result["roll"] == body["roll"]
