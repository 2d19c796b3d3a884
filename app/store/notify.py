"""Live events of sessions: the in-process fan-out, and PostgreSQL LISTEN/NOTIFY between processes.

A change is announced after it commits (`Hub.publish`), so no event is ever announced for a
change that rolled back. Each process keeps:

* the subscribers of its own streams, each a `Subscription` that hands out one session's
  events in version order, without gaps or repeats;
* `recent`: the last events of the changes it made itself (the last `RECENT_PER_SESSION` of a
  session, within `RECENT_BYTES` and `RECENT_EVENTS` in all),
  which are what a resumed stream (`Last-Event-ID`) replays.

An event reaches its subscriptions `FANOUT_BATCH` per turn of the event loop, so that a session
streamed thousands of times does not hold the process's other requests up for the whole
fan-out; a subscription more than `BEHIND_LIMIT` events behind its stream is ended (its client
resumes).

**SQLite** (or no database URL): one process; its `recent` holds every change, so a resume is
replayed at once, and one older than what is kept is answered with the current session (see
app/api/sessions/events.py). Other processes on the same SQLite file do not see each other's events.

**PostgreSQL**: each process holds one connection (`Hub.start`) that LISTENs on `CHANNEL` and
also sends this process's messages, batched, by a task of its own. There are two messages:

* `W` (watch) `{"o": origin, "s": session, "a": after}`, with `"l": [language, ...]` when the
  process streams the session in other languages than English: a stream of that session
  opened (or is still open: it is repeated every keep-alive) in another process. Every
  process replays its own `recent` events of the session above `a`, and announces the
  session's changes it makes in the next `WATCH_TTL_S` seconds (in those languages too,
  while a stream of each watches).
* `E` (event) `{"o", "s", "v", "e", "i", "n"}` + newline + the `i`-th of `n` chunks of the
  event's JSON: NOTIFY payloads are limited to 8000 bytes, so an event's data is split on
  character boundaries and put back together by (origin, session, version). With `"l":
  language`, the chunks are the event's data in that language (its summaries: see
  docs/languages.md), sent before the English ones and kept with the event they belong to.

Why after the commit, batched, and only for watched sessions, rather than `pg_notify` inside
each change's own transaction: a transaction that notifies takes a cluster-wide lock at commit
and holds it through its WAL flush (this is how PostgreSQL delivers notifications in commit
order), which would serialise the commits of every session; and it would cost a round trip per
change nobody watches. Here a change nobody watches costs a dictionary lookup and an append.

A change's announcement is lost only if its process dies between the commit and the send, or
the listening connection is down; a subscriber that sees a version missing for `GAP_WAIT_S`
gets `Gap` and shows the current session instead (app/api/sessions/events.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy.engine import make_url

from app.store.database import asyncpg_dsn, asyncpg_dsns, connect_asyncpg, normalise_url

log = logging.getLogger("arbiter")

#: The language of an event's own data (docs/languages.md); others travel beside it.
ENGLISH = "en"
#: Languages of one session's streams a watch names, at most (the service serves five).
MAX_LANGUAGES = 8
#: The one channel of every process of one database.
CHANNEL = "arbiter_events"
#: Bytes of event data per NOTIFY payload (PostgreSQL's limit is 8000, with the header).
CHUNK_BYTES = 7000
#: A process's own recent events kept for resumed streams: per session, and in all (bytes of
#: their data, and events: a resume looks through all of them, about a millisecond).
RECENT_PER_SESSION = 64
RECENT_BYTES = 16 * 1024 * 1024
RECENT_EVENTS = 20_000
#: Of those, the last this many can still be made in any language (`Event.settle` after
#: that): what makes another language holds the change's whole state, dozens of objects the
#: garbage collector walks at each full collection. Kept for all 20,000, they made every
#: full collection take 0.1 to 0.4 s under a steady flow of rounds (and one came every few
#: seconds); kept for a few hundred, a few milliseconds.
RECENT_TRANSLATABLE = 256
#: How long a process keeps announcing a session's changes after a `W` for it; streams
#: repeat their `W` well within it (every keep-alive).
WATCH_TTL_S = 60.0
#: How long a subscriber waits for a missing version before it gives up on it (`Gap`).
GAP_WAIT_S = 3.0
#: Messages waiting to be sent while the listening connection is down, at most (the oldest
#: go first; streams recover what they miss: see `GAP_WAIT_S`).
OUTBOX_LIMIT = 10_000
#: Sessions watched by other processes above which the expired ones are forgotten.
WATCHED_LIMIT = 10_000
#: Events being put back together at most.
PARTIAL_LIMIT = 1_000
#: Events a subscription holds that its stream has not written yet, at most: a stream that
#: falls further behind (its client reads too slowly) is ended, and its client resumes with
#: `Last-Event-ID` from what the process keeps (as many of a session's last events).
BEHIND_LIMIT = 64
#: Subscriptions handed one event per turn of the event loop, at most: a session's event
#: reaches thousands of streams over several turns, and other requests are served between
#: them (each woken stream writes the event in that turn).
FANOUT_BATCH = 16
#: An alarm ringing this close to its time counts as on time (the loop runs timers up to
#: its clock's resolution early).
ALARM_SLACK_S = 0.001
#: The streams' waits (a keep-alive's, a missing version's) end on the next multiple of this
#: many seconds at or after their time, on one timer for every stream (`Alarms`): a wait
#: ends at most this much late.
ALARM_TICK_S = 0.5
#: Waits ended per turn of the event loop, at most, when many end on one tick (streams
#: opened together keep alive together): each woken stream writes in that turn.
ALARM_BATCH = 16
#: Pauses between attempts to (re)open the listening connection: the first and the longest.
RECONNECT_FIRST_S = 0.1
RECONNECT_MAX_S = 5.0


@dataclass(frozen=True, slots=True)
class Event:
    """One change of a session: its version after the change, its name and its JSON.

    `frame` is the server-sent event itself, encoded once here for every stream it goes to;
    `views` the frames of the parties a kind shows less of it, each encoded once, by the
    first of that party's streams (app/api/sessions/events.py); `languages` its data in other
    languages than English, by tag (made by the process that made the change).
    """

    session_id: str
    version: int
    name: str
    data: bytes
    frame: bytes = field(init=False, repr=False, compare=False)
    views: dict[str, bytes] = field(init=False, repr=False, compare=False, default_factory=dict)
    languages: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "frame", sse_frame(self.name, self.version, self.data))

    def data_in(self, language: str) -> bytes | None:
        """The event's data in `language`, when it is known here (None: not)."""
        return self.languages.get(language)

    def settle(self) -> None:
        """Keep the languages made so far, and make no more (see `RECENT_TRANSLATABLE`)."""


