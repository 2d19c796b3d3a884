"""Instructions a round costs the server with a webhook subscription and without, counted by
valgrind's callgrind (wall-clock and CPU figures on a shared 2-core machine drift by a third
between runs; instructions barely move).

    .venv/bin/python -m bench.webhook_instructions [--rounds 300] [--sessions 32] [--callers 4]

One Arbiter server (SQLite in a temporary file) runs under callgrind; `--sessions` arm
wrestles without a subscription and as many each subscribed to a receiver (a separate process,
not counted). Counters are zeroed, `--callers` threads post `--rounds` rounds to the sessions
without a subscription, and the counters are dumped (`callgrind_control`); then as many rounds
to the subscribed sessions, until the receiver has every delivery, and dumped again. Each
phase's instructions divided by its rounds: a round alone, and a round with its delivery (the
outbox's row, the worker's claim, the signed POST and its record). Needs valgrind.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from bench.run import ROOT, free_port, uvicorn_command
from bench.webhooks import NEVER_ENDS, ROUND, receive


def total(dump: Path) -> int:
    """The instructions a callgrind dump counted."""
    found = re.search(r"^(?:summary|totals): (\d+)", dump.read_text(errors="replace"), re.M)
    if found is None:
        raise RuntimeError(f"no total in {dump}")
    return int(found.group(1))


def rounds(base: str, sessions: list[tuple[str, str]], callers: int, count: int) -> None:
    """Post `count` rounds to `sessions`, from `callers` threads."""
    share = [count // callers + (index < count % callers) for index in range(callers)]

    def call(index: int) -> None:
        with httpx.Client(base_url=base, timeout=120) as client:
            for turn in range(share[index]):
                path, token = sessions[(index + turn * callers) % len(sessions)]
                answer = client.post(path, json=ROUND, headers={"Authorization": f"Bearer {token}"})
                answer.raise_for_status()

    threads = [threading.Thread(target=call, args=(index,)) for index in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--callers", type=int, default=4)
    options = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("bench/webhook_instructions.py needs valgrind (Debian: apt-get install valgrind)")
    from app.store.database import upgrade_to_head

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        url = f"sqlite:///{folder}/bench.db"
        upgrade_to_head(url)
        hook_port, port = free_port(), free_port()
        count = multiprocessing.Value("l", 0)
        receiver = multiprocessing.Process(target=receive, args=(hook_port, count), daemon=True)
        receiver.start()
        env = {
            **os.environ,
            "PYTHONHASHSEED": "0",
            "DATABASE_URL": url,
            "ARBITER_WEBHOOK_ALLOW_PRIVATE": "true",
            "ARBITER_ODDS_PRESTART": "0",
            "ARBITER_LOG_REQUESTS": "false",
        }
        server = subprocess.Popen(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                *uvicorn_command("app.main:create_app", port, factory=True),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 600
            while True:
                try:
                    if httpx.get(base + "/healthz", timeout=30).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("the server did not start under valgrind")
                time.sleep(0.5)
            plain: list[tuple[str, str]] = []
            subscribed: list[tuple[str, str]] = []
            with httpx.Client(base_url=base, timeout=120) as client:
                for group in (plain, subscribed):
                    for _ in range(options.sessions):
                        made = client.post("/v1/arm-wrestles", json=NEVER_ENDS).json()
                        group.append(
                            (f"/v1/arm-wrestles/{made['id']}/rounds", made["tokens"]["gm"])
                        )
                for path, token in subscribed:
                    hook = client.post(
                        path.removesuffix("/rounds") + "/webhooks",
                        json={"url": f"http://127.0.0.1:{hook_port}/hook"},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    hook.raise_for_status()
            # Warm both paths (the first of each compiles statements, fills caches).
            rounds(base, plain, options.callers, options.callers * 4)
            rounds(base, subscribed, options.callers, options.callers * 4)
            while count.value < options.callers * 4:
                time.sleep(0.1)
            control = ["callgrind_control"]
            subprocess.run([*control, "--zero", str(server.pid)], check=True, capture_output=True)
            rounds(base, plain, options.callers, options.rounds)
            subprocess.run([*control, "--dump", str(server.pid)], check=True, capture_output=True)
            sent = count.value + options.rounds
            rounds(base, subscribed, options.callers, options.rounds)
            while count.value < sent:
                time.sleep(0.1)
            subprocess.run([*control, "--dump", str(server.pid)], check=True, capture_output=True)
        finally:
            server.terminate()
            server.wait(timeout=300)
            receiver.terminate()
        dumps = sorted(
            Path(folder).glob("callgrind.out.*"), key=lambda p: int(p.name.split(".")[-1])
        )
        without, with_one = (total(dump) / options.rounds for dump in dumps[:2])
    print(f"instructions per round without a subscription: {without:12,.0f}")
    print(f"instructions per round with one (its delivery): {with_one:12,.0f}")
    print(f"the rounds one CPU serves, with/without: {without / with_one:.2f}")


if __name__ == "__main__":
    main()
