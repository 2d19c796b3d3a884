"""Pure ASGI middleware: the edge of every request (id, client address, body limit, metrics,
request log) and the rate limit.

Written against the raw ASGI interface (not `BaseHTTPMiddleware`), which costs a function
call per message instead of a task and a stream per request.

Both take their settings as keyword arguments, or else from the app's `state.settings` when
they first run (as `create_app` sets it), so `app.add_middleware(Edge, max_bytes=...)` works.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import logging
import os
import re
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from typing import Any, Final

from redis import asyncio as redis_asyncio
from redis.exceptions import RedisError
from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api import i18n
from app.api.routing import route_template
from app.errors import ApiError, PayloadTooLarge, TooManyRequests, api_error_response
from app.observability import (
    LATENCY,
    REQUESTS,
    configure_logging,
    log_request,
    render_metrics,
)
from app.rules.messages import N_, m
from app.rules.messages import Message as RulesMessage
from app.settings import Settings, get_settings

log = logging.getLogger("arbiter")

#: A client's X-Request-ID is kept when it is this short and plain; otherwise one is made.
SANE_REQUEST_ID: Final = re.compile(rb"[A-Za-z0-9._:\-]{1,128}")
#: The HTTP versions whose requests without a Content-Length or Transfer-Encoding have no body.
HTTP_1: Final = frozenset({"1.0", "1.1"})
#: A client's X-Client-Key is its rate-limit identity when it is this short and printable.
SANE_CLIENT_KEY: Final = re.compile(rb"[\x21-\x7e]{1,128}")
#: Methods counted under their own name; any other is `other`, so a label cannot be flooded.
METHODS: Final = frozenset(
    {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"}
)
#: nginx's "client closed request": counted and logged apart from server errors.
CLIENT_CLOSED: Final = 499
UNMATCHED: Final = "unmatched"
#: Set in a request's scope when its peer is a trusted proxy (its X-Client-Key then counts).
VIA_TRUSTED_PROXY: Final = "arbiter.via_trusted_proxy"


def too_large(limit: int) -> RulesMessage:
    """The 413 of a body over `limit` bytes."""
    return m("the request body exceeds {limit} bytes", limit=limit)


def settings_of(scope: Scope, given: Settings | None) -> Settings:
    if given is not None:
        return given
    app = scope.get("app")
    found = getattr(getattr(app, "state", None), "settings", None)
    return found if isinstance(found, Settings) else get_settings()


class TrustedProxies:
    """`forwarded_allow_ips`: the proxies whose X-Forwarded-For names the client.

    The client is the first address, reading X-Forwarded-For from the right (the hop nearest
    to us), that is not itself a trusted proxy: an address a client wrote further left is
    never believed. With `*` every hop is trusted, so the leftmost is taken.
    """

    def __init__(self, spec: str) -> None:
        self.any = False
        self.hosts: set[str] = set()
        self.networks: list[IPv4Network | IPv6Network] = []
        for item in (part.strip() for part in spec.split(",")):
            if item == "*":
                self.any = True
            elif item:
                network = ip_network(item, strict=False)
                if network.num_addresses == 1:
                    self.hosts.add(str(network.network_address))
                else:
                    self.networks.append(network)

    def trusts(self, host: str) -> bool:
        if self.any or host in self.hosts:
            return True
        if not self.networks:
            return False
        try:
            address = ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)

    def client(self, peer: str, forwarded: bytes) -> str:
        """The client's address for a request from `peer` (trusted) with this header."""
        hops = [hop.strip() for hop in forwarded.decode("latin-1").split(",")]
        for hop in reversed(hops):
            if not self.trusts(hop):
                return hop if _is_address(hop) else peer
        return hops[0] if _is_address(hops[0]) else peer


def _is_address(text: str) -> bool:
    try:
        ip_address(text)
    except ValueError:
        return False
    return True


