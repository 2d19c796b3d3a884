"""A server stops without a word of warning: its odds worker ends with it and leaves no
semaphore behind (uvicorn raises SIGTERM again after its shutdown, which would end the
process before its exit handlers could release them), and Ctrl+C, which a terminal sends to
the whole process group, is left to the server (the worker printed a traceback for it)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import httpx

from app.store.database import upgrade_to_head
from tests.store.servers import start_server, stop_server, wait_until_healthy

#: A bound on waiting for the resource tracker to end after the server (it ends at once).
TRACKER_GONE_WITHIN_S = 30.0
#: A bound on the odds worker's start (its imports: about a second).
WORKER_STARTS_WITHIN_S = 60.0


def ignores_sigint(pid: int) -> bool:
    """Whether the process `pid` ignores SIGINT (its `SigIgn` mask in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    return False


def children(pid: int) -> dict[int, str]:
    """The child processes of `pid`, with their command lines."""
    found: dict[int, str] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            command = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ")
            found[int(child)] = command.decode(errors="replace")
    return found


def test_a_stopped_server_leaves_no_semaphore_and_its_worker_ignores_ctrl_c(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    upgrade_to_head(url)
    server = start_server(url, tmp_path, {"ARBITER_ODDS_PRESTART": "1"})
    try:
        wait_until_healthy(server)
        with httpx.Client(base_url=server.base_url, timeout=30.0) as client:
            assert client.get("/readyz").status_code == 200
            spawned = children(server.process.pid)
            workers = [pid for pid, command in spawned.items() if "spawn_main" in command]
            trackers = [pid for pid, command in spawned.items() if "resource_tracker" in command]
            assert len(workers) == 1, spawned
            assert len(trackers) == 1, spawned
            # Once the worker has started (its initializer ran), it ignores SIGINT.
            deadline = time.monotonic() + WORKER_STARTS_WITHIN_S
            while not ignores_sigint(workers[0]):
                assert time.monotonic() < deadline, "the odds worker never ignored SIGINT"
                time.sleep(0.05)
            os.kill(workers[0], signal.SIGINT)  # as Ctrl+C reaches the whole process group
            # The worker is still there: readiness would name an ended one.
            ready = client.get("/readyz")
            assert ready.status_code == 200, ready.text
    finally:
        stop_server(server)  # SIGTERM, as a deploy or `docker stop` sends it
    assert server.process.returncode == -signal.SIGTERM
    deadline = time.monotonic() + TRACKER_GONE_WITHIN_S
    while Path(f"/proc/{trackers[0]}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{trackers[0]}").exists()
    log = server.log.read_text(errors="replace")
    assert "leaked semaphore" not in log, log
    assert "Traceback" not in log, log
    assert "KeyboardInterrupt" not in log, log
