"""Verify a verifiable session's dice from its proof, with the standard library only.

    from arbiter_client.verify import Expected, verify

    seen = Expected(commitment="<the commitment shown at creation>", heads={3: "<head at 3>"})
    report = verify("http://127.0.0.1:8000/v1/chases/<id>", token="<any token>", expected=seen)
    print(report.text())          # every check, and exactly which die or record failed
    assert report.ok

or `python -m arbiter_client verify URL --token T [--expect-head K=HEX] [--expect-commitment HEX]
[--expect-seed BY=TEXT]`. The scheme is Arbiter's docs/verifiable-dice.md, whose section
"Verifying a session" lists the checks in the order this module makes them: the proof's shape
(anything malformed is reported, never raised), the genesis, the commitment, the seeds, the
seeds' link, then each round — its link, its dice (each server die derived again, each die's
sides taken from its notation, each supplied die's `by` checked against who may supply that
name's dice), its unused dice and its sealed choices — the chain's head, and what the player
recorded earlier (`Expected`) and the rounds the server serves (`served`). A proof checks only
against what the player saw before: a server that rebuilds the whole chain is caught by a head,
a commitment or a seed the player recorded during play.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SCHEME = "arbiter-verifiable-dice-v1"
_SPAN = 1 << 256
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX32 = re.compile(r"[0-9a-f]{32}")
_PLAIN = re.compile(r"([0-9]+)d([0-9]+)")
#: A dice term of notation (`3d6`, `d20`, `d%`) and the operations written right after it
#: (`kh3`, `ro1`, `e6`, `rr<2`); an `[annotation]` is text, not dice.
_TERM = re.compile(r"([0-9]*)d([0-9]+|%)((?:(?:k|p|rr|ro|ra|e|mi|ma)[lh<>]?[0-9]+)*)")
_OPERATION = re.compile(r"(k|p|rr|ro|ra|e|mi|ma)([lh<>]?)([0-9]+)")
_ANNOTATION = re.compile(r"\[[^\]]*\]")
#: The operations after which a term may roll more dice than its N (rerolls, explosions).
_REROLLS = ("rr", "ro", "ra", "e")
_SOURCES = ("rolled", "supplied")
_WHY = ("ended", "not-needed", "surplus")
_DICE_FROM = ("seat", "gm", "deadline", "roll-for-me")
_STATUSES = ("active", "finished", "deleted")
#: A seed's length: 1 to 256 code points (docs/verifiable-dice.md#the-seeds-added).
MAX_SEED_CODE_POINTS = 256
#: The fields of a served round rendered when served (not compared with the chained record).
RENDERED = ("summary", "cards")
#: The largest integer a proof holds (every JSON reader holds it exactly).
MAX_INTEGER = 2**53 - 1
#: The most dice one expression in notation rolls, rerolls and explosions included.
_MAX_NOTATION_DICE = 1000
#: The largest die a verifier derives (the service's notation takes at most 100 000 sides).
MAX_SIDES = 100_000


class Malformed(Exception):
    """A part of the proof that is not what the page specifies (reported, never raised)."""


def canonical(value: Any) -> bytes:
    """Sorted keys, no white space, UTF-8 (docs/verifiable-dice.md#canonical-json)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def _shown(value: Any) -> str:
    """A value of the proof as a message shows it: its canonical JSON."""
    try:
        return canonical(value).decode("utf-8")
    except (TypeError, ValueError):
        return str(value)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def seeds_digest(seeds: Sequence[Mapping[str, Any]]) -> str:
    return _sha256(canonical([{"by": entry["by"], "seed": entry["seed"]} for entry in seeds]))


def derive(
    server_seed: bytes,
    digest: str,
    session: str,
    round_number: int,
    who: str | None,
    purpose: str,
    index: int,
    sides: int,
) -> int:
    """The server die at this place (docs/verifiable-dice.md#a-server-die)."""
    if not 1 <= sides <= MAX_SIDES:
        raise Malformed(f"a die of {sides} sides")
    limit = _SPAN - _SPAN % sides
    counter = 0
    while True:
        message = canonical(
            [SCHEME, digest, session, round_number, who, purpose, index, sides, counter]
        )
        value = int.from_bytes(hmac.digest(server_seed, message, "sha256"), "big")
        if value < limit:
            return value % sides + 1
        counter += 1


def _link(previous: str, content: Any) -> str:
    return _sha256(bytes.fromhex(previous) + canonical(content))


def _terms(notation: str) -> list[tuple[int, int, bool]]:
    """Each dice term of `notation` in the order written: (N, sides, whether it may roll more
    than N: a reroll or explosion, `rr ro ra e`, follows it)."""
    text = _ANNOTATION.sub("", notation)
    return [
        (
            int(count) if count else 1,
            10 if size == "%" else int(size),
            any(op in _REROLLS for op, _cat, _num in _OPERATION.findall(operations)),
        )
        for count, size, operations in _TERM.findall(text)
    ]


def notation_sides(notation: str) -> tuple[list[int], bool]:
    """The sides of every die a roll in dice notation rolls, in the order it rolls them
    (docs/verifiable-dice.md#dice-in-notation), and whether that list is exact (False: a term
    rerolls or explodes, so more dice of its sides may follow its first N)."""
    sides: list[int] = []
    exact = True
    for count, size, more in _terms(notation):
        sides.extend([size] * count)
        exact = exact and not more
    return sides, exact


def sides_follow(notation: str, sides: Sequence[int]) -> bool:
    """Whether `sides` are the sides the notation rolls, in order: each term's N dice of its
    sides, one term after the other, a term that rerolls or explodes followed by any more of
    its sides."""
    terms = _terms(notation)
    seen: set[tuple[int, int]] = set()
    # Depth-first over (term, position): a term that may roll more takes any run it can.
    stack = [(0, 0)]
    while stack:
        term, position = stack.pop()
        if (term, position) in seen:
            continue
        seen.add((term, position))
        if term == len(terms):
            if position == len(sides):
                return True
            continue
        count, size, more = terms[term]
        end = position
        if count == 0:
            stack.append((term + 1, position))
        while end < len(sides) and sides[end] == size and (more or end - position < count):
            end += 1
            if end - position >= count:
                stack.append((term + 1, end))
    return False


class _Die:
    """One die of a term being replayed: its total (a `d%` die's is 10 * (value - 1)) and
    whether it is kept."""

    __slots__ = ("kept", "total")

    def __init__(self, total: int) -> None:
        self.total = total
        self.kept = True


def _select_one(dice: list[_Die], cat: str, number: int) -> list[_Die]:
    """One selector over the kept dice, in their order (`l`/`h`: lowest/highest, ties in
    order; `<`/`>`: below/above; none: equal)."""
    kept = [die for die in dice if die.kept]
    if cat == "l":
        return sorted(kept, key=lambda die: die.total)[:number]
    if cat == "h":
        return sorted(kept, key=lambda die: -die.total)[:number]
    if cat == "<":
        return [die for die in kept if die.total < number]
    if cat == ">":
        return [die for die in kept if die.total > number]
    return [die for die in kept if die.total == number]


def _select(
    dice: list[_Die], selectors: Sequence[tuple[str, int]], most: int | None = None
) -> list[_Die]:
    """The dice any of an operation's selectors picks (at most `most` in all)."""
    chosen: list[_Die] = []
    for cat, number in selectors:
        found = _select_one(dice, cat, number)
        if most is not None:
            if len(chosen) >= most:
                break
            found = found[: most - len(chosen)]
        chosen.extend(die for die in found if not any(die is other for other in chosen))
    return chosen


def _operations(text: str) -> list[tuple[str, list[tuple[str, int]]]]:
    """A term's operations in order, each with its selectors: like operations written one
    after the other are one (`rol1rol1`: reroll once the dice either `l1` picks), but for
    `mi` and `ma`."""
    merged: list[tuple[str, list[tuple[str, int]]]] = []
    for op, cat, digits in _OPERATION.findall(text):
        if merged and op not in ("mi", "ma") and merged[-1][0] == op:
            merged[-1][1].append((cat, int(digits)))
        else:
            merged.append((op, [(cat, int(digits))]))
    return merged


def _in_order(dice: list[_Die], chosen: list[_Die]) -> list[_Die]:
    return [die for die in dice if die.kept and any(die is other for other in chosen)]


def replay_sides(notation: str, values: Sequence[int]) -> list[int] | None:
    """The sides of every die `notation` rolls when its dice show `values` in order
    (docs/verifiable-dice.md#dice-in-notation): each dice term rolls its N dice, then its
    operations in order — keep/drop (`k`, `p`), reroll (`rr`, again while selected; `ro`,
    once), reroll-and-add (`ra`, one die more), explode (`e`, a die more for each die selected,
    the new ones too, each die once), minimum/maximum (`mi`, `ma`) — select among the kept
    dice. None when the values run out, or are left over."""
    replay = _Replay(values)
    text = _ANNOTATION.sub("", notation)
    try:
        for count, size, operations in _TERM.findall(text):
            faces = 10 if size == "%" else int(size)

            def roll(faces: int = faces, tens: bool = size == "%") -> _Die:
                return replay.roll(faces, tens)

            dice = [roll() for _ in range(int(count) if count else 1)]
            for op, selectors in _operations(operations):
                _operate(dice, op, selectors, roll)
    except _RunOut:
        return None
    return replay.sides if replay.position == len(values) else None


class _Replay:
    """The values of a roll in notation, handed out in order to the dice replayed."""

    __slots__ = ("position", "sides", "values")

    def __init__(self, values: Sequence[int]) -> None:
        self.values = values
        self.position = 0
        self.sides: list[int] = []

    def roll(self, faces: int, tens: bool) -> _Die:
        if self.position >= len(self.values) or len(self.sides) >= _MAX_NOTATION_DICE:
            raise _RunOut
        value = self.values[self.position]
        self.position += 1
        self.sides.append(faces)
        return _Die(10 * (value - 1) if tens else value)


def _operate(
    dice: list[_Die], op: str, selectors: list[tuple[str, int]], roll: Callable[[], _Die]
) -> None:
    """One operation of a dice term, as the service's notation makes it."""
    chosen = _select(dice, selectors, 1 if op == "ra" else None)
    if op == "k":
        for die in dice:
            if die.kept and not any(die is other for other in chosen):
                die.kept = False
    elif op == "p":
        for die in chosen:
            die.kept = False
    elif op in ("rr", "ro"):
        again = _in_order(dice, chosen)
        while again:
            for die in again:
                die.total = roll().total
            again = _in_order(dice, _select(dice, selectors)) if op == "rr" else []
    elif op == "ra":
        dice.extend(roll() for _ in chosen)
    elif op == "e":
        done: list[_Die] = []
        while chosen:
            dice.extend(roll() for _ in chosen)
            done.extend(chosen)
            chosen = [die for die in _select(dice, selectors) if not any(die is d for d in done)]
    else:
        number = selectors[-1][1]
        for die in dice:
            if die.kept and (die.total < number if op == "mi" else die.total > number):
                die.total = number


class _RunOut(Exception):
    """The values listed ran out before the notation's dice did."""


@dataclass
class Expected:
    """What the player saw before, to check the proof against: the session (id, kind), the
    commitment shown at creation, chain heads recorded during play (`heads`: rounds chained
    when seen → the head then; 0 is the genesis link or the seeds' link) and the seeds the
    player added (`seeds`: `{"by", "seed"}`)."""

    session: str | None = None
    kind: str | None = None
    commitment: str | None = None
    heads: dict[int, str] = field(default_factory=dict)
    seeds: list[dict[str, str]] = field(default_factory=list)
    config: dict[str, Any] | None = None


@dataclass
class Report:
    """What `verify` found: `ok` when every check passed and nothing is left for the reveal;
    `problems` name each failure's place; `left` what could not be checked yet."""

    session: str = ""
    dice_checked: int = 0
    rounds_checked: int = 0
    problems: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        head = (
            f"session {self.session}: {self.rounds_checked} round(s) and "
            f"{self.dice_checked} server die/dice recomputed"
        )
        lines = (
            [f"{head}: everything matches."]
            if self.ok
            else [
                f"{head}: {len(self.problems)} problem(s)",
                *self.problems,
            ]
        )
        lines.extend(f"left for the reveal: {item}" for item in self.left)
        return "\n".join(lines)


# --- the proof's shape ----------------------------------------------------------------------


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Malformed(f"{what}: not an object")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise Malformed(f"{what}: not a list")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise Malformed(f"{what}: not a string")
    return value


def _integer(value: Any, what: str, least: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise Malformed(f"{what}: not an integer of at least {least}")
    return value


def _is_value(value: Any) -> bool:
    return type(value) is int and value >= 1


def _is_int(value: Any, number: int) -> bool:
    return type(value) is int and value == number


def _hex64(value: Any, what: str) -> str:
    if not isinstance(value, str) or _HEX64.fullmatch(value) is None:
        raise Malformed(f"{what}: not 64 lower-case hex digits")
    return value


def _keys(value: Mapping[str, Any], what: str, required: set[str], optional: set[str]) -> None:
    missing = required - set(value)
    extra = set(value) - required - optional
    if missing:
        raise Malformed(f"{what}: missing {', '.join(sorted(missing))}")
    if extra:
        raise Malformed(f"{what}: unknown field(s) {', '.join(sorted(extra))}")


_PROOF_FIELDS = {
    "scheme",
    "session",
    "kind",
    "status",
    "revealed",
    "commitment",
    "seeds",
    "seeds_digest",
    "seeds_open",
    "seeds_link",
    "chain_head",
    "rounds_played",
    "genesis",
    "genesis_link",
    "summary",
}
_GENESIS_FIELDS = {"scheme", "session", "kind", "commitment", "config", "start_rolls"}


def _check_shape(proof: Any) -> dict[str, Any]:
    found = _object(proof, "proof")
    _keys(found, "proof", _PROOF_FIELDS, {"server_seed", "rounds"})
    if found["scheme"] != SCHEME:
        raise Malformed(f"scheme: {_shown(found['scheme'])} is not {SCHEME}")
    _text(found["session"], "session")
    _text(found["kind"], "kind")
    _text(found["summary"], "summary")
    if found["status"] not in _STATUSES:
        raise Malformed(f"status: {_shown(found['status'])} is none of {', '.join(_STATUSES)}")
    for flag in ("revealed", "seeds_open"):
        if not isinstance(found[flag], bool):
            raise Malformed(f"{flag}: not true or false")
    for name in ("commitment", "seeds_digest", "chain_head", "genesis_link"):
        _hex64(found[name], name)
    if found["seeds_link"] is not None:
        _hex64(found["seeds_link"], "seeds_link")
    _integer(found["rounds_played"], "rounds_played")
    for position, entry in enumerate(_list(found["seeds"], "seeds")):
        what = f"seeds, seed {position + 1}"
        _keys(_object(entry, what), what, {"by", "seed"}, set())
        _text(entry["by"], f"{what}'s by")
        _text(entry["seed"], f"{what}'s seed")
    genesis = _object(found["genesis"], "genesis")
    _keys(genesis, "genesis", _GENESIS_FIELDS, set())
    _object(genesis["config"], "genesis: config")
    _list(genesis["start_rolls"], "genesis: start_rolls")
    if found["revealed"]:
        if "server_seed" not in found or "rounds" not in found:
            raise Malformed("a revealed proof without its server_seed or rounds")
        _hex64(found["server_seed"], "server_seed")
        _list(found["rounds"], "rounds")
    elif "server_seed" in found or "rounds" in found:
        raise Malformed("a proof not revealed shows a server_seed or rounds")
    return found


def _check_numbers(value: Any, where: str) -> None:
    """Every number in a proof is an integer within ±(2**53 - 1) (the canonical JSON's)."""
    pending: list[tuple[Any, str]] = [(value, where)]
    while pending:
        item, at = pending.pop()
        if isinstance(item, bool) or item is None or isinstance(item, str):
            continue
        if isinstance(item, int):
            if abs(item) > MAX_INTEGER:
                raise Malformed(f"{at}: {item} is not an integer a JSON reader holds exactly")
        elif isinstance(item, dict):
            pending.extend((inner, at) for inner in item.values())
        elif isinstance(item, list):
            pending.extend((inner, at) for inner in item)
        else:
            raise Malformed(f"{at}: a number that is not an integer")


# --- who may supply a name's dice -----------------------------------------------------------


def _parties(config: Mapping[str, Any]) -> dict[str, set[str]]:
    """A skill game's parties and their members' names, from its config (else none)."""
    found: dict[str, set[str]] = {}
    parties = config.get("parties")
    if not isinstance(parties, list):
        return found
    for party in parties:
        if isinstance(party, dict) and isinstance(party.get("name"), str):
            members = party.get("members")
            found[party["name"]] = {
                member["name"]
                for member in (members if isinstance(members, list) else [])
                if isinstance(member, dict) and isinstance(member.get("name"), str)
            }
    return found


def supplier_problem(
    by: Any,
    who: Any,
    number: int,
    dice_from: Mapping[str, Any] | None,
    parties: Mapping[str, set[str]],
) -> str | None:
    """Why `by` could not have supplied a die of `who` in round `number`, or None
    (docs/verifiable-dice.md#who-supplies-a-die)."""
    if not isinstance(by, str):
        return "supplied, but not said by whom"
    if number == 0:
        return None if by == "gm" else f"supplied at creation by {by}, not the GM"
    answered = dice_from.get(who) if dice_from is not None and isinstance(who, str) else None
    if answered is not None:
        # A seat's own dice are played under any answer (sent whole, or in part before the
        # GM, the seat itself or the deadline had the server roll the rest); the GM's only
        # where the GM answered.
        if by == f"seat:{who}" or (by == "gm" and answered == "gm"):
            return None
        if answered in ("deadline", "roll-for-me"):
            return f"supplied by {by}, but the server rolled {who}'s dice ({answered})"
        return f"supplied by {by}, but {who}'s dice came from {answered}"
    if by == "gm":
        return None
    if by.startswith("party:"):
        party = by[len("party:") :]
        if party in parties and (who == party or who in parties[party]):
            return None
        return f"supplied by {by}, who does not play {who}"
    return f"supplied by {by}, who cannot supply {who}'s dice here"


# --- a round's dice -------------------------------------------------------------------------


def _entry_sides(entry: Mapping[str, Any], label: str) -> list[int]:
    """The sides of each die of a roll entry, from its notation (and `sides`, which must be
    the notation's)."""
    notation = entry["dice"]
    plain = _PLAIN.fullmatch(notation)
    if "sides" in entry:
        sides = [_integer(value, f"{label}: sides", 1) for value in _list(entry["sides"], label)]
        if plain is not None:
            raise Malformed(f"{label}: sides listed for plain dice {notation}")
        if not sides_follow(notation, sides):
            raise Malformed(f"{label}: sides {_shown(sides)} do not follow from {notation}")
        values = entry["values"]
        given = isinstance(values, list) and all(_is_value(value) for value in values)
        if given and replay_sides(notation, values) != sides:
            raise Malformed(f"{label}: {notation} does not roll these dice with these values")
        return sides
    if plain is None:
        raise Malformed(f"{label}: dice in notation without their sides")
    return [int(plain.group(2))] * int(plain.group(1))


def _check_entry(entry: Any, label: str) -> tuple[dict[str, Any], list[int]]:
    found = _object(entry, label)
    _keys(found, label, {"who", "purpose", "dice", "values", "source"}, {"by", "sides"})
    if found["who"] is not None:
        _text(found["who"], f"{label}: who")
    _text(found["purpose"], f"{label}: purpose")
    _text(found["dice"], f"{label}: dice")
    if found["source"] not in _SOURCES:
        raise Malformed(f"{label}: source {_shown(found['source'])} is neither rolled nor supplied")
    if found["source"] == "rolled" and "by" in found:
        raise Malformed(f"{label}: a server die said to be supplied by {_shown(found['by'])}")
    values = [_integer(value, f"{label}: values", 1) for value in _list(found["values"], label)]
    sides = _entry_sides(found, label)
    if not values or len(values) != len(sides):
        raise Malformed(f"{label}: {len(values)} value(s) for {len(sides)} die/dice")
    if any(not 1 <= faces <= MAX_SIDES for faces in sides):
        raise Malformed(f"{label}: a die of sides outside 1..{MAX_SIDES}")
    for offset, (value, faces) in enumerate(zip(values, sides, strict=True)):
        if value > faces:
            raise Malformed(f"{label}, die {offset + 1}: {value} on a d{faces}")
    return found, sides


def _check_dice(
    report: Report,
    place: str,
    rolls: Sequence[Any],
    seed: bytes | None,
    digest: str,
    session: str,
    number: int,
    dice_from: Mapping[str, Any] | None,
    parties: Mapping[str, set[str]],
) -> None:
    counts: dict[tuple[str | None, str], int] = {}
    for position, raw in enumerate(rolls):
        label = f"{place}, roll {position + 1}"
        if isinstance(raw, dict):
            label += f" ({raw.get('who')}'s {raw.get('purpose')!r}, {raw.get('dice')})"
        try:
            entry, sides = _check_entry(raw, label)
        except Malformed as exc:
            report.problems.append(str(exc))
            continue
        who, purpose = entry["who"], entry["purpose"]
        if entry["source"] == "supplied":
            wrong = supplier_problem(entry.get("by"), who, number, dice_from, parties)
            if wrong is not None:
                report.problems.append(f"{label}: {wrong}")
            continue
        if seed is None:
            continue
        for offset, (value, faces) in enumerate(zip(entry["values"], sides, strict=True)):
            index = counts.get((who, purpose), 0)
            counts[(who, purpose)] = index + 1
            expected = derive(seed, digest, session, number, who, purpose, index, faces)
            report.dice_checked += 1
            if value != expected:
                report.problems.append(
                    f"{label}, die {offset + 1} (index {index}, d{faces}): "
                    f"recorded {value}, derived {expected}"
                )


def _check_unused(
    report: Report,
    place: str,
    outcome: Mapping[str, Any],
    number: int,
    dice_from: Mapping[str, Any] | None,
    parties: Mapping[str, set[str]],
) -> None:
    """Supplied dice the rules never used (`unused`): each said by whom, by someone who may
    supply them, in range, and never also among the rolls in a way its `why` rules out."""
    if "unused" not in outcome:
        return
    found = outcome.get("rolls")
    rolls: list[Any] = found if isinstance(found, list) else []
    used = {
        (entry.get("who"), entry.get("purpose")): entry
        for entry in rolls
        if isinstance(entry, dict)
    }
    try:
        unused = _list(outcome["unused"], f"{place}: unused")
        if not unused:
            raise Malformed(f"{place}: unused is listed but empty")
    except Malformed as exc:
        report.problems.append(str(exc))
        return
    for position, raw in enumerate(unused):
        label = f"{place}, unused {position + 1}"
        try:
            entry = _object(raw, label)
            _keys(entry, label, {"who", "purpose", "values", "why", "by"}, {"dice"})
            if entry["who"] is not None:
                _text(entry["who"], f"{label}: who")
            _text(entry["purpose"], f"{label}: purpose")
            values = [
                _integer(value, f"{label}: values", 1) for value in _list(entry["values"], label)
            ]
            if not values:
                raise Malformed(f"{label}: no values")
            if entry["why"] not in _WHY:
                raise Malformed(f"{label}: why {_shown(entry['why'])} is none of {', '.join(_WHY)}")
        except Malformed as exc:
            report.problems.append(str(exc))
            continue
        key = (entry["who"], entry["purpose"])
        wrong = supplier_problem(entry["by"], entry["who"], number, dice_from, parties)
        if wrong is not None:
            report.problems.append(f"{label}: {wrong}")
        sides: int | None = None
        notation = entry.get("dice", used.get(key, {}).get("dice"))
        plain = _PLAIN.fullmatch(notation) if isinstance(notation, str) else None
        if plain is not None:
            sides = int(plain.group(2))
        if sides is not None and any(value > sides for value in values):
            report.problems.append(f"{label}: a value above {sides}")
        if entry["why"] == "surplus":
            if used.get(key, {}).get("source") != "supplied":
                report.problems.append(f"{label}: surplus of dice the round did not take supplied")
        elif key in used:
            report.problems.append(f"{label}: {entry['why']}, but the round rolled it")


def _dice_from(outcome: Mapping[str, Any], place: str) -> dict[str, Any] | None:
    if "dice_from" not in outcome:
        return None
    found = _object(outcome["dice_from"], f"{place}: dice_from")
    for name, answered in found.items():
        if answered not in _DICE_FROM:
            raise Malformed(f"{place}: dice_from of {name} is {_shown(answered)}")
    return found


def _check_openings(report: Report, place: str, record: Mapping[str, Any]) -> None:
    """Each opening `{"action", "salt"}` the proof shows this token is the one its party's
    sealed choice was sealed with, in the round's inputs and its outcome alike
    (docs/verifiable-dice.md#sealed-choices)."""
    if "openings" not in record:
        return
    openings = record["openings"]
    if not isinstance(openings, dict):
        report.problems.append(f"{place}: openings: not an object")
        return
    for party, opening in openings.items():
        if (
            not isinstance(opening, dict)
            or set(opening) != {"action", "salt"}
            or not isinstance(opening["action"], str)
            or not isinstance(opening["salt"], str)
            or _HEX32.fullmatch(opening["salt"]) is None
        ):
            report.problems.append(f"{place}: {party}'s opening is malformed")
            continue
        made = _sha256(canonical(opening))
        for part in ("inputs", "outcome"):
            choices = record[part].get("choices")
            choice = choices.get(party) if isinstance(choices, dict) else None
            if not isinstance(choice, dict) or choice.get("seal") != made:
                report.problems.append(f"{place}: {party}'s opening does not match its seal")
                break


_ROUND_FIELDS = {"number", "inputs", "dice", "outcome", "link"}


def _check_round(
    report: Report,
    raw: Any,
    expected_number: int,
    head: str,
    seed: bytes | None,
    digest: str,
    session: str,
    parties: Mapping[str, set[str]],
) -> str:
    """Check one listed round after the link `head`; answer its link (the next head)."""
    place = f"round {expected_number}"
    record = _object(raw, place)
    _keys(record, place, _ROUND_FIELDS, {"openings"})
    number = record["number"]
    if not _is_int(number, expected_number):
        report.problems.append(
            f"{place}: numbered {_shown(number)}, expected round {expected_number} here"
        )
    _object(record["inputs"], f"{place}: inputs")
    dice = _list(record["dice"], f"{place}: dice")
    outcome = _object(record["outcome"], f"{place}: outcome")
    made = _link(head, {key: record[key] for key in ("number", "inputs", "dice", "outcome")})
    if made != record["link"]:
        report.problems.append(f"{place}: its record does not match its link in the chain")
    if not _is_int(outcome.get("number"), expected_number):
        report.problems.append(f"{place}: its outcome is not numbered {expected_number}")
    if "rolls" not in outcome:
        report.problems.append(f"{place}: its outcome lists no rolls")
    elif canonical(outcome["rolls"]) != canonical(dice):
        report.problems.append(f"{place}: the outcome's rolls are not the round's dice")
    try:
        dice_from = _dice_from(outcome, place)
    except Malformed as exc:
        report.problems.append(str(exc))
        dice_from = None
    _check_dice(report, place, dice, seed, digest, session, expected_number, dice_from, parties)
    _check_unused(report, place, outcome, expected_number, dice_from, parties)
    _check_openings(report, place, record)
    return _hex64(record["link"], f"{place}: link")


def _served_view(outcome: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    """A chained outcome as the served round shows it, less the rendered parts: a sealed
    choice this token may open shown opened."""
    shown = {key: value for key, value in outcome.items() if key not in RENDERED}
    openings = record.get("openings") or {}
    choices = shown.get("choices")
    if isinstance(choices, dict) and isinstance(openings, dict):
        shown["choices"] = {
            party: (
                {"action": openings[party]["action"], "bid": choice.get("bid")}
                if party in openings and isinstance(choice, dict) and "seal" in choice
                else choice
            )
            for party, choice in choices.items()
        }
    return shown


def _check_served(report: Report, rounds: Sequence[Any], served: Sequence[Any]) -> None:
    """Each round `GET …/rounds` serves this token is the chained outcome, but for what is
    rendered when served (`RENDERED`) and the sealed choices it may not open."""
    if len(served) != len(rounds):
        report.problems.append(f"served rounds: {len(served)} served, {len(rounds)} chained")
    for position, (record, shown) in enumerate(zip(rounds, served, strict=False)):
        place = f"round {position + 1}"
        if not isinstance(record, dict) or not isinstance(record.get("outcome"), dict):
            continue
        if not isinstance(shown, dict):
            report.problems.append(f"{place}: the served round is not an object")
            continue
        chained = _served_view(record["outcome"], record)
        rest = {key: value for key, value in shown.items() if key not in RENDERED}
        if isinstance(rest.get("choices"), dict) and isinstance(chained.get("choices"), dict):
            # A sealed choice this token may not open is served as its bid alone.
            rest["choices"] = dict(rest["choices"])
            for party, choice in chained["choices"].items():
                if isinstance(choice, dict) and "seal" in choice:
                    given = rest["choices"].get(party)
                    if (
                        isinstance(given, dict)
                        and set(given) == {"bid"}
                        and canonical(given["bid"]) == canonical(choice.get("bid"))
                    ):
                        rest["choices"][party] = choice
        if canonical(rest) != canonical(chained):
            report.problems.append(f"{place}: the round served is not the round chained")


def _check_expected(
    report: Report,
    proof: Mapping[str, Any],
    links: Sequence[str] | None,
    expected: Expected,
) -> None:
    """The proof against what the player recorded before (docs/verifiable-dice.md, step 9)."""
    problems = report.problems
    if expected.session is not None and proof["session"] != expected.session:
        problems.append(f"session: the proof is of {proof['session']}, not {expected.session}")
    if expected.kind is not None and proof["kind"] != expected.kind:
        problems.append(f"kind: the proof is of {proof['kind']}, not {expected.kind}")
    if expected.commitment is not None and proof["commitment"] != expected.commitment:
        problems.append("commitment: not the one recorded before the first roll")
    if expected.config is not None and canonical(proof["genesis"]["config"]) != canonical(
        expected.config
    ):
        problems.append("genesis: its config is not the session's")
    for seed in expected.seeds:
        mine = {"by": seed["by"], "seed": seed["seed"]}
        if mine not in [{"by": e["by"], "seed": e["seed"]} for e in proof["seeds"]]:
            problems.append(f"seeds: {seed['by']}'s seed is not among the seeds listed")
    for count, head in sorted(expected.heads.items()):
        if count == 0:
            zero = {proof["genesis_link"], proof["seeds_link"]}
            if head not in zero:
                problems.append(
                    "chain: the head recorded before the first round is not this chain's"
                )
        elif links is not None and count <= len(links):
            if links[count - 1] != head:
                problems.append(f"chain: link {count} is not the head recorded after round {count}")
        elif count == proof["rounds_played"]:
            if proof["chain_head"] != head:
                problems.append(f"chain: link {count} is not the head recorded after round {count}")
        elif count > proof["rounds_played"]:
            problems.append(
                f"chain: a head was recorded after round {count}, "
                f"but only {proof['rounds_played']} are chained"
            )
        else:
            report.left.append(f"the head recorded after round {count} (link {count})")


def _check_seeds(report: Report, proof: Mapping[str, Any]) -> str:
    problems = report.problems
    seeds = proof["seeds"]
    bys = [entry["by"] for entry in seeds]
    for by in sorted({by for by in bys if bys.count(by) > 1}):
        problems.append(f"seeds: {by} added more than one seed")
    for position, entry in enumerate(seeds):
        by, text = entry["by"], entry["seed"]
        if by != "gm" and not by.startswith(("seat:", "party:")):
            problems.append(f"seeds, seed {position + 1}: added by {_shown(by)}, no token's role")
        if not 1 <= len(text) <= MAX_SEED_CODE_POINTS:
            problems.append(
                f"seeds, seed {position + 1}: {len(text)} code points, "
                f"not 1 to {MAX_SEED_CODE_POINTS}"
            )
    digest = seeds_digest(seeds)
    if digest != proof["seeds_digest"]:
        problems.append("seeds: seeds_digest is not the digest of the seeds listed")
    return digest


def verify_proof(
    proof: Any,
    *,
    expected: Expected | None = None,
    served: Sequence[Any] | None = None,
) -> Report:
    """Check a proof (revealed: every round, oldest first) in the page's order; a malformed
    part is reported, never raised. `expected`: what the player recorded before; `served`: the
    rounds `GET …/rounds` served the same token (all of them)."""
    session = proof.get("session") if isinstance(proof, dict) else None
    report = Report(session=session if isinstance(session, str) else "")
    try:
        _verify(report, proof, expected, served)
    except Malformed as exc:
        report.problems.append(str(exc))
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        # A proof no check foresaw: reported as a problem of its shape, never a crash.
        report.problems.append(f"proof: malformed ({type(exc).__name__}: {exc})")
    return report


def _verify(
    report: Report, raw: Any, expected: Expected | None, served: Sequence[Any] | None
) -> None:
    problems = report.problems
    _check_numbers(raw, "proof")
    proof = _check_shape(raw)
    session = proof["session"]
    genesis = proof["genesis"]
    parties = _parties(genesis["config"])
    # 1. The genesis is this session's, of this kind, under this commitment and scheme.
    for name in ("scheme", "session", "kind", "commitment"):
        if genesis[name] != proof[name]:
            problems.append(f"genesis: its {name} is not the proof's")
    if _sha256(canonical(genesis)) != proof["genesis_link"]:
        problems.append("genesis: its record does not match its link in the chain")
    # 2. The seeds.
    digest = _check_seeds(report, proof)
    # 3. The seeds' link, and what a chain with none can hold.
    seeds_link = proof["seeds_link"]
    status = proof["status"]
    if proof["seeds_open"] and (status != "active" or seeds_link is not None):
        problems.append("seeds: still open, yet the session is over or its seeds chained")
    if seeds_link is None:
        if proof["seeds_open"] is False and status != "deleted":
            problems.append("seeds: closed but never chained (seeds_link is null)")
        if proof["rounds_played"] != 0 or proof.get("rounds"):
            problems.append("seeds: rounds chained without the seeds' link")
        head = proof["genesis_link"]
    else:
        if proof["seeds_open"]:
            problems.append("seeds: chained, yet still open")
        made = _link(
            proof["genesis_link"],
            {"seeds": [{"by": e["by"], "seed": e["seed"]} for e in proof["seeds"]]},
        )
        if made != seeds_link:
            problems.append("seeds: the seeds listed are not the ones chained (seeds_link)")
        head = seeds_link
    # 4. The reveal.
    if proof["revealed"] != (status != "active"):
        problems.append(f"status: {status}, yet revealed is {str(proof['revealed']).lower()}")
    seed: bytes | None = None
    if proof["revealed"]:
        seed = bytes.fromhex(proof["server_seed"])
        if _sha256(seed) != proof["commitment"]:
            problems.append("server seed: its SHA-256 is not the commitment")
    # 5. The dice rolled at creation (round 0: the digest of no seed).
    _check_dice(
        report,
        "start (round 0)",
        genesis["start_rolls"],
        seed,
        seeds_digest([]),
        session,
        0,
        None,
        parties,
    )
    # 6. Each round, in order.
    links: list[str] | None = None
    if proof["revealed"]:
        links = []
        for position, record in enumerate(proof["rounds"]):
            head = _check_round(report, record, position + 1, head, seed, digest, session, parties)
            links.append(head)
            report.rounds_checked += 1
        if len(proof["rounds"]) != proof["rounds_played"]:
            problems.append(
                f"rounds: {len(proof['rounds'])} listed, {proof['rounds_played']} played"
            )
        # 7. The last link is the head.
        if head != proof["chain_head"]:
            problems.append("chain: the last link is not the session's chain head")
    elif proof["rounds_played"] == 0 and proof["chain_head"] != head:
        problems.append("chain: no round chained, yet the head is not the last link")
    # 8. What the server serves, and 9. what the player recorded before.
    if served is not None and proof["revealed"]:
        _check_served(report, proof["rounds"], served)
    if expected is not None:
        _check_expected(report, proof, links, expected)
    if not proof["revealed"]:
        report.left.append(
            f"the server seed, and with it every server die and the links of "
            f"{proof['rounds_played']} round(s) to the head {proof['chain_head'][:16]}…"
        )
        problems.append("the server seed is not revealed yet: the session is still running")


def fetch_proof(url: str, token: str, *, timeout: float = 30.0) -> dict[str, Any]:
    """Every page of a session's proof (`url`: the session's, e.g. …/v1/races/<id>)."""
    base = _session_url(url) + "/proof"
    proof: dict[str, Any] | None = None
    after = 0
    while True:
        page = _get_json(f"{base}?after={after}&limit=500", token, timeout)
        if not isinstance(page, dict):
            raise ValueError("the proof is not a JSON object")
        if proof is None:
            proof = page
        else:
            proof["rounds"].extend(page.get("rounds", []))
        got = page.get("rounds") or []
        if (
            not page.get("revealed")
            or not got
            or not isinstance(page.get("rounds_played"), int)
            or len(proof["rounds"]) >= page["rounds_played"]
        ):
            return proof
        after = got[-1]["number"]


def fetch_rounds(url: str, token: str, *, timeout: float = 30.0) -> list[Any]:
    """Every round `GET …/rounds` serves this token, oldest first."""
    base = _session_url(url) + "/rounds"
    served: list[Any] = []
    after = 0
    while True:
        page = _get_json(f"{base}?after={after}&limit=500", token, timeout)
        got = page.get("rounds") if isinstance(page, dict) else None
        if not isinstance(got, list):
            raise ValueError("the rounds are not a JSON list")
        served.extend(got)
        if len(got) < 500:
            return served
        after = len(served)


def _session_url(url: str) -> str:
    base = url.rstrip("/")
    return base[: -len("/proof")] if base.endswith("/proof") else base


def _get_json(url: str, token: str, timeout: float) -> Any:
    request = urllib.request.Request(
        url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.loads(answer.read())


def verify(
    url: str, token: str, *, expected: Expected | None = None, timeout: float = 30.0
) -> Report:
    """Fetch a session's proof, its rounds and (while it can be read) the session itself with
    any of its tokens and check them (`verify_proof`): the session's id and kind are the URL's,
    its config the session's; `expected` adds what the player recorded during play."""
    proof = fetch_proof(url, token, timeout=timeout)
    served = fetch_rounds(url, token, timeout=timeout) if proof.get("revealed") else None
    parts = _session_url(url).split("/")
    seen = expected or Expected()
    if seen.session is None and len(parts) >= 2:
        seen.session, seen.kind = parts[-1], seen.kind or parts[-2]
    if seen.config is None:
        try:
            session = _get_json(_session_url(url), token, timeout)
        except urllib.error.HTTPError:
            session = None  # a deleted session answers only its proof
        if isinstance(session, dict) and isinstance(session.get("config"), dict):
            seen.config = session["config"]
    return verify_proof(proof, expected=seen, served=served)
