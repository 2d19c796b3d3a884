"""What some tests need besides Python: a server or a program, and what to do without it.

The README's test command needs Python, PostgreSQL and Redis. A test that needs anything
else (Chromium, Node.js and npm, PostgreSQL's server programs, pg_auto_failover) or a server
that is not reachable is skipped with one line saying what to install or start; in CI
(`CI=true`) it fails instead, so CI can never pass without what it is meant to test.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NoReturn

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def missing(what: str, remedy: str) -> NoReturn:
    """`what` is not there: fail in CI, skip elsewhere, saying `remedy` (what to install)."""
    if IN_CI:
        pytest.fail(f"{what}, which is mandatory in CI: {remedy}", pytrace=False)
    pytest.skip(f"{what}: {remedy}")


def program(name: str, remedy: str, *, called: str | None = None) -> str:
    """The path of the program `name` (looked up on PATH, or a path given as `name`), or
    `missing` (saying "no <called> at <path>" or "no <name> on PATH")."""
    if os.sep in name:
        path = Path(name)
        if path.is_file() and os.access(path, os.X_OK):
            return name
        missing(f"no {called or 'program'} at {name}", remedy)
    found = shutil.which(name)
    if found is None:
        missing(f"no {called or name} on PATH", remedy)
    return found


def npm_installed(package: Path, needed: Sequence[Path], remedy: str) -> None:
    """`npm ci` in `package` (the exact versions of its lock file) unless every path of
    `needed` is there already: once, by whichever test process asks first, the others
    (pytest-xdist workers) waiting on a lock file meanwhile (`npm ci` empties node_modules
    first, under any other reader)."""
    npm = program("npm", remedy)
    key = hashlib.sha256(str(package).encode()).hexdigest()[:16]
    with (Path(tempfile.gettempdir()) / f"arbiter-npm-{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not all(path.exists() for path in needed):
            installed = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=package,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert installed.returncode == 0, installed.stdout + installed.stderr


def skipped_groups(reasons: Iterable[str]) -> list[str]:
    """One line per reason the tests were skipped for (pytest's `Skipped: ` prefix dropped),
    with how many, most first: each of `missing`'s says what is not there and what to do."""
    counted = Counter(reason.removeprefix("Skipped: ") for reason in reasons)
    return [
        f"{count} skipped: {reason}"
        for reason, count in sorted(counted.items(), key=lambda item: (-item[1], item[0]))
    ]
