"""The application factory: `create_app(settings) -> FastAPI`. Nothing happens at import time."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import timedelta
from functools import partial
from typing import TypeVar

from fastapi import FastAPI

from app.api import operations
from app.api.contract import declare_contract
from app.api.docs import install_docs
from app.api.foundry import install_foundry
from app.api.kinds import AnyKind
from app.api.kinds.registry import KINDS
from app.api.languages import install_languages
from app.api.odds import routes as odds_routes
from app.api.odds import worker as odds_worker
from app.api.oneshots import cairn, d20, groups, gurps, long_throws, notation
from app.api.routing import LaneApp, index_routes
from app.api.sessions import (
    collecting,
    deadlines,
    deliveries,
    lifecycle,
    proofs,
    verifiable,
    webhooks,
)
from app.api.sessions.events import start_events, stop_events
from app.api.table import install_table
from app.cors import add_cors
from app.errors import install_error_handlers
from app.middleware import Edge, RateLimit
from app.observability import count_sessions_purged
from app.settings import Settings, get_settings
from app.store import webhooks as webhooks_store
from app.store.database import Store, Transaction, Unavailable
from app.store.repository import (
    PurgeCursor,
    active_sessions_by_kind,
    now,
    purge_responses,
    purge_sessions,
    wal_position,
)

T = TypeVar("T")

DESCRIPTION = """\
Arbiter resolves tabletop-RPG contests: GURPS success rolls and contests, d20 games of skill
(arm wrestling, long throws, races, chases), Legend skill games and the Cairn Hill roll.

