"""Queries on the webhook subscriptions and their outbox of deliveries (docs/webhooks.md).

A change writes one delivery per subscription that wants its event, in the change's own
transaction (`enqueue`). Delivery workers, one in every server process, `claim_due` the
deliveries due that are the first still pending of their subscription and session (so each
subscription gets a session's events in order), for a lease: on PostgreSQL with `FOR UPDATE
SKIP LOCKED` (two workers never take the same row, and neither waits for the other), on
SQLite under the database's write lock. A worker that dies with a claim leaves the delivery
to be claimed again once the lease has run out: delivered at least once, with the same
`message_id`. Each attempt's outcome is written by the worker holding the claim, and only
while it holds it (`claim` matches).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

import orjson
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    all_,
    any_,
    bindparam,
    case,
    cast,
    delete,
    exists,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    true,
    tuple_,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.store.database import Transaction
from app.store.models import Base
from app.store.repository import (
    Alongside,
    Statement,
    _document_in,
    _document_out,
    _postgres,
    _time_in,
    _time_out,
)

subscriptions = Base.metadata.tables["webhook_subscriptions"]
deliveries = Base.metadata.tables["webhook_deliveries"]
numbering = Base.metadata.tables["webhook_delivery_numbering"]
#: The largest id a delivery can have: 64-bit, signed (PostgreSQL's BIGINT, SQLite's rowid).
LAST_DELIVERY_ID: Final = 2**63 - 1
sessions = Base.metadata.tables["sessions"]

PENDING: Any = literal_column("'pending'")
DELIVERED: Any = literal_column("'delivered'")
FAILED: Any = literal_column("'failed'")


@dataclass(frozen=True, slots=True)
class SubscriptionRecord:
    """A subscription as the API layer sees it (its secrets still sealed)."""

    id: str
    session_id: str | None
    kind: str | None
    url: str
    events: list[str] | None
    view: str
    secret: bytes
    previous_secret: bytes | None
    previous_until: datetime | None
    status: str
    failing_since: datetime | None
    created_at: datetime
    #: The language of its payloads' `summary` lines (a tag, `de`, `pt-BR`); None: English.
    language: str | None = None


_SUBSCRIPTION_FIELDS = tuple(column.name for column in subscriptions.columns)
_SUBSCRIPTION_TIMES = ("previous_until", "failing_since", "created_at")


def _subscription(row: Sequence[Any]) -> SubscriptionRecord:
    values = dict(zip(_SUBSCRIPTION_FIELDS, row, strict=True))
    values["events"] = _document_out(values["events"])
    for name in _SUBSCRIPTION_TIMES:
        if values[name] is not None:
            values[name] = _time_out(values[name])
    values["secret"] = bytes(values["secret"])
    if values["previous_secret"] is not None:
        values["previous_secret"] = bytes(values["previous_secret"])
    return SubscriptionRecord(**values)


_INSERT_SUBSCRIPTION = Statement(
    lambda: insert(subscriptions).values({name: bindparam(name) for name in _SUBSCRIPTION_FIELDS})
)


async def insert_subscription(connection: Transaction, record: SubscriptionRecord) -> None:
    params = {name: getattr(record, name) for name in _SUBSCRIPTION_FIELDS}
    params["events"] = _document_in(connection, record.events)
    for name in _SUBSCRIPTION_TIMES:
        if params[name] is not None:
            params[name] = _time_in(connection, params[name])
    await _INSERT_SUBSCRIPTION.execute(connection, params)


def _subscriptions_of(operator: bool) -> Any:
    def build() -> Any:
        column = subscriptions.c.session_id
        return (
            select(*(subscriptions.c[name] for name in _SUBSCRIPTION_FIELDS))
            .where(column.is_(None) if operator else column == bindparam("owner"))
            .order_by(subscriptions.c.created_at, subscriptions.c.id)
        )

    return build


_LIST_SUBSCRIPTIONS = Statement(_subscriptions_of(operator=False))
_LIST_OPERATORS = Statement(_subscriptions_of(operator=True))


async def list_subscriptions(
    connection: Transaction, session_id: str | None
) -> list[SubscriptionRecord]:
    """The subscriptions of the session `session_id`, or (None) the operator's."""
    if session_id is None:
        found = await _LIST_OPERATORS.fetch(connection, {})
    else:
        found = await _LIST_SUBSCRIPTIONS.fetch(connection, {"owner": session_id})
    return [_subscription(row) for row in found]


_GET_SUBSCRIPTION = Statement(
    lambda: select(*(subscriptions.c[name] for name in _SUBSCRIPTION_FIELDS)).where(
        subscriptions.c.id == bindparam("id")
    )
)


async def get_subscription(
    connection: Transaction, subscription_id: str, session_id: str | None
) -> SubscriptionRecord | None:
    """The subscription of that id, if it is the session's (None: the operator's)."""
    found = await _GET_SUBSCRIPTION.fetch(connection, {"id": subscription_id})
    if not found:
        return None
    record = _subscription(found[0])
    return record if record.session_id == session_id else None


