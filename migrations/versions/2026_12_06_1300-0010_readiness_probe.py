"""A one-row table that readiness writes and commits: `/readyz` proves a change can be made
durable, not only that the database reads.

Before it, readiness created a table and rolled it back, which SQLite never writes to disk:
a full disk still answered "ready". The app now upserts row 1 of `readiness_probe` (a counter)
at most every few seconds and commits it (app/store/database.py, `Store.ready`).

The upgrade creates the empty table (the first probe inserts the row); the downgrade drops it
with its one row without asking (migrations/guard.py): the row holds nothing but a count of
probes, which no one needs back.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06 13:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "readiness_probe",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("probes", sa.BigInteger(), nullable=False),
        sa.Column("padding", sa.LargeBinary(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_readiness_probe")),
    )


def downgrade() -> None:
    op.drop_table("readiness_probe")
