"""The table page's verifier (app/table/assets/verify.js) under Node.js, on real proofs.

The module the page checks dice with has no DOM code, so Node 20 runs it as it is (its
WebCrypto is the browser's API). Finished sessions of every kind, played through the app
(tests/clients/test_verifiable_dice.py's plays), verify with it exactly as with the Python
client's verifier, and a tampered die, link, seed or server seed is named at its place, in
the same words. Without Node.js the tests are skipped with one line, except in CI
(`CI=true`), where they fail (tests/requirements.py).
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from arbiter_client.verify import verify_proof
from fastapi.testclient import TestClient

from tests.clients.test_verifiable_dice import PLAYS, _arm_wrestle, proof_of, sealed_bidding_game
from tests.requirements import program

VERIFY_JS = Path(__file__).resolve().parents[2] / "app" / "table" / "assets" / "verify.js"

#: Reads a JSON list of proofs on standard input, answers the list of verify.js's reports.
RUNNER = """
import { verifyProof, reportLine } from MODULE;
let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const reports = [];
for (const proof of JSON.parse(text)) {
  const report = await verifyProof(proof);
  reports.push({ ...report, line: reportLine(report) });
}
process.stdout.write(JSON.stringify(reports));
"""

#: The doc's worked example (its die 0 to 2), and canonical JSON of awkward keys and strings.
EXAMPLE = """
import { derive, hmacKey, seedsDigest, canonicalText } from MODULE;
const seed = Uint8Array.from({ length: 32 }, (_, index) => index);
const digest = await seedsDigest([
  { by: "gm", seed: "hello" }, { by: "seat:Lydia", seed: "lucky 7" },
]);
const key = await hmacKey(seed);
const session = "0123456789abcdef0123456789abcdef";
const dice = [];
for (const index of [0, 1, 2]) {
  dice.push(await derive(key, digest, session, 1, "Lydia", "strength", index, 6));
}
const odd = canonicalText({
  "b": "\\u00e9\\n\\u0001\\ud83d\\ude00", "a": [1, null, true], "\\uff5e": 0, "\\ud83d\\ude00": 1,
});
console.log(JSON.stringify({ digest, dice, odd }));
"""


def node_verify(*proofs: dict[str, Any]) -> list[dict[str, Any]]:
    """verify.js's report of each proof, run by Node.js."""
    node = program("node", "install Node.js 20", called="Node.js (node)")
    script = RUNNER.replace("MODULE", json.dumps(VERIFY_JS.as_uri()))
    ran = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(list(proofs)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    reports: list[dict[str, Any]] = json.loads(ran.stdout)
    assert len(reports) == len(proofs)
    return reports


def test_the_worked_example_of_the_doc_is_recomputed() -> None:
    """The page's canonical JSON, HMAC and rejection rule give the doc's die 0 (a 3)."""
    node = program("node", "install Node.js 20", called="Node.js (node)")
    script = EXAMPLE.replace("MODULE", json.dumps(VERIFY_JS.as_uri()))
    ran = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout)
    assert answer["digest"] == "47d8778f4934bb119c746811a5c2c2562cc1e2d3ba6e0b1d7dc5d21cb138565a"
    assert answer["dice"] == [3, 5, 4]
    # Keys by code point (U+FF5E before U+1F600, which UTF-16 order would swap), as Python's.
    value = {"b": "é\n\x01😀", "a": [1, None, True], "\uff5e": 0, "😀": 1}
    assert answer["odd"] == json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )


@pytest.fixture
def finished(store_client: TestClient) -> dict[str, Any]:
    """The revealed proof of a finished, seated arm wrestle with seeds, overrides, seats' dice."""
    made = _arm_wrestle(store_client)
    proof = proof_of(store_client, made)
    assert proof["revealed"] is True
    return proof


def test_a_finished_session_of_every_kind_checks_out_as_with_the_python_client(
    store_client: TestClient,
) -> None:
    proofs = [proof_of(store_client, PLAYS[play](store_client)) for play in PLAYS]
    reports = node_verify(*proofs)
    for play, proof, report in zip(PLAYS, proofs, reports, strict=True):
        python = verify_proof(proof)
        assert python.ok, python.text()
        assert report["problems"] == [], (play, report["problems"])
        assert report["ok"] is True
        assert report["rounds"] == [
            {"number": number, "ok": True} for number in range(1, proof["rounds_played"] + 1)
        ]
        assert report["diceChecked"] == python.dice_checked > 0, play
        assert report["roundsChecked"] == python.rounds_checked == proof["rounds_played"] > 0
        assert report["line"] == (
            f"Every die and link checks out ({python.dice_checked} dice, "
            f"{proof['rounds_played']} rounds)."
        )


