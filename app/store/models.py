"""The store's tables (SQLAlchemy 2 declarative models); migrations/ creates the same schema."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: A growing surrogate id: BIGINT on PostgreSQL; on SQLite INTEGER, the rowid's alias (already
#: 64-bit there; a BIGINT column would be no alias and number no row by itself).
#: tests/store/test_ids.py fails on a growing id of any other type.
GrowingId = BigInteger().with_variant(Integer(), "sqlite")

#: JSON documents: JSONB on PostgreSQL, JSON text elsewhere.
Document = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class ContestSession(Base):
    """One long-running contest: its kind, configuration, current state and result."""

    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer)
    rounds_played: Mapped[int] = mapped_column(Integer)
    config: Mapped[dict[str, Any]] = mapped_column(Document)
    state: Mapped[dict[str, Any]] = mapped_column(Document)
    result: Mapped[dict[str, Any] | None] = mapped_column(Document, nullable=True)
    #: The session's seed, from which each round's dice derive; null: CSPRNG dice.
    seed: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    #: SHA-256 (hex) of the GM token; tokens themselves are never stored.
    gm_token_hash: Mapped[str] = mapped_column(String(64))
    #: {party name: SHA-256 hex of that party's token}.
    party_token_hashes: Mapped[dict[str, str]] = mapped_column(Document)
    #: {competitor name: SHA-256 hex of that competitor's seat token}; null: a session
    #: created without seats.
    seat_token_hashes: Mapped[dict[str, str] | None] = mapped_column(Document, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The hour (since the Unix epoch, UTC) of `updated_at`, written only when it changes, for
    #: retention's index: a round in the same hour as the change before it leaves the index
    #: alone (app/store/repository.py, `update_session`). 0 (a row written without it) only
    #: makes the purge look at the row's `updated_at`, which decides.
    touched_hour: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    #: The deadline of the round waiting for the seats' dice (kept in `state` too), written
    #: when such a round opens and cleared when it plays or is cancelled: the deadline sweeper
    #: finds the rounds past it through a partial index, without reading any state.
    pending_deadline: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True
    )
    #: A verifiable session's server seed (docs/verifiable-dice.md#where-the-server-seed-lives):
    #: a version byte, then the seed sealed (AES-256-GCM) or, with no dice key set, as is;
    #: null: a session whose dice are not verifiable.
    dice_secret: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)


class ContestRound(Base):
    """An append-only record of one played round: its inputs, every die, its outcome."""

    __tablename__ = "rounds"

    #: Keyed by its session and its number (1, 2, 3… with no gap): no surrogate id to run
    #: out, and the session's id, by which a distributed PostgreSQL (Citus) would shard the
    #: tables, leads the key (docs/capacity.md#past-one-primary).
    session_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    inputs: Mapped[dict[str, Any]] = mapped_column(Document)
    dice: Mapped[list[dict[str, Any]]] = mapped_column(Document)
    outcome: Mapped[dict[str, Any]] = mapped_column(Document)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: A verifiable session's round: its link in the chain, SHA-256 (hex) of the previous
    #: link and this round's canonical content (docs/verifiable-dice.md#the-chain); else null.
    link: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: The summary as the rules built it, in no language (`document` in
    #: app/rules/messages.py): rendered in the reader's language when the round is read back
    #: (docs/languages.md#rounds-of-a-session). Outside the chain, which covers `outcome` and
    #: its English `summary`; null: a round stored before it, read in its stored English.
    message: Mapped[dict[str, Any] | None] = mapped_column(Document, nullable=True)


class IdempotencyRecord(Base):
    """A mutating call's stored answer, replayed for the same key and request within the TTL."""

    __tablename__ = "idempotency_keys"
    #: Keyed by the session first, the column a distributed PostgreSQL (Citus) shards by
    #: (docs/distributing.md): a change's key lives with its session's rows.
    __table_args__ = (PrimaryKeyConstraint("session_id", "scope", "key"),)

    #: The session a change's key belongs to: retention forgets a session's keys with it,
    #: whoever used them. A creation's key, made before its session exists, holds a value of
    #: its own, `~` and the first 31 characters of `key` (`creation_shard` in
    #: app/store/repository.py): never a session's id (those are hex), and found again from
    #: the key alone, so a retry reads the one shard that holds it.
    session_id: Mapped[str] = mapped_column(String(32))
    #: Where the key lives: a session's change, `<kind>/<session id>/<the caller's token, as
    #: its digest's first characters>` (app/api/sessions/idempotency.py); a creation, `create/…`.
    scope: Mapped[str] = mapped_column(String(64))
    key: Mapped[str] = mapped_column(String(255))
    #: SHA-256 over method, path, credentials and body: the same key with another request is a 422.
    fingerprint: Mapped[bytes] = mapped_column(LargeBinary(32))
    status_code: Mapped[int] = mapped_column(Integer)
    headers: Mapped[dict[str, str]] = mapped_column(Document)
    body: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


