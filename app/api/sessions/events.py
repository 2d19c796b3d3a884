"""Live events of a session: `GET /v1/{kind}/{id}/events` (docs/api.md#live-events).

A `text/event-stream` of the session's changes, one event per change, in version order:

    id: 7
    event: round
    data: {"round": {...}, "session": {...}, "summary": "..."}

`id` is the session's version after the change and `data` the JSON the change's own answer
carries (never a token; a sealed choice's `submitted` event says who, never what), as the
stream's token may read it: a party's token reads round records as the kind shows them to that
party (a bidding game's losing actions are that party's and the GM's alone). A stream
opened without `Last-Event-ID` starts with the session as it is (`event: session`, `data:
{"session": ...}`, `id` its version); with `Last-Event-ID: n`, it resumes with the changes
after version n. When those are no longer kept (a process keeps its last changes: see
app/store/notify.py), or one is lost, the stream shows the session as it is instead, as a
`session` event, and carries on from there. A `deleted` event ends the stream. A comment
line (`: keep-alive`) every `KEEPALIVE_S` seconds keeps idle streams open through proxies.

A process serves at most `events_max_streams` streams in all, `events_max_streams_per_session`
of one session and `events_max_streams_per_token` opened with one token (app/settings.py); past
any, a new stream is refused with 429 and `Retry-After`. The caps are per process (a deployment
of N processes serves N times as many). A stream's slot is given back when it ends, or its
client goes away.

What a stream holds while open is kept small (docs/performance.md, "Live-event fan-out"): its
opening `session` frame is bytes made once for every stream opening on that version (never
the session's record), an event's frame is encoded once for every stream, or once for each
party a kind shows less of it, and a burst of streams ending hands the C allocator's free
memory back to the system (`MemoryTrim`).

A stream whose client reads so slowly that it falls more than `BEHIND_LIMIT` events behind is
ended (app/store/notify.py); its client resumes with `Last-Event-ID`, as a browser's
EventSource does by itself.

On PostgreSQL every server process and replica sees every other's changes (LISTEN/NOTIFY);
on SQLite, a stream sees the changes made by the process serving it only.

How the app uses it: `start_events(app, url)` / `stop_events(app)` in the lifespan; the
lifecycle calls `publish(...)` after each committed change and routes `stream_events` per kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import hashlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Final

import orjson
from fastapi import FastAPI, Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from app.api import i18n
from app.api.kinds import AnyKind, LiveEvent
from app.api.sessions.presentation import session_answer
from app.api.sessions.security import bearer_token, role_of
from app.api.sessions.work import unit_of_work
from app.api.stopping import on_stop
from app.errors import ServiceUnavailable, TooManyStreams, not_found
from app.rules.messages import N_, m
from app.settings import Settings
from app.store import repository
from app.store.database import Store, Transaction
from app.store.notify import Ended, Event, Gap, Hub, Subscription, sse_frame
from app.store.repository import SessionRecord

#: Seconds between keep-alive comments on an idle stream (proxies close silent ones).
KEEPALIVE_S = 15.0
#: What a `submitted` event may show of its answer: who submitted, never what.
SUBMITTED_KEYS = ("submitted", "party", "waiting_for", "session", "summary")
KEEPALIVE = b": keep-alive\n\n"
#: A stream's answer headers (`X-Accel-Buffering: no`: nginx passes each event on at once).
STREAM_HEADERS: Final = (
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
    (b"content-type", b"text/event-stream; charset=utf-8"),
)
#: The start of a creation's tokens: a change's answer never carries them, but an event must
#: not even by mistake.
_TOKENS = b'"tokens":{"gm"'
#: What a refused stream is asked to wait before trying again, in seconds.
STREAMS_RETRY_AFTER_S = 5
#: Streams ended since the C allocator's free memory was last handed back, before it is
#: again (`MemoryTrim`), and how long after the last of them.
TRIM_AFTER = 256
TRIM_DELAY_S = 1.0
#: After a trim, streams ending within this long are the same burst's tail: trimmed after
#: however few they are.
TRIM_BURST_S = 10.0
#: Sessions whose opening `session` frame is kept, shared by the streams opening at once.
OPENINGS_KEPT = 64


class StreamSlots:
    """The streams this process serves, counted in all, by session and by token, each under
    its cap; a burst of streams ending gives the memory they held back (`MemoryTrim`)."""

    def __init__(self, per_session: int, per_token: int, per_process: int = 10_000) -> None:
        self.per_session = per_session
        self.per_token = per_token
        self.per_process = per_process
        self.total = 0
        self.by_session: dict[str, int] = {}
        #: Keyed by a digest of the token: the count never holds a usable secret.
        self.by_token: dict[bytes, int] = {}
        self.trim = MemoryTrim()

    @classmethod
    def for_settings(cls, settings: Settings) -> StreamSlots:
        return cls(
            settings.events_max_streams_per_session,
            settings.events_max_streams_per_token,
            settings.events_max_streams,
        )

    def claim(self, session_id: str, token: str) -> StreamSlot:
        """Take a slot for a new stream, or raise `TooManyStreams`; returns what gives it
        back (calling it again does nothing)."""
        holder = hashlib.blake2b(token.encode(), digest_size=16).digest()
        if self.total >= self.per_process:
            raise TooManyStreams(
                m(
                    "this server has {count} live streams already; retry in {seconds} s",
                    count=self.per_process,
                    seconds=STREAMS_RETRY_AFTER_S,
                ),
                retry_after=STREAMS_RETRY_AFTER_S,
            )
        if self.by_session.get(session_id, 0) >= self.per_session:
            raise TooManyStreams(
                m(
                    "this session has {count} live streams already; retry in {seconds} s",
                    count=self.per_session,
                    seconds=STREAMS_RETRY_AFTER_S,
                ),
                retry_after=STREAMS_RETRY_AFTER_S,
            )
        if self.by_token.get(holder, 0) >= self.per_token:
            raise TooManyStreams(
                m(
                    "this token has {count} live streams open already; retry in {seconds} s",
                    count=self.per_token,
                    seconds=STREAMS_RETRY_AFTER_S,
                ),
                retry_after=STREAMS_RETRY_AFTER_S,
            )
        self.total += 1
        self.by_session[session_id] = self.by_session.get(session_id, 0) + 1
        self.by_token[holder] = self.by_token.get(holder, 0) + 1
        return StreamSlot(self, session_id, holder)

    def release(self, session_id: str, holder: bytes) -> None:
        self.total -= 1
        _decrement(self.by_session, session_id)
        _decrement(self.by_token, holder)
        self.trim.ended()

    def streams(self, session_id: str) -> int:
        """The slots a session's streams hold now."""
        return self.by_session.get(session_id, 0)


