#!/usr/bin/env python3
"""Arbiter's one entry point for developers and CI; needs nothing but Python 3.11+.

    python3 scripts/dev.py serve     # install (first time), migrate, serve on :8000
    python3 scripts/dev.py start     # serve with the interpreter running this (the image's
                                     # command): migrates only when ARBITER_MIGRATE=1
    python3 scripts/dev.py test      # install (first time), run the whole test suite
    python3 scripts/dev.py check     # lint, types, then the tests
    python3 scripts/dev.py migrate   # apply migrations to DATABASE_URL
    python3 scripts/dev.py bench     # benchmarks (bench/), not tests
    python3 scripts/dev.py failover [RUNS]   # the failover test RUNS times (1), with its
                                     # figures (needs pg_autoctl: see docs/reference.md)
    python3 scripts/dev.py extract   # the message catalogs' templates (app/locale/*.pot)
    python3 scripts/dev.py update    # each language's catalog (.po) from the templates
    python3 scripts/dev.py compile   # each catalog compiled (.mo, committed beside it)
    python3 scripts/dev.py init LANG # a new language's catalogs (docs/languages.md)

The first command creates `.venv` and installs the pinned, hash-checked dependencies of
`requirements.lock`; later runs reinstall only when the lock file changes.

Serving reads, besides the app's own settings (app/settings.py):
    ARBITER_HOST, ARBITER_PORT          where to listen (127.0.0.1, 8000)
    ARBITER_WORKERS                     worker processes (1); more than one on SQLite is
                                        refused unless ARBITER_ALLOW_SQLITE_WORKERS=1
    ARBITER_FORWARDED_ALLOW_IPS         proxies trusted with X-Forwarded-For (none)
    ARBITER_KEEP_ALIVE_SECONDS          idle keep-alive connections closed after (5)
    ARBITER_GRACEFUL_SHUTDOWN_SECONDS   in-flight requests' time to finish on SIGTERM (20)
    PROMETHEUS_MULTIPROC_DIR            with several workers: where their metrics meet (emptied
                                        at start; var/prometheus-<port> when unset)
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
import venv
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
LOCK = ROOT / "requirements.lock"
STAMP = VENV / ".arbiter-lock-sha256"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
VAR = ROOT / "var"
#: What app/settings.py serves when DATABASE_URL is unset.
DEFAULT_DATABASE_URL = "sqlite:///./var/arbiter.db"
SQLITE_WORKERS_REFUSED = (
    "refusing to serve SQLite with {workers} workers: SQLite lets one process write at a time,\n"
    "so each worker's writers would queue behind the others' (and its rate limit and metrics\n"
    "would be its own). Use ARBITER_WORKERS=1, or PostgreSQL (DATABASE_URL=postgresql://...),\n"
    "or set ARBITER_ALLOW_SQLITE_WORKERS=1 to serve anyway."
)


def run(*args: str | Path, env: dict[str, str] | None = None) -> None:
    completed = subprocess.run([str(arg) for arg in args], cwd=ROOT, env=env, check=False)
    if completed.returncode != 0:
        sys.exit(completed.returncode)


def ensure_environment() -> None:
    """Create .venv and install the locked dependencies when missing or out of date."""
    if sys.version_info < (3, 11):  # noqa: UP036 - a clear message for an older python3
        sys.exit("Arbiter needs Python 3.11 or newer")
    if not PYTHON.exists():
        print("creating .venv ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    wanted = hashlib.sha256(LOCK.read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == wanted:
        return
    started = time.monotonic()
    packages = sum(1 for line in LOCK.read_text().splitlines() if "==" in line)
    print(
        f"installing {packages} locked dependencies (a minute or two the first time) ...",
        flush=True,
    )
    install(packages)
    STAMP.write_text(wanted)
    print(f"installed in {time.monotonic() - started:.0f} s", flush=True)


#: A progress line every this many packages fetched.
PROGRESS_EVERY = 20


def install(packages: int) -> None:
    """pip install the lock, with a line every `PROGRESS_EVERY` packages (pip's own lines are
    kept back, and printed whole if it fails)."""
    pip = subprocess.Popen(
        [
            str(PYTHON),
            "-m",
            "pip",
            "install",
            "--progress-bar",
            "off",
            "--disable-pip-version-check",
            "--require-hashes",
            "--no-deps",
            "-r",
            str(LOCK),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert pip.stdout is not None
    said: list[str] = []
    fetched = 0
    for line in pip.stdout:
        said.append(line)
        if line.startswith("Collecting "):
            fetched += 1
            if fetched % PROGRESS_EVERY == 0:
                print(f"  {fetched}/{packages} packages fetched", flush=True)
        elif line.startswith("Installing collected packages"):
            print(f"  {fetched}/{packages} packages fetched; unpacking them ...", flush=True)
    if pip.wait() != 0:
        sys.stdout.write("".join(said))
        sys.exit(pip.returncode)


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


def migrate(python: Path | str = PYTHON) -> None:
    """Apply the migrations; an unreachable or missing database ends this with one line
    saying what to do (migrations/env.py), not a traceback."""
    run(python, "-m", "alembic", "upgrade", "head")


def port_taken(host: str, port: int) -> str | None:
    """One line saying what to do when `host:port` cannot be listened on; else None.

    Tried as uvicorn binds (SO_REUSEADDR), just before it; uvicorn's own `[Errno 98]` says
    nothing of ARBITER_PORT."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is taken (another Arbiter, or another program: "
                    f"`ss -ltnp 'sport = :{port}'` names it); stop it, or serve on another "
                    f"port: ARBITER_PORT={port + 1} python3 scripts/dev.py serve"
                )
            return f"cannot listen on {host}:{port} ({exc.strerror}); set ARBITER_HOST/ARBITER_PORT"
    return None


