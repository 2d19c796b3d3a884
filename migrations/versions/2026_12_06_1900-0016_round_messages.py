"""A round's summary in no language: the rules' message (template and arguments) beside it.

A round read back (`GET …/rounds`) is shown in the reader's language from it
(docs/languages.md#rounds-of-a-session). Additive: a nullable column; rounds stored before it
hold null and are read in their stored English summary, as they always were.

The downgrade drops it without asking: every round keeps its English summary, and rounds read
back are English again, as before this revision.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(
            sa.Column("message", sa.JSON().with_variant(JSONB(), "postgresql"), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("message")
