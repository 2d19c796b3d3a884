"""The application factory: `create_app(settings) -> FastAPI`. Nothing happens at import time."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.routing import BaseRoute, Route

from app.api import (
    arm_wrestles,
    cairn,
    chases,
    d20,
    gurps,
    long_throws,
    notation,
    operations,
    races,
    regular_contests,
    skill_games,
)
from app.api.common import DOCUMENTED_MODELS
from app.api.kinds import ContestKind
from app.api.registry import KINDS
from app.api.routing import PrefixDispatch
from app.api.sessions import from_contest_kind, session_router
from app.errors import install_error_handlers
from app.middleware import Edge, MetricsRegistry, RateLimit
from app.settings import Settings, get_settings
from app.store.database import Store
from app.store.repository import purge_responses

DESCRIPTION = """\
Arbiter resolves tabletop-RPG contests: GURPS success rolls and contests, d20 games of skill
(arm wrestling, long throws, races, chases), Legend skill games and the Cairn Hill roll.

Every result lists every die (`rolls`: supplied by the caller or rolled by the server) and a
one-line `summary`; send `Accept: text/plain` to get the summary alone. Errors are
`application/problem+json`. Long-running contests live in sessions addressed by id and
guarded by bearer tokens.
"""


def create_app(
    settings: Settings | None = None, kinds: Mapping[str, ContestKind[Any, Any, Any]] = KINDS
) -> FastAPI:
    """Build the service. The lifespan opens the store; routers hold no state of their own.

    `kinds` are the long-running contests served; a kind not in `KINDS` (a new one, or a
    test's) gets the shared lifecycle from its `ContestKind` alone.
    """
    settings = settings or get_settings()
    metrics = MetricsRegistry()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        logging.getLogger("arbiter").setLevel(logging.INFO)
        store = Store(
            settings.database_url,
            pool_size=settings.db_pool_size,
            busy_timeout_ms=settings.sqlite_busy_timeout_ms,
        )
        await store.open()
        app.state.store = store
        stop = asyncio.Event()
        housekeeping = asyncio.create_task(forget_old_answers(store, settings, stop))
        try:
            yield
        finally:
            # Let a purge already under way finish before the connections go. (No cancel():
            # a driver may turn a cancellation into an error of its own and so swallow it.)
            stop.set()
            await housekeeping
            await store.close()

    app = FastAPI(
        title="Arbiter",
        version="1.0.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        # OpenTelemetry hooks are off: /metrics serves the service's own counters, and the
        # per-request check for a configured provider costs throughput on every call.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.metrics = metrics
    install_error_handlers(app)
    for module in (
        operations,
        gurps,
        cairn,
        d20,
        long_throws,
        notation,
        regular_contests,
        arm_wrestles,
        skill_games,
        races,
        chases,
    ):
        # The routes go straight onto the app rather than through include_router: every
        # request is matched against one flat list instead of router after router.
        app.router.routes.extend(module.router.routes)
    for path, kind in kinds.items():
        if path not in KINDS:
            app.router.routes.extend(session_router(from_contest_kind(kind)).routes)
    served = list(app.router.routes)  # these, and FastAPI's own /docs and /openapi.json
    # The dispatcher goes first and answers every request that has a route; the routes stay
    # listed after it for introspection (and are reached directly only by unknown paths).
    app.router.routes.insert(0, PrefixDispatch(served))
    metrics.templates = {route.endpoint: route.path for route in served if isinstance(route, Route)}
    install_openapi(app, served)
    if settings.rate_limit_per_minute:
        app.add_middleware(RateLimit, per_minute=settings.rate_limit_per_minute)
    app.add_middleware(Edge, max_bytes=settings.max_body_bytes, registry=metrics)
    return app


#: How often stored idempotent answers past their TTL are deleted.
PURGE_INTERVAL_SECONDS = 600


async def forget_old_answers(store: Store, settings: Settings, stop: asyncio.Event) -> None:
    """Delete idempotent answers past their TTL, at start and then every few minutes."""
    ttl = timedelta(seconds=settings.idempotency_ttl_seconds)
    while not stop.is_set():
        try:
            await store.run("write", lambda tx: purge_responses(tx, ttl=ttl))
        except Exception as exc:  # a database hiccup must not end the loop
            logging.getLogger("arbiter").warning("purging idempotent answers failed: %r", exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), PURGE_INTERVAL_SECONDS)


def install_openapi(app: FastAPI, served: list[BaseRoute]) -> None:
    """Add the request-body schemas of `body_doc` routes to the generated OpenAPI document."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=served,
        )
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, model in DOCUMENTED_MODELS.items():
            model_schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
            for def_name, definition in model_schema.pop("$defs", {}).items():
                components.setdefault(def_name, definition)
            components[name] = model_schema
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
