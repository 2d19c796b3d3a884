"""The lean lane (app/api/routing.py, `LeanLane`) answers every request exactly as FastAPI's
full stack does.

Two apps are built by `create_app()` with the same extra routes and exception handlers: one
with the lane (as served), one with `lean_lane = False` (Starlette's exception middleware,
FastAPI's exit stack, the router and the route). Every request below, answered or failing in
every way an exception handler can be reached (by class, by a class of its MRO, by status, a
synchronous or an asynchronous handler, a handler that answers nothing, none at all, before
and after the answer began), gets the same status, headers and body from both; and the lane is
taken for the lean routes only.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Body, FastAPI, HTTPException, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.testclient import TestClient
from pydantic import BaseModel
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.api.routing import LeanRoute
from app.errors import Conflict, NotFound
from app.main import create_app
from app.settings import Settings


class SyncHandled(Exception):
    """Answered by a synchronous handler (in the thread pool)."""


class AsyncHandled(Exception):
    """Answered by an asynchronous handler."""


class Inherited(AsyncHandled):
    """Answered by its base class's handler (the first of its MRO that has one)."""


class Unanswered(Exception):
    """Its handler answers nothing (returns None)."""


class Probe(BaseModel):
    value: int


class FailingResponse(Response):
    """A response that raises while it is sent: before its start, or after it."""

    def __init__(self, raised: Exception, after_start: bool) -> None:
        super().__init__(b"partial")
        self.raised = raised
        self.after_start = after_start

    async def __call__(self, _scope: Scope, _receive: Receive, send: Send) -> None:
        if self.after_start:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        raise self.raised


def raised(kind: str) -> Exception:
    return {
        "sync": SyncHandled("sync"),
        "async": AsyncHandled("async"),
        "inherited": Inherited("inherited"),
        "unanswered": Unanswered("nothing"),
        "teapot": HTTPException(status_code=418, detail="by status"),
        "conflict": HTTPException(status_code=409, detail="taken", headers={"X-Why": "held"}),
        "no-content": HTTPException(status_code=204),
        "api": Conflict("an API error"),
        "not-found": NotFound("no such thing"),
        "bug": ZeroDivisionError("a bug"),
    }[kind]


def lean_router() -> APIRouter:
    router = APIRouter(prefix="/lane", route_class=LeanRoute)

    async def fails(kind: str) -> dict[str, Any]:
        raise raised(kind)

    async def fails_sending(kind: str, when: str) -> Response:
        return FailingResponse(raised(kind), after_start=when == "after")

    async def answers(
        name: str,
        request: Request,
        body: Annotated[Probe, Body()],
        times: Annotated[int, Query(ge=1, le=3)] = 1,
    ) -> dict[str, Any]:
        return {
            "name": name,
            "value": body.value * times,
            "route": request.scope["route"].path,
        }

    async def where(request: Request) -> dict[str, bool]:
        return {"lane": "fastapi_middleware_astack" not in request.scope}

    async def plain() -> Response:
        return PlainTextResponse("plain", headers={"X-Lean": "yes"})

    router.add_api_route("/fail/{kind}", fails, methods=["GET"])
    router.add_api_route("/send/{kind}/{when}", fails_sending, methods=["GET"])
    router.add_api_route("/answer/{name}", answers, methods=["POST"])
    router.add_api_route("/plain", plain, methods=["GET"])
    router.add_api_route("/where", where, methods=["GET"])
    return router


def ordinary_router() -> APIRouter:
    router = APIRouter(prefix="/full")

    @router.get("/fail/{kind}")
    async def fails(kind: str) -> None:
        raise raised(kind)

    @router.get("/lane")
    async def lane(request: Request) -> dict[str, bool]:
        return {"lane": "fastapi_middleware_astack" not in request.scope}

    return router


def build(path: Path, lane: bool) -> FastAPI:
    app = create_app(Settings(database_url=f"sqlite:///{path}"))
    app.lean_lane = lane  # type: ignore[attr-defined]
    app.include_router(lean_router())
    app.include_router(ordinary_router())

    def on_sync(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"handled": "sync", "what": str(exc)}, status_code=418)

    async def on_async(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"handled": "async", "what": str(exc)}, status_code=409)

    async def on_teapot(_: Request, exc: Exception) -> PlainTextResponse:
        return PlainTextResponse(f"teapot handler: {exc!r}", status_code=418)

    async def on_unanswered(_: Request, __: Exception) -> None:
        return None

    app.add_exception_handler(SyncHandled, on_sync)
    app.add_exception_handler(AsyncHandled, on_async)
    app.add_exception_handler(418, on_teapot)
    app.add_exception_handler(Unanswered, on_unanswered)  # type: ignore[arg-type]
    return app


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, TestClient]]:
    directory = tmp_path_factory.mktemp("lane")
    lane = build(directory / "lane.db", lane=True)
    full = build(directory / "full.db", lane=False)
    with (
        TestClient(lane, raise_server_exceptions=False) as with_lane,
        TestClient(full, raise_server_exceptions=False) as without,
    ):
        yield with_lane, without