def test_a_bidding_games_sealed_choices_check_out_for_every_token(
    store_client: TestClient,
) -> None:
    made = sealed_bidding_game(store_client)
    proofs = [proof_of(store_client, made, reader) for reader in ("gm", "Heroes", "Villains")]
    changed = copy.deepcopy(proofs[2])
    changed["rounds"][0]["openings"]["Villains"]["salt"] = "00" * 16
    reports = node_verify(*proofs, changed)
    for proof, report in zip(proofs, reports[:3], strict=True):
        assert report["problems"] == [], report["problems"]
        assert report["roundsChecked"] == verify_proof(proof).rounds_checked == 2
    assert reports[3]["problems"] == verify_proof(changed).problems
    assert reports[3]["problems"] == ["round 1: Villains's opening does not match its seal"]


def _first_rolled(proof: dict[str, Any]) -> tuple[int, int, dict[str, Any]]:
    for index, record in enumerate(proof["rounds"]):
        for position, entry in enumerate(record["dice"]):
            if entry["source"] == "rolled":
                return index, position, entry
    raise AssertionError("no server roll")


def test_a_tampered_die_link_seed_or_server_seed_is_named_at_its_place(
    finished: dict[str, Any],
) -> None:
    index, position, entry = _first_rolled(finished)
    die = copy.deepcopy(finished)
    record = die["rounds"][index]
    value = entry["values"][0]
    sides = int(entry["dice"].split("d")[1])
    changed = value % sides + 1
    record["dice"][position]["values"][0] = changed
    record["outcome"]["rolls"][position]["values"][0] = changed
    number = record["number"]

    relinked = copy.deepcopy(finished)
    relinked["rounds"][1]["link"] = "0" * 64

    reseeded = copy.deepcopy(finished)
    reseeded["seeds"][1]["seed"] = "someone else's"

    other_seed = copy.deepcopy(finished)
    other_seed["server_seed"] = "11" * 32

    dropped = copy.deepcopy(finished)
    dropped["rounds"].pop()

    cases = [die, relinked, reseeded, other_seed, dropped]
    reports = node_verify(*cases)
    for tampered, report in zip(cases, reports, strict=True):
        assert report["ok"] is False
        assert report["problems"] == verify_proof(tampered).problems
    assert reports[0]["problems"] == [
        f"round {number}: its record does not match its link in the chain",
        f"round {number}, roll {position + 1} ({entry['who']}'s {entry['purpose']!r}, "
        f"{entry['dice']}), die 1 (index 0, d{sides}): recorded {changed}, derived {value}",
    ]
    assert reports[0]["line"].startswith(f"2 problem(s): round {number}: its record")
    # The round of the changed die is the one marked, and it alone.
    assert [checked["number"] for checked in reports[0]["rounds"] if not checked["ok"]] == [number]
    assert len(reports[0]["rounds"]) == finished["rounds_played"]
    assert reports[1]["problems"] == [
        "round 2: its record does not match its link in the chain",
        "round 3: its record does not match its link in the chain",
    ]
    assert reports[2]["problems"][:2] == [
        "seeds: seeds_digest is not the digest of the seeds listed",
        "seeds: the seeds listed are not the ones chained (seeds_link)",
    ]
    assert len(reports[2]["problems"]) > 2
    assert all(", die " in problem for problem in reports[2]["problems"][2:])
    assert reports[3]["problems"][0] == "server seed: its SHA-256 is not the commitment"
    assert reports[4]["problems"] == [
        f"rounds: {finished['rounds_played'] - 1} listed, {finished['rounds_played']} played",
        "chain: the last link is not the session's chain head",
    ]


UNREVEALED = """
import { verifyProof, verifyUnrevealed, beforeReveal } from MODULE;
let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const answers = [];
for (const proof of JSON.parse(text)) {
  const report = await verifyUnrevealed(proof);
  answers.push({ report, line: beforeReveal(proof, report), full: await verifyProof(proof) });
}
process.stdout.write(JSON.stringify(answers));
"""


