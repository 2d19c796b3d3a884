"""A PostgreSQL primary and its streaming read replica, made on this machine for a bench or a test.

`primary_and_replica(root)` makes, in the directory `root`, a primary with `initdb` and a
standby copied from it with `pg_basebackup -R` (which writes `primary_conninfo` and
`standby.signal`, as the official image's replication recipes do), starts both on free ports on
127.0.0.1 with `pg_ctl`, waits until the standby streams, and stops both when the block ends.
The servers run as `postgres` when we are root (PostgreSQL refuses root).

Why not a copy of the local server at 127.0.0.1:5432: its pg_hba.conf has no `replication`
entry, so pg_basebackup is refused there; a primary of our own allows it (initdb's
`--auth=trust` lets local replication connections in) and leaves the shared server alone.

`NotHere` says what is missing (the server programs, or a server that would not start).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

#: Longest wait for the standby to stream from the primary after it started.
STREAMING_TIMEOUT_S = 60.0


class NotHere(Exception):
    """What this machine lacks to run the pair, and what to install or start."""

    def __init__(self, what: str, remedy: str) -> None:
        super().__init__(f"{what}: {remedy}")
        self.what = what
        self.remedy = remedy


@dataclass(frozen=True, slots=True)
class Pair:
    primary_port: int
    replica_port: int
    bin_dir: Path

    def url(self, port: int, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{port}/{database}"

    def primary_url(self, database: str = "postgres") -> str:
        return self.url(self.primary_port, database)

    def replica_url(self, database: str = "postgres") -> str:
        return self.url(self.replica_port, database)


def server_programs() -> Path:
    """The directory of initdb, pg_ctl and pg_basebackup (the newest PostgreSQL installed)."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    found = shutil.which("initdb")
    if found:
        candidates.insert(0, Path(found).resolve().parent)
    for path in candidates:
        if all((path / name).is_file() for name in ("initdb", "pg_ctl", "pg_basebackup")):
            return path
    raise NotHere(
        "no PostgreSQL server programs (initdb, pg_ctl, pg_basebackup)",
        "apt-get install postgresql",
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _as_server_user() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


def _run(*command: str | Path, timeout: float = 120) -> None:
    done = subprocess.run(
        [*_as_server_user(), *map(str, command)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise NotHere(
            f"{Path(str(command[0])).name} failed ({done.stderr.strip()[-300:]})",
            "see the server's log in the bench's directory",
        )


def _options(port: int, sockets: Path, extra: dict[str, str]) -> str:
    settings = {
        "port": str(port),
        "listen_addresses": "127.0.0.1",
        "unix_socket_directories": str(sockets),
        **extra,
    }
    return " ".join(f"-c {name}={value}" for name, value in settings.items())


@contextmanager
def primary_and_replica(
    root: Path, primary_settings: dict[str, str] | None = None
) -> Iterator[Pair]:
    """A primary and its streaming standby, in `root` (which the caller removes)."""
    bin_dir = server_programs()
    root.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    primary, replica = root / "primary", root / "replica"
    primary_port, replica_port = free_port(), free_port()
    started: list[Path] = []
    try:
        _run(bin_dir / "initdb", "-D", primary, "--auth=trust", "-U", "postgres", "-E", "UTF8")
        _run(
            bin_dir / "pg_ctl",
            "-D",
            primary,
            "-o",
            _options(primary_port, root, primary_settings or {}),
            "-l",
            root / "primary.log",
            "-w",
            "start",
        )
        started.append(primary)
        _run(
            bin_dir / "pg_basebackup",
            "-h",
            "127.0.0.1",
            "-p",
            str(primary_port),
            "-U",
            "postgres",
            "-D",
            replica,
            "-R",
            "-X",
            "stream",
        )
        _run(
            bin_dir / "pg_ctl",
            "-D",
            replica,
            "-o",
            _options(replica_port, root, {"hot_standby_feedback": "on"}),
            "-l",
            root / "replica.log",
            "-w",
            "start",
        )
        started.append(replica)
        pair = Pair(primary_port, replica_port, bin_dir)
        _wait_streaming(pair)
        yield pair
    finally:
        for data in reversed(started):
            with suppress(Exception):
                _run(bin_dir / "pg_ctl", "-D", data, "-m", "fast", "-w", "stop", timeout=60)


def _wait_streaming(pair: Pair) -> None:
    import psycopg

    deadline = time.monotonic() + STREAMING_TIMEOUT_S
    while True:
        with psycopg.connect(
            f"postgresql://postgres@127.0.0.1:{pair.primary_port}/postgres", autocommit=True
        ) as connection:
            row = connection.execute(
                "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
            ).fetchone()
        if row is not None and row[0] >= 1:
            return
        if time.monotonic() > deadline:
            raise NotHere("the standby did not stream", "see replica.log in the bench's directory")
        time.sleep(0.1)


def replay_lag(pair: Pair) -> tuple[int, float | None]:
    """The replica's lag as its primary sees it: WAL bytes sent and not yet replayed, and the
    seconds of its last reported replay lag (None: idle, nothing to replay)."""
    import psycopg

    with psycopg.connect(
        f"postgresql://postgres@127.0.0.1:{pair.primary_port}/postgres", autocommit=True
    ) as connection:
        row = connection.execute(
            "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint, "
            "extract(epoch FROM replay_lag)::float8 FROM pg_stat_replication"
        ).fetchone()
    if row is None:
        raise RuntimeError("the replica is not streaming")
    return int(row[0] or 0), row[1]


def wait_replayed(pair: Pair, timeout: float = 30.0) -> None:
    """Until the replica has replayed everything the primary has written."""
    import psycopg

    with psycopg.connect(
        f"postgresql://postgres@127.0.0.1:{pair.primary_port}/postgres", autocommit=True
    ) as connection:
        row = connection.execute("SELECT pg_current_wal_lsn()::text").fetchone()
    assert row is not None
    target = row[0]
    deadline = time.monotonic() + timeout
    with psycopg.connect(
        f"postgresql://postgres@127.0.0.1:{pair.replica_port}/postgres", autocommit=True
    ) as connection:
        while True:
            done = connection.execute(
                "SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), %s::pg_lsn) >= 0", (target,)
            ).fetchone()
            if done is not None and done[0]:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the replica did not replay up to {target}")
            time.sleep(0.05)
