"""Retention forgets sent webhook deliveries through an index of their own.

The purge of deliveries sent (or given up) before the retention's cutoff read the whole
table to find them, under SQLite's write lock, and again in every pass with nothing to
forget. A partial index of the sent ones by their time (`status <> 'pending'`) makes each
batch a range of it, and a pass with nothing old enough reads nothing. Pending deliveries are
not in it: writing one, on a change's path, costs nothing more.

The downgrade drops it.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06 18:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SENT = sa.text("status <> 'pending'")


def upgrade() -> None:
    op.create_index(
        "ix_webhook_deliveries_sent",
        "webhook_deliveries",
        ["created_at"],
        postgresql_where=SENT,
        sqlite_where=SENT,
    )


def downgrade() -> None:
    op.drop_index("ix_webhook_deliveries_sent", table_name="webhook_deliveries")
