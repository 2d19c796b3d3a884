"""A second verifier of verifiable sessions, written from docs/verifiable-dice.md alone.

It shares no code with the service or the two verifiers (`arbiter_client.verify`, verify.js)
and not their structure: it first reads the proof against a table of what each part must be
(the page's field lists and rules), then recomputes what an honest server would have written
from the proof's own inputs — the commitment, the digest, every link, every server die — and
lists every place where the proof says something else. Its canonical JSON is written out from
the page's rules (not `json.dumps`), it reads a die's sides from its notation (a term's dice,
a roll with rerolls or explosions only bounded, not replayed), and it reports failures as
(place, what) pairs; it never raises on a malformed proof. The tests run it beside the other
two over honest and forged proofs.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

SCHEME = "arbiter-verifiable-dice-v1"
Failure = tuple[str, str]

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


# --- what each part must be (the page's tables and rules) -----------------------------------

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_TERM = re.compile(r"([0-9]*)d([0-9]+|%)((?:(?:k|p|rr|ro|ra|e|mi|ma)[lh<>]?[0-9]+)*)")
_MORE = re.compile(r"(rr|ro|ra|e)[lh<>]?[0-9]+")


def _is_hex(value: Any) -> bool:
    return isinstance(value, str) and _HEX64.match(value) is not None


def _is_count(value: Any, least: int = 0) -> bool:
    return type(value) is int and value >= least


PROOF: dict[str, Callable[[Any], bool]] = {
    "scheme": lambda value: value == SCHEME,
    "session": lambda value: isinstance(value, str),
    "kind": lambda value: isinstance(value, str),
    "status": lambda value: value in ("active", "finished", "deleted"),
    "revealed": lambda value: isinstance(value, bool),
    "commitment": _is_hex,
    "seeds": lambda value: (
        isinstance(value, list)
        and all(
            isinstance(seed, dict)
            and set(seed) == {"by", "seed"}
            and isinstance(seed["by"], str)
            and isinstance(seed["seed"], str)
            for seed in value
        )
    ),
    "seeds_digest": _is_hex,
    "seeds_open": lambda value: isinstance(value, bool),
    "seeds_link": lambda value: value is None or _is_hex(value),
    "chain_head": _is_hex,
    "rounds_played": _is_count,
    "genesis": lambda value: (
        isinstance(value, dict)
        and set(value) == {"scheme", "session", "kind", "commitment", "config", "start_rolls"}
        and isinstance(value["config"], dict)
        and isinstance(value["start_rolls"], list)
    ),
    "genesis_link": _is_hex,
    "summary": lambda value: isinstance(value, str),
}
REVEALED: dict[str, Callable[[Any], bool]] = {
    "server_seed": _is_hex,
    "rounds": lambda value: isinstance(value, list),
}


def _shape(proof: Any) -> list[Failure]:
    if not isinstance(proof, dict):
        return [("proof", "not an object")]
    fields = dict(PROOF)
    if proof.get("revealed") is True:
        fields.update(REVEALED)
    failures = [
        (name, "missing or malformed") for name, ok in fields.items() if not ok(proof.get(name))
    ]
    failures += [(name, "unknown field") for name in proof if name not in fields]
    return failures


def _entry_failures(entry: Any) -> str | None:
    """What is wrong with a roll entry as the page specifies it, or None."""
    if not isinstance(entry, dict):
        return "not an object"
    if not {"who", "purpose", "dice", "values", "source"} <= set(entry) <= {
        "who", "purpose", "dice", "values", "source", "by", "sides",
    }:  # fmt: skip
        return "fields"
    if entry["source"] not in ("rolled", "supplied"):
        return "source"
    if (entry["source"] == "rolled") == ("by" in entry):
        return "by"
    if not isinstance(entry["dice"], str) or not isinstance(entry["purpose"], str):
        return "dice"
    values = entry["values"]
    if not isinstance(values, list) or not values or not all(_is_count(v, 1) for v in values):
        return "values"
    terms = _TERM.findall(re.sub(r"\[[^\]]*\]", "", entry["dice"]))
    plain = re.fullmatch(r"[0-9]+d[0-9]+", entry["dice"]) is not None
    if plain == ("sides" in entry):
        return "sides"
    sides = sides_of(entry) if plain else entry["sides"]
    if not isinstance(sides, list) or not all(_is_count(s, 1) for s in sides):
        return "sides"
    least = [
        10 if size == "%" else int(size) for count, size, _ in terms for _ in range(int(count or 1))
    ]
    bounded = any(_MORE.search(ops) for _, _, ops in terms)
    if (not bounded and sides != least) or (
        bounded and (len(sides) < len(least) or set(sides) - set(least))
    ):
        return "sides"
    if len(sides) != len(values) or any(v > s for v, s in zip(values, sides, strict=True)):
        return "values"
    return None


def _may_supply(by: Any, who: Any, number: int, outcome: Mapping[str, Any], config: Any) -> bool:
    """The page's "Who supplies a die"."""
    if not isinstance(by, str):
        return False
    if number == 0:
        return by == "gm"
    answered = (outcome.get("dice_from") or {}).get(who) if isinstance(who, str) else None
    if answered is not None:
        # The seat's own dice under any answer; the GM's only where the GM answered.
        return by == f"seat:{who}" or (by == "gm" and answered == "gm")
    if by == "gm":
        return True
    parties = config.get("parties") if isinstance(config, dict) else None
    for party in parties if isinstance(parties, list) else []:
        if isinstance(party, dict) and by == f"party:{party.get('name')}":
            members = [m.get("name") for m in party.get("members") or [] if isinstance(m, dict)]
            return who == party.get("name") or who in members
    return False


