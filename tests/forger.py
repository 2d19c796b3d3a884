"""A dishonest server, for the verifiers' tests: it forges a proof and rebuilds the whole chain.

A forged proof whose links were left as they were is caught by its first broken link, whatever
else is wrong with it; a dishonest server would not leave them so. `rebuild` makes every
digest and link of a proof follow from its records again — the seeds' digest, the genesis's
link, the seeds' link, each round's link, the chain's head and the count of rounds — and, with
`rederive`, every server die too, from the server seed it holds (a server that knows its seed
can derive the dice of any record it likes). A forgery the verifiers must find then holds no
broken link: only what the page requires of the records themselves, or what the player
recorded during play (the commitment, the chain heads, the player's own seed), can expose it.

`FORGERIES` are the named ways to cheat, each with the problem both verifiers must name.
Written from docs/verifiable-dice.md with the standard library; it shares no code with the
service or the verifiers.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

SCHEME = "arbiter-verifiable-dice-v1"
Proof = dict[str, Any]


def canonical(value: Any) -> bytes:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def chain(previous: str, content: Any) -> str:
    return sha(bytes.fromhex(previous) + canonical(content))


def die(
    seed: bytes,
    digest: str,
    session: str,
    number: int,
    who: Any,
    purpose: str,
    index: int,
    sides: int,
) -> int:
    counter = 0
    while True:
        message = canonical([SCHEME, digest, session, number, who, purpose, index, sides, counter])
        value = int.from_bytes(hmac.new(seed, message, hashlib.sha256).digest(), "big")
        if value < 2**256 - 2**256 % sides:
            return value % sides + 1
        counter += 1


def sides_of(entry: dict[str, Any]) -> list[int]:
    if "sides" in entry:
        return [int(sides) for sides in entry["sides"]]
    count, _, faces = str(entry["dice"]).partition("d")
    return [int(faces)] * int(count)


def rederive(
    rolls: list[dict[str, Any]], seed: bytes, digest: str, session: str, number: int
) -> None:
    """Derive every server die of `rolls` again, in place."""
    counts: dict[tuple[Any, Any], int] = {}
    for entry in rolls:
        if entry.get("source") != "rolled":
            continue
        values = []
        for sides in sides_of(entry):
            key = (entry["who"], entry["purpose"])
            index = counts.get(key, 0)
            counts[key] = index + 1
            values.append(
                die(seed, digest, session, number, entry["who"], entry["purpose"], index, sides)
            )
        entry["values"] = values


def rebuild(proof: Proof, *, derive_again: bool = False, renumber: bool = False) -> Proof:
    """Make every digest and link of `proof` follow from its records (in place; returns it).

    `derive_again`: every server die derived again from the proof's server seed and seeds;
    `renumber`: rounds numbered 1, 2, 3… in their order. A round's outcome keeps `rolls` equal
    to its `dice` when it lists them."""
    seeds = [{"by": entry["by"], "seed": entry["seed"]} for entry in proof["seeds"]]
    digest = sha(canonical(seeds))
    proof["seeds_digest"] = digest
    genesis = proof["genesis"]
    seed = bytes.fromhex(proof["server_seed"]) if "server_seed" in proof else None
    if derive_again and seed is not None:
        rederive(genesis["start_rolls"], seed, sha(canonical([])), proof["session"], 0)
    proof["genesis_link"] = head = sha(canonical(genesis))
    if proof.get("seeds_link") is not None:
        proof["seeds_link"] = head = chain(head, {"seeds": seeds})
    for position, record in enumerate(proof.get("rounds", [])):
        if renumber:
            record["number"] = position + 1
            record["outcome"]["number"] = position + 1
        if derive_again and seed is not None:
            rederive(record["dice"], seed, digest, proof["session"], record["number"])
        if "rolls" in record["outcome"]:
            record["outcome"]["rolls"] = copy.deepcopy(record["dice"])
        content = {key: record[key] for key in ("number", "inputs", "dice", "outcome")}
        record["link"] = head = chain(head, content)
    proof["chain_head"] = head
    if "rounds" in proof:
        proof["rounds_played"] = len(proof["rounds"])
    return proof


def links(proof: Proof) -> dict[int, str]:
    """The heads a player watching every change saw: 0 (the seeds' link, or the genesis's
    while seeds were taken), then after each round."""
    heads = {0: proof["seeds_link"] or proof["genesis_link"]}
    for record in proof.get("rounds", []):
        heads[record["number"]] = record["link"]
    return heads


# --- the forgeries ----------------------------------------------------------------------------


def _entries(proof: Proof) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """(round index, roll index, entry) of every roll of every round."""
    for index, record in enumerate(proof.get("rounds", [])):
        for position, entry in enumerate(record["dice"]):
            yield index, position, entry


def _first(proof: Proof, test: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
    return next((entry for _i, _p, entry in _entries(proof) if test(entry)), None)


def _rolled(entry: dict[str, Any]) -> bool:
    return entry.get("source") == "rolled"


def _plain_rolled(entry: dict[str, Any]) -> bool:
    return _rolled(entry) and "sides" not in entry


@dataclass(frozen=True)
class Forgery:
    """One way to cheat: `forge` changes a copy of an honest proof (None: this proof has no
    place for it) before the chain is rebuilt; `named` is what both verifiers must report;
    `needs_record`: only what the player recorded during play exposes it."""

    name: str
    forge: Callable[[Proof], bool]
    named: str
    derive_again: bool = False
    renumber: bool = False
    needs_record: bool = False

    def apply(self, honest: Proof) -> Proof | None:
        forged = copy.deepcopy(honest)
        if not self.forge(forged):
            return None
        if "server_seed" in forged:
            rebuild(forged, derive_again=self.derive_again, renumber=self.renumber)
        return forged


def _change_die(proof: Proof) -> bool:
    entry = _first(proof, _plain_rolled)
    if entry is None:
        return False
    sides = sides_of(entry)[0]
    entry["values"][0] = entry["values"][0] % sides + 1
    return True


def _grind_sides(proof: Proof) -> bool:
    """The issue's forgery: a d20 whose `sides` the server chose so its die lands on 1."""
    entry = _first(proof, lambda found: _plain_rolled(found) and found["dice"] == "1d20")
    if entry is None:
        return False
    entry["sides"] = [52]
    entry["values"] = [1]
    return True


