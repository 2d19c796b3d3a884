"""Retention's index on the hour of a session's last change, which a round rarely changes.

The index of 0002, on (status, updated_at), was rewritten by every round (each one changes
`updated_at`): about a twentieth of a round's time on SQLite. `touched_hour` is the hour
(since the Unix epoch, UTC) of `updated_at`; a change in the same hour as the one before it
leaves it, and the index, alone. The purge narrows by it, then compares `updated_at` exactly.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "sessions",
        sa.Column("touched_hour", sa.Integer(), server_default=sa.text("0"), nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        hour = "floor(extract(epoch FROM updated_at) / 3600)::integer"
    else:  # SQLAlchemy's SQLite DATETIME text, in UTC; to the second (strftime would round
        # 17:59:59.9999 up to the next hour)
        hour = "CAST(strftime('%s', substr(updated_at, 1, 19)) AS INTEGER) / 3600"
    op.execute(f"UPDATE sessions SET touched_hour = {hour}")
    # Not CONCURRENTLY: see 0002.
    op.drop_index("ix_sessions_status_updated_at", table_name="sessions")
    op.create_index("ix_sessions_status_touched_hour", "sessions", ["status", "touched_hour"])


def downgrade() -> None:
    # `touched_hour` holds nothing of its own (the hour of `updated_at`, which the upgrade
    # works out again), so dropping it loses nothing and needs no allow-data-loss. On SQLite
    # the batch recreates `sessions`: with foreign keys on, that would delete every round
    # (migrations/env.py turns them off and checks them after each step).
    op.drop_index("ix_sessions_status_touched_hour", table_name="sessions")
    op.create_index("ix_sessions_status_updated_at", "sessions", ["status", "updated_at"])
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("touched_hour")
