"""A route written the ordinary way gets every FastAPI feature in the app `create_app()` builds.

The service's own routes are `LeanRoute`s, and the app's router finds routes through an index
(app/api/routing.py); neither may take anything from a route declared with FastAPI's plain
`APIRouter` and included, or declared on the app: each feature below is probed on such a
route, served by `create_app()`. And a `LeanRoute` asked for a feature it cannot serve
refuses when it is built, naming the route and the feature.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from fastapi import (
    APIRouter,
    BackgroundTasks,
    Body,
    Cookie,
    Depends,
    FastAPI,
    Header,
    HTTPException,
    Query,
    Request,
    Response,
)
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from pydantic import BaseModel

from app.api.routing import LeanRoute, LeanRouteRefused
from app.main import create_app
from app.settings import Settings


class Account(BaseModel):
    name: str


class StoredAccount(Account):
    password_hash: str


class Probe(BaseModel):
    value: int


class SyncHandled(Exception):
    """Answered by a synchronous exception handler."""


class AsyncHandled(Exception):
    """Answered by an asynchronous exception handler."""


def current_user() -> str:
    return "real user"


def ordinary_router() -> APIRouter:
    router = APIRouter(prefix="/probe", tags=["probe"])

    @router.get("/depends")
    async def with_depends(user: Annotated[str, Depends(current_user)]) -> dict[str, str]:
        return {"user": user}

    @router.get("/params/{item_id}")
    async def with_params(
        item_id: int,
        session: Annotated[str | None, Cookie()] = None,
        x_probe: Annotated[str | None, Header()] = None,
        q: Annotated[list[int], Query()] = [],  # noqa: B006 - FastAPI's own idiom
    ) -> dict[str, Any]:
        return {"item_id": item_id, "session": session, "x_probe": x_probe, "q": q}

    @router.post("/embed")
    async def with_embedded_body(probe: Annotated[Probe, Body(embed=True)]) -> dict[str, int]:
        return {"value": probe.value}

    @router.get("/filtered", response_model=Account)
    async def filtered() -> dict[str, str]:
        return {"name": "Ann", "password_hash": "secret"}

    @router.get("/model")
    async def returns_model() -> Account:
        return StoredAccount(name="Bo", password_hash="secret")

    @router.get("/response-parameter")
    async def with_response(response: Response) -> dict[str, bool]:
        response.headers["X-Set-By-Endpoint"] = "yes"
        response.status_code = 203
        return {"ok": True}

    @router.get("/background")
    async def with_background(tasks: BackgroundTasks) -> dict[str, bool]:
        tasks.add_task(lambda: None)
        return {"queued": True}

    @router.get("/sync-error")
    async def raises_sync_handled() -> None:
        raise SyncHandled

    @router.get("/async-error")
    async def raises_async_handled() -> None:
        raise AsyncHandled

    @router.get("/links/{name}", name="probe-link")
    async def link(name: str, request: Request) -> dict[str, str]:
        return {"url": str(request.url_for("probe-link", name=name))}

    @router.get("/sync")
    def synchronous() -> dict[str, str]:
        return {"ran": "in the threadpool"}

    return router


def lean_router() -> APIRouter:
    """Lean routes raising what the app's exception handlers answer."""
    router = APIRouter(prefix="/lean-probe", route_class=LeanRoute)

    async def raises(kind: str) -> Response:
        raised: dict[str, Exception] = {
            "sync": SyncHandled(),
            "async": AsyncHandled(),
            "http": HTTPException(status_code=418, detail="a teapot"),
            "bug": ZeroDivisionError("a bug"),
        }
        raise raised[kind]

    router.add_api_route("/{kind}", raises, methods=["GET"])
    return router


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FastAPI, TestClient]]:
    path: Path = tmp_path_factory.mktemp("features") / "features.db"
    app = create_app(Settings(database_url=f"sqlite:///{path}"))
    app.include_router(ordinary_router())
    app.include_router(lean_router())

    @app.get("/probe-on-the-app/{word}")
    async def on_the_app(word: str, user: Annotated[str, Depends(current_user)]) -> Account:
        return StoredAccount(name=f"{word} for {user}", password_hash="secret")

    def on_sync(_: Request, __: Exception) -> JSONResponse:
        return JSONResponse({"handled": "sync"}, status_code=418)

    async def on_async(_: Request, __: Exception) -> JSONResponse:
        return JSONResponse({"handled": "async"}, status_code=409)

    app.add_exception_handler(SyncHandled, on_sync)
    app.add_exception_handler(AsyncHandled, on_async)
    with TestClient(app) as client:
        yield app, client


