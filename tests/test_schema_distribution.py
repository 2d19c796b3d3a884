"""Every table can be spread over a distributed PostgreSQL (Citus) by the session's id
(docs/distributing.md): a distributed table's primary key and every unique
constraint hold its distribution column (Citus refuses one that does not), and a foreign key
stays within one session (from a session's row to the same session's) or points at a
reference table (copied to every node). A table is either distributed by a named column,
non-null, in its key, or a reference table, listed here and in the docs; a new table must be
placed in one of them, and the check fails on one that is not, or is keyed without it.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKeyConstraint,
    MetaData,
    String,
    Table,
    UniqueConstraint,
)

from app.store.models import Base

DOCS = Path(__file__).resolve().parents[1] / "docs" / "distributing.md"

#: Distributed tables and the column holding the session's id (a creation's stored answer
#: holds a value of its own there, from its key: app/store/repository.py, `creation_shard`).
DISTRIBUTED = {
    "sessions": "id",
    "rounds": "session_id",
    "idempotency_keys": "session_id",
    "webhook_deliveries": "session_id",
}
#: Small, rarely written tables, copied whole to every node: what no session holds alone.
#: `webhook_subscriptions` holds an operator's subscriptions, of every session (no session
#: of their own: `session_id` null), beside each session's.
REFERENCE = {"webhook_subscriptions", "readiness_probe", "webhook_delivery_numbering"}


def tables(metadata: MetaData = Base.metadata) -> dict[str, Table]:
    return dict(metadata.tables)


def keyed_by(table: Table, column: str) -> list[str]:
    """What of `table` a distributed PostgreSQL would refuse with `column` as its
    distribution column: its primary key or a unique constraint or index without it, or the
    column nullable (a row must name its shard)."""
    refused = []
    if column not in table.c:
        return [f"{table.name}: no column {column}"]
    if column not in table.primary_key.columns:
        refused.append(f"{table.name}: primary key {list(table.primary_key.columns.keys())}")
    for constraint in table.constraints:
        if isinstance(constraint, UniqueConstraint) and column not in constraint.columns:
            refused.append(f"{table.name}: {constraint.name}")
    for index in table.indexes:
        if index.unique and column not in index.columns:
            refused.append(f"{table.name}: {index.name}")
    if table.c[column].nullable:
        refused.append(f"{table.name}: {column} nullable")
    return refused


def misplaced(metadata: MetaData, distributed: dict[str, str], reference: set[str]) -> list[str]:
    """Every table of `metadata` distributed by its session column and keyed by it, or a
    reference table; what is not."""
    found = []
    for name, table in sorted(tables(metadata).items()):
        if name in distributed:
            found += keyed_by(table, distributed[name])
        elif name not in reference:
            found.append(f"{name}: not placed")
    return found


def test_every_table_is_placed_and_keyed_by_its_session() -> None:
    assert set(DISTRIBUTED).isdisjoint(REFERENCE)
    assert misplaced(Base.metadata, DISTRIBUTED, REFERENCE) == []


def a_copy_with(*extra: Table) -> MetaData:
    copied = MetaData()
    for table in Base.metadata.tables.values():
        table.to_metadata(copied)
    for table in extra:
        table.to_metadata(copied)
    return copied


def test_a_new_table_without_the_session_in_its_key_fails() -> None:
    """The check can fail: a new table left unplaced, or distributed by a session column its
    key or a unique constraint lacks (or that may be null)."""
    spare = MetaData()
    notes = Table(
        "notes",
        spare,
        Column("id", BigInteger, primary_key=True),
        Column("session_id", String(32), nullable=False),
        Column("slug", String(32), nullable=False),
        UniqueConstraint("session_id", "slug", name="uq_notes_slug"),
    )
    tags = Table(
        "tags",
        spare,
        Column("session_id", String(32), primary_key=True),
        Column("name", String(32), primary_key=True),
        Column("label", String(32), nullable=False),
        UniqueConstraint("label", name="uq_tags_label"),
    )
    loose = Table(
        "loose",
        spare,
        Column("id", BigInteger, primary_key=True),
        Column("session_id", String(32), nullable=True),
    )
    copied = a_copy_with(notes, tags, loose)
    assert misplaced(copied, DISTRIBUTED, REFERENCE) == [
        "loose: not placed",
        "notes: not placed",
        "tags: not placed",
    ]
    placed = {**DISTRIBUTED, "notes": "session_id", "tags": "session_id", "loose": "session_id"}
    assert misplaced(copied, placed, REFERENCE) == [
        "loose: primary key ['id']",
        "loose: session_id nullable",
        "notes: primary key ['id']",
        "tags: uq_tags_label",
    ]


def test_the_check_finds_a_table_keyed_as_before_0014() -> None:
    """The two tables as they were keyed before migration 0014 are refused."""
    before = MetaData()
    Table(
        "webhook_deliveries",
        before,
        Column("id", BigInteger, primary_key=True),
        Column("session_id", String(32), nullable=False),
    )
    Table(
        "idempotency_keys",
        before,
        Column("scope", String(64), primary_key=True),
        Column("key", String(255), primary_key=True),
        Column("session_id", String(32), nullable=True),
    )
    assert misplaced(before, DISTRIBUTED, REFERENCE) == [
        "idempotency_keys: primary key ['scope', 'key']",
        "idempotency_keys: session_id nullable",
        "webhook_deliveries: primary key ['id']",
    ]


def test_operator_subscriptions_make_webhook_subscriptions_a_reference_table() -> None:
    """An operator's subscription has no session (null `session_id`): the table cannot be
    distributed by it, and is a reference table, which no distributed table's rows point
    into except by a foreign key Citus allows (to a reference table)."""
    subscriptions = tables()["webhook_subscriptions"]
    assert keyed_by(subscriptions, "session_id") == [
        "webhook_subscriptions: primary key ['id']",
        "webhook_subscriptions: session_id nullable",
    ]
    assert "webhook_subscriptions" in REFERENCE
    # What points at it: a delivery's subscription (distributed -> reference).
    pointing = {
        (name, constraint.referred_table.name)
        for name, table in tables().items()
        for constraint in table.constraints
        if isinstance(constraint, ForeignKeyConstraint)
        and constraint.referred_table.name in REFERENCE
    }
    assert pointing == {("webhook_deliveries", "webhook_subscriptions")}


def test_no_foreign_key_crosses_sessions() -> None:
    """A foreign key of a distributed table joins it to the same session's row (its session
    column to `sessions.id`) or to a reference table; a reference table's point only at
    reference tables."""
    crossing = []
    for name, table in tables().items():
        for constraint in table.constraints:
            if not isinstance(constraint, ForeignKeyConstraint):
                continue
            target = constraint.referred_table.name
            columns = [column.name for column in constraint.columns]
            referred = [element.column.name for element in constraint.elements]
            same_session = (
                name in DISTRIBUTED
                and target in DISTRIBUTED
                and columns == [DISTRIBUTED[name]]
                and referred == [DISTRIBUTED[target]]
            )
            if not same_session and target not in REFERENCE:
                crossing.append(f"{name}.{columns} -> {target}.{referred}")
    assert crossing == []


def test_the_docs_name_every_table_as_placed_here() -> None:
    text = DOCS.read_text()
    assert "SELECT create_distributed_table('sessions', 'id');" in text
    for name, column in DISTRIBUTED.items():
        if name != "sessions":
            # Colocated with the sessions: a session's rows of every table on one node.
            call = f"create_distributed_table('{name}', '{column}', colocate_with => 'sessions')"
            assert f"SELECT {call};" in text, name
    for name in REFERENCE:
        assert f"create_reference_table('{name}')" in text
