"""The service's own outbound HTTP requests: a webhook's POST (docs/webhooks.md#delivery).

HTTP/1.1 over a protocol of the event loop's transports (TLS for `https`, the host's
certificate checked against its name). The request is a few lines of our own making, written
at once (its URL checked when the subscription was made: visible ASCII only, so nothing a
caller gave can end a line); the answer is read by httptools, the binding of llhttp (Node.js's
HTTP parser) that uvicorn serves with, one parser for each connection:

* the host is resolved first, and every address it resolves to is checked: a private,
  loopback, link-local (or otherwise not public) address is refused unless the operator
  allows them (`ARBITER_WEBHOOK_ALLOW_PRIVATE`); the connection then goes to an address so
  checked, so a name cannot be re-pointed between the check and the connection (SSRF);
* a deadline to connect, and one for the whole request with its answer;
* redirects are never followed (a 3xx is an answer like any other that is not 2xx);
* at most `max_answer_bytes` of the answer's body are read, then the connection is closed;
* a connection that ended its exchange cleanly is kept a few seconds for the next request
  to the same destination (keep-alive), reused only to an address the host still resolves to.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import cache, lru_cache
from typing import Any, cast
from urllib.parse import urlsplit

import httptools

from app.errors import InvalidInput
from app.rules.messages import N_, Message, english, m, term

#: The schemes a webhook's URL may have.
SCHEMES = ("http", "https")
MAX_URL = 2048
USER_AGENT = "Arbiter-Webhooks/1.0"


class Refused(Exception):
    """The request is not made: its URL or the addresses its host resolves to are refused."""


class Failed(Exception):
    """The request was made, or tried, and did not get an answer (refused connection, reset,
    timeout, malformed answer)."""


@dataclass(frozen=True, slots=True)
class Answered:
    status: int
    #: Seconds the receiver asked to wait (`Retry-After`), if it said.
    retry_after: float | None


@lru_cache(maxsize=1024)
def check_url(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, target) of a webhook URL, or `InvalidInput` naming what is wrong:
    http or https, a host, no credentials, no fragment, at most `MAX_URL` characters."""
    if len(url) > MAX_URL:
        raise _bad_url(m("at most {count} characters", count=MAX_URL))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _bad_url(m("not a URL ({why})", why=str(exc))) from None
    if parts.scheme not in SCHEMES:
        raise _bad_url(N_("an http or https URL"))
    if not parts.hostname:
        raise _bad_url(N_("a URL with a host"))
    if parts.username is not None or parts.password is not None:
        raise _bad_url(N_("a URL without credentials in it"))
    if parts.fragment:
        raise _bad_url(N_("a URL without a fragment"))
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if not _visible_ascii(parts.hostname) or not _visible_ascii(target):
        raise _bad_url(
            N_(
                "a URL of visible ASCII characters (its host in IDNA form, its path percent-encoded)"  # noqa: E501 - one message id
            )
        )
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname, port or default, target


def _visible_ascii(text: str) -> bool:
    """Whether `text` holds only visible ASCII characters: no space, control or non-ASCII
    character that could end a request line or a header, or be sent otherwise than typed."""
    return text.isascii() and text.isprintable() and " " not in text


def _bad_url(what: str | Message) -> InvalidInput:
    said = what if isinstance(what, Message) else term(what)
    return InvalidInput(
        m("the webhook's url must be {what}", what=said),
        errors=[{"loc": ["body", "url"], "msg": f"must be {english(said)}"}],
    )


