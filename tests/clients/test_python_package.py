"""The Python client as people get it: installed with pip from `clients/python`, and its examples
(`clients/python/examples/*.py`, shown in its README) run against a live server with that
installed package.

pip builds the package from a copy of the folder (a build writes `build/` and `*.egg-info` beside
its sources) into a target folder of its own, with `--no-deps` (httpx and pydantic are the
project's too); the build backend comes from the package index, as it does for anyone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.rules import arm_wrestling, serial
from app.rules.dice import Dice
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import gurps as gurps_odds
from app.store.database import upgrade_to_head
from tests.clients import CLIENT_ROOT
from tests.helpers import NoServerDice
from tests.store.servers import running_servers

pytestmark = pytest.mark.slow

EXAMPLES = CLIENT_ROOT / "examples"
README = CLIENT_ROOT / "README.md"


def python(
    *arguments: str | Path, site: Path, cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The project's interpreter with the installed package first on its path."""
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, *map(str, arguments)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder the package is installed into by `pip install --no-deps --target`."""
    folder = tmp_path_factory.mktemp("python-package")
    source = folder / "python"
    shutil.copytree(
        CLIENT_ROOT, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info")
    )
    target = folder / "site"
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet"]
    installed = subprocess.run(
        [*pip, "--target", target, source],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return target


def test_the_installed_package_imports_with_its_version_and_types(
    site: Path, tmp_path: Path
) -> None:
    shown = python(
        "-c",
        "import importlib.metadata, pathlib, arbiter_client\n"
        "from arbiter_client import Arbiter, models, operations\n"
        "package = pathlib.Path(arbiter_client.__file__).parent\n"
        "print(package)\n"
        "print(importlib.metadata.version('arbiter-client'))\n"
        "print((package / 'py.typed').exists(), models.QuickContestAnswer.__name__)\n",
        site=site,
        cwd=tmp_path,
    )

    assert shown.returncode == 0, shown.stderr
    package, version, typed = shown.stdout.splitlines()
    assert Path(package) == site / "arbiter_client"
    project = tomllib.loads((CLIENT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert version == project["project"]["version"] == "0.1.0"
    assert typed == "True QuickContestAnswer"
    assert not (site / "examples").exists()  # the package only, not the folder around it


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One live server on a migrated SQLite database."""
    folder = tmp_path_factory.mktemp("python-examples-server")
    url = f"sqlite:///{folder / 'arbiter.db'}"
    upgrade_to_head(url)
    with running_servers(url, 1, folder) as (server,):
        yield server.base_url


def run_example(name: str, site: Path, base_url: str) -> list[str]:
    ran = python(EXAMPLES / name, base_url, site=site, cwd=EXAMPLES)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return ran.stdout.splitlines()


def test_the_readme_shows_every_example() -> None:
    readme = README.read_text(encoding="utf-8")
    examples = sorted(path.name for path in EXAMPLES.glob("*.py"))

    assert examples == ["arm_wrestle.py", "odds.py", "quick_contest.py"]
    for name in examples:
        assert f"examples/{name}" in readme, name
    assert 'pip install "git+' in readme
    assert "#subdirectory=clients/python" in readme


def test_the_quick_contest_example(site: Path, base_url: str) -> None:
    lines = run_example("quick_contest.py", site, base_url)

    # Ann's dice as supplied; Bob's rolled by the server from the example's seed (20).
    assert lines == [
        "Ann (skill 12) rolled 9, made it by 3; Bob (skill 10) rolled 11, missed by 1. "
        "Ann wins by 4.",
        "Ann: [2, 3, 4] (supplied)",
        "Bob: [3, 5, 3] (rolled)",
        "winner: Ann, by 4",
    ]


def test_the_arm_wrestle_example(site: Path, base_url: str) -> None:
    lines = run_example("arm_wrestle.py", site, base_url)

    assert re.fullmatch(r"created /v1/arm-wrestles/[0-9a-f]{32} at version 1", lines[0])
    assert lines[1:7] == [
        "Round 1: Lydia beats Ogre by 5: Lydia's DS rises to 5 (Lydia 5, Ogre 0; Lydia leads).",
        "version 2, replayed: False",
        "retried: version 2, replayed: True",
        '412 Precondition Failed: If-Match "1" is stale: the session is at version 2',
        "422 at ['body', 'rolls', 'Lydia', 'strength']: Input should be less than or equal to 20",
        lines[6],
    ]
    # Server dice from there: the last round's summary, numbered as the rounds played.
    finished = re.fullmatch(r"finished after (\d+) rounds: Round (\d+): .+\.", lines[6])
    assert finished is not None, lines[6]
    assert finished[1] == finished[2]
    assert int(finished[1]) > 1
    assert lines[7:] == ["deleted: 204"]


def test_the_odds_example(site: Path, base_url: str) -> None:
    quick_a, quick_b, session = run_example("odds.py", site, base_url)

    exact = gurps_odds.quick_contest_odds(12, 10)
    assert quick_a == f"Ann wins {exact.a_wins} ({float(exact.a_wins):.4f})"
    assert quick_b == f"Bob wins {exact.b_wins} ({float(exact.b_wins):.4f})"
    assert (quick_a, quick_b) == ("Ann wins 9905/15552 (0.6369)", "Bob wins 4345/15552 (0.2794)")
    # The match after the example's round 1 (Lydia 17 v Ogre 8), played by the rules.
    config = serial.load(
        arm_wrestling.Config,
        {
            "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
            "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
        },
    )
    dice = Dice(NoServerDice(), {("Lydia", "strength"): [17], ("Ogre", "strength"): [8]})
    after, _ = arm_wrestling.play_round(config, arm_wrestling.start(config, dice), dice)
    lydia = arm_odds.exact_odds(config, after).a_wins
    assert session == f"after round 1: Lydia wins {lydia} ({float(lydia):.3f}, exact)"
