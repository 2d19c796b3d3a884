"""The deadline of a round waiting for the seats' dice, in a column of its own and indexed.

A round that collects the seats' dice keeps its deadline in the session's state; the service plays
it by itself once the deadline has passed (app/api/sessions/deadlines.py), and finds such rounds
through `pending_deadline` and a partial index holding only the sessions with one, rather than
reading every session's state. The upgrade fills it in from the states of the sessions holding such
a round; the downgrade drops it and loses nothing (the state still holds the deadline).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 07:00:00
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_sessions_pending_deadline"


def upgrade() -> None:
    op.add_column("sessions", sa.Column("pending_deadline", sa.DateTime(timezone=True)))
    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    if postgres:
        # The state's ISO 8601 deadline (with its offset) as a timestamptz.
        op.execute(
            "UPDATE sessions"
            " SET pending_deadline = (state->'collecting'->>'deadline')::timestamptz"
            " WHERE state->'collecting' IS NOT NULL"
        )
    else:
        # SQLAlchemy's SQLite DATETIME text, in UTC, as the app writes it.
        found = bind.execute(
            sa.text(
                "SELECT id, json_extract(state, '$.collecting.deadline') FROM sessions"
                " WHERE json_extract(state, '$.collecting') IS NOT NULL"
            )
        ).all()
        for session_id, deadline in found:
            moment = datetime.fromisoformat(deadline).astimezone(UTC).replace(tzinfo=None)
            bind.execute(
                sa.text("UPDATE sessions SET pending_deadline = :deadline WHERE id = :id"),
                {"deadline": moment.isoformat(" ", "microseconds"), "id": session_id},
            )
    # Not CONCURRENTLY: see 0002. Partial: only the sessions holding such a round.
    op.create_index(
        INDEX,
        "sessions",
        ["pending_deadline"],
        postgresql_where=sa.text("pending_deadline IS NOT NULL"),
        sqlite_where=sa.text("pending_deadline IS NOT NULL"),
    )


def downgrade() -> None:
    # On SQLite the batch recreates `sessions`: migrations/env.py turns foreign keys off for
    # it, so its rounds stay (see 0003).
    op.drop_index(INDEX, table_name="sessions")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("pending_deadline")