_DELETE_SUBSCRIPTION = Statement(
    lambda: delete(subscriptions).where(subscriptions.c.id == bindparam("id"))
)


def _largest_rowid() -> Any:
    """SQLite: the outbox's largest rowid (0 when empty), which is its largest delivery id:
    O(1), the last entry of the table's b-tree."""
    largest: Any = func.coalesce(func.max(literal_column("rowid")), literal_column("0"))
    return select(largest).select_from(deliveries)


_LARGEST_ID = Statement(_largest_rowid)


def _remember_numbering() -> Any:
    """SQLite: `largest` kept as the largest delivery id forgotten, unless that is larger
    already (an upsert of the one row, which writes nothing then)."""
    statement = sqlite_insert(numbering).values(id=bindparam("one"), forgotten=bindparam("largest"))
    return statement.on_conflict_do_update(
        index_elements=[numbering.c.id],
        set_={"forgotten": statement.excluded.forgotten},
        where=numbering.c.forgotten < statement.excluded.forgotten,
    )


_REMEMBER_NUMBERING = Statement(_remember_numbering)


async def _largest_id(connection: Transaction) -> int | None:
    """SQLite: the largest delivery id there is (O(1): its table's last rowid), read before
    deleting any; None on PostgreSQL, whose sequence never goes back."""
    if _postgres(connection):
        return None
    found = await _LARGEST_ID.fetch(connection, {})
    return int(found[0][0])


async def _forgotten_up_to(connection: Transaction, largest: int | None) -> None:
    """SQLite, after deleting deliveries in this transaction: no delivery is numbered at or
    below `largest` (`_largest_id` before the deletion) again (`WebhookDeliveryNumbering`)."""
    if largest is not None:
        await _REMEMBER_NUMBERING.execute(connection, {"one": 1, "largest": largest})


async def delete_subscription(connection: Transaction, subscription_id: str) -> None:
    """Delete the subscription, and with it its deliveries (ON DELETE CASCADE)."""
    largest = await _largest_id(connection)
    await _DELETE_SUBSCRIPTION.execute(connection, {"id": subscription_id})
    await _forgotten_up_to(connection, largest)


_UPDATE_SUBSCRIPTION = Statement(
    lambda: (
        update(subscriptions)
        .where(subscriptions.c.id == bindparam("id"))
        .values(
            url=bindparam("url"),
            events=bindparam("events"),
            view=bindparam("view"),
            language=bindparam("language"),
        )
    )
)


async def update_subscription(connection: Transaction, record: SubscriptionRecord) -> None:
    """A subscription's `url`, `events`, `view` and `language` as `record` has them (its
    secrets, status and deliveries as they were)."""
    await _UPDATE_SUBSCRIPTION.execute(
        connection,
        {
            "id": record.id,
            "url": record.url,
            "events": _document_in(connection, record.events),
            "view": record.view,
            "language": record.language,
        },
    )


_ROTATE = Statement(
    lambda: (
        update(subscriptions)
        .where(subscriptions.c.id == bindparam("id"))
        .values(
            secret=bindparam("secret"),
            previous_secret=bindparam("previous_secret"),
            previous_until=bindparam("previous_until"),
        )
    )
)


async def rotate_secret(
    connection: Transaction,
    subscription_id: str,
    *,
    secret: bytes,
    previous_secret: bytes,
    previous_until: datetime,
) -> None:
    """A new signing secret; the one before it still signs until `previous_until`."""
    await _ROTATE.execute(
        connection,
        {
            "id": subscription_id,
            "secret": secret,
            "previous_secret": previous_secret,
            "previous_until": _time_in(connection, previous_until),
        },
    )


# --- the outbox ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Target:
    """What a change needs to know of a subscription to write its delivery."""

    id: str
    events: list[str] | None
    view: str
    #: Its payloads' language (None: English).
    language: str | None = None

    def wants(self, event: str) -> bool:
        return self.events is None or event in self.events


@dataclass(frozen=True, slots=True)
class NewDelivery:
    message_id: str
    subscription_id: str
    session_id: str
    version: int
    event: str
    payload: bytes


def _due_at(subscription: Any, session: Any, at: Any) -> Any:
    """When a new delivery of this subscription and session is due: at `at`, but not before
    the first still pending of its queue (behind a delivery waiting for its retry, it is not
    looked at by the workers' search for what is due until that one is)."""
    first = (
        select(deliveries.c.next_attempt_at)
        .where(
            deliveries.c.subscription_id == subscription,
            deliveries.c.session_id == session,
            deliveries.c.status == PENDING,
        )
        .order_by(deliveries.c.id)
        .limit(literal_column("1"))
        # Written out: SQLAlchemy's SQLite compiler would add an OFFSET parameter of its own.
        .offset(literal_column("0"))
        .scalar_subquery()
    )
    return case((first > at, first), else_=at)


