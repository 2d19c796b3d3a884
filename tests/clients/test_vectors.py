"""Both verifiers reproduce the worked vectors of docs/verifiable-dice.md#worked-vectors.

The vectors were computed by docs/vectors/compute.py, a standard-library script written from
the page alone (no code of Arbiter's, its own canonical JSON): this test runs it again, checks
the page's block against its output, then has the Python client's verifier and the table
page's verify.js (under Node.js) recompute every die, digest, genesis, link and the sides of
each expression in notation, and check each session's proof built from the vectors.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from arbiter_client import verify

from tests.requirements import program

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "docs" / "vectors"
PAGE = ROOT / "docs" / "verifiable-dice.md"
VERIFY_JS = ROOT / "app" / "table" / "assets" / "verify.js"


def vectors() -> dict[str, Any]:
    found: dict[str, Any] = json.loads((VECTORS / "vectors.json").read_text(encoding="utf-8"))
    return found


def inputs() -> dict[str, Any]:
    found: dict[str, Any] = json.loads((VECTORS / "inputs.json").read_text(encoding="utf-8"))
    return found


def proof_of(given: dict[str, Any], made: dict[str, Any]) -> dict[str, Any]:
    """A revealed proof assembled from a session's inputs and the vectors computed from them."""
    rounds = []
    for played, computed in zip(given["rounds"], made["rounds"], strict=True):
        rounds.append({**played, "link": computed["link"]})
    return {
        "scheme": "arbiter-verifiable-dice-v1",
        "session": given["session"],
        "kind": given["kind"],
        "status": "finished",
        "revealed": True,
        "commitment": made["commitment"],
        "seeds": given["seeds"],
        "seeds_digest": made["seeds_digest"],
        "seeds_open": False,
        "seeds_link": made["seeds_link"],
        "chain_head": made["chain_head"],
        "rounds_played": len(rounds),
        "genesis": json.loads(made["genesis"]),
        "genesis_link": made["hash_0"],
        "server_seed": made["server_seed"],
        "rounds": rounds,
        "summary": "",
    }


