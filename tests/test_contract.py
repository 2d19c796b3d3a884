"""The contract `/openapi.json` declares: problem+json errors, the bearer scheme, the headers."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.contract import declare_contract
from app.main import create_app
from app.settings import Settings

PROBLEM = {"$ref": "#/components/schemas/Problem"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    app = create_app(Settings(database_url="sqlite://"))
    declare_contract(app)
    declare_contract(app)  # a second call changes nothing
    with TestClient(app) as client:
        served: dict[str, Any] = client.get("/openapi.json").json()
    return served


def operation(document: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    found: dict[str, Any] = document["paths"][path][method]
    return found


def statuses(document: dict[str, Any], method: str, path: str) -> set[str]:
    return set(operation(document, method, path)["responses"])


def header_parameters(document: dict[str, Any], method: str, path: str) -> list[str]:
    return [
        parameter["name"]
        for parameter in operation(document, method, path).get("parameters", [])
        if parameter["in"] == "header"
    ]


def test_fastapis_validation_error_is_gone(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert "HTTPValidationError" not in schemas
    assert "ValidationError" not in schemas
    assert "HTTPValidationError" not in str(document)
    assert schemas["Problem"]["required"] == ["type", "title", "status", "detail"]
    assert schemas["ProblemError"]["required"] == ["loc", "msg"]


def test_every_error_is_problem_json(document: dict[str, Any]) -> None:
    errors = 0
    for item in document["paths"].values():
        for op in item.values():
            for status, response in op["responses"].items():
                assert response["headers"]["X-Request-ID"] == {
                    "$ref": "#/components/headers/X-Request-ID"
                }
                if status.startswith("2"):
                    continue
                errors += 1
                assert response["content"] == {"application/problem+json": {"schema": PROBLEM}}
                if status in ("429", "503"):
                    assert "Retry-After" in response["headers"]
    assert errors > 250


def test_statuses_follow_the_place_of_each_operation(document: dict[str, Any]) -> None:
    assert statuses(document, "get", "/healthz") == {"200"}
    assert statuses(document, "get", "/readyz") == {"200", "503"}
    assert statuses(document, "post", "/v1/gurps/quick-contest") == {
        "200",
        "400",
        "413",
        "415",
        "422",
        "429",
    }
    assert statuses(document, "get", "/v1/roll") == {"200", "422", "429"}
    # An odds question may find the odds worker's queue full, or pass its deadline.
    assert statuses(document, "post", "/v1/odds/cairn") == {
        "200",
        "400",
        "413",
        "415",
        "422",
        "429",
        "503",
    }
    assert "503" in statuses(document, "get", "/v1/arm-wrestles/{session_id}/odds")
    assert statuses(document, "post", "/v1/arm-wrestles") == {
        "201",
        "400",
        "401",
        "409",
        "413",
        "415",
        "422",
        "429",
        "503",
    }
    assert statuses(document, "get", "/v1/arm-wrestles/{session_id}") == {
        "200",
        "401",
        "404",
        "429",
        "503",
    }
    assert statuses(document, "get", "/v1/arm-wrestles/{session_id}/rounds") == {
        "200",
        "401",
        "404",
        "422",
        "429",
        "503",
    }
    assert statuses(document, "post", "/v1/arm-wrestles/{session_id}/rounds") == {
        "200",
        "202",
        "400",
        "401",
        "403",
        "404",
        "409",
        "412",
        "413",
        "415",
        "422",
        "429",
        "503",
    }
    assert statuses(document, "delete", "/v1/arm-wrestles/{session_id}") == {
        "204",
        "401",
        "403",
        "404",
        "409",
        "412",
        "413",
        "422",
        "429",
        "503",
    }
    assert "428" not in str(
        [list(op["responses"]) for item in document["paths"].values() for op in item.values()]
    )


def test_security_and_request_headers(document: dict[str, Any]) -> None:
    assert document["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "A session's token: the GM's, or a party's (shown once, at creation).",
    }
    get = operation(document, "get", "/v1/skill-games/{session_id}")
    assert get["security"] == [{"bearer": []}]
    assert header_parameters(document, "get", "/v1/skill-games/{session_id}") == ["X-Request-ID"]
    assert header_parameters(document, "post", "/v1/skill-games/{session_id}/choices") == [
        "If-Match",
        "Idempotency-Key",
        "X-Request-ID",
    ]
    create = operation(document, "post", "/v1/skill-games")
    assert create["security"] == [{}, {"bearer": []}]
    assert header_parameters(document, "post", "/v1/skill-games") == [
        "Idempotency-Key",
        "X-Request-ID",
    ]
    assert "security" not in operation(document, "post", "/v1/d20/check")
    key = next(p for p in create["parameters"] if p["name"] == "Idempotency-Key")
    assert key["schema"] == {"type": "string", "minLength": 1, "maxLength": 255}


def test_answer_headers(document: dict[str, Any]) -> None:
    created = operation(document, "post", "/v1/races")["responses"]["201"]["headers"]
    assert set(created) == {"X-Request-ID", "Idempotent-Replayed", "Location", "ETag"}
    played = operation(document, "post", "/v1/races/{session_id}/rounds")["responses"]["200"]
    assert set(played["headers"]) == {"X-Request-ID", "Idempotent-Replayed", "ETag"}
    listed = operation(document, "get", "/v1/races/{session_id}/rounds")["responses"]["200"]
    assert set(listed["headers"]) == {"X-Request-ID", "ETag", "Link"}
    deleted = operation(document, "delete", "/v1/races/{session_id}")["responses"]["204"]
    assert set(deleted["headers"]) == {"X-Request-ID", "Idempotent-Replayed"}
    unauthorized = operation(document, "get", "/v1/races/{session_id}")["responses"]["401"]
    assert set(unauthorized["headers"]) == {"X-Request-ID", "WWW-Authenticate"}
    assert document["components"]["headers"]["Location"]["required"] is True


def _integer_schemas(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if node.get("type") == "integer":
            found.append(node)
        for value in node.values():
            found.extend(_integer_schemas(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_integer_schemas(value))
    return found


def test_integer_bounds_are_integers(document: dict[str, Any]) -> None:
    """A generator reads a float bound as a number it may send: `< 2**63` is written exactly."""
    bounds = [
        (keyword, schema[keyword])
        for schema in _integer_schemas(document)
        for keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
        if keyword in schema
    ]
    assert bounds
    assert [bound for bound in bounds if not isinstance(bound[1], int)] == []
    assert ("exclusiveMaximum", 2**63) in bounds  # every seed's


def test_a_body_not_sent_as_json_is_415(document: dict[str, Any]) -> None:
    """A body with another content type (or none) is refused, whatever it holds."""
    app = create_app(Settings(database_url="sqlite:///:memory:"))
    with TestClient(app) as client:
        for headers in ({"content-type": "text/plain"}, {}, {"content-type": "application/xml"}):
            answer = client.post(
                "/v1/gurps/success-roll", content=b'{"skill": 12}', headers=headers
            )
            assert answer.status_code == 415, headers
            assert answer.headers["content-type"] == "application/problem+json"
        for kind in ("application/json", "application/json; charset=utf-8", "application/x+json"):
            answer = client.post(
                "/v1/gurps/success-roll", content=b'{"skill": 12}', headers={"content-type": kind}
            )
            assert answer.status_code == 200, kind
    assert "415" in statuses(document, "post", "/v1/gurps/success-roll")


def test_a_request_field_with_a_default_is_optional_without_a_default_keyword(
    document: dict[str, Any],
) -> None:
    """openapi-typescript types a property with `default` as always present: in the schemas
    of requests the default is said in the description, and the field stays optional."""
    wrestler = document["components"]["schemas"]["ArmWrestler"]
    endurance = wrestler["properties"]["endurance"]
    assert "default" not in endurance
    assert endurance["description"].endswith("Default: false.")
    assert "endurance" not in wrestler["required"]
    # An answer's schema keeps its keywords as they are.
    session = document["components"]["schemas"]["ArmWrestleSession"]["properties"]
    assert session["created_at"]["format"] == "date-time"
    assert session["start_rolls"]["items"] == {"$ref": "#/components/schemas/RollRecord"}