class StreamSlot:
    """One stream's slot (`StreamSlots.claim`): calling it gives the slot back, and closes
    the stream's subscription when it has one; calling it again does nothing. One small
    object a stream, where two closures and their cells were."""

    __slots__ = ("holder", "session_id", "slots", "subscription")

    def __init__(self, slots: StreamSlots, session_id: str, holder: bytes) -> None:
        self.slots: StreamSlots | None = slots
        self.session_id = session_id
        self.holder = holder
        self.subscription: Subscription | None = None

    def __call__(self) -> None:
        if self.subscription is not None:
            self.subscription.close()
            self.subscription = None
        slots = self.slots
        if slots is not None:
            self.slots = None
            slots.release(self.session_id, self.holder)


def _glibc_malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library is another (musl, macOS)."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


_malloc_trim = _glibc_malloc_trim()


class MemoryTrim:
    """Hands back to the system the memory a burst of ended streams leaves in glibc's heaps.

    Freed, a stream's blocks over 512 bytes (its connection's buffers, larger strings) stay in
    glibc's heaps: after 2,000 streams of one session closed, `malloc_trim(0)` gave back 9 MB
    of what the process kept (38 MB before a stream stopped holding its session's record;
    docs/performance.md, "Live-event fan-out"). The interpreter's own arenas, which hold
    the rest, are not glibc's to trim. `malloc_trim` walks the heaps, so it runs once, in a
    worker thread (the call leaves the interpreter's lock), `TRIM_DELAY_S` after `TRIM_AFTER`
    streams have ended since the last time, and again after the burst's tail
    (`TRIM_BURST_S`): never once a stream.
    """

    def __init__(self) -> None:
        self.ended_since = 0
        self.due: asyncio.TimerHandle | None = None
        #: Until when (the loop's clock) streams ending are the tail of a burst just trimmed
        #: after: any one of them is trimmed after too.
        self.burst_until = 0.0
        #: How many times the memory was handed back (tests read it).
        self.trims = 0

    def ended(self) -> None:
        self.ended_since += 1
        if self.due is not None or _malloc_trim is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self.ended_since >= TRIM_AFTER or loop.time() < self.burst_until:
            self.due = loop.call_later(TRIM_DELAY_S, self._trim, loop)

    def _trim(self, loop: asyncio.AbstractEventLoop) -> None:
        self.due = None
        self.ended_since = 0
        self.trims += 1
        self.burst_until = loop.time() + TRIM_BURST_S
        if _malloc_trim is not None:
            # The executor is gone once the server has stopped: nothing is left to trim for.
            with contextlib.suppress(RuntimeError):
                loop.run_in_executor(None, _malloc_trim, 0)


