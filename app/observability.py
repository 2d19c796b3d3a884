"""Metrics and logs: one view of the service across its worker processes.

Metrics go through `prometheus-client`. With several worker processes (uvicorn `--workers`),
set `PROMETHEUS_MULTIPROC_DIR` to an empty directory that every worker can write, before the
server starts: each process then keeps its values in files there and `GET /metrics`, whichever
worker answers it, reads them all. Without it, the values are this process's own.

The metrics are created once per process, here, and shared by every app built in it; the
functions below are what the rest of the service calls to count its work.

Logs: `configure_logging` gives the `arbiter` loggers one handler on stderr, writing one JSON
object per line (`json_logs`) or plain text. The request log (`arbiter.request`) writes one
line per request with its id, method, route template, status and duration, and nothing else
of the request: never a header, a token, an Idempotency-Key or a body.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping
from typing import Any, Final

import orjson
from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prometheus_multiprocess

#: prometheus-client decides at import whether values live in files; this mirrors it.
MULTIPROCESS: Final = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

#: The registry the metrics below are declared in (a private one: no process collectors, whose
#: figures would be one worker's under several workers).
REGISTRY: Final = CollectorRegistry()

#: Arbiter's one-shots answer in about a millisecond and a long resolve in seconds.
LATENCY_BUCKETS: Final = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)

REQUESTS: Final = Counter(
    "arbiter_http_requests",
    "HTTP requests answered, by method, route template and status (499: client went away).",
    ["method", "route", "status"],
    registry=REGISTRY,
)
LATENCY: Final = Histogram(
    "arbiter_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by method and route template.",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
ROUNDS_PLAYED: Final = Counter(
    "arbiter_rounds_played", "Rounds played in sessions, by kind.", ["kind"], registry=REGISTRY
)
SESSIONS_CREATED: Final = Counter(
    "arbiter_sessions_created", "Sessions created, by kind.", ["kind"], registry=REGISTRY
)
SESSIONS_FINISHED: Final = Counter(
    "arbiter_sessions_finished",
    "Sessions that reached their end, by kind.",
    ["kind"],
    registry=REGISTRY,
)
ACTIVE_SESSIONS: Final = Gauge(
    "arbiter_active_sessions",
    "Sessions not yet finished, by kind, as counted in the database at the last scrape.",
    ["kind"],
    # Every worker sets the database's own count, so the latest value is the true one.
    multiprocess_mode="mostrecent",
    registry=REGISTRY,
)
DICE_ROLLED: Final = Counter(
    "arbiter_dice_rolled",
    "Dice rolled by the server (supplied dice are not counted).",
    registry=REGISTRY,
)
ODDS_COMPUTED: Final = Counter(
    "arbiter_odds_computed", "Probabilities computed.", registry=REGISTRY
)
WEBHOOK_ATTEMPTS: Final = Counter(
    "arbiter_webhook_attempts",
    "Webhook delivery attempts (docs/webhooks.md), by outcome: delivered (2xx), retried "
    "(to be tried again), failed (given up after the retry window).",
    ["outcome"],
    registry=REGISTRY,
)
WEBHOOK_PASSES: Final = Counter(
    "arbiter_webhook_passes",
    "Delivery worker passes that attempted deliveries, each claiming them in one write "
    "transaction and recording what came of them in another (attempts / passes: how many "
    "share them); a queue its receiver kept past the pass's patience is recorded, and "
    "counted, apart.",
    registry=REGISTRY,
)
WEBHOOK_DUE: Final = Gauge(
    "arbiter_webhook_deliveries_due",
    "Webhook deliveries due and not yet sent (being sent included), every worker's, as counted "
    "in the database at the last scrape (at most 100000 counted). Deliveries waiting for a "
    "retry are not due.",
    multiprocess_mode="mostrecent",
    registry=REGISTRY,
)
WEBHOOK_OLDEST_DUE: Final = Gauge(
    "arbiter_webhook_oldest_due_seconds",
    "How long the most overdue webhook delivery has been due, in seconds, at the last scrape "
    "(0 with none due): the outbox's lag.",
    multiprocess_mode="mostrecent",
    registry=REGISTRY,
)
SESSIONS_PURGED: Final = Counter(
    "arbiter_sessions_purged",
    "Sessions deleted by retention (finished, or abandoned while active), rounds with them.",
    registry=REGISTRY,
)


class _Exposition:
    """What `GET /metrics` reads: this process's registry, or every worker's files."""

    def __init__(self) -> None:
        if MULTIPROCESS:
            self.registry = CollectorRegistry()
            prometheus_multiprocess.MultiProcessCollector(self.registry)  # type: ignore[no-untyped-call]
        else:
            self.registry = REGISTRY


_exposition: _Exposition | None = None


def render_metrics() -> tuple[bytes, str]:
    """The Prometheus text exposition and its content type (blocking: it may read files)."""
    global _exposition
    if _exposition is None:
        _exposition = _Exposition()
    return generate_latest(_exposition.registry), CONTENT_TYPE_PLAIN_0_0_4


# The counting functions cache each label's child: `labels()` takes a lock and builds a key.
_rounds: dict[str, Any] = {}
_created: dict[str, Any] = {}
_finished: dict[str, Any] = {}


def _child(cache: dict[str, Any], metric: Counter, label: str) -> Any:
    child = cache.get(label)
    if child is None:
        child = cache[label] = metric.labels(label)
    return child


def count_rounds_played(kind: str, rounds: int = 1) -> None:
    """`rounds` rounds of a session of `kind` were played and stored."""
    if rounds:
        _child(_rounds, ROUNDS_PLAYED, kind).inc(rounds)


_attempts: dict[str, Any] = {}


def count_webhook_attempts(delivered: int, retried: int, failed: int) -> None:
    """What came of a delivery worker's pass: attempts delivered, to retry, given up."""
    if delivered or retried or failed:
        WEBHOOK_PASSES.inc()
    for outcome, count in (("delivered", delivered), ("retried", retried), ("failed", failed)):
        if count:
            _child(_attempts, WEBHOOK_ATTEMPTS, outcome).inc(count)


