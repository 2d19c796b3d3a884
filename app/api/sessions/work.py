"""The one owner of a request's transaction: `UnitOfWork` (how it runs: `Store.run`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from fastapi import Request

from app.errors import ServiceUnavailable
from app.rules.messages import N_
from app.store.database import Mode, Store, Transaction

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