def _decrement(counts: dict[Any, int], key: Any) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]


def hub_of(app: FastAPI) -> Hub | None:
    hub: Hub | None = getattr(app.state, "events", None)
    return hub


def slots_of(app: FastAPI) -> StreamSlots:
    slots: StreamSlots | None = getattr(app.state, "event_slots", None)
    if slots is None:
        settings = getattr(app.state, "settings", None)
        slots = StreamSlots.for_settings(settings if isinstance(settings, Settings) else Settings())
        app.state.event_slots = slots
    return slots


async def start_events(app: FastAPI, database_url: str) -> Hub:
    """The process's live events: on PostgreSQL, its listening connection opens now."""
    hub = Hub.for_url(database_url)
    await hub.start()
    app.state.events = hub
    slots_of(app)
    app.state.events_unwatch = _end_streams_on_exit(hub)
    return hub


def _end_streams_on_exit(hub: Hub) -> Callable[[], None]:
    """End the streams when the server is told to stop (SIGTERM, SIGINT); what it returns
    takes that away again (`stop_events`).

    A server shutting down gracefully waits for its responses to finish, and a stream never
    does: without this a rolling deploy would hang on every open stream. The server's own
    handler still runs; clients resume on another process with `Last-Event-ID`.
    """
    loop = asyncio.get_running_loop()

    def end_streams() -> None:
        # A signal after the loop closed (a second one during shutdown) has no stream left
        # to end, and still reaches the handler before this one.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(hub.end_streams)

    return on_stop(end_streams)


async def stop_events(app: FastAPI) -> None:
    unwatch = getattr(app.state, "events_unwatch", None)
    if unwatch is not None:
        unwatch()
    hub = hub_of(app)
    if hub is not None:
        await hub.stop()


def event_data(session_id: str, name: str, body: bytes) -> bytes:
    """What an event shows of a change's answer `body`: never a token, never a sealed choice."""
    if not body:
        return orjson.dumps({"id": session_id})  # a deletion answers nothing
    if name == "submitted":
        answer = orjson.loads(body)
        return orjson.dumps({key: answer[key] for key in SUBMITTED_KEYS if key in answer})
    if _TOKENS in body:
        answer = orjson.loads(body)
        if isinstance(answer, dict):
            answer.pop("tokens", None)
            return orjson.dumps(answer)
    return body


#: A change's answer in a language (its JSON bytes), for the streams that ask for one.
Translate = Callable[[str], bytes]


@dataclass(frozen=True, slots=True)
class SaidEvent(Event):
    """An event published by this process, which can be shown in another language: `said`
    makes the change's answer in a language; `languages` keeps what it made, once per
    language for every stream of the session, and for the other processes streaming it in
    that language (docs/languages.md)."""

    said: Translate | None = field(default=None, repr=False, compare=False)

    def data_in(self, language: str) -> bytes | None:
        """The event's data in `language` (made the first time a stream asks for it, while
        the event is among the process's last `RECENT_TRANSLATABLE`; None after that)."""
        data = self.languages.get(language)
        if data is None:
            if self.said is None:
                return None
            data = event_data(self.session_id, self.name, self.said(language))
            self.languages[language] = data
        return data

    def settle(self) -> None:
        """Let go of `said` (and with it the change and the session it was made from)."""
        object.__setattr__(self, "said", None)


