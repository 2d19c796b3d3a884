"""The HTTP server's protocol: uvicorn's httptools protocol with limits on a request's head.

uvicorn bounds neither a request's headers nor the time they take: a 16 MB header, a
hundred thousand headers, or a client sending one byte a second (slowloris) were all served
or held forever. `GuardedHttpTools` (`uvicorn --http app.serving:GuardedHttpTools`, as
`scripts/dev.py` serves) refuses, before the app sees the request:

* a head (request line and headers) over `max_header_bytes`, or with more than
  `max_headers` headers: 431, and the connection closed;
* a head not complete within `header_timeout_seconds` of its first byte, and a connection
  that sends nothing that long after it opens: 408, and the connection closed;
* a body not complete within `body_read_timeout_seconds` of its head: 408 (problem+json,
  if no answer has begun), and the connection closed. The app reads every body before it
  takes a lock or a database connection (app/api/sessions/lifecycle.py), so a slow body holds
  nothing shared meanwhile; once closed, the app sees the client gone.

A request whose body comes in the same reads as its head (almost every one) arms no timer.
Each refusal is worded in the request's language as far as its head says it (`?lang=`,
`Accept-Language`: docs/languages.md), and says which (`Content-Language`).

Between requests, an idle keep-alive connection is closed by uvicorn's own
`--timeout-keep-alive`. The app's settings (app/settings.py) give the limits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.api import i18n
from app.errors import RequestTimeout, api_error_response
from app.rules.messages import Message, m
from app.settings import get_settings


class HeadRefused(Exception):
    """A request's head over its limits: `said`, why."""

    def __init__(self, said: Message) -> None:
        super().__init__(said.template)
        self.said = said


def language_of(headers: Iterable[tuple[bytes, bytes]], target: bytes) -> str:
    """The language a request asks for, from its head as far as it came (its headers and its
    target's query)."""
    accept = next(
        (value.decode("latin-1") for name, value in headers if name.lower() == b"accept-language"),
        None,
    )
    return i18n.negotiate(accept, i18n.query_language(target.partition(b"?")[2]))


def lighten(event: asyncio.Event) -> None:
    """Keep `event`'s waiters in a list rather than a deque (those already waiting too).

    uvicorn gives each connection one event (its transport writable) and each request
    another (a message for the app): an empty deque is a 64-slot block, about 0.6 KB, so the
    two were some 1.2 KB of every open connection, a live stream's for its whole life
    (docs/performance.md). Each has a waiter or two at a time; `asyncio.Event` only appends
    its waiters, removes them and walks them, which a list does as well
    (tests/test_serving.py checks this on the running Python).
    """
    event._waiters = list(event._waiters)  # type: ignore[assignment]


