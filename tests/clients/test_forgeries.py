"""Both verifiers against a dishonest server (tests/forger.py), on real proofs of every kind.

Every forgery rebuilds the whole chain after its change, so no link is left broken for the
verifiers to trip on: each must be named by what the page requires of the records themselves
or, for a forgery no proof can expose alone (a seed dropped and every die derived again,
another server seed, rounds replayed), by what the player recorded during play — the
commitment, the heads, its own seed. The Python client's verifier and the table page's
(verify.js, under Node.js) must report the same problems, and hypothesis mutates real proofs
anywhere: every mutation is reported by both, or leaves the proof meaning the same, and neither
verifier ever crashes.
"""

from __future__ import annotations

import contextlib
import copy
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arbiter_client.verify import Expected, verify_proof
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api.kinds.registry import KINDS
from tests import forger, verifier_from_doc
from tests.clients.test_verifiable_dice import PLAYS, sealed_bidding_game
from tests.helpers import Session, bearer
from tests.requirements import program

VERIFY_JS = Path(__file__).resolve().parents[2] / "app" / "table" / "assets" / "verify.js"

#: Reads a JSON list of cases `{proof, expected, served}`, answers verify.js's reports.
RUNNER = """
import { verifyProof } from MODULE;
let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const reports = [];
for (const { proof, expected, served } of JSON.parse(text)) {
  try {
    reports.push(await verifyProof(proof, { expected, served }));
  } catch (error) {
    reports.push({ crashed: String(error && error.stack) });
  }
}
process.stdout.write(JSON.stringify(reports));
"""


