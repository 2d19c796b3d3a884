"""Seat tokens: a session created with seats keeps the SHA-256 of each competitor's token.

`seat_token_hashes` is `{competitor name: SHA-256 hex}` for a seated session and null for any
other. Dropping it would leave every seat token of every seated session unknown (a seat
would then be a stranger, 404), so the downgrade refuses while any session has seats unless
the caller allows it (migrations/guard.py).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 02:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from migrations.guard import refuse_data_loss

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "sessions",
        sa.Column("seat_token_hashes", sa.JSON().with_variant(JSONB(), "postgresql")),
    )


def downgrade() -> None:
    refuse_data_loss("0005 -> 0004", columns=[("sessions", "seat_token_hashes")])
    # On SQLite the batch recreates `sessions`: migrations/env.py turns foreign keys off for
    # it, so its rounds stay (see 0003).
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("seat_token_hashes")
