"""Idempotency keys belong to the token that used them: each stored answer names its session.

A session change's key was scoped by its session (`<kind>/<id>`), shared by every token of it:
one seat could block the GM's key, learn whether a key was used, or replay the GM's answer.
The app now scopes it by the token within its session (`<kind>/<id>/<the token's digest>`,
app/api/sessions/idempotency.py), which no longer equals the session's scope, so retention forgets a
session's keys by the new `session_id` column (indexed) rather than by scope.

The upgrade fills `session_id` from each row's scope (its second part, for every scope but a
creation's) and changes no other value: an answer stored before it stays replayable to the
request that made it (the app looks a key up under the old scope too, replaying it only to
the same token and request). The downgrade drops the column and keeps every row (what the
column held is in each scope); rows stored under the new scopes are then found by no request
and go with the TTL's purge.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_idempotency_keys_session_id"


def upgrade() -> None:
    op.add_column("idempotency_keys", sa.Column("session_id", sa.String(32), nullable=True))
    bind = op.get_bind()
    found = bind.execute(
        sa.text("SELECT scope, key FROM idempotency_keys WHERE scope NOT LIKE 'create/%'")
    ).all()
    for scope, key in found:
        parts = scope.split("/")
        if len(parts) >= 2 and parts[1]:
            bind.execute(
                sa.text(
                    "UPDATE idempotency_keys SET session_id = :session_id"
                    " WHERE scope = :scope AND key = :key"
                ),
                {"session_id": parts[1][:32], "scope": scope, "key": key},
            )
    # Not CONCURRENTLY: see 0002.
    op.create_index(INDEX, "idempotency_keys", ["session_id"])


def downgrade() -> None:
    # Nothing is lost: each row's scope still names its session.
    op.drop_index(INDEX, table_name="idempotency_keys")
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.drop_column("session_id")
