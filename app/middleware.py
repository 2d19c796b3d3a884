"""Pure ASGI middleware: body-size limit with response metrics, optional rate limit.

Written against the raw ASGI interface (not `BaseHTTPMiddleware`), which costs a function
call per message instead of a task and a stream per request.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import PayloadTooLarge, TooManyRequests, api_error_response


class Edge:
    """The body-size limit and the response counters, in one layer.

    413 for bodies over `max_bytes`: at once from Content-Length, else counted while the body
    is read. Every response is counted by method, route and status for `GET /metrics`.
    """

    def __init__(self, app: ASGIApp, max_bytes: int, registry: MetricsRegistry) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.registry = registry

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        for name, value in scope["headers"]:
            if name == b"content-length":
                if value.isdigit() and int(value) > limit:
                    await self._reject(scope, receive, send)
                    return
                break
        seen = 0
        status = 500

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise PayloadTooLarge(f"the request body exceeds {limit} bytes")
            return message

        async def counting_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, limited_receive, counting_send)
        finally:
            route = self.registry.templates.get(scope.get("endpoint"), "unmatched")
            self.registry.responses[(scope["method"], route, status)] += 1

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = api_error_response(
            PayloadTooLarge(f"the request body exceeds {self.max_bytes} bytes")
        )
        response.headers["connection"] = "close"
        await response(scope, receive, send)
        self.registry.responses[(scope["method"], "unmatched", 413)] += 1


class RateLimit:
    """A token bucket per client address: `per_minute` requests, then 429 with Retry-After."""

    def __init__(self, app: ASGIApp, per_minute: int, max_clients: int = 10_000) -> None:
        self.app = app
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.max_clients = max_clients
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in ("/healthz", "/readyz", "/metrics"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "unknown"
        now = time.monotonic()
        tokens, stamp = self.buckets.pop(address, (self.capacity, now))
        tokens = min(self.capacity, tokens + (now - stamp) * self.rate)
        if tokens < 1.0:
            self.buckets[address] = (tokens, now)
            wait = max(1, int((1.0 - tokens) / self.rate) + 1)
            response = api_error_response(
                TooManyRequests(f"rate limit exceeded; retry in {wait} s")
            )
            response.headers["retry-after"] = str(wait)
            await response(scope, receive, send)
            return
        self.buckets[address] = (tokens - 1.0, now)
        while len(self.buckets) > self.max_clients:
            self.buckets.popitem(last=False)
        await self.app(scope, receive, send)


class MetricsRegistry:
    def __init__(self) -> None:
        self.responses: Counter[tuple[str, str, int]] = Counter()
        #: Route templates by endpoint, so a label reads /v1/races/{session_id}, not an id.
        self.templates: dict[Any, str] = {}
        self.started = time.time()

    def render(self, extra: dict[str, Any] | None = None) -> str:
        lines = [
            "# HELP arbiter_responses_total HTTP responses by method, route and status.",
            "# TYPE arbiter_responses_total counter",
        ]
        for (method, route, status), count in sorted(self.responses.items()):
            lines.append(
                f'arbiter_responses_total{{method="{method}",route="{route}",'
                f'status="{status}"}} {count}'
            )
        lines += [
            "# HELP arbiter_start_time_seconds Unix time the process started.",
            "# TYPE arbiter_start_time_seconds gauge",
            f"arbiter_start_time_seconds {self.started:.3f}",
        ]
        for name, value in (extra or {}).items():
            lines += [f"# TYPE {name} gauge", f"{name} {value}"]
        return "\n".join(lines) + "\n"