def node_reports(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    node = program("node", "install Node.js 20", called="Node.js (node)")
    ran = subprocess.run(
        [
            node,
            "--input-type=module",
            "-e",
            RUNNER.replace("MODULE", json.dumps(VERIFY_JS.as_uri())),
        ],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    reports: list[dict[str, Any]] = json.loads(ran.stdout)
    assert len(reports) == len(cases)
    for report in reports:
        assert "crashed" not in report, report
    return reports


class Played:
    """A finished session's proof as one token reads it, the rounds it was served and what its
    player recorded during play."""

    def __init__(self, name: str, made: Session, who: str = "gm") -> None:
        self.name = name
        token = made.token(who)
        answer = made.client.get(f"{made.url}/proof", params={"limit": 500}, headers=bearer(token))
        assert answer.status_code == 200, answer.text
        self.proof: dict[str, Any] = answer.json()
        assert self.proof["revealed"] is True
        served = made.client.get(f"{made.url}/rounds", params={"limit": 500}, headers=bearer(token))
        self.served: list[Any] = served.json()["rounds"]
        session = made.get().json()
        # What a player who watched every change recorded: the commitment shown at creation,
        # the head after each round, its own seed, the session's config.
        self.expected = Expected(
            session=made.id,
            kind=made.url.split("/")[2],
            commitment=made.created["commitment"],
            heads=forger.links(self.proof),
            seeds=list(self.proof["seeds"]),
            config=session["config"],
        )

    def expected_json(self) -> dict[str, Any]:
        seen = self.expected
        return {
            "session": seen.session,
            "kind": seen.kind,
            "commitment": seen.commitment,
            "heads": seen.heads,
            "seeds": seen.seeds,
            "config": seen.config,
        }


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Played]]:
    """A finished session of every kind (and a sealed bidding game read by each of its
    tokens), played through the app on SQLite."""
    from app.main import create_app
    from app.settings import Settings
    from app.store.database import upgrade_to_head

    url = f"sqlite:///{tmp_path_factory.mktemp('forgeries') / 'arbiter.db'}"
    upgrade_to_head(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        found = [Played(name, play(client)) for name, play in PLAYS.items()]
        bidding = sealed_bidding_game(client)
        found += [Played(f"bidding, read by {who}", bidding, who) for who in ("gm", "Heroes")]
        yield found


def test_honest_proofs_check_out_with_everything_the_player_recorded(
    played: list[Played],
) -> None:
    cases = []
    for game in played:
        report = verify_proof(game.proof, expected=game.expected, served=game.served)
        assert report.problems == [], (game.name, report.problems)
        assert report.left == []
        cases.append({"proof": game.proof, "expected": game.expected_json(), "served": game.served})
    for game, node in zip(played, node_reports(cases), strict=True):
        assert node["problems"] == [], (game.name, node["problems"])


def test_every_forgery_is_named_by_both_verifiers(played: list[Played]) -> None:
    cases: list[dict[str, Any]] = []
    python: list[tuple[str, str, list[str]]] = []
    applied: dict[str, int] = {}
    for forgery in forger.FORGERIES:
        for game in played:
            forged = forgery.apply(game.proof)
            if forged is None:
                continue
            applied[forgery.name] = applied.get(forgery.name, 0) + 1
            if not forgery.needs_record:
                # The proof alone exposes it: no record of the player's needed; the verifier
                # written from the page alone finds it too.
                alone = verify_proof(forged).problems
                assert any(forgery.named in problem for problem in alone), (
                    forgery.name,
                    game.name,
                    alone,
                )
                assert verifier_from_doc.check(forged), (forgery.name, game.name)
            problems = verify_proof(forged, expected=game.expected, served=game.served).problems
            assert any(forgery.named in problem for problem in problems), (
                forgery.name,
                game.name,
                problems,
            )
            python.append((forgery.name, game.name, problems))
            cases.append({"proof": forged, "expected": game.expected_json(), "served": game.served})
    # Every forgery found a place in some kind's proof.
    assert set(applied) == {forgery.name for forgery in forger.FORGERIES}
    for (name, where, problems), node in zip(python, node_reports(cases), strict=True):
        assert node["problems"] == problems, (name, where)
        assert node["ok"] is False


def test_unused_dice_and_roll_for_me_are_checked_by_both_verifiers(played: list[Played]) -> None:
    """A round's `unused` supplied dice and a seat's "roll-for-me" (docs/verifiable-dice.md#a-
    rounds-record): honest ones pass both verifiers, forged ones fail both, the chain rebuilt."""
    cases: list[dict[str, Any]] = []
    python: list[list[str]] = []
    for forgery in (*forger.HONEST_UNUSED, *forger.UNUSED_FORGERIES):
        applied = 0
        for game in played:
            forged = forgery.apply(game.proof)
            if forged is None:
                continue
            applied += 1
            problems = verify_proof(forged).problems
            if forgery in forger.HONEST_UNUSED:
                assert problems == [], (forgery.name, game.name, problems)
            else:
                assert any(forgery.named in problem for problem in problems), (
                    forgery.name,
                    game.name,
                    problems,
                )
            python.append(problems)
            cases.append({"proof": forged, "expected": None, "served": None})
        assert applied, forgery.name
    for problems, node in zip(python, node_reports(cases), strict=True):
        assert node["problems"] == problems


def test_malformed_proofs_are_reported_never_raised(played: list[Played]) -> None:
    cases: list[dict[str, Any]] = []
    python: list[list[str]] = []
    for name, change, named in forger.MALFORMED:
        for game in played:
            broken = copy.deepcopy(game.proof)
            change(broken)
            problems = verify_proof(broken).problems
            assert any(named in problem for problem in problems), (name, game.name, problems)
            assert verifier_from_doc.check(broken), name
            python.append(problems)
            cases.append({"proof": broken, "expected": None, "served": None})
    odd: tuple[Any, ...] = (None, [], "proof", 7)
    for value in odd:
        assert verify_proof(value).problems == ["proof: not an object"]
        assert verifier_from_doc.check(value) == [("proof", "not an object")]
        python.append(["proof: not an object"])
        cases.append({"proof": value, "expected": None, "served": None})
    for problems, report in zip(python, node_reports(cases), strict=True):
        assert report["problems"] == problems


def test_a_server_die_relabelled_as_the_gms_is_the_gms_word(played: list[Played]) -> None:
    """What no verifier can tell (docs/verifiable-dice.md#what-it-proves-and-what-it-does-not):
    a server die the server says the GM supplied, where the GM may supply that name's dice,
    passes — unless the round says who answered for that name (`dice_from`)."""
    game = played[0]
    forged = copy.deepcopy(game.proof)
    round_three = forged["rounds"][2]
    assert "dice_from" not in round_three["outcome"]
    entry = round_three["dice"][0]
    assert entry["source"] == "rolled"
    entry["source"], entry["by"] = "supplied", "gm"
    forger.rebuild(forged)
    assert verify_proof(forged).problems == []
    # In a round that says the server rolled that name's dice, it is caught.
    collected = copy.deepcopy(game.proof)
    record = next(r for r in collected["rounds"] if "dice_from" in r["outcome"])
    entry = next(e for e in record["dice"] if e["source"] == "rolled")
    record["outcome"]["dice_from"][entry["who"]] = "deadline"
    entry["source"], entry["by"] = "supplied", "gm"
    forger.rebuild(collected)
    assert any("but the server rolled" in problem for problem in verify_proof(collected).problems)


# --- hypothesis: mutations anywhere ------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _paths(inner, (*path, index))


def _mutate(proof: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    mutated = copy.deepcopy(proof)
    paths = [path for path in _paths(mutated) if path]
    path = data.draw(st.sampled_from(paths), label="path")
    parent: Any = mutated
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    action = data.draw(st.sampled_from(["replace", "delete", "nudge", "add"]), label="action")
    current = parent[last]
    if action == "delete":
        del parent[last]
    elif action == "nudge" and isinstance(current, int) and not isinstance(current, bool):
        parent[last] = current + data.draw(st.sampled_from([-1, 1, 19, 32]))
    elif action == "nudge" and isinstance(current, str) and current:
        parent[last] = current[:-1] + ("0" if current[-1] != "0" else "1")
    elif action == "add" and isinstance(current, dict):
        current[data.draw(st.text(max_size=6), label="key")] = data.draw(JSON, label="added")
    elif action == "add" and isinstance(current, list):
        current.append(data.draw(JSON, label="appended"))
    else:
        parent[last] = data.draw(JSON, label="value")
    if data.draw(st.booleans(), label="rebuild"):
        # A mutation that broke the shape the forger needs is sent as it is.
        with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError, IndexError):
            forger.rebuild(mutated)
    return mutated


def _same_meaning(honest: dict[str, Any], mutated: dict[str, Any]) -> bool:
    """The free-text `summary` and a finished/deleted `status` are not vouched for by the chain
    (the page says so); every other change changes what the proof says."""

    def bare(proof: Any) -> str:
        if not isinstance(proof, dict):
            return json.dumps(proof)
        rest = {key: value for key, value in proof.items() if key not in ("summary",)}
        if rest.get("status") in ("finished", "deleted"):
            rest["status"] = "over"
        return json.dumps(rest, sort_keys=True)

    return bare(honest) == bare(mutated)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_mutation_is_reported_by_both_or_means_the_same(
    played: list[Played], data: st.DataObject
) -> None:
    cases: list[dict[str, Any]] = []
    python: list[list[str]] = []
    for game in played:
        for _ in range(4):
            mutated = _mutate(game.proof, data)
            if _same_meaning(game.proof, mutated):
                continue
            report = verify_proof(mutated, expected=game.expected, served=game.served)
            assert report.problems, (game.name, mutated)
            # The page-alone verifier takes no record of the player's nor served rounds: it is
            # held only to never crash.
            assert isinstance(verifier_from_doc.check(mutated), list)
            python.append(report.problems)
            cases.append(
                {"proof": mutated, "expected": game.expected_json(), "served": game.served}
            )
    for problems, node in zip(python, node_reports(cases), strict=True):
        assert node["problems"], problems


def test_sessions_over_before_any_round_check_out(tmp_path: Path) -> None:
    """docs/verifiable-dice.md#the-chain: a session deleted before its first change lists its
    seeds unchained (seeds_link null), one ended before any round chains them; both proofs pass
    both verifiers and the page-alone one, and a deleted session's seeds may not be rechained
    away."""
    from app.main import create_app
    from app.settings import Settings
    from app.store.database import upgrade_to_head
    from tests.clients.test_verifiable_dice import ARM_WRESTLE
    from tests.helpers import Session

    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    upgrade_to_head(url)
    proofs: list[dict[str, Any]] = []
    with TestClient(create_app(Settings(database_url=url))) as client:
        deleted = Session(client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"})
        assert deleted.post("seeds", {"seed": "the GM's"}).status_code == 200
        assert client.delete(deleted.url, headers=deleted.headers).status_code == 204
        chase = KINDS["chases"].examples.create
        ended = Session(client, "chases", {**chase, "dice": "verifiable"})
        assert ended.post("seeds", {"seed": "the GM's"}).status_code == 200
        assert ended.post("end", {}).status_code == 200
        for made in (deleted, ended):
            answer = client.get(f"{made.url}/proof", headers=bearer(made.gm))
            assert answer.status_code == 200, answer.text
            proofs.append(answer.json())
    first, second = proofs
    assert (first["status"], first["seeds_link"], first["rounds_played"]) == ("deleted", None, 0)
    assert first["chain_head"] == first["genesis_link"]
    assert second["status"] == "finished"
    assert second["seeds_link"] is not None
    assert second["rounds_played"] == 0
    for proof in proofs:
        assert verify_proof(proof).problems == []
        assert verifier_from_doc.check(proof) == []
    # A finished session claiming its seeds were never chained is refused.
    unchained = copy.deepcopy(second)
    unchained["seeds_link"] = None
    unchained["chain_head"] = unchained["genesis_link"]
    assert verify_proof(unchained).problems == [
        "seeds: closed but never chained (seeds_link is null)"
    ]
    assert verifier_from_doc.check(unchained) == [("seeds", "never chained")]
    reports = node_reports([{"proof": p, "expected": None, "served": None} for p in proofs])
    assert [report["problems"] for report in reports] == [[], []]
    assert (
        node_reports([{"proof": unchained, "expected": None, "served": None}])[0]["problems"]
        == verify_proof(unchained).problems
    )


def test_before_the_reveal_both_verifiers_check_what_they_can(tmp_path: Path) -> None:
    """A running session's proof (docs/verifiable-dice.md#verifying-a-session, before the
    reveal): the honest one is refused only for not being revealed yet, with what is left
    named; a forged genesis, seeds' digest, seeds' link, commitment or head is named now."""
    from app.main import create_app
    from app.settings import Settings
    from app.store.database import upgrade_to_head
    from tests.clients.test_verifiable_dice import ARM_WRESTLE

    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    upgrade_to_head(url)
    with TestClient(create_app(Settings(database_url=url))) as client:
        made = Session(client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"})
        assert made.post("seeds", {"seed": "the GM's"}).status_code == 200
        made.play_round({})
        made.play_round({})
        view = made.get().json()
        honest = client.get(f"{made.url}/proof", headers=bearer(made.gm)).json()
    assert honest["revealed"] is False
    expected = {
        "session": made.id,
        "kind": "arm-wrestles",
        "commitment": made.created["commitment"],
        "heads": {0: made.created["chain_head"], 2: view["chain_head"]},
        "seeds": [{"by": "gm", "seed": "the GM's"}],
        "config": view["config"],
    }
    seen = Expected(**expected)
    waiting = "the server seed is not revealed yet: the session is still running"

    def forged(change: Any) -> dict[str, Any]:
        proof: dict[str, Any] = copy.deepcopy(honest)
        change(proof)
        return proof

    def rechained(proof: dict[str, Any]) -> None:
        proof["seeds"][0]["seed"] = "not the GM's"
        forger.rebuild(proof)

    cases = {
        "honest": (honest, waiting),
        "genesis": (forged(lambda p: p["genesis"].update(kind="races")), "genesis: its kind"),
        "digest": (forged(lambda p: p.update(seeds_digest="00" * 32)), "seeds_digest is not"),
        "unchained": (forged(lambda p: p.update(seeds_link=None)), "without the seeds' link"),
        "commitment": (forged(lambda p: p.update(commitment="ab" * 32)), "commitment: not"),
        "head": (forged(lambda p: p.update(chain_head="cd" * 32)), "link 2 is not the head"),
        "reseeded": (forged(rechained), "gm's seed is not among"),
    }
    reports = node_reports(
        [{"proof": proof, "expected": expected, "served": None} for proof, _ in cases.values()]
    )
    for (name, (proof, named)), node in zip(cases.items(), reports, strict=True):
        report = verify_proof(proof, expected=seen)
        assert any(named in problem for problem in report.problems), (name, report.problems)
        assert report.problems[-1] == waiting
        assert report.left, name
        assert report.dice_checked == 0
        assert node["problems"] == report.problems, name
        if name == "honest":
            assert report.problems == [waiting]
            assert report.left == [
                "the server seed, and with it every server die and the links of 2 round(s) "
                f"to the head {view['chain_head'][:16]}…"
            ]


def test_a_real_round_with_unused_dice_and_roll_for_me_checks_out(tmp_path: Path) -> None:
    """A verifiable seated arm wrestle whose only round leaves a seat's supplied Strength die
    unused (her fatigue check ends the match) and whose other seat asked the server to roll
    for it: the proof passes both verifiers and the page-alone one."""
    from app.main import create_app
    from app.settings import Settings
    from app.store.database import upgrade_to_head

    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    upgrade_to_head(url)
    body = {
        "a": {"name": "Lydia", "strength_mod": 0, "con_score": 0, "con_mod": 0},
        "b": {"name": "Ogre", "strength_mod": 0, "con_score": 9, "con_mod": 0},
        "seats": True,
        "dice": "verifiable",
    }
    with TestClient(create_app(Settings(database_url=url))) as client:
        made = Session(client, "arm-wrestles", body)
        assert made.post("seeds", {"seed": "the GM's"}).status_code == 200
        opened = made.post("rounds", {"collect": True, "deadline_seconds": 600})
        assert opened.status_code == 202, opened.text
        lydia = made.tokens["seats"]["Lydia"]
        dice = {"rolls": {"Lydia": {"constitution": 1, "strength": 12}}}
        assert made.post("rounds/pending/dice", dice, token=lydia).status_code == 202
        ogre = made.tokens["seats"]["Ogre"]
        played = made.post("rounds/pending/roll-for", {"names": ["Ogre"]}, token=ogre)
        assert played.status_code == 200, played.text
        record = played.json()["round"]
        assert record["dice_from"] == {"Lydia": "seat", "Ogre": "roll-for-me"}
        assert record["unused"] == [
            {
                "who": "Lydia",
                "purpose": "strength",
                "values": [12],
                "why": "ended",
                "by": "seat:Lydia",
            }
        ]
        game = Played("seated arm wrestle", made)
    assert verify_proof(game.proof, expected=game.expected, served=game.served).problems == []
    assert verifier_from_doc.check(game.proof) == []
    (report,) = node_reports(
        [{"proof": game.proof, "expected": game.expected_json(), "served": game.served}]
    )
    assert report["problems"] == []