Index("ix_idempotency_keys_created_at", IdempotencyRecord.created_at)
#: Retention's purge walks expired sessions by status and hour of their last change, then id:
#: each batch one bounded range after the last session the batch before it passed over.
Index(
    "ix_sessions_status_touched_hour",
    ContestSession.status,
    ContestSession.touched_hour,
    ContestSession.id,
)
#: The deadline sweeper finds the rounds past their deadline (app/api/sessions/deadlines.py);
#: only the few sessions holding one are in it.
Index(
    "ix_sessions_pending_deadline",
    ContestSession.pending_deadline,
    postgresql_where=ContestSession.pending_deadline.is_not(None),
    sqlite_where=ContestSession.pending_deadline.is_not(None),
)


class WebhookSubscription(Base):
    """A URL told of a session's changes (or, with no session, of every session's): signed
    outbound webhooks (docs/webhooks.md)."""

    __tablename__ = "webhook_subscriptions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    #: The session whose changes are sent, and its kind; both null: every session's (an
    #: operator's subscription). No foreign key: a deleted session's `deleted` event and the
    #: deliveries before it are still sent.
    session_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    kind: Mapped[str | None] = mapped_column(String(32), nullable=True)
    url: Mapped[str] = mapped_column(String(2048))
    #: The live events' names sent; null: every one.
    events: Mapped[list[str] | None] = mapped_column(Document, nullable=True)
    #: `public` (what any party's stream shows of the other parties) or `gm` (everything).
    view: Mapped[str] = mapped_column(String(8))
    #: The signing secret, sealed (app/api/sessions/security.py, `seal_webhook_secret`); after a
    #: rotation the one before it too, still signing until `previous_until`.
    secret: Mapped[bytes] = mapped_column(LargeBinary)
    previous_secret: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    previous_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: `active`, or `failing` once a delivery was given up after the retry window (back to
    #: `active` at the next delivery that succeeds).
    status: Mapped[str] = mapped_column(String(16))
    failing_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The language (a locale tag, e.g. `de` or `pt-BR`) of the payloads' `summary`; null:
    #: English, as for subscriptions made before there was a choice.
    language: Mapped[str | None] = mapped_column(String(16), nullable=True)


class WebhookDelivery(Base):
    """The transactional outbox: one event to send to one subscription, written in the same
    transaction as the change it reports, then sent (and retried) by a delivery worker."""

    __tablename__ = "webhook_deliveries"
    #: Keyed by the session first, the column a distributed PostgreSQL (Citus) shards by
    #: (docs/distributing.md), then the growing id (a subscription's deliveries are sent in
    #: its order).
    __table_args__ = (PrimaryKeyConstraint("session_id", "id"),)

    #: 64-bit on PostgreSQL, its sequence too (a 32-bit one runs out within weeks at a
    #: thousand changes a second). SQLite has no sequence for a column of a composite key:
    #: an insert numbers it as the table's rowid (64-bit) is numbered, the largest one plus
    #: one (app/store/webhooks.py, `enqueue`), so that the two stay equal.
    id: Mapped[int] = mapped_column(GrowingId, autoincrement=True)
    #: The `webhook-id` header: the same on every attempt (and on a replay).
    message_id: Mapped[str] = mapped_column(String(40))
    subscription_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("webhook_subscriptions.id", ondelete="CASCADE")
    )
    session_id: Mapped[str] = mapped_column(String(32))
    #: The session's version after the change, and its live event's name.
    version: Mapped[int] = mapped_column(Integer)
    event: Mapped[str] = mapped_column(String(32))
    #: The body exactly as signed and sent.
    payload: Mapped[bytes] = mapped_column(LargeBinary)
    #: `pending`, `delivered` or `failed` (given up after the retry window).
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, server_default=text("0"))
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: Retries stop this long after it was first due (a replay starts it again).
    first_due_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: A worker's claim: until then no other worker takes it (a worker killed mid-delivery
    #: leaves it to be sent again once the claim runs out).
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    claim: Mapped[str | None] = mapped_column(String(32), nullable=True)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(200), nullable=True)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


