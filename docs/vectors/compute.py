"""Worked vectors of docs/verifiable-dice.md, computed from that page's text alone.

    python docs/vectors/compute.py            # writes docs/vectors/vectors.json
    python docs/vectors/compute.py --check    # fails if vectors.json is not what it computes

Standard library only, and nothing of Arbiter's: the canonical JSON is written out from the
page's rules (sorted keys, no white space, only the escapes JSON requires, UTF-8), and every
hash, die and link is computed as the page says. The inputs (`inputs.json`) are sessions of
every kind as they were played: the server seed revealed, the session's id, kind, config, the
seeds added, the dice rolled at creation and every round's number, inputs, dice, outcome (and
openings). Everything else — the commitment, the seeds' digest, the genesis and its link, the
seeds' link, each server die's message, HMAC, value and limit, each round's canonical record
and link, each opening's seal, and the sides of a few expressions in dice notation — is computed
here and written with every intermediate step, and each server die is compared with the one
recorded.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCHEME = "arbiter-verifiable-dice-v1"
SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def text_of(value: Any) -> str:
    """Canonical JSON (the page's "Canonical JSON"), as text."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        out = []
        for char in value:
            if char in SHORT:
                out.append(SHORT[char])
            elif ord(char) < 0x20:
                out.append(f"\\u{ord(char):04x}")
            else:
                out.append(char)
        return '"' + "".join(out) + '"'
    if isinstance(value, list):
        return "[" + ",".join(text_of(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value)  # by code point
        return "{" + ",".join(text_of(key) + ":" + text_of(value[key]) for key in keys) + "}"
    raise TypeError(f"not in a record: {value!r}")


def utf8(value: Any) -> bytes:
    return text_of(value).encode("utf-8")


def sha_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def next_link(previous: str, record: Any) -> str:
    return sha_hex(bytes.fromhex(previous) + utf8(record))


def server_die(
    key: bytes,
    digest: str,
    session: str,
    number: int,
    who: Any,
    purpose: str,
    index: int,
    sides: int,
) -> dict[str, Any]:
    """One server die, every step of it (the page's "A server die")."""
    limit = 2**256 - 2**256 % sides
    counter = 0
    while True:
        message = [SCHEME, digest, session, number, who, purpose, index, sides, counter]
        mac = hmac.new(key, utf8(message), hashlib.sha256).hexdigest()
        value = int(mac, 16)
        if value < limit:
            return {
                "message": text_of(message),
                "hmac": mac,
                "value": str(value),
                "limit": str(limit),
                "die": value % sides + 1,
            }
        counter += 1


OPERATION = r"(?:k|p|rr|ro|ra|e|mi|ma)[lh<>]?[0-9]+"
TERM = re.compile(r"([0-9]*)d([0-9]+|%)((?:" + OPERATION + r")*)")


def notation_sides(expression: str) -> dict[str, Any]:
    """The page's "Dice in notation": each dice term's N dice in the order written,
    annotations skipped, `d%` a d10; exact unless a term rerolls or explodes."""
    bare = re.sub(r"\[[^\]]*\]", "", expression)
    sides: list[int] = []
    exact = True
    for count, size, operations in TERM.findall(bare):
        sides += [10 if size == "%" else int(size)] * (int(count) if count else 1)
        for operator in re.findall(r"(k|p|rr|ro|ra|e|mi|ma)[lh<>]?[0-9]+", operations):
            exact = exact and operator not in ("rr", "ro", "ra", "e")
    return {"notation": expression, "sides": sides, "exact": exact}


def chosen_by(dice: list[dict[str, Any]], selectors: list[tuple[str, int]], most: int) -> list:
    """The kept dice any selector chooses ("l"/"h"/"<"/">"/"": the page's selectors)."""
    out: list[dict[str, Any]] = []
    for cat, number in selectors:
        kept = [die for die in dice if die["kept"]]
        if cat == "l":
            found = sorted(kept, key=lambda die: die["total"])[:number]
        elif cat == "h":
            found = sorted(kept, key=lambda die: die["total"], reverse=True)[:number]
        else:
            test = {"<": int.__lt__, ">": int.__gt__, "": int.__eq__}[cat]
            found = [die for die in kept if test(die["total"], number)]
        found = found[: max(0, most - len(out))]
        out += [die for die in found if all(die is not other for other in out)]
    return out


def replay(expression: str, values: list[int]) -> list[int] | None:
    """The page's replay of a roll in notation: the sides of each die rolled, the values
    handed out in order (None: they run out, or some are left)."""
    bare = re.sub(r"\[[^\]]*\]", "", expression)
    given = iter(values)
    sides: list[int] = []
    for count, size, operations in TERM.findall(bare):
        faces = 10 if size == "%" else int(size)

        def roll(faces: int = faces, tens: bool = size == "%") -> dict[str, Any] | None:
            value = next(given, None)
            if value is None:
                return None
            sides.append(faces)
            return {"total": 10 * (value - 1) if tens else value, "kept": True}

        dice = [roll() for _ in range(int(count) if count else 1)]
        merged: list[tuple[str, list[tuple[str, int]]]] = []
        for op, cat, number in re.findall(r"(k|p|rr|ro|ra|e|mi|ma)([lh<>]?)([0-9]+)", operations):
            if merged and merged[-1][0] == op and op not in ("mi", "ma"):
                merged[-1][1].append((cat, int(number)))
            else:
                merged.append((op, [(cat, int(number))]))
        for op, selectors in merged:
            if None in dice:
                return None
            chosen = chosen_by(dice, selectors, 1 if op == "ra" else len(dice) + 1000)
            if op in ("k", "p"):
                for die in dice:
                    if die["kept"] and (any(die is c for c in chosen) == (op == "p")):
                        die["kept"] = False
            elif op in ("rr", "ro"):
                while chosen:
                    for die in [d for d in dice if any(d is c for c in chosen)]:
                        new = roll()
                        if new is None:
                            return None
                        die["total"] = new["total"]
                    chosen = chosen_by(dice, selectors, len(dice) + 1000) if op == "rr" else []
            elif op in ("ra", "e"):
                done: list[dict[str, Any]] = []
                while chosen:
                    dice += [roll() for _ in chosen]
                    if None in dice:
                        return None
                    done += chosen
                    chosen = (
                        []
                        if op == "ra"
                        else [
                            die
                            for die in chosen_by(dice, selectors, len(dice) + 1000)
                            if all(die is not d for d in done)
                        ]
                    )
            else:
                number = selectors[-1][1]
                for die in dice:
                    low, high = die["total"] < number, die["total"] > number
                    if die["kept"] and (low if op == "mi" else high):
                        die["total"] = number
        if None in dice:
            return None
    return sides if next(given, None) is None else None


def entry_sides(entry: dict[str, Any]) -> list[int]:
    if "sides" in entry:
        return list(entry["sides"])
    count, _, size = entry["dice"].partition("d")
    return [int(size)] * int(count)


def dice_of(
    rolls: list[dict[str, Any]], key: bytes, digest: str, session: str, number: int
) -> list[dict[str, Any]]:
    found = []
    counts: dict[str, int] = {}
    for position, entry in enumerate(rolls):
        if entry["source"] != "rolled":
            continue
        for offset, (value, sides) in enumerate(
            zip(entry["values"], entry_sides(entry), strict=True)
        ):
            place = text_of([entry["who"], entry["purpose"]])
            index = counts.get(place, 0)
            counts[place] = index + 1
            who, purpose = entry["who"], entry["purpose"]
            steps = server_die(key, digest, session, number, who, purpose, index, sides)
            if steps["die"] != value:
                raise SystemExit(f"round {number}, roll {position + 1}: {value} is not derived")
            found.append({"roll": position + 1, "nth": offset + 1, "index": index, **steps})
    return found


def session_vectors(given: dict[str, Any]) -> dict[str, Any]:
    key = bytes.fromhex(given["server_seed"])
    session = given["session"]
    commitment = sha_hex(key)
    seeds = [{"by": seed["by"], "seed": seed["seed"]} for seed in given["seeds"]]
    digest = sha_hex(utf8(seeds))
    genesis = {
        "scheme": SCHEME,
        "session": session,
        "kind": given["kind"],
        "commitment": commitment,
        "config": given["config"],
        "start_rolls": given["start_rolls"],
    }
    hash_0 = sha_hex(utf8(genesis))
    seeds_record = {"seeds": seeds}
    seeds_link = next_link(hash_0, seeds_record)
    head = seeds_link
    rounds = []
    for played in given["rounds"]:
        record = {key: played[key] for key in ("number", "inputs", "dice", "outcome")}
        head = next_link(head, record)
        seals = {
            party: {"opening": text_of(opening), "seal": sha_hex(utf8(opening))}
            for party, opening in played.get("openings", {}).items()
        }
        rounds.append(
            {
                "number": played["number"],
                "record": text_of(record),
                "dice": dice_of(played["dice"], key, digest, session, played["number"]),
                "link": head,
                **({"seals": seals} if seals else {}),
            }
        )
    return {
        "name": given["name"],
        "server_seed": given["server_seed"],
        "commitment": commitment,
        "seeds": text_of(seeds),
        "seeds_digest": digest,
        "no_seed_digest": sha_hex(utf8([])),
        "start_dice": dice_of(given["start_rolls"], key, sha_hex(utf8([])), session, 0),
        "genesis": text_of(genesis),
        "hash_0": hash_0,
        "seeds_record": text_of(seeds_record),
        "seeds_link": seeds_link,
        "rounds": rounds,
        "chain_head": head,
    }


def main(argv: list[str]) -> int:
    given = json.loads((HERE / "inputs.json").read_text(encoding="utf-8"))
    made = {
        "scheme": SCHEME,
        "sessions": [session_vectors(session) for session in given["sessions"]],
        "notation": [notation_sides(expression) for expression in given["notation"]],
        "replays": [
            {"notation": notation, "values": values, "sides": replay(notation, values)}
            for notation, values in given["replays"]
        ],
    }
    written = json.dumps(made, indent=1, ensure_ascii=False) + "\n"
    target = HERE / "vectors.json"
    if "--check" in argv:
        if target.read_text(encoding="utf-8") != written:
            sys.stderr.write("docs/vectors/vectors.json is not what compute.py computes\n")
            return 1
        return 0
    target.write_text(written, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
