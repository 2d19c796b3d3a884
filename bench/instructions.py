"""Instructions a request costs the server, counted by valgrind's callgrind over real HTTP.

    .venv/bin/python -m bench.instructions [--base 100] [--requests 500]

Wall-clock figures on a shared 2-core machine drift by a fifth between runs; instructions do
not: callgrind counts the same total for the same binary, inputs and environment, whatever
else the machine is doing. Each server (the bare app, Arbiter, Arbiter without its lean lane)
is started under callgrind twice and sent the same requests, once `--base` of them and once
`--base` + `--requests`, one after the other on one keep-alive connection; the difference of
the two totals, divided by `--requests`, is what one request costs (start-up, imports and
shutdown cancel out). Needs valgrind (Debian's package `valgrind`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.run import QUICK_CONTEST, ROOT, free_port, uvicorn_command

#: What each server is: (label, uvicorn's app argument, factory, path, body).
SERVERS: tuple[tuple[str, str, bool, str, object | None], ...] = (
    ("bare FastAPI GET /", "bench.bare:app", False, "/", None),
    ("quick contest", "app.main:create_app", True, "/v1/gurps/quick-contest", QUICK_CONTEST),
    (
        "quick contest, in German",
        "app.main:create_app",
        True,
        "/v1/gurps/quick-contest?lang=de",
        QUICK_CONTEST,
    ),
    (
        "quick contest, no lean lane",
        "bench.instructions:app_without_lane",
        True,
        "/v1/gurps/quick-contest",
        QUICK_CONTEST,
    ),
)


def app_without_lane() -> object:
    """Arbiter with FastAPI's exception middleware in place of `LeanLane`."""
    from app.api.routing import LaneApp
    from app.main import create_app

    app = create_app()
    assert isinstance(app, LaneApp)
    app.lean_lane = False  # read when the middleware stack is built, on the first request
    return app


def count(app: str, factory: bool, path: str, body: object | None, requests: int) -> int:
    """Instructions the server under callgrind executed, serving `requests` requests."""
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        args = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            *uvicorn_command(app, port, factory),
        ]
        env = {
            **os.environ,
            "PYTHONHASHSEED": "0",
            "DATABASE_URL": f"sqlite:///{folder}/bench.db",
        }
        if factory:
            from app.store.database import upgrade_to_head

            upgrade_to_head(env["DATABASE_URL"])
        process = subprocess.Popen(
            args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 300
            with httpx.Client(base_url=base, timeout=60) as client:
                while True:
                    try:
                        client.get("/")
                        break
                    except httpx.HTTPError:
                        if time.monotonic() > deadline or process.poll() is not None:
                            raise RuntimeError(f"{app} did not start under valgrind") from None
                        time.sleep(0.5)
                for _ in range(requests):
                    answer = client.get(path) if body is None else client.post(path, json=body)
                    answer.raise_for_status()
        finally:
            process.terminate()
            process.wait(timeout=120)
        text = out.read_text(errors="replace")
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no total in callgrind's output for {app}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=int, default=100)
    parser.add_argument("--requests", type=int, default=500)
    options = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("bench/instructions.py needs valgrind (Debian: apt-get install valgrind)")
    print(
        f"instructions per request, callgrind on the server process: the difference of "
        f"{options.base + options.requests} and {options.base} sequential keep-alive requests, "
        f"divided by {options.requests}"
    )
    bare = 0
    for label, app, factory, path, body in SERVERS:
        low = count(app, factory, path, body, options.base)
        high = count(app, factory, path, body, options.base + options.requests)
        per_request = (high - low) / options.requests
        bare = bare or int(per_request)
        print(f"{label:32} {per_request:12,.0f}   {per_request / bare:5.2f} x bare", flush=True)


if __name__ == "__main__":
    main()
