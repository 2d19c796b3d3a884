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
from starlette.routing import Route

from app.api import cairn, d20, gurps, lifecycle, long_throws, notation, operations
from app.api.kinds import ContestKind
from app.api.registry import KINDS
from app.api.routing import PrefixDispatch
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
    """Build the service: its routes, middleware and error mapping; the lifespan opens the store.

    `kinds` are the long-running contests served: each gets the shared lifecycle and its own
    routes from its `ContestKind` alone.
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
    # The routes go straight onto the app rather than through include_router: every request
    # is matched against one flat list instead of router after router.
    for module in (operations, gurps, cairn, d20, long_throws, notation):
        app.router.routes.extend(module.router().routes)
    for kind in kinds.values():
        app.router.routes.extend(lifecycle.routes(kind))
    served = list(app.router.routes)  # these, and FastAPI's own /docs and /openapi.json
    # The dispatcher goes first and answers every request that has a route; the routes stay
    # listed after it for introspection (and are reached directly only by unknown paths).
    app.router.routes.insert(0, PrefixDispatch(served))
    metrics.templates = {route.endpoint: route.path for route in served if isinstance(route, Route)}
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
