"""What a bench's PostgreSQL backends wait on: `pg_stat_activity` sampled in a thread, and the
server's WAL and buffer-write counters before and after (bench/sweep.py, `--watch`).

Each sample is every backend of the bench's database (and the server's own processes: WAL
writer, checkpointer, autovacuum) with its state, wait event and the start of its query, at
a `time.perf_counter` moment the bench's own clocks share.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

SAMPLE = text(
    "SELECT pid, backend_type, state, coalesce(wait_event_type, ''), coalesce(wait_event, ''),"
    " left(query, 80), extract(epoch FROM clock_timestamp() - xact_start)"
    " FROM pg_stat_activity"
    " WHERE pid <> pg_backend_pid()"
    " AND (datname = current_database() OR backend_type <> 'client backend')"
)
PROGRESS = text(
    "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn,"
    " (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)"
)
#: The server-wide counters compared before and after (PostgreSQL 15).
COUNTERS = {
    "wal": "SELECT wal_records, wal_fpi, wal_bytes, wal_buffers_full, wal_write, wal_sync"
    " FROM pg_stat_wal",
    "bgwriter": "SELECT checkpoints_timed, checkpoints_req, buffers_checkpoint, buffers_clean,"
    " buffers_backend, buffers_backend_fsync, buffers_alloc FROM pg_stat_bgwriter",
}
#: The retention sweep's statements (app/store/repository.py, app/store/webhooks.py).
SWEEP_MARKS = (
    "DELETE FROM sessions",
    "DELETE FROM idempotency_keys",
    "DELETE FROM webhook",
    "FOR UPDATE SKIP LOCKED",
    "sessions.touched_hour",
)


def disk() -> tuple[int, int, int]:
    """Linux: the page cache's dirty and writeback kB, and the sectors written to whole disks
    (zeros elsewhere)."""
    try:
        memory = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        written = sum(
            int(fields[9])
            for fields in (
                line.split() for line in Path("/proc/diskstats").read_text().splitlines()
            )
            if fields[2].startswith(("vd", "sd", "nvme")) and not fields[2][-1].isdigit()
        )
        return int(memory["Dirty"].split()[0]), int(memory["Writeback"].split()[0]), written
    except (OSError, KeyError, ValueError, IndexError):
        return 0, 0, 0


def role(backend_type: str, query: str) -> str:
    if backend_type != "client backend":
        return backend_type
    if any(mark in query for mark in SWEEP_MARKS):
        return "sweep"
    return "requests"


@dataclass
class Watch:
    url: str
    every: float = 0.02
    #: (moment, the server's WAL bytes, its checkpoints so far, the backends' rows, the
    #: machine's dirty and writeback page cache in kB and its disks' sectors written).
    samples: list[tuple[float, int, int, list[tuple[Any, ...]], tuple[int, int, int]]] = field(
        default_factory=list
    )
    before: dict[str, dict[str, int]] = field(default_factory=dict)
    after: dict[str, dict[str, int]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def counters(self) -> dict[str, dict[str, int]]:
        engine = create_engine(self.url, isolation_level="AUTOCOMMIT")
        with engine.connect() as connection:
            found = {}
            for name, query in COUNTERS.items():
                row = connection.execute(text(query)).mappings().one()
                found[name] = {key: int(value) for key, value in row.items()}
        engine.dispose()
        return found

    def start(self) -> None:
        self.before = self.counters()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.after = self.counters()

    def _sample(self) -> None:
        engine = create_engine(self.url, isolation_level="AUTOCOMMIT")
        with engine.connect() as connection:
            while not self._stop.is_set():
                moment = time.perf_counter()
                rows = [tuple(row) for row in connection.execute(SAMPLE)]
                wal, checkpoints = connection.execute(PROGRESS).one()
                self.samples.append((moment, int(wal), int(checkpoints), rows, disk()))
                time.sleep(self.every)
        engine.dispose()

    def summary(self) -> list[str]:
        """Per role, how often its backends were seen in each state and wait event."""
        seen: dict[str, Counter[str]] = {}
        for _, _, _, rows, _ in self.samples:
            for _pid, backend_type, state, kind, event, query, _ in rows:
                if backend_type == "client backend" and state == "idle":
                    continue
                what = f"{state or '-'} {kind}:{event}".rstrip(":")
                seen.setdefault(role(backend_type, query or ""), Counter())[what] += 1
        lines = [f"  {len(self.samples)} samples"]
        for name, counted in sorted(seen.items()):
            lines.append(f"  {name}: " + ", ".join(f"{w} {n}" for w, n in counted.most_common(8)))
        for name, values in self.after.items():
            delta = {key: values[key] - self.before[name][key] for key in values}
            lines.append(f"  {name}: " + ", ".join(f"{k} {v:,}" for k, v in delta.items()))
        return lines
