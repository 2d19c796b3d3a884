"""Metrics, request ids and the request log (one view across workers and replicas).

The metrics are the process's own (one registry shared by every app built in it), so each
test reads `/metrics` before and after and checks the difference.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from starlette.types import Message, Receive, Scope, Send

from app.main import create_app
from app.observability import flush_request_log
from app.settings import Settings
from app.store.database import upgrade_to_head

QUICK = "/v1/gurps/quick-contest"
QUICK_BODY = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}
ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}


def samples(client: TestClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of `/metrics`, by name and labels."""
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    found: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def requests_of(
    found: dict[tuple[str, frozenset[tuple[str, str]]], float],
    method: str,
    route: str,
    status: int,
) -> float:
    labels = frozenset({"method": method, "route": route, "status": str(status)}.items())
    return found.get(("arbiter_http_requests_total", labels), 0.0)


def app_on(tmp_path: Path, **settings: Any) -> FastAPI:
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    upgrade_to_head(url)
    return create_app(Settings(database_url=url, **settings))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_on(tmp_path)) as test_client:
        yield test_client


def request_lines(text: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    return [line for line in lines if line["logger"] == "arbiter.request"]


def test_counters_move_for_200_404_and_413(client: TestClient) -> None:
    before = samples(client)
    assert client.post(QUICK, json=QUICK_BODY).status_code == 200
    assert client.get("/v1/no-such-thing").status_code == 404
    # Declared too large: refused before routing, still counted under its route.
    assert client.post(QUICK, content=b"x" * (64 * 1024 + 1)).status_code == 413

    # Too large without a Content-Length: counted while read.
    def chunks() -> Iterator[bytes]:
        for _ in range(70):
            yield b"x" * 1024

    assert client.post(QUICK, content=chunks()).status_code == 413
    after = samples(client)
    assert requests_of(after, "POST", QUICK, 200) - requests_of(before, "POST", QUICK, 200) == 1
    assert (
        requests_of(after, "GET", "unmatched", 404) - requests_of(before, "GET", "unmatched", 404)
        == 1
    )
    assert requests_of(after, "POST", QUICK, 413) - requests_of(before, "POST", QUICK, 413) == 2


def edge_sees(
    headers: list[tuple[bytes, bytes]], body: list[bytes], http_version: str = "1.1"
) -> tuple[bool, int]:
    """A request through `Edge` alone (limit 1 KiB) to an app that reads the whole body:
    whether the app got the server's own `receive` (no counting layer), and the status."""
    from app.errors import PayloadTooLarge
    from app.middleware import Edge

    got: dict[str, Any] = {}

    async def server_receive() -> Message:
        chunk = body.pop(0) if body else b""
        return {"type": "http.request", "body": chunk, "more_body": bool(body)}

    async def app(_scope: Scope, receive: Receive, send: Send) -> None:
        got["own"] = receive is server_receive
        status = 200
        try:
            while (await receive()).get("more_body"):
                pass
        except PayloadTooLarge:  # (the app's handlers answer it so)
            status = 413
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            got["status"] = message["status"]

    scope = {
        "type": "http",
        "http_version": http_version,
        "method": "POST",
        "path": "/x",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 1),
    }
    edge = Edge(app, max_bytes=1024, settings=Settings(log_requests=False))
    asyncio.run(edge(scope, server_receive, send))
    return got.get("own", False), got["status"]


def test_only_a_body_of_unknown_length_is_counted_by_the_edge() -> None:
    # An HTTP/1 request with neither Content-Length nor Transfer-Encoding has no body: the
    # app (a live stream's GET, for its whole life) holds the server's receive itself.
    assert edge_sees([], []) == (True, 200)
    assert edge_sees([(b"content-length", b"4")], [b"abcd"]) == (True, 200)
    # Chunked (with or without a Content-Length beside it), or HTTP/2 without a length:
    # counted, and refused past the limit.
    big = [b"x" * 600, b"x" * 600]
    assert edge_sees([(b"transfer-encoding", b"chunked")], list(big)) == (False, 413)
    chunked_and_length = [(b"transfer-encoding", b"chunked"), (b"content-length", b"10")]
    assert edge_sees(chunked_and_length, list(big)) == (False, 413)
    assert edge_sees([], list(big), http_version="2") == (False, 413)
    assert edge_sees([(b"transfer-encoding", b"chunked")], [b"small"]) == (False, 200)


