"""A PostgreSQL primary and its synchronous standby under pg_auto_failover, on this machine.

`auto_failover_cluster(root)` starts, in the directory `root`, pg_auto_failover's monitor, then
node `a` (the primary, holding the database `arbiter`), then node `b` (its standby, copied
from `a` with pg_basebackup, then streaming). With one standby in the replication quorum the
monitor makes it synchronous (`synchronous_standby_names = 'ANY 1 (...)'`), so the primary
acknowledges a commit only once the standby has it too. Every server listens on 127.0.0.1
only, on free ports, and runs as `postgres` when we are root (PostgreSQL refuses root). On
leaving the block every process is stopped, and `root` is the caller's to remove.

The monitor's failure detection is tightened from its defaults (a health check every 5 s,
20 s without a report before a node is unhealthy, 30 s for a lost primary to demote itself)
to about a second each, and the keepers' `network_partition_timeout` (20 s, after which a
primary that reaches neither the monitor nor a standby stops) to 3 s, below the monitor's
demote timeout, as pg_auto_failover requires for a safe promotion.

`Cluster.lose_primary()` kills the primary's node as a lost machine would lose it: its
postmaster and its keeper (`pg_autoctl run`), with SIGKILL. (Killing the postmaster alone
would have its keeper restart it in place, a restart rather than a failover.)
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg.rows import TupleRow

from tests.requirements import missing, program
from tests.store.servers import free_port

DATABASE = "arbiter"
#: Longest wait for the cluster to form (a monitor, a primary, a standby copied from it).
FORMING_TIMEOUT_S = 120.0
#: Longest wait for a node to stop once asked to.
STOPPING_TIMEOUT_S = 15.0
POLL_INTERVAL_S = 0.2
#: The monitor's failure detection (milliseconds; pg_auto_failover's GUCs on the monitor).
MONITOR_SETTINGS = {
    "pgautofailover.health_check_period": 1000,
    "pgautofailover.health_check_timeout": 1000,
    "pgautofailover.health_check_max_retries": 1,
    "pgautofailover.health_check_retry_delay": 500,
    "pgautofailover.node_considered_unhealthy_timeout": 2000,
    "pgautofailover.primary_demote_timeout": 5000,
}
#: Seconds before a primary alone in a partition stops (below the demote timeout above).
NETWORK_PARTITION_TIMEOUT_S = 3


def server_programs() -> Path:
    """The directory of the PostgreSQL server programs pg_auto_failover is to run; `missing`
    (saying what to install) when pg_autoctl or their pgautofailover extension is not here."""
    found = shutil.which("pg_ctl")
    candidates = [Path(found).resolve().parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    servers = [path for path in candidates if (path / "pg_config").is_file()]
    major = "15"
    if servers:
        version = subprocess.run(
            [servers[0] / "pg_config", "--version"], capture_output=True, text=True, check=True
        ).stdout
        major = (re.findall(r"\d+", version) or [major])[0]
    remedy = f"apt-get install pg-auto-failover-cli postgresql-{major}-auto-failover"
    program("pg_autoctl", remedy)
    if not servers:
        missing("no PostgreSQL server programs (pg_ctl)", remedy)
    share = subprocess.run(
        [servers[0] / "pg_config", "--sharedir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    if not (Path(share) / "extension" / "pgautofailover.control").is_file():
        missing(f"no pgautofailover extension for PostgreSQL {major}", remedy)
    return servers[0]


@dataclass
class Node:
    """One pg_autoctl process (a monitor or a Postgres node) and the server it runs."""

    name: str
    data: Path
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    #: The node's process group, once it is known; None again once the node is lost.
    group: int | None = None
    #: A shared memory segment its killed server left, if any.
    leftover_segment: int | None = None

    def postmaster(self) -> int | None:
        """The postmaster's process id, while its data directory says it runs."""
        with suppress(OSError, ValueError, IndexError):
            return int((self.data / "postmaster.pid").read_text().split()[0])
        return None

    def find_group(self) -> int | None:
        """The process group of the node's keeper and its server (`setsid` made it theirs):
        the keeper is the child of `runuser` (when we are root), or the process itself."""
        if self.process.poll() is not None:
            return None
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        with suppress(OSError, ValueError):
            listed = children.read_text().split()
            if listed:
                return int(listed[0])
        return self.process.pid if os.geteuid() != 0 else None

    def tail(self, lines: int = 30) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return f"--- {self.log.name} ---\n" + "\n".join(text.splitlines()[-lines:])


