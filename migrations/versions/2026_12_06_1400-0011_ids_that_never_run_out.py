"""Ids that never run out: rounds keyed by (session_id, number), webhook deliveries' id 64-bit.

`rounds.id` was a 32-bit SERIAL on PostgreSQL: at a thousand rounds a second its inserts fail
after about 25 days. A round is already unique by its session and number, which every read
uses, so the upgrade makes that its primary key and drops the surrogate id with its sequence
(and the index it had: about 30 bytes a round less). The session's id leading every key is
also what a distributed PostgreSQL (Citus) needs to shard the tables by session
(docs/capacity.md#past-one-primary). `webhook_deliveries.id` stays a growing id (a
subscription's deliveries are sent in its order) and becomes BIGINT, its sequence `AS bigint`.

PostgreSQL: the new primary key uses an index built beforehand when there is one: an operator
with many rounds runs `CREATE UNIQUE INDEX CONCURRENTLY ix_rounds_new_key ON rounds (session_id,
number)` first, and the upgrade then only swaps constraints (milliseconds under its lock);
otherwise the upgrade builds it under its lock (docs/capacity.md#the-id-migration has the
times measured at 10 M rounds). Dropping a column and changing a sequence's type rewrite
nothing; `webhook_deliveries.id`'s type does rewrite that table (its rows live days).

SQLite: the rowid is already 64-bit; `rounds` is rebuilt without the id column, every row kept.

The downgrade gives `rounds` its 32-bit id back (numbered in the order the rounds were
played, as it was; nothing ever read it), and `webhook_deliveries.id` its 32-bit type,
refused by PostgreSQL once an id passed 2^31 - 1. Nothing is lost either way.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06 14:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNIQUE = "uq_rounds_session_number"
PRIMARY = "pk_rounds"
#: The new key's index, when an operator built it beforehand (CONCURRENTLY): the key takes it
#: over, and its name.
PREBUILT = "ix_rounds_new_key"
#: The foreign key to sessions, named by the models' convention.
TO_SESSIONS = "fk_rounds_session_id_sessions"


#: The order rounds were played in: the downgrade numbers them by it, as the id once did.
ORDER = "created_at, session_id, number"


def _postgres() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade() -> None:
    if _postgres():
        bind = op.get_bind()
        # An index an operator built beforehand, CONCURRENTLY.
        built = bind.execute(
            sa.text(
                "SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                " WHERE c.relname = :name AND i.indrelid = 'rounds'::regclass"
                " AND i.indisunique AND i.indisvalid"
            ),
            {"name": PREBUILT},
        ).first()
        op.execute(f"ALTER TABLE rounds DROP CONSTRAINT {PRIMARY}")
        op.execute("ALTER TABLE rounds DROP COLUMN id")  # its sequence goes with it
        if built:
            op.execute(
                f"ALTER TABLE rounds ADD CONSTRAINT {PRIMARY} PRIMARY KEY USING INDEX {PREBUILT}"
            )
        else:
            op.execute(
                f"ALTER TABLE rounds ADD CONSTRAINT {PRIMARY} PRIMARY KEY (session_id, number)"
            )
        op.execute(f"ALTER TABLE rounds DROP CONSTRAINT {UNIQUE}")
        op.execute("ALTER SEQUENCE webhook_deliveries_id_seq AS bigint")
        op.execute("ALTER TABLE webhook_deliveries ALTER COLUMN id TYPE bigint")
        return
    _rebuild_rounds(f"CONSTRAINT {PRIMARY} PRIMARY KEY (session_id, number)")


def downgrade() -> None:
    if _postgres():
        op.execute("ALTER TABLE webhook_deliveries ALTER COLUMN id TYPE integer")
        op.execute("ALTER SEQUENCE webhook_deliveries_id_seq AS integer")
        op.execute(f"ALTER TABLE rounds ADD CONSTRAINT {UNIQUE} UNIQUE (session_id, number)")
        op.execute(f"ALTER TABLE rounds DROP CONSTRAINT {PRIMARY}")
        op.execute("ALTER TABLE rounds ADD COLUMN id integer")
        op.execute(
            "UPDATE rounds SET id = numbered.id FROM (SELECT session_id, number,"
            f" row_number() OVER (ORDER BY {ORDER}) AS id FROM rounds) AS numbered"
            " WHERE rounds.session_id = numbered.session_id AND rounds.number = numbered.number"
        )
        op.execute("CREATE SEQUENCE rounds_id_seq AS integer OWNED BY rounds.id")
        op.execute("SELECT setval('rounds_id_seq', COALESCE(max(id), 0) + 1, false) FROM rounds")
        op.execute(
            "ALTER TABLE rounds ALTER COLUMN id SET DEFAULT nextval('rounds_id_seq'),"
            " ALTER COLUMN id SET NOT NULL"
        )
        op.execute(f"ALTER TABLE rounds ADD CONSTRAINT {PRIMARY} PRIMARY KEY (id)")
        return
    # Numbered in the order they were played, then keyed by it (again the rowid's alias).
    _rebuild_rounds(
        f"CONSTRAINT {PRIMARY} PRIMARY KEY (id), CONSTRAINT {UNIQUE} UNIQUE (session_id, number)",
        id_column="id INTEGER NOT NULL,",
    )


def _rebuild_rounds(constraints: str, id_column: str = "") -> None:
    """SQLite: `rounds` made again with `constraints` (and `id_column` first), every row
    copied (`id`, when asked, numbered in the order the rounds were played). The migrations
    run with foreign keys off (migrations/env.py): dropping the old table deletes nothing else."""
    columns = "session_id, number, inputs, dice, outcome, created_at, link"
    op.execute(
        f"""CREATE TABLE _rounds_rebuilt (
        {id_column}
        session_id VARCHAR(32) NOT NULL,
        number INTEGER NOT NULL,
        inputs JSON NOT NULL,
        dice JSON NOT NULL,
        outcome JSON NOT NULL,
        created_at DATETIME NOT NULL,
        link VARCHAR(64),
        {constraints},
        CONSTRAINT {TO_SESSIONS} FOREIGN KEY(session_id) REFERENCES sessions (id) ON DELETE CASCADE
        )"""
    )
    source = columns if not id_column else f"row_number() OVER (ORDER BY {ORDER}), {columns}"
    target = columns if not id_column else f"id, {columns}"
    op.execute(f"INSERT INTO _rounds_rebuilt ({target}) SELECT {source} FROM rounds")
    op.execute("DROP TABLE rounds")
    op.execute("ALTER TABLE _rounds_rebuilt RENAME TO rounds")
