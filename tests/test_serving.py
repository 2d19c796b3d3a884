"""The HTTP server's protocol (app/serving.py): what it keeps of each connection.

`GuardedHttpTools` keeps uvicorn's two events of a connection (its transport writable, a
message for the app) with their waiters in lists, and its queue of pipelined requests as a
list: an empty deque is a 64-slot block, and a live stream holds its connection for its
whole life. These tests check that the events still wake whoever waits on them, on the
running Python, and that pipelined requests are still answered in order.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send

from app.serving import GuardedHttpTools, Pipeline, lighten
from tests.store.servers import free_port

#: A bound on every wait (never reached when the code works).
PATIENCE_S = 20.0


def stepped(wait: Coroutine[Any, Any, Any]) -> asyncio.Future[Any]:
    """Run `wait` (an `Event.wait()`) to its first suspension: the future it waits on."""
    future = wait.send(None)
    assert isinstance(future, asyncio.Future)
    return future


def test_a_lightened_event_wakes_every_waiter_even_those_waiting_before() -> None:
    async def scenario() -> None:
        event = asyncio.Event()
        early = event.wait()
        early_future = stepped(early)  # waiting before the event is lightened
        lighten(event)
        assert isinstance(event._waiters, list)
        late, gone = event.wait(), event.wait()
        late_future, gone_future = stepped(late), stepped(gone)
        assert len(event._waiters) == 3
        # A waiter that gives up (its task cancelled) leaves the list.
        gone_future.cancel()
        with pytest.raises(asyncio.CancelledError):
            gone.throw(asyncio.CancelledError())
        assert len(event._waiters) == 2
        event.set()
        assert early_future.result() is True
        assert late_future.result() is True
        for wait in (early, late):
            with pytest.raises(StopIteration) as finished:
                wait.send(None)
            assert finished.value.value is True
        assert event._waiters == []
        # Set, a wait returns at once; cleared, it waits again.
        assert await event.wait() is True
        event.clear()
        again = event.wait()
        stepped(again)
        assert len(event._waiters) == 1
        again.close()
        assert event._waiters == []

    asyncio.run(scenario())


def test_the_pipeline_is_first_in_first_out() -> None:
    pipeline = Pipeline()
    assert not pipeline
    pipeline.appendleft("first")
    pipeline.appendleft("second")
    assert pipeline.pop() == "first"
    assert pipeline.pop() == "second"
    assert not pipeline


class Held:
    """What the app saw of the request it holds open: its protocol, and its disconnect."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.disconnected = threading.Event()


@contextmanager
def serving(held: Held) -> Iterator[tuple[uvicorn.Server, int]]:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"]
        await send({"type": "http.response.start", "status": 200, "headers": []})
        if path == "/hold":
            await send({"type": "http.response.body", "body": b"held\n", "more_body": True})
            held.started.set()
            while (await receive())["type"] != "http.disconnect":
                pass
            held.disconnected.set()
            return
        await send({"type": "http.response.body", "body": path.encode()})

    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, http=GuardedHttpTools, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(int(PATIENCE_S / 0.01)):  # polled until it listens
            if server.started:
                break
            threading.Event().wait(0.01)
        yield server, port
    finally:
        server.should_exit = True
        thread.join(PATIENCE_S)


def test_a_held_connections_events_are_light_and_still_wake_the_app() -> None:
    held = Held()
    with serving(held) as (server, port):
        client = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S)
        client.sendall(b"GET /hold HTTP/1.1\r\nHost: test\r\n\r\n")
        assert held.started.wait(PATIENCE_S)
        (protocol,) = server.server_state.connections
        assert isinstance(protocol, GuardedHttpTools)
        assert isinstance(protocol.flow._is_writable_event._waiters, list)
        assert isinstance(protocol.cycle.message_event._waiters, list)
        assert type(protocol.pipeline) is Pipeline
        # The client going away reaches the app through the lightened event.
        client.close()
        assert held.disconnected.wait(PATIENCE_S)


def test_pipelined_requests_are_answered_in_order() -> None:
    with serving(Held()) as (_server, port):
        client = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S)
        with client:
            client.sendall(
                b"GET /first HTTP/1.1\r\nHost: test\r\n\r\n"
                b"GET /second HTTP/1.1\r\nHost: test\r\n\r\n"
                b"GET /third HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
            )
            answers = b""
            while chunk := client.recv(65536):
                answers += chunk
        assert answers.count(b"HTTP/1.1 200") == 3
        shown = [answers.index(path) for path in (b"/first", b"/second", b"/third")]
        assert shown == sorted(shown)
