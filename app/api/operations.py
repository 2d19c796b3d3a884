"""Operations endpoints: liveness, readiness, metrics."""

from __future__ import annotations

from functools import cache
from typing import Literal, NotRequired

from fastapi import APIRouter, Request
from pydantic import ConfigDict, with_config
from starlette.concurrency import run_in_threadpool
from starlette.responses import PlainTextResponse, Response
from typing_extensions import TypedDict

from app.api.routing import LeanRoute
from app.errors import ServiceUnavailable


@with_config(ConfigDict(extra="forbid"))
class Health(TypedDict):
    """The process answers."""

    status: Literal["ok"]


@with_config(ConfigDict(extra="forbid"))
class Readiness(TypedDict):
    """The store is reachable and migrated to head (`store: "none"` without a store)."""

    status: Literal["ready"]
    store: NotRequired[Literal["none"]]


async def healthz() -> Health:
    """Alive: the process answers."""
    return {"status": "ok"}


async def readyz(request: Request) -> Readiness:
    """Ready: the store is reachable and migrated to head."""
    store = getattr(request.app.state, "store", None)
    if store is None:
        return {"status": "ready", "store": "none"}
    problem = await run_in_threadpool(store.readiness_problem)
    if problem:
        raise ServiceUnavailable(problem)
    return {"status": "ready"}


async def metrics(request: Request) -> Response:
    """Prometheus text exposition of response counters."""
    return PlainTextResponse(
        request.app.state.metrics.render(), media_type="text/plain; version=0.0.4"
    )


@cache
def router() -> APIRouter:
    """This module's routes, built by the first `create_app` (they hold no state)."""
    routes = APIRouter(tags=["Operations"], route_class=LeanRoute)
    routes.add_api_route("/healthz", healthz, methods=["GET"], operation_id="healthz")
    routes.add_api_route("/readyz", readyz, methods=["GET"], operation_id="readyz")
    routes.add_api_route(
        "/metrics",
        metrics,
        methods=["GET"],
        response_class=PlainTextResponse,
        operation_id="metrics",
    )
    return routes