class Edge:
    """Every HTTP request's edge, in one layer.

    - its id: the client's `X-Request-ID` when sane, else a new one; sent back on every answer;
    - its client: the peer, or from X-Forwarded-For when the peer is a trusted proxy;
    - the body limit: 413 for bodies over `max_bytes`, at once from Content-Length, else
      counted while the body is read (its deadline is the server protocol's,
      app/serving.py);
    - metrics: every answer counted by method, route template and status, and timed;
    - the request log line;
    - a client that goes away mid-request is a 499 and one info line, not a server error;
      any other failure is answered (with the app's handler for `Exception`) here, so that
      its 500 carries the request id.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        registry: MetricsRegistry | None = None,
        *,
        settings: Settings | None = None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.registry = registry
        self.settings = settings
        self.proxies: TrustedProxies | None = None
        self.log_requests = True
        self.bound = False
        #: (method, route, status) -> (counter child, histogram child): `labels()` once each.
        self.children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def bind(self, scope: Scope) -> None:
        settings = settings_of(scope, self.settings)
        if settings.forwarded_allow_ips:
            self.proxies = TrustedProxies(settings.forwarded_allow_ips)
        configure_logging(settings.json_logs)
        self.log_requests = settings.log_requests
        self.bound = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.bound:
            self.bind(scope)
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        limit = self.max_bytes
        declared = -1
        chunked = False
        request_id: bytes | None = None
        forwarded: bytes | None = None
        authorized = False
        accept_language: bytes | None = None
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = int(value) if value.isdigit() else -1
            elif name == b"x-request-id":
                if SANE_REQUEST_ID.fullmatch(value):
                    request_id = value
            elif name == b"x-forwarded-for":
                forwarded = value
            elif name == b"authorization":
                authorized = True
            elif name == b"accept-language":
                accept_language = value
            elif name == b"transfer-encoding":
                chunked = True
        if request_id is None:
            request_id = new_request_id()
        if self.proxies is not None:
            peer = scope.get("client")
            if peer and self.proxies.trusts(peer[0]):
                scope[VIA_TRUSTED_PROXY] = True
                if forwarded is not None:
                    scope["client"] = (self.proxies.client(peer[0], forwarded), 0)
        id_header = (b"x-request-id", request_id)
        language = i18n.negotiate(
            accept_language.decode("latin-1") if accept_language is not None else None,
            i18n.query_language(scope.get("query_string", b"")),
        )
        language_token = i18n.use(language)
        status = 0
        counted = False

        def count() -> None:
            """Count, time and log the answer (once)."""
            nonlocal counted, status
            counted = True
            elapsed = time.perf_counter() - started
            method = scope["method"]
            if method not in METHODS:
                method = "other"
            template = route_template(scope) or resolve_template(scope)
            status = status or 500
            key = (method, template, status)
            children = self.children.get(key)
            if children is None:
                children = self.children[key] = (
                    REQUESTS.labels(method, template, str(status)),
                    LATENCY.labels(method, template),
                )
            children[0].inc()
            children[1].observe(elapsed)
            if self.log_requests:
                log_request(request_id.decode(), method, template, status, elapsed)

        async def edge_send(message: Message) -> None:
            nonlocal status
            kind = message["type"]
            if kind == "http.response.start":
                status = message["status"]
                message["headers"] = language_headers(
                    guarded_headers(message.get("headers", ()), id_header, authorized),
                    language,
                    scope["path"],
                )
            elif kind == "http.response.body" and not message.get("more_body", False):
                # Counted before the answer's last part leaves: whoever holds the whole
                # answer finds it counted (a scrape right after it, from any worker).
                count()
            await send(message)

        try:
            if declared > limit:
                response = api_error_response(PayloadTooLarge(too_large(limit)))
                response.headers["connection"] = "close"
                await response(scope, receive, edge_send)
            else:
                # Only a body of unknown length is counted: one with a Content-Length cannot
                # outgrow it (the HTTP server reads no further), and that was checked above;
                # an HTTP/1 request with neither it nor a Transfer-Encoding has no body (RFC
                # 9112, 6.3), and a live stream's GET keeps its receive for its whole life.
                unknown = chunked or (declared < 0 and scope.get("http_version") not in HTTP_1)
                body_receive = counted_receive(receive, limit) if unknown else receive
                await self.app(scope, body_receive, edge_send)
        except ClientDisconnect:
            # Nobody is left to answer; the request's log line (at info) says 499.
            status = CLIENT_CLOSED
        except Exception as exc:
            if status:
                log.exception(
                    "error after the answer began", extra={"request_id": request_id.decode()}
                )
            else:
                response = await self.unexpected(scope, exc)
                await response(scope, receive, edge_send)
        finally:
            i18n.reset(language_token)
            if not counted:
                count()

    async def unexpected(self, scope: Scope, exc: Exception) -> Any:
        """The app's answer to an unexpected error (its handler for `Exception`)."""
        handlers = getattr(scope.get("app"), "exception_handlers", {})
        handler = handlers.get(Exception) or handlers.get(500)
        if handler is not None:
            try:
                return await handler(Request(scope), exc)
            except Exception:
                log.exception("the error handler failed")
        else:
            log.exception("unhandled error", exc_info=exc)
        return api_error_response(ApiError(N_("an unexpected error occurred; nothing was changed")))