def publish(
    app: FastAPI,
    session_id: str,
    version: int,
    name: str,
    body: bytes,
    said: Translate | None = None,
) -> None:
    """Announce a committed change of a session (call it after the commit, never before):
    `version` is the session's version after the change, `name` the event (`round`,
    `submitted`, `revealed`, `granted`, `ended`, `deleted`, ...) and `body` the change's own
    answer (JSON bytes; empty for a deletion), in English; `said`, when given, makes that
    answer in another language for the streams asking for one. Costs next to nothing when
    nobody streams."""
    hub = hub_of(app)
    if hub is not None:
        data = event_data(session_id, name, body)
        hub.publish(
            Event(session_id, version, name, data)
            if said is None or not body
            else SaidEvent(session_id, version, name, data, said=said)
        )


def _last_event_id(request: Request) -> int | None:
    value = request.headers.get("last-event-id", "").strip()
    return int(value) if value.isdigit() and len(value) < 19 else None


async def read_session(store: Store, kind: AnyKind, session_id: str) -> SessionRecord | None:
    """The session as stored now (None once it is gone), read in a transaction of its own."""

    async def transaction(connection: Transaction) -> SessionRecord | None:
        return await repository.get_session(connection, session_id, kind.path, lock=False)

    return await store.run("read", transaction)


async def stream_events(kind: AnyKind, request: Request, session_id: str) -> Response:
    """Live events of the session (any token of it), as `text/event-stream`.

    One event per change, `id` = the session's version after it; `Last-Event-ID` resumes
    after that version. A `: keep-alive` comment comes every 15 s.
    """
    token = bearer_token(request)
    hub = hub_of(request.app)
    if hub is None:
        raise ServiceUnavailable(N_("live events are not running"))
    store = unit_of_work(request).store
    record = await read_session(store, kind, session_id)
    role = None if record is None else role_of(token, record)
    if record is None or role is None:
        raise not_found(kind.title, session_id)
    party = None if role.is_gm else role.party
    slot = slots_of(request.app).claim(session_id, token)
    last = _last_event_id(request)
    resumed = last is not None and last <= record.version
    after = last if resumed and last is not None else record.version
    language = i18n.current()
    subscription = slot.subscription = hub.subscribe(session_id, after, language)
    subscription.expect(record.version)
    opening = None if resumed else session_frame(request.app, kind, record, language)
    stream = _stream(kind, store, subscription, opening, party, request.app, language)
    return EventStream(stream, subscription.end, slot)


def session_frame(
    app: FastAPI, kind: AnyKind, record: SessionRecord, language: str = i18n.DEFAULT
) -> bytes:
    """The `session` event of the session as `record` holds it, in `language`, made once for
    every stream opening on the same version in that language: a version is one state, the
    same for every token. Streams keep the frame (bytes), never the record (a race's is a
    tree of thousands of objects)."""
    kept: dict[tuple[str, str, int, str], bytes] | None = getattr(app.state, "event_openings", None)
    if kept is None:
        kept = app.state.event_openings = {}
    key = (kind.path, record.id, record.version, language)
    frame = kept.get(key)
    if frame is None:
        with i18n.speaking(language):
            frame = sse_frame("session", record.version, _session_data(kind, record))
        if len(kept) >= OPENINGS_KEPT:
            del kept[next(iter(kept))]
        kept[key] = frame
    return frame