class Pipeline(list[Any]):
    """uvicorn's queue of a connection's pipelined requests, as a list: it is empty nearly
    always, and an empty deque is a 64-slot block (about 0.6 KB) of every connection."""

    def appendleft(self, request: Any) -> None:
        self.insert(0, request)


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing heads over their size, count or time limits."""

    # Its own attributes in slots: uvicorn's stay in the instance's dictionary, which then
    # keeps the shared-key form every connection's shares (ours added there made each
    # connection a dictionary of its own, about 0.8 KB more: docs/performance.md).
    __slots__ = (
        "body_timeout",
        "body_timer",
        "head_bound",
        "head_bytes",
        "head_timeout",
        "head_timer",
        "in_head",
        "max_head_bytes",
        "max_headers",
        "read_size",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # uvicorn makes the list at a request's first byte; the checks read it before that.
        self.headers = []
        self.pipeline = Pipeline()  # type: ignore[assignment]
        settings = get_settings()
        self.max_head_bytes = settings.max_header_bytes
        self.max_headers = settings.max_headers
        self.head_timeout = settings.header_timeout_seconds
        self.body_timeout = settings.body_read_timeout_seconds
        self.body_timer: asyncio.TimerHandle | None = None
        #: Whether the next bytes are a request's head (till its headers are complete).
        self.in_head = True
        #: The bytes received while in a request's head, the size of the last read, and
        #: the size of the read the current request began in.
        self.head_bytes = 0
        self.read_size = 0
        self.head_bound = 0
        self.head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        lighten(self.flow._is_writable_event)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_body()
        super().connection_lost(exc)

    def _disarm_body(self) -> None:
        if self.body_timer is not None:
            self.body_timer.cancel()
            self.body_timer = None

    def _body_too_slow(self) -> None:
        self.body_timer = None
        cycle = self.cycle
        if cycle is None or not cycle.more_body or self.transport.is_closing():
            return
        if not cycle.response_started:
            late = RequestTimeout(
                m(
                    "the request body did not arrive within {seconds} s",
                    seconds=f"{self.body_timeout:g}",
                )
            )
            scope = cycle.scope
            language = language_of(scope["headers"], b"?" + scope["query_string"])
            with i18n.speaking(language):
                answer = api_error_response(late)
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/problem+json\r\n"
                b"content-language: %s\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
                % (language.encode(), len(answer.body), bytes(answer.body))
            )
        # Answered (or past answering): what the app would still send goes nowhere, and its
        # read of the body ends as the client's leaving.
        cycle.disconnected = True
        cycle.message_event.set()
        self.transport.close()

    def _arm(self) -> None:
        if self.head_timer is None:
            self.head_timer = self.loop.call_later(self.head_timeout, self._head_too_slow)

    def _disarm(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_too_slow(self) -> None:
        self.head_timer = None
        if self.in_head and not self.transport.is_closing():
            self._refuse(408, "Request Timeout", m("the request's headers took too long"))

    def _refuse(self, status: int, reason: str, message: Message) -> None:
        # (A connection that has sent nothing yet has no target.)
        language = language_of(self.headers, getattr(self, "url", b""))
        body = i18n.said(message, language).encode()
        self.transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-language: %s\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
            % (status, reason.encode("ascii"), language.encode(), len(body), body)
        )
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        self.read_size = len(data)
        if self.in_head:
            self.head_bytes += self.read_size
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as error:
            if isinstance(error.__context__, HeadRefused):
                self._refuse(431, "Request Header Fields Too Large", error.__context__.said)
                return
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Invalid HTTP request received.")
            return
        except httptools.HttpParserError:
            self.logger.warning("Invalid HTTP request received.")
            self.send_400_response("Invalid HTTP request received.")
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        if self.in_head:
            if self.head_bytes > self.max_head_bytes:
                # A head still arriving past the limit (httptools would buffer it all).
                self._refuse(
                    431,
                    "Request Header Fields Too Large",
                    m("the request's head is too large"),
                )
            elif len(self.headers) > self.max_headers:
                self._refuse(431, "Request Header Fields Too Large", too_many(self.max_headers))
            else:
                # A head begun and not complete in this read has its time from now; one that
                # arrives whole in one read, as nearly every head does, costs no timer.
                self._arm()
        elif (
            self.body_timer is None
            and self.cycle is not None
            and self.cycle.more_body
            and not self.cycle.response_complete
        ):
            # The head is in and the body is not: from now on it has its time.
            self.body_timer = self.loop.call_later(self.body_timeout, self._body_too_slow)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.in_head = True
        # The head can hold no more than the read it begins in and the reads after it.
        self.head_bound = self.read_size

    # The limits are checked once the head is parsed, not per header: an extra call for each
    # header and for the URL cost about a twentieth of a quick contest's instructions. A head
    # in the making is bounded meanwhile by the bytes read (data_received above).
    def on_headers_complete(self) -> None:
        self.in_head = False
        if len(self.headers) > self.max_headers:
            raise HeadRefused(too_many(self.max_headers))
        if self.head_bound + self.head_bytes > self.max_head_bytes and (
            len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
            > self.max_head_bytes
        ):
            raise HeadRefused(
                m("the request's head is over {limit} bytes", limit=self.max_head_bytes)
            )
        self.head_bytes = 0
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        previous = self.cycle
        super().on_headers_complete()
        if self.cycle is not previous:  # (an upgrade's head makes none)
            lighten(self.cycle.message_event)

    def on_message_complete(self) -> None:
        if self.body_timer is not None:
            self.body_timer.cancel()
            self.body_timer = None
        super().on_message_complete()


def too_many(limit: int) -> Message:
    """The 431 of a head with more than `limit` headers."""
    return m("more than {count} headers", count=limit)