def test_the_stack_leaves_out_fastapis_layers_that_do_nothing_here(tmp_path: Path) -> None:
    from fastapi._body_limit import AppBodyLimitMiddleware
    from fastapi.telemetry._asgi import ExceptionTelemetryMiddleware

    def layers(app: FastAPI) -> list[type]:
        found: list[type] = []
        layer: Any = app.build_middleware_stack()
        while layer is not None:
            found.append(type(layer))
            layer = getattr(layer, "app", None)
        return found

    served = app_on(tmp_path)
    assert AppBodyLimitMiddleware not in layers(served)
    assert ExceptionTelemetryMiddleware not in layers(served)
    # With an app-wide limit or telemetry on, they stay, and do their work.
    served.max_body_size = 10
    assert AppBodyLimitMiddleware in layers(served)
    served.max_body_size = None
    served._telemetry["logs"] = True
    assert ExceptionTelemetryMiddleware in layers(served)
    limited = app_on(tmp_path)
    limited.max_body_size = 10
    with TestClient(limited) as client:
        assert client.post(QUICK, json=QUICK_BODY).status_code == 413
        assert client.get("/healthz").status_code == 200


def test_counter_moves_for_429(tmp_path: Path) -> None:
    with TestClient(app_on(tmp_path, rate_limit_per_minute=2)) as limited:
        before = samples(limited)
        statuses = [limited.post(QUICK, json=QUICK_BODY).status_code for _ in range(3)]
        after = samples(limited)
    assert statuses == [200, 200, 429]
    assert requests_of(after, "POST", QUICK, 429) - requests_of(before, "POST", QUICK, 429) == 1
    assert requests_of(after, "POST", QUICK, 200) - requests_of(before, "POST", QUICK, 200) == 2


def test_latency_histogram_per_route_template(client: TestClient) -> None:
    created = client.post("/v1/arm-wrestles", json=ARM_WRESTLE)
    assert created.status_code == 201
    session_id = created.json()["id"]
    gm = created.json()["tokens"]["gm"]
    before = samples(client)
    for _ in range(2):
        answer = client.get(
            f"/v1/arm-wrestles/{session_id}", headers={"authorization": f"Bearer {gm}"}
        )
        assert answer.status_code == 200
    after = samples(client)
    route = "/v1/arm-wrestles/{session_id}"
    labels = frozenset({"method": "GET", "route": route}.items())
    count = ("arbiter_http_request_duration_seconds_count", labels)
    assert after[count] - before.get(count, 0.0) == 2
    buckets = {
        dict(labels_)["le"]
        for name, labels_ in after
        if name == "arbiter_http_request_duration_seconds_bucket"
        and dict(labels_)["route"] == route
    }
    assert {"0.001", "0.1", "10.0", "+Inf"} <= buckets
    # The id never becomes a label.
    assert not any(session_id in value for _, labels_ in after for _, value in labels_)


def test_contest_counters_are_exposed(client: TestClient) -> None:
    names = {name for name, _ in samples(client)}
    # Counters with no label show at once; labelled ones once a kind has been counted.
    assert {
        "arbiter_dice_rolled_total",
        "arbiter_odds_computed_total",
        "arbiter_sessions_purged_total",
    } <= names


def test_counting_functions_reach_the_exposition(client: TestClient) -> None:
    from app import observability

    client.app.state.active_sessions = None  # type: ignore[attr-defined]  # the gauge: set below
    before = samples(client)
    observability.count_rounds_played("arm-wrestles", 3)
    observability.count_session_created("races")
    observability.count_session_finished("races")
    observability.count_dice_rolled(7)
    observability.count_odds_computed()
    observability.count_sessions_purged(4)
    observability.set_active_sessions({"chases": 5})
    observability.set_active_sessions({"races": 2})
    after = samples(client)

    def moved(name: str, **labels: str) -> float:
        key = (name, frozenset(labels.items()))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert moved("arbiter_rounds_played_total", kind="arm-wrestles") == 3
    assert moved("arbiter_sessions_created_total", kind="races") == 1
    assert moved("arbiter_sessions_finished_total", kind="races") == 1
    assert moved("arbiter_dice_rolled_total") == 7
    assert moved("arbiter_odds_computed_total") == 1
    assert moved("arbiter_sessions_purged_total") == 4
    assert after[("arbiter_active_sessions", frozenset({"kind": "races"}.items()))] == 2
    assert after[("arbiter_active_sessions", frozenset({"kind": "chases"}.items()))] == 0