KINDS = [
    "sync",
    "async",
    "inherited",
    "unanswered",
    "teapot",
    "conflict",
    "no-content",
    "api",
    "not-found",
    "bug",
]
QUICK = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bo", "skill": 10}}
QUICK_DICE = {"rolls": {"Ann": {"success": [3, 4, 5]}, "Bo": {"success": [6, 6, 6]}}}

REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    *(("GET", f"/lane/fail/{kind}", {}) for kind in KINDS),
    *(("GET", f"/full/fail/{kind}", {}) for kind in KINDS),
    *(("GET", f"/lane/send/{kind}/before", {}) for kind in KINDS),
    *(("GET", f"/lane/send/{kind}/after", {}) for kind in KINDS),
    ("POST", "/lane/answer/x?times=2", {"json": {"value": 4}}),
    ("POST", "/lane/answer/x?times=9", {"json": {"value": 4}}),
    ("POST", "/lane/answer/x", {"json": {"value": "four"}}),
    (
        "POST",
        "/lane/answer/x",
        {"content": b"{not json", "headers": {"content-type": "application/json"}},
    ),
    ("POST", "/lane/answer/x", {"content": b"value=4", "headers": {"content-type": "text/plain"}}),
    ("PUT", "/lane/answer/x", {"json": {"value": 4}}),
    ("GET", "/lane/plain", {}),
    ("GET", "/lane/plain/", {}),
    ("GET", "/lane/nowhere", {}),
    ("POST", "/v1/gurps/quick-contest", {"json": {**QUICK, **QUICK_DICE}}),
    (
        "POST",
        "/v1/gurps/quick-contest",
        {"json": {**QUICK, **QUICK_DICE}, "headers": {"accept": "text/plain"}},
    ),
    ("POST", "/v1/gurps/quick-contest", {"json": {"a": {"name": "Ann"}}}),
    ("GET", "/v1/gurps/quick-contest", {}),
    ("POST", "/v1/arm-wrestles", {"json": {}}),
    ("GET", "/v1/arm-wrestles/no-such-session", {}),
    ("GET", "/healthz", {}),
]

#: Headers that differ between any two answers (the request's id, the time).
VARYING = {"x-request-id", "date"}


def answer(client: TestClient, method: str, path: str, options: dict[str, Any]) -> Any:
    response = client.request(
        method,
        path,
        headers={"x-request-id": "lane-test", **options.get("headers", {})},
        **{k: v for k, v in options.items() if k != "headers"},
    )
    headers = sorted((k, v) for k, v in response.headers.items() if k not in VARYING)
    return response.status_code, headers, response.content


@pytest.mark.parametrize(
    ("method", "path", "options"), REQUESTS, ids=[f"{m} {p}" for m, p, _ in REQUESTS]
)
def test_the_lane_answers_as_the_full_stack(
    clients: tuple[TestClient, TestClient], method: str, path: str, options: dict[str, Any]
) -> None:
    with_lane, without = clients
    assert answer(with_lane, method, path, options) == answer(without, method, path, options)


def test_every_way_of_failing_is_reached(clients: tuple[TestClient, TestClient]) -> None:
    """The comparison above is not of two identical failures: each kind of exception reaches
    the handler meant for it."""
    with_lane, _ = clients
    statuses = {kind: with_lane.get(f"/lane/fail/{kind}").status_code for kind in KINDS}
    assert statuses == {
        "sync": 418,
        "async": 409,
        "inherited": 409,
        "unanswered": 500,
        "teapot": 418,
        "conflict": 409,
        "no-content": 204,
        "api": 409,
        "not-found": 404,
        "bug": 500,
    }
    assert with_lane.get("/lane/fail/sync").json() == {"handled": "sync", "what": "sync"}
    assert with_lane.get("/lane/fail/inherited").json() == {"handled": "async", "what": "inherited"}
    assert with_lane.get("/lane/fail/teapot").text.startswith("teapot handler: HTTPException")
    conflict = with_lane.get("/lane/fail/conflict")
    assert conflict.headers["x-why"] == "held"
    assert conflict.headers["content-type"] == "application/problem+json"


def test_the_lane_is_taken_by_lean_routes_only(clients: tuple[TestClient, TestClient]) -> None:
    with_lane, without = clients
    assert with_lane.get("/lane/where").json() == {"lane": True}
    assert without.get("/lane/where").json() == {"lane": False}
    assert with_lane.get("/full/lane").json() == {"lane": False}
    assert without.get("/full/lane").json() == {"lane": False}
    answered = with_lane.post("/lane/answer/a", json={"value": 1}).json()
    assert answered == {"name": "a", "value": 1, "route": "/lane/answer/{name}"}