# --- what an honest server would have written ----------------------------------------------


def _dice_failures(
    place: str,
    rolls: Sequence[Any],
    key: bytes,
    digest: str,
    session: str,
    number: int,
    outcome: Mapping[str, Any],
    config: Any,
) -> list[Failure]:
    failures: list[Failure] = []
    seen: dict[tuple[Any, Any], int] = {}
    for position, entry in enumerate(rolls):
        wrong = _entry_failures(entry)
        if wrong is not None:
            failures.append((f"{place} roll {position}", wrong))
            continue
        if entry["source"] == "supplied":
            if not _may_supply(entry.get("by"), entry["who"], number, outcome, config):
                failures.append((f"{place} roll {position}", "supplied by nobody who may"))
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


def check(proof: Any) -> list[Failure]:
    """Every failure of a revealed proof, as (place, what); empty when everything matches.

    Places: a proof's field, "server seed", "genesis", "seeds", "round N", "round N roll P
    (die D)", "start roll P (die D)", "chain"."""
    try:
        return _check(proof)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
        return [("proof", f"malformed: {type(exc).__name__}")]


def _check(proof: Any) -> list[Failure]:
    failures = _shape(proof)
    if failures:
        return failures
    if not proof["revealed"]:
        return [("proof", "not revealed")]
    key = bytes.fromhex(proof["server_seed"])
    if sha(key).hex() != proof["commitment"]:
        failures.append(("server seed", "not the commitment"))
    first = proof["genesis"]
    if any(first[name] != proof[name] for name in ("scheme", "session", "kind", "commitment")):
        failures.append(("genesis", "not this session's"))
    previous = sha(canonical_bytes(first))
    if previous.hex() != proof["genesis_link"]:
        failures.append(("genesis", "link"))
        previous = bytes.fromhex(proof["genesis_link"])
    session = proof["session"]
    config = first["config"]
    no_seed = sha(canonical_bytes([])).hex()
    failures += _dice_failures("start", first["start_rolls"], key, no_seed, session, 0, {}, config)
    listed = [{"by": seed["by"], "seed": seed["seed"]} for seed in proof["seeds"]]
    digest = sha(canonical_bytes(listed)).hex()
    if proof["seeds_link"] is None:
        if proof["rounds"] or proof["rounds_played"] or proof["status"] != "deleted":
            failures.append(("seeds", "never chained"))
    else:
        if sha(previous + canonical_bytes({"seeds": listed})).hex() != proof["seeds_link"]:
            failures.append(("seeds", "not the seeds chained"))
        previous = bytes.fromhex(proof["seeds_link"])
    for position, record in enumerate(proof["rounds"]):
        number = position + 1
        place = f"round {number}"
        if not isinstance(record, dict) or not {
            "number",
            "inputs",
            "dice",
            "outcome",
            "link",
        } <= set(record):
            failures.append((place, "malformed"))
            break
        content = {name: record[name] for name in ("number", "inputs", "dice", "outcome")}
        if record["number"] != number or type(record["number"]) is not int:
            failures.append((place, f"numbered {record['number']}"))
        if sha(previous + canonical_bytes(content)).hex() != record["link"]:
            failures.append((place, "link"))
        outcome = record["outcome"] if isinstance(record["outcome"], dict) else {}
        if canonical_bytes(outcome.get("rolls")) != canonical_bytes(record["dice"]):
            failures.append((place, "outcome rolls"))
        rolls = record["dice"] if isinstance(record["dice"], list) else []
        failures += _dice_failures(place, rolls, key, digest, session, number, outcome, config)
        for party, opening in (record.get("openings") or {}).items():
            sealed = sha(canonical_bytes(opening)).hex()
            if any(
                record[part]["choices"][party]["seal"] != sealed for part in ("inputs", "outcome")
            ):
                failures.append((place, f"opening of {party}"))
        previous = bytes.fromhex(record["link"])
    if previous.hex() != proof["chain_head"] or len(proof["rounds"]) != proof["rounds_played"]:
        failures.append(("chain", "head or length"))
    if digest != proof["seeds_digest"]:
        failures.append(("seeds_digest", "not the seeds' digest"))
    return failures