def count_session_created(kind: str) -> None:
    _child(_created, SESSIONS_CREATED, kind).inc()


def count_session_finished(kind: str) -> None:
    _child(_finished, SESSIONS_FINISHED, kind).inc()


def set_webhook_backlog(due: int, oldest_seconds: float) -> None:
    """The outbox's deliveries due, and how long the most overdue has been, from the
    database."""
    WEBHOOK_DUE.set(due)
    WEBHOOK_OLDEST_DUE.set(oldest_seconds)


def set_active_sessions(by_kind: Mapping[str, int]) -> None:
    """The database's count of unfinished sessions per kind; kinds left out are set to 0."""
    for kind in _active_kinds - by_kind.keys():
        ACTIVE_SESSIONS.labels(kind).set(0)
    for kind, count in by_kind.items():
        ACTIVE_SESSIONS.labels(kind).set(count)
        _active_kinds.add(kind)


_active_kinds: set[str] = set()


def count_dice_rolled(dice: int) -> None:
    if dice:
        DICE_ROLLED.inc(dice)


def count_odds_computed(computations: int = 1) -> None:
    ODDS_COMPUTED.inc(computations)


def count_sessions_purged(sessions: int) -> None:
    """Retention deleted `sessions` sessions (the `on_purged` of the purge loop)."""
    if sessions:
        SESSIONS_PURGED.inc(sessions)


# --- logs -------------------------------------------------------------------------------

REQUEST_LOG: Final = logging.getLogger("arbiter.request")

#: LogRecord attributes that are the record's own, not fields a caller passed in `extra`.
_RECORD_ATTRIBUTES: Final = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "taskName",
}


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    return {key: value for key, value in record.__dict__.items() if key not in _RECORD_ATTRIBUTES}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, then the record's fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": timestamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update(_fields(record))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(line, default=str).decode()


