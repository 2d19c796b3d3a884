"""Operations endpoints: liveness, readiness, metrics."""

from __future__ import annotations

import logging
from functools import cache
from typing import Literal, NotRequired

from fastapi import APIRouter, Request
from pydantic import with_config
from starlette.concurrency import run_in_threadpool
from starlette.responses import PlainTextResponse, Response
from typing_extensions import TypedDict

from app.api.odds import worker as odds_worker
from app.api.routing import LeanRoute
from app.api.schemas.common import ANSWER
from app.errors import ServiceUnavailable
from app.observability import render_metrics, set_active_sessions, set_webhook_backlog


@with_config(ANSWER)
class Health(TypedDict):
    """The process answers."""

    status: Literal["ok"]


@with_config(ANSWER)
class Readiness(TypedDict):
    """The store is reachable, migrated to head and takes changes (a committed write, at most
    every few seconds; `store: "none"` without a store), and the odds worker is running."""

    status: Literal["ready"]
    store: NotRequired[Literal["none"]]


async def healthz() -> Health:
    """Alive: the process answers."""
    return {"status": "ok"}


async def readyz(request: Request) -> Readiness:
    """Ready: the store is reachable, migrated to head and takes changes, and the odds worker
    is running (or not needed yet)."""
    store = getattr(request.app.state, "store", None)
    problem = None if store is None else await store.ready()
    if problem:
        raise ServiceUnavailable(problem)
    # An odds worker that ended is replaced here; not ready until its successor has started
    # (about a second).
    problem = odds_worker.WORKER.problem()
    if problem:
        raise ServiceUnavailable(problem, retry_after=1)
    if store is None:
        return {"status": "ready", "store": "none"}
    return {"status": "ready"}


async def metrics(request: Request) -> Response:
    """Prometheus text exposition: requests, latencies and contests, of every worker."""
    active_sessions = getattr(request.app.state, "active_sessions", None)
    if active_sessions is not None:
        # The database's count, so that any worker or replica answers the same figure; with
        # the database away the rest of the metrics still matter most.
        try:
            set_active_sessions(await active_sessions())
        except Exception as exc:
            logging.getLogger("arbiter").debug("active sessions not counted: %r", exc)
    webhook_backlog = getattr(request.app.state, "webhook_backlog", None)
    if webhook_backlog is not None:
        try:
            found = await webhook_backlog()
            set_webhook_backlog(found.due, found.oldest_seconds)
        except Exception as exc:
            logging.getLogger("arbiter").debug("webhook backlog not counted: %r", exc)
    body, content_type = await run_in_threadpool(render_metrics)
    return Response(body, media_type=content_type)


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
