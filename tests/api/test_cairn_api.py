"""POST /v1/cairn/roll (docs/api.md#cairn-hill-roll, docs/rules.md#cairn-hill-roll)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import assert_problem

URL = "/v1/cairn/roll"
FIELDS = {
    "rating",
    "dice_sorted",
    "chosen",
    "chosen_names",
    "average",
    "base_score",
    "critical_die",
    "critical",
    "magnitude_die",
    "multiplier",
    "adjustment",
    "score",
    "target",
    "success",
    "rolls",
    "summary",
}
WORKED = {
    "rating": 12,
    "target": 45,
    "dice": [87, 78, 75, 62, 37, 36, 7],
    "critical_die": 13,
    "magnitude_die": 51,
}


def test_worked_example(client: TestClient) -> None:
    response = client.post(URL, json=WORKED)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) >= FIELDS
    assert {key: body[key] for key in FIELDS - {"rolls", "summary"}} == {
        "rating": 12,
        "dice_sorted": [7, 36, 37, 62, 75, 78, 87],
        "chosen": [62, 75],
        "chosen_names": ["middle", "third best"],
        "average": 68,
        "base_score": 80,
        "critical_die": 13,
        "critical": "failure",
        "magnitude_die": 51,
        "multiplier": 2,
        "adjustment": -24,
        "score": 56,
        "target": 45,
        "success": True,
    }
    assert body["rolls"] == [
        {
            "who": None,
            "purpose": "cairn",
            "dice": "7d100",
            "values": [87, 78, 75, 62, 37, 36, 7],
            "source": "supplied",
        },
        {"who": None, "purpose": "critical", "dice": "1d100", "values": [13], "source": "supplied"},
        {
            "who": None,
            "purpose": "magnitude",
            "dice": "1d100",
            "values": [51],
            "source": "supplied",
        },
    ]
    assert "score 56 vs target 45: success" in body["summary"]


def test_stats_give_the_same_roll_as_their_rating(client: TestClient) -> None:
    by_rating = client.post(URL, json=WORKED).json()
    by_stats = client.post(URL, json={**WORKED, "rating": None, "stats": [5, 7]}).json()
    assert by_stats == by_rating
    seeded = client.post(URL, json={"stats": [-3, 1], "seed": 5}).json()
    assert seeded["rating"] == -2
    assert seeded["chosen_names"] == ["worst", "second worst"]


def test_no_critical_and_no_target(client: TestClient) -> None:
    body = client.post(URL, json={**WORKED, "critical_die": 21, "target": None}).json()
    assert body["critical"] is None
    assert (body["magnitude_die"], body["multiplier"], body["adjustment"]) == (None, None, 0)
    assert body["score"] == body["base_score"] == 80
    assert (body["target"], body["success"]) == (None, None)
    # The supplied magnitude die was not needed: left out of rolls, reported unused.
    assert [entry["purpose"] for entry in body["rolls"]] == ["cairn", "critical"]
    assert body["unused"] == [
        {"who": None, "purpose": "magnitude", "values": [51], "why": "not-needed"}
    ]


def test_critical_success_adds(client: TestClient) -> None:
    body = client.post(URL, json={**WORKED, "critical_die": 12, "magnitude_die": 100}).json()
    assert (body["critical"], body["multiplier"], body["adjustment"]) == ("success", 10, 120)
    assert body["score"] == 200


def test_success_x2_x3_lowered_as_written(client: TestClient) -> None:
    body = {**WORKED, "critical_die": 12, "magnitude_die": 51}
    raised = client.post(URL, json=body).json()
    lowered = client.post(URL, json={**body, "success_x2_x3": "lowered"}).json()
    assert (raised["adjustment"], raised["score"]) == (24, 104)
    assert (lowered["critical"], lowered["adjustment"], lowered["score"]) == ("success", -24, 56)
    odds = client.post("/v1/odds/cairn", json={"rating": 12, "success_x2_x3": "lowered"}).json()
    default = client.post("/v1/odds/cairn", json={"rating": 12}).json()
    assert odds["mean"] < default["mean"]
    assert client.post(URL, json={**body, "success_x2_x3": "up"}).status_code == 422


def test_server_dice_are_listed_and_seed_is_deterministic(client: TestClient) -> None:
    request = {"rating": 5, "seed": 123456789}
    first = client.post(URL, json=request)
    second = client.post(URL, json=request)
    assert first.status_code == 200
    assert first.content == second.content
    body = first.json()
    cairn_entry = body["rolls"][0]
    assert cairn_entry["dice"] == "7d100"
    assert cairn_entry["source"] == "rolled"
    assert sorted(cairn_entry["values"]) == body["dice_sorted"]
    assert body["rolls"][1]["values"] == [body["critical_die"]]
    assert len(body["rolls"]) == (3 if body["critical"] else 2)
    other = client.post(URL, json={"rating": 5, "seed": 987654321})
    assert other.json()["rolls"] != body["rolls"]


def test_text_plain_answers_the_summary(client: TestClient) -> None:
    response = client.post(URL, json=WORKED, headers={"Accept": "text/plain"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == (
        "Rating 12 rolled 7 36 37 62 75 78 87: middle 62 and third best 75 average 68, "
        "base score 80; critical die 13: critical failure, magnitude 51 (x2): -24; "
        "score 56 vs target 45: success.\n"
    )


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"rating": 12, "stats": [5, 7]}, ["body", "stats"]),
        ({}, ["body", "rating"]),
        ({"target": 10}, ["body", "rating"]),
        ({"rating": 101}, ["body", "rating"]),
        ({"rating": -101}, ["body", "rating"]),
        ({"stats": [60, 41]}, ["body", "stats"]),
        ({"stats": [5]}, ["body", "stats"]),
        ({"stats": [5, 6, 7]}, ["body", "stats"]),
        ({"rating": 12, "dice": [1, 2, 3, 4, 5, 6]}, ["body", "dice"]),
        ({"rating": 12, "dice": [1, 2, 3, 4, 5, 6, 7, 8]}, ["body", "dice"]),
        ({"rating": 12, "dice": [1, 2, 3, 4, 5, 6, 101]}, ["body", "dice", 6]),
        ({"rating": 12, "dice": [0, 2, 3, 4, 5, 6, 7]}, ["body", "dice", 0]),
        ({"rating": 12, "critical_die": 0}, ["body", "critical_die"]),
        ({"rating": 12, "critical_die": 101}, ["body", "critical_die"]),
        ({"rating": 12, "magnitude_die": 101}, ["body", "magnitude_die"]),
        ({"rating": 12, "seed": -1}, ["body", "seed"]),
        ({"rating": 12, "seed": 2**63}, ["body", "seed"]),
        ({"rating": 12, "luck": 3}, ["body", "luck"]),
        ({"rating": "twelve"}, ["body", "rating"]),
    ],
)
def test_invalid_input_is_422_naming_the_field(
    client: TestClient, body: dict[str, Any], loc: list[str | int]
) -> None:
    assert_problem(client.post(URL, json=body), 422, loc)


def test_malformed_json_is_400(client: TestClient) -> None:
    response = client.post(
        URL, content=b'{"rating": 12', headers={"Content-Type": "application/json"}
    )
    assert_problem(response, 400)


def test_openapi_documents_the_endpoint(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    operation = schema["paths"][URL]["post"]
    assert operation["description"]
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    assert any(example["value"].get("dice") for example in examples.values())
    assert "CairnRollRequest" in schema["components"]["schemas"]


d100 = st.integers(1, 100)
bodies = st.fixed_dictionaries(
    {},
    optional={
        "rating": st.integers(-100, 100),
        "stats": st.lists(st.integers(-1000, 1000), min_size=2, max_size=2),
        "target": st.integers(-100_000, 100_000),
        "dice": st.lists(d100, min_size=7, max_size=7),
        "critical_die": d100,
        "magnitude_die": d100,
        "seed": st.integers(0, 2**63 - 1),
    },
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=bodies)
def test_any_schema_valid_body_resolves_or_is_422(client: TestClient, body: dict[str, Any]) -> None:
    response = client.post(URL, json=body)
    assert response.status_code in (200, 422)
    if response.status_code == 422:
        assert response.json()["errors"]
        return
    result = response.json()
    assert set(result) >= FIELDS
    assert result["score"] == result["base_score"] + result["adjustment"]
    if "dice" in body:
        assert result["dice_sorted"] == sorted(body["dice"])
    if "stats" in body:
        assert result["rating"] == sum(body["stats"])
