"""Verifiable dice over HTTP (docs/verifiable-dice.md, docs/api.md#verifiable-dice).

A finished session of every kind verifies with the Python client's verifier and with the
verifier written from the page alone (tests/verifier_from_doc.py), and both agree; a change of
any die, seed, outcome or record is found at exactly its place; the server seed is in no
answer, live event or log line before the reveal. Sessions are stored on SQLite and PostgreSQL
(`store_client`).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from arbiter_client.verify import derive, verify_proof
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, update
from sqlalchemy.engine import Engine

from app.api.kinds.registry import KINDS
from app.store.repository import rounds as rounds_table
from app.store.repository import sessions as sessions_table
from tests import verifier_from_doc
from tests.api.test_skill_games_api import bidding_body
from tests.helpers import Session, assert_problem, bearer

#: An even, long match (target 60) whose loser takes damage in dice notation (its dice's sides
#: in the record).
ARM_WRESTLE = {
    "a": {
        "name": "Lydia",
        "strength_mod": 2,
        "con_score": 12,
        "con_mod": 1,
        "int_mod": 1,
        "wis_score": 12,
    },
    "b": {
        "name": "Ogre",
        "strength_mod": 2,
        "con_score": 12,
        "con_mod": 1,
        "int_mod": 1,
        "wis_score": 12,
    },
    "target": 60,
    "variant": "mental",
    "loser_damage": "2d4+1",
}


def proof_of(client: TestClient, made: Session, who: str = "gm") -> dict[str, Any]:
    """Every page of a session's proof, 2 rounds a page (so the paging is exercised)."""
    proof: dict[str, Any] | None = None
    after = 0
    while True:
        answer = client.get(
            f"{made.url}/proof",
            params={"after": after, "limit": 2},
            headers=bearer(made.token(who)),
        )
        assert answer.status_code == 200, answer.text
        page = answer.json()
        if proof is None:
            proof = page
        else:
            proof["rounds"].extend(page["rounds"])
        if "link" not in answer.headers:
            assert proof is not None
            return proof
        after = page["rounds"][-1]["number"]
        assert answer.headers["link"] == (f'<{made.url}/proof?after={after}&limit=2>; rel="next"')


def both_verify(proof: dict[str, Any]) -> None:
    report = verify_proof(proof)
    assert report.ok, report.text()
    assert report.rounds_checked == proof["rounds_played"]
    assert verifier_from_doc.check(proof) == []


def add_seed(made: Session, seed: str, token: str) -> dict[str, Any]:
    answer = made.post("seeds", {"seed": seed}, token=token)
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


# --- one finished session of every kind -----------------------------------------------------


