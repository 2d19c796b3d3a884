"""A newcomer's first minutes: `scripts/dev.py` says in one line what is wrong and what to do
(a taken port, an unreachable PostgreSQL server), never with a traceback, and shows its
progress without printing a password.

The server is started as the image starts it (`dev.py start`, the interpreter running the
tests, no virtualenv step); each case fails before uvicorn or the odds kernel is reached.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.store.database import unreachable_database
from tests.requirements import skipped_groups
from tests.store.servers import free_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def start(**settings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **settings}
    env.pop("ARBITER_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "scripts/dev.py", "start"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_taken_port_is_one_line_naming_arbiter_port(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        started = start(ARBITER_PORT=str(port), DATABASE_URL=f"sqlite:///{tmp_path / 'never.db'}")
    assert started.returncode == 1
    assert started.stderr.splitlines() == [
        f"port {port} on 127.0.0.1 is taken (another Arbiter, or another program: "
        f"`ss -ltnp 'sport = :{port}'` names it); stop it, or serve on another port: "
        f"ARBITER_PORT={port + 1} python3 scripts/dev.py serve"
    ]
    assert not (tmp_path / "never.db").exists()


def test_an_unreachable_postgres_is_one_line_saying_what_to_do() -> None:
    nobody = free_port()  # nothing listens there
    started = start(
        ARBITER_MIGRATE="1",
        ARBITER_PORT=str(free_port()),
        DATABASE_URL=f"postgresql://arbiter:s3cret-word@127.0.0.1:{nobody}/arbiter",
    )
    assert started.returncode == 1
    assert started.stderr.splitlines() == [
        f"the PostgreSQL server at 127.0.0.1:{nobody} is unreachable (connection refused); "
        "start it, or set DATABASE_URL to a server that runs, or unset it to use a local "
        "SQLite file"
    ]
    # The progress line names the database without its credentials.
    assert started.stdout.splitlines() == [f"migrating postgresql://127.0.0.1:{nobody}/arbiter ..."]
    assert "s3cret" not in started.stdout + started.stderr


@pytest.mark.parametrize(
    ("url", "error", "expected"),
    [
        (
            "postgresql://u@db.example:6432/arbiter",
            'connection failed: connection to server at "10.0.0.1", port 6432 failed: '
            "timeout expired",
            "the PostgreSQL server at db.example:6432 is unreachable (timeout expired)",
        ),
        (
            "postgresql://u@nowhere.invalid/arbiter",
            "failed to resolve host 'nowhere.invalid': [Errno -2] Name or service not known",
            "the PostgreSQL server at nowhere.invalid:5432 is unreachable (failed to resolve host)",
        ),
        (
            "postgresql://u@a:5432,b:5433/arbiter",
            "connection refused",
            None,  # psycopg's spelling is "Connection refused": this is some other text
        ),
        ("postgresql://u@a/arbiter", 'database "arbiter" does not exist', None),
        ("sqlite:///./var/arbiter.db", "Connection refused", None),
    ],
)
def test_unreachable_database_names_the_servers_only_when_none_answers(
    url: str, error: str, expected: str | None
) -> None:
    line = unreachable_database(url, Exception(error))
    if expected is None:
        assert line is None
    else:
        assert line is not None
        assert line.startswith(expected + "; start it, or set DATABASE_URL")


def test_a_list_of_servers_is_named_whole() -> None:
    line = unreachable_database(
        "postgresql://u@a:5432,b:5433/arbiter", Exception("Connection refused")
    )
    assert line is not None
    assert line.startswith(
        "the PostgreSQL server at a:5432,b:5433 is unreachable (connection refused)"
    )


def test_a_run_that_skips_ends_saying_what_to_install() -> None:
    """A run outside CI without PostgreSQL: the summary's last section names the group of
    skipped tests, how many, and what to start."""
    nobody = free_port()
    env = {
        **os.environ,
        "ARBITER_TEST_POSTGRES_URL": f"postgresql+psycopg://postgres@127.0.0.1:{nobody}/test",
    }
    env.pop("CI", None)  # in CI a missing server fails the test instead
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:xdist",
            "-p",
            "no:cacheprovider",
            "tests/store/test_migrations.py::test_readyz_is_200_on_a_migrated_database",
        ],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    lines = ran.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if "skipped, and what to install" in line)
    assert lines[header + 1].startswith(
        f"1 skipped: PostgreSQL unreachable at postgresql+psycopg://postgres@127.0.0.1:{nobody}/test"
    )
    assert lines[header + 1].endswith(": start it, or set ARBITER_TEST_POSTGRES_URL")


def test_skipped_groups_count_each_reason_most_first() -> None:
    assert skipped_groups(
        [
            "Skipped: no Node.js (node) on PATH: install Node.js 20",
            "Skipped: no chromium on PATH: run playwright install chromium",
            "Skipped: no Node.js (node) on PATH: install Node.js 20",
        ]
    ) == [
        "2 skipped: no Node.js (node) on PATH: install Node.js 20",
        "1 skipped: no chromium on PATH: run playwright install chromium",
    ]
    assert skipped_groups([]) == []


def load_dev() -> Any:
    """scripts/dev.py, loaded from its file (it needs only the standard library)."""
    spec = importlib.util.spec_from_file_location("dev", PROJECT_ROOT / "scripts" / "dev.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_pip(tmp_path: Path, collected: int, status: int) -> Path:
    """A stand-in for `.venv/bin/python -m pip install …`: says what pip says, exits `status`."""
    script = tmp_path / "python"
    lines = [f"Collecting package-{n}==1.0" for n in range(collected)]
    lines += ["Installing collected packages: ...", "ERROR: no space left" if status else "ok"]
    script.write_text(
        "#!/bin/sh\n" + "".join(f"echo '{line}'\n" for line in lines) + f"exit {status}\n"
    )
    script.chmod(0o755)
    return script


def test_the_first_install_shows_its_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = load_dev()
    monkeypatch.setattr(dev, "PYTHON", fake_pip(tmp_path, 45, 0))
    dev.install(45)
    assert capsys.readouterr().out.splitlines() == [
        "  20/45 packages fetched",
        "  40/45 packages fetched",
        "  45/45 packages fetched; unpacking them ...",
    ]


def test_a_failed_install_prints_what_pip_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = load_dev()
    monkeypatch.setattr(dev, "PYTHON", fake_pip(tmp_path, 3, 1))
    with pytest.raises(SystemExit) as exited:
        dev.install(3)
    assert exited.value.code == 1
    out = capsys.readouterr().out
    assert out.endswith(
        "Collecting package-2==1.0\nInstalling collected packages: ...\nERROR: no space left\n"
    )


def test_readiness_names_an_unreachable_server_in_the_same_line() -> None:
    """`/readyz`'s detail is that line too, as it reads: no character hidden in it."""
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import Settings

    nobody = free_port()
    url = f"postgresql://postgres@127.0.0.1:{nobody}/arbiter"
    with TestClient(create_app(Settings(database_url=url))) as client:
        answer = client.get("/readyz")
    assert answer.status_code == 503
    assert answer.json()["detail"] == (
        f"the PostgreSQL server at 127.0.0.1:{nobody} is unreachable (connection refused); "
        "start it, or set DATABASE_URL to a server that runs, or unset it to use a local "
        "SQLite file"
    )
