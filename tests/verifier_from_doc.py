"""A second verifier of verifiable sessions, written from docs/verifiable-dice.md alone.

It shares no code with the service or the Python client (`arbiter_client.verify`): its
canonical JSON is written out from the page's rules (not `json.dumps`), it reads dice notation
sides only from `sides`, and it reports failures as (place, what) pairs. The tests run both
verifiers over the same proofs and check that they agree.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

SCHEME = "arbiter-verifiable-dice-v1"

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(text: str) -> str:
    out = ['"']
    for char in text:
        if char in _SHORT:
            out.append(_SHORT[char])
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _encode(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(_encode(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value)  # Python sorts strings by code point
        return "{" + ",".join(f"{_string(key)}:{_encode(value[key])}" for key in keys) + "}"
    raise ValueError(f"not in a canonical record: {value!r}")


def canonical_bytes(value: Any) -> bytes:
    return _encode(value).encode("utf-8")


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def server_die(
    key: bytes,
    digest: str,
    session: str,
    number: int,
    who: str | None,
    purpose: str,
    index: int,
    sides: int,
) -> int:
    counter = 0
    limit = 2**256 - (2**256) % sides
    while True:
        message = canonical_bytes(
            [SCHEME, digest, session, number, who, purpose, index, sides, counter]
        )
        value = int(hmac.new(key, message, hashlib.sha256).hexdigest(), 16)
        if value < limit:
            return value % sides + 1
        counter += 1


def sides_of(entry: Mapping[str, Any]) -> list[int]:
    if "sides" in entry:
        return list(entry["sides"])
    count, _, faces = str(entry["dice"]).partition("d")
    return [int(faces)] * int(count)


def _dice_failures(
    place: str,
    rolls: Sequence[Mapping[str, Any]],
    key: bytes,
    digest: str,
    session: str,
    number: int,
) -> list[tuple[str, str]]:
    failures: list[tuple[str, str]] = []
    seen: dict[tuple[Any, Any], int] = {}
    for position, entry in enumerate(rolls):
        if entry["source"] == "supplied":
            if not entry.get("by"):
                failures.append((f"{place} roll {position}", "supplied by nobody"))
            continue
        for offset, (value, sides) in enumerate(zip(entry["values"], sides_of(entry), strict=True)):
            index = seen.get((entry["who"], entry["purpose"]), 0)
            seen[(entry["who"], entry["purpose"])] = index + 1
            due = server_die(
                key, digest, session, number, entry["who"], entry["purpose"], index, sides
            )
            if due != value:
                failures.append((f"{place} roll {position} die {offset}", f"{value} != {due}"))
    return failures


def check(proof: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every failure of a revealed proof, as (place, what); empty when everything matches.

    Places: "server seed", "genesis", "seeds", "round N", "round N roll P die D",
    "start roll P die D", "chain".
    """
    failures: list[tuple[str, str]] = []
    key = bytes.fromhex(proof["server_seed"])
    if sha(key).hex() != proof["commitment"]:
        failures.append(("server seed", "not the commitment"))
    first = proof["genesis"]
    if first["commitment"] != proof["commitment"] or first["session"] != proof["session"]:
        failures.append(("genesis", "not this session's"))
    previous = sha(canonical_bytes(first))
    if previous.hex() != proof["genesis_link"]:
        failures.append(("genesis", "link"))
        previous = bytes.fromhex(proof["genesis_link"])
    session = proof["session"]
    no_seed = sha(canonical_bytes([])).hex()
    failures += _dice_failures("start", first["start_rolls"], key, no_seed, session, 0)
    listed = [{"by": seed["by"], "seed": seed["seed"]} for seed in proof["seeds"]]
    digest = sha(canonical_bytes(listed)).hex()
    if proof.get("seeds_link") is not None:
        if sha(previous + canonical_bytes({"seeds": listed})).hex() != proof["seeds_link"]:
            failures.append(("seeds", "not the seeds chained"))
        previous = bytes.fromhex(proof["seeds_link"])
    for position, record in enumerate(proof["rounds"]):
        number = position + 1
        place = f"round {number}"
        content = {
            "number": record["number"],
            "inputs": record["inputs"],
            "dice": record["dice"],
            "outcome": record["outcome"],
        }
        if record["number"] != number:
            failures.append((place, f"numbered {record['number']}"))
        if sha(previous + canonical_bytes(content)).hex() != record["link"]:
            failures.append((place, "link"))
        if record["outcome"].get("rolls", record["dice"]) != record["dice"]:
            failures.append((place, "outcome rolls"))
        failures += _dice_failures(place, record["dice"], key, digest, session, number)
        for party, opening in record.get("openings", {}).items():
            sealed = sha(canonical_bytes(opening)).hex()
            if any(
                record[part]["choices"][party]["seal"] != sealed for part in ("inputs", "outcome")
            ):
                failures.append((place, f"opening of {party}"))
        previous = bytes.fromhex(record["link"])
    if previous.hex() != proof["chain_head"] or len(proof["rounds"]) != proof["rounds_played"]:
        failures.append(("chain", "head or length"))
    return failures
