"""The guarantees every kind of session shares, checked on every registered kind.

A kind added to `KINDS` is covered here without editing this file: its create example makes
a session, its round example (if it has plain rounds) plays one, and the lifecycle's answers
(checked against their documented types by the conformance wrapper) hold for it too.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.kinds import ContestKind, purposes
from app.api.registry import KINDS

PROBLEM = "application/problem+json"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: TestClient, kind: ContestKind[Any, Any, Any]) -> tuple[str, dict[str, Any]]:
    created = client.post(f"/v1/{kind.path}", json=dict(kind.examples.create))
    assert created.status_code == 201, created.text
    assert created.headers["etag"] == '"1"'
    body: dict[str, Any] = created.json()
    assert created.headers["location"] == f"/v1/{kind.path}/{body['id']}"
    return created.headers["location"], body


@pytest.fixture(params=sorted(KINDS))
def kind(request: pytest.FixtureRequest) -> ContestKind[Any, Any, Any]:
    return KINDS[request.param]


def test_every_kind_names_its_dice_purposes(kind: ContestKind[Any, Any, Any]) -> None:
    assert purposes(kind) == frozenset(kind.dice_model.model_fields)
    assert purposes(kind)


def test_the_lifecycle_of_every_kind(
    store_client: TestClient, kind: ContestKind[Any, Any, Any]
) -> None:
    path, body = create(store_client, kind)
    assert (body["kind"], body["version"], body["round"]) == (kind.path, 1, 0)
    gm = bearer(body["tokens"]["gm"])
    for party, token in body["tokens"].get("parties", {}).items():
        seen = store_client.get(path, headers=bearer(token))
        assert seen.status_code == 200, party
    got = store_client.get(path, headers=gm)
    assert (got.status_code, got.headers["etag"]) == (200, '"1"')
    assert got.json()["id"] == body["id"]
    if kind.round_model is not None and kind.examples.round is not None:
        played = store_client.post(path + "/rounds", json=dict(kind.examples.round), headers=gm)
        assert played.status_code == 200, played.text
        answer = played.json()
        assert answer["round"]["number"] == 1
        assert answer["session"]["version"] == 2
        assert played.headers["etag"] == '"2"'
        listed = store_client.get(path + "/rounds", headers=gm)
        assert [entry["number"] for entry in listed.json()["rounds"]] == [1]
        assert listed.json()["rounds"][0] == answer["round"]
    else:
        assert store_client.get(path + "/rounds", headers=gm).json() == {"rounds": []}
    # No token: 401; a token of no role here: 404; a stale If-Match: 412.
    assert store_client.get(path).status_code == 401
    assert store_client.get(path, headers=bearer("not-a-token")).status_code == 404
    stale = store_client.delete(path, headers={**gm, "If-Match": '"99"'})
    assert (stale.status_code, stale.headers["content-type"]) == (412, PROBLEM)
    # A keyed delete, replayed, answers 204 again; afterwards the session is gone.
    keyed = {**gm, "Idempotency-Key": "delete-once"}
    assert store_client.delete(path, headers=keyed).status_code == 204
    again = store_client.delete(path, headers=keyed)
    assert (again.status_code, again.headers["idempotent-replayed"]) == (204, "true")
    assert store_client.get(path, headers=gm).status_code == 404


def test_a_creation_replay_to_a_stranger_holds_no_token(
    store_client: TestClient, kind: ContestKind[Any, Any, Any]
) -> None:
    keyed = {"Idempotency-Key": f"public-{kind.path}"}
    first = store_client.post(f"/v1/{kind.path}", json=dict(kind.examples.create), headers=keyed)
    again = store_client.post(f"/v1/{kind.path}", json=dict(kind.examples.create), headers=keyed)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]
    assert "tokens" not in again.json()
    assert first.json()["tokens"]["gm"] not in again.text


def test_openapi_documents_every_kinds_lifecycle(
    client: TestClient, kind: ContestKind[Any, Any, Any]
) -> None:
    document = client.get("/openapi.json").json()
    prefix = "".join(word.capitalize() for word in kind.title.split())
    operations = {
        operation["operationId"]: operation
        for item in document["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    created = operations[f"create{prefix}"]["responses"]["201"]["content"]["application/json"]
    assert created["schema"] == {"$ref": f"#/components/schemas/{prefix}Created"}
    got = operations[f"get{prefix}"]["responses"]["200"]["content"]["application/json"]
    assert got["schema"] == {"$ref": f"#/components/schemas/{prefix}Session"}
    session = document["components"]["schemas"][f"{prefix}Session"]
    assert session["additionalProperties"] is False
    assert session["properties"]["config"] != {}