def test_the_script_computes_the_vectors_committed() -> None:
    ran = subprocess.run(
        [sys.executable, str(VECTORS / "compute.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr


def test_the_page_shows_the_vectors_computed() -> None:
    block = re.search(r"```worked-vectors\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert block is not None
    lines = block.group(1).splitlines()
    made = vectors()
    expected = set()
    for session in made["sessions"]:
        name = session["name"]
        for field in ("server_seed", "commitment", "seeds_digest", "hash_0", "seeds_link"):
            expected.add(f"{name} {field}: {session[field]}")
        expected.add(f"{name} chain_head: {session['chain_head']}")
        for record in session["rounds"]:
            expected.add(f"{name} link {record['number']}: {record['link']}")
            for die in record["dice"][:1]:
                expected.add(f"{name} round {record['number']} die message: {die['message']}")
                expected.add(f"{name} round {record['number']} die hmac: {die['hmac']}")
                expected.add(f"{name} round {record['number']} die: {die['die']}")
            for party, sealed in record.get("seals", {}).items():
                number = record["number"]
                expected.add(f"{name} round {number} opening of {party}: {sealed['opening']}")
                expected.add(f"{name} round {number} seal of {party}: {sealed['seal']}")
        for die in session["start_dice"][:1]:
            expected.add(f"{name} start die message: {die['message']}")
            expected.add(f"{name} start die hmac: {die['hmac']}")
            expected.add(f"{name} start die: {die['die']}")
    for entry in made["notation"]:
        tail = "" if entry["exact"] else " at least (rerolls or explosions)"
        expected.add(f"notation {entry['notation']}: sides {json.dumps(entry['sides'])}{tail}")
    for entry in made["replays"]:
        expected.add(
            f"replay {entry['notation']} with {json.dumps(entry['values'])}: "
            f"{'refused' if entry['sides'] is None else 'sides ' + json.dumps(entry['sides'])}"
        )
    assert lines
    assert set(lines) <= expected
    assert any(line.startswith("replay ") for line in lines)
    # One round of each kind, with a server die where the session has one.
    assert sum(" die: " in line for line in lines) >= 6


def test_the_python_verifier_reproduces_every_vector() -> None:
    made = vectors()
    for given, computed in zip(inputs()["sessions"], made["sessions"], strict=True):
        seed = bytes.fromhex(computed["server_seed"])
        assert verify.seeds_digest(given["seeds"]) == computed["seeds_digest"]
        genesis = json.loads(computed["genesis"])
        assert verify.canonical(genesis).decode() == computed["genesis"]
        dice = 0
        for record in [{"number": 0, "dice": computed["start_dice"]}, *computed["rounds"]]:
            for die in record["dice"]:
                place = json.loads(die["message"])
                assert verify.canonical(place).decode() == die["message"]
                _scheme, digest, session, number, who, purpose, index, sides, _counter = place
                derived = verify.derive(seed, digest, session, number, who, purpose, index, sides)
                assert derived == die["die"]
                dice += 1
        report = verify.verify_proof(proof_of(given, computed))
        assert report.problems == [], (given["name"], report.problems)
        assert report.dice_checked == dice
    for entry in made["notation"]:
        assert verify.notation_sides(entry["notation"]) == (entry["sides"], entry["exact"])
        assert verify.sides_follow(entry["notation"], entry["sides"])
    for entry in made["replays"]:
        assert verify.replay_sides(entry["notation"], entry["values"]) == entry["sides"]


def test_the_replays_are_what_the_services_notation_rolls() -> None:
    """Each replay of the vectors, fed its values, is the dice the service's evaluator draws."""
    from app.notation import NotationError, roll_notation

    for entry in vectors()["replays"]:
        given = iter(entry["values"])
        drawn: list[int] = []

        def draw(sides: int, given: Any = given, drawn: list[int] = drawn) -> int:
            drawn.append(sides)
            value = next(given, None)
            if value is None:
                raise NotationError("the values ran out")
            return int(value)

        try:
            roll_notation(entry["notation"], draw)
        except NotationError:
            assert entry["sides"] is None, entry
            continue
        if next(given, None) is not None:
            assert entry["sides"] is None, entry
        else:
            assert drawn == entry["sides"], entry


NODE = """
import {
  canonicalText, derive, hmacKey, notationSides, replaySides, seedsDigest, verifyProof, fromHex,
} from MODULE;
let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const { cases, notation, replays } = JSON.parse(text);
const answers = [];
for (const { proof, computed } of cases) {
  const key = await hmacKey(fromHex(computed.server_seed));
  const dice = [];
  for (const record of [{ dice: computed.start_dice }, ...computed.rounds]) {
    for (const die of record.dice) {
      const [, digest, session, number, who, purpose, index, sides] = JSON.parse(die.message);
      dice.push({
        message: canonicalText(JSON.parse(die.message)),
        die: await derive(key, digest, session, number, who, purpose, index, sides),
      });
    }
  }
  const report = await verifyProof(proof);
  answers.push({
    digest: await seedsDigest(proof.seeds),
    genesis: canonicalText(proof.genesis),
    dice,
    problems: report.problems,
    diceChecked: report.diceChecked,
  });
}
process.stdout.write(JSON.stringify({
  answers,
  notation: notation.map((entry) => notationSides(entry.notation)),
  replays: replays.map((entry) => replaySides(entry.notation, entry.values)),
}));
"""


def test_the_table_pages_verifier_reproduces_every_vector() -> None:
    node = program("node", "install Node.js 20", called="Node.js (node)")
    made = vectors()
    cases = [
        {"proof": proof_of(given, computed), "computed": computed}
        for given, computed in zip(inputs()["sessions"], made["sessions"], strict=True)
    ]
    ran = subprocess.run(
        [node, "--input-type=module", "-e", NODE.replace("MODULE", json.dumps(VERIFY_JS.as_uri()))],
        input=json.dumps(
            {"cases": cases, "notation": made["notation"], "replays": made["replays"]}
        ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout)
    for case, found in zip(cases, answer["answers"], strict=True):
        computed = case["computed"]
        assert found["digest"] == computed["seeds_digest"]
        assert found["genesis"] == computed["genesis"]
        expected = [
            {"message": die["message"], "die": die["die"]}
            for record in [{"dice": computed["start_dice"]}, *computed["rounds"]]
            for die in record["dice"]
        ]
        assert found["dice"] == expected
        assert found["problems"] == [], computed["name"]
        assert found["diceChecked"] == len(expected)
    assert answer["notation"] == [[entry["sides"], entry["exact"]] for entry in made["notation"]]
    assert answer["replays"] == [entry["sides"] for entry in made["replays"]]
