"""Real server processes for the store's tests: `uvicorn app.main:create_app --factory`.

The store's guarantees are about many processes sharing one database, which an in-process
`TestClient` cannot show. `running_servers(url, count)` starts `count` uvicorn processes with
the project's interpreter on free ports, all on the database `url` (which must already be
migrated), waits until each answers `/healthz`, and terminates them when the block ends.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx

PROJECT_ROOT = Path(__file__).resolve().parents[2]
STARTUP_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
#: Between two looks at a starting server: a start takes a second or two, so this costs at
#: most a few percent of it (a refused connection costs next to nothing).
POLL_INTERVAL_S = 0.02


@dataclass(frozen=True, slots=True)
class Server:
    """One running server process and where it listens."""

    process: subprocess.Popen[bytes]
    base_url: str
    log: Path


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_server(
    database_url: str, log_dir: Path, settings: dict[str, str] | None = None
) -> Server:
    """Start one uvicorn process on `database_url` (with these `ARBITER_*` settings too), on
    the protocol `scripts/dev.py` serves with; it is not waited for here."""
    port = free_port()
    # No odds worker process started with the server (one is started at the first heavy
    # odds question, if any): the store's tests ask none, and each would cost the start-up
    # 0.7 s of CPU, in a process that outlives a stopped server by a second.
    env = {**os.environ, "DATABASE_URL": database_url, "ARBITER_ODDS_PRESTART": "0"}
    env.update(settings or {})
    env.pop("ARBITER_DATABASE_URL", None)
    env.pop("ARBITER_RATE_LIMIT_PER_MINUTE", None)
    log = log_dir / f"uvicorn-{port}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "app.main:create_app",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--http",
                "app.serving:GuardedHttpTools",
                "--log-level",
                "warning",
            ],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    return Server(process, f"http://127.0.0.1:{port}", log)


def wait_until_healthy(server: Server, timeout: float = STARTUP_TIMEOUT_S) -> None:
    """Poll `/healthz` until it answers 200; fail with the server's log otherwise.

    One client for every look: `httpx.get` would build a client, and with it an SSL context
    (about 20 ms of CPU), on each of them."""
    deadline = time.monotonic() + timeout
    with httpx.Client(base_url=server.base_url, timeout=1.0) as client:
        while time.monotonic() < deadline:
            if server.process.poll() is not None:
                raise RuntimeError(
                    f"server at {server.base_url} exited with {server.process.returncode}:\n"
                    + server.log.read_text(errors="replace")
                )
            with suppress(httpx.HTTPError):
                if client.get("/healthz").status_code == 200:
                    return
            time.sleep(POLL_INTERVAL_S)
    raise RuntimeError(
        f"server at {server.base_url} did not become healthy in {timeout} s:\n"
        + server.log.read_text(errors="replace")
    )


def stop_server(server: Server) -> None:
    """Terminate the process (SIGTERM, then SIGKILL if it lingers) and reap it."""
    if server.process.poll() is None:
        server.process.terminate()
        try:
            server.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=STOP_TIMEOUT_S)


@contextmanager
def running_servers(
    database_url: str, count: int, log_dir: Path, settings: dict[str, str] | None = None
) -> Iterator[list[Server]]:
    """`count` healthy server processes on one (migrated) database (with these `ARBITER_*`
    settings too), stopped afterwards."""
    servers: list[Server] = []
    try:
        for _ in range(count):
            servers.append(start_server(database_url, log_dir, settings))
        for server in servers:
            wait_until_healthy(server)
        yield servers
    finally:
        for server in servers:
            stop_server(server)


def kill_server(server: Server) -> None:
    """SIGKILL the process, as a crash or the kernel's OOM killer would, and reap it."""
    server.process.kill()
    server.process.wait(timeout=STOP_TIMEOUT_S)