def _grind_notation_sides(proof: Proof) -> bool:
    """A die in notation given sides its notation does not roll, its value derived with them."""
    entry = _first(proof, lambda found: _rolled(found) and "sides" in found)
    if entry is None:
        return False
    entry["sides"] = [entry["sides"][0] + 2, *entry["sides"][1:]]
    return True


def _source(proof: Proof) -> bool:
    entry = _first(proof, _rolled)
    if entry is None:
        return False
    entry["source"] = "server"
    entry["by"] = "gm"
    return True


def _relabel(by: Any) -> Callable[[Proof], bool]:
    def forge(proof: Proof) -> bool:
        entry = _first(proof, _rolled)
        if entry is None:
            return False
        entry["source"] = "supplied"
        entry["by"] = by
        return True

    return forge


def _drop_rolls(proof: Proof) -> bool:
    if not proof.get("rounds"):
        return False
    del proof["rounds"][-1]["outcome"]["rolls"]
    return True


def _genesis_kind(proof: Proof) -> bool:
    other = "races" if proof["kind"] != "races" else "chases"
    proof["genesis"]["kind"] = other
    return True


def _proof_kind(proof: Proof) -> bool:
    """The proof of another kind's session, consistent with itself."""
    other = "races" if proof["kind"] != "races" else "chases"
    proof["genesis"]["kind"] = proof["kind"] = other
    return True


def _no_seeds_link(proof: Proof) -> bool:
    if proof.get("seeds_link") is None:
        return False
    proof["seeds_link"] = None
    return True


def _empty_values(proof: Proof) -> bool:
    entry = _first(proof, lambda found: _plain_rolled(found) and found["dice"] == "1d20")
    if entry is None:
        return False
    entry["values"] = []
    entry["sides"] = []
    return True


def _one_side(proof: Proof) -> bool:
    entry = _first(proof, lambda found: _plain_rolled(found) and found["dice"] == "1d20")
    if entry is None:
        return False
    entry["sides"] = [1]
    entry["values"] = [1]
    return True


def _zero_sides(proof: Proof) -> bool:
    entry = _first(proof, _plain_rolled)
    if entry is None:
        return False
    entry["sides"] = [0] * len(entry["values"])
    return True


def _drop_seed(proof: Proof) -> bool:
    """A player's seed dropped, every die derived again without it."""
    if not proof["seeds"]:
        return False
    proof["seeds"].pop()
    return True


