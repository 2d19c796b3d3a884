"""Browser access: CORS from `ARBITER_CORS_ORIGINS` (off by default), and 405 with `Allow`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from app.cors import ALLOW_HEADERS, EXPOSE_HEADERS, parse_origins
from app.main import create_app
from app.settings import Settings
from app.store.database import upgrade_to_head
from tests.conformance import Conforming

ORIGIN = "http://vtt.localhost:30000"
ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}


def header_set(value: str | None) -> set[str]:
    return {item.strip().lower() for item in (value or "").split(",") if item.strip()}


class MakeClient(Protocol):
    def __call__(self, **settings: Any) -> TestClient: ...


@pytest.fixture
def make_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MakeClient]:
    """`make_client(**settings)`: a client of an app on a fresh SQLite file, closed after."""
    monkeypatch.delenv("ARBITER_CORS_ORIGINS", raising=False)
    opened: list[TestClient] = []

    def make(**settings: Any) -> TestClient:
        database_url = f"sqlite:///{tmp_path / f'cors-{len(opened)}.db'}"
        upgrade_to_head(database_url)
        settings = {"database_url": database_url, "log_requests": False, **settings}
        client = TestClient(Conforming(create_app(Settings(**settings))))
        client.__enter__()
        opened.append(client)
        return client

    yield make
    for client in opened:
        client.__exit__(None, None, None)


def preflight(client: TestClient, path: str, method: str, origin: str = ORIGIN) -> httpx.Response:
    """What a browser asks before sending `method` with the protocol's headers."""
    answer: httpx.Response = client.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": "authorization, content-type, if-match, "
            "idempotency-key, x-request-id, x-client-key",
        },
    )
    return answer


def test_cors_is_off_by_default(make_client: MakeClient) -> None:
    assert Settings().cors_origins is None
    client = make_client()
    created = client.post("/v1/arm-wrestles", json=ARM_WRESTLE, headers={"Origin": ORIGIN})
    assert created.status_code == 201
    assert "access-control-allow-origin" not in created.headers
    # Without CORS a preflight is an OPTIONS like any other: not served, and said so.
    answer = preflight(client, "/v1/arm-wrestles", "POST")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"
    assert "access-control-allow-origin" not in answer.headers


def test_the_setting_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITER_CORS_ORIGINS", f"{ORIGIN}, https://owlbear.example")
    assert Settings().cors_origins == f"{ORIGIN}, https://owlbear.example"


def test_a_preflight_from_an_allowed_origin_is_answered(make_client: MakeClient) -> None:
    client = make_client(cors_origins=f"https://other.example,{ORIGIN}")
    answer = preflight(client, "/v1/arm-wrestles/some-id/rounds", "POST")
    assert answer.status_code == 200
    headers = answer.headers
    assert headers["access-control-allow-origin"] == ORIGIN
    allowed = header_set(headers["access-control-allow-methods"])
    assert allowed == {"get", "post", "patch", "delete", "options"}
    # Every method a route of the API takes, a browser may send.
    document = client.get("/openapi.json").json()
    assert {method for item in document["paths"].values() for method in item} <= allowed
    assert header_set(headers["access-control-allow-headers"]) >= {
        "authorization",
        "content-type",
        "if-match",
        "idempotency-key",
        "x-request-id",
        "x-client-key",
    }
    assert headers["access-control-max-age"] == "600"
    # Answers differ by origin: a cache must not hand one origin's answer to another.
    assert "origin" in header_set(headers["vary"])
    for method in ("GET", "DELETE"):
        assert preflight(client, "/v1/arm-wrestles/x", method).status_code == 200


def test_a_preflight_from_another_origin_or_for_another_method_is_refused(
    make_client: MakeClient,
) -> None:
    client = make_client(cors_origins=ORIGIN)
    stranger = preflight(client, "/v1/arm-wrestles", "POST", origin="https://evil.example")
    assert stranger.status_code == 400
    assert "access-control-allow-origin" not in stranger.headers
    assert preflight(client, "/v1/arm-wrestles", "PUT").status_code == 400


def test_answers_to_an_allowed_origin_expose_the_protocol_headers(
    make_client: MakeClient,
) -> None:
    client = make_client(cors_origins=ORIGIN)
    created = client.post(
        "/v1/arm-wrestles",
        json=ARM_WRESTLE,
        headers={"Origin": ORIGIN, "Idempotency-Key": "cors-create", "X-Request-ID": "cors-1"},
    )
    assert created.status_code == 201
    assert created.headers["access-control-allow-origin"] == ORIGIN
    assert header_set(created.headers["access-control-expose-headers"]) == {
        "etag",
        "location",
        "idempotent-replayed",
        "link",
        "retry-after",
        "x-request-id",
    }
    assert created.headers["etag"] == '"1"'
    assert created.headers["location"].endswith("/v1/arm-wrestles/" + created.json()["id"])
    assert created.headers["x-request-id"] == "cors-1"
    # An origin not listed gets the answer (CORS is the browser's rule) but no permission.
    other = client.post(
        "/v1/gurps/success-roll", json={"skill": 12}, headers={"Origin": "https://x.example"}
    )
    assert other.status_code == 200
    assert "access-control-allow-origin" not in other.headers