#: SQLite: the outbox's table with its rowid named, so that an insert can number a row's
#: rowid as it numbers its id (the two stay equal; see `_insert_delivery`).
_deliveries_by_rowid = Table(
    deliveries.name,
    MetaData(),
    Column("rowid", BigInteger),
    *(column._copy() for column in deliveries.columns),
)


def _insert_delivery(sqlite: bool) -> Any:
    numbered: dict[str, Any] = {}
    table = deliveries
    if sqlite:
        # A column of a composite key has no sequence on SQLite: numbered as the row's rowid,
        # the largest one plus one (64-bit; `_largest_rowid`), but never at or below an id
        # the store has deleted (`webhook_delivery_numbering`, read by its key), and written
        # as the row's rowid too, so that the next is numbered after it.
        zero: Any = literal_column("0")
        one: Any = literal_column("1")
        forgotten = select(numbering.c.forgotten).where(numbering.c.id == one).scalar_subquery()
        number = func.max(_largest_rowid().scalar_subquery(), func.coalesce(forgotten, zero)) + one
        numbered = {"rowid": number, "id": number}
        table = _deliveries_by_rowid
    return insert(table).values(
        **numbered,
        message_id=bindparam("message_id"),
        subscription_id=bindparam("subscription_id"),
        session_id=bindparam("session_id"),
        version=bindparam("version"),
        event=bindparam("event"),
        payload=bindparam("payload"),
        status=PENDING,
        attempts=literal_column("0"),
        next_attempt_at=_due_at(
            bindparam("subscription_id"), bindparam("session_id"), bindparam("at")
        ),
        first_due_at=bindparam("at"),
        created_at=bindparam("at"),
    )


_INSERT_DELIVERY = Statement(lambda: _insert_delivery(sqlite=True))
_INSERT_DELIVERY_PG = Statement(lambda: _insert_delivery(sqlite=False))


def _deliveries_after(updated: Any) -> Any:
    """PostgreSQL: a change's deliveries, inserted in its session's update statement after
    the update (`updated`: its CTE) and only if it matched; one array per column
    (`delivery_<column>`), unnested side by side, each due as `enqueue` makes it
    (`_due_at`)."""
    new = (
        func.unnest(
            cast(bindparam("delivery_message_id"), ARRAY(String)),
            cast(bindparam("delivery_subscription_id"), ARRAY(String)),
            cast(bindparam("delivery_version"), ARRAY(Integer)),
            cast(bindparam("delivery_event"), ARRAY(String)),
            cast(bindparam("delivery_payload"), ARRAY(LargeBinary)),
        )
        .table_valued("message_id", "subscription_id", "version", "event", "payload")
        .render_derived(name="new")
    )
    at = bindparam("delivery_at", type_=DateTime(timezone=True))
    return insert(deliveries).from_select(
        [
            "message_id",
            "subscription_id",
            "session_id",
            "version",
            "event",
            "payload",
            "status",
            "attempts",
            "next_attempt_at",
            "first_due_at",
            "created_at",
        ],
        select(
            new.c.message_id,
            new.c.subscription_id,
            updated.c.id,
            new.c.version,
            new.c.event,
            new.c.payload,
            PENDING,
            literal_column("0"),
            _due_at(new.c.subscription_id, updated.c.id, at),
            at,
            at,
        )
        .select_from(updated)
        .join(new, true()),
    )


def alongside(planned: Sequence[NewDelivery], at: datetime) -> Alongside:
    """PostgreSQL: `planned` written in the change's own statement (`update_session`'s
    `alongside`), so that a change with webhooks is still one statement: no transaction to
    begin and commit, no round trip of its own."""
    return Alongside(
        "deliveries",
        _deliveries_after,
        {
            "delivery_message_id": [delivery.message_id for delivery in planned],
            "delivery_subscription_id": [delivery.subscription_id for delivery in planned],
            "delivery_version": [delivery.version for delivery in planned],
            "delivery_event": [delivery.event for delivery in planned],
            "delivery_payload": [delivery.payload for delivery in planned],
            "delivery_at": at,
        },
        len(planned),
    )


async def enqueue(connection: Transaction, planned: Sequence[NewDelivery], at: datetime) -> None:
    """Write deliveries, due at `at`, in the caller's transaction."""
    moment = _time_in(connection, at)
    statement = _INSERT_DELIVERY_PG if _postgres(connection) else _INSERT_DELIVERY
    for delivery in planned:
        await statement.execute(
            connection,
            {
                "message_id": delivery.message_id,
                "subscription_id": delivery.subscription_id,
                "session_id": delivery.session_id,
                "version": delivery.version,
                "event": delivery.event,
                "payload": delivery.payload,
                "at": moment,
            },
        )


