"""The one owner of a request's transaction: `UnitOfWork` (how it runs: `Store.run`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from fastapi import Request

from app.errors import ServiceUnavailable
from app.rules.messages import N_
from app.store.database import Mode, Store, Transaction, Unavailable

T = TypeVar("T")


class UnitOfWork:
    """The request's one transaction; a second `run` in the same request is a bug."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.used = False

    async def run(self, mode: Mode, work: Callable[[Transaction], Awaitable[T]]) -> T:
        if self.used:
            raise RuntimeError("one transaction per request")
        self.used = True
        return await self.store.run(mode, work)


def unit_of_work(request: Request) -> UnitOfWork:
    """The request's unit of work on the app's store (503 when the app has none)."""
    store: Store | None = getattr(request.app.state, "store", None)
    if store is None:
        raise ServiceUnavailable(N_("the session store is not configured"))
    return UnitOfWork(store)


def has_replica(request: Request) -> bool:
    """Whether the app reads what may lag from a read replica (`read_database_url`)."""
    return getattr(request.app.state, "read_store", None) is not None


async def lagging_read(
    request: Request, work: Callable[[Transaction], Awaitable[T | None]]
) -> T | None:
    """`work` on the read replica (`read_database_url`), in one snapshot; None when there is
    no replica, when it cannot answer, or when `work` finds it behind (returns None) — the
    caller then reads the primary. Only for data that no longer changes: a finished
    session's rounds, never a live session's (docs/capacity.md#replicas-and-a-read-replica)."""
    replica: Store | None = getattr(request.app.state, "read_store", None)
    if replica is None:
        return None
    try:
        return await replica.run("snapshot", work)
    except Unavailable:
        return None  # the replica logs its outage once; the primary answers meanwhile
