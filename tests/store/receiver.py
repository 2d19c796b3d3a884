"""A webhook receiver for the tests: an HTTP server on 127.0.0.1 that verifies every delivery
with the `standardwebhooks` package (as a receiver would), and whose behaviour the test sets.

`mode` says how it answers: `ok` (204), `fail` (500), `slow` (holds the request until
`release` is set, then 204: the sender's deadline has passed by then), `busy` (429 with
`Retry-After: <retry_after>`), `redirect` (307 to `location`), `huge` (200 and a 64 MB
body). A receiver that is `stop`ped listens no more (connections are refused) until it is
`start`ed again on the same port. Every request is kept (`requests`, in arrival order, with
the mode that answered it); a delivery answered 2xx is `delivered`. Waits are on a
condition, never a sleep.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from tests.store.servers import free_port

WAIT_S = 30.0
#: A `huge` answer's body: far more than a sender reads of an answer.
HUGE = b"x" * (64 * 1024 * 1024)


@dataclass(frozen=True, slots=True)
class Received:
    webhook_id: str
    headers: dict[str, str]
    body: bytes
    #: The payload as `standardwebhooks` verified it; None: its verification failed.
    verified: Any
    mode: str


class Receiver:
    def __init__(self, path: str = "/hook") -> None:
        self.port = free_port()
        self.path = path
        self.url = f"http://127.0.0.1:{self.port}{path}"
        self.secrets: list[str] = []
        self.mode = "ok"
        self.retry_after = "1"
        self.release = threading.Event()
        self.requests: list[Received] = []
        #: Requests that have arrived (a slow one is kept once it is answered).
        self.arrived = 0
        #: Where a `redirect` answer points; how many `huge` answers the sender cut off.
        self.location = ""
        self.cut_off = 0
        self.changed = threading.Condition()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- running ---------------------------------------------------------------------------

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = self.rfile.read(length)
                receiver.handle(self, body)

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self.release.set()
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # --- answering -------------------------------------------------------------------------

    def verify(self, body: bytes, headers: dict[str, str]) -> Any:
        for secret in self.secrets:
            try:
                return Webhook(secret).verify(body, headers)
            except WebhookVerificationError:
                continue
        return None

    def handle(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        headers = {name.lower(): value for name, value in handler.headers.items()}
        mode = self.mode
        received = Received(
            headers.get("webhook-id", ""), headers, body, self.verify(body, headers), mode
        )
        with self.changed:
            self.arrived += 1
            self.changed.notify_all()
        if mode == "slow":
            self.release.wait(WAIT_S)
        with self.changed:
            self.requests.append(received)
            self.changed.notify_all()
        if mode == "huge":
            handler.send_response(200)
            handler.send_header("Content-Length", str(len(HUGE)))
            handler.end_headers()
            try:
                handler.wfile.write(HUGE)
                handler.wfile.flush()
            except OSError:
                with self.changed:
                    self.cut_off += 1  # the sender stopped reading and closed
                    self.changed.notify_all()
            return
        if mode == "fail":
            handler.send_response(500)
        elif mode == "redirect":
            handler.send_response(307)
            handler.send_header("Location", self.location)
        elif mode == "busy":
            handler.send_response(429)
            handler.send_header("Retry-After", self.retry_after)
        else:
            handler.send_response(204)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    # --- reading ---------------------------------------------------------------------------

    @property
    def delivered(self) -> list[Received]:
        """The requests answered 2xx, in order."""
        with self.changed:
            return [each for each in self.requests if each.mode in ("ok",)]

    def wait_for(
        self, condition: Callable[[list[Received]], bool], timeout: float = WAIT_S
    ) -> None:
        """Wait until `condition(requests)` holds (fail after `timeout`)."""
        with self.changed:
            if not self.changed.wait_for(lambda: condition(self.requests), timeout):
                raise AssertionError(
                    f"the receiver's requests never met the condition: {len(self.requests)} "
                    f"came, modes {[each.mode for each in self.requests]}"
                )


def payloads(received: list[Received]) -> list[dict[str, Any]]:
    """Each verified delivery's payload, first occurrences of each `webhook-id` only."""
    seen: set[str] = set()
    kept = []
    for each in received:
        if each.webhook_id in seen:
            continue
        seen.add(each.webhook_id)
        assert each.verified is not None, each
        kept.append(json.loads(each.body))
    return kept
