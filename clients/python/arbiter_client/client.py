"""The two clients: `Arbiter` (blocking) and `AsyncArbiter` (asyncio), both on httpx.

Each sends a `Call` from `arbiter_client.operations` and answers its typed `Reply`, or raises an
`ArbiterError` carrying the problem+json body. A bearer token is given per call (a bot holds
many sessions' tokens) or once, as the client's default.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self, TypeVar

import httpx

from arbiter_client.calls import Call, Reply

T = TypeVar("T")
DEFAULT_TIMEOUT_S = 30.0


class Arbiter:
    """A blocking client; use it as a context manager, or `close()` it."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        http: httpx.Client | None = None,
    ) -> None:
        """`http`: an httpx client of your own (its transport, proxies, limits) to send with."""
        self.token = token
        self._owned = http is None
        self.http = http or httpx.Client(base_url=base_url, timeout=timeout)

    def send(self, call: Call[T], *, token: str | None = None) -> Reply[T]:
        response = self.http.send(call.request(self.http, token or self.token))
        return call.reply(response)

    def close(self) -> None:
        if self._owned:
            self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()


class AsyncArbiter:
    """An asyncio client; use it as an async context manager, or `await aclose()`."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.token = token
        self._owned = http is None
        self.http = http or httpx.AsyncClient(base_url=base_url, timeout=timeout)

    async def send(self, call: Call[T], *, token: str | None = None) -> Reply[T]:
        response = await self.http.send(call.request(self.http, token or self.token))
        return call.reply(response)

    async def aclose(self) -> None:
        if self._owned:
            await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.aclose()
