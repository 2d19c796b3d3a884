"""This checkout against an earlier commit, in one run: the same loads as bench/run.py, each
tree's server alternating with the bare app, every figure a ratio to the bare run just before it.

    .venv/bin/python bench/compare.py REV [--duration 5] [--pairs 3] [--sessions 500]
                                          [--no-postgres]

REV (any commit: `e1591d5`, `HEAD~3`) is checked out into a temporary worktree, its database
migrated by its own migrations, and served from there with this checkout's virtualenv (a REV
whose locked dependencies differ from this checkout's is measured with these). Both trees serve
in turn, one uvicorn worker each: a quick contest, and arm-wrestle rounds with server dice over
many sessions on SQLite and, unless `--no-postgres`, on PostgreSQL. Prints, per load, each run's
ratio for both trees and the median, so a change's cost is read against the same machine
minutes apart, not against figures of another day.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import median

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.run import (
    BENCH_DICE_KEY,
    POSTGRES_URL,
    QUICK_CONTEST,
    ROOT,
    create_arm_wrestles,
    load,
    server,
)


@contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """`rev` checked out, detached, in a temporary folder removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="arbiter-compare-"))
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(folder), rev], cwd=ROOT, check=True
    )
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, check=False)


def migrate(root: Path, url: str) -> None:
    """The database at `url` brought to the head of `root`'s own migrations."""
    migrated = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from app.store.database import upgrade_to_head; "
            "upgrade_to_head(sys.argv[1])",
            url,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if migrated.returncode != 0:
        raise RuntimeError(f"migrating {url} from {root} failed:\n{migrated.stderr[-2000:]}")


def fresh_postgres(name: str) -> str:
    """An empty PostgreSQL database of its own for one tree's run."""
    admin = POSTGRES_URL.rsplit("/", 1)[0] + "/postgres"
    from sqlalchemy import create_engine, text

    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return POSTGRES_URL.rsplit("/", 1)[0] + "/" + name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the earlier commit")
    parser.add_argument("--duration", type=int, default=5)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--no-postgres", action="store_true")
    options = parser.parse_args()
    how = {"duration": options.duration, "connections": options.connections}

    with worktree(options.rev) as before, server("bench.bare:app") as bare:
        trees = {options.rev: before, "this checkout": ROOT}
        databases = ["sqlite"] + ([] if options.no_postgres else ["postgresql"])
        ratios: dict[tuple[str, str], list[float]] = {}
        with tempfile.TemporaryDirectory() as folder:
            urls: dict[tuple[str, str], str] = {}
            for label, root in trees.items():
                for database in databases:
                    if database == "sqlite":
                        url = f"sqlite:///{folder}/{uuid.uuid4().hex}.db"
                    else:
                        url = fresh_postgres(f"compare_{uuid.uuid4().hex[:12]}")
                    migrate(root, url)
                    urls[(label, database)] = url
            for run in range(options.pairs):
                # Both trees in each pass, the earlier first on even passes and second on odd
                # ones: a machine warming up or slowing down favours neither.
                order = list(trees.items()) if run % 2 == 0 else list(reversed(trees.items()))
                for label, root in order:
                    for database in databases:
                        env = {
                            "DATABASE_URL": urls[(label, database)],
                            "ARBITER_DICE_KEY": BENCH_DICE_KEY,
                        }
                        with server("app.main:create_app", env, factory=True, root=root) as base:
                            httpx.get(base + "/readyz", timeout=30)
                            if database == "sqlite":
                                yardstick = load("bare", bare, "/", **how)
                                quick = load(
                                    "quick contest",
                                    base,
                                    "/v1/gurps/quick-contest",
                                    method="POST",
                                    body=QUICK_CONTEST,
                                    **how,
                                )
                                ratios.setdefault((label, "quick contest"), []).append(
                                    quick.requests_per_second / yardstick.requests_per_second
                                )
                            sessions = create_arm_wrestles(base, options.sessions)
                            yardstick = load("bare", bare, "/", **how)
                            rounds = load("rounds", base, "", sessions=sessions, **how)
                            ratios.setdefault((label, f"rounds ({database})"), []).append(
                                rounds.requests_per_second / yardstick.requests_per_second
                            )
                print(f"pass {run + 1} of {options.pairs} done", flush=True)
    loads = sorted({name for _, name in ratios}, key=lambda name: (name != "quick contest", name))
    print(f"\nratio to the bare app (median of {options.pairs} runs; each run's in brackets)")
    print(f"{'load':<24}" + "".join(f"{label:>34}" for label in trees))
    for name in loads:
        cells = []
        for label in trees:
            values = ratios[(label, name)]
            cells.append(f"{median(values):.3f} [{', '.join(f'{v:.2f}' for v in values)}]")
        print(f"{name:<24}" + "".join(f"{cell:>34}" for cell in cells))


if __name__ == "__main__":
    main()