def counted_receive(receive: Receive, limit: int) -> Receive:
    """`receive`, raising `PayloadTooLarge` once the body read passes `limit` bytes (made only
    for a body of unknown length: what every request made held as long as it lasted)."""
    seen = 0

    async def limited_receive() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise PayloadTooLarge(too_large(limit))
        return message

    return limited_receive


#: On every answer: a browser never reads one as anything but its declared type.
NOSNIFF: Final = (b"x-content-type-options", b"nosniff")
#: On every answer to a request carrying a token (a session's state, its tokens, a sealed
#: choice, a proof): kept by no cache, shared or private, unless the answer says otherwise.
NO_STORE: Final = (b"cache-control", b"no-store")


def guarded_headers(
    headers: Iterable[tuple[bytes, bytes]], id_header: tuple[bytes, bytes], authorized: bool
) -> list[tuple[bytes, bytes]]:
    """An answer's headers with its request id, `X-Content-Type-Options: nosniff`, and for a
    request sending `Authorization`, `Cache-Control: no-store`; a header the answer set
    itself is kept as it is."""
    found = [*headers, id_header]
    names = {name.lower() for name, _ in found}
    if NOSNIFF[0] not in names:
        found.append(NOSNIFF)
    if authorized and NO_STORE[0] not in names:
        found.append(NO_STORE)
    return found


#: The media types whose text is in the request's language (summaries, problem details, the
#: table page); the paths whose answers are not (the OpenAPI contract and its pages stay
#: English).
WORDED_TYPES: Final = (
    b"application/json",
    b"application/problem+json",
    b"text/plain",
    b"text/markdown",
    b"text/html",
    b"text/event-stream",
)
UNWORDED_PATHS: Final = ("/openapi.json", "/docs", "/redoc", "/metrics")


def language_headers(
    headers: list[tuple[bytes, bytes]], language: str, path: str
) -> list[tuple[bytes, bytes]]:
    """An answer whose text is in the request's language says which (`Content-Language`), and
    that it varies with `Accept-Language` (added to its `Vary`); one that names its language
    itself (the table page's strings, by their path) is left as it is."""
    if path.startswith(UNWORDED_PATHS) or any(name == b"content-language" for name, _ in headers):
        return headers
    content_type = next((value for name, value in headers if name == b"content-type"), None)
    if content_type is None or not content_type.startswith(WORDED_TYPES):
        return headers
    found: list[tuple[bytes, bytes]] = []
    varied = False
    for name, value in headers:
        if name.lower() == b"vary":
            varied = True
            if b"accept-language" not in value.lower() and value != b"*":
                value += b", Accept-Language"
        found.append((name, value))
    if not varied:
        found.append((b"vary", b"Accept-Language"))
    found.append((b"content-language", language.encode()))
    return found


def new_request_id() -> bytes:
    """A request id unique across processes: this process's random prefix and a counter
    (a request id names a request in the logs; it is no secret)."""
    return b"%s%016x" % (_id_prefix, next(_id_counter))