def _due(lock: bool, skipping: bool = False) -> Any:
    """The queues' first deliveries due; `lock` on PostgreSQL (skipping those another
    worker is claiming), and `skipping`: not those of the subscriptions of parameter `skip`
    (an array on PostgreSQL, a JSON list on SQLite)."""

    def build() -> Any:
        earlier = deliveries.alias("earlier")
        conditions = [
            deliveries.c.status == PENDING,
            deliveries.c.next_attempt_at <= bindparam("now"),
            or_(
                deliveries.c.claimed_until.is_(None),
                deliveries.c.claimed_until <= bindparam("now"),
            ),
            ~exists().where(
                earlier.c.subscription_id == deliveries.c.subscription_id,
                earlier.c.session_id == deliveries.c.session_id,
                earlier.c.status == PENDING,
                earlier.c.id < deliveries.c.id,
            ),
        ]
        if skipping and lock:
            conditions.append(
                deliveries.c.subscription_id != all_(cast(bindparam("skip"), ARRAY(String)))
            )
        elif skipping:
            conditions.append(
                deliveries.c.subscription_id.not_in(
                    select(literal_column("value")).select_from(func.json_each(bindparam("skip")))
                )
            )
        statement = (
            select(deliveries.c.id, deliveries.c.subscription_id, deliveries.c.session_id)
            .where(*conditions)
            .order_by(deliveries.c.next_attempt_at, deliveries.c.id)
            .limit(bindparam("limit"))
            # Written out: SQLAlchemy's SQLite compiler would add an OFFSET parameter of its own.
            .offset(literal_column("0"))
        )
        return statement.with_for_update(skip_locked=True) if lock else statement

    return build


_DUE = Statement(_due(lock=False))
_DUE_LOCKED = Statement(_due(lock=True))
#: The same, passing over some subscriptions (the worker's, while their receivers are slow).
_DUE_SKIPPING = Statement(_due(lock=False, skipping=True))
_DUE_LOCKED_SKIPPING = Statement(_due(lock=True, skipping=True))


def _pairs_in(postgres: bool, columns: tuple[Any, Any], parameter: str, types: Any) -> Any:
    """`columns` among the pairs of parameter `parameter` (PostgreSQL: two arrays,
    `<parameter>_0` and `<parameter>_1`, of `types`; SQLite: a JSON list of pairs), each pair
    looked up in an index on them once. (Two lists of values, one a column, would be looked
    up as every value of one with every value of the other: a pass of a few hundred
    deliveries made tens of thousands of probes.)"""
    if postgres:
        listed = (
            func.unnest(
                *(cast(bindparam(f"{parameter}_{place}"), ARRAY(types[place])) for place in (0, 1))
            )
            .table_valued("first", "second")
            .render_derived(name="listed")
        )
        return tuple_(*columns).in_(select(listed.c.first, listed.c.second))
    # SQLite: cast, the pair's values have the columns' affinities, so that the index is
    # looked up on both (without, on the first alone).
    pair: Any = literal_column("value")
    return tuple_(*columns).in_(
        select(
            *(
                cast(func.json_extract(pair, literal_column(f"'$[{place}]'")), types[place])
                for place in (0, 1)
            )
        ).select_from(func.json_each(bindparam(parameter)))
    )


def _pairs(postgres: bool, parameter: str, pairs: Sequence[tuple[Any, Any]]) -> dict[str, Any]:
    """The parameters of `_pairs_in` for these pairs."""
    if postgres:
        return {
            f"{parameter}_0": [first for first, _second in pairs],
            f"{parameter}_1": [second for _first, second in pairs],
        }
    return {parameter: orjson.dumps(list(pairs)).decode()}


def _of_named_sessions() -> Any:
    """PostgreSQL: deliveries of the sessions the `sessions` parameter names, beside the pairs
    that find them: distributed, the sessions are what finds their shards."""
    return deliveries.c.session_id == any_(cast(bindparam("sessions"), ARRAY(String)))


def _listed(postgres: bool) -> Any:
    """The deliveries of the `keys` parameter, found by their key: (session, id) pairs, their
    sessions named as well on PostgreSQL (`_of_named_sessions`)."""
    keyed = _pairs_in(
        postgres, (deliveries.c.session_id, deliveries.c.id), "keys", (String, BigInteger)
    )
    return _of_named_sessions() & keyed if postgres else keyed


def _listing(postgres: bool, jobs: Sequence[tuple[str, int]]) -> dict[str, Any]:
    """The parameters of `_listed` for these (session, id) pairs."""
    listing = _pairs(postgres, "keys", jobs)
    if postgres:
        listing["sessions"] = sorted({session for session, _id in jobs})
    return listing


def _claim(postgres: bool) -> Any:
    return (
        update(deliveries)
        .where(_listed(postgres))
        .values(claim=bindparam("claim"), claimed_until=bindparam("until"))
    )


_CLAIM = Statement(lambda: _claim(postgres=False))
_CLAIM_PG = Statement(lambda: _claim(postgres=True))


@dataclass(frozen=True, slots=True)
class Job:
    """A claimed delivery, with what sending it needs."""

    id: int
    message_id: str
    subscription_id: str
    session_id: str
    version: int
    event: str
    payload: bytes
    attempts: int
    first_due_at: datetime
    url: str
    secret: bytes
    previous_secret: bytes | None
    previous_until: datetime | None
    #: Whether its subscription is failing (a delivery answered 2xx makes it active again).
    failing: bool = False


