"""The verifiable server seed rests sealed (issue 43): docs/verifiable-dice.md, "Where the server
seed lives".

Tried as whoever runs the database would: on SQLite with no ARBITER_DICE_KEY the service makes
a key once, outside the database's folder, and the database alone holds no seed it can read
before the reveal; a key file in the database's folder, or PostgreSQL without a key while
verifiable dice are offered, is one line at start and no service.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from app.api.sessions import verifiable
from app.api.sessions.security import SEED_PLAIN, SEED_SEALED, SealedSeed, open_seed
from app.main import create_app
from app.settings import Settings, StartupRefused
from app.store.database import null_pool_engine, upgrade_to_head
from app.store.repository import sessions
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.helpers import Session, assert_problem

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Ann", "strength_mod": 0, "con_score": 12, "con_mod": 0},
    "b": {"name": "Bob", "strength_mod": 0, "con_score": 12, "con_mod": 0},
    "target": 10,
    "dice": "verifiable",
}


@pytest.fixture
def state_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's state directory, here: where the service keeps the key it makes."""
    home = tmp_path / "state"
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    folder = tmp_path / "data"
    folder.mkdir()
    url = f"sqlite:///{folder / 'arbiter.db'}"
    upgrade_to_head(url)
    return url


def stored_secret(url: str, session_id: str) -> bytes:
    engine = null_pool_engine(url)
    try:
        with engine.connect() as connection:
            return bytes(
                connection.execute(
                    select(sessions.c.dice_secret).where(sessions.c.id == session_id)
                ).scalar_one()
            )
    finally:
        engine.dispose()


def test_sqlite_without_a_key_seals_seeds_under_one_it_makes_once_outside_the_database(
    sqlite_url: str, state_home: Path
) -> None:
    settings = Settings(database_url=sqlite_url, dice_key=None)
    with TestClient(create_app(settings)) as client:
        made = Session(client, "arm-wrestles", ARM_WRESTLE)
    key_file = state_home / "arbiter" / "dice-key"
    assert key_file.is_file()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(key_file.parent.stat().st_mode) & 0o077 == 0
    database_folder = Path(sqlite_url.removeprefix("sqlite:///")).parent
    assert not key_file.resolve().is_relative_to(database_folder.resolve())
    key = key_file.read_text().strip()
    assert len(key) == 64

    # Whoever holds the database alone cannot open the seed: it is sealed, and no key in the
    # database's folder opens it.
    secret = stored_secret(sqlite_url, made.id)
    assert secret[:1] == SEED_SEALED
    with pytest.raises(SealedSeed):
        open_seed(made.id, secret, None)
    assert not [path for path in database_folder.iterdir() if "key" in path.name]

    # A second start reads the same key: the session plays on and its proof reveals the seed
    # committed to.
    with TestClient(create_app(settings)) as client:
        again = client.post(f"{made.url}/resolve", headers=made.headers)
        assert again.status_code == 200, again.text
        proof = client.get(f"{made.url}/proof", headers=made.headers).json()
    assert key_file.read_text().strip() == key
    assert proof["revealed"] is True
    assert bytes.fromhex(proof["server_seed"]) == open_seed(made.id, secret, key)


def test_processes_starting_together_make_one_key(tmp_path: Path) -> None:
    """Eight starts at once (held at a barrier, then racing to make the file) read one key."""
    path = tmp_path / "state" / "arbiter" / "dice-key"
    barrier = threading.Barrier(8)
    found: list[str] = []
    lock = threading.Lock()

    def start() -> None:
        barrier.wait()
        key = verifiable.kept_key(path)
        with lock:
            found.append(key)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 8
    assert len(set(found)) == 1
    assert [entry.name for entry in path.parent.iterdir()] == ["dice-key"]