def test_active_sessions_come_from_the_apps_source_at_scrape_time(tmp_path: Path) -> None:
    app = app_on(tmp_path)
    scrapes: list[int] = []

    async def active_sessions() -> dict[str, int]:
        scrapes.append(1)
        return {"skill-games": 11}

    with TestClient(app) as test_client:
        app.state.active_sessions = active_sessions  # in place of the store's, once started
        found = samples(test_client)
    assert scrapes == [1]
    assert found[("arbiter_active_sessions", frozenset({"kind": "skill-games"}.items()))] == 11


def test_request_id_round_trips(client: TestClient) -> None:
    sent = client.post(QUICK, json=QUICK_BODY, headers={"x-request-id": "vtt-42.a:b_c"})
    assert sent.headers["x-request-id"] == "vtt-42.a:b_c"
    # Too long, or with characters a log should not carry: replaced by a fresh one.
    for unsafe in ("x" * 129, "two words", 'quote"d'):
        answer = client.post(QUICK, json=QUICK_BODY, headers={"x-request-id": unsafe})
        made = answer.headers["x-request-id"]
        assert made != unsafe
        assert len(made) == 32
        int(made, 16)
    made = {client.post(QUICK, json=QUICK_BODY).headers["x-request-id"] for _ in range(3)}
    assert len(made) == 3


def test_request_id_on_every_error(tmp_path: Path) -> None:
    app = app_on(tmp_path)

    async def boom() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/boom", boom)
    with TestClient(app) as test_client:
        before = samples(test_client)
        answers = {
            404: test_client.get("/nowhere", headers={"x-request-id": "r-404"}),
            413: test_client.post(QUICK, content=b"x" * 70_000, headers={"x-request-id": "r-413"}),
            400: test_client.post(
                QUICK,
                content=b"{",
                headers={"x-request-id": "r-400", "content-type": "application/json"},
            ),
            422: test_client.post(QUICK, json={}, headers={"x-request-id": "r-422"}),
            500: test_client.get("/boom", headers={"x-request-id": "r-500"}),
        }
        after = samples(test_client)
    for status, answer in answers.items():
        assert answer.status_code == status
        assert answer.headers["x-request-id"] == f"r-{status}"
    assert answers[500].headers["content-type"] == "application/problem+json"
    assert requests_of(after, "GET", "/boom", 500) - requests_of(before, "GET", "/boom", 500) == 1


