"""An index for retention's purge: sessions by status and time of their last change.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 11:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Not CONCURRENTLY: that waits for every open transaction, among them other replicas'
    # runs queued on the migrations' advisory lock (migrations/env.py), which wait for this one.
    op.create_index("ix_sessions_status_updated_at", "sessions", ["status", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_sessions_status_updated_at", table_name="sessions")
