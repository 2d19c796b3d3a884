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

On PostgreSQL every server process and replica sees every other's changes (LISTEN/NOTIFY);
on SQLite, a stream sees the changes made by the process serving it only.

How the app uses it: `start_events(app, url)` / `stop_events(app)` in the lifespan; the
lifecycle calls `publish(...)` after each committed change and routes `stream_events` per kind.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from types import FrameType
from typing import Any, Final

import orjson
from fastapi import FastAPI, Request
from starlette.responses import Response, StreamingResponse

from app.api.kinds import AnyKind, LiveEvent
from app.api.presentation import session_answer
from app.api.security import bearer_token, identify
from app.api.work import unit_of_work
from app.errors import NotFound, ServiceUnavailable
from app.store import repository
from app.store.database import Store, Transaction
from app.store.notify import Ended, Event, Gap, Hub, Subscription
from app.store.repository import SessionRecord

#: Seconds between keep-alive comments on an idle stream (proxies close silent ones).
KEEPALIVE_S = 15.0
#: What a `submitted` event may show of its answer: who submitted, never what.
SUBMITTED_KEYS = ("submitted", "party", "waiting_for", "session", "summary")
KEEPALIVE = b": keep-alive\n\n"
#: The start of a creation's tokens: a change's answer never carries them, but an event must
#: not even by mistake.
_TOKENS = b'"tokens":{"gm"'
#: Reads a session (None once it is deleted).


def hub_of(app: FastAPI) -> Hub | None:
    hub: Hub | None = getattr(app.state, "events", None)
    return hub


async def start_events(app: FastAPI, database_url: str) -> Hub:
    """The process's live events: on PostgreSQL, its listening connection opens now."""
    hub = Hub.for_url(database_url)
    await hub.start()
    app.state.events = hub
    _end_streams_on_exit(hub)
    return hub


def _end_streams_on_exit(hub: Hub) -> None:
    """End the streams when the server is told to stop (SIGTERM, SIGINT).

    A server shutting down gracefully waits for its responses to finish, and a stream never
    does: without this a rolling deploy would hang on every open stream. The server's own
    handler still runs; clients resume on another process with `Last-Event-ID`.
    """
    if threading.current_thread() is not threading.main_thread():
        return  # signals reach the main thread only (a server run in a thread by a test)
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(number)
        if not callable(previous):
            continue

        def on_signal(received: int, frame: FrameType | None, previous: Any = previous) -> None:
            loop.call_soon_threadsafe(hub.end_streams)
            previous(received, frame)

        signal.signal(number, on_signal)


async def stop_events(app: FastAPI) -> None:
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


def publish(app: FastAPI, session_id: str, version: int, name: str, body: bytes) -> None:
    """Announce a committed change of a session (call it after the commit, never before):
    `version` is the session's version after the change, `name` the event (`round`,
    `submitted`, `revealed`, `granted`, `ended`, `deleted`, ...) and `body` the change's own
    answer (JSON bytes; empty for a deletion). Costs next to nothing when nobody streams."""
    hub = hub_of(app)
    if hub is not None:
        hub.publish(Event(session_id, version, name, event_data(session_id, name, body)))


def frame(name: str, version: int, data: bytes) -> bytes:
    """One server-sent event (orjson never writes a line break, so `data` is one line)."""
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (version, name.encode(), data)


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
        raise ServiceUnavailable("live events are not running")
    store = unit_of_work(request).store
    record = await read_session(store, kind, session_id)
    role = (
        None if record is None else identify(token, record.gm_token_hash, record.party_token_hashes)
    )
    if record is None or role is None:
        raise NotFound(f"no {kind.title} with id {session_id}")
    party = None if role.is_gm else role.party
    last = _last_event_id(request)
    resumed = last is not None and last <= record.version
    after = last if resumed and last is not None else record.version
    subscription = hub.subscribe(session_id, after)
    subscription.expect(record.version)
    opening = None if resumed else record
    return StreamingResponse(
        _stream(kind, store, subscription, opening, party),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


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
    "kept. Without it, the stream starts with a `session` event.",
    "schema": {"type": "string", "pattern": "^[0-9]+$"},
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
        ]
    events += kind.events
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
    opening: SessionRecord | None,
    party: str | None = None,
) -> AsyncIterator[bytes]:
    session_id = subscription.session_id
    try:
        if opening is not None:
            yield frame("session", opening.version, _session_data(kind, opening))
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
                    yield frame("deleted", subscription.known + 1, data)
                    return
                subscription.resync(current.version)
                yield frame("session", current.version, _session_data(kind, current))
            else:
                yield frame(got.name, got.version, shown_to(kind, party, got.data))
                if got.name == "deleted":
                    return
    finally:
        subscription.close()


def _session_data(kind: AnyKind, record: SessionRecord) -> bytes:
    return orjson.dumps({"session": session_answer(kind, record)})