def test_depends_and_its_override(served: tuple[FastAPI, TestClient]) -> None:
    app, client = served
    assert client.get("/probe/depends").json() == {"user": "real user"}
    app.dependency_overrides[current_user] = lambda: "test double"
    try:
        assert client.get("/probe/depends").json() == {"user": "test double"}
        assert client.get("/probe-on-the-app/hi").json() == {"name": "hi for test double"}
    finally:
        app.dependency_overrides.clear()
    assert client.get("/probe/depends").json() == {"user": "real user"}


def test_cookie_header_query_and_path_parameters(served: tuple[FastAPI, TestClient]) -> None:
    _, client = served
    client.cookies.set("session", "cookie-value")
    try:
        answer = client.get("/probe/params/7?q=1&q=2", headers={"X-Probe": "header-value"})
    finally:
        client.cookies.clear()
    assert answer.json() == {
        "item_id": 7,
        "session": "cookie-value",
        "x_probe": "header-value",
        "q": [1, 2],
    }
    refused = client.get("/probe/params/seven")
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["loc"] == ["path", "item_id"]


def test_an_embedded_body(served: tuple[FastAPI, TestClient]) -> None:
    _, client = served
    assert client.post("/probe/embed", json={"probe": {"value": 3}}).json() == {"value": 3}
    assert client.post("/probe/embed", json={"value": 3}).status_code == 422


def test_response_model_filters_and_a_returned_model(served: tuple[FastAPI, TestClient]) -> None:
    _, client = served
    assert client.get("/probe/filtered").json() == {"name": "Ann"}
    assert client.get("/probe/model").json() == {"name": "Bo"}
    assert client.get("/probe-on-the-app/yo").json() == {"name": "yo for real user"}


def test_a_response_parameter_and_background_tasks(served: tuple[FastAPI, TestClient]) -> None:
    _, client = served
    answer = client.get("/probe/response-parameter")
    assert (answer.status_code, answer.headers["x-set-by-endpoint"]) == (203, "yes")
    assert answer.json() == {"ok": True}
    assert client.get("/probe/background").json() == {"queued": True}


def test_sync_and_async_exception_handlers(served: tuple[FastAPI, TestClient]) -> None:
    _, client = served
    sync = client.get("/probe/sync-error")
    assert (sync.status_code, sync.json()) == (418, {"handled": "sync"})
    asynchronous = client.get("/probe/async-error")
    assert (asynchronous.status_code, asynchronous.json()) == (409, {"handled": "async"})


def test_a_lean_route_s_errors_meet_the_app_s_handlers(
    served: tuple[FastAPI, TestClient],
) -> None:
    """A lean route's exceptions are answered by the app's exception handlers, as Starlette
    chooses them: by class (a sync handler and an async one), by status for an HTTPException,
    and an unexpected one by the handler for `Exception` (a 500 problem)."""
    app, _ = served
    with TestClient(app, raise_server_exceptions=False) as client:
        sync = client.get("/lean-probe/sync")
        assert (sync.status_code, sync.json()) == (418, {"handled": "sync"})
        asynchronous = client.get("/lean-probe/async")
        assert (asynchronous.status_code, asynchronous.json()) == (409, {"handled": "async"})
        teapot = client.get("/lean-probe/http")
        assert teapot.status_code == 418
        assert teapot.headers["content-type"] == "application/problem+json"
        bug = client.get("/lean-probe/bug")
        assert bug.status_code == 500
        assert bug.headers["content-type"] == "application/problem+json"
        assert client.post("/lean-probe/sync").status_code == 405


def test_url_path_for_and_url_for(served: tuple[FastAPI, TestClient]) -> None:
    app, client = served
    assert app.url_path_for("probe-link", name="x") == "/probe/links/x"
    assert client.get("/probe/links/y").json() == {"url": "http://testserver/probe/links/y"}
    # The service's own routes are named by their operation and found the same way.
    assert app.url_path_for("getArmWrestle", session_id="abc") == "/v1/arm-wrestles/abc"
    assert app.url_path_for("playChaseRound", session_id="c") == "/v1/chases/c/rounds"


