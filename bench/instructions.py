"""Instructions a request costs the server, counted by valgrind's callgrind over real HTTP.

    .venv/bin/python -m bench.instructions [--base 100] [--requests 500] [--against REV]

Wall-clock figures on a shared 2-core machine drift by a fifth between runs; instructions do
not: callgrind counts the same total for the same binary, inputs and environment, whatever
else the machine is doing. Each server (the bare app, Arbiter, Arbiter without its lean lane)
is started under callgrind twice and sent the same requests, once `--base` of them and once
`--base` + `--requests`, one after the other on one keep-alive connection; the difference of
the two totals, divided by `--requests`, is what one request costs (start-up, imports and
shutdown cancel out). Needs valgrind (Debian's package `valgrind`).

With `--against REV`, the quick contest and an arm-wrestle round (server dice, SQLite) are also
counted on REV's tree (checked out into a temporary worktree, its database migrated by its own
migrations, served with this checkout's virtualenv): a change's cost in the same run, in figures
that do not drift.
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

from bench.compare import migrate, worktree
from bench.run import QUICK_CONTEST, ROOT, free_port, uvicorn_command

#: The path of `SERVERS` whose requests are rounds of one arm wrestle, created first.
ROUNDS = "/v1/arm-wrestles/{id}/rounds"
ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "target": 100,
    "max_rounds": 10_000,
}

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
    ("arm-wrestle round (SQLite)", "app.main:create_app", True, ROUNDS, {}),
)


def app_without_lane() -> object:
    """Arbiter with FastAPI's exception middleware in place of `LeanLane`."""
    from app.api.routing import LaneApp
    from app.main import create_app

    app = create_app()
    assert isinstance(app, LaneApp)
    app.lean_lane = False  # read when the middleware stack is built, on the first request
    return app


def count(
    app: str, factory: bool, path: str, body: object | None, requests: int, root: Path = ROOT
) -> int:
    """Instructions the server under callgrind executed, serving `requests` requests (after
    one arm wrestle's creation, for `ROUNDS`), from the source tree `root`."""
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
            migrate(root, env["DATABASE_URL"])
        process = subprocess.Popen(
            args, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 1200
            with httpx.Client(base_url=base, timeout=60) as client:
                while True:
                    try:
                        client.get("/")
                        break
                    except httpx.HTTPError:
                        if time.monotonic() > deadline or process.poll() is not None:
                            raise RuntimeError(f"{app} did not start under valgrind") from None
                        time.sleep(0.5)
                headers = {}
                if path == ROUNDS:
                    created = client.post("/v1/arm-wrestles", json=ARM_WRESTLE)
                    created.raise_for_status()
                    path = ROUNDS.format(id=created.json()["id"])
                    headers = {"authorization": f"Bearer {created.json()['tokens']['gm']}"}
                for _ in range(requests):
                    if body is None:
                        answer = client.get(path)
                    else:
                        answer = client.post(path, json=body, headers=headers)
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
    parser.add_argument("--against", metavar="REV", help="an earlier commit counted too")
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
    if options.against:
        with worktree(options.against) as earlier:
            for label, app, factory, path, body in SERVERS:
                if not factory or "lean lane" in label:
                    continue
                low = count(app, factory, path, body, options.base, earlier)
                high = count(app, factory, path, body, options.base + options.requests, earlier)
                per_request = (high - low) / options.requests
                print(
                    f"{label + ' at ' + options.against:32} {per_request:12,.0f}   "
                    f"{per_request / bare:5.2f} x bare",
                    flush=True,
                )


if __name__ == "__main__":
    main()