Every result lists every die (`rolls`: supplied by the caller or rolled by the server) and a
one-line `summary`; send `Accept: text/plain` to get the summary alone. Errors are
`application/problem+json`. Long-running contests live in sessions addressed by id and
guarded by bearer tokens.
"""


def create_app(settings: Settings | None = None, kinds: Mapping[str, AnyKind] = KINDS) -> FastAPI:
    """Build the service: its routes, middleware and error mapping; the lifespan opens the store.

    `kinds` are the long-running contests served: each gets the shared lifecycle and its own
    routes from its `ContestKind` alone.
    """
    settings = settings or get_settings()

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
        # The reads that may lag (an ended session's proof rounds) go to a read replica when
        # one is set; /readyz never asks it (a lagging or lost replica leaves the primary to
        # answer those reads: app/api/sessions/work.py, `lagging_read`).
        read_store = (
            Store(
                settings.read_database_url,
                pool_size=settings.db_pool_size,
                role="the read replica",
                when_away="its reads go to the primary until it is back",
            )
            if settings.read_database_url
            else None
        )
        if read_store is not None:
            await read_store.open()
        app.state.read_store = read_store
        # Seeds stored as they are before every deployment had a dice key: sealed now.
        sealing = asyncio.create_task(seal_plain_seeds(store))
        # The odds worker process (shared by every app of this process; it ends with it)
        # starts now, so a first heavy question does not wait for it; else at that question.
        odds_worker.WORKER.configure(
            queue_limit=settings.odds_queue_limit,
            deadline_seconds=settings.odds_deadline_seconds,
            cache_bytes=settings.odds_cache_bytes,
        )
        if settings.odds_prestart:
            odds_worker.start_pool()
        unwatch_stop = odds_worker.watch_for_stop()
        await start_events(app, settings.database_url)
        # `GET /metrics` sets the active-sessions gauge from the database when scraped.
        app.state.active_sessions = partial(store.run, "read", active_sessions_by_kind)
        # ... and the webhook outbox's backlog gauges (docs/webhooks.md#watching-it).
        app.state.webhook_backlog = partial(
            store.run, "read", lambda connection: webhooks_store.backlog(connection, now())
        )
        stop = asyncio.Event()
        housekeeping = asyncio.create_task(
            purge_expired(store, settings, stop, count_sessions_purged)
        )
        # Rounds waiting for the seats' dice past their deadline play by themselves.
        sweeper = asyncio.create_task(
            deadlines.sweep_deadlines(
                app,
                kinds,
                stop,
                interval=settings.deadline_sweep_seconds,
                batch=settings.deadline_sweep_batch,
                on_swept=getattr(app.state, "deadline_swept", None),
            )
        )
        # Webhooks: the outbox's deliveries are sent by each process
        # (app/api/sessions/deliveries.py).
        worker = deliveries.DeliveryWorker(store, settings)
        app.state.deliveries = worker
        sender = asyncio.create_task(worker.run(stop))
        # What startup made lives as long as the process: moved out of the collector's way,
        # a full collection no longer walks it (without this, one took about 0.1 s under
        # load, stalling every request meanwhile). Given back at shutdown, so that an app
        # built and dropped (as tests do) is collected as before.
        gc.freeze()
        try:
            yield
        finally:
            gc.unfreeze()
            # Let a purge already under way finish before the connections go. (No cancel():
            # a driver may turn a cancellation into an error of its own and so swallow it.)
            stop.set()
            await sealing
            await housekeeping
            await sweeper
            await sender
            await stop_events(app)
            await store.close()
            if read_store is not None:
                await read_store.close()
            if odds_worker.STOP_SIGNALLED.is_set():
                await asyncio.to_thread(odds_worker.stop_with_server)
            # The handlers as they were before this app (an app started again, as tests do,
            # does not add to a chain of them).
            unwatch_stop()

    app = LaneApp(
        title="Arbiter",
        version="1.0.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        # The documentation pages are install_docs's, with their assets served from here.
        docs_url=None,
        redoc_url=None,
        # OpenTelemetry hooks are off: /metrics serves the service's own counters, and the
        # per-request check for a configured provider costs throughput on every call.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    # A session operation's query errors are answered once its caller is known (404 first).
    app.state.known_caller = lifecycle.caller_check(kinds)
    app.state.kinds = kinds
    install_error_handlers(app)
    # Every request is matched through an index of path prefixes (app/api/routing.py).
    router = index_routes(app)
    for module in (operations, gurps, cairn, d20, long_throws, notation, odds_routes):
        app.include_router(module.router())
    for one_against_many in groups.routers():
        app.include_router(one_against_many)
    for kind in kinds.values():
        app.include_router(lifecycle.router(kind))
    for waiting in collecting.routers(kinds):
        app.include_router(waiting)
    for proven in proofs.routers(kinds):
        app.include_router(proven)
    for subscribed in webhooks.routers(kinds):
        app.include_router(subscribed)
    # On PostgreSQL without ARBITER_DICE_KEY (verifiable dice offered), one line and no start.
    verifiable.configure(verifiable.dice_key_for(settings), offered=settings.verifiable_dice)
    install_docs(app)
    install_table(app)
    install_foundry(app)
    install_languages(app)
    # Every route is built now (an included route is built again as its router includes
    # it), so a LeanRoute refuses what it cannot serve when the app is made.
    router.reindex()
    if settings.rate_limit_per_minute:
        app.add_middleware(RateLimit, per_minute=settings.rate_limit_per_minute, settings=settings)
    app.add_middleware(Edge, max_bytes=settings.max_body_bytes, settings=settings)
    # Outermost: preflights never reach the rate limit or the routes, and Edge's own answers
    # (413, 500) carry the CORS headers too.
    add_cors(app, settings.cors_origins)
    declare_contract(app)
    return app


#: How often expired sessions and idempotent answers past their TTL are deleted.
PURGE_INTERVAL_SECONDS = 600
#: At most so many sessions, and their rounds within the round budget (one session at least),
#: are deleted per transaction, so that a batch holds the write lock (or its sessions' row
#: locks), and on SQLite the event loop, briefly (ARCHITECTURE.md, "Speed").
PURGE_BATCH_SESSIONS = 500
PURGE_BATCH_ROUNDS = 5_000


async def seal_plain_seeds(store: Store) -> int:
    """`verifiable.seal_plain_seeds` under this process's dice key (none: nothing to do);
    how many it sealed. A failure (the database away, not migrated yet) is logged: the next
    start tries again, and a seed left as it is is still read."""
    key = verifiable.dice_key()
    if key is None:
        return 0
    try:
        sealed = await verifiable.seal_plain_seeds(store, key)
    except Unavailable:
        return 0  # the store logs the outage once, whoever meets it first
    except Exception as exc:
        logging.getLogger("arbiter").warning("sealing stored server seeds failed: %r", exc)
        return 0
    if sealed:
        logging.getLogger("arbiter").info("sealed %d stored server seed(s) at rest", sealed)
    return sealed


async def purge_expired(
    store: Store,
    settings: Settings,
    stop: asyncio.Event,
    on_purged: Callable[[int], None] | None = None,
) -> None:
    """Delete what retention lets go, at start and then every few minutes, until `stop`.

    `on_purged` hears the count of sessions of each batch deleted.
    """
    while not stop.is_set():
        try:
            await purge_once(store, settings, stop, on_purged)
        except Unavailable:
            pass  # the store logs the outage once, whoever meets it first; tried again later
        except Exception as exc:  # a database hiccup must not end the loop
            logging.getLogger("arbiter").warning("purging expired data failed: %r", exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), PURGE_INTERVAL_SECONDS)


async def purge_once(
    store: Store,
    settings: Settings,
    stop: asyncio.Event,
    on_purged: Callable[[int], None] | None = None,
    *,
    batch: int = PURGE_BATCH_SESSIONS,
    round_budget: int = PURGE_BATCH_ROUNDS,
) -> int:
    """One pass: idempotent answers past their TTL, then expired sessions batch by batch.

    Each batch is a transaction of its own, and the event loop serves requests between
    batches; `stop` ends the pass after the batch under way. Returns the sessions deleted.
    """
    ttl = timedelta(seconds=settings.idempotency_ttl_seconds)
    await store.run("write", lambda tx: purge_responses(tx, ttl=ttl))
    # Webhooks' deliveries sent (or given up) past their retention, a batch a transaction.
    sent_before = now() - timedelta(days=settings.webhook_delivery_retention_days)
    paced = Pacing(settings, sessions=round_budget, rounds=round_budget)
    while not stop.is_set():
        started = time.perf_counter()
        limit = paced.rounds
        forgotten, written = await store.run(
            "write",
            logged(partial(webhooks_store.purge, sent_before=sent_before, limit=limit)),
        )
        if forgotten < limit:
            break
        await rested(store, paced, started, stop, written)
    purged = 0
    moment = now()
    cursor: PurgeCursor | None = PurgeCursor()
    pacing = Pacing(settings, sessions=batch, rounds=round_budget)
    while cursor is not None and not stop.is_set():
        started = time.perf_counter()
        (deleted, cursor), written = await store.run(
            "write",
            logged(
                partial(
                    purge_sessions,
                    finished_before=moment - timedelta(days=settings.retention_finished_days),
                    abandoned_before=moment - timedelta(days=settings.retention_abandoned_days),
                    limit=pacing.sessions,
                    round_budget=pacing.rounds,
                    cursor=cursor,
                )
            ),
        )
        if deleted:
            if on_purged is not None:
                on_purged(deleted)
            purged += deleted
        await rested(store, pacing, started, stop, written)
    return purged


async def rested(
    store: Store, pacing: Pacing, started: float, stop: asyncio.Event, written: int
) -> None:
    """The rest after a purge's batch begun at `started` (`time.perf_counter`) that wrote
    `written` bytes of log (PostgreSQL): its pace's, and on SQLite until the checkpointer has
    copied what the batch wrote into the database file (meanwhile, not after: the two
    overlap). Batches that came faster than their log was copied made it grow past the
    backstop, past which commits on the event loop checkpointed (docs/capacity.md)."""
    await asyncio.gather(
        pacing.rest(time.perf_counter() - started, stop, written), store.checkpointed()
    )


def logged(
    work: Callable[[Transaction], Awaitable[T]],
) -> Callable[[Transaction], Awaitable[tuple[T, int]]]:
    """`work`, and the bytes of write-ahead log the server wrote while it ran (PostgreSQL;
    0 on SQLite): what the purge's pace counts besides its time."""

    async def run(transaction: Transaction) -> tuple[T, int]:
        before = await wal_position(transaction)
        result = await work(transaction)
        after = await wal_position(transaction)
        return result, (after - before if before is not None and after is not None else 0)

    return run


