"""SQLite never numbers a webhook delivery again with an id it has shown.

A delivery's id on SQLite is its rowid, the largest one plus one (0014). Once retention had
forgotten the newest deliveries (every one, after a quiet week), ids started again from
below, and a caller who keeps the last id it listed (`?before=`) would take new deliveries
for old ones. The store now keeps the largest id it has deleted in the one row of
`webhook_delivery_numbering`, written when it deletes deliveries (retention, a removed
subscription), and numbers a delivery past it (app/store/webhooks.py). PostgreSQL numbers by
its sequence, which never goes back: it has the table and never uses it.

The upgrade creates the empty table (the first deletion writes its row). The downgrade drops
it without asking (migrations/guard.py): the row holds only a number that matters once every
delivery numbered after it has been deleted too.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-07 06:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "webhook_delivery_numbering",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("forgotten", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_delivery_numbering")),
    )


def downgrade() -> None:
    op.drop_table("webhook_delivery_numbering")
