"""`python -m arbiter_client verify URL --token T` against a live server (one uvicorn process).

The client's operations create a verifiable race, add a seed and resolve it; the command,
run as a user would run it, fetches the proof over HTTP (every page) and finds everything
matching, then, once a die is changed in the store, names that die and its record (exit 1).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from arbiter_client import Arbiter
from arbiter_client import operations as ops
from arbiter_client.__main__ import parse
from arbiter_client.verify import fetch_proof, verify

from app.api.kinds.registry import KINDS
from app.store.database import upgrade_to_head
from tests.clients import CLIENT_ROOT
from tests.store.servers import running_servers

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("verify-server")
    database = folder / "arbiter.db"
    url = f"sqlite:///{database}"
    upgrade_to_head(url)
    with running_servers(url, 1, folder) as (server,):
        yield server.base_url, database


def command(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arbiter_client", *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=CLIENT_ROOT,
        env={**os.environ, "PYTHONPATH": str(CLIENT_ROOT)},
        check=False,
    )


def test_the_command_verifies_a_race_and_names_a_changed_die(served: tuple[str, Path]) -> None:
    base_url, database = served
    with Arbiter(base_url) as arbiter:
        body: dict[str, Any] = {**KINDS["races"].examples.create, "dice": "verifiable"}
        created = arbiter.send(ops.races.create(body)).body
        assert created.dice == "verifiable"
        assert created.tokens is not None
        token = created.tokens.gm
        added = arbiter.send(ops.races.add_seed(created.id, "a racer's luck"), token=token).body
        assert [seed.by for seed in added.seeds] == ["gm"]
        running = arbiter.send(ops.races.proof(created.id), token=token).body
        assert running.revealed is False
        assert running.server_seed is None
        arbiter.send(ops.races.resolve(created.id), token=token)
        revealed = arbiter.send(ops.races.proof(created.id, limit=1), token=token).body
        assert revealed.revealed is True
        assert revealed.rounds is not None
        assert len(revealed.rounds) == 1
    url = f"{base_url}/v1/races/{created.id}"
    assert verify(url, token).ok
    checked = command("verify", url, "--token", token)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.endswith(": everything matches.\n")
    assert f"session {created.id}: {revealed.rounds_played} round(s)" in checked.stdout
    # Against what the player recorded: the commitment and the head at creation, the head
    # once the race was over, its own seed.
    assert created.commitment is not None
    assert created.chain_head is not None
    recorded = [
        *("--expect-commitment", created.commitment),
        *("--expect-head", f"0={created.chain_head}"),
        *("--expect-head", f"{revealed.rounds_played}={revealed.chain_head}"),
        *("--expect-seed", "gm=a racer's luck"),
    ]
    assert command("verify", url, "--token", token, *recorded).returncode == 0
    # A head recorded after round 1 that is not the chain's link 1 (not only the last link).
    assert revealed.rounds_played > 1
    elsewhere = command("verify", url, "--token", token, "--expect-head", f"1={'ab' * 32}")
    assert elsewhere.returncode == 1, elsewhere.stdout + elsewhere.stderr
    assert elsewhere.stdout.splitlines()[1:] == [
        "chain: link 1 is not the head recorded after round 1"
    ]
    dropped = command("verify", url, "--token", token, "--expect-seed", "seat:Ann=mine")
    assert dropped.stdout.splitlines()[1:] == [
        "seeds: seat:Ann's seed is not among the seeds listed"
    ]

    with sqlite3.connect(database) as connection:
        number, dice = connection.execute(
            "SELECT number, dice FROM rounds WHERE session_id = ? ORDER BY number LIMIT 1",
            (created.id,),
        ).fetchone()
        rolls = orjson.loads(dice)
        position, entry = next(
            (position, entry)
            for position, entry in enumerate(rolls)
            if entry["source"] == "rolled" and "sides" not in entry
        )
        sides = int(entry["dice"].split("d")[1])
        value = entry["values"][0]
        entry["values"][0] = value % sides + 1
        connection.execute(
            "UPDATE rounds SET dice = ? WHERE session_id = ? AND number = ?",
            (orjson.dumps(rolls).decode(), created.id, number),
        )
    tampered = command("verify", url, "--token", token)
    assert tampered.returncode == 1, tampered.stdout + tampered.stderr
    lines = tampered.stdout.splitlines()
    assert lines[0].endswith(": 3 problem(s)")
    assert lines[1:] == [
        f"round {number}: its record does not match its link in the chain",
        f"round {number}: the outcome's rolls are not the round's dice",
        f"round {number}, roll {position + 1} ({entry['who']}'s {entry['purpose']!r}, "
        f"{entry['dice']}), die 1 (index 0, d{sides}): recorded {value % sides + 1}, "
        f"derived {value}",
    ]


def test_a_chain_rebuilt_in_the_store_passes_alone_and_fails_at_the_head_recorded(
    served: tuple[str, Path],
) -> None:
    """A dishonest server: once the race is over it changes round 1's result in its store and
    rebuilds every link after it and the session's head (tests/forger.py's chain). The proof
    is consistent with itself and the rounds served say the same, so the command alone finds
    nothing; given the head the player recorded after round 1, it names that link."""
    from tests import forger

    base_url, database = served
    with Arbiter(base_url) as arbiter:
        body: dict[str, Any] = {**KINDS["races"].examples.create, "dice": "verifiable"}
        created = arbiter.send(ops.races.create(body)).body
        assert created.tokens is not None
        token = created.tokens.gm
        arbiter.send(ops.races.add_seed(created.id, "mine"), token=token)
        arbiter.send(ops.races.resolve(created.id), token=token)
    url = f"{base_url}/v1/races/{created.id}"
    honest = fetch_proof(url, token)
    assert honest["rounds_played"] > 1
    recorded = [f"1={honest['rounds'][0]['link']}", f"0={honest['seeds_link']}"]
    with sqlite3.connect(database) as connection:
        rows = connection.execute(
            "SELECT number, inputs, dice, outcome FROM rounds WHERE session_id = ? ORDER BY number",
            (created.id,),
        ).fetchall()
        head = honest["seeds_link"]
        for number, inputs, dice, outcome in rows:
            record = orjson.loads(outcome)
            if number == 1:
                for standing in record["competitors"].values():
                    standing["gained"] += 1
            head = forger.chain(
                head,
                {
                    "number": number,
                    "inputs": orjson.loads(inputs),
                    "dice": orjson.loads(dice),
                    "outcome": record,
                },
            )
            connection.execute(
                "UPDATE rounds SET outcome = ?, link = ? WHERE session_id = ? AND number = ?",
                (orjson.dumps(record).decode(), head, created.id, number),
            )
        (state,) = connection.execute(
            "SELECT state FROM sessions WHERE id = ?", (created.id,)
        ).fetchone()
        stored = orjson.loads(state)
        stored["verifiable"]["head"] = head
        connection.execute(
            "UPDATE sessions SET state = ? WHERE id = ?",
            (orjson.dumps(stored).decode(), created.id),
        )
    alone = command("verify", url, "--token", token)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    caught = command(
        "verify", url, "--token", token, *(f"--expect-head={head}" for head in recorded)
    )
    assert caught.returncode == 1, caught.stdout + caught.stderr
    assert caught.stdout.splitlines()[1:] == [
        "chain: link 1 is not the head recorded after round 1"
    ]


def test_a_running_session_is_checked_as_far_as_it_can_be(served: tuple[str, Path]) -> None:
    base_url, _database = served
    with Arbiter(base_url) as arbiter:
        body: dict[str, Any] = {**KINDS["races"].examples.create, "dice": "verifiable"}
        created = arbiter.send(ops.races.create(body)).body
        assert created.tokens is not None
        assert created.chain_head is not None
        token = created.tokens.gm
    url = f"{base_url}/v1/races/{created.id}"
    waiting = command("verify", url, "--token", token, "--expect-head", f"0={created.chain_head}")
    assert waiting.returncode == 3, waiting.stdout + waiting.stderr
    lines = waiting.stdout.splitlines()
    assert lines[1:] == [
        "the server seed is not revealed yet: the session is still running",
        "left for the reveal: the server seed, and with it every server die and the links of "
        f"0 round(s) to the head {created.chain_head[:16]}…",
    ]
    wrong = command("verify", url, "--token", token, "--expect-head", f"0={'cd' * 32}")
    assert wrong.returncode == 1


def test_the_command_says_when_it_cannot_read_the_proof(served: tuple[str, Path]) -> None:
    base_url, _database = served
    missing = command("verify", f"{base_url}/v1/races/{'0' * 32}", "--token", "nobody")
    assert missing.returncode == 2
    assert "cannot read the proof: HTTP Error 404" in missing.stderr


@pytest.mark.parametrize(
    "arguments",
    [
        ["verify", "http://host/v1/races/r1", "--token", "-Xk2_a"],
        ["verify", "--token", "-Xk2_a", "http://host/v1/races/r1"],
        ["verify", "http://host/v1/races/r1", "--token=-Xk2_a"],
        ["verify", "http://host/v1/races/r1", "--token", "-Xk2_a", "--expect-seed", "gm=-x"],
    ],
)
def test_a_token_beginning_with_a_dash_is_read_as_the_token(arguments: list[str]) -> None:
    # One token in 64 begins with "-" (URL-safe base64): argparse alone refuses it.
    options = parse(arguments)
    assert (options.url, options.token) == ("http://host/v1/races/r1", "-Xk2_a")


def test_a_missing_token_is_refused_with_the_usage() -> None:
    with pytest.raises(SystemExit) as refused:
        parse(["verify", "http://host/v1/races/r1", "--token"])
    assert refused.value.code == 2
