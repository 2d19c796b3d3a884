"""The indexed router finds the route FastAPI's full scan would find: the same answer for every
method and path, over routes of several included routers whose paths overlap, and a 405
whose `Allow` names every method of the path."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.testclient import TestClient
from starlette.responses import PlainTextResponse

from app.api.routing import IndexedRouter, index_routes, prefix_of
from app.errors import install_error_handlers

#: (router prefix, path, methods), in the order they are included.
ROUTES = [
    ("/v1/things", "", ["POST"]),
    ("/v1/things", "/{thing_id}", ["GET", "DELETE"]),
    ("/v1/things", "/{thing_id}/rounds", ["POST"]),
    ("/v1/things", "/special/rounds", ["POST"]),  # after the parametrised one: never chosen
    ("/v1/other", "/x", ["GET"]),
    ("/v1/things", "/special/{part}", ["GET"]),
    ("/v1/things", "/{thing_id}/rounds", ["GET"]),
    ("/v1/files", "/{rest:path}", ["GET"]),
    ("/v1/files", "/top", ["GET"]),
    ("", "/{anything}/deep/{more}", ["PUT"]),  # a parameter in the first two segments
    ("", "/healthz", ["GET"]),
]
PATHS = [
    "/v1/things",
    "/v1/things/",
    "/v1/things/abc",
    "/v1/things/abc/rounds",
    "/v1/things/special/rounds",
    "/v1/things/special/odds",
    "/v1/things/abc/odds",
    "/v1/things/a/b/c",
    "/v1/files/top",
    "/v1/files/a/b/c",
    "/v1/other",
    "/v1/other/x",
    "/v1/other/x/",
    "/v1/deep/x",
    "/v1/deep/deep/x",
    "/v2/things",
    "/healthz",
    "/healthz/",
    "/",
]
METHODS = ("GET", "POST", "DELETE", "PUT")


def build(indexed: bool) -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)
    if indexed:
        index_routes(app)
    for number, (prefix, path, methods) in enumerate(ROUTES):
        router = APIRouter(prefix=prefix)

        async def endpoint(number: int = number) -> PlainTextResponse:
            return PlainTextResponse(f"route {number}")

        router.add_api_route(path, endpoint, methods=methods, name=f"route{number}")
        app.include_router(router)
    return app


@pytest.fixture(scope="module")
def clients() -> Iterator[tuple[TestClient, TestClient]]:
    with (
        TestClient(build(True), follow_redirects=False) as indexed,
        TestClient(build(False), follow_redirects=False) as scanned,
    ):
        yield indexed, scanned


def test_the_index_chooses_as_the_full_scan_does(
    clients: tuple[TestClient, TestClient],
) -> None:
    indexed, scanned = clients
    assert isinstance(indexed.app.router, IndexedRouter)  # type: ignore[attr-defined]
    compared = 0
    for path in PATHS:
        for method in METHODS:
            for _ in range(2):  # the second time through the index already built
                got = indexed.request(method, path)
                expected = scanned.request(method, path)
                assert got.status_code == expected.status_code, (method, path)
                if got.status_code != 405:
                    assert got.text == expected.text, (method, path)
                    assert got.headers.get("location") == expected.headers.get("location")
                compared += 1
    assert compared == len(PATHS) * len(METHODS) * 2


def test_a_405_names_every_method_of_its_path(clients: tuple[TestClient, TestClient]) -> None:
    indexed, _ = clients
    answer = indexed.put("/v1/things/abc/rounds")
    assert answer.status_code == 405
    # The methods of both routes of the path (Starlette's own 405 would name one route's).
    assert answer.headers["allow"] == "GET, POST"
    assert answer.json()["detail"] == "PUT is not served at this path; it serves GET, POST"
    assert indexed.post("/v1/things/abc").headers["allow"] == "DELETE, GET"


def test_every_route_is_listed_once_and_named(clients: tuple[TestClient, TestClient]) -> None:
    indexed, _ = clients
    app: FastAPI = indexed.app  # type: ignore[assignment]
    assert app.url_path_for("route2", thing_id="abc") == "/v1/things/abc/rounds"
    assert app.url_path_for("route7", rest="a/b") == "/v1/files/a/b"
    # One entry per included router: the routes are not copied beside them.
    assert len(app.router.routes) == len(ROUTES) + 4  # and /openapi.json, /docs, /redoc, ...


def test_the_prefix_is_the_first_two_segments() -> None:
    assert prefix_of("/v1/arm-wrestles/x/rounds") == "/v1/arm-wrestles"
    assert prefix_of("/v1/arm-wrestles") == "/v1/arm-wrestles"
    assert prefix_of("/healthz") == "/healthz"
    assert prefix_of("/") == "/"
