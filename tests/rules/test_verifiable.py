"""Verifiable dice's rules (app/rules/verifiable.py) against docs/verifiable-dice.md.

The page's worked example is read from the page itself and recomputed here, by the service's
functions and by the verifier written from the page (tests/verifier_from_doc.py), so neither
the page nor the code can drift from the other.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from app.rules.dice import Dice, DieRoll
from app.rules.verifiable import (
    SCHEME,
    DerivedRng,
    canonical,
    commitment,
    derive_die,
    die_message,
    genesis,
    genesis_link,
    link,
    round_content,
    seal,
    seeds_content,
    seeds_digest,
)
from tests import verifier_from_doc

PAGE = Path(__file__).resolve().parents[2] / "docs" / "verifiable-dice.md"


def _example() -> dict[str, str]:
    """The page's worked example: `label: value` lines of its `worked-example` block."""
    text = PAGE.read_text(encoding="utf-8")
    block = re.search(r"```worked-example\n(.*?)```", text, re.DOTALL)
    assert block is not None, "docs/verifiable-dice.md has its worked example"
    lines = [line.split(": ", 1) for line in block.group(1).splitlines() if line]
    return dict(lines)


def test_the_worked_example_is_what_the_service_computes() -> None:
    example = _example()
    seed = bytes.fromhex(example["server_seed"])
    assert seed == bytes(range(32))
    assert commitment(seed) == example["commitment"]
    seeds = json.loads(example["seeds"])
    assert seeds_digest(seeds) == example["seeds_digest"]
    session = example["session"]
    limit = 2**256 - 2**256 % 6
    for index in range(3):
        message = die_message(example["seeds_digest"], session, 1, "Lydia", "strength", index, 6, 0)
        assert message.decode() == example[f"die {index} message"]
        mac = hmac.digest(seed, message, "sha256")
        assert mac.hex() == example[f"die {index} hmac"]
        die = derive_die(seed, example["seeds_digest"], session, 1, "Lydia", "strength", index, 6)
        assert die == int(example[f"die {index} die"])
    assert int.from_bytes(bytes.fromhex(example["die 0 hmac"]), "big") == int(
        example["die 0 value"]
    )
    assert limit == int(example["die 0 limit"])
    assert int(example["die 0 value"]) % 6 + 1 == int(example["die 0 die"]) == 3
    first = genesis(
        session, "arm-wrestles", example["commitment"], {"names": ["Lydia", "Ogre"]}, []
    )
    assert canonical(first).decode() == example["genesis"]
    assert genesis_link(first) == example["hash_0"]
    assert canonical(seeds_content(seeds)).decode() == example["seeds record"]
    seeds_link = link(example["hash_0"], canonical(seeds_content(seeds)))
    assert seeds_link == example["seeds_link"]
    record = json.loads(example["record 1"])
    assert canonical(round_content(**record)).decode() == example["record 1"]
    assert link(seeds_link, canonical(record)) == example["link 1"]
    dice = [entry["values"] for entry in record["dice"] if entry["source"] == "rolled"]
    assert dice == [[3, 5, 4]]
    opening = json.loads(example["opening"])
    assert opening == {"action": "Ambush", "salt": bytes(range(16)).hex()}
    assert canonical(opening).decode() == example["opening"]
    assert seal(opening) == example["seal"]


def test_the_verifier_from_the_page_recomputes_the_worked_example() -> None:
    example = _example()
    seed = bytes.fromhex(example["server_seed"])
    record = json.loads(example["record 1"])
    # A whole proof (docs/verifiable-dice.md#the-proof: the verifier requires every field).
    proof = {
        "scheme": "arbiter-verifiable-dice-v1",
        "kind": "arm-wrestles",
        "status": "finished",
        "revealed": True,
        "seeds_digest": example["seeds_digest"],
        "seeds_open": False,
        "summary": "",
        "server_seed": example["server_seed"],
        "commitment": example["commitment"],
        "session": example["session"],
        "genesis": json.loads(example["genesis"]),
        "genesis_link": example["hash_0"],
        "seeds": json.loads(example["seeds"]),
        "seeds_link": example["seeds_link"],
        "rounds": [{**record, "link": example["link 1"]}],
        "rounds_played": 1,
        "chain_head": example["link 1"],
    }
    assert verifier_from_doc.check(proof) == []
    opening = json.loads(example["opening"])
    sealed = verifier_from_doc.sha(verifier_from_doc.canonical_bytes(opening)).hex()
    assert sealed == example["seal"]
    assert verifier_from_doc.server_die(
        seed, example["seeds_digest"], example["session"], 1, "Lydia", "strength", 2, 6
    ) == int(example["die 2 die"])
    tampered = json.loads(json.dumps(proof))
    tampered["rounds"][0]["dice"][0]["values"][1] = 6
    assert verifier_from_doc.check(tampered) == [
        ("round 1", "link"),
        ("round 1", "outcome rolls"),
        ("round 1 roll 0 die 1", "6 != 5"),
    ]


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1, "a": [True, False, None], "é": "naïve ☃", "A": -3},
        {"text": 'quote " backslash \\ tab \t newline \n nul \x00 unit \x1f del \x7f'},
        {"astral": "🎲 U+1F3B2", "\U0001f3b2": 1, "\uffff": 2, "z": {"y": {"x": []}}},
        ["line\u2028separator", "\r\b\f", 12345678901234567890],
    ],
)
def test_canonical_json_is_the_pages_rules_written_out(value: object) -> None:
    assert canonical(value) == verifier_from_doc.canonical_bytes(value)