def sse_frame(name: str, version: int, data: bytes) -> bytes:
    """One server-sent event (orjson never writes a line break, so `data` is one line)."""
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (version, name.encode(), data)


class Gap:
    """A subscription's next version is not coming (or not in time): resynchronise."""

    def __repr__(self) -> str:
        return "Gap()"


GAP = Gap()


class Ended:
    """The process is shutting down: the stream ends (its client resumes elsewhere)."""

    def __repr__(self) -> str:
        return "Ended()"


ENDED = Ended()


class Subscription:
    """One stream's view of one session: its events in version order, each once.

    Events arrive in any order (a replay, another process's announcement racing this one's);
    `next` hands out only the next version, holding later ones until it arrives. A version
    known to exist (`expect`) but not arriving within `GAP_WAIT_S` is a `Gap`; in a single
    process (`final_gaps`) a version missing after the replay never comes, and is a `Gap`
    at once.
    """

    # Thousands of streams each hold one: no attribute dictionary a stream.
    __slots__ = (
        "_ended",
        "_missing_since",
        "_pending",
        "_tick",
        "_waiter",
        "_wake_at",
        "behind",
        "expected",
        "hub",
        "known",
        "language",
        "session_id",
    )

    def __init__(self, hub: Hub, session_id: str, after: int, language: str = ENGLISH) -> None:
        self.hub = hub
        self.session_id = session_id
        #: The stream's language (its events' summaries; docs/languages.md).
        self.language = language
        #: The next version to hand out.
        self.expected = after + 1
        #: The highest version known to exist.
        self.known = after
        self._pending: dict[int, Event] = {}
        #: What `next` awaits while nothing is ready (one future, no task per wait), woken
        #: at `_wake_at` at the latest by the hub's `Alarms`, where it is filed under
        #: `_tick` (None: not filed).
        self._waiter: asyncio.Future[None] | None = None
        self._wake_at = 0.0
        self._tick: int | None = None
        self._missing_since: float | None = None
        self._ended = hub.ending
        #: Ended because its stream fell more than `BEHIND_LIMIT` events behind.
        self.behind = False

    def offer(self, event: Event, *, replay: bool = False) -> None:
        """Hold the event for `next`. A stream already `BEHIND_LIMIT` events behind is ended
        instead, unless this is the replay of a resume (its client would only come back
        for the same events)."""
        if event.version >= self.expected and event.version not in self._pending:
            if len(self._pending) >= BEHIND_LIMIT and not replay:
                self.behind = True
                self.end()
                return
            self._pending[event.version] = event
            self.known = max(self.known, event.version)
            self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def expect(self, version: int) -> None:
        """`version` exists (the database says so): wait for every version up to it."""
        self.known = max(self.known, version)

    def resync(self, version: int) -> None:
        """The stream showed the session at `version`: continue after it."""
        self.expected = version + 1
        self.known = max(self.known, version)
        self._pending = {v: e for v, e in self._pending.items() if v > version}
        self._missing_since = None

    def end(self) -> None:
        self._ended = True
        self._wake()

    def ready(self) -> list[Event]:
        """The events that follow the last one handed out, without waiting (maybe none)."""
        ready: list[Event] = []
        while not self._ended:
            event = self._pending.pop(self.expected, None)
            if event is None:
                break
            ready.append(event)
            self.expected += 1
        if ready:
            self._missing_since = None
        return ready

    async def next(self, timeout: float) -> Event | Gap | Ended | None:
        """The next event, `GAP`, `ENDED`, or None when nothing came within `timeout` s."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + timeout
        while True:
            if self._ended:
                return ENDED
            event = self._pending.pop(self.expected, None)
            if event is not None:
                self.expected += 1
                self._missing_since = None
                return event
            now = loop.time()
            wait_until = give_up
            if self.known >= self.expected:
                if self.hub.final_gaps:
                    return GAP
                if self._missing_since is None:
                    self._missing_since = now
                gap_at = self._missing_since + GAP_WAIT_S
                if now >= gap_at:
                    return GAP
                wait_until = min(wait_until, gap_at)
            if now >= give_up:
                return None
            waiter = self._waiter = loop.create_future()
            self._wake_at = wait_until
            self.hub.alarms.set(self, loop)
            try:
                await waiter
            finally:
                self._waiter = None

    def _ring(self, loop: asyncio.AbstractEventLoop) -> bool:
        """The hub's alarm for this subscription rang: end the wait if its time has come
        (True), else file it again for its time (an alarm filed for an earlier wait rings
        early for this one)."""
        waiter = self._waiter
        if waiter is None or waiter.done():
            return False
        if loop.time() + ALARM_SLACK_S >= self._wake_at:
            waiter.set_result(None)
            return True
        self.hub.alarms.set(self, loop)
        return False

    def refresh(self) -> None:
        """Tell the other processes this stream is still open (and where it stands)."""
        self.hub.watch(self.session_id, self.expected - 1, self.language)

    def close(self) -> None:
        self.hub.alarms.drop(self)
        self.hub.unsubscribe(self)


class Alarms:
    """Every subscription's alarm (when its wait ends, whatever comes) on one timer.

    A wait's time is rounded up to the next multiple of `tick` seconds, and the subscriptions
    due at each are kept in a set: one timer, at the earliest such time, rings for them all
    and ends their waits, `ALARM_BATCH` per turn of the event loop. A timer per stream was
    about half a kilobyte of each open stream (the handle, the loop's C timer, the bound
    callback: docs/performance.md, "Live-event fan-out"); here a stream costs a set's entry.

    A subscription is filed under one time at most. A wait whose time is no earlier than the
    one it is filed under stays there (a stream's events do not each move it; it is filed
    again for its time when that rings early for it), an earlier one moves it; a closed
    subscription is dropped (`drop`), and with no subscription left the timer is cancelled.
    """

    __slots__ = ("_due", "_handle", "_handle_tick", "_ticks", "_waking", "tick")

    def __init__(self, tick: float | None = None) -> None:
        #: Seconds between the times waits end at.
        self.tick = ALARM_TICK_S if tick is None else tick
        #: The subscriptions due at each time, by its number of ticks.
        self._ticks: dict[int, set[Subscription]] = {}
        #: The one timer, and the tick it rings at.
        self._handle: asyncio.TimerHandle | None = None
        self._handle_tick = 0
        #: Subscriptions whose time has come, still to be rung (`ALARM_BATCH` per turn).
        self._due: deque[Subscription] = deque()
        self._waking = False

    def set(self, subscription: Subscription, loop: asyncio.AbstractEventLoop) -> None:
        """Ring for `subscription` at its `_wake_at` (rounded up to a tick) at the latest."""
        tick = math.ceil(subscription._wake_at / self.tick)
        filed = subscription._tick
        if filed is not None:
            if filed <= tick:
                return
            self._unfile(subscription, filed)
        subscribers = self._ticks.get(tick)
        if subscribers is None:
            subscribers = self._ticks[tick] = set()
        subscribers.add(subscription)
        subscription._tick = tick
        if self._handle is None or tick < self._handle_tick:
            self._arm(loop, tick)

    def drop(self, subscription: Subscription) -> None:
        """Forget `subscription` (it is closed); with none left, the timer too."""
        filed = subscription._tick
        if filed is not None:
            self._unfile(subscription, filed)
        if not self._ticks and self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def __len__(self) -> int:
        """How many subscriptions are filed (tests read it)."""
        return sum(len(subscribers) for subscribers in self._ticks.values())

    @property
    def timers(self) -> int:
        """The timers set for them: one while any is filed, else none (tests read it)."""
        return 0 if self._handle is None else 1

    def _unfile(self, subscription: Subscription, tick: int) -> None:
        subscription._tick = None
        subscribers = self._ticks.get(tick)
        if subscribers is not None:
            subscribers.discard(subscription)
            if not subscribers:
                del self._ticks[tick]

    def _arm(self, loop: asyncio.AbstractEventLoop, tick: int) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._handle = loop.call_at(tick * self.tick, self._ring, loop)
        self._handle_tick = tick

    def _ring(self, loop: asyncio.AbstractEventLoop) -> None:
        self._handle = None
        # The loop may run a timer up to its clock's resolution early.
        now = math.floor((loop.time() + ALARM_SLACK_S) / self.tick)
        for tick in sorted(tick for tick in self._ticks if tick <= now):
            for subscription in self._ticks.pop(tick):
                subscription._tick = None
                self._due.append(subscription)
        # Set before the waits end: one filed again meanwhile compares its tick with it.
        if self._ticks:
            self._arm(loop, min(self._ticks))
        if self._due and not self._waking:
            self._wake(loop)

    def _wake(self, loop: asyncio.AbstractEventLoop) -> None:
        budget = ALARM_BATCH
        due = self._due
        while due and budget > 0:
            if due.popleft()._ring(loop):
                budget -= 1
        self._waking = bool(due)
        if self._waking:
            loop.call_soon(self._wake, loop)


def _chunks(data: bytes, size: int) -> list[str]:
    """`data` (UTF-8) in pieces of at most `size` bytes, never splitting a character."""
    pieces: list[str] = []
    start = 0
    while start < len(data) or not pieces:
        end = min(start + size, len(data))
        # A byte 0b10xxxxxx continues a character: cut before the character it belongs to.
        while end < len(data) and end > start and data[end] & 0xC0 == 0x80:
            end -= 1
        pieces.append(data[start:end].decode())
        start = end
    return pieces


def postgres_dsn(url: str) -> str | None:
    """asyncpg's DSN for a PostgreSQL URL (any SQLAlchemy driver spelling); None otherwise."""
    if make_url(normalise_url(url)).get_backend_name() != "postgresql":
        return None
    return asyncpg_dsn(url)


