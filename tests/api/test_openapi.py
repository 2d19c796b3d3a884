"""What /openapi.json promises a generated client: readable names and a type for every answer."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def test_every_operation_has_a_readable_unique_id(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    assert len(ids) == len(set(ids)) == 66
    assert all(re.fullmatch(r"[a-z][A-Za-z0-9]*", operation_id) for operation_id in ids), ids
    assert {"createArmWrestle", "playArmWrestleRound", "rollGurpsSuccess", "endChase"} <= set(ids)
    assert {"oddsChaseChoices", "oddsSkillGameChoices"} <= set(ids)


def test_every_json_answer_has_a_named_schema(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    for method, path, operation in operations(document):
        for status, response in operation["responses"].items():
            if not status.startswith("2") or "application/json" not in response.get("content", {}):
                continue
            schema = response["content"]["application/json"]["schema"]
            assert schema.get("$ref", "").startswith("#/components/schemas/") or schema.get(
                "anyOf"
            ), (method, path, status, schema)


def test_schema_names_are_the_models_own(client: TestClient) -> None:
    """Two models of one name get module-qualified or parametrised names: none here."""
    names = client.get("/openapi.json").json()["components"]["schemas"]
    assert not [name for name in names if "__" in name or re.search(r"_[A-Z]", name)]
    assert "CompetitorResult" not in names
