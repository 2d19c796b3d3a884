"""Who calls is known before what was sent is checked, and what carries a token or a sealed
choice is cached nowhere (issue 43), on SQLite and PostgreSQL (`store_client`).

Every session operation of `/openapi.json` (a path with `{session_id}`) is called as an
attacker would: no token, or a malformed one, with a query out of bounds and a malformed body
(401, never the 422 that would answer an honest caller), and with a body over the limit (413
first, whoever sends it). Answers carrying tokens, a session or a sealed choice say
`Cache-Control: no-store`; every answer says `X-Content-Type-Options: nosniff`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.kinds.registry import KINDS
from tests.api.test_skill_games_api import bidding_body, winning_dice
from tests.helpers import Session, assert_problem, bearer

ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
#: Every query parameter a session operation takes, each out of its bounds or of its type.
BAD_QUERY = {
    "after": "-1",
    "limit": "-1",
    "seed": "-1",
    "trials": "0",
    "tactic_policy": "never-heard-of",
}
SESSION_ID = "{session_id}"


def session_operations(client: TestClient) -> list[tuple[str, str, bool]]:
    """(method, path template, takes a body) of every session operation the app documents."""
    document = client.get("/openapi.json").json()
    found = []
    for path, item in document["paths"].items():
        if SESSION_ID not in path:
            continue
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                found.append((method.upper(), path, "requestBody" in operation))
    return found


def sessions_by_kind(client: TestClient) -> dict[str, str]:
    """A session id of each kind whose operations are called (its kind's path to its id)."""
    bodies: dict[str, Any] = {path: kind.examples.create for path, kind in KINDS.items()}
    bodies.update({"arm-wrestles": ARM_WRESTLE, "skill-games": bidding_body()})
    return {path: Session(client, path, body).id for path, body in bodies.items()}


def url_of(path: str, ids: dict[str, str]) -> str:
    kind = path.split("/")[2]
    return path.replace(SESSION_ID, ids[kind]).replace("{", "").replace("}", "")


@pytest.fixture
def operations(store_client: TestClient) -> tuple[list[tuple[str, str, bool]], Any]:
    return session_operations(store_client), sessions_by_kind(store_client)


def test_no_token_is_401_before_any_query_or_body_error(
    store_client: TestClient, operations: tuple[list[tuple[str, str, bool]], Any]
) -> None:
    listed, ids = operations
    assert len(listed) > 40, listed  # every kind's lifecycle, seeds, proof, own routes
    for method, path, takes_body in listed:
        url = url_of(path, ids)
        for auth in ({}, {"Authorization": "Basic x"}, {"Authorization": "Bearer "}):
            answer = store_client.request(
                method,
                url,
                params=BAD_QUERY,
                content=b'{"not json' if takes_body else None,
                headers={"Content-Type": "application/json", **auth},
            )
            assert_problem(answer, 401)
            assert answer.headers["www-authenticate"].startswith("Bearer"), (method, path)


def test_a_strangers_token_is_404_before_any_query_or_body_error(
    store_client: TestClient, operations: tuple[list[tuple[str, str, bool]], Any]
) -> None:
    """A token of another session, or of none: 404 as for an unknown id, whatever the query
    and the body, so a stranger learns nothing from what it sent."""
    listed, ids = operations
    other = Session(store_client, "arm-wrestles", ARM_WRESTLE).gm
    for method, path, takes_body in listed:
        for token in (other, "no-such-token"):
            answer = store_client.request(
                method,
                url_of(path, ids),
                params=BAD_QUERY,
                content=b'{"not json' if takes_body else None,
                headers={"Content-Type": "application/json", **bearer(token)},
            )
            assert_problem(answer, 404)


def test_a_body_over_the_limit_is_413_whoever_sends_it(
    store_client: TestClient, operations: tuple[list[tuple[str, str, bool]], Any]
) -> None:
    """Sent chunked (no Content-Length to refuse at once), the body is counted as it is read,
    before the token is looked at."""
    listed, ids = operations
    limit = store_client.app.state.settings.max_body_bytes  # type: ignore[attr-defined]
    for method, path, takes_body in listed:
        if not takes_body:
            continue
        for auth in ({}, bearer("a stranger's")):

            def chunks() -> Iterator[bytes]:
                yield b'{"seed": "'
                yield b"x" * (limit + 1)
                yield b'"}'

            answer = store_client.request(method, url_of(path, ids), content=chunks(), headers=auth)
            assert_problem(answer, 413)


def test_an_honest_callers_bad_query_is_still_its_422(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    answer = made.get("rounds", headers={}, token=made.gm)
    assert answer.status_code == 200
    refused = store_client.get(f"{made.url}/rounds?limit=-1", headers=made.headers)
    assert_problem(refused, 422, ["query", "limit"])
    assert_problem(store_client.get(f"{made.url}/rounds?limit=-1"), 401)


# --- headers -----------------------------------------------------------------------------------


def assert_no_store(answer: Any) -> None:
    assert answer.headers.get("cache-control") == "no-store", (
        answer.request.url,
        answer.status_code,
        dict(answer.headers),
    )
    assert answer.headers.get("x-content-type-options") == "nosniff"


def test_a_creation_carrying_tokens_is_stored_by_no_cache(store_client: TestClient) -> None:
    for headers in ({}, bearer("my own secret", **{"Idempotency-Key": "make-1"})):
        for _ in range(2):  # and its replay
            created = store_client.post("/v1/arm-wrestles", json=ARM_WRESTLE, headers=headers)
            assert created.status_code == 201
            assert "tokens" in created.json()
            assert_no_store(created)


def test_every_answer_to_a_token_is_stored_by_no_cache(store_client: TestClient) -> None:
    """The session, its rounds, a round, its proof, a party's sealed choice, an error."""
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"})
    assert_no_store(made.get())
    assert_no_store(made.get("rounds"))
    assert_no_store(made.get("proof"))
    assert_no_store(made.post("rounds", {}))
    assert_no_store(made.get(headers={"Accept": "text/plain"}))
    assert_no_store(made.get(token="a stranger's"))
    game = Session(store_client, "skill-games", bidding_body())
    # Dice that earn the Heroes a token, so that their bid of 1 is theirs to make.
    earned = winning_dice("Heroes", ["Athletics", "Stealth"], 1)
    skills = game.post(
        "skills",
        {"party": "Heroes", "skills": ["Athletics", "Stealth"], "rolls": earned},
        who="Heroes",
    )
    assert_no_store(skills)
    villains = game.post("skills", {"party": "Villains", "skills": ["Athletics", "Stealth"]})
    assert villains.status_code == 200, villains.text
    sealed = game.post("choices", {"party": "Heroes", "action": "Charge", "bid": 1}, who="Heroes")
    assert sealed.status_code in (200, 202), sealed.text
    assert_no_store(sealed)


def test_every_answer_says_nosniff(store_client: TestClient) -> None:
    answers = [
        store_client.get("/healthz"),
        store_client.get("/no/such/path"),
        store_client.post("/v1/gurps/quick-contest", content=b"{"),
        store_client.post(
            "/v1/gurps/quick-contest",
            json={"a": {"name": "A", "skill": 12}, "b": {"name": "B", "skill": 10}},
        ),
        store_client.get("/v1/arm-wrestles/nothing-here"),
        store_client.get("/openapi.json"),
        store_client.get("/docs"),
        store_client.get("/table"),
    ]
    for answer in answers:
        assert answer.headers.get("x-content-type-options") == "nosniff", answer.request.url
    # An answer to nobody's token is no secret: caching it is the caller's own business.
    assert "cache-control" not in answers[3].headers


def test_a_cors_preflight_says_nosniff_too(database_url: str) -> None:
    """Answered by the CORS middleware, outside the edge that adds the header to the rest."""
    from app.main import create_app
    from app.settings import Settings

    settings = Settings(database_url=database_url, cors_origins="https://table.example")
    with TestClient(create_app(settings)) as client:
        for origin in ("https://table.example", "https://elsewhere.example"):
            preflight = client.options(
                "/v1/arm-wrestles",
                headers={
                    "Origin": origin,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "authorization",
                },
            )
            assert preflight.status_code in (200, 400)
            assert preflight.headers["x-content-type-options"] == "nosniff"