def database_url(env: Mapping[str, str]) -> str:
    """The database the app will use (app/settings.py reads the same variables, in this order)."""
    return env.get("DATABASE_URL") or env.get("ARBITER_DATABASE_URL") or DEFAULT_DATABASE_URL


def without_credentials(url: str) -> str:
    """`url` with no user name or password in it, for a progress line."""
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"


def uvicorn_arguments(env: Mapping[str, str]) -> list[str]:
    """uvicorn's command-line arguments for serving with `env`; exits with a message when `env`
    asks for several workers on SQLite without ARBITER_ALLOW_SQLITE_WORKERS=1."""
    workers = int(env.get("ARBITER_WORKERS", "1"))
    if (
        workers > 1
        and database_url(env).startswith("sqlite")
        and env.get("ARBITER_ALLOW_SQLITE_WORKERS") != "1"
    ):
        sys.exit(SQLITE_WORKERS_REFUSED.format(workers=workers))
    arguments = [
        "app.main:create_app",
        "--factory",
        "--host",
        env.get("ARBITER_HOST", "127.0.0.1"),
        "--port",
        env.get("ARBITER_PORT", "8000"),
        "--workers",
        str(workers),
        "--no-access-log",
        # uvicorn's protocol with limits on a request's headers: size, count, time.
        "--http",
        "app.serving:GuardedHttpTools",
        "--timeout-keep-alive",
        env.get("ARBITER_KEEP_ALIVE_SECONDS", "5"),
        "--timeout-graceful-shutdown",
        env.get("ARBITER_GRACEFUL_SHUTDOWN_SECONDS", "20"),
    ]
    trusted = env.get("ARBITER_FORWARDED_ALLOW_IPS", "").strip()
    # The app reads X-Forwarded-For itself (the same setting); uvicorn must not rewrite the
    # client first, and its default trusts 127.0.0.1, i.e. anyone on the host.
    if trusted:
        arguments += ["--forwarded-allow-ips", trusted]
    else:
        arguments.append("--no-proxy-headers")
    return arguments


def metrics_directory(env: Mapping[str, str]) -> str:
    """Where several workers' metrics meet, emptied of an earlier run's files (prometheus-client
    would add them in): PROMETHEUS_MULTIPROC_DIR, else var/prometheus-<port>."""
    given = env.get("PROMETHEUS_MULTIPROC_DIR")
    if given:
        directory = Path(given)
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob("*.db"):
            stale.unlink()
        return str(directory)
    # One per port: a second server from this checkout on another port keeps its own.
    directory = VAR / f"prometheus-{env.get('ARBITER_PORT', '8000')}"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return str(directory)


def serve(python: Path | str = PYTHON, *, migrating: bool = True) -> None:
    env = environment()
    arguments = uvicorn_arguments(env)
    host, port = env.get("ARBITER_HOST", "127.0.0.1"), env.get("ARBITER_PORT", "8000")
    taken = port_taken(host, int(port))
    if taken:
        sys.exit(taken)
    if int(env.get("ARBITER_WORKERS", "1")) > 1:
        env["PROMETHEUS_MULTIPROC_DIR"] = metrics_directory(env)
    if migrating:
        print(f"migrating {without_credentials(database_url(env))} ...", flush=True)
        migrate(python)
    # The bounded arm-wrestle walk's compiled kernel, so that the first long question after a
    # start is not kept past its deadline by the compiler. numba caches it on disk beside its
    # source (app/numeric/__pycache__), keyed by that file's path and time: compiled once per
    # clone (and again when the kernel's source changes), not once per machine.
    started = time.monotonic()
    print(
        "loading the odds kernel (compiled the first time in a clone: up to a minute) ...",
        flush=True,
    )
    run(python, "-c", "from app.numeric.arm_wrestling import warm; warm()")
    print(f"odds kernel ready in {time.monotonic() - started:.0f} s", flush=True)
    print(f"Arbiter on http://{host}:{port} (docs at /docs)", flush=True)
    os.execve(str(python), [str(python), "-m", "uvicorn", *arguments], env)


def test(extra: list[str]) -> None:
    workers = os.environ.get("ARBITER_TEST_WORKERS", "auto")
    # worksteal: a worker whose tests are done takes queued ones from the other, so that the
    # suite does not end with one core waiting while the other runs the last long module.
    run(PYTHON, "-m", "pytest", "-n", workers, "--dist", "worksteal", *extra)


