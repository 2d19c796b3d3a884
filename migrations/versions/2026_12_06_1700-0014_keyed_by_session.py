"""Every table keyed by its session: webhook deliveries and stored answers, for distribution.

A distributed PostgreSQL (Citus) shards a table by one column, which must be in its primary
key and every unique constraint (docs/distributing.md). Sessions and rounds already lead with
the session's id; this keys the last two tables that do not:

* `webhook_deliveries`: primary key `(session_id, id)`. The id stays the growing BIGINT of
  its sequence on PostgreSQL (a subscription's deliveries are still sent in its order). On
  SQLite the table is rebuilt: the id is no longer the rowid's alias (a column of a
  composite key is not), so each row keeps its id as its rowid too, and the app numbers a
  new delivery as the rowid is numbered (app/store/webhooks.py, `enqueue`).
* `idempotency_keys`: primary key `(session_id, scope, key)`, `session_id` never null. A
  creation's stored answer (its session did not exist when its key was claimed) gets `~`
  and the first 31 characters of its key's digest (`creation_shard` in
  app/store/repository.py): found again from the key alone, never a session's id. The
  index on `session_id` goes: the key leads with it.

PostgreSQL: constraints swapped in place, the key's index built under the tables' lock
(deliveries live days, stored answers a day: small tables). SQLite: both tables rebuilt,
every row copied.

The downgrade keys them as before: a creation's answer gets its null `session_id` back, the
deliveries their id alone (unique: one sequence, or the rowid, numbers them all). Nothing is
lost either way.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06 17:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DELIVERIES_KEY = "pk_webhook_deliveries"
KEYS_KEY = "pk_idempotency_keys"
KEYS_BY_SESSION = "ix_idempotency_keys_session_id"
#: A creation's `session_id`, from its key's digest (app/store/repository.py, `creation_shard`).
CREATION_SHARD = "'~' || substr(\"key\", 1, 31)"
CREATIONS = "session_id LIKE '~%'"


def _postgres() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade() -> None:
    op.execute(
        f"UPDATE idempotency_keys SET session_id = {CREATION_SHARD} WHERE session_id IS NULL"
    )
    if _postgres():
        op.execute(
            f"ALTER TABLE webhook_deliveries DROP CONSTRAINT {DELIVERIES_KEY},"
            f" ADD CONSTRAINT {DELIVERIES_KEY} PRIMARY KEY (session_id, id)"
        )
        op.execute(
            f"ALTER TABLE idempotency_keys DROP CONSTRAINT {KEYS_KEY},"
            " ALTER COLUMN session_id SET NOT NULL,"
            f" ADD CONSTRAINT {KEYS_KEY} PRIMARY KEY (session_id, scope, key)"
        )
        op.execute(f"DROP INDEX {KEYS_BY_SESSION}")
        return
    _rebuild_deliveries(
        "id INTEGER NOT NULL",
        f"CONSTRAINT {DELIVERIES_KEY} PRIMARY KEY (session_id, id)",
        # Each row's rowid its id, as the app numbers new ones.
        copied_rowid=True,
    )
    _rebuild_keys(
        "session_id VARCHAR(32) NOT NULL",
        f'CONSTRAINT {KEYS_KEY} PRIMARY KEY (session_id, scope, "key")',
        by_session=False,
    )


def downgrade() -> None:
    if _postgres():
        op.execute(
            f"ALTER TABLE webhook_deliveries DROP CONSTRAINT {DELIVERIES_KEY},"
            f" ADD CONSTRAINT {DELIVERIES_KEY} PRIMARY KEY (id)"
        )
        op.execute(
            f"ALTER TABLE idempotency_keys DROP CONSTRAINT {KEYS_KEY},"
            " ALTER COLUMN session_id DROP NOT NULL,"
            f" ADD CONSTRAINT {KEYS_KEY} PRIMARY KEY (scope, key)"
        )
        op.execute(f"CREATE INDEX {KEYS_BY_SESSION} ON idempotency_keys (session_id)")
    else:
        # The id the rowid's alias again: each row keeps its id.
        _rebuild_deliveries("id INTEGER NOT NULL", f"CONSTRAINT {DELIVERIES_KEY} PRIMARY KEY (id)")
        _rebuild_keys(
            "session_id VARCHAR(32)",
            f'CONSTRAINT {KEYS_KEY} PRIMARY KEY (scope, "key")',
            by_session=True,
        )
    op.execute(f"UPDATE idempotency_keys SET session_id = NULL WHERE {CREATIONS}")


DELIVERY_COLUMNS = (
    "id, message_id, subscription_id, session_id, version, event, payload, status, attempts,"
    " next_attempt_at, first_due_at, claimed_until, claim, last_status, last_error,"
    " delivered_at, created_at"
)


def _rebuild_deliveries(id_column: str, key: str, *, copied_rowid: bool = False) -> None:
    """SQLite: `webhook_deliveries` made again with `key`, every row copied (its rowid set to
    its id when asked), and its indexes. The migrations run with foreign keys off
    (migrations/env.py): dropping the old table deletes nothing else."""
    op.execute(
        f"""CREATE TABLE _webhook_deliveries_rebuilt (
        {id_column},
        message_id VARCHAR(40) NOT NULL,
        subscription_id VARCHAR(32) NOT NULL,
        session_id VARCHAR(32) NOT NULL,
        version INTEGER NOT NULL,
        event VARCHAR(32) NOT NULL,
        payload BLOB NOT NULL,
        status VARCHAR(16) NOT NULL,
        attempts INTEGER DEFAULT 0 NOT NULL,
        next_attempt_at DATETIME NOT NULL,
        first_due_at DATETIME NOT NULL,
        claimed_until DATETIME,
        claim VARCHAR(32),
        last_status INTEGER,
        last_error VARCHAR(200),
        delivered_at DATETIME,
        created_at DATETIME NOT NULL,
        {key},
        CONSTRAINT fk_webhook_deliveries_subscription_id_webhook_subscriptions
            FOREIGN KEY(subscription_id) REFERENCES webhook_subscriptions (id) ON DELETE CASCADE
        )"""
    )
    target = f"rowid, {DELIVERY_COLUMNS}" if copied_rowid else DELIVERY_COLUMNS
    source = f"id, {DELIVERY_COLUMNS}" if copied_rowid else DELIVERY_COLUMNS
    op.execute(
        f"INSERT INTO _webhook_deliveries_rebuilt ({target}) SELECT {source}"
        " FROM webhook_deliveries"
    )
    op.execute("DROP TABLE webhook_deliveries")
    op.execute("ALTER TABLE _webhook_deliveries_rebuilt RENAME TO webhook_deliveries")
    op.execute(
        "CREATE INDEX ix_webhook_deliveries_due ON webhook_deliveries (next_attempt_at)"
        " WHERE status = 'pending'"
    )
    op.execute(
        "CREATE INDEX ix_webhook_deliveries_pending"
        " ON webhook_deliveries (subscription_id, session_id, id) WHERE status = 'pending'"
    )
    op.execute(
        "CREATE INDEX ix_webhook_deliveries_subscription_id"
        " ON webhook_deliveries (subscription_id, id)"
    )


def _rebuild_keys(session_column: str, key: str, *, by_session: bool) -> None:
    """SQLite: `idempotency_keys` made again with `key`, every row copied, and its indexes."""
    columns = 'session_id, scope, "key", fingerprint, status_code, headers, body, created_at'
    op.execute(
        f"""CREATE TABLE _idempotency_keys_rebuilt (
        {session_column},
        scope VARCHAR(64) NOT NULL,
        "key" VARCHAR(255) NOT NULL,
        fingerprint BLOB NOT NULL,
        status_code INTEGER NOT NULL,
        headers JSON NOT NULL,
        body BLOB NOT NULL,
        created_at DATETIME NOT NULL,
        {key}
        )"""
    )
    op.execute(
        f"INSERT INTO _idempotency_keys_rebuilt ({columns}) SELECT {columns} FROM idempotency_keys"
    )
    op.execute("DROP TABLE idempotency_keys")
    op.execute("ALTER TABLE _idempotency_keys_rebuilt RENAME TO idempotency_keys")
    op.execute("CREATE INDEX ix_idempotency_keys_created_at ON idempotency_keys (created_at)")
    if by_session:
        op.execute(f"CREATE INDEX {KEYS_BY_SESSION} ON idempotency_keys (session_id)")