@lru_cache(maxsize=4096)
def refused_address(address: str) -> str | None:
    """Why `address` is refused as a webhook's destination (not a public address), or None."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return f"{ip} is a loopback address"
    if ip.is_link_local:
        return f"{ip} is a link-local address"
    if ip.is_private:
        return f"{ip} is a private address"
    if not ip.is_global or ip.is_multicast:
        return f"{ip} is not a public address"
    return None


async def resolve(host: str, port: int, *, allow_private: bool) -> list[str]:
    """The addresses `host` resolves to, every one checked (`Refused` naming the first that
    is not allowed, or when it resolves to none)."""
    literal = _address(host)
    addresses = [literal] if literal is not None else await _lookup(host, port)
    if not addresses:
        raise Refused(f"{host} resolves to no address")
    if not allow_private:
        for address in addresses:
            why = refused_address(address)
            if why is not None:
                raise Refused(f"{host}: {why}")
    return addresses


#: How long a host's addresses are used before it is looked up again (as aiohttp's connector
#: caches them by default), and for how many hosts at most: a lookup is a thread's work, and
#: a busy receiver gets a delivery every few milliseconds. Whatever the source, every address
#: is checked at each delivery and the connection goes to one so checked.
DNS_TTL_SECONDS = 10.0
DNS_KEPT = 1024
#: (host, port) -> (when it was looked up, on `time.monotonic`; its addresses).
_LOOKED_UP: dict[tuple[str, int], tuple[float, list[str]]] = {}


async def _lookup(host: str, port: int) -> list[str]:
    """The addresses a host name resolves to: as looked up within `DNS_TTL_SECONDS`, else
    looked up now (`Refused` when that fails; a failure is not kept)."""
    now = time.monotonic()
    kept = _LOOKED_UP.get((host, port))
    if kept is not None and now - kept[0] < DNS_TTL_SECONDS:
        return kept[1]
    try:
        found = await _getaddrinfo(host, port)
    except OSError as exc:
        raise Refused(f"{host} does not resolve ({exc.strerror or exc})") from None
    addresses = list(dict.fromkeys(str(entry[4][0]) for entry in found))
    if len(_LOOKED_UP) >= DNS_KEPT:
        _LOOKED_UP.clear()  # a bound, seldom met: each host is then looked up again once
    _LOOKED_UP[(host, port)] = (now, addresses)
    return addresses


async def _getaddrinfo(host: str, port: int) -> list[Any]:
    found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(found)


@lru_cache(maxsize=1024)
def _address(host: str) -> str | None:
    """`host` as an IP address written the usual way, if it is one (no lookup needed)."""
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


#: Idle connections kept per destination, and for how long (a receiver's keep-alive timeout
#: is commonly 5 s or more; one closed meanwhile costs a retry on a new connection).
IDLE_PER_DESTINATION = 32
IDLE_SECONDS = 4.0


class _Link(asyncio.Protocol):
    """One open connection to a receiver: a protocol of the event loop's own transport (no
    stream objects between), its answers read by one httptools parser for the connection's
    life. One exchange at a time: `exchange` writes a request and awaits its answer."""

    def __init__(self) -> None:
        self.address = ""
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.idle_since = 0.0
        self.closed = False
        #: The exchange under way: its answer (set when it is read, or the link fails).
        self.answer: asyncio.Future[Answered] | None = None
        self.status: int | None = None
        self.retry_after: bytes | None = None
        self.read = 0
        self.cap = 0
        #: Whether any of the answer came, and whether it ended cleanly and may be followed
        #: by another request on this connection.
        self.heard = False
        self.reusable = False
        #: Whether the link was kept from an earlier exchange (a receiver may have closed it).
        self.kept = False

    # --- the loop's calls ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport (uvloop's is one without deriving from asyncio's class).
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self.answer is None or self.answer.done():
            self.close()  # nothing asked: a receiver talking out of turn is not kept
            return
        self.heard = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(Failed(f"a malformed answer ({exc})"))
            return
        except httptools.HttpParserUpgrade:
            self._fail(Failed("a malformed answer (an upgrade)"))
            return
        if self.read >= self.cap and self.status is not None and not self.answer.done():
            # Read up to the cap: the answer as it stands, the connection not kept.
            self._answered(reusable=False)

    def eof_received(self) -> bool:
        return False  # the transport closes itself: `connection_lost` follows

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.answer is None or self.answer.done():
            return
        if self.status is not None:
            # An answer without a length ends with its connection.
            self._answered(reusable=False)
        elif not self.heard and self.kept:
            self.answer.set_exception(_Stale())
        elif exc is not None:
            self.answer.set_exception(Failed(f"the connection failed ({_reason(exc)})"))
        else:
            self.answer.set_exception(Failed("the connection closed without an answer"))

    # --- the parser's calls -------------------------------------------------------------

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() == b"retry-after":
            self.retry_after = value

    def on_headers_complete(self) -> None:
        self.status = self.parser.get_status_code()

    def on_body(self, body: bytes) -> None:
        self.read += len(body)

    def on_message_complete(self) -> None:
        if self.status is not None and self.status >= 200:
            # Asked now: once the message is done the parser is ready for the next one.
            self._answered(reusable=self.parser.should_keep_alive())
        else:  # an informational answer (100 Continue): the answer follows it
            self.status = self.retry_after = None

    # --- ours ---------------------------------------------------------------------------

    def _answered(self, *, reusable: bool) -> None:
        assert self.answer is not None
        assert self.status is not None
        self.reusable = reusable
        self.answer.set_result(Answered(self.status, _retry_after(self.retry_after)))

    def _fail(self, failure: Exception) -> None:
        assert self.answer is not None
        self.answer.set_exception(failure)
        self.close()

    async def exchange(self, request: bytes, max_answer_bytes: int, *, kept: bool) -> Answered:
        """Write `request` and await its answer (`_Stale` when a kept link had been closed
        before any of the answer came; `Failed` when no answer came)."""
        assert self.transport is not None
        if self.closed or self.transport.is_closing():
            if kept:
                raise _Stale
            raise Failed("the connection closed without an answer")
        self.answer = asyncio.get_running_loop().create_future()
        self.status = self.retry_after = None
        self.read = 0
        self.cap = max_answer_bytes
        self.heard = self.reusable = False
        self.kept = kept
        # One write, so one segment for a small request (a system call each costs more than
        # the rest of the request's work on loopback).
        self.transport.write(request)
        try:
            return await self.answer
        except BaseException:
            self.close()  # a failure, a deadline or a cancellation mid-exchange
            raise

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


#: Per event loop (a connection belongs to its loop): destination -> idle connections.
_IDLE: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str, int], list[_Link]]
] = weakref.WeakKeyDictionary()


def _idle_links(
    destination: tuple[str, str, int], loop: asyncio.AbstractEventLoop | None = None
) -> list[_Link]:
    by_destination = _IDLE.setdefault(loop or asyncio.get_running_loop(), {})
    return by_destination.setdefault(destination, [])


async def close_idle() -> None:
    """Close this event loop's kept connections (a worker stopping)."""
    kept = _IDLE.pop(asyncio.get_running_loop(), {})
    for links in kept.values():
        for link in links:
            link.close()


