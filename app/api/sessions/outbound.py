"""The service's own outbound HTTP requests: a webhook's POST (docs/webhooks.md#delivery).

HTTP/1.1 through h11 (the protocol library uvicorn is built on) over asyncio's streams (TLS
for `https`, the host's certificate checked against its name):

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
import contextlib
import ipaddress
import socket
import ssl
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import cache, lru_cache
from urllib.parse import urlsplit

import h11

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
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname, port or default, target


def _bad_url(what: str | Message) -> InvalidInput:
    said = what if isinstance(what, Message) else term(what)
    return InvalidInput(
        m("the webhook's url must be {what}", what=said),
        errors=[{"loc": ["body", "url"], "msg": f"must be {english(said)}"}],
    )


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
    try:
        addresses = [str(ipaddress.ip_address(host.strip("[]")))]  # an address: no lookup
    except ValueError:
        loop = asyncio.get_running_loop()
        try:
            found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise Refused(f"{host} does not resolve ({exc.strerror or exc})") from None
        addresses = list(dict.fromkeys(str(entry[4][0]) for entry in found))
    if not addresses:
        raise Refused(f"{host} resolves to no address")
    if not allow_private:
        for address in addresses:
            why = refused_address(address)
            if why is not None:
                raise Refused(f"{host}: {why}")
    return addresses


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


#: Idle connections kept per destination, and for how long (a receiver's keep-alive timeout
#: is commonly 5 s or more; one closed meanwhile costs a retry on a new connection).
IDLE_PER_DESTINATION = 32
IDLE_SECONDS = 4.0


@dataclass(slots=True)
class _Link:
    """One open connection to a receiver, and the HTTP/1.1 state of its exchanges."""

    address: str
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    protocol: h11.Connection
    idle_since: float = 0.0

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError, ssl.SSLError, TimeoutError):
            await asyncio.wait_for(self.writer.wait_closed(), 1.0)


#: Per event loop (a connection belongs to its loop): destination -> idle connections.
_IDLE: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str, int], list[_Link]]
] = weakref.WeakKeyDictionary()


def _idle_links(destination: tuple[str, str, int]) -> list[_Link]:
    by_destination = _IDLE.setdefault(asyncio.get_running_loop(), {})
    return by_destination.setdefault(destination, [])


async def close_idle() -> None:
    """Close this event loop's kept connections (a worker stopping)."""
    kept = _IDLE.pop(asyncio.get_running_loop(), {})
    for links in kept.values():
        for link in links:
            await link.close()


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
    try:
        async with asyncio.timeout(total_timeout):
            addresses = await resolve(host, port, allow_private=allow_private)
            idle = _idle_links(destination)
            now = time.monotonic()
            while idle:
                link = idle.pop()
                if now - link.idle_since > IDLE_SECONDS or link.address not in addresses:
                    await link.close()
                    continue
                try:
                    return await _exchange(
                        link, destination, target, headers, body, max_answer_bytes, kept=True
                    )
                except _Stale:
                    continue  # closed by the receiver meanwhile: the next, or a new one
            link = await _connect(scheme, host, port, addresses, connect_timeout)
            try:
                return await _exchange(
                    link, destination, target, headers, body, max_answer_bytes, kept=False
                )
            except _Stale:
                raise Failed("the connection closed without an answer") from None
    except TimeoutError:
        raise Failed(f"no answer within {total_timeout:g} s") from None


async def _connect(
    scheme: str, host: str, port: int, addresses: list[str], timeout: float
) -> _Link:
    last: BaseException | None = None
    for address in addresses:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(
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
            return _Link(address, reader, writer, h11.Connection(our_role=h11.CLIENT))
    raise Failed(f"cannot connect to {host}:{port} ({_reason(last)})")


def _reason(exc: BaseException | None) -> str:
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return type(exc).__name__ if exc is not None else "no address"


async def _exchange(
    link: _Link,
    destination: tuple[str, str, int],
    target: str,
    headers: list[tuple[str, str]],
    body: bytes,
    max_answer_bytes: int,
    *,
    kept: bool,
) -> Answered:
    """One request and its answer on `link`, which goes back to the idle ones when both
    ended cleanly and is closed otherwise. `_Stale` when a kept link had been closed before
    any of the answer came."""
    scheme, host, port = destination
    connection = link.protocol
    default = 443 if scheme == "https" else 80
    authority = host if port == default else f"{host}:{port}"
    if ":" in host:
        authority = f"[{host}]" if port == default else f"[{host}]:{port}"
    sent = [
        ("Host", authority),
        ("User-Agent", USER_AGENT),
        ("Content-Length", str(len(body))),
        *headers,
    ]
    answer: h11.Response | None = None
    reusable = False
    try:
        # One write, so one segment for a small request (a system call each costs more than
        # the rest of the request's work on loopback).
        link.writer.write(
            b"".join(
                connection.send(event) or b""
                for event in (
                    h11.Request(method="POST", target=target, headers=sent),
                    h11.Data(data=body),
                    h11.EndOfMessage(),
                )
            )
        )
        await link.writer.drain()
        read = 0
        while True:
            event = connection.next_event()
            if event is h11.NEED_DATA:
                connection.receive_data(await link.reader.read(65536))
                continue
            if isinstance(event, h11.Response):
                answer = event
            elif isinstance(event, h11.Data):
                read += len(event.data)
                if read >= max_answer_bytes:
                    break  # enough of it: the status is what counts
            elif isinstance(event, h11.EndOfMessage):
                reusable = connection.our_state is h11.DONE and connection.their_state is h11.DONE
                break
            elif isinstance(event, h11.ConnectionClosed):
                break
    except (OSError, ssl.SSLError) as exc:
        await link.close()
        if kept and answer is None:
            raise _Stale from None
        raise Failed(f"the connection failed ({_reason(exc)})") from None
    except h11.RemoteProtocolError as exc:
        await link.close()
        if kept and answer is None:
            raise _Stale from None
        raise Failed(f"a malformed answer ({exc})") from None
    except BaseException:
        await link.close()  # a deadline or a cancellation mid-exchange
        raise
    if answer is None:
        await link.close()
        if kept:
            raise _Stale
        raise Failed("the connection closed without an answer")
    if reusable:
        connection.start_next_cycle()
        link.idle_since = time.monotonic()
        idle = _idle_links(destination)
        if len(idle) < IDLE_PER_DESTINATION:
            idle.append(link)
        else:
            await link.close()
    else:
        await link.close()
    return Answered(answer.status_code, _retry_after(answer.headers))


def _retry_after(headers: Sequence[tuple[bytes, bytes]]) -> float | None:
    for name, value in headers:
        if name.lower() != b"retry-after":
            continue
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
    return None