class Hub:
    """One process's live events: its subscribers, its recent events and, on PostgreSQL, its
    listening connection (see the module docstring)."""

    def __init__(self, postgres: str | None = None) -> None:
        """`postgres`: an asyncpg DSN (`postgres_dsn`) to share events through; None keeps
        them in this process."""
        self.postgres = postgres
        #: Tells this process's messages from the others' (its own are delivered directly).
        self.origin = secrets.token_hex(8)
        self._subscribers: dict[str, set[Subscription]] = {}
        #: Every subscription's alarm, on one timer.
        self.alarms = Alarms()
        #: Events still being handed to their subscriptions (`_fan_out`), in the order they
        #: were published: (event, its subscriptions, how many have had it).
        self._deliveries: deque[tuple[Event, list[Subscription], int]] = deque()
        self._delivering = False
        #: Every session's kept events in one queue, oldest first (see `_remember`).
        self._recent: deque[Event] = deque()
        self._recent_bytes = 0
        #: Sessions streamed by other processes, and until when (monotonic seconds); and the
        #: languages other than English they are streamed in, each until when.
        self._watched: dict[str, float] = {}
        self._watched_languages: dict[str, dict[str, float]] = {}
        self._outbox: list[str] = []
        self._wake = asyncio.Event()
        self._partial: dict[tuple[str, str, int, str], list[str | None]] = {}
        #: Events' data in other languages received before the events (origin, session,
        #: version) themselves.
        self._translations: dict[tuple[str, str, int], dict[str, bytes]] = {}
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        #: Set while the listening connection is open (tests wait for it).
        self.listening = asyncio.Event()
        #: The process is shutting down: streams end, new ones end at once.
        self.ending = False

    @classmethod
    def for_url(cls, database_url: str) -> Hub:
        return cls(postgres_dsn(database_url))

    @property
    def final_gaps(self) -> bool:
        """Whether a version missing after the replay will never come (one process)."""
        return self.postgres is None

    # --- the writers' side ---------------------------------------------------------------------

    def publish(self, event: Event) -> None:
        """Announce a committed change: to this process's streams, its recent events, and
        (PostgreSQL) to the other processes when one of them streams the session."""
        self._remember(event)
        self._fan_out(event)
        if self.postgres is not None:
            until = self._watched.get(event.session_id)
            if until is not None:
                if until > time.monotonic():
                    self._announce(event)
                else:
                    del self._watched[event.session_id]
                    self._watched_languages.pop(event.session_id, None)

    def _fan_out(self, event: Event) -> None:
        """Hand the event to its session's subscriptions, `FANOUT_BATCH` per turn of the
        event loop, in the order events were published (so no subscription sees a later
        version first)."""
        subscriptions = self._subscribers.get(event.session_id)
        if not subscriptions:
            return
        if not self._deliveries and len(subscriptions) <= FANOUT_BATCH:
            for subscription in subscriptions:
                subscription.offer(event)
            return
        self._deliveries.append((event, list(subscriptions), 0))
        if not self._delivering:
            self._deliver()

    def _deliver(self) -> None:
        budget = FANOUT_BATCH
        deliveries = self._deliveries
        while deliveries and budget > 0:
            event, subscriptions, done = deliveries[0]
            upto = min(len(subscriptions), done + budget)
            for subscription in subscriptions[done:upto]:
                subscription.offer(event)
            budget -= upto - done
            if upto == len(subscriptions):
                deliveries.popleft()
            else:
                deliveries[0] = (event, subscriptions, upto)
        self._delivering = bool(deliveries)
        if self._delivering:
            asyncio.get_running_loop().call_soon(self._deliver)

    def _remember(self, event: Event) -> None:
        """Keep the event for resumed streams, forgetting the oldest beyond the bounds.

        One queue for every session, appended to and trimmed at its ends: a change touches
        nothing else. (A queue per session, ordered by their last change, had every change
        reach into that session's queue and the order's links as well as the oldest event:
        about a tenth of a round's time under load, measured; resumes are rare, and look
        through the queue instead.)
        """
        self._recent.append(event)
        self._recent_bytes += len(event.data)
        if len(self._recent) > RECENT_TRANSLATABLE:
            self._recent[-RECENT_TRANSLATABLE - 1].settle()
        while self._recent_bytes > RECENT_BYTES or len(self._recent) > RECENT_EVENTS:
            self._recent_bytes -= len(self._recent.popleft().data)

    def recent(self, session_id: str, after: int) -> list[Event]:
        """This process's own kept events of a session above version `after`: of its last
        `RECENT_PER_SESSION` events still kept."""
        kept = [event for event in self._recent if event.session_id == session_id]
        return [event for event in kept[-RECENT_PER_SESSION:] if event.version > after]

    # --- the readers' side ---------------------------------------------------------------------

    def subscribe(self, session_id: str, after: int, language: str = ENGLISH) -> Subscription:
        """A subscription to a session's events above version `after`, with what this process
        keeps replayed into it at once, and (PostgreSQL) what the other processes keep asked
        for, in `language` too. `close()` it when the stream ends."""
        subscription = Subscription(self, session_id, after, language)
        self._subscribers.setdefault(session_id, set()).add(subscription)
        for event in self.recent(session_id, after):
            subscription.offer(event, replay=True)
        self.watch(session_id, after, language)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        streams = self._subscribers.get(subscription.session_id)
        if streams is not None:
            streams.discard(subscription)
            if not streams:
                del self._subscribers[subscription.session_id]

    def end_streams(self) -> None:
        """End every stream of this process (it is shutting down: see
        app/api/sessions/events.py)."""
        self.ending = True
        for streams in self._subscribers.values():
            for subscription in streams:
                subscription.end()

    def watch(self, session_id: str, after: int, language: str = ENGLISH) -> None:
        """Ask the other processes for a session's events above `after`, and its next ones
        (in `language` too, and in the languages of this process's other streams of it: the
        events replayed for `after` then come in each of them)."""
        if self.postgres is not None:
            header: dict[str, Any] = {"o": self.origin, "s": session_id, "a": after}
            streams = self._subscribers.get(session_id, ())
            languages = {language, *(stream.language for stream in streams)} - {ENGLISH}
            if languages:
                header["l"] = sorted(languages)
            self._send("W" + orjson.dumps(header).decode())

    def streams(self, session_id: str) -> int:
        """How many streams of this process follow a session."""
        return len(self._subscribers.get(session_id, ()))

    # --- PostgreSQL ----------------------------------------------------------------------------

    def _announce(self, event: Event) -> None:
        """Send the event to the other processes: first its data in each language another
        process streams the session in (when this process can make it), then in English."""
        moment = time.monotonic()
        wanted = self._watched_languages.get(event.session_id, {})
        for language, until in list(wanted.items()):
            if until <= moment:
                del wanted[language]
                continue
            translated = event.data_in(language)
            if translated is not None:
                self._send_event(event, translated, language)
        self._send_event(event, event.data, None)

    def _send_event(self, event: Event, data: bytes, language: str | None) -> None:
        pieces = _chunks(data, CHUNK_BYTES)
        for index, piece in enumerate(pieces):
            header: dict[str, Any] = {
                "o": self.origin,
                "s": event.session_id,
                "v": event.version,
                "e": event.name,
                "i": index,
                "n": len(pieces),
            }
            if language is not None:
                header["l"] = language
            self._send("E" + orjson.dumps(header).decode() + "\n" + piece)

    def _send(self, payload: str) -> None:
        self._outbox.append(payload)
        if len(self._outbox) > OUTBOX_LIMIT:
            del self._outbox[: len(self._outbox) - OUTBOX_LIMIT]
        self._wake.set()

    def _received(self, payload: str) -> None:
        kind, body = payload[:1], payload[1:]
        if kind == "W":
            watch = orjson.loads(body)
            if watch["o"] == self.origin:
                return
            session_id = watch["s"]
            moment = time.monotonic()
            if len(self._watched) > WATCHED_LIMIT:
                self._watched = {s: t for s, t in self._watched.items() if t > moment}
            self._watched[session_id] = moment + WATCH_TTL_S
            languages = watch.get("l") or []
            if languages:
                streamed = self._watched_languages.setdefault(session_id, {})
                for language in languages[:MAX_LANGUAGES]:
                    if isinstance(language, str) and language != ENGLISH:
                        streamed[language] = moment + WATCH_TTL_S
            for event in self.recent(session_id, int(watch["a"])):
                self._announce(event)
        elif kind == "E":
            line, _, piece = body.partition("\n")
            header = orjson.loads(line)
            if header["o"] == self.origin:
                return  # delivered in this process when it was published
            session_id, version, count = header["s"], int(header["v"]), int(header["n"])
            if session_id not in self._subscribers:
                return
            language = str(header.get("l") or "")
            key = (header["o"], session_id, version, language)
            parts = self._partial.setdefault(key, [None] * count)
            parts[int(header["i"])] = piece
            if any(part is None for part in parts):
                if len(self._partial) > PARTIAL_LIMIT:
                    # Pieces whose siblings were lost (a dropped connection) never complete.
                    self._partial = {key: parts}
                return
            del self._partial[key]
            data = "".join(part or "" for part in parts).encode()
            event_key = (header["o"], session_id, version)
            if language:
                if len(self._translations) > PARTIAL_LIMIT:
                    self._translations.clear()  # those of events lost on the way
                self._translations.setdefault(event_key, {})[language] = data
                return
            languages = self._translations.pop(event_key, {})
            self._fan_out(Event(session_id, version, str(header["e"]), data, languages=languages))

    def _on_notification(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        try:
            self._received(payload)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            log.warning("ignoring a malformed live-event message: %r", exc)

    async def start(self) -> None:
        """Open the listening connection (PostgreSQL); it is reopened if it drops."""
        if self.postgres is not None and self._task is None:
            self._stopping = False
            self._task = asyncio.create_task(self._run(self.postgres))

    async def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def _run(self, dsn: str) -> None:
        import asyncpg

        pause = RECONNECT_FIRST_S
        while not self._stopping:
            try:
                connection = await connect_asyncpg(asyncpg_dsns(dsn), timeout=5)
            # InternalClientError: no server of several is the one target_session_attrs
            # asks for (only standbys while a failover is under way).
            except (OSError, asyncpg.PostgresError, asyncpg.InternalClientError) as exc:
                log.warning("live events: cannot listen (%s); retrying", type(exc).__name__)
                await self._pause(pause)
                pause = min(pause * 2, RECONNECT_MAX_S)
                continue
            pause = RECONNECT_FIRST_S
            try:
                # A connection that drops wakes the sender, which then opens another.
                connection.add_termination_listener(lambda _connection: self._wake.set())
                await connection.add_listener(CHANNEL, self._on_notification)
                self.listening.set()
                await self._send_until_stopped(connection)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.warning("live events: the listening connection failed: %r", exc)
            finally:
                self.listening.clear()
                self._partial.clear()
                with contextlib.suppress(Exception):
                    await connection.close(timeout=2)

    async def _send_until_stopped(self, connection: Any) -> None:
        while not self._stopping:
            if not self._outbox:
                await self._wake.wait()
                self._wake.clear()
            if connection.is_closed():
                raise OSError("the listening connection closed")
            while self._outbox and not self._stopping:
                batch, self._outbox = self._outbox, []
                try:
                    # One statement, one transaction: its notifications are delivered
                    # together, in this order.
                    await connection.execute(
                        "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload",
                        CHANNEL,
                        batch,
                    )
                except BaseException:
                    self._outbox[:0] = batch  # sent on the next connection
                    raise

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop_requested(), seconds)

    async def _stop_requested(self) -> None:
        while not self._stopping:
            await self._wake.wait()
            self._wake.clear()
