"""How Arbiter is served: `scripts/dev.py`'s guards and uvicorn flags, the compose file's
connection budget and start order, and the image's build context.

`scripts/dev.py` needs only the standard library, so it is loaded here from its file and its
functions called with the environment a test gives them.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import yaml  # type: ignore[import-untyped]  # PyYAML ships no types; only safe_load is used

from app.store.database import upgrade_to_head
from tests.store.servers import POLL_INTERVAL_S, STARTUP_TIMEOUT_S, free_port

PROJECT_ROOT = Path(__file__).resolve().parents[1]
POSTGRES = "postgresql+psycopg://arbiter@db:5432/arbiter"


def load_dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev", PROJECT_ROOT / "scripts" / "dev.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


dev = load_dev()


def option(arguments: list[str], name: str) -> str:
    value: str = arguments[arguments.index(name) + 1]
    return value


# --- scripts/dev.py: several workers on SQLite ------------------------------------------------


@pytest.mark.parametrize(
    "env",
    [
        {"ARBITER_WORKERS": "2"},
        {"ARBITER_WORKERS": "4", "DATABASE_URL": "sqlite:////tmp/elsewhere.db"},
        {"ARBITER_WORKERS": "2", "ARBITER_DATABASE_URL": "sqlite:///./var/other.db"},
    ],
)
def test_several_workers_on_sqlite_are_refused(env: dict[str, str]) -> None:
    with pytest.raises(SystemExit) as refused:
        dev.uvicorn_arguments(env)
    message = str(refused.value.code)
    assert message.startswith(f"refusing to serve SQLite with {env['ARBITER_WORKERS']} workers")
    assert "ARBITER_ALLOW_SQLITE_WORKERS=1" in message


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"ARBITER_WORKERS": "1"},
        {"ARBITER_WORKERS": "2", "ARBITER_ALLOW_SQLITE_WORKERS": "1"},
        {"ARBITER_WORKERS": "2", "DATABASE_URL": POSTGRES},
        # DATABASE_URL wins over ARBITER_DATABASE_URL, as in app/settings.py.
        {"ARBITER_WORKERS": "2", "DATABASE_URL": POSTGRES, "ARBITER_DATABASE_URL": "sqlite://"},
    ],
)
def test_one_worker_postgres_or_an_explicit_yes_is_served(env: dict[str, str]) -> None:
    arguments = dev.uvicorn_arguments(env)
    assert option(arguments, "--workers") == env.get("ARBITER_WORKERS", "1")


def test_serve_refuses_before_migrating(monkeypatch: pytest.MonkeyPatch) -> None:
    migrated: list[object] = []
    monkeypatch.setattr(dev, "migrate", migrated.append)
    monkeypatch.setenv("ARBITER_WORKERS", "3")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("ARBITER_DATABASE_URL", raising=False)
    monkeypatch.delenv("ARBITER_ALLOW_SQLITE_WORKERS", raising=False)
    with pytest.raises(SystemExit, match="refusing to serve SQLite with 3 workers"):
        dev.serve()
    assert migrated == []


def test_the_script_exits_with_the_message_before_serving(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'arbiter.db'}",
        "ARBITER_WORKERS": "2",
        "ARBITER_PORT": "not-a-port",
        "ARBITER_MIGRATE": "1",
    }
    env.pop("ARBITER_ALLOW_SQLITE_WORKERS", None)
    ran = subprocess.run(
        [sys.executable, "scripts/dev.py", "start"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode == 1
    assert ran.stderr.startswith("refusing to serve SQLite with 2 workers")
    assert "Arbiter on" not in ran.stdout
    # Refused before migrating: the database file was never created.
    assert not (tmp_path / "arbiter.db").exists()


# --- scripts/dev.py: uvicorn's flags ---------------------------------------------------------


def test_uvicorn_trusts_no_proxy_by_default() -> None:
    arguments = dev.uvicorn_arguments({})
    assert "--no-proxy-headers" in arguments
    assert "--forwarded-allow-ips" not in arguments
    assert option(arguments, "--timeout-keep-alive") == "5"
    assert option(arguments, "--host") == "127.0.0.1"


def test_uvicorn_trusts_the_configured_proxies_and_timeouts() -> None:
    arguments = dev.uvicorn_arguments(
        {
            "ARBITER_FORWARDED_ALLOW_IPS": "172.30.0.10,10.0.0.0/8",
            "ARBITER_KEEP_ALIVE_SECONDS": "75",
            "ARBITER_GRACEFUL_SHUTDOWN_SECONDS": "9",
        }
    )
    assert option(arguments, "--forwarded-allow-ips") == "172.30.0.10,10.0.0.0/8"
    assert "--no-proxy-headers" not in arguments
    assert option(arguments, "--timeout-keep-alive") == "75"
    assert option(arguments, "--timeout-graceful-shutdown") == "9"


def test_metrics_directory_is_fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    given = tmp_path / "given"
    given.mkdir()
    (given / "counter_123.db").write_bytes(b"an earlier run's values")
    (given / "README").write_text("not prometheus-client's")
    assert dev.metrics_directory({"PROMETHEUS_MULTIPROC_DIR": str(given)}) == str(given)
    assert sorted(path.name for path in given.iterdir()) == ["README"]

    monkeypatch.setattr(dev, "VAR", tmp_path / "var")
    made = Path(dev.metrics_directory({"ARBITER_PORT": "8123"}))
    assert made == tmp_path / "var" / "prometheus-8123"
    (made / "histogram_9.db").write_bytes(b"stale")
    assert Path(dev.metrics_directory({"ARBITER_PORT": "8123"})) == made
    assert list(made.iterdir()) == []


@pytest.mark.slow
def test_start_serves_two_workers_sharing_their_metrics(tmp_path: Path) -> None:
    """`dev.py start` as the image runs it: the flags are uvicorn's, both workers write their
    metrics to the given directory (emptied of an earlier run's first), /readyz is 200."""
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    upgrade_to_head(url)
    metrics = tmp_path / "metrics"
    metrics.mkdir()
    (metrics / "counter_1.db").write_bytes(b"stale")
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "ARBITER_PORT": str(port),
        "ARBITER_WORKERS": "2",
        "ARBITER_ALLOW_SQLITE_WORKERS": "1",
        "ARBITER_FORWARDED_ALLOW_IPS": "127.0.0.1",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics),
    }
    env.pop("ARBITER_DATABASE_URL", None)
    env.pop("ARBITER_RATE_LIMIT_PER_MINUTE", None)
    env.pop("ARBITER_MIGRATE", None)
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "scripts/dev.py", "start"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base, timeout=5) as client:
            assert wait_ready(client, server), log.read_text()
            contest = client.post(
                "/v1/gurps/quick-contest",
                json={
                    "a": {"name": "Ann", "skill": 12, "roll": [2, 3, 4]},
                    "b": {"name": "Bob", "skill": 10, "roll": [5, 5, 1]},
                },
            )
            assert contest.status_code == 200, contest.text
            assert contest.json()["summary"].endswith("Ann wins by 4.")
        # Each worker keeps its values in files of its own pid; the stale file is gone. The
        # first worker up answers /readyz: the second may still be starting (a loaded
        # machine), and writes its files as it imports the app.
        written = metric_files(metrics, until_pids=2)
        assert "counter_1.db" not in written
        assert len({name.rsplit("_", 1)[1] for name in written if name.endswith(".db")}) == 2
    finally:
        server.terminate()
        server.wait(timeout=30)