def test_a_key_file_in_the_databases_folder_is_refused(sqlite_url: str) -> None:
    folder = Path(sqlite_url.removeprefix("sqlite:///")).parent
    for beside in (folder / "dice-key", folder / "keys" / "dice-key"):
        settings = Settings(database_url=sqlite_url, dice_key=None, dice_key_file=beside)
        with pytest.raises(StartupRefused) as refused:
            create_app(settings)
        message = str(refused.value)
        assert "\n" not in message
        assert "database's folder" in message
        assert not beside.exists()


def test_a_key_file_without_a_key_is_refused(sqlite_url: str, tmp_path: Path) -> None:
    empty = tmp_path / "elsewhere" / "dice-key"
    empty.parent.mkdir()
    empty.write_text("short\n")
    with pytest.raises(StartupRefused, match="holds no key"):
        create_app(Settings(database_url=sqlite_url, dice_key=None, dice_key_file=empty))


@pytest.mark.postgres
def test_postgres_without_a_key_is_one_line_at_start_and_no_service() -> None:
    """As the service starts (uvicorn's factory): exit 1, one line saying what to set."""
    url = create_postgres_database()
    try:
        env = {key: value for key, value in os.environ.items() if key != "ARBITER_DICE_KEY"}
        env.update({"DATABASE_URL": url, "ARBITER_ODDS_PRESTART": "0"})
        done = subprocess.run(
            [sys.executable, "-c", "from app.main import create_app; create_app()"],
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        drop_postgres_database(url)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [verifiable.POSTGRES_NEEDS_A_KEY], done.stderr
    assert "ARBITER_DICE_KEY" in lines[0]
    assert "Traceback" not in done.stderr


@pytest.mark.postgres
def test_postgres_without_verifiable_dice_starts_and_refuses_only_them(
    database_url: str,
) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL's own rule")
    with pytest.raises(StartupRefused):
        create_app(Settings(database_url=database_url, dice_key=None))
    settings = Settings(database_url=database_url, dice_key=None, verifiable_dice=False)
    with TestClient(create_app(settings)) as client:
        refused = client.post("/v1/arm-wrestles", json=ARM_WRESTLE)
        assert_problem(refused, 422, ["body", "dice"])
        ordinary = {key: value for key, value in ARM_WRESTLE.items() if key != "dice"}
        assert client.post("/v1/arm-wrestles", json=ordinary).status_code == 201


def test_an_app_with_a_key_seals_every_new_seed_on_both_databases(
    store_client: TestClient, database_url: str
) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    secret = stored_secret(database_url, made.id)
    assert secret[:1] == SEED_SEALED
    with pytest.raises(SealedSeed):
        open_seed(made.id, secret, None)


def test_seeds_stored_as_they_are_before_are_sealed_at_start_on_both_databases(
    database_url: str,
) -> None:
    """A session made when a deployment had no dice key kept its seed as it is: the next
    start seals it in place (the same seed: the proof still reveals the one committed to)."""
    key = "a-deployment-key-" + "9" * 32
    settings = Settings(database_url=database_url, dice_key=key)
    with TestClient(create_app(settings)) as client:
        made = Session(client, "arm-wrestles", ARM_WRESTLE)
    seed = open_seed(made.id, stored_secret(database_url, made.id), key)
    engine = null_pool_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                update(sessions)
                .where(sessions.c.id == made.id)
                .values(dice_secret=SEED_PLAIN + seed)
            )
    finally:
        engine.dispose()

    with TestClient(create_app(settings)) as client:
        pass  # the start seals it (awaited before the app stops)
    secret = stored_secret(database_url, made.id)
    assert secret[:1] == SEED_SEALED
    assert seed not in secret
    assert open_seed(made.id, secret, key) == seed
    with TestClient(create_app(settings)) as client:
        assert client.post(f"{made.url}/resolve", headers=made.headers).status_code == 200
        proof = client.get(f"{made.url}/proof", headers=made.headers).json()
    assert bytes.fromhex(proof["server_seed"]) == seed
    assert hashlib.sha256(seed).hexdigest() == proof["commitment"]
