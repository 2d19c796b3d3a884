"""Operations endpoints: liveness, readiness, metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import PlainTextResponse, Response

from app.api.common import json_response
from app.errors import ServiceUnavailable, api_error_response

router = APIRouter(tags=["Operations"])


@router.get("/healthz")
async def healthz() -> Response:
    """Alive: the process answers."""
    return json_response({"status": "ok"})


@router.get("/readyz")
async def readyz(request: Request) -> Response:
    """Ready: the store is reachable and migrated to head."""
    store = getattr(request.app.state, "store", None)
    if store is None:
        return json_response({"status": "ready", "store": "none"})
    problem = await run_in_threadpool(store.readiness_problem)
    if problem:
        return api_error_response(ServiceUnavailable(problem))
    return json_response({"status": "ready"})


@router.get("/metrics", response_class=PlainTextResponse)
async def metrics(request: Request) -> Response:
    """Prometheus text exposition of response counters."""
    return PlainTextResponse(
        request.app.state.metrics.render(), media_type="text/plain; version=0.0.4"
    )
