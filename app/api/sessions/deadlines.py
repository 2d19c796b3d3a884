"""Deadlines that fire by themselves (docs/api.md#rounds-that-wait-for-the-players-dice): the
deadline sweeper.

A round waiting for the seats' dice past its deadline is played by the next call that touches
its session (`lifecycle.settle`), or by the service on its own: every server process runs
`sweep_deadlines` from its lifespan, which every `ARBITER_DEADLINE_SWEEP_SECONDS` finds at
most `ARBITER_DEADLINE_SWEEP_BATCH` sessions whose round is past its deadline (through the
partial index on `sessions.pending_deadline`, never reading a state) and settles each in a
transaction of its own, through the same `settle_in` as a call would, with its live events.
Processes sweeping at once are safe: `settle_in` plays a round only under the session's row
lock (PostgreSQL) or the write lock (SQLite), and only if it is still due, so exactly one of
them plays it and the others find nothing to do. `app.state.deadline_swept`, when set before
the app starts (a test's), hears the ids each sweep settled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from functools import partial

from fastapi import FastAPI

from app.api.kinds import AnyKind
from app.api.sessions import pending
from app.api.sessions.lifecycle import settle_in
from app.store.database import Store, Unavailable
from app.store.repository import past_deadline

log = logging.getLogger("arbiter")


async def sweep_once(app: FastAPI, kinds: Mapping[str, AnyKind], *, batch: int) -> list[str]:
    """One sweep: play the rounds past their deadline (at most `batch` of them, the longest
    overdue first), each in its own transaction. The ids of the sessions this sweep played a
    round of (not those another process or call played first)."""
    store: Store = app.state.store
    now = pending.clock(app)
    found = await store.run("read", partial(past_deadline, now=now, limit=batch))
    settled: list[str] = []
    for session_id, path in found:
        kind = kinds.get(path)
        if kind is None:
            continue  # a kind this app does not serve
        try:
            if await settle_in(app, kind, session_id):
                settled.append(session_id)
        except Unavailable:
            raise
        except Exception as exc:  # one session's failure must not hold up the others
            log.warning("settling session %s past its deadline failed: %r", session_id, exc)
        await asyncio.sleep(0)  # the event loop serves requests between sessions
    return settled


async def sweep_deadlines(
    app: FastAPI,
    kinds: Mapping[str, AnyKind],
    stop: asyncio.Event,
    *,
    interval: float,
    batch: int,
    on_swept: Callable[[list[str]], None] | None = None,
) -> None:
    """`sweep_once` every `interval` seconds until `stop` (at once again after a full batch,
    so a backlog drains batch by batch). `on_swept` hears each sweep's settled ids."""
    failing = False
    while not stop.is_set():
        settled: list[str] = []
        try:
            settled = await sweep_once(app, kinds, batch=batch)
        except Unavailable:
            pass  # the store logs the outage once, whoever meets it first; tried again later
        except Exception as exc:  # a database hiccup must not end the loop
            # Once, not every sweep (a database not migrated yet fails each of them).
            if not failing:
                log.warning("sweeping rounds past their deadline failed: %r", exc)
            failing = True
        else:
            if failing:
                log.info("sweeping rounds past their deadline works again")
            failing = False
        if on_swept is not None:
            on_swept(settled)
        if len(settled) >= batch:
            await asyncio.sleep(0)
            continue
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)