def _new_server_seed(proof: Proof) -> bool:
    """Another server seed (chosen after the players' seeds), its commitment, every die again."""
    seed = hashlib.sha256(b"chosen later" + bytes.fromhex(proof["server_seed"])).digest()
    proof["server_seed"] = seed.hex()
    proof["commitment"] = proof["genesis"]["commitment"] = sha(seed)
    return True


def _swap_rounds(proof: Proof) -> bool:
    rounds = proof.get("rounds", [])
    if len(rounds) < 2:
        return False
    rounds[0], rounds[1] = rounds[1], rounds[0]
    return True


def _drop_round(proof: Proof) -> bool:
    rounds = proof.get("rounds", [])
    if len(rounds) < 2:
        return False
    del rounds[0]
    return True


def _drop_last_round(proof: Proof) -> bool:
    rounds = proof.get("rounds", [])
    if not rounds:
        return False
    rounds.pop()
    return True


def _seat_by_gm(proof: Proof) -> bool:
    """A seat's own die said to be the GM's."""
    entry = _first(proof, lambda found: str(found.get("by", "")).startswith("seat:"))
    if entry is None:
        return False
    entry["by"] = "gm"
    return True


def _supplied_out_of_range(proof: Proof) -> bool:
    entry = _first(proof, lambda found: found.get("source") == "supplied" and "sides" not in found)
    if entry is None:
        return False
    entry["values"][0] = sides_of(entry)[0] + 1
    return True


def _party_plays_another(proof: Proof) -> bool:
    entry = _first(proof, lambda found: str(found.get("by", "")).startswith("party:"))
    if entry is None:
        return False
    entry["by"] = "party:Nobody"
    return True


def _changed_config(proof: Proof) -> bool:
    proof["genesis"]["config"]["forged"] = 1
    return True


def _changed_record(proof: Proof) -> bool:
    """An outcome's result changed (its summary), the chain rebuilt over it."""
    if not proof.get("rounds"):
        return False
    proof["rounds"][-1]["outcome"]["summary"] += " (forged)"
    return True


def _unused(
    why: str,
    by: Any = "gm",
    values: tuple[int, ...] = (7,),
    *,
    of: str = "supplied",
    same_purpose: bool = False,
) -> Callable[[Proof], bool]:
    """A supplied die the round never used, listed in `unused` (issue 39's field), beside the
    first roll whose source is `of` (a round not waiting for seats): of that roll's name and
    purpose with `same_purpose` (a surplus), else of a purpose the round never rolled."""

    def forge(proof: Proof) -> bool:
        for record in proof.get("rounds", []):
            beside = next((e for e in record["dice"] if e.get("source") == of), None)
            if beside is None or "dice_from" in record["outcome"]:
                continue
            purpose = beside["purpose"] if same_purpose else "never rolled"
            record["outcome"]["unused"] = [
                {
                    "who": beside["who"],
                    "purpose": purpose,
                    "values": list(values),
                    "why": why,
                    "by": by,
                    "dice": beside["dice"],
                }
            ]
            return True
        return False

    return forge


def _roll_for_me_supplied(proof: Proof) -> bool:
    """A seat that asked the server to roll its dice, with a die said to be the GM's."""
    for record in proof.get("rounds", []):
        dice_from = record["outcome"].get("dice_from")
        if not dice_from:
            continue
        entry = next((e for e in record["dice"] if e["source"] == "rolled"), None)
        if entry is None:
            continue
        dice_from[entry["who"]] = "roll-for-me"
        entry["source"], entry["by"] = "supplied", "gm"
        return True
    return False


