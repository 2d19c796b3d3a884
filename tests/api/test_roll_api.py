"""`GET|POST /v1/roll`: dice notation for ad-hoc rolls.

The API is docs/api.md#dice-notation-roll, the notation docs/rules.md#dice-notation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api.answers.formats import plain
from app.api.oneshots import notation as notation_api
from app.notation import MAX_DICE, MAX_PARENTHESES, MAX_WORK
from tests.helpers import assert_problem
from tests.work_meter import WorkMeter

RESULT_FIELDS = {"expr", "total", "breakdown", "rule", "rolls", "summary"}


def get(client: TestClient, expr: str, **params: Any) -> Response:
    response: Response = client.get("/v1/roll", params={"expr": expr, **params})
    return response


def assert_4d6kh3(body: dict[str, Any]) -> None:
    assert body.keys() == RESULT_FIELDS
    assert body["expr"] == "4d6kh3"
    (entry,) = body["rolls"]
    assert entry == {
        "who": None,
        "purpose": "roll",
        "dice": "4d6kh3",
        "values": entry["values"],
        "source": "rolled",
    }
    values = entry["values"]
    assert len(values) == 4
    assert all(1 <= value <= 6 for value in values)
    assert body["total"] == sum(sorted(values)[1:])
    assert body["breakdown"].startswith("4d6kh3 (")
    assert body["breakdown"].endswith(f") = {body['total']}")
    assert body["breakdown"].count("~~") == 2
    assert body["summary"] == body["breakdown"]


def test_get_rolls_the_query_expression(client: TestClient) -> None:
    response = get(client, "4d6kh3")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert_4d6kh3(response.json())


def test_post_rolls_the_body_expression(client: TestClient) -> None:
    response = client.post("/v1/roll", json={"expr": "4d6kh3"})
    assert response.status_code == 200
    assert_4d6kh3(response.json())


def test_every_die_drawn_is_listed_in_order(client: TestClient) -> None:
    body = client.post("/v1/roll", json={"expr": "10d6e6rr1+1d4[fire]", "seed": 5}).json()
    (entry,) = body["rolls"]
    assert entry["dice"] == "10d6e6rr1+1d4[fire]"
    assert len(entry["values"]) >= 11
    # the last die drawn is the d4, after every d6 (rerolls and explosions included)
    assert 1 <= entry["values"][-1] <= 4
    assert body["breakdown"].endswith(f"[fire] = {body['total']}")


def test_percentile_dice_log_the_d10(client: TestClient) -> None:
    body = get(client, "d%", seed=3).json()
    (value,) = body["rolls"][0]["values"]
    assert body["total"] == 10 * (value - 1)


def test_expression_without_dice_has_an_empty_roll(client: TestClient) -> None:
    body = get(client, "7/2+1").json()
    assert body["total"] == 4
    assert body["rolls"] == [
        {"who": None, "purpose": "roll", "dice": "7/2+1", "values": [], "source": "rolled"}
    ]
    assert body["summary"] == "7 / 2 + 1 = 4"


def test_same_seed_gives_byte_identical_bodies(client: TestClient) -> None:
    expr = "20d6rr<3kh10+4d8e8"
    first = get(client, expr, seed=42)
    assert first.status_code == 200
    assert get(client, expr, seed=42).content == first.content
    posted = client.post("/v1/roll", json={"expr": expr, "seed": 42})
    assert posted.content == first.content
    assert client.post("/v1/roll", json={"expr": expr, "seed": 42}).content == first.content
    other = get(client, "100d100", seed=1).json()["rolls"][0]["values"]
    assert get(client, "100d100", seed=2).json()["rolls"][0]["values"] != other


def test_text_plain_answers_the_summary(client: TestClient) -> None:
    body = get(client, "3d6+2", seed=9).json()
    for response in (
        client.get(
            "/v1/roll", params={"expr": "3d6+2", "seed": 9}, headers={"accept": "text/plain"}
        ),
        client.post(
            "/v1/roll", json={"expr": "3d6+2", "seed": 9}, headers={"accept": "text/plain"}
        ),
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain")
        assert response.text == body["summary"] + "\n"


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("expr", ["x", "1d", "1+", "1d6)", "[fire]", "1/0", "2d6mi>3", "1d0"])
def test_unrollable_notation_is_422_naming_the_field(client: TestClient, expr: str) -> None:
    assert_problem(get(client, expr), 422, ["query", "expr"])
    assert_problem(client.post("/v1/roll", json={"expr": expr}), 422, ["body", "expr"])


def test_query_validation_errors_are_problem_json(client: TestClient) -> None:
    assert_problem(client.get("/v1/roll"), 422, ["query", "expr"])
    assert_problem(get(client, ""), 422, ["query", "expr"])
    assert_problem(get(client, "1d6", seed=-1), 422, ["query", "seed"])
    assert_problem(get(client, "1d6", seed=2**63), 422, ["query", "seed"])
    assert_problem(get(client, "1d6", seed="abc"), 422, ["query", "seed"])


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, ["body", "expr"]),
        ({"expr": 6}, ["body", "expr"]),
        ({"expr": ""}, ["body", "expr"]),
        ({"expr": "1d6", "seed": -1}, ["body", "seed"]),
        ({"expr": "1d6", "seed": 2**63}, ["body", "seed"]),
        ({"expr": "1d6", "dice": [3]}, ["body", "dice"]),
        ([], ["body"]),
    ],
)
def test_body_validation_errors(client: TestClient, body: Any, loc: list[str | int]) -> None:
    assert_problem(client.post("/v1/roll", json=body), 422, loc)


def test_malformed_json_is_400(client: TestClient) -> None:
    response = client.post(
        "/v1/roll", content=b'{"expr": "1d6"', headers={"content-type": "application/json"}
    )
    assert_problem(response, 400)


@pytest.mark.parametrize(
    ("expr", "evaluated"),
    [
        # refused on the text or the parsed tree, before evaluation: no work at all
        ("1d6".ljust(1001), False),
        ("1001d6", False),
        ("600d6+401d6", False),
        ("(500d6, 501d6)kh1", False),
        ("1d100001", False),
        ("(" * 51 + "1" + ")" * 51, False),
        ("(" * 450 + "1" + ")" * 450, False),
        # refused while rolling, by the dice limit or the work guard
        ("1d1e1", True),
        ("1000d2e2", True),
        ("1d1rr1", True),
        ("1d100000" + "e>1" * 300, True),
        ("1000d6" + "kh999pl1" * 120, True),
        ("9" * 30, True),  # no dice; the total is beyond 2**53 - 1
    ],
)
def test_limits_are_422_fast(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, expr: str, evaluated: bool
) -> None:
    # "Fast" as work done, not time: each request stays within docs/rules.md#limits and
    # app.notation's guards (MAX_DICE dice drawn, MAX_WORK dice looked at by d20's passes).
    meter = WorkMeter(monkeypatch)
    meter.count_draws(notation_api)
    requests: list[tuple[Callable[[], Response], list[str | int]]] = [
        (lambda: get(client, expr), ["query", "expr"]),
        (lambda: client.post("/v1/roll", json={"expr": expr}), ["body", "expr"]),
    ]
    for send, loc in requests:
        meter.reset()
        assert_problem(send(), 422, loc)
        assert meter.drawn <= MAX_DICE
        assert meter.looked_at <= MAX_WORK
        if evaluated:
            assert meter.steps > 0
        else:
            assert (meter.steps, meter.drawn, meter.looked_at) == (0, 0, 0)


def test_the_largest_expressions_within_limits_roll(client: TestClient) -> None:
    for expr in (
        "1000d100000",
        "+".join(["1d4"] * 250),
        "+".join(["1"] * 500),
        "-" * 999 + "1",
        "(" * 50 + "1d6+" * 70 + "1" + ")" * 50,
        "(1<1+1*-" * MAX_PARENTHESES + "1" + ")" * MAX_PARENTHESES,
        "1000d6kh500",
    ):
        response = client.post("/v1/roll", json={"expr": expr, "seed": 1})
        assert response.status_code == 200, (expr[:40], response.text[:200])


# --- property: never a server error ------------------------------------------------------------

NOTATION_PIECES = st.sampled_from(
    [
        "1", "3", "6", "0", "20", "d", "d%", "kh", "kl", "ph", "pl", "rr", "ro", "ra", "e", "mi",
        "ma", "h", "l", "<", ">", "+", "-", "*", "/", "//", "%", "(", ")", ",", " ", "[x]", ".5",
        "4d6kh3", "1d1e1", "1000",
    ]
)  # fmt: skip
EXPRESSIONS = st.one_of(st.text(max_size=40), st.lists(NOTATION_PIECES, max_size=20).map("".join))


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(expr=EXPRESSIONS, seed=st.integers(0, 2**63 - 1), use_get=st.booleans())
def test_any_expression_is_200_or_422(
    client: TestClient, expr: str, seed: int, use_get: bool
) -> None:
    if use_get:
        response = client.get("/v1/roll", params={"expr": expr, "seed": seed})
    else:
        response = client.post("/v1/roll", json={"expr": expr, "seed": seed})
    assert response.status_code in (200, 422), response.text
    if response.status_code == 200:
        body = response.json()
        assert body.keys() == RESULT_FIELDS
        assert body["expr"] == expr
        # The summary is the breakdown made safe to post (`<` and `@` cannot start a mention).
        assert body["summary"] == plain(body["breakdown"])
    else:
        assert_problem(response, 422)
