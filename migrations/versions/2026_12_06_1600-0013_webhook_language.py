"""A webhook subscription's language: the locale its payloads' `summary` lines are written in.

Additive: a nullable column (null reads as English, what every subscription made before it
was sent). The downgrade drops it; the subscriptions keep working, in English.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("webhook_subscriptions") as batch:
        batch.add_column(sa.Column("language", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhook_subscriptions") as batch:
        batch.drop_column("language")