#: The first paced batch's share of the largest batch.
FIRST_BATCH_SHARE = 0.1


class Pacing:
    """How large the purge's next batch is, and how long it rests after one, so that requests
    beside it hardly notice it: each batch is sized to take about `purge_batch_ms` (smaller
    after a slow one, larger again after a quick one, within the largest allowed), then the
    purge rests `purge_rest_ratio` times as long as the batch took (at least one pass of the
    event loop), so writers queued meanwhile get the write lock (SQLite) and the cores (both)
    before the next batch. The first batch is a tenth of the largest, and a batch at most
    twice the one before it."""

    def __init__(self, settings: Settings, *, sessions: int, rounds: int) -> None:
        self.most = (sessions, rounds)
        self.target = settings.purge_batch_ms / 1000
        self.ratio = settings.purge_rest_ratio
        #: Bytes of write-ahead log a second, on average over a batch and its rest (0: no bound).
        self.wal_rate = settings.purge_wal_mb_per_s * 1_000_000
        #: Paced, the first batch is a tenth of the largest: a full one can take far longer
        #: than the target on a loaded machine, and it would stall every request meanwhile.
        self.scale = FIRST_BATCH_SHARE if self.target > 0 else 1.0

    @property
    def sessions(self) -> int:
        return max(1, round(self.most[0] * self.scale))

    @property
    def rounds(self) -> int:
        return max(1, round(self.most[1] * self.scale))

    async def rest(self, took: float, stop: asyncio.Event, written: int = 0) -> None:
        """Rest after a batch that took `took` seconds and wrote `written` bytes of WAL."""
        if self.target > 0 and took > 0:
            # Toward the size that takes the target, growing at most twofold a batch.
            wanted = min(self.scale * self.target / took, self.scale * 2, 1.0)
            self.scale = max(1 / self.most[0], wanted)
        pause = took * self.ratio
        if self.wal_rate > 0:
            # The log a batch wrote is flushed, and its pages written back, after it: every
            # commit beside it waits on that disk, which the batch's own time does not show.
            pause = max(pause, written / self.wal_rate - took)
        if pause <= 0:
            await asyncio.sleep(0)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), pause)