def _jobs(postgres: bool) -> Any:
    """The deliveries just claimed, listed by their ids (the claim checked too): a keyed
    lookup, whatever the number of deliveries the table keeps."""

    def build() -> Any:
        return (
            select(
                deliveries.c.id,
                deliveries.c.message_id,
                deliveries.c.subscription_id,
                deliveries.c.session_id,
                deliveries.c.version,
                deliveries.c.event,
                deliveries.c.payload,
                deliveries.c.attempts,
                deliveries.c.first_due_at,
                subscriptions.c.url,
                subscriptions.c.secret,
                subscriptions.c.previous_secret,
                subscriptions.c.previous_until,
                subscriptions.c.status,
            )
            .join(subscriptions, subscriptions.c.id == deliveries.c.subscription_id)
            .where(
                _listed(postgres),
                deliveries.c.claim == bindparam("claim"),
                deliveries.c.status == PENDING,
            )
            .order_by(deliveries.c.id)
        )

    return build


_JOBS = Statement(_jobs(postgres=False))
_JOBS_PG = Statement(_jobs(postgres=True))


def _followers(postgres: bool) -> Any:
    """The deliveries due of the listed queues (`queues`: subscription and session pairs)
    numbered after `after`, the first `per_queue` of each queue (its first still pending
    among them, when it is after `after`): a prefix of what each queue holds pending, in
    order."""

    def build() -> Any:
        queues = _pairs_in(
            postgres,
            (deliveries.c.subscription_id, deliveries.c.session_id),
            "queues",
            (String, String),
        )
        if postgres:
            queues &= _of_named_sessions()

        ranked = (
            select(
                deliveries.c.id,
                deliveries.c.subscription_id,
                deliveries.c.session_id,
                func.row_number()
                .over(
                    partition_by=(deliveries.c.subscription_id, deliveries.c.session_id),
                    order_by=deliveries.c.id,
                )
                .label("place"),
            )
            .where(
                queues,
                deliveries.c.status == PENDING,
                deliveries.c.id > bindparam("after"),
                deliveries.c.next_attempt_at <= bindparam("now"),
            )
            .subquery("ranked")
        )
        return (
            select(ranked.c.id, ranked.c.subscription_id, ranked.c.session_id)
            .where(ranked.c.place <= bindparam("per_queue"))
            .order_by(ranked.c.id)
        )

    return build


_FOLLOWERS = Statement(_followers(postgres=False))
_FOLLOWERS_PG = Statement(_followers(postgres=True))


async def claim_due(
    connection: Transaction,
    *,
    now: datetime,
    until: datetime,
    claim: str,
    limit: int,
    per_queue: int,
    skip: Sequence[str] = (),
) -> list[Job]:
    """Claim (for `claim`, until `until`) the deliveries due at `now` that are the first still
    pending of their subscription and session (at most `limit` of those queues; none of the
    subscriptions in `skip`), and each one's next `per_queue - 1` due behind it; what sending
    them needs, in order.

    A queue's deliveries after its first are never claimed by another worker meanwhile:
    only a queue's first is, and it is this worker's."""
    postgres = _postgres(connection)
    due = {"now": _time_in(connection, now), "limit": limit}
    if not skip:
        found = await (_DUE_LOCKED if postgres else _DUE).fetch(connection, due)
    elif postgres:
        found = await _DUE_LOCKED_SKIPPING.fetch(connection, {**due, "skip": list(skip)})
    else:
        found = await _DUE_SKIPPING.fetch(
            connection, {**due, "skip": orjson.dumps(list(skip)).decode()}
        )
    if not found:
        return []
    claimed: list[tuple[str, int]] = [(session, head) for head, _subscription, session in found]
    first = min(head for head, _subscription, _session in found)
    if per_queue > 1:
        # Every queue's followers in one read: those behind each head, up to its share.
        heads = {(subscription, session): head for head, subscription, session in found}
        queues = sorted(heads)
        sessions_of = sorted({session for _subscription, session in queues})
        behind = await (_FOLLOWERS_PG if postgres else _FOLLOWERS).fetch(
            connection,
            {
                **_pairs(postgres, "queues", queues),
                **({"sessions": sessions_of} if postgres else {}),
                "after": first,
                "now": _time_in(connection, now),
                "per_queue": per_queue,
            },
        )
        taken = dict.fromkeys(heads, 1)
        for delivery_id, subscription, session in behind:
            queue = (subscription, session)
            head = heads.get(queue)
            if head is not None and delivery_id > head and taken[queue] < per_queue:
                taken[queue] += 1
                claimed.append((session, delivery_id))
    listing = _listing(postgres, claimed)
    await (_CLAIM_PG if postgres else _CLAIM).execute(
        connection, {**listing, "claim": claim, "until": _time_in(connection, until)}
    )
    rows = await (_JOBS_PG if postgres else _JOBS).fetch(connection, {**listing, "claim": claim})
    return [
        Job(
            id=row[0],
            message_id=row[1],
            subscription_id=row[2],
            session_id=row[3],
            version=row[4],
            event=row[5],
            payload=bytes(row[6]),
            attempts=row[7],
            first_due_at=_time_out(row[8]),
            url=row[9],
            secret=bytes(row[10]),
            previous_secret=None if row[11] is None else bytes(row[11]),
            previous_until=None if row[12] is None else _time_out(row[12]),
            failing=row[13] == "failing",
        )
        for row in rows
    ]


