"""Ids that never run out: every growing id is 64-bit on PostgreSQL, in the models, in the
migrated database's columns and sequences, and an insert past 2^31 works through the API.

A table added later with a 32-bit growing id fails `test_no_model_has_a_32_bit_growing_id`
(and, once migrated, `test_every_sequence_and_growing_column_is_64_bit`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import BigInteger, Column, Integer, MetaData, String, Table, create_engine, text
from sqlalchemy.dialects import postgresql

from app.main import create_app
from app.settings import Settings
from app.store.models import Base
from tests.conformance import Conforming
from tests.conftest import migrated
from tests.helpers import Session
from tests.store.receiver import Receiver, payloads

PG = postgresql.dialect()  # type: ignore[no-untyped-call]
#: Past the last 32-bit id.
PAST_32_BITS = 2**31 + 7
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Lydia", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Ogre", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 30,
}
ROUND = {"rolls": {"Lydia": {"strength": 10}, "Ogre": {"strength": 10}}}


def growing_32_bit_ids(metadata: MetaData) -> list[str]:
    """`table.column` of every id a database numbers by itself (autoincrement, identity or
    sequence) whose PostgreSQL type is not BIGINT."""
    found = []
    for table in metadata.tables.values():
        growing = {table.autoincrement_column} if table.autoincrement_column is not None else set()
        growing |= {
            column
            for column in table.columns
            if column.identity is not None
            or (column.default is not None and column.default.is_sequence)
        }
        for column in growing:
            if not isinstance(column.type.dialect_impl(PG), BigInteger):
                found.append(f"{table.name}.{column.name}")
    return sorted(found)


def test_no_model_has_a_32_bit_growing_id() -> None:
    assert growing_32_bit_ids(Base.metadata) == []
    # The ones there are: each 64-bit on PostgreSQL, SQLite's rowid (INTEGER) there.
    delivery_id = Base.metadata.tables["webhook_deliveries"].c.id
    assert str(delivery_id.type.compile(PG)) == "BIGINT"
    assert str(delivery_id.type.dialect_impl(create_engine("sqlite://").dialect)) == "INTEGER"


def test_the_check_finds_a_new_table_with_a_32_bit_growing_id() -> None:
    """The walk above can fail: a table brought with a SERIAL id is named, and one whose
    integer key is given by the app (not growing) is not."""
    metadata = MetaData()
    Table("tallies", metadata, Column("id", Integer, primary_key=True), Column("n", String(8)))
    Table("fixed", metadata, Column("id", Integer, primary_key=True, autoincrement=False))
    Table("wide", metadata, Column("id", BigInteger, primary_key=True))
    assert growing_32_bit_ids(metadata) == ["tallies.id"]


def test_rounds_are_keyed_by_their_session_and_number() -> None:
    rounds = Base.metadata.tables["rounds"]
    assert [column.name for column in rounds.primary_key.columns] == ["session_id", "number"]
    assert "id" not in rounds.c


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with migrated("postgresql") as url:
        yield url


@pytest.mark.postgres
def test_every_sequence_and_growing_column_is_64_bit(postgres_url: str) -> None:
    """In the migrated database itself: every sequence `AS bigint`, and every column taking
    its value from one BIGINT."""
    engine = create_engine(postgres_url)
    try:
        with engine.connect() as connection:
            sequences = connection.execute(
                text("SELECT sequence_name, data_type FROM information_schema.sequences")
            ).all()
            columns = connection.execute(
                text(
                    "SELECT table_name, column_name, data_type FROM information_schema.columns"
                    " WHERE table_schema = 'public' AND column_default LIKE 'nextval(%'"
                )
            ).all()
    finally:
        engine.dispose()
    assert sorted(sequences) == [("webhook_deliveries_id_seq", "bigint")]
    assert sorted(columns) == [("webhook_deliveries", "id", "bigint")]


@pytest.mark.postgres
def test_a_round_inserts_past_2_to_the_31(postgres_url: str) -> None:
    """With the deliveries' sequence set past 2^31, a round of a session a webhook hears is
    played through the API: its outbox row takes an id past 2^31, the round is stored, and the
    delivery worker claims and sends that delivery to a real receiver."""
    engine = create_engine(postgres_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text("SELECT setval('webhook_deliveries_id_seq', :past)"), {"past": PAST_32_BITS}
            )
        settings = Settings(
            database_url=postgres_url, webhook_allow_private=True, webhook_poll_seconds=0.05
        )
        receiver = Receiver().start()
        try:
            with TestClient(Conforming(create_app(settings))) as client:
                session = Session(client, "arm-wrestles", ARM_WRESTLE)
                made = session.post("webhooks", {"url": receiver.url})
                assert made.status_code == 201, made.text
                receiver.secrets.append(made.json()["secret"])
                played = session.play_round(ROUND)
                assert played.json()["session"]["version"] == 2
                receiver.wait_for(lambda got: len(got) == 1)
        finally:
            receiver.stop()
        [delivered] = payloads(receiver.delivered)
        assert delivered["session"] == {"id": session.id, "kind": "arm-wrestles", "version": 2}
        with engine.connect() as connection:
            ids = connection.execute(text("SELECT id FROM webhook_deliveries")).scalars().all()
            sent = connection.execute(text("SELECT status FROM webhook_deliveries")).scalars().all()
            stored = connection.execute(
                text("SELECT session_id, number FROM rounds"),
            ).all()
    finally:
        engine.dispose()
    # One delivery, the round's, numbered after the value set.
    assert ids == [PAST_32_BITS + 1]
    assert stored == [(session.id, 1)]
    assert sent == ["delivered"]