def _new_id_prefix() -> None:
    global _id_prefix
    _id_prefix = secrets.token_hex(8).encode()


_id_prefix = secrets.token_hex(8).encode()
_id_counter = itertools.count(1)
# A forked worker starts its own prefix, so that two workers never share an id.
os.register_at_fork(after_in_child=_new_id_prefix)


def resolve_template(scope: Scope) -> str:
    """The template of the route a request would have reached (for answers given before
    routing, such as 413 and 429), or `unmatched`."""
    router = getattr(scope.get("app"), "router", None)
    template: Callable[[Scope], str | None] | None = getattr(router, "template", None)
    found = template(scope) if template is not None else None
    return UNMATCHED if found is None else found


class LocalWindows:
    """The sliding window of each client, in this process (at most `max_clients` kept)."""

    def __init__(self, limit: int, window: float, max_clients: int) -> None:
        self.limit = limit
        self.window = window
        self.max_clients = max_clients
        self.hits: OrderedDict[str, deque[float]] = OrderedDict()

    def admit_at(self, client: str, now: float) -> float:
        """0 if the request is admitted, else the seconds until it would be."""
        hits = self.hits.get(client)
        if hits is None:
            hits = self.hits[client] = deque()
            if len(self.hits) > self.max_clients:
                self.hits.popitem(last=False)
        else:
            self.hits.move_to_end(client)
        horizon = now - self.window
        while hits and hits[0] <= horizon:
            hits.popleft()
        if len(hits) < self.limit:
            hits.append(now)
            return 0.0
        return hits[0] + self.window - now

    async def admit(self, client: str) -> float:
        return self.admit_at(client, time.monotonic())

    async def close(self) -> None:
        return None


#: One atomic step of a client's sliding window, on the Redis server's clock (so that
#: replicas with skewed clocks agree): drop hits older than the window, then admit and record
#: this one if fewer than the limit remain, else answer how long until the oldest leaves.
SLIDING_WINDOW_LUA: Final = """
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}
"""

#: How often the shared store's health is checked (a PING from a task of its own, off the
#: request path), and how long a check may take before Redis counts as unhealthy.
PROBE_INTERVAL_SECONDS: Final = 1.0
PROBE_TIMEOUT_SECONDS: Final = 0.5