def _delivered(postgres: bool) -> Any:
    """The listed deliveries (those `holder` still claims) answered 2xx with `last_status`:
    delivered, their attempts counted (each was tried once more)."""

    def build() -> Any:
        return (
            update(deliveries)
            .where(_listed(postgres), deliveries.c.claim == bindparam("holder"))
            .values(
                status=DELIVERED,
                attempts=deliveries.c.attempts + literal_column("1"),
                last_status=bindparam("last_status"),
                last_error=null(),
                delivered_at=bindparam("at"),
                claim=null(),
                claimed_until=null(),
            )
        )

    return build


_DELIVERED = Statement(_delivered(postgres=False))
_DELIVERED_PG = Statement(_delivered(postgres=True))
_RETRY = Statement(
    lambda: (
        update(deliveries)
        .where(
            deliveries.c.session_id == bindparam("session_id"),
            deliveries.c.id == bindparam("id"),
            deliveries.c.claim == bindparam("holder"),
        )
        .values(
            attempts=bindparam("attempts"),
            last_status=bindparam("last_status"),
            last_error=bindparam("last_error"),
            next_attempt_at=bindparam("next_at"),
            claim=null(),
            claimed_until=null(),
        )
    )
)
#: The deliveries behind one waiting for its retry wait as long (so that the workers' search
#: for what is due passes over a blocked queue's deliveries, however many, until it is due).
_HOLD_BEHIND = Statement(
    lambda: (
        update(deliveries)
        .where(
            deliveries.c.subscription_id == bindparam("subscription_id"),
            deliveries.c.session_id == bindparam("session_id"),
            deliveries.c.status == PENDING,
            deliveries.c.id > bindparam("after"),
            deliveries.c.next_attempt_at < bindparam("next_at"),
        )
        .values(next_attempt_at=bindparam("next_at"))
    )
)
_GIVE_UP = Statement(
    lambda: (
        update(deliveries)
        .where(
            deliveries.c.session_id == bindparam("session_id"),
            deliveries.c.id == bindparam("id"),
            deliveries.c.claim == bindparam("holder"),
        )
        .values(
            status=FAILED,
            attempts=bindparam("attempts"),
            last_status=bindparam("last_status"),
            last_error=bindparam("last_error"),
            claim=null(),
            claimed_until=null(),
        )
    )
)
_MARK_FAILING = Statement(
    lambda: (
        update(subscriptions)
        .where(subscriptions.c.id == bindparam("id"))
        .values(
            status=literal_column("'failing'"),
            failing_since=func.coalesce(subscriptions.c.failing_since, bindparam("at")),
        )
    )
)
_MARK_ACTIVE = Statement(
    lambda: (
        update(subscriptions)
        .where(
            subscriptions.c.id == bindparam("id"),
            subscriptions.c.status == literal_column("'failing'"),
        )
        .values(status=literal_column("'active'"), failing_since=null())
    )
)


#: The sessions whose queues a pass holds back, locked against their changes until it
#: commits (see `record`).
_HOLD_SESSIONS = Statement(
    lambda: (
        select(sessions.c.id)
        .where(sessions.c.id == any_(cast(bindparam("ids"), ARRAY(String))))
        .order_by(sessions.c.id)
        .with_for_update(read=True)
    )
)
#: A replay's session, locked as a change of it would lock it (see `replay`).
_HOLD_SESSION = Statement(
    lambda: (
        select(sessions.c.id)
        .where(sessions.c.id == bindparam("id"))
        .with_for_update(key_share=True)
    )
)


_RELEASE = Statement(
    lambda: (
        update(deliveries)
        .where(
            deliveries.c.session_id == bindparam("session_id"),
            deliveries.c.id == bindparam("id"),
            deliveries.c.claim == bindparam("holder"),
        )
        .values(claim=null(), claimed_until=null())
    )
)


@dataclass(frozen=True, slots=True)
class Attempted:
    """What came of one attempt at a claimed delivery."""

    job: Job
    attempts: int
    status: int | None
    #: None: delivered (a 2xx).
    error: str | None = None
    #: When to try again; None (with an error): given up, its subscription failing.
    next_at: datetime | None = None