@pytest.mark.parametrize("sides", [2, 6, 20, 100, 257, 100_000])
def test_derived_dice_cover_their_range_uniformly(sides: int) -> None:
    """The same chi-square bound as the server's other dice (tests/rules/test_dice.py)."""
    rng = DerivedRng(bytes(range(32)), seeds_digest([]), f"uniform-{sides}", 1)
    draws = 20_000
    counts = Counter(rng.die_at(sides, "Lydia", "strength") for _ in range(draws))
    assert min(counts) >= 1
    assert max(counts) <= sides
    if sides <= 100:
        assert set(counts) == set(range(1, sides + 1))
        expected = draws / sides
        chi_square = sum((counts[face] - expected) ** 2 / expected for face in range(1, sides + 1))
        assert chi_square < sides * 3 + 60


def test_each_die_is_its_place_and_index_counts_per_who_and_purpose() -> None:
    seed, digest = b"\x07" * 32, seeds_digest([{"by": "gm", "seed": "x"}])
    rng = DerivedRng(seed, digest, "s", 4)
    drawn = [
        rng.die_at(6, "Lydia", "strength"),
        rng.die_at(6, "Ogre", "strength"),
        rng.die_at(6, "Lydia", "strength"),
        rng.die_at(20, None, "hazard"),
    ]
    assert drawn == [
        derive_die(seed, digest, "s", 4, "Lydia", "strength", 0, 6),
        derive_die(seed, digest, "s", 4, "Ogre", "strength", 0, 6),
        derive_die(seed, digest, "s", 4, "Lydia", "strength", 1, 6),
        derive_die(seed, digest, "s", 4, None, "hazard", 0, 20),
    ]
    # An earlier call's dice of the round come first: its indices continue.
    after = DerivedRng(seed, digest, "s", 4, {("Lydia", "strength"): 1})
    assert after.die_at(6, "Lydia", "strength") == drawn[2]


def test_another_seed_gives_other_dice() -> None:
    seed = bytes(range(32))
    alone = seeds_digest([])
    seated = seeds_digest([{"by": "seat:Lydia", "seed": "mine"}])
    first = [derive_die(seed, alone, "s", 1, "Lydia", "strength", i, 20) for i in range(40)]
    second = [derive_die(seed, seated, "s", 1, "Lydia", "strength", i, 20) for i in range(40)]
    # 40 d20 alike by chance: 20**-40.
    assert first != second


def test_a_rejected_value_takes_the_next_counter() -> None:
    """Brute force with a die whose limit rejects about half the values: 2**255 + 1 sides."""
    sides = 2**255 + 1
    limit = 2**256 - 2**256 % sides
    assert limit == sides
    seed, digest = bytes(range(32)), seeds_digest([])
    rejected_somewhere = False
    for index in range(16):
        counter = 0
        while True:
            message = canonical([SCHEME, digest, "s", 1, "w", "p", index, sides, counter])
            value = int.from_bytes(hmac.digest(seed, message, "sha256"), "big")
            if value < limit:
                break
            counter += 1
        rejected_somewhere |= counter > 0
        assert derive_die(seed, digest, "s", 1, "w", "p", index, sides) == value % sides + 1
    assert rejected_somewhere


def test_a_dice_source_at_places_marks_supplied_rolls_and_notation_sides() -> None:
    from app.notation import NOTATION_ROLLER

    seed, digest = bytes(range(32)), seeds_digest([])
    dice = Dice(
        DerivedRng(seed, digest, "s", 2),
        {("Ogre", "strength"): [6]},
        notation=NOTATION_ROLLER,
        by=lambda who: f"seat:{who}",
    )
    assert dice.die(6, who="Ogre", purpose="strength") == 6
    rolled = dice.die(6, who="Lydia", purpose="strength")
    damage = dice.notation("2d4+1", who="Lydia", purpose="damage")
    assert rolled == derive_die(seed, digest, "s", 2, "Lydia", "strength", 0, 6)
    assert list(damage.values) == [
        derive_die(seed, digest, "s", 2, "Lydia", "damage", index, 4) for index in range(2)
    ]
    assert dice.rolls() == [
        {
            "who": "Ogre",
            "purpose": "strength",
            "dice": "1d6",
            "values": [6],
            "source": "supplied",
            "by": "seat:Ogre",
        },
        {
            "who": "Lydia",
            "purpose": "strength",
            "dice": "1d6",
            "values": [rolled],
            "source": "rolled",
        },
        {
            "who": "Lydia",
            "purpose": "damage",
            "dice": "2d4+1",
            "values": list(damage.values),
            "source": "rolled",
            "sides": [4, 4],
        },
    ]


def test_other_dice_sources_record_no_by_or_sides() -> None:
    dice = Dice(supplied={("Ogre", "strength"): [6]})
    dice.die(6, who="Ogre", purpose="strength")
    assert dice.rolls() == [
        {"who": "Ogre", "purpose": "strength", "dice": "1d6", "values": [6], "source": "supplied"}
    ]
    assert DieRoll("a", "b", "1d6", (1,), "rolled").record() == {
        "who": "a",
        "purpose": "b",
        "dice": "1d6",
        "values": [1],
        "source": "rolled",
    }


def test_the_commitment_is_the_seeds_sha256_and_says_nothing_of_it() -> None:
    seed = bytes(range(32))
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()
    assert seed.hex() not in commitment(seed)
