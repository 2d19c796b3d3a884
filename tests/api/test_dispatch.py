"""PrefixDispatch finds the route Starlette's scan would find: the first in order that matches
in full, a 405 with every method of the path when only the method differs."""

from __future__ import annotations

from starlette.responses import PlainTextResponse
from starlette.routing import Match, Route
from starlette.types import Scope

from app.api.routing import SELECTED, PrefixDispatch


def _route(path: str, methods: list[str]) -> Route:
    async def endpoint(_: object) -> PlainTextResponse:
        return PlainTextResponse(path)

    return Route(path, endpoint, methods=methods)


ROUTES = [
    _route("/v1/things", ["POST"]),
    _route("/v1/things/{thing_id}", ["GET", "DELETE"]),
    _route("/v1/things/{thing_id}/rounds", ["POST"]),
    _route("/v1/things/special/rounds", ["POST"]),  # after the parametrised one: never chosen
    _route("/v1/things/special/{part}", ["GET"]),
    _route("/v1/things/{thing_id}/rounds", ["GET"]),
    _route("/v1/files/{rest:path}", ["GET"]),
    _route("/v1/files/top", ["GET"]),
]


def _scope(method: str, path: str) -> Scope:
    return {"type": "http", "method": method, "path": path, "root_path": ""}


def _scan(scope: Scope) -> tuple[Match, Route | None]:
    """Starlette's own answer: the first full match in order, else the first partial."""
    partial: Route | None = None
    for route in ROUTES:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return match, route
        if match is Match.PARTIAL and partial is None:
            partial = route
    return (Match.PARTIAL, partial) if partial else (Match.NONE, None)


def test_dispatch_chooses_as_the_scan_does() -> None:
    dispatch = PrefixDispatch(ROUTES)
    paths = [
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
        "/v2/things",
    ]
    for path in paths:
        for method in ("GET", "POST", "DELETE", "PUT"):
            scope = _scope(method, path)
            for _ in range(2):  # the second time through the memory of static paths
                match, child = dispatch.matches(scope)
                expected, route = _scan(scope)
                assert match is expected, (method, path)
                assert child.get(SELECTED) is route, (method, path)
    rounds = dispatch.matches(_scope("PUT", "/v1/things/abc/rounds"))[1]
    assert rounds["arbiter.allowed"] == "GET, HEAD, POST"  # Starlette serves HEAD with GET
