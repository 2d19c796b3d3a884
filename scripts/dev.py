#!/usr/bin/env python3
"""Arbiter's one entry point for developers and CI; needs nothing but Python 3.11+.

    python3 scripts/dev.py serve     # install (first time), migrate, serve on :8000
    python3 scripts/dev.py test      # install (first time), run the whole test suite
    python3 scripts/dev.py check     # lint, types, then the tests
    python3 scripts/dev.py migrate   # apply migrations to DATABASE_URL
    python3 scripts/dev.py bench     # benchmarks (bench/), not tests

The first command creates `.venv` and installs the pinned, hash-checked dependencies of
`requirements.lock`; later runs reinstall only when the lock file changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
LOCK = ROOT / "requirements.lock"
STAMP = VENV / ".arbiter-lock-sha256"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def run(*args: str | Path, env: dict[str, str] | None = None) -> None:
    completed = subprocess.run([str(arg) for arg in args], cwd=ROOT, env=env, check=False)
    if completed.returncode != 0:
        sys.exit(completed.returncode)


def ensure_environment() -> None:
    """Create .venv and install the locked dependencies when missing or out of date."""
    if sys.version_info < (3, 11):  # noqa: UP036 - a clear message for an older python3
        sys.exit("Arbiter needs Python 3.11 or newer")
    if not PYTHON.exists():
        print("creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    wanted = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == wanted:
        return
    print("installing locked dependencies ...", flush=True)
    run(
        PYTHON,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--require-hashes",
        "--no-deps",
        "-r",
        LOCK,
    )
    STAMP.write_text(wanted)


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


def migrate() -> None:
    run(PYTHON, "-m", "alembic", "upgrade", "head")


def serve() -> None:
    migrate()
    host = os.environ.get("ARBITER_HOST", "127.0.0.1")
    port = os.environ.get("ARBITER_PORT", "8000")
    workers = os.environ.get("ARBITER_WORKERS", "1")
    print(f"Arbiter on http://{host}:{port} (docs at /docs)", flush=True)
    os.execv(
        str(PYTHON),
        [
            str(PYTHON),
            "-m",
            "uvicorn",
            "app.main:create_app",
            "--factory",
            "--host",
            host,
            "--port",
            port,
            "--workers",
            workers,
            "--no-access-log",
        ],
    )


def test(extra: list[str]) -> None:
    workers = os.environ.get("ARBITER_TEST_WORKERS", "auto")
    run(PYTHON, "-m", "pytest", "-n", workers, *extra)


def lint() -> None:
    run(PYTHON, "-m", "ruff", "check", ".")
    run(PYTHON, "-m", "ruff", "format", "--check", ".")
    run(PYTHON, "-m", "mypy")


def bench(extra: list[str]) -> None:
    run(PYTHON, "bench/run.py", *extra)


def main() -> None:
    command, *extra = sys.argv[1:] or ["help"]
    if command in ("help", "-h", "--help"):
        print(__doc__)
        return
    ensure_environment()
    if command == "serve":
        serve()
    elif command == "test":
        test(extra)
    elif command == "check":
        lint()
        test(extra)
    elif command == "lint":
        lint()
    elif command == "migrate":
        migrate()
    elif command == "bench":
        bench(extra)
    else:
        sys.exit(f"unknown command {command!r}; try: serve, test, check, lint, migrate, bench")


if __name__ == "__main__":
    main()
