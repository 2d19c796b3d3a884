"""Verifiable dice (docs/verifiable-dice.md): a session's sealed server seed, a round's link.

`sessions.dice_secret` holds a verifiable session's server seed (a version byte, then the seed
sealed or as is) and is null for every other session; `rounds.link` holds a verifiable
session's round's link in the chain, null for every other round. A verifiable session that its
GM deleted is kept, with status `deleted`, until retention removes it (its proof stays
readable). Dropping either column would leave every verifiable session unverifiable (its
seed lost, its chain gone), so the downgrade refuses while any holds a value unless the caller
allows it (migrations/guard.py); allowed, it also removes the deleted sessions kept for their
proofs, which the schema before it does not know.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 06:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from migrations.guard import refuse_data_loss

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("sessions", sa.Column("dice_secret", sa.LargeBinary(), nullable=True))
    op.add_column("rounds", sa.Column("link", sa.String(64), nullable=True))


def downgrade() -> None:
    refuse_data_loss("0006 -> 0005", columns=[("sessions", "dice_secret"), ("rounds", "link")])
    # Its rounds first: on SQLite the migration runs with foreign keys off (no cascade).
    op.execute(
        sa.text(
            "DELETE FROM rounds WHERE session_id IN "
            "(SELECT id FROM sessions WHERE status = 'deleted')"
        )
    )
    op.execute(sa.text("DELETE FROM sessions WHERE status = 'deleted'"))
    # On SQLite the batch recreates `sessions`: migrations/env.py turns foreign keys off for
    # it, so its rounds stay (see 0003).
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("link")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("dice_secret")