Index("ix_webhook_subscriptions_session_id", WebhookSubscription.session_id)
#: Retention forgets sent (or given-up) deliveries oldest first through it: a batch is a
#: range of it, and a pass with nothing old enough reads nothing. Pending deliveries are not
#: in it, so writing one (on a change's path) does not touch it.
Index(
    "ix_webhook_deliveries_sent",
    WebhookDelivery.created_at,
    postgresql_where=text("status <> 'pending'"),
    sqlite_where=text("status <> 'pending'"),
)
#: The delivery workers find the deliveries due through it: only the pending ones are in it.
Index(
    "ix_webhook_deliveries_due",
    WebhookDelivery.next_attempt_at,
    postgresql_where=text("status = 'pending'"),
    sqlite_where=text("status = 'pending'"),
)
#: Whether a delivery is the first still pending of its subscription and session (each
#: subscription gets a session's events in order).
Index(
    "ix_webhook_deliveries_pending",
    WebhookDelivery.subscription_id,
    WebhookDelivery.session_id,
    WebhookDelivery.id,
    postgresql_where=text("status = 'pending'"),
    sqlite_where=text("status = 'pending'"),
)
#: A subscription's recent deliveries, newest first (`GET …/webhooks/{id}/deliveries`).
Index("ix_webhook_deliveries_subscription_id", WebhookDelivery.subscription_id, WebhookDelivery.id)


class WebhookDeliveryNumbering(Base):
    """SQLite numbers a delivery as its table's rowid, the largest one plus one (see
    `WebhookDelivery.id`), which would start again below ids already shown once retention had
    forgotten the newest deliveries. The largest id the store has forgotten is kept here, in
    one row written when deliveries are deleted (never on a change's path), and a delivery is
    numbered past it. PostgreSQL numbers by its sequence, which never goes back, and never
    writes or reads it."""

    __tablename__ = "webhook_delivery_numbering"

    #: Always 1.
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    #: The largest id of a delivery deleted so far (0: none).
    forgotten: Mapped[int] = mapped_column(BigInteger)


class ReadinessProbe(Base):
    """One row that readiness rewrites and commits every few seconds (`Store.ready`): a
    database that reads but cannot make a change durable (a full disk, a read-only file
    system or server) is not ready, and only a committed write shows it."""

    __tablename__ = "readiness_probe"

    #: Always 1: one row, whatever the number of processes probing.
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    #: Committed probes, counted (so that each one changes the row, and reaches the disk).
    probes: Mapped[int] = mapped_column(BigInteger)
    #: SQLite's probe rewrites these pages of zeros too (`PROBE_PAGES`): a change as large as
    #: a round's, so that a file that cannot grow is not ready. Null on PostgreSQL.
    padding: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