def test_before_the_reveal_the_genesis_and_the_seeds_link_are_checked(
    store_client: TestClient,
) -> None:
    from tests.clients.test_verifiable_dice import ARM_WRESTLE, add_seed
    from tests.helpers import Session

    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"})
    fresh = proof_of(store_client, made)
    add_seed(made, "the GM's", made.gm)
    made.play_round({})
    proof = proof_of(store_client, made)
    assert proof["revealed"] is False
    assert proof["seeds_link"] is not None
    reseeded = copy.deepcopy(proof)
    reseeded["seeds"][0]["seed"] = "not the GM's"
    regenesis = copy.deepcopy(fresh)
    regenesis["genesis"]["config"]["target"] = 20
    node = program("node", "install Node.js 20", called="Node.js (node)")
    ran = subprocess.run(
        [
            node,
            "--input-type=module",
            "-e",
            UNREVEALED.replace("MODULE", json.dumps(VERIFY_JS.as_uri())),
        ],
        input=json.dumps([fresh, proof, reseeded, regenesis]),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    first, played, wrong_seed, wrong_genesis = json.loads(ran.stdout)
    # Before the reveal no die is checked, and the full check says why.
    for answer in (first, played):
        assert answer["report"]["ok"] is True
        assert answer["report"]["diceChecked"] == 0
        assert answer["full"]["problems"] == [
            "the server seed is not revealed yet: the session is still running"
        ]
    head = proof["chain_head"]
    assert played["line"] == (
        "The dice cannot be checked yet: the server's seed is revealed when the session ends. "
        f"Now: its commitment {proof['commitment'][:12]}… is fixed, 1 seed(s) added, "
        f"1 round(s) chained to the head {head[:12]}…. The genesis and the seeds' link check out."
    )
    assert first["line"].endswith(
        " 0 seed(s) added, 0 round(s) chained to the head "
        f"{fresh['chain_head'][:12]}…. The genesis checks out."
    )
    assert wrong_seed["report"]["problems"] == [
        "seeds: seeds_digest is not the digest of the seeds listed",
        "seeds: the seeds listed are not the ones chained (seeds_link)",
    ]
    assert wrong_seed["line"].endswith(
        "2 problem(s): seeds: seeds_digest is not the digest of the seeds listed; "
        "seeds: the seeds listed are not the ones chained (seeds_link)"
    )
    assert wrong_genesis["report"]["problems"] == [
        "genesis: its record does not match its link in the chain"
    ]


KEPT = """
import { remember, verifyProof } from MODULE;
let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const { views, mine, proofs, twice } = JSON.parse(text);
let memory = null;
for (const shown of views) ({ memory } = remember(memory, shown, { kind: "arm-wrestles" }));
({ memory } = remember(memory, null, { mine }));
const reports = [];
for (const proof of proofs) reports.push((await verifyProof(proof, { expected: memory })).problems);
const { conflicts } = remember(memory, twice);
process.stdout.write(JSON.stringify({ memory, reports, conflicts }));
"""


def test_the_page_keeps_the_heads_it_saw_and_checks_the_proof_against_them(
    store_client: TestClient,
) -> None:
    """The table page's memory of a session (verify.js's `remember`, kept in the browser's
    storage by table.js): the commitment, the head after each round it saw, its own seed. A
    proof whose whole chain was rebuilt after a die changed passes every check of the proof
    alone and fails at the first head the page saw."""
    from tests import forger
    from tests.clients.test_verifiable_dice import ARM_WRESTLE, add_seed
    from tests.helpers import Session

    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"})
    views = [made.created]
    add_seed(made, "the GM's own", made.gm)
    views.append(made.get().json())
    for _round in range(3):
        made.play_round({})
        views.append(made.get().json())
    assert made.post("resolve").status_code == 200
    views.append(made.get().json())
    honest = proof_of(store_client, made)
    # Round 2's result changed (its DS) and the whole chain rebuilt over it.
    forged = copy.deepcopy(honest)
    changed = forged["rounds"][1]["outcome"]
    # One more than it was, so the record changes whatever the dice gave (a DS already 0
    # set to 0 would have left the proof honest).
    changed["ds"] = {name: ds + 1 for name, ds in changed["ds"].items()}
    forger.rebuild(forged)
    assert forged["rounds"][1] != honest["rounds"][1]
    assert verify_proof(forged).problems == []
    twice = {**views[3], "chain_head": "ab" * 32}
    node = program("node", "install Node.js 20", called="Node.js (node)")
    ran = subprocess.run(
        [node, "--input-type=module", "-e", KEPT.replace("MODULE", json.dumps(VERIFY_JS.as_uri()))],
        input=json.dumps(
            {
                "views": views,
                "mine": {"by": "gm", "seed": "the GM's own"},
                "proofs": [honest, forged],
                "twice": twice,
            }
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout)
    memory = answer["memory"]
    assert memory["session"] == made.id
    assert memory["kind"] == "arm-wrestles"
    assert memory["commitment"] == made.created["commitment"]
    assert memory["seeds"] == [{"by": "gm", "seed": "the GM's own"}]
    played = honest["rounds_played"]
    # Before the first round the page saw the genesis's link, while seeds were taken.
    assert memory["heads"] == {
        "0": honest["genesis_link"],
        **{str(record["number"]): record["link"] for record in honest["rounds"][:3]},
        str(played): honest["chain_head"],
    }
    honest_problems, forged_problems = answer["reports"]
    assert honest_problems == []
    assert forged_problems == [
        "chain: link 2 is not the head recorded after round 2",
        "chain: link 3 is not the head recorded after round 3",
        f"chain: link {played} is not the head recorded after round {played}",
    ]
    assert answer["conflicts"] == [
        f"chain: the head shown after round {views[3]['round']} is not the one shown before"
    ]


#: The page's lines of a report in a language: i18n.js with a catalog as the page loads it.
IN_A_LANGUAGE = """
import { reportLine, beforeReveal } from MODULE;
import { t, useCatalog } from I18N;
const [catalog, tag] = JSON.parse(process.argv[1]);
useCatalog(catalog, tag);
const proof = {
  commitment: "abcdef0123456789", seeds: [{}], rounds_played: 2,
  chain_head: "0123456789abcdef", seeds_link: "x",
};
const problem = "round 1: its record does not match its link in the chain";
process.stdout.write(JSON.stringify([
  reportLine({ ok: true, diceChecked: 1234, roundsChecked: 2 }, t),
  reportLine({ ok: false, problems: [problem] }, t),
  beforeReveal(proof, { ok: true }, t),
]));
"""


@pytest.mark.parametrize(
    ("tag", "lines"),
    [
        (
            "de",
            [
                "Jeder Würfel und jedes Glied stimmt (1234 Würfel, 2 Runden).",
                "1 Problem(e): round 1: its record does not match its link in the chain",
                "Die Würfel können noch nicht geprüft werden: der Seed des Servers wird "
                "offengelegt, wenn die Sitzung endet. Jetzt: seine Festlegung abcdef012345… "
                "steht fest, 1 Seed(s) hinzugefügt, 2 Runde(n) verkettet bis zum Kopf "
                "0123456789ab…. Die Genesis und das Glied der Seeds stimmen.",
            ],
        ),
        (
            "pt-BR",
            [
                "Cada dado e cada elo conferem (1234 dados, 2 rodadas).",
                "1 problema(s): round 1: its record does not match its link in the chain",
                "Os dados ainda não podem ser verificados: a semente do servidor é revelada "
                "quando a sessão termina. Agora: seu compromisso abcdef012345… está fixado, 1 "
                "semente(s) adicionada(s), 2 rodada(s) encadeada(s) até a cabeça "
                "0123456789ab…. A gênese e o elo das sementes conferem.",
            ],
        ),
    ],
)
def test_the_pages_check_of_the_dice_speaks_its_language(
    client: TestClient, tag: str, lines: list[str]
) -> None:
    """verify.js's lines through the page's catalog (`/table/messages/{tag}.json`) in its
    `t`; the problems as the verifier words them, as the Python client's are."""
    catalog = client.get(f"/table/messages/{tag}.json").json()
    node = program("node", "install Node.js 20", called="Node.js (node)")
    script = IN_A_LANGUAGE.replace("MODULE", json.dumps(VERIFY_JS.as_uri())).replace(
        "I18N", json.dumps((VERIFY_JS.parent / "i18n.js").as_uri())
    )
    ran = subprocess.run(
        [node, "--input-type=module", "-e", script, json.dumps([catalog, tag])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == lines