def test_a_synchronous_endpoint(served: tuple[FastAPI, TestClient]) -> None:
    _, client = served
    assert client.get("/probe/sync").json() == {"ran": "in the threadpool"}


def test_the_route_that_served_is_in_the_scope(served: tuple[FastAPI, TestClient]) -> None:
    app, _ = served
    seen: list[Any] = []
    fresh = create_app(app.state.settings)
    fresh.include_router(ordinary_router())

    @fresh.middleware("http")
    async def remember(request: Request, call_next: Any) -> Any:
        answer = await call_next(request)
        seen.append(request.scope.get("route"))
        return answer

    with TestClient(fresh) as client:
        client.get("/probe/depends")
        client.post("/v1/gurps/success-roll", json={"skill": 12, "seed": 1})
    assert [route.path for route in seen] == ["/probe/depends", "/v1/gurps/success-roll"]


# --- what a lean route refuses ---------------------------------------------------------------


async def _depends_endpoint(user: Annotated[str, Depends(current_user)]) -> Response:
    return Response(user)


async def _header_endpoint(x_probe: Annotated[str, Header()]) -> Response:
    return Response(x_probe)


async def _cookie_endpoint(session: Annotated[str, Cookie()]) -> Response:
    return Response(session)


async def _embedded_endpoint(probe: Annotated[Probe, Body(embed=True)]) -> Response:
    return Response(str(probe.value))


async def _response_parameter_endpoint(response: Response) -> dict[str, str]:
    response.status_code = 203
    return {}


async def _background_endpoint(tasks: BackgroundTasks) -> Response:  # noqa: ARG001
    return Response()


def _sync_endpoint() -> dict[str, str]:
    return {}


async def _answer_endpoint() -> dict[str, str]:
    return {"name": "Ann"}


@pytest.mark.parametrize(
    ("endpoint", "options", "feature"),
    [
        (_depends_endpoint, {}, "dependencies (Depends)"),
        (_header_endpoint, {}, "header parameters"),
        (_cookie_endpoint, {}, "cookie parameters"),
        (_embedded_endpoint, {}, "several or embedded bodies (Body(embed=True))"),
        (_response_parameter_endpoint, {}, "a Response parameter"),
        (_background_endpoint, {}, "a BackgroundTasks parameter"),
        (_sync_endpoint, {}, "a synchronous endpoint"),
        (_answer_endpoint, {"response_model": Account}, "response_model"),
        (_answer_endpoint, {"response_model_exclude_none": True}, "response_model_exclude_none"),
        (_answer_endpoint, {"response_class": JSONResponse}, "response_class"),
        (_answer_endpoint, {"dependencies": [Depends(current_user)]}, "dependencies (Depends)"),
    ],
)
def test_a_lean_route_refuses_what_it_cannot_serve(
    endpoint: Any, options: dict[str, Any], feature: str
) -> None:
    router = APIRouter(route_class=LeanRoute)
    with pytest.raises(LeanRouteRefused) as refused:
        router.add_api_route("/lean", endpoint, methods=["GET"], **options)
    assert refused.value.feature.startswith(feature)
    assert "/lean" in str(refused.value)


def test_a_lean_route_refuses_its_router_s_dependencies() -> None:
    router = APIRouter(route_class=LeanRoute)
    router.add_api_route("/lean", _answer_endpoint, methods=["GET"])
    app = FastAPI()
    app.include_router(router, dependencies=[Depends(current_user)])
    with pytest.raises(LeanRouteRefused) as refused:
        app.url_path_for("_answer_endpoint")  # the included route is built on first use
    assert refused.value.feature == "dependencies (Depends)"


def test_a_lean_route_documents_its_answer_without_filtering() -> None:
    router = APIRouter(route_class=LeanRoute)
    router.add_api_route("/lean", _answer_endpoint, methods=["GET"])
    app = FastAPI()
    app.include_router(router)
    route = router.routes[0]
    assert isinstance(route, LeanRoute)
    assert route.answer == dict[str, str]
    assert route.response_model is None
    with TestClient(app) as client:
        assert client.get("/lean").json() == {"name": "Ann"}
        schema = client.get("/openapi.json").json()["paths"]["/lean"]["get"]["responses"]["200"]
    assert schema["content"]["application/json"]["schema"]["additionalProperties"] == {
        "type": "string"
    }