@dataclass
class Cluster:
    root: Path
    bin_dir: Path
    monitor: Node | None = None
    nodes: dict[str, Node] = field(default_factory=dict)
    #: When the primary's node was killed (`time.monotonic()`).
    lost_at: float | None = None

    @property
    def url(self) -> str:
        """The service's DATABASE_URL: every node, the standby first, so that each
        connection passes a server that is up but cannot take writes before it reaches the
        primary (`target_session_attrs=read-write` at work even before the failover)."""
        hosts = ",".join(f"127.0.0.1:{self.nodes[name].port}" for name in ("b", "a"))
        return f"postgresql://postgres@{hosts}/{DATABASE}?target_session_attrs=read-write"

    def _environment(self) -> list[str]:
        # pg_autoctl keeps its configuration and state under XDG directories: these.
        return [
            "env",
            "-i",
            f"PATH={self.bin_dir}:/usr/bin:/bin",
            f"HOME={self.root}",
            f"XDG_CONFIG_HOME={self.root / 'config'}",
            f"XDG_DATA_HOME={self.root / 'share'}",
            f"XDG_RUNTIME_DIR={self.root / 'run'}",
            f"PG_CONFIG={self.bin_dir / 'pg_config'}",
            "LANG=C.UTF-8",
        ]

    def _as_server_user(self) -> list[str]:
        return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _autoctl(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self._as_server_user(), *self._environment(), "pg_autoctl", *arguments],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )

    def _spawn(self, name: str, *arguments: str) -> Node:
        data, port, log = self.root / name, free_port(), self.root / f"{name}.log"
        command = [
            *self._as_server_user(),
            *self._environment(),
            "setsid",
            "pg_autoctl",
            *arguments,
            "--pgdata",
            str(data),
            "--pgport",
            str(port),
            "--listen",
            "127.0.0.1",
            "--hostname",
            "127.0.0.1",
            "--auth",
            "trust",
            "--no-ssl",
            "--pgctl",
            str(self.bin_dir / "pg_ctl"),
            "--run",
        ]
        with log.open("wb") as sink:
            process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
        return Node(name, data, port, process, log)

    def connect(self, port: int, database: str = DATABASE) -> psycopg.Connection[TupleRow]:
        address = f"postgresql://postgres@127.0.0.1:{port}/{database}"
        return psycopg.connect(address, connect_timeout=2, autocommit=True)

    def states(self) -> dict[str, tuple[str, str]]:
        """Each node's (reported, assigned) state, as the monitor knows them."""
        assert self.monitor is not None
        with self.connect(self.monitor.port, "pg_auto_failover") as monitor:
            rows = monitor.execute(
                "SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node"
            ).fetchall()
        return {str(name): (str(reported), str(goal)) for name, reported, goal in rows}

    def wait_until(self, done: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + FORMING_TIMEOUT_S
        while time.monotonic() < deadline:
            for node in [self.monitor, *self.nodes.values()]:
                if node is not None and node.process.poll() is not None:
                    raise RuntimeError(f"pg_autoctl for {node.name} exited:\n{node.tail()}")
            with suppress(psycopg.Error):
                if done():
                    return
            time.sleep(POLL_INTERVAL_S)
        logs = "\n".join(node.tail() for node in [self.monitor, *self.nodes.values()] if node)
        raise RuntimeError(f"the cluster did not {what} in {FORMING_TIMEOUT_S:g} s:\n{logs}")

    def in_state(self, wanted: dict[str, str]) -> bool:
        states = self.states()
        return all(states.get(name) == (state, state) for name, state in wanted.items())

    def form(self) -> None:
        """The monitor, the primary, then the standby, each once the one before is there."""
        self.monitor = self._spawn("monitor", "create", "monitor")
        self.wait_until(self._monitor_answers, "start its monitor")
        with self.connect(self.monitor.port, "pg_auto_failover") as monitor:
            for name, value in MONITOR_SETTINGS.items():
                monitor.execute(f"ALTER SYSTEM SET {name} = {int(value)}")
            monitor.execute("SELECT pg_reload_conf()")
        address = f"postgres://autoctl_node@127.0.0.1:{self.monitor.port}/pg_auto_failover"
        monitor_uri = f"{address}?sslmode=disable"
        for name in ("a", "b"):
            self.nodes[name] = self._spawn(
                name,
                "create",
                "postgres",
                "--name",
                name,
                "--dbname",
                DATABASE,
                "--monitor",
                monitor_uri,
            )
            if name == "a":
                self.wait_until(lambda: self.in_state({"a": "single"}), "start its primary")
            else:
                # The standby's copy waits for a checkpoint on the primary, which spreads its
                # writes over minutes unless one is asked for at once.
                self.wait_until(self._checkpointed_and_formed, "start its standby")
            self.nodes[name].group = self.nodes[name].find_group()
            self._autoctl(
                "config",
                "set",
                "--pgdata",
                str(self.nodes[name].data),
                "timeout.network_partition_timeout",
                str(NETWORK_PARTITION_TIMEOUT_S),
            )

    def _monitor_answers(self) -> bool:
        assert self.monitor is not None
        with self.connect(self.monitor.port, "pg_auto_failover"):
            self.monitor.group = self.monitor.find_group()
            return True

    def _checkpointed_and_formed(self) -> bool:
        if self.in_state({"a": "primary", "b": "secondary"}):
            return True
        with self.connect(self.nodes["a"].port) as primary:
            primary.execute("CHECKPOINT")
        return False

    def synchronous_standbys(self) -> str:
        with self.connect(self.nodes["a"].port) as primary:
            row = primary.execute("SHOW synchronous_standby_names").fetchone()
        return str(row[0]) if row else ""

    def lose_primary(self) -> None:
        """SIGKILL the primary's keeper and postmaster (and so its backends), at once."""
        node = self.nodes["a"]
        assert node.group is not None, node.tail()
        # A killed postmaster leaves its System V segment behind (a few bytes): its id, from
        # the 7th line of postmaster.pid ("key id"), to remove once the node is stopped.
        with suppress(OSError, IndexError, ValueError):
            node.leftover_segment = int(
                (node.data / "postmaster.pid").read_text().split("\n")[6].split()[1]
            )
        os.killpg(node.group, signal.SIGKILL)
        node.group = None
        node.process.wait(timeout=STOPPING_TIMEOUT_S)
        self.lost_at = time.monotonic()

    def promoted(self) -> bool:
        """Whether the standby has become the primary, taking writes."""
        return self.in_state({"b": "wait_primary"}) or self.in_state({"b": "primary"})

    def stop(self) -> None:
        """Stop every node: SIGTERM to its processes (pg_autoctl stops its server), SIGKILL
        for what is left after `STOPPING_TIMEOUT_S`."""
        nodes = [node for node in [*self.nodes.values(), self.monitor] if node is not None]
        for node in nodes:
            node.group = node.group or node.find_group()
            if node.group is not None:
                with suppress(ProcessLookupError):
                    os.killpg(node.group, signal.SIGTERM)
        deadline = time.monotonic() + STOPPING_TIMEOUT_S
        for node in nodes:
            try:
                node.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                if node.group is not None:
                    with suppress(ProcessLookupError):
                        os.killpg(node.group, signal.SIGKILL)
                node.process.kill()
                node.process.wait(timeout=STOPPING_TIMEOUT_S)
        for node in nodes:
            if node.leftover_segment is not None:
                subprocess.run(
                    [*self._as_server_user(), "ipcrm", "-m", str(node.leftover_segment)],
                    capture_output=True,
                    check=False,
                    timeout=10,
                )


@contextmanager
def auto_failover_cluster(root: Path) -> Iterator[Cluster]:
    """A formed cluster in `root` (which the server user must be able to write), stopped
    when the block ends."""
    bin_dir = server_programs()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    cluster = Cluster(root, bin_dir)
    try:
        cluster.form()
        yield cluster
    finally:
        cluster.stop()