class _Stale(Exception):
    """A kept connection the receiver had closed before our request: try a new one."""


async def post(
    url: str,
    headers: list[tuple[str, str]],
    body: bytes,
    *,
    allow_private: bool,
    connect_timeout: float,
    total_timeout: float,
    max_answer_bytes: int,
) -> Answered:
    """POST `body` to `url` with `headers` (besides Host, Content-Length and User-Agent): its
    answer's status and Retry-After. `Refused` before any connection is made to a refused
    address; `Failed` when no answer came within the deadlines.

    A connection is kept for the next request to the same destination (HTTP/1.1 keep-alive)
    when the exchange ended cleanly, and reused only if its address is among those the host
    resolves to now (each checked)."""
    scheme, host, port, target = check_url(url)
    destination = (scheme, host, port)
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(total_timeout):
            addresses = await resolve(host, port, allow_private=allow_private)
            request = _request(_authority(scheme, host, port), target, headers, body)
            idle = _idle_links(destination, loop)
            now = time.monotonic()
            while idle:
                link = idle.pop()
                if now - link.idle_since > IDLE_SECONDS or link.address not in addresses:
                    link.close()
                    continue
                try:
                    answer = await link.exchange(request, max_answer_bytes, kept=True)
                except _Stale:
                    continue  # closed by the receiver meanwhile: the next, or a new one
                _keep(link, destination, loop)
                return answer
            link = await _connect(scheme, host, port, addresses, connect_timeout)
            try:
                answer = await link.exchange(request, max_answer_bytes, kept=False)
            except _Stale:
                raise Failed("the connection closed without an answer") from None
            _keep(link, destination, loop)
            return answer
    except TimeoutError:
        raise Failed(f"no answer within {total_timeout:g} s") from None


def _keep(link: _Link, destination: tuple[str, str, int], loop: asyncio.AbstractEventLoop) -> None:
    """Back to the idle ones if its exchange ended cleanly; closed otherwise."""
    if not link.reusable or link.closed:
        link.close()  # not read to its end (too long, or closed): not reused
        return
    link.idle_since = time.monotonic()
    idle = _idle_links(destination, loop)
    if len(idle) < IDLE_PER_DESTINATION:
        idle.append(link)
    else:
        link.close()


async def _connect(
    scheme: str, host: str, port: int, addresses: list[str], timeout: float
) -> _Link:
    last: BaseException | None = None
    loop = asyncio.get_running_loop()
    for address in addresses:
        try:
            _transport, link = await asyncio.wait_for(
                loop.create_connection(
                    _Link,
                    address,
                    port,
                    ssl=_tls() if scheme == "https" else None,
                    server_hostname=host if scheme == "https" else None,
                ),
                timeout,
            )
        except (OSError, TimeoutError, ssl.SSLError) as exc:
            last = exc
        else:
            link.address = address
            return link
    raise Failed(f"cannot connect to {host}:{port} ({_reason(last)})")


def _reason(exc: BaseException | None) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__ if exc is not None else "no address"


@lru_cache(maxsize=1024)
def _authority(scheme: str, host: str, port: int) -> str:
    """The Host header's value: the port written only when not the scheme's own."""
    default = 443 if scheme == "https" else 80
    named = f"[{host}]" if ":" in host else host
    return named if port == default else f"{named}:{port}"


def _request(authority: str, target: str, headers: list[tuple[str, str]], body: bytes) -> bytes:
    """A POST's bytes: its head (each header's value checked to be one line) and body."""
    lines = [
        f"POST {target} HTTP/1.1",
        f"Host: {authority}",
        f"User-Agent: {USER_AGENT}",
        f"Content-Length: {len(body)}",
    ]
    for name, value in headers:
        if not _visible_ascii(name) or not value.isascii() or "\r" in value or "\n" in value:
            raise ValueError(f"a header that is not one line of ASCII: {name!r}")
        lines.append(f"{name}: {value}")
    lines.append("\r\n")
    return "\r\n".join(lines).encode("ascii") + body


def _retry_after(value: bytes | None) -> float | None:
    """The seconds a `Retry-After` value asks to wait (a number of seconds or an HTTP date)."""
    if value is None:
        return None
    text = value.decode("latin-1").strip()
    if text.isdigit():
        return float(text)
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - datetime.now(UTC)).total_seconds())
