"""Retention walks its index as a keyed range, and PostgreSQL reuses what it frees soon.

The purge's index on sessions, (status, touched_hour), gains `id`: each batch reads the range
after the last session the batch before it passed over, by (touched_hour, id), instead of
scanning from the range's start again past every row deleted and not yet vacuumed
(app/store/repository.py, `purge_sessions`). The index is written only when a session's
status or hour changes, as before (its id never does).

PostgreSQL: the swept tables vacuum after a smaller share of dead rows than the default 20 %
(`autovacuum_vacuum_scale_factor`), and without the default cost pauses slowing a vacuum
behind a sweep, so the space a sweep frees is reused by new rows within minutes rather than
the tables growing until a manual VACUUM (docs/performance.md#the-retention-sweep). The
downgrade resets them and restores the index as it was.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06 15:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_sessions_status_touched_hour"
#: Per-table autovacuum settings of the tables a sweep deletes from.
VACUUM = {
    "sessions": "autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_cost_delay = 0",
    "rounds": "autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_cost_delay = 0",
    "idempotency_keys": "autovacuum_vacuum_scale_factor = 0.05",
}


def upgrade() -> None:
    # Not CONCURRENTLY: see 0002.
    op.drop_index(INDEX, table_name="sessions")
    op.create_index(INDEX, "sessions", ["status", "touched_hour", "id"])
    if op.get_bind().dialect.name == "postgresql":
        for table, settings in VACUUM.items():
            op.execute(f"ALTER TABLE {table} SET ({settings})")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, settings in VACUUM.items():
            names = ", ".join(part.split("=")[0].strip() for part in settings.split(","))
            op.execute(f"ALTER TABLE {table} RESET ({names})")
    op.drop_index(INDEX, table_name="sessions")
    op.create_index(INDEX, "sessions", ["status", "touched_hour"])