class EventStream(Response):
    """A `text/event-stream` answer, written by the request's own task.

    A client going away ends the stream at once (`gone`, called by a task that waits for the
    disconnect), and whatever the stream holds (its subscription, its slot) is given back
    however it ends: its last event, the client gone (before the first event too), or the
    server stopping (`closed`). Leaner than Starlette's `StreamingResponse`, whose task
    group (two more tasks and their cancel scopes a stream) thousands of streams would keep
    in memory for the collector to walk.
    """

    media_type = "text/event-stream"

    def __init__(
        self, events: AsyncIterator[bytes], gone: Callable[[], None], closed: Callable[[], None]
    ) -> None:
        self.status_code = 200
        self.background = None
        self.events = events
        self.gone = gone
        self.closed = closed
        # A list of its own (a header set later changes it in place), of shared pairs.
        self.raw_headers = list(STREAM_HEADERS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: ARG002 - one stream, whatever its scope
        watcher = asyncio.ensure_future(_disconnected(receive))
        watcher.add_done_callback(lambda _: self.gone())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            async for chunk in self.events:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            watcher.cancel()
            self.closed()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


@dataclass(frozen=True, slots=True)
class EventsDoc:
    """How `GET …/events` is documented: a stream of text, not JSON, each event described."""

    response_class: type[Response]
    responses: dict[int | str, dict[str, Any]]
    openapi_extra: dict[str, Any]


LAST_EVENT_ID: Final = {
    "name": "Last-Event-ID",
    "in": "header",
    "required": False,
    "description": "Resume after this version (the `id:` of the last event read): the stream "
    "starts with the changes after it, or with a `session` event when those are no longer "
    "kept. Without it (or with a value that is no version: not a whole number of at most 18 "
    "digits, which is ignored), the stream starts with a `session` event.",
    "schema": {"type": "string"},
}


def events_doc(prefix: str, kind: AnyKind, *, plays_rounds: bool) -> EventsDoc:
    """The document's account of one kind's stream (`prefix` names the kind's schemas:
    `ArmWrestle`): the 200 is `text/event-stream`, a string, its events each described with
    the schema of their `data:`."""
    events = [LiveEvent("session", f"{prefix}Session", "")]
    if plays_rounds:
        events += [
            LiveEvent("round", f"{prefix}RoundAnswer", "`POST …/rounds`"),
            LiveEvent("round", f"{prefix}Resolved", "`POST …/resolve`"),
            LiveEvent("pending", f"{prefix}Waiting", "`POST …/rounds` with `collect`"),
            LiveEvent(
                "dice-in",
                f"{prefix}Waiting",
                "`POST …/rounds/pending/dice` or `…/roll-for` (who, never what)",
            ),
            LiveEvent(
                "round",
                f"{prefix}RoundAnswer",
                "the last dice of a round waiting for them, or its deadline passing",
            ),
            LiveEvent("pending-cancelled", f"{prefix}Changed", "`DELETE …/rounds/pending`"),
        ]
    events += kind.events
    events.append(
        LiveEvent("seed", f"{prefix}SeedAdded", "`POST …/seeds` (a verifiable session's seed)")
    )
    events.append(LiveEvent("deleted", "", "`DELETE …/{session_id}`"))
    return EventsDoc(
        StreamingResponse,
        {
            200: {
                "description": _events_description(events),
                "content": {
                    "text/event-stream": {
                        # Text read as it comes: a generated client keeps it a string.
                        "schema": {"type": "string"},
                        "example": _EXAMPLE,
                    }
                },
            }
        },
        {"parameters": [LAST_EVENT_ID]},
    )


_EXAMPLE = (
    'id: 1\nevent: session\ndata: {"session": {"id": "…", "version": 1, …}}\n\n'
    ": keep-alive\n\n"
    'id: 2\nevent: round\ndata: {"round": {…}, "session": {…}, "summary": "…"}\n\n'
)


def shown_to(kind: AnyKind, party: str | None, data: bytes) -> bytes:
    """An event's data as the stream's token reads it: whole for the GM (`party` None) and for
    kinds that show every token every record; else its round records as the kind shows them to
    `party` (`ContestKind.round_view`: a bidding game's losing actions)."""
    view = kind.round_view
    if view is None or party is None or b'"round' not in data:
        return data
    answer = orjson.loads(data)
    if not isinstance(answer, dict):
        return data
    return orjson.dumps(view.of_answer(answer, party))


def _events_description(events: list[LiveEvent]) -> str:
    lines = [
        "The session's changes as server-sent events, in version order. Each event is "
        "`id: <version>` (the session's version after the change: send it back as "
        "`Last-Event-ID` to resume), `event: <name>` and one line `data: <JSON>`, then a "
        "blank line; a comment line `: keep-alive` comes every 15 s. The events and the "
        "schema of their `data`:",
        "",
    ]
    for event in events:
        if event.name == "session":
            what = (
                f'`{{"session": {event.schema}}}`: the session as it is, first on a stream '
                "opened without `Last-Event-ID`, and after changes that are no longer kept"
            )
        elif event.name == "deleted":
            what = f'`{{"id": <session id>}}`, made by {event.made_by}: it ends the stream'
        else:
            what = f"`{event.schema}`, the answer of {event.made_by}"
            if event.name == "submitted":
                what += " (who submitted, never what)"
        lines.append(f"- `{event.name}`: {what}")
    return "\n".join(lines)


async def _stream(
    kind: AnyKind,
    store: Store,
    subscription: Subscription,
    opening: bytes | None,
    party: str | None,
    app: FastAPI,
    language: str = i18n.DEFAULT,
) -> AsyncIterator[bytes]:
    session_id = subscription.session_id
    try:
        if opening is not None:
            yield opening
            opening = None
        while True:
            got = await subscription.next(KEEPALIVE_S)
            if isinstance(got, Ended):
                return
            if got is None:
                yield KEEPALIVE
                subscription.refresh()
            elif isinstance(got, Gap):
                # What was missed is gone: show the session as it is now, go on from there.
                current = await read_session(store, kind, session_id)
                if current is None:
                    data = orjson.dumps({"id": session_id})
                    yield sse_frame("deleted", subscription.known + 1, data)
                    return
                subscription.resync(current.version)
                frame = session_frame(app, kind, current, language)
                del current
                yield frame
            elif got.name == "deleted":
                yield got.frame
                return
            else:
                # Whatever else is ready goes in the same write.
                following = subscription.ready()
                if not following:
                    yield _framed(kind, party, got, language)
                    continue
                frames = [_framed(kind, party, got, language)]
                for event in following:
                    frames.append(_framed(kind, party, event, language))
                    if event.name == "deleted":
                        yield b"".join(frames)
                        return
                yield b"".join(frames)
    finally:
        subscription.close()


def _framed(kind: AnyKind, party: str | None, event: Event, language: str = i18n.DEFAULT) -> bytes:
    """The event's frame as the stream's token reads it, in the stream's language: encoded
    once for every stream, or where the kind shows a party less of it, once for every stream
    of that party, and in another language once for every stream of that language (and
    party) (kept on the event, which every stream of the session shares). An event another
    process published comes with its data in the languages this process's streams read it in
    (app/store/notify.py); in another, it is shown in English."""
    if language != i18n.DEFAULT and (
        language in event.languages or (isinstance(event, SaidEvent) and event.said is not None)
    ):
        return _framed_in(kind, party, event, language)
    if kind.round_view is None or party is None:
        return event.frame
    frame = event.views.get(party)
    if frame is None:
        data = shown_to(kind, party, event.data)
        frame = event.frame if data is event.data else sse_frame(event.name, event.version, data)
        event.views[party] = frame
    return frame


def _framed_in(kind: AnyKind, party: str | None, event: Event, language: str) -> bytes:
    """`_framed` in `language`: its views kept under the language's tag and the party's name
    (`de`, `de\x00Heroes`; a name never holds a NUL)."""
    viewer = party if kind.round_view is not None else None
    key = language if viewer is None else f"{language}\x00{viewer}"
    frame = event.views.get(key)
    if frame is None:
        data = event.data_in(language)
        assert data is not None  # (`_framed` sends here only an event that has it)
        if viewer is not None:
            data = shown_to(kind, viewer, data)
        frame = sse_frame(event.name, event.version, data)
        event.views[key] = frame
    return frame


def _session_data(kind: AnyKind, record: SessionRecord) -> bytes:
    return orjson.dumps({"session": session_answer(kind, record)})