async def record(
    connection: Transaction,
    claim: str,
    attempted: Sequence[Attempted],
    released: Sequence[Job],
    at: datetime,
) -> None:
    """Write what came of a queue's attempts (each only while `claim` still holds it), and
    give back the claims on its deliveries not attempted."""
    moment = _time_in(connection, at)
    postgres = _postgres(connection)
    answered: set[str] = set()
    held = sorted({outcome.job.session_id for outcome in attempted if outcome.next_at})
    if held and postgres:
        # A change of one of these sessions writing its delivery meanwhile (READ COMMITTED)
        # would read its queue's first as it was before this retry, and be missed by the hold
        # below until it commits: due before the first of its queue. Every change of a
        # session updates (or deletes) its row before it writes a delivery, so holding the
        # rows (in order: no deadlock between passes) waits for any such change to commit,
        # and keeps the next one from writing until this pass has. (SQLite: one writer.)
        await _HOLD_SESSIONS.fetch(connection, {"ids": held})
    # The deliveries answered 2xx, in one statement per status answered (most receivers have
    # one).
    by_status: dict[int | None, list[tuple[str, int]]] = {}
    for outcome in attempted:
        if outcome.error is None:
            by_status.setdefault(outcome.status, []).append(
                (outcome.job.session_id, outcome.job.id)
            )
            if outcome.job.failing:
                answered.add(outcome.job.subscription_id)
    for status, answered_2xx in by_status.items():
        await (_DELIVERED_PG if postgres else _DELIVERED).execute(
            connection,
            {
                **_listing(postgres, answered_2xx),
                "holder": claim,
                "last_status": status,
                "at": moment,
            },
        )
    for outcome in attempted:
        job = outcome.job
        params: dict[str, Any] = {
            "session_id": job.session_id,
            "id": job.id,
            "holder": claim,
            "attempts": outcome.attempts,
            "last_status": outcome.status,
        }
        if outcome.error is None:
            continue
        if outcome.next_at is not None:
            next_at = _time_in(connection, outcome.next_at)
            retried = await _RETRY.execute(
                connection, {**params, "last_error": outcome.error[:200], "next_at": next_at}
            )
            if retried:
                await _HOLD_BEHIND.execute(
                    connection,
                    {
                        "subscription_id": job.subscription_id,
                        "session_id": job.session_id,
                        "after": job.id,
                        "next_at": next_at,
                    },
                )
        elif await _GIVE_UP.execute(connection, {**params, "last_error": outcome.error[:200]}):
            await _MARK_FAILING.execute(connection, {"id": job.subscription_id, "at": moment})
    for job in released:
        await _RELEASE.execute(
            connection, {"session_id": job.session_id, "id": job.id, "holder": claim}
        )
    for subscription_id in answered:
        # A failing subscription whose receiver answers again is active again.
        await _MARK_ACTIVE.execute(connection, {"id": subscription_id})


# --- a subscription's deliveries, for its owner ----------------------------------------------


@dataclass(frozen=True, slots=True)
class DeliveryRecord:
    id: int
    message_id: str
    session_id: str
    version: int
    event: str
    status: str
    attempts: int
    next_attempt_at: datetime
    last_status: int | None
    last_error: str | None
    delivered_at: datetime | None
    created_at: datetime


_DELIVERY_FIELDS = tuple(field for field in DeliveryRecord.__dataclass_fields__)
_DELIVERY_TIMES = ("next_attempt_at", "delivered_at", "created_at")


def _delivery(row: Sequence[Any]) -> DeliveryRecord:
    values = dict(zip(_DELIVERY_FIELDS, row, strict=True))
    for name in _DELIVERY_TIMES:
        if values[name] is not None:
            values[name] = _time_out(values[name])
    return DeliveryRecord(**values)


def _list_deliveries(below: bool) -> Any:
    def build() -> Any:
        statement = select(*(deliveries.c[name] for name in _DELIVERY_FIELDS)).where(
            deliveries.c.subscription_id == bindparam("subscription_id")
        )
        if below:
            statement = statement.where(deliveries.c.id < bindparam("before"))
        return (
            statement.order_by(deliveries.c.id.desc())
            .limit(bindparam("limit"))
            .offset(literal_column("0"))
        )

    return build


_NEWEST_DELIVERIES = Statement(_list_deliveries(below=False))
_DELIVERIES_BELOW = Statement(_list_deliveries(below=True))


async def list_deliveries(
    connection: Transaction, subscription_id: str, *, before: int | None, limit: int
) -> list[DeliveryRecord]:
    """A subscription's deliveries numbered below `before` (None: its newest), newest first."""
    parameters: dict[str, Any] = {"subscription_id": subscription_id, "limit": limit}
    if before is None:
        found = await _NEWEST_DELIVERIES.fetch(connection, parameters)
    else:
        found = await _DELIVERIES_BELOW.fetch(connection, {**parameters, "before": before})
    return [_delivery(row) for row in found]


_ONE_DELIVERY = Statement(
    lambda: select(*(deliveries.c[name] for name in _DELIVERY_FIELDS), deliveries.c.payload).where(
        deliveries.c.id == bindparam("id"),
        deliveries.c.subscription_id == bindparam("subscription_id"),
    )
)