def test_any_origin_with_a_star(make_client: MakeClient) -> None:
    client = make_client(cors_origins="*")
    answer = preflight(client, "/v1/gurps/quick-contest", "POST", origin="https://anyone.example")
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == "*"
    rolled = client.post(
        "/v1/gurps/success-roll", json={"skill": 12}, headers={"Origin": "https://a.example"}
    )
    assert rolled.headers["access-control-allow-origin"] == "*"


def test_preflights_are_not_rate_limited_and_limited_answers_are_readable(
    make_client: MakeClient,
) -> None:
    client = make_client(cors_origins=ORIGIN, rate_limit_per_minute=1)
    for _ in range(3):
        assert preflight(client, "/v1/gurps/success-roll", "POST").status_code == 200
    first = client.post("/v1/gurps/success-roll", json={"skill": 12}, headers={"Origin": ORIGIN})
    assert first.status_code == 200
    limited = client.post("/v1/gurps/success-roll", json={"skill": 12}, headers={"Origin": ORIGIN})
    assert limited.status_code == 429
    # The browser script may read the 429 and when to come back.
    assert limited.headers["access-control-allow-origin"] == ORIGIN
    assert int(limited.headers["retry-after"]) >= 1


def test_preflights_are_not_counted_as_405(make_client: MakeClient) -> None:
    client = make_client(cors_origins=ORIGIN)
    labels = {"method": "OPTIONS", "route": "/v1/gurps/success-roll", "status": "405"}
    before = REGISTRY.get_sample_value("arbiter_http_requests_total", labels) or 0.0
    for _ in range(2):
        assert preflight(client, "/v1/gurps/success-roll", "POST").status_code == 200
    after = REGISTRY.get_sample_value("arbiter_http_requests_total", labels) or 0.0
    assert after == before


def test_the_edges_own_answers_carry_cors_too(make_client: MakeClient) -> None:
    client = make_client(cors_origins=ORIGIN, max_body_bytes=1024)
    too_large = client.post(
        "/v1/gurps/success-roll",
        content=b"{" + b" " * 2000 + b"}",
        headers={"Origin": ORIGIN, "Content-Type": "application/json"},
    )
    assert too_large.status_code == 413
    assert too_large.headers["access-control-allow-origin"] == ORIGIN


def test_origins_are_parsed_strictly() -> None:
    assert parse_origins(None) == []
    assert parse_origins(" , ") == []
    assert parse_origins("*") == ["*"]
    assert parse_origins("http://a.example, *") == ["*"]
    assert parse_origins("http://LocalHost:3000/, https://vtt.example:443,http://[::1]:8080") == [
        "http://localhost:3000",
        "https://vtt.example",
        "http://[::1]:8080",
    ]
    for wrong in ("localhost:3000", "http://a.example/path", "ftp://a.example", "http://a:70000"):
        with pytest.raises(ValueError, match="is not an origin"):
            parse_origins(wrong)


def test_a_wrong_origin_stops_the_app_at_startup(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'x.db'}", cors_origins="vtt.example")
    with pytest.raises(ValueError, match=r"'vtt\.example' is not an origin"):
        create_app(settings)


def test_the_allowed_and_exposed_headers_are_the_protocols() -> None:
    assert set(ALLOW_HEADERS) >= {
        "Authorization",
        "Content-Type",
        "If-Match",
        "Idempotency-Key",
        "X-Request-ID",
        "X-Client-Key",
    }
    assert set(EXPOSE_HEADERS) == {
        "ETag",
        "Location",
        "Idempotent-Replayed",
        "Link",
        "Retry-After",
        "X-Request-ID",
    }


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/v1/arm-wrestles", "POST"),
        ("PATCH", "/v1/arm-wrestles/some-id", "DELETE, GET"),
        ("PUT", "/v1/arm-wrestles/some-id/rounds", "GET, POST"),
        ("GET", "/v1/gurps/quick-contest", "POST"),
        ("DELETE", "/v1/roll", "GET, POST"),
        ("POST", "/openapi.json", "GET, HEAD"),
        ("POST", "/docs", "GET, HEAD"),
        ("DELETE", "/docs/static/swagger-ui-bundle.js", "GET, HEAD"),
    ],
)
def test_405_names_the_methods_the_path_serves(
    make_client: MakeClient, method: str, path: str, allow: str
) -> None:
    answer = make_client().request(method, path)
    assert answer.status_code == 405
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["status"] == 405
    assert header_set(answer.headers["allow"]) == header_set(allow)