def _arm_wrestle(client: TestClient) -> Session:
    made = Session(client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable", "seats": True})
    add_seed(made, "from the GM", made.gm)
    add_seed(made, "Lydia's own", made.tokens["seats"]["Lydia"])
    # A GM's override, then a round waiting for the seats' dice: Lydia's own, the Ogre's
    # rolled for by the GM (server dice), then the rest with server dice.
    made.play_round({"rolls": {"Lydia": {"strength": 12}, "Ogre": {"strength": 3}}})
    opened = made.post("rounds", {"collect": True, "deadline_seconds": 60})
    assert opened.status_code == 202, opened.text
    lydia = made.post(
        "rounds/pending/dice",
        {"rolls": {"Lydia": {"strength": 17}}},
        token=made.tokens["seats"]["Lydia"],
    )
    assert lydia.status_code == 202, lydia.text
    played = made.post("rounds/pending/roll-for", {"names": ["Ogre"]})
    assert played.status_code == 200, played.text
    record = played.json()["round"]
    by = {(entry["who"], entry["source"]): entry.get("by") for entry in record["rolls"]}
    assert by[("Lydia", "supplied")] == "seat:Lydia"
    assert by[("Ogre", "rolled")] is None
    assert made.post("resolve").status_code == 200
    return made


def _round_kind(path: str) -> Callable[[TestClient], Session]:
    def play(client: TestClient) -> Session:
        kind = KINDS[path]
        made = Session(client, path, {**kind.examples.create, "dice": "verifiable"})
        add_seed(made, "the GM's", made.gm)
        for party, token in (made.tokens.get("parties") or {}).items():
            add_seed(made, f"{party}'s", token)
        played = made.play_round(dict(kind.examples.round or {})).json()
        if played["session"]["status"] != "finished":
            resolved = made.post("resolve", kind.examples.resolve)
            assert resolved.status_code == 200, resolved.text
        return made

    return play


def _chase_on_initiative(client: TestClient) -> Session:
    body = {**KINDS["chases"].examples.create, "start": {"mode": "initiative"}}
    made = Session(client, "chases", {**body, "dice": "verifiable"})
    assert made.created["start_rolls"], made.created
    add_seed(made, "the GM's", made.gm)
    made.play_round(dict(KINDS["chases"].examples.round or {}))
    ended = made.post("end", {})
    assert ended.status_code == 200, ended.text
    return made


def _skill_game(client: TestClient) -> Session:
    made = Session(client, "skill-games", {**bidding_body(max_rounds=2), "dice": "verifiable"})
    add_seed(made, "heroes", made.tokens["parties"]["Heroes"])
    for _round in range(2):
        heroes = made.post(
            "skills", {"party": "Heroes", "skills": ["Athletics", "Stealth"]}, "Heroes"
        )
        assert heroes.status_code == 200, heroes.text
        villains = made.post(
            "skills",
            {
                "party": "Villains",
                "skills": ["Athletics", "Stealth"],
                "rolls": {
                    "Rook": {"Athletics": 3, "Stealth": 19},
                    "Mara": {"Athletics": 20, "Stealth": 2},
                },
            },
        )
        assert villains.status_code == 200, villains.text
        for party, who in (("Heroes", "Heroes"), ("Villains", "gm")):
            sealed = made.post("choices", {"party": party, "action": "Rally", "bid": 0}, who)
            assert sealed.status_code in (200, 202), sealed.text
    return made


def sealed_bidding_game(client: TestClient) -> Session:
    """A verifiable bidding game of two rounds, each lost by one party: the Villains' Ambush
    (bid 0 against the Heroes' Charge, bid 1), then the Heroes' Rally (bid 0 against the
    Villains' Sabotage, bid 2)."""
    made = Session(client, "skill-games", {**bidding_body(max_rounds=2), "dice": "verifiable"})
    rounds = (
        {"Heroes": ("Charge", 1), "Villains": ("Ambush", 0)},
        {"Heroes": ("Rally", 0), "Villains": ("Sabotage", 2)},
    )
    # Every check a natural 20: each party earns a token per skill, enough for its bids.
    members = {"Heroes": ("Ann", "Bo"), "Villains": ("Rook", "Mara")}
    # The Heroes play with their own token, the Villains (the GM's party) with the GM's.
    tokens = {"Heroes": "Heroes", "Villains": "gm"}
    for bids in rounds:
        for party in ("Heroes", "Villains"):
            who = tokens[party]
            skills = ["Athletics", "Stealth"]
            rolls = {member: dict.fromkeys(skills, 20) for member in members[party]}
            chosen = made.post("skills", {"party": party, "skills": skills, "rolls": rolls}, who)
            assert chosen.status_code == 200, chosen.text
        for party, (action, bid) in bids.items():
            sealed = made.post(
                "choices", {"party": party, "action": action, "bid": bid}, tokens[party]
            )
            assert sealed.status_code in (200, 202), sealed.text
    return made


PLAYS: dict[str, Callable[[TestClient], Session]] = {
    "arm-wrestles": _arm_wrestle,
    "regular-contests": _round_kind("regular-contests"),
    "races": _round_kind("races"),
    "chases": _round_kind("chases"),
    "chases on initiative, ended": _chase_on_initiative,
    "skill-games": _skill_game,
}


@pytest.mark.parametrize("play", list(PLAYS), ids=list(PLAYS))
def test_a_finished_session_of_every_kind_verifies(store_client: TestClient, play: str) -> None:
    made = PLAYS[play](store_client)
    session = made.get().json()
    assert session["status"] == "finished"
    assert session["dice"] == "verifiable"
    assert session["commitment"] == made.created["commitment"]
    proof = proof_of(store_client, made)
    assert proof["revealed"] is True
    assert proof["status"] == "finished"
    assert hashlib.sha256(bytes.fromhex(proof["server_seed"])).hexdigest() == session["commitment"]
    assert proof["chain_head"] == session["chain_head"]
    assert proof["rounds_played"] == session["round"] > 0
    both_verify(proof)
    report = verify_proof(proof)
    server_dice = sum(
        len(entry["values"])
        for record in [{"dice": proof["genesis"]["start_rolls"]}, *proof["rounds"]]
        for entry in record["dice"]
        if entry["source"] == "rolled"
    )
    assert report.dice_checked == server_dice > 0
    # Every supplied roll says by whom; the same rounds as `GET …/rounds` shows the GM.
    supplied = [
        entry
        for record in proof["rounds"]
        for entry in record["dice"]
        if entry["source"] == "supplied"
    ]
    assert all(entry["by"] in {"gm", "seat:Lydia", "party:Heroes"} for entry in supplied)
    listed = made.get("rounds?limit=500")
    # Less their cards, rendered when served and never chained (docs/verifiable-dice.md).
    assert [record["outcome"] for record in proof["rounds"]] == [
        {key: value for key, value in record.items() if key != "cards"}
        for record in listed.json()["rounds"]
    ]


def _seal(opening: dict[str, Any]) -> str:
    """SHA-256 of the opening's canonical JSON, computed here (docs/verifiable-dice.md)."""
    text = json.dumps(opening, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("reader", ["gm", "Heroes", "Villains"])
def test_a_bidding_games_proof_opens_a_losing_action_to_its_party_and_the_gm_alone(
    store_client: TestClient, reader: str
) -> None:
    made = sealed_bidding_game(store_client)
    assert made.get().json()["status"] == "finished"
    proof = proof_of(store_client, made, reader)
    assert proof["rounds_played"] == 2
    both_verify(proof)
    for record, (loser, action, bid) in zip(
        proof["rounds"], (("Villains", "Ambush", 0), ("Heroes", "Rally", 0)), strict=True
    ):
        winner = "Heroes" if loser == "Villains" else "Villains"
        for part in ("inputs", "outcome"):
            choices = record[part]["choices"]
            # The loser's action sealed for every reader; the winner's shown.
            assert set(choices[loser]) == {"bid", "seal"}, (part, choices)
            assert choices[loser]["bid"] == bid
            assert "action" in choices[winner]
        assert "seals" not in record["inputs"]
        opened = record.get("openings", {})
        if reader in ("gm", loser):
            assert set(opened) == {loser}
            assert opened[loser]["action"] == action
            assert len(bytes.fromhex(opened[loser]["salt"])) == 16
            assert _seal(opened[loser]) == record["outcome"]["choices"][loser]["seal"]
        else:
            assert opened == {}
    if reader == "gm":
        salts = [
            record["openings"][loser]["salt"]
            for record, loser in zip(proof["rounds"], ("Villains", "Heroes"), strict=True)
        ]
        assert salts[0] != salts[1]
        # The GM's rounds read every action, as before; the chain covers them sealed.
        listed = made.get("rounds?limit=500").json()["rounds"]
        assert listed[0]["choices"]["Villains"] == {"action": "Ambush", "bid": 0}


def test_an_opening_that_is_not_the_sealed_one_fails_at_that_round(
    store_client: TestClient,
) -> None:
    proof = proof_of(store_client, sealed_bidding_game(store_client), "Villains")
    changed = copy.deepcopy(proof)
    changed["rounds"][0]["openings"]["Villains"]["action"] = "Charge"
    report = verify_proof(changed)
    assert report.problems == ["round 1: Villains's opening does not match its seal"]
    assert verifier_from_doc.check(changed) == [("round 1", "opening of Villains")]
    # A seal changed in the record breaks its link as well.
    resealed = copy.deepcopy(proof)
    resealed["rounds"][0]["outcome"]["choices"]["Villains"]["seal"] = "0" * 64
    assert verify_proof(resealed).problems == [
        "round 1: its record does not match its link in the chain",
        "round 1: Villains's opening does not match its seal",
    ]


def test_every_kind_takes_verifiable_dice() -> None:
    covered = {name.split(" ")[0] for name in PLAYS}
    assert covered == set(KINDS)


# --- tampering ------------------------------------------------------------------------------


@pytest.fixture
def finished(store_client: TestClient) -> tuple[Session, dict[str, Any]]:
    made = _arm_wrestle(store_client)
    proof = proof_of(store_client, made)
    both_verify(proof)
    return made, proof


def _first_rolled(proof: dict[str, Any]) -> tuple[int, int, dict[str, Any]]:
    """(round index, roll index, roll) of the first server roll after round 2."""
    for number, record in enumerate(proof["rounds"][2:], start=2):
        for position, entry in enumerate(record["dice"]):
            if entry["source"] == "rolled":
                return number, position, entry
    raise AssertionError("no server roll")


def test_a_changed_die_fails_at_that_die_and_its_record(
    finished: tuple[Session, dict[str, Any]],
) -> None:
    _made, proof = finished
    index, position, entry = _first_rolled(proof)
    tampered = copy.deepcopy(proof)
    record = tampered["rounds"][index]
    value = entry["values"][0]
    sides = int(entry["dice"].split("d")[1])
    changed = value % sides + 1
    record["dice"][position]["values"][0] = changed
    record["outcome"]["rolls"][position]["values"][0] = changed
    number = record["number"]
    report = verify_proof(tampered)
    assert report.problems == [
        f"round {number}: its record does not match its link in the chain",
        f"round {number}, roll {position + 1} ({entry['who']}'s {entry['purpose']!r}, "
        f"{entry['dice']}), die 1 (index 0, d{sides}): recorded {changed}, derived {value}",
    ]
    assert verifier_from_doc.check(tampered) == [
        (f"round {number}", "link"),
        (f"round {number} roll {position} die 0", f"{changed} != {value}"),
    ]


def test_a_changed_outcome_or_input_fails_at_that_record_alone(
    finished: tuple[Session, dict[str, Any]],
) -> None:
    _made, proof = finished
    for field, key, value in (("outcome", "summary", "Lydia wins."), ("inputs", "collect", True)):
        tampered = copy.deepcopy(proof)
        tampered["rounds"][1][field][key] = value
        assert verify_proof(tampered).problems == [
            "round 2: its record does not match its link in the chain"
        ], field
        assert verifier_from_doc.check(tampered) == [("round 2", "link")], field


def test_a_changed_link_or_a_dropped_record_breaks_the_chain_there(
    finished: tuple[Session, dict[str, Any]],
) -> None:
    _made, proof = finished
    relinked = copy.deepcopy(proof)
    relinked["rounds"][1]["link"] = "0" * 64
    assert verify_proof(relinked).problems == [
        "round 2: its record does not match its link in the chain",
        "round 3: its record does not match its link in the chain",
    ]
    assert verifier_from_doc.check(relinked) == [("round 2", "link"), ("round 3", "link")]
    last = copy.deepcopy(proof)
    last["rounds"].pop()
    assert verify_proof(last).problems == [
        f"rounds: {proof['rounds_played'] - 1} listed, {proof['rounds_played']} played",
        "chain: the last link is not the session's chain head",
    ]
    assert verifier_from_doc.check(last) == [("chain", "head or length")]


def test_a_changed_seed_fails_at_the_seeds_and_changes_every_server_die(
    finished: tuple[Session, dict[str, Any]],
) -> None:
    _made, proof = finished
    tampered = copy.deepcopy(proof)
    tampered["seeds"][1]["seed"] = "someone else's"
    problems = verify_proof(tampered).problems
    # The digest served beside the seeds is compared too, not only recomputed.
    assert problems[:2] == [
        "seeds: seeds_digest is not the digest of the seeds listed",
        "seeds: the seeds listed are not the ones chained (seeds_link)",
    ]
    # Every other problem is a server die of a round, none a record's link.
    assert all(", die " in problem and "derived" in problem for problem in problems[2:])
    assert len(problems) > 2
    found = verifier_from_doc.check(tampered)
    assert found[0] == ("seeds", "not the seeds chained")
    assert found[-1] == ("seeds_digest", "not the seeds' digest")
    assert all(" die " in place for place, _ in found[1:-1])


def test_a_changed_server_seed_fails_at_the_commitment(
    finished: tuple[Session, dict[str, Any]],
) -> None:
    _made, proof = finished
    tampered = copy.deepcopy(proof)
    tampered["server_seed"] = "11" * 32
    problems = verify_proof(tampered).problems
    assert problems[0] == "server seed: its SHA-256 is not the commitment"
    assert verifier_from_doc.check(tampered)[0] == ("server seed", "not the commitment")


def test_a_die_a_seat_supplied_cannot_pass_as_the_servers(
    finished: tuple[Session, dict[str, Any]],
) -> None:
    _made, proof = finished
    tampered = copy.deepcopy(proof)
    for record in tampered["rounds"]:
        for entry in record["dice"]:
            entry.pop("by", None)
    problems = verify_proof(tampered).problems
    # Rounds 1 and 2 hold supplied dice: their records change, and each says by nobody.
    assert "round 1: its record does not match its link in the chain" in problems
    assert any("supplied, but not said by whom" in problem for problem in problems)


def _engine(url: str) -> Engine:
    return create_engine(url.replace("postgresql+asyncpg", "postgresql+psycopg"))


@pytest.fixture
def database(database_url: str) -> Iterator[Engine]:
    engine = _engine(database_url)
    yield engine
    engine.dispose()


def test_a_die_changed_in_the_store_is_found_at_that_die(
    store_client: TestClient, database: Engine
) -> None:
    made = _arm_wrestle(store_client)
    proof = proof_of(store_client, made)
    index, position, entry = _first_rolled(proof)
    number = proof["rounds"][index]["number"]
    rounds = rounds_table
    with database.begin() as connection:
        dice, outcome = connection.execute(
            select(rounds.c.dice, rounds.c.outcome).where(
                rounds.c.session_id == made.id, rounds.c.number == number
            )
        ).one()
        value = dice[position]["values"][0]
        sides = int(entry["dice"].split("d")[1])
        dice[position]["values"][0] = value % sides + 1
        outcome["rolls"] = dice
        connection.execute(
            update(rounds)
            .where(rounds.c.session_id == made.id, rounds.c.number == number)
            .values(dice=dice, outcome=outcome)
        )
    problems = verify_proof(proof_of(store_client, made)).problems
    assert problems == [
        f"round {number}: its record does not match its link in the chain",
        f"round {number}, roll {position + 1} ({entry['who']}'s {entry['purpose']!r}, "
        f"{entry['dice']}), die 1 (index 0, d{sides}): recorded {value % sides + 1}, "
        f"derived {value}",
    ]


def test_a_seed_changed_in_the_store_is_found_at_the_seeds(
    store_client: TestClient, database: Engine
) -> None:
    made = _arm_wrestle(store_client)
    sessions = sessions_table
    with database.begin() as connection:
        state = connection.execute(
            select(sessions.c.state).where(sessions.c.id == made.id)
        ).scalar_one()
        state["verifiable"]["seeds"][0]["seed"] = "not the GM's"
        connection.execute(update(sessions).where(sessions.c.id == made.id).values(state=state))
    proof = proof_of(store_client, made)
    assert proof["seeds"][0]["seed"] == "not the GM's"
    assert verify_proof(proof).problems[0] == (
        "seeds: the seeds listed are not the ones chained (seeds_link)"
    )
    assert verifier_from_doc.check(proof)[0] == ("seeds", "not the seeds chained")


# --- seeds ------------------------------------------------------------------------------------


def test_a_seats_seed_changes_the_dice(store_client: TestClient) -> None:
    made = _arm_wrestle(store_client)
    proof = proof_of(store_client, made)
    seed = bytes.fromhex(proof["server_seed"])
    without = [entry for entry in proof["seeds"] if entry["by"] != "seat:Lydia"]
    assert len(without) == len(proof["seeds"]) - 1
    digest_without = verifier_from_doc.sha(verifier_from_doc.canonical_bytes(without)).hex()
    recorded, derived_without = [], []
    for record in proof["rounds"]:
        counts: dict[tuple[Any, Any], int] = {}
        for entry in record["dice"]:
            if entry["source"] != "rolled":
                continue
            for value, sides in zip(
                entry["values"], verifier_from_doc.sides_of(entry), strict=True
            ):
                key = (entry["who"], entry["purpose"])
                index = counts.get(key, 0)
                counts[key] = index + 1
                recorded.append(value)
                derived_without.append(
                    derive(seed, digest_without, made.id, record["number"], *key, index, sides)
                )
    # Alike by chance: at most 20**-len(recorded).
    assert len(recorded) >= 10
    assert recorded != derived_without
    both_verify(proof)


def test_seeds_are_taken_once_per_token_and_only_before_the_first_round(
    store_client: TestClient,
) -> None:
    made = Session(
        store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable", "seats": True}
    )
    ogre = made.tokens["seats"]["Ogre"]
    first = add_seed(made, "é ☃ 🎲", ogre)
    assert first["seeds"] == [{"by": "seat:Ogre", "seed": "é ☃ 🎲"}]
    assert first["session"]["version"] == 2
    assert_problem(made.post("seeds", {"seed": "again"}, token=ogre), 409)
    assert_problem(made.post("seeds", {"seed": ""}), 422)
    assert_problem(made.post("seeds", {"seed": "x" * 257}), 422)
    assert_problem(made.post("seeds", {"seed": 7}), 422)
    assert_problem(made.post("seeds", {}), 422)
    assert_problem(made.post("seeds", {"seed": "a"}, token="not-a-token"), 404)
    # Idempotent like every change: the same key answers the same, once.
    keyed = bearer(made.gm, **{"Idempotency-Key": "seed-1"})
    once = store_client.post(f"{made.url}/seeds", json={"seed": "gm"}, headers=keyed)
    twice = store_client.post(f"{made.url}/seeds", json={"seed": "gm"}, headers=keyed)
    assert once.status_code == twice.status_code == 200
    assert once.json() == twice.json()
    assert made.get().json()["version"] == 3
    made.play_round()
    assert_problem(made.post("seeds", {"seed": "late"}, token=made.tokens["seats"]["Lydia"]), 409)
    proof = made.get("proof").json()
    assert proof["seeds_open"] is False
    assert [entry["by"] for entry in proof["seeds"]] == ["seat:Ogre", "gm"]


def test_a_seed_is_counted_in_code_points_not_bytes(store_client: TestClient) -> None:
    """The seed limit is 256 Unicode code points (docs/verifiable-dice.md#the-seeds-added): 256
    dice emoji (1024 UTF-8 bytes) are taken, 257 are not, and a verifier counts as the service."""
    made = Session(
        store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable", "seats": True}
    )
    assert_problem(made.post("seeds", {"seed": "🎲" * 257}), 422)
    added = add_seed(made, "🎲" * 256, made.gm)
    assert len(added["seeds"][0]["seed"].encode()) == 1024
    assert made.post("resolve").status_code == 200
    proof = proof_of(store_client, made)
    both_verify(proof)
    longer = copy.deepcopy(proof)
    longer["seeds"][0]["seed"] += "🎲"
    assert verify_proof(longer).problems[0] == ("seeds, seed 1: 257 code points, not 1 to 256")


def test_a_session_without_verifiable_dice_has_no_seeds_or_proof(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    assert not {"dice", "commitment", "chain_head"} & set(made.created)
    assert_problem(made.post("seeds", {"seed": "x"}), 409)
    assert_problem(made.get("proof"), 409)
    played = made.play_round({"rolls": {"Lydia": {"strength": 12}, "Ogre": {"strength": 3}}}).json()
    assert all("by" not in entry for entry in played["round"]["rolls"])


def test_verifiable_dice_take_no_seed(store_client: TestClient) -> None:
    answer = store_client.post(
        "/v1/arm-wrestles", json={**ARM_WRESTLE, "dice": "verifiable", "seed": 7}
    )
    assert_problem(answer, 422, loc=("body", "seed"))
    assert_problem(
        store_client.post("/v1/arm-wrestles", json={**ARM_WRESTLE, "dice": "magic"}), 422
    )


# --- the reveal -----------------------------------------------------------------------------


def test_the_server_seed_is_in_no_answer_event_or_log_before_the_reveal(
    store_client: TestClient,
    database: Engine,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.api.sessions import lifecycle

    published: list[bytes] = []
    original = getattr(lifecycle, "publish")  # noqa: B009 (imported there by name)

    def recording(
        app: Any, session_id: str, version: int, event: str, data: bytes, *said: Any
    ) -> None:
        published.append(data)
        original(app, session_id, version, event, data, *said)

    monkeypatch.setattr(lifecycle, "publish", recording)
    caplog.set_level(logging.DEBUG)
    answers: list[bytes] = []
    made = Session(
        store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable", "seats": True}
    )
    answers.append(made.response.content)
    answers.append(made.post("seeds", {"seed": "s"}).content)
    answers.append(made.post("rounds", {}).content)
    answers.append(made.post("rounds", {"collect": True, "deadline_seconds": 60}).content)
    answers.append(made.post("rounds/pending/roll-for", {"names": ["Lydia", "Ogre"]}).content)
    for path in ("", "rounds", "proof", "odds"):
        answers.append(made.get(path).content)
        answers.append(made.get(path, token=made.tokens["seats"]["Lydia"]).content)
        answers.append(made.get(path, headers={"Accept": "text/markdown"}).content)
    sessions = sessions_table
    with database.begin() as connection:
        stored = connection.execute(
            select(sessions.c.dice_secret).where(sessions.c.id == made.id)
        ).scalar_one()
    # Sealed at rest (a dice key is always set now: the tests' ARBITER_DICE_KEY); opened here
    # with the app's key, to look for the seed in everything sent.
    from app.api.sessions.security import SEED_SEALED, open_seed
    from app.api.sessions.verifiable import dice_key

    assert stored[:1] == SEED_SEALED
    seed = open_seed(made.id, bytes(stored), dice_key())
    assert hashlib.sha256(seed).hexdigest() == made.created["commitment"]
    secrets = (seed.hex(), seed.hex().upper())
    assert len(published) == 4
    for sent in (*answers, *published):
        assert all(secret.encode() not in sent for secret in secrets)
    assert all(secret not in caplog.text for secret in secrets)
    assert made.get().json()["status"] == "active"
    assert made.get("proof").json()["revealed"] is False
    assert made.post("resolve").status_code == 200
    assert made.get("proof").json()["server_seed"] == seed.hex()


def test_a_deleted_session_keeps_its_proof_and_nothing_else(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"})
    made.play_round()
    running = made.get("proof").json()
    assert running["revealed"] is False
    assert "server_seed" not in running
    assert store_client.delete(made.url, headers=made.headers).status_code == 204
    assert_problem(made.get(), 404)
    assert_problem(made.get("rounds"), 404)
    assert_problem(made.post("rounds", {}), 404)
    assert_problem(store_client.delete(made.url, headers=made.headers), 404)
    proof = proof_of(store_client, made)
    assert proof["status"] == "deleted"
    assert proof["revealed"] is True
    assert proof["rounds_played"] == 1
    both_verify(proof)
    assert_problem(made.get("proof", token="a stranger"), 404)


def test_a_sealed_server_seed_is_not_in_the_store_and_is_revealed(
    database_url: str, database: Engine
) -> None:
    from app.main import create_app
    from app.settings import Settings
    from tests.conformance import Conforming

    key = "k" * 40
    with TestClient(
        Conforming(create_app(Settings(database_url=database_url, dice_key=key)))
    ) as client:
        made = Session(client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"})
        made.post("resolve")
        proof = proof_of(client, made)
        both_verify(proof)
    seed = bytes.fromhex(proof["server_seed"])
    sessions = sessions_table
    with database.begin() as connection:
        stored = bytes(
            connection.execute(
                select(sessions.c.dice_secret).where(sessions.c.id == made.id)
            ).scalar_one()
        )
    assert stored[:1] == b"\x01"
    assert seed not in stored
    assert seed.hex().encode() not in stored
    # Back to no key for the other tests of this process.
    from app.api.sessions import verifiable

    verifiable.configure(None)


def test_proof_pages_are_bounded(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable"})
    assert_problem(made.get("proof?limit=501"), 422)
    assert_problem(made.get("proof?after=-1"), 422)


def test_proof_json_is_canonical_ready(finished: tuple[Session, dict[str, Any]]) -> None:
    """Every number in a proof is an integer: the canonical JSON has no fraction to write."""
    _made, proof = finished

    def floats(value: Any) -> list[float]:
        if isinstance(value, float):
            return [value]
        if isinstance(value, dict):
            return [found for item in value.values() for found in floats(item)]
        if isinstance(value, list):
            return [found for item in value for found in floats(item)]
        return []

    assert floats(json.loads(json.dumps(proof))) == []


def test_dice_the_server_rolls_at_a_deadline_are_derived_too(store_client: TestClient) -> None:
    """A round waiting for the seats' dice past its deadline plays with the server's dice for
    the seats missing (`lifecycle.settle`): derived at their place like any other."""
    from datetime import UTC, datetime, timedelta

    from tests.store.test_seats import Clock

    clock = Clock(datetime(2026, 12, 1, 20, 0, tzinfo=UTC))
    app: Any = store_client.app
    app.state.clock = clock
    try:
        made = Session(
            store_client, "arm-wrestles", {**ARM_WRESTLE, "dice": "verifiable", "seats": True}
        )
        add_seed(made, "the Ogre's", made.tokens["seats"]["Ogre"])
        opened = made.post("rounds", {"collect": True, "deadline_seconds": 60})
        assert opened.status_code == 202, opened.text
        given = made.post(
            "rounds/pending/dice",
            {"rolls": {"Ogre": {"strength": 4}}},
            token=made.tokens["seats"]["Ogre"],
        )
        assert given.status_code == 202, given.text
        clock.moment += timedelta(seconds=60)
        session = made.get().json()  # the read plays the round first
        assert session["round"] == 1
        assert made.post("resolve").status_code == 200
        proof = proof_of(store_client, made)
    finally:
        del app.state.clock
    first = proof["rounds"][0]
    assert first["outcome"]["dice_from"] == {"Ogre": "seat", "Lydia": "deadline"}
    sources = {(entry["who"], entry["source"], entry.get("by")) for entry in first["dice"]}
    assert ("Ogre", "supplied", "seat:Ogre") in sources
    assert ("Lydia", "rolled", None) in sources
    both_verify(proof)


def test_a_changed_die_rolled_at_creation_fails_at_the_genesis(store_client: TestClient) -> None:
    made = _chase_on_initiative(store_client)
    proof = proof_of(store_client, made)
    both_verify(proof)
    (entry,) = proof["genesis"]["start_rolls"]
    assert entry["source"] == "rolled"
    sides = int(entry["dice"].split("d")[1])
    value = entry["values"][0]
    tampered = copy.deepcopy(proof)
    tampered["genesis"]["start_rolls"][0]["values"][0] = value % sides + 1
    assert verify_proof(tampered).problems == [
        "genesis: its record does not match its link in the chain",
        f"start (round 0), roll 1 ({entry['who']}'s {entry['purpose']!r}, {entry['dice']}), "
        f"die 1 (index 0, d{sides}): recorded {value % sides + 1}, derived {value}",
    ]
    assert verifier_from_doc.check(tampered) == [
        ("genesis", "link"),
        ("start roll 0 die 0", f"{value % sides + 1} != {value}"),
    ]