def lint() -> None:
    run(PYTHON, "-m", "ruff", "check", ".")
    run(PYTHON, "-m", "ruff", "format", "--check", ".")
    run(PYTHON, "-m", "mypy")


def bench(extra: list[str]) -> None:
    """Throughput and latency against a bare app (bench/run.py), the odds (bench/odds.py), the
    odds worker under load (bench/odds_worker.py), then live events at scale and a hung Redis
    (bench/events.py)."""
    run(PYTHON, "bench/run.py", *extra)
    run(PYTHON, "bench/odds.py")
    run(PYTHON, "bench/odds_worker.py")
    run(PYTHON, "bench/events.py")


def failover(extra: list[str]) -> None:
    """The failover test (tests/store/test_failover.py) `RUNS` times in a row, each logging
    its figures: acknowledged rounds stored, seconds until the service served again."""
    runs = int(extra.pop(0)) if extra and extra[0].isdigit() else 1
    for _ in range(runs):
        run(
            PYTHON,
            "-m",
            "pytest",
            "-p",
            "no:xdist",
            "-q",
            "-o",
            "log_cli=true",
            "--log-cli-level=INFO",
            "tests/store/test_failover.py",
            *extra,
        )


LOCALE = ROOT / "app" / "locale"
#: The catalogs' domains: the service's messages (its Python) and the table page's strings.
DOMAINS = ("arbiter", "table")
#: The message keywords of extraction: a summary's sentence `m(template, ...)`, one with a
#: plural `ng(singular, plural, count, ...)`, a word of the rules `N_(word)`, problem details
#: `_(text)`; and in the table page's modules, `t(text, {...})` (babel.cfg adds the page's
#: plural `tn(one, other, count, {...})`).
KEYWORDS = ("m", "ng:1,2", "N_", "_", "t")


def pybabel(*args: str | Path) -> None:
    run(PYTHON, "-m", "babel.messages.frontend", *args)


def extract(into: Path = LOCALE) -> None:
    """The templates: `arbiter.pot` from app/ (the page's modules left out), `table.pot` from
    the table page's modules (babel.cfg says which extractor reads which file)."""
    keywords = [f"--keyword={keyword}" for keyword in KEYWORDS]
    common = ["-F", "babel.cfg", "--no-default-keywords", *keywords, "--sort-by-file"]
    common += ["--project=Arbiter", "--copyright-holder=Arbiter", "--no-wrap"]
    # babel.cfg's patterns are paths from the directory walked (here, the clone's root).
    ignored = "--ignore-dirs=.* _* assets locale node_modules var"
    pybabel("extract", *common, ignored, "-o", into / "arbiter.pot", ".")
    # Files named one by one are matched by their path from here.
    pages = sorted(str(path.relative_to(ROOT)) for path in ROOT.glob("app/table/assets/*.js"))
    pybabel("extract", *common, "-o", into / "table.pot", *pages)


def update() -> None:
    """Each language's catalogs from the templates (new messages empty, changed ones fuzzy,
    those the code no longer has dropped)."""
    for domain in DOMAINS:
        template = LOCALE / f"{domain}.pot"
        pybabel(
            "update", "--no-wrap", "--ignore-obsolete", "-D", domain, "-i", template, "-d", LOCALE
        )


def compile_catalogs() -> None:
    """Each catalog compiled (`.mo`), refusing fuzzy translations."""
    for domain in DOMAINS:
        pybabel("compile", "--statistics", "-D", domain, "-d", LOCALE)


def init(language: str) -> None:
    """A new language's catalogs, from the templates."""
    for domain in DOMAINS:
        pybabel(
            "init",
            "--no-wrap",
            "-D",
            domain,
            "-i",
            LOCALE / f"{domain}.pot",
            "-d",
            LOCALE,
            "-l",
            language.replace("-", "_"),
        )


def main() -> None:
    command, *extra = sys.argv[1:] or ["help"]
    if command in ("help", "-h", "--help"):
        print(__doc__)
        return
    if command == "start":
        # The image: its dependencies are installed already; a one-shot job migrates.
        serve(sys.executable, migrating=os.environ.get("ARBITER_MIGRATE") == "1")
        return
    ensure_environment()
    if command == "serve":
        serve()
    elif command == "test":
        test(extra)
    elif command == "check":
        lint()
        test(extra)
    elif command == "lint":
        lint()
    elif command == "migrate":
        migrate()
    elif command == "bench":
        bench(extra)
    elif command == "failover":
        failover(extra)
    elif command == "extract":
        extract()
    elif command == "update":
        update()
    elif command == "compile":
        compile_catalogs()
    elif command == "init" and extra:
        init(extra[0])
    else:
        sys.exit(
            f"unknown command {command!r}; "
            "try: serve, start, test, check, lint, migrate, bench, failover, "
            "extract, update, compile, init LANG"
        )


if __name__ == "__main__":
    main()