class TextFormatter(logging.Formatter):
    """The standard library's text, with the record's fields as `name=value` after it."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = _fields(record)
        if not fields:
            return text
        return text + " " + " ".join(f"{key}={value}" for key, value in fields.items())


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever `sys.stderr` is at the time (test runners swap it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


_handler: _StderrHandler | None = None


def configure_logging(json_logs: bool) -> None:
    """Give the `arbiter` loggers their one handler (idempotent: the last call's format wins)."""
    global _handler, _json_requests
    _json_requests = json_logs
    logger = logging.getLogger("arbiter")
    if _handler is None:
        _handler = _StderrHandler()
        logger.addHandler(_handler)
    _handler.setFormatter(JsonFormatter() if json_logs else TextFormatter())
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)


def log_request(request_id: str, method: str, route: str, status: int, seconds: float) -> None:
    """The request's one log line.

    In JSON, the line is queued and the lines queued meanwhile are written together, once per
    turn of the event loop (`flush_request_log`): a write to a pipe per request cost a
    quick contest about a quarter of its time (18 µs of 70, measured in-process), and a
    LogRecord with its handler three times the line itself. The fields are all the service's
    own text (a request id passes `SANE_REQUEST_ID`, a method is one of a fixed set, a route
    is a template of the app's), so the line is formatted without a JSON encoder's escaping.
    """
    if not REQUEST_LOG.isEnabledFor(logging.INFO):
        return
    duration = round(seconds * 1000.0, 3)
    if not _json_requests:
        REQUEST_LOG.info(
            "request",
            extra={
                "request_id": request_id,
                "method": method,
                "route": route,
                "status": status,
                "duration_ms": duration,
            },
        )
        return
    middle = _line_middles.get((method, route))
    if middle is None:
        middle = _line_middle(method, route)
    _queued.append(
        f'{{"time":"{timestamp(time.time())}{_LINE_HEAD}{request_id}{middle}{status},'
        f'"duration_ms":{duration}}}\n'
    )
    global _flush_scheduled, _stream
    if _flush_scheduled:
        return
    # The lines of a turn go where stderr was when the turn's first line was queued (a test
    # runner that swaps stderr per test gets each test's lines in that test's capture).
    _stream = sys.stderr
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        flush_request_log()
        return
    _flush_scheduled = True
    loop.call_soon(flush_request_log)


#: What a JSON request line holds between its time and its request id.
_LINE_HEAD: Final = (
    f'","level":"info","logger":"{REQUEST_LOG.name}","message":"request","request_id":"'
)
#: (method, route) -> what a JSON request line holds between its request id and its status,
#: made once each (the methods are a fixed set, the routes the app's templates).
_line_middles: dict[tuple[str, str], str] = {}


def _line_middle(method: str, route: str) -> str:
    if len(_line_middles) >= 4096:
        _line_middles.clear()
    middle = f'","method":"{method}","route":{orjson.dumps(route).decode()},"status":'
    _line_middles[(method, route)] = middle
    return middle


def flush_request_log() -> None:
    """Write the queued request lines to stderr, in one write.

    Safe from any thread: when it returns, every line queued before the call is written
    (a test reading stderr calls it first).
    """
    global _flush_scheduled
    with _flushing:
        _flush_scheduled = False
        lines: list[str] = []
        while True:
            try:
                lines.append(_queued.popleft())
            except IndexError:
                break
        if lines:
            text = "".join(lines)
            stream = _stream or sys.stderr
            try:
                stream.write(text)
                stream.flush()
            except ValueError:  # that stream was closed meanwhile: today's stderr, then
                sys.stderr.write(text)
                sys.stderr.flush()


#: Request lines not yet written (a deque: appends and pops are atomic across threads).
_queued: deque[str] = deque()
_flush_scheduled = False
_stream: Any = None
_flushing = threading.Lock()
atexit.register(flush_request_log)


_json_requests = False
_second = -1
_second_text = ""


def timestamp(moment: float) -> str:
    """RFC 3339 UTC with milliseconds; the date and time of a second are formatted once."""
    global _second, _second_text
    second, milli = divmod(int(moment * 1000.0), 1000)
    if second != _second:
        _second, _second_text = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    return "%s.%03dZ" % (_second_text, milli)  # noqa: UP031 - %-formatting is the faster here