class RedisWindows:
    """Every client's sliding window in Redis, shared by every worker and replica.

    Fails open, and no request waits on a Redis that does not answer: a probe (`_probe`, a
    task of its own) PINGs Redis every `PROBE_INTERVAL_SECONDS`, and requests use Redis only
    while its last PING was answered. A request's call that takes longer than `budget`
    seconds is given up (that request is limited by this process alone, `fallback`), marks
    Redis unhealthy at once and wakes the probe, so a Redis that hangs costs the requests
    in flight at most their budget and the requests after them nothing; the probe lets
    requests back once a PING is answered again. One warning when an outage begins and one
    line when it ends.
    """

    def __init__(
        self,
        url: str,
        prefix: str,
        limit: int,
        window: float,
        fallback: LocalWindows,
        budget: float = 0.005,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.limit = limit
        self.window_ms = int(window * 1000)
        self.fallback = fallback
        self.budget = budget
        # Members of a window must be unique across processes and replicas.
        self.member_prefix = secrets.token_hex(8) + ":"
        self.sequence = itertools.count()
        self.client: Any = None
        self.probe_client: Any = None
        self.script: Any = None
        self.loop: Any = None
        self.probe_task: asyncio.Task[None] | None = None
        #: Calls given up on (past their budget) and not yet ended.
        self.abandoned: set[asyncio.Future[Any]] = set()
        #: Whether requests use Redis: its last PING was answered, and no call since has
        #: overrun its budget (False until the first PING is answered).
        self.healthy = False
        #: An outage was logged (and its end will be).
        self.failing = False
        self._wake = asyncio.Event()
        self._checked = asyncio.Event()
        self._checks_begun = 0
        self._checks_done = 0

    async def start(self) -> None:
        """At startup: connect, and wait for the probe's first check (half a second at
        most), so that the first requests already share the windows."""
        self.connect()
        while self._checks_done < 1:
            self._checked.clear()
            await self._checked.wait()
        if self.healthy:
            # One connection open and the script loaded, so that the first request's call
            # is one round trip, well within its budget.
            with contextlib.suppress(TimeoutError, RedisError, OSError):
                async with asyncio.timeout(PROBE_TIMEOUT_SECONDS):
                    await self.client.script_load(SLIDING_WINDOW_LUA)

    def connect(self) -> None:
        """Connect (a client's connections belong to the event loop that made them) and
        start the probe; at startup, else by the first request."""
        self.loop = asyncio.get_running_loop()
        self.client = redis_asyncio.Redis.from_url(
            self.url, socket_connect_timeout=0.5, socket_timeout=0.5
        )
        # Its own connection: a PING never waits behind the requests' calls.
        self.probe_client = redis_asyncio.Redis.from_url(
            self.url,
            socket_connect_timeout=PROBE_TIMEOUT_SECONDS,
            socket_timeout=PROBE_TIMEOUT_SECONDS,
        )
        self.script = self.client.register_script(SLIDING_WINDOW_LUA)
        self._wake = asyncio.Event()
        self._checked = asyncio.Event()
        self._checks_begun = self._checks_done = 0
        self.healthy = False
        self.abandoned = set()
        self.probe_task = asyncio.create_task(self._probe())

    async def admit(self, client: str) -> float:
        if self.loop is not asyncio.get_running_loop():
            # Served by another event loop than the one that connected (an app run again, as
            # tests do): that loop's connections and probe are no use here.
            self.connect()
        if not self.healthy:
            return self.fallback.admit_at(client, time.monotonic())
        member = f"{self.member_prefix}{next(self.sequence)}"
        call = asyncio.ensure_future(
            self.script(keys=[self.prefix + client], args=[self.limit, self.window_ms, member])
        )
        done, _ = await asyncio.wait((call,), timeout=self.budget)
        try:
            if not done:
                # Not cancelled: its connection stays usable (a cancelled call would close
                # it, and the next call pay for a new one), and a late answer still counts
                # the request in the shared window. It ends by the socket timeout at most.
                self.abandoned.add(call)
                call.add_done_callback(self._forget)
                raise TimeoutError
            admitted, wait_ms = call.result()
        except (TimeoutError, RedisError, OSError):
            # Given up or failed: this request is limited here, and the next ones too until
            # the probe hears from Redis again.
            self.healthy = False
            self._wake.set()
            return self.fallback.admit_at(client, time.monotonic())
        return 0.0 if admitted else max(int(wait_ms), 1) / 1000.0

    def _forget(self, call: asyncio.Future[Any]) -> None:
        self.abandoned.discard(call)
        if not call.cancelled():
            call.exception()  # retrieved: a late failure is no news

    async def _probe(self) -> None:
        while True:
            self._wake.clear()
            self._checks_begun += 1
            await self._check()
            self._checks_done = self._checks_begun
            self._checked.set()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(PROBE_INTERVAL_SECONDS):
                    await self._wake.wait()

    async def _check(self) -> None:
        try:
            async with asyncio.timeout(PROBE_TIMEOUT_SECONDS):
                await self.probe_client.ping()
        except (TimeoutError, RedisError, OSError) as exc:
            self.healthy = False
            if not self.failing:
                self.failing = True
                log.warning(
                    "rate limit store unreachable, limiting per process until it returns: %s",
                    type(exc).__name__,
                )
            return
        if self.failing:
            self.failing = False
            log.warning("rate limit store reachable again")
        self.healthy = True

    async def next_check(self) -> bool:
        """Whether Redis answers, by a check begun now (the probe is woken for it)."""
        wanted = self._checks_begun + 1
        self._wake.set()
        while self._checks_done < wanted:
            self._checked.clear()
            await self._checked.wait()
        return self.healthy

    async def close(self) -> None:
        task, self.probe_task = self.probe_task, None
        for pending in (task, *self.abandoned):
            if pending is not None:
                pending.cancel()
                with contextlib.suppress(asyncio.CancelledError, TimeoutError, RedisError, OSError):
                    await pending
        for client in (self.client, self.probe_client):
            if client is not None:
                await client.aclose()
        self.client = self.probe_client = self.loop = None
        self.healthy = False


class RateLimit:
    """At most `per_minute` requests per client in any sliding 60 s, then 429 with Retry-After.

    A client is its address (which `Edge` has already taken from X-Forwarded-For when the
    peer is a trusted proxy), or its `X-Client-Key` when that key can be believed: one the
    operator handed out (`rate_limit_client_keys`), or any sane one a trusted proxy passes
    on. A key sent straight from a client is otherwise ignored: a new key a request would
    otherwise be a new client. The
    windows live in Redis when `redis_url` is set, so every worker and replica shares them;
    otherwise in this process.
    """

    EXEMPT: Final = frozenset({"/healthz", "/readyz", "/metrics"})
    WINDOW_SECONDS: Final = 60.0

    def __init__(
        self,
        app: ASGIApp,
        per_minute: int,
        max_clients: int = 10_000,
        *,
        settings: Settings | None = None,
    ) -> None:
        self.app = app
        self.per_minute = per_minute
        self.max_clients = max_clients
        self.settings = settings
        self.windows: LocalWindows | RedisWindows | None = None
        self.known_keys: frozenset[bytes] = frozenset()

    def bind(self, scope: Scope) -> LocalWindows | RedisWindows:
        settings = settings_of(scope, self.settings)
        self.known_keys = frozenset(
            key.strip().encode()
            for key in (settings.rate_limit_client_keys or "").split(",")
            if key.strip()
        )
        local = LocalWindows(self.per_minute, self.WINDOW_SECONDS, self.max_clients)
        self.windows = (
            RedisWindows(
                settings.redis_url,
                settings.rate_limit_redis_prefix,
                self.per_minute,
                self.WINDOW_SECONDS,
                local,
                budget=settings.rate_limit_redis_budget_ms / 1000,
            )
            if settings.redis_url
            else local
        )
        return self.windows

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        windows = self.windows or self.bind(scope)
        if scope["type"] == "lifespan":
            await self.app(scope, self._closing(receive, windows), send)
            return
        if scope["type"] != "http" or scope["path"] in self.EXEMPT:
            await self.app(scope, receive, send)
            return
        wait = await windows.admit(client_identity(scope, self.known_keys))
        if wait > 0.0:
            seconds = max(1, int(wait + 0.999))
            response = api_error_response(
                TooManyRequests(m("rate limit exceeded; retry in {seconds} s", seconds=seconds))
            )
            response.headers["retry-after"] = str(seconds)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _closing(receive: Receive, windows: LocalWindows | RedisWindows) -> Receive:
        async def closing_receive() -> Message:
            message = await receive()
            if message["type"] == "lifespan.startup" and isinstance(windows, RedisWindows):
                await windows.start()
            elif message["type"] == "lifespan.shutdown":
                await windows.close()
            return message

        return closing_receive


def client_identity(scope: Scope, known_keys: frozenset[bytes] = frozenset()) -> str:
    """The rate limit's key for a request: its client key (hashed) when it can be believed
    (one of `known_keys`, or passed on by a trusted proxy), else its address."""
    trusted = scope.get(VIA_TRUSTED_PROXY, False)
    for name, value in scope["headers"]:
        if (
            name == b"x-client-key"
            and SANE_CLIENT_KEY.fullmatch(value)
            and (trusted or value in known_keys)
        ):
            return "key:" + hashlib.blake2b(value, digest_size=16).hexdigest()
    client = scope.get("client")
    return "address:" + (client[0] if client else "unknown")


class MetricsRegistry:
    """The app's metrics, as `create_app` holds them: the process's prometheus registry.

    `templates` is kept for callers that still set it; labels come from the matched route.
    """

    def __init__(self) -> None:
        self.templates: dict[Any, str] = {}

    def render(self) -> str:
        return render_metrics()[0].decode()