def wait_ready(client: httpx.Client, server: subprocess.Popen[bytes]) -> bool:
    """Poll /readyz until the server answers 200 or exits (or STARTUP_TIMEOUT_S passes)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return False
        try:
            if client.get("/readyz").status_code == 200:
                return True
        except httpx.TransportError:
            pass
        time.sleep(POLL_INTERVAL_S)
    return False


def metric_files(directory: Path, *, until_pids: int) -> set[str]:
    """The names of the files in `directory`, once `.db` files of `until_pids` processes are
    among them (or STARTUP_TIMEOUT_S has passed: the caller's assertions say what is wrong)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while True:
        names = {path.name for path in directory.iterdir()}
        pids = {name.rsplit("_", 1)[1] for name in names if name.endswith(".db")}
        if len(pids) >= until_pids or time.monotonic() > deadline:
            return names
        time.sleep(POLL_INTERVAL_S)


# --- docker-compose.yml and the image's build context -----------------------------------------


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((PROJECT_ROOT / "docker-compose.yml").read_text())
    return loaded


def test_compose_connections_fit_postgres_max_connections() -> None:
    services = compose()["services"]
    app = services["app"]
    command = services["db"]["command"]
    max_connections = int(command[command.index("-c") + 1].removeprefix("max_connections="))
    replicas = interpolated(app["deploy"]["replicas"], {})
    workers = int(app["environment"]["ARBITER_WORKERS"])
    pool = int(app["environment"]["ARBITER_DB_POOL_SIZE"])
    # Per worker: asyncpg's pool for requests, and app/store/database.py's psycopg engine
    # (pool_size=2, no overflow) for readiness; the migration job holds one; PostgreSQL
    # keeps 3 for superusers (superuser_reserved_connections).
    used = replicas * workers * (pool + 2) + 1 + 3
    assert (replicas, workers, pool, max_connections) == (2, 2, 10, 100)
    assert used == 52
    assert used <= max_connections - 40, "leave room for psql, pg_dump and more replicas"


def interpolated(value: Any, env: dict[str, str]) -> int:
    """An integer setting of the compose file: as it is, or `${NAME:-default}` read from
    `env` (an env file's settings) or else its default."""
    if isinstance(value, int):
        return value
    name, _, default = str(value).removeprefix("${").removesuffix("}").partition(":-")
    return int(env.get(name, default))


def env_file(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    pairs = [line.split("=", 1) for line in lines if line and not line.startswith("#")]
    return dict(pairs)


def test_compose_replicas_profile_streams_a_standby_and_fits_the_connections() -> None:
    """The profile `replicas`: a standby copied from `db` by pg_basebackup -R through a slot,
    and deploy/replicas.env's app replicas reading from it, within `db`'s connections."""
    services = compose()["services"]
    standby = services["db-replica"]
    assert standby["profiles"] == ["replicas"]
    script = standby["command"][0]
    assert "pg_basebackup -h db -U arbiter" in script
    assert " -R " in script
    assert "-S db_replica" in script
    assert "hot_standby=on" in script
    assert standby["environment"]["PGPASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    assert any("replication.sh" in volume for volume in services["db"]["volumes"])
    hba = (PROJECT_ROOT / "deploy" / "postgres" / "replication.sh").read_text()
    assert "host replication ${POSTGRES_USER} all scram-sha-256" in hba
    # Without the env file the apps have no replica; with it, they read from db-replica.
    app = services["app"]
    assert app["environment"]["ARBITER_READ_DATABASE_URL"] == "${ARBITER_READ_DATABASE_URL:-}"
    settings = env_file(PROJECT_ROOT / "deploy" / "replicas.env")
    assert settings["ARBITER_READ_DATABASE_URL"].endswith("@db-replica:5432/arbiter")
    replicas = interpolated(app["deploy"]["replicas"], settings)
    workers = int(app["environment"]["ARBITER_WORKERS"])
    pool = int(app["environment"]["ARBITER_DB_POOL_SIZE"])
    # As above, and the standby's WAL sender on `db`.
    used = replicas * workers * (pool + 2) + 1 + 3 + 1
    assert (replicas, used) == (3, 77)
    assert used <= 100 - 20, "leave room for psql and pg_dump"


def test_compose_starts_apps_after_the_migration_job() -> None:
    services = compose()["services"]
    assert services["app"]["depends_on"]["migrate"] == {
        "condition": "service_completed_successfully"
    }
    assert services["migrate"]["command"] == ["python3", "-m", "alembic", "upgrade", "head"]
    assert services["migrate"]["restart"] == "no"
    assert services["proxy"]["depends_on"]["app"] == {"condition": "service_healthy"}
    for name in ("db", "redis", "app", "proxy"):
        assert services[name]["healthcheck"]["start_period"], name


def test_compose_keeps_secrets_out_and_trusts_only_the_proxy() -> None:
    text = (PROJECT_ROOT / "docker-compose.yml").read_text()
    services = compose()["services"]
    for name in ("db", "migrate", "app"):
        environment = services[name]["environment"]
        password = environment.get("POSTGRES_PASSWORD") or environment["PGPASSWORD"]
        assert password.startswith("${POSTGRES_PASSWORD:?"), name
    assert "@db:5432" in text
    assert ":change-me" not in text
    app = services["app"]["environment"]
    proxy_address = services["proxy"]["networks"]["backend"]["ipv4_address"]
    assert app["ARBITER_FORWARDED_ALLOW_IPS"] == proxy_address
    assert app["ARBITER_REDIS_URL"] == "redis://redis:6379/0"
    assert app["PROMETHEUS_MULTIPROC_DIR"] in services["app"]["tmpfs"][0]
    example = (PROJECT_ROOT / "deploy" / ".env.example").read_text()
    assert "POSTGRES_PASSWORD=" in example
    # Verifiable dice on PostgreSQL: no start without the dice key every replica shares.
    assert app["ARBITER_DICE_KEY"].startswith("${ARBITER_DICE_KEY:?")
    assert "ARBITER_DICE_KEY=" in example
    assert (PROJECT_ROOT / "deploy" / ".gitignore").read_text().splitlines()[-1] == ".env"


def test_the_build_context_holds_only_what_the_image_runs() -> None:
    rules = [
        line
        for line in (PROJECT_ROOT / ".dockerignore").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert rules[0] == "*"
    included = {rule[1:].rstrip("/") for rule in rules if rule.startswith("!")}
    assert included == {
        "alembic.ini",
        "pyproject.toml",
        "requirements-runtime.lock",
        "app",
        "migrations",
        "scripts/dev.py",
        # The Foundry VTT module the service serves (app/api/foundry.py): what Foundry loads.
        "clients/foundry/module.json",
        "clients/foundry/scripts",
        "clients/foundry/styles",
        "clients/foundry/lang",
    }
    dockerfile = (PROJECT_ROOT / "Dockerfile").read_text()
    instructions = [line for line in dockerfile.splitlines() if not line.startswith("#")]
    assert [line for line in instructions if ".lock" in line] == [
        "COPY requirements-runtime.lock /tmp/",
        " && /opt/venv/bin/pip install --require-hashes --no-deps"
        " -r /tmp/requirements-runtime.lock \\",
        " && rm /tmp/requirements-runtime.lock",
    ]
    assert "\nUSER 10001\n" in dockerfile
    assert dockerfile.rstrip().endswith('CMD ["python3", "scripts/dev.py", "start"]')


def test_the_runtime_lock_has_no_development_tools() -> None:
    def pins(name: str) -> dict[str, str]:
        found: dict[str, str] = {}
        for line in (PROJECT_ROOT / name).read_text().splitlines():
            if "==" in line and not line.startswith((" ", "#")):
                package, _, version = line.partition("==")
                found[package] = version.split()[0]
        return found

    runtime, full = pins("requirements-runtime.lock"), pins("requirements.lock")
    assert not {"pytest", "mypy", "ruff", "hypothesis", "icepool", "pytest-xdist"} & set(runtime)
    assert {"fastapi", "uvicorn", "sqlalchemy", "alembic", "asyncpg"} <= set(runtime)
    # The same versions as CI tests.
    assert {package: full[package] for package in runtime} == runtime


def test_the_dockerfile_passes_hadolint() -> None:
    """No image can be built here (no engine, no registry for base images): lint it instead."""
    hadolint = Path(sys.executable).parent / "hadolint"
    checked = subprocess.run(
        [str(hadolint), "--no-color", str(PROJECT_ROOT / "Dockerfile")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