def test_json_log_line_per_request_without_secrets(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    created = client.post("/v1/arm-wrestles", json=ARM_WRESTLE)
    gm = created.json()["tokens"]["gm"]
    path = f"/v1/arm-wrestles/{created.json()['id']}/rounds"
    flush_request_log()
    capsys.readouterr()
    played = client.post(
        path,
        json={"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}},
        headers={
            "authorization": f"Bearer {gm}",
            "idempotency-key": "secret-round-key-1",
            "x-request-id": "round-1",
        },
    )
    assert played.status_code == 200
    refused = client.post(path, json={}, headers={"authorization": "Bearer not-a-token-abc"})
    assert refused.status_code in (401, 404)
    flush_request_log()
    logged = capsys.readouterr().err
    assert gm not in logged
    assert "secret-round-key-1" not in logged
    assert "not-a-token-abc" not in logged
    assert "strength" not in logged
    lines = request_lines(logged)
    assert [line["request_id"] for line in lines] == [
        "round-1",
        refused.headers["x-request-id"],
    ]
    first = lines[0]
    assert set(first) == {
        "time",
        "level",
        "logger",
        "message",
        "request_id",
        "method",
        "route",
        "status",
        "duration_ms",
    }
    assert (first["method"], first["route"], first["status"]) == (
        "POST",
        "/v1/arm-wrestles/{session_id}/rounds",
        200,
    )
    assert first["duration_ms"] > 0


def test_plain_text_logs_when_json_is_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        with TestClient(app_on(tmp_path, json_logs=False)) as test_client:
            capsys.readouterr()
            test_client.post(QUICK, json=QUICK_BODY, headers={"x-request-id": "plain-1"})
            logged = capsys.readouterr().err
    finally:
        # The handler is the process's: put JSON back for the tests that follow.
        from app.observability import configure_logging

        configure_logging(json_logs=True)
    line = next(line for line in logged.splitlines() if "arbiter.request" in line)
    assert not line.startswith("{")
    assert "request_id=plain-1" in line
    assert f"route={QUICK}" in line
    assert "status=200" in line


def test_disconnect_mid_body_is_not_a_server_error(
    client: TestClient, capsys: pytest.CaptureFixture[str]
) -> None:
    app = client.app
    before = samples(client)
    messages: list[dict[str, Any]] = [
        {"type": "http.request", "body": b'{"a": {"name": "Ann", ', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": QUICK,
        "raw_path": QUICK.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", b"80"),
            (b"x-request-id", b"gone-1"),
        ],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    capsys.readouterr()
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    logged = capsys.readouterr().err
    after = samples(client)
    assert all(message.get("status") != 500 for message in sent)
    assert requests_of(after, "POST", QUICK, 500) == requests_of(before, "POST", QUICK, 500)
    assert requests_of(after, "POST", QUICK, 499) - requests_of(before, "POST", QUICK, 499) == 1
    assert "Traceback" not in logged
    assert "error" not in logged.lower()
    lines = [json.loads(line) for line in logged.splitlines() if line.startswith("{")]
    assert [(line["level"], line["request_id"], line["status"]) for line in lines] == [
        ("info", "gone-1", 499)
    ]


def test_an_answer_is_counted_before_its_last_part_leaves(client: TestClient) -> None:
    # Whoever holds a whole answer finds it counted: a scrape right after it (from any worker)
    # must not miss it. The server's `send` sees the counter when the last part reaches it.
    app = client.app
    before = requests_of(samples(client), "POST", QUICK, 200)
    body = json.dumps(QUICK_BODY).encode()
    pending = [{"type": "http.request", "body": body, "more_body": False}]
    seen_at_last_part: list[float] = []
    statuses: list[int] = []

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])
        elif not message.get("more_body", False):
            seen_at_last_part.append(requests_of(samples(client), "POST", QUICK, 200))

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": QUICK,
        "raw_path": QUICK.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    assert statuses == [200]
    assert seen_at_last_part == [before + 1]
    # Counted once: not again when the request's handling ends.
    assert requests_of(samples(client), "POST", QUICK, 200) == before + 1


def test_request_lines_of_one_loop_turn_are_written_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.observability import configure_logging, log_request

    writes: list[str] = []

    class Stream:
        def write(self, text: str) -> int:
            writes.append(text)
            return len(text)

        def flush(self) -> None:
            return None

    configure_logging(json_logs=True)
    monkeypatch.setattr("sys.stderr", Stream())

    async def three_requests() -> None:
        for number in range(3):
            log_request(f"r-{number}", "POST", "/v1/gurps/quick-contest", 200, 0.001)
        assert writes == []  # queued until the loop's next turn

    asyncio.run(three_requests())  # the loop runs its queued callbacks before it closes
    assert len(writes) == 1
    assert [line["request_id"] for line in request_lines(writes[0])] == ["r-0", "r-1", "r-2"]


def _child_request_id(pipe: Any) -> None:
    from app.middleware import new_request_id

    pipe.send(new_request_id())


def test_made_request_ids_differ_across_forked_workers() -> None:
    import multiprocessing

    from app.middleware import new_request_id

    here = new_request_id()
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    child = context.Process(target=_child_request_id, args=(sending,))
    child.start()
    there = receiving.recv()
    child.join()
    assert len(here) == len(there) == 32
    # Each process has its own random half; the counters may well agree.
    assert here[:16] != there[:16]


def test_request_lines_go_where_stderr_was_and_survive_its_closing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    from app.observability import configure_logging, log_request

    configure_logging(json_logs=True)
    first, later = io.StringIO(), io.StringIO()

    async def two_turns() -> None:
        monkeypatch.setattr("sys.stderr", first)
        log_request("r-1", "POST", "/v1/gurps/quick-contest", 200, 0.001)
        monkeypatch.setattr("sys.stderr", later)  # as a test runner does between tests
        log_request("r-2", "POST", "/v1/gurps/quick-contest", 200, 0.001)

    asyncio.run(two_turns())
    assert [line["request_id"] for line in request_lines(first.getvalue())] == ["r-1", "r-2"]
    assert later.getvalue() == ""

    async def closed_meanwhile() -> None:
        gone = io.StringIO()
        monkeypatch.setattr("sys.stderr", gone)
        log_request("r-3", "POST", "/v1/gurps/quick-contest", 200, 0.001)
        gone.close()
        monkeypatch.setattr("sys.stderr", later)

    asyncio.run(closed_meanwhile())
    assert [line["request_id"] for line in request_lines(later.getvalue())] == ["r-3"]