async def get_delivery(
    connection: Transaction, subscription_id: str, delivery_id: int
) -> tuple[DeliveryRecord, bytes] | None:
    """One of a subscription's deliveries, and its body exactly as signed and sent; None
    when it has no such delivery (or retention has forgotten it)."""
    found = await _ONE_DELIVERY.fetch(
        connection, {"id": delivery_id, "subscription_id": subscription_id}
    )
    if not found:
        return None
    *row, payload = found[0]
    return _delivery(row), bytes(payload)


async def replay(
    connection: Transaction, subscription_id: str, delivery_id: int, at: datetime
) -> bool:
    """Send a delivery again (a new row at the end of the queue, the same `message_id` and
    body, retried for a window of its own); False when there is no such delivery."""
    found = await get_delivery(connection, subscription_id, delivery_id)
    if found is None:
        return False
    record, payload = found
    again = NewDelivery(
        record.message_id, subscription_id, record.session_id, record.version, record.event, payload
    )
    await enqueue_alone(connection, again, at)
    return True


async def enqueue_alone(connection: Transaction, delivery: NewDelivery, at: datetime) -> None:
    """Write a delivery that no change of its session writes (a replay, a ping), at the end
    of its queue. On PostgreSQL its session's row is held first, as a change of it would be
    (`record` holds that row while it holds the queue back): the new delivery never reads
    its queue's first mid-retry."""
    if _postgres(connection):
        await _HOLD_SESSION.fetch(connection, {"id": delivery.session_id})
    await enqueue(connection, [delivery], at)


# --- the backlog (`GET /metrics`) ------------------------------------------------------------

#: Deliveries due counted at most: a scrape's count stays a bounded walk of the due index.
BACKLOG_COUNTED: Final = 100_000

_DUE_COUNT = Statement(
    lambda: select(func.count()).select_from(
        select(literal_column("1"))
        .select_from(deliveries)
        .where(deliveries.c.status == PENDING, deliveries.c.next_attempt_at <= bindparam("now"))
        .limit(bindparam("counted"))
        .offset(literal_column("0"))
        .subquery("due")
    )
)
_FIRST_DUE = Statement(
    lambda: select(func.min(deliveries.c.next_attempt_at)).where(deliveries.c.status == PENDING)
)


@dataclass(frozen=True, slots=True)
class Backlog:
    """The outbox's deliveries due and not yet sent, every worker's, at `now`."""

    #: How many (at most `BACKLOG_COUNTED`).
    due: int
    #: How long the most overdue of them has been due, in seconds (0 with none).
    oldest_seconds: float


async def backlog(connection: Transaction, at: datetime) -> Backlog:
    """What the delivery workers have left to send at `at`: both through the index of the
    pending deliveries by when they are due."""
    moment = _time_in(connection, at)
    (count,) = (await _DUE_COUNT.fetch(connection, {"now": moment, "counted": BACKLOG_COUNTED}))[0]
    (first,) = (await _FIRST_DUE.fetch(connection, {}))[0]
    overdue = 0.0 if first is None else (at - _time_out(first)).total_seconds()
    return Backlog(int(count), max(0.0, overdue))


# --- retention -------------------------------------------------------------------------------

_PURGE_DELIVERIES = Statement(
    lambda: delete(deliveries).where(
        tuple_(deliveries.c.session_id, deliveries.c.id).in_(
            select(deliveries.c.session_id, deliveries.c.id)
            .where(deliveries.c.status != PENDING, deliveries.c.created_at < bindparam("cutoff"))
            # The oldest first, through `ix_webhook_deliveries_sent`: a range of it.
            .order_by(deliveries.c.created_at)
            .limit(bindparam("limit"))
            .offset(literal_column("0"))
        )
    )
)


def _purge_orphans() -> Any:
    return delete(subscriptions).where(
        subscriptions.c.session_id.is_not(None),
        ~exists().where(sessions.c.id == subscriptions.c.session_id),
        ~exists().where(
            deliveries.c.subscription_id == subscriptions.c.id, deliveries.c.status == PENDING
        ),
    )


_PURGE_ORPHANS = Statement(_purge_orphans)


async def purge(connection: Transaction, *, sent_before: datetime, limit: int) -> int:
    """Forget at most `limit` deliveries sent (or given up) before `sent_before`, and the
    subscriptions of sessions that are gone once nothing of theirs is left to send; how many
    deliveries."""
    largest = await _largest_id(connection)
    forgotten = await _PURGE_DELIVERIES.execute(
        connection, {"cutoff": _time_in(connection, sent_before), "limit": limit}
    )
    # (A gone session's subscription goes with its deliveries, all sent: ON DELETE CASCADE.)
    orphans = await _PURGE_ORPHANS.execute(connection, {})
    if forgotten or orphans:
        await _forgotten_up_to(connection, largest)
    return forgotten
