"""Database URLs naming several PostgreSQL servers (a primary and its standbys).

Both spellings are accepted, libpq's (`host1:5432,host2:5432` before the path) and
SQLAlchemy's (`?host=host1:5432&host=host2:5432`); migrations and readiness (psycopg), requests
and live events (asyncpg) all get every server, and `target_session_attrs` (`read-write`
unless the URL says otherwise), so each new connection goes to the primary.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import asyncpg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from app.main import create_app
from app.settings import Settings
from app.store.database import (
    asyncpg_dsn,
    build_engine,
    missing_database,
    normalise_url,
    upgrade_to_head,
)
from app.store.notify import postgres_dsn
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.helpers import Session
from tests.store.servers import free_port

LIBPQ = "postgresql://arbiter:s%40cret@db1:5433,db2/arbiter?target_session_attrs=primary"
SQLALCHEMY = "postgresql+psycopg://arbiter@/arbiter?host=db1:5433&host=db2:5434"
ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}


def asyncpg_addresses(dsn: str) -> tuple[list[tuple[str, int]], str]:
    """The servers asyncpg would try for `dsn`, in order, and its target_session_attrs."""
    from asyncpg import connect_utils

    addresses, parameters, _ = connect_utils._parse_connect_arguments(
        dsn=dsn,
        host=None,
        port=None,
        user=None,
        password=None,
        passfile=None,
        database=None,
        command_timeout=None,
        statement_cache_size=100,
        max_cached_statement_lifetime=300,
        max_cacheable_statement_size=15 * 1024,
        ssl=None,
        direct_tls=False,
        server_settings=None,
        target_session_attrs=None,
        krbsrvname=None,
        gsslib=None,
        service=None,
        servicefile=None,
    )
    return list(addresses), str(parameters.target_session_attrs.value)


def test_libpq_and_sqlalchemy_host_lists_become_one_form() -> None:
    assert normalise_url(LIBPQ) == (
        "postgresql+psycopg://arbiter:s%40cret@/arbiter"
        "?host=db1:5433&host=db2&target_session_attrs=primary"
    )
    assert normalise_url(SQLALCHEMY) == SQLALCHEMY + "&target_session_attrs=read-write"
    assert normalise_url("postgres://arbiter@db1,db2/arbiter") == (
        "postgresql+psycopg://arbiter@/arbiter?host=db1&host=db2&target_session_attrs=read-write"
    )


def test_one_server_and_sqlite_are_left_as_they_were() -> None:
    one = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    assert normalise_url(one) == one
    assert normalise_url("postgres://postgres@127.0.0.1/test") == (
        "postgresql+psycopg://postgres@127.0.0.1/test"
    )
    assert normalise_url("sqlite:///var/arbiter.db") == "sqlite:///var/arbiter.db"


def test_psycopg_gets_every_server_and_the_session_attribute() -> None:
    engine = build_engine(LIBPQ)
    try:
        _, arguments = engine.dialect.create_connect_args(engine.url)
    finally:
        engine.dispose()
    assert arguments["host"] == "db1,db2"
    assert arguments["port"] == "5433,"  # libpq: an empty port is the default, 5432
    assert arguments["target_session_attrs"] == "primary"
    assert arguments["password"] == "s@cret"


@pytest.mark.parametrize(
    ("url", "addresses", "attribute"),
    [
        (LIBPQ, [("db1", 5433), ("db2", 5432)], "primary"),
        (SQLALCHEMY, [("db1", 5433), ("db2", 5434)], "read-write"),
    ],
)
def test_asyncpg_gets_every_server_in_order(
    url: str, addresses: list[tuple[str, int]], attribute: str
) -> None:
    # Repeated `host=` parameters would leave asyncpg only the last one.
    assert asyncpg_addresses(asyncpg_dsn(url)) == (addresses, attribute)
    # The live events' listening connection is opened the same way.
    assert postgres_dsn(url) == asyncpg_dsn(url)


def test_a_missing_database_on_several_servers_says_to_create_it_on_the_primary() -> None:
    line = missing_database(LIBPQ, Exception('database "arbiter" does not exist'))
    assert line == (
        'the PostgreSQL database "arbiter" does not exist on the primary of db1:5433,db2; '
        "create it first: createdb --maintenance-db="
        "'postgresql://arbiter@db1:5433,db2/postgres?target_session_attrs=read-write' arbiter"
    )


@pytest.fixture
def server_list_url() -> Iterator[str]:
    """A migrated database on the test server, named after a server that refuses connections
    (as a primary lost in a failover would), in the libpq spelling."""
    url = create_postgres_database()
    try:
        parsed = make_url(url)
        hosts = f"127.0.0.1:{free_port()},{parsed.host}:{parsed.port or 5432}"
        user = f"{parsed.username}@" if parsed.username else ""
        listed = f"postgresql://{user}{hosts}/{parsed.database}?target_session_attrs=read-write"
        upgrade_to_head(listed)
        yield listed
    finally:
        drop_postgres_database(url)


@pytest.mark.postgres
def test_a_server_list_reaches_the_one_that_answers(server_list_url: str) -> None:
    with TestClient(create_app(Settings(database_url=server_list_url))) as client:
        assert client.get("/readyz").status_code == 200
        arm = Session(client, "arm-wrestles", ARM_WRESTLE)
        played = client.post(arm.url + "/rounds", json={}, headers=arm.headers)
        assert played.status_code == 200, played.text
        assert client.get(arm.url, headers=arm.headers).json()["version"] == 2


@pytest.mark.postgres
def test_asyncpg_refuses_a_list_without_a_writable_server(server_list_url: str) -> None:
    """`read-write` passes a read-only server by, as it would a standby."""
    import asyncio

    async def connect() -> None:
        connection = await asyncpg.connect(
            asyncpg_dsn(server_list_url), server_settings={"default_transaction_read_only": "on"}
        )
        await connection.close()

    with pytest.raises((OSError, asyncpg.TargetServerAttributeNotMatched)):
        asyncio.run(connect())


@pytest.fixture
def hung_server() -> Iterator[int]:
    """A port that accepts connections and never answers, as a frozen machine would."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield listener.getsockname()[1]


@pytest.mark.postgres
def test_a_server_that_hangs_costs_its_timeout_and_the_next_is_tried(hung_server: int) -> None:
    """asyncpg's own host list would spend its one timeout on the hung server, and never try
    the next; each server gets a timeout of its own, as libpq gives it (readiness)."""
    url = create_postgres_database()
    try:
        parsed = make_url(url)
        hosts = f"127.0.0.1:{hung_server},{parsed.host}:{parsed.port or 5432}"
        user = f"{parsed.username}@" if parsed.username else ""
        listed = f"postgresql://{user}{hosts}/{parsed.database}"
        upgrade_to_head(url)
        with TestClient(create_app(Settings(database_url=listed))) as client:
            assert client.get("/readyz").status_code == 200
            arm = Session(client, "arm-wrestles", ARM_WRESTLE)
            played = client.post(arm.url + "/rounds", json={}, headers=arm.headers)
            assert played.status_code == 200, played.text
    finally:
        drop_postgres_database(url)