#: Forgeries of the fields a round gains with supplied dice counted as thrown (`unused`,
#: "roll-for-me"): honest ones pass (`HONEST_UNUSED`), these do not.
UNUSED_FORGERIES: tuple[Forgery, ...] = (
    Forgery("an unused die by a stranger", _unused("ended", by="seat:Nobody"), "supplied by"),
    Forgery("an unused die by nobody", _unused("ended", by=None), "not said by whom"),
    Forgery(
        "an unused die out of range",
        _unused("surplus", values=(99,), same_purpose=True),
        "a value above",
    ),
    Forgery(
        "an unused die also among the rolls",
        _unused("not-needed", same_purpose=True),
        "but the round rolled it",
    ),
    Forgery("an unused die of no reason", _unused("because"), "is none of"),
    Forgery(
        "a surplus of server dice",
        _unused("surplus", values=(1,), of="rolled", same_purpose=True),
        "surplus of dice the round did not take supplied",
    ),
    Forgery(
        "a die said supplied for a seat the server rolled for",
        _roll_for_me_supplied,
        "but the server rolled",
    ),
)
HONEST_UNUSED: tuple[Forgery, ...] = (
    Forgery("an unused die the round did not need", _unused("not-needed", values=(3,)), ""),
    Forgery("an unused surplus die", _unused("surplus", values=(2,), same_purpose=True), ""),
    Forgery("an unused die after the end", _unused("ended", values=(1,)), ""),
)

FORGERIES: tuple[Forgery, ...] = (
    Forgery("a server die changed", _change_die, "recorded"),
    Forgery("sides ground on a d20", _grind_sides, "sides listed for plain dice 1d20"),
    Forgery(
        "sides ground in notation", _grind_notation_sides, "do not follow from", derive_again=True
    ),
    Forgery("a source neither rolled nor supplied", _source, "is neither rolled nor supplied"),
    Forgery("a server die relabelled supplied by null", _relabel(None), "not said by whom"),
    Forgery(
        "a server die relabelled supplied by a stranger",
        _relabel("seat:Nobody"),
        "supplied by seat:Nobody",
    ),
    Forgery("the outcome's rolls dropped", _drop_rolls, "its outcome lists no rolls"),
    Forgery("the genesis of another kind", _genesis_kind, "genesis: its kind is not the proof's"),
    Forgery("the proof of another kind", _proof_kind, "kind: the proof is of", needs_record=True),
    Forgery("the seeds' link dropped", _no_seeds_link, "without the seeds' link"),
    Forgery("a d20 of no value", _empty_values, "sides listed for plain dice"),
    Forgery("a d20 of one side", _one_side, "sides listed for plain dice"),
    Forgery("a die of no side", _zero_sides, "not an integer of at least 1"),
    Forgery(
        "a seed dropped, the dice derived again",
        _drop_seed,
        "seed is not among the seeds listed",
        derive_again=True,
        needs_record=True,
    ),
    Forgery(
        "another server seed, the dice derived again",
        _new_server_seed,
        "commitment: not the one recorded",
        derive_again=True,
        needs_record=True,
    ),
    Forgery("two rounds swapped", _swap_rounds, "expected round 1 here"),
    Forgery(
        "two rounds swapped and renumbered",
        _swap_rounds,
        "is not the head recorded after round",
        derive_again=True,
        renumber=True,
        needs_record=True,
    ),
    Forgery(
        "a round dropped and the rest renumbered",
        _drop_round,
        "is not the head recorded after round",
        derive_again=True,
        renumber=True,
        needs_record=True,
    ),
    Forgery(
        "the last round dropped",
        _drop_last_round,
        "only",
        needs_record=True,
    ),
    Forgery("a seat's die said to be the GM's", _seat_by_gm, "came from seat"),
    Forgery("a supplied die out of range", _supplied_out_of_range, "on a d"),
    Forgery("a party's die said to be another's", _party_plays_another, "who does not play"),
    Forgery(
        "the config changed", _changed_config, "its config is not the session's", needs_record=True
    ),
    Forgery(
        "a round's result changed",
        _changed_record,
        "is not the head recorded after round",
        needs_record=True,
    ),
)

#: Malformed proofs (no rebuild can make them well formed): what both verifiers must report.
MALFORMED: tuple[tuple[str, Callable[[Proof], None], str], ...] = (
    ("no seeds", lambda proof: proof.pop("seeds"), "proof: missing seeds"),
    (
        "a server seed that is not hex",
        lambda proof: proof.__setitem__("server_seed", "zz" * 32),
        "server_seed: not 64 lower-case hex digits",
    ),
    (
        "a wrong seeds_digest",
        lambda proof: proof.__setitem__("seeds_digest", sha(b"forged")),
        "seeds: seeds_digest is not the digest of the seeds listed",
    ),
    ("an empty proof", lambda proof: proof.clear(), "proof: missing"),
    (
        "a seed of 257 code points",
        lambda proof: proof["seeds"].append({"by": "seat:Long", "seed": "🎲" * 257}),
        "seeds, seed ",
    ),
)
