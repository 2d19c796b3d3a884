"""Verify a verifiable session's dice from its proof, with the standard library only.

    from arbiter_client.verify import verify

    report = verify("http://127.0.0.1:8000/v1/chases/<id>", token="<any token of it>")
    print(report.text())          # every check, and exactly which die or record failed
    assert report.ok

or `python -m arbiter_client verify URL --token T`. The scheme is Arbiter's
docs/verifiable-dice.md: this module recomputes the commitment, the seeds' digest, every
server die (HMAC-SHA256 keyed by the revealed server seed, rejection-sampled), every link
of the chain and every sealed choice the proof opens to this token, from the proof alone
(`verify_proof` takes a proof already fetched).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SCHEME = "arbiter-verifiable-dice-v1"
_SPAN = 1 << 256
_PLAIN = re.compile(r"([0-9]+)d([0-9]+)")


def canonical(value: Any) -> bytes:
    """Sorted keys, no white space, UTF-8 (docs/verifiable-dice.md#canonical-json)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


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


@dataclass
class Report:
    """What `verify` found: `ok` when every check passed; `problems` name each failure's place."""

    session: str = ""
    dice_checked: int = 0
    rounds_checked: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        head = (
            f"session {self.session}: {self.rounds_checked} round(s) and "
            f"{self.dice_checked} server die/dice recomputed"
        )
        if self.ok:
            return f"{head}: everything matches."
        return "\n".join([f"{head}: {len(self.problems)} problem(s)", *self.problems])


def _check_openings(report: Report, place: str, record: Mapping[str, Any]) -> None:
    """Each opening `{"action", "salt"}` the proof shows this token is the one its party's
    sealed choice was sealed with, in the round's inputs and its outcome alike
    (docs/verifiable-dice.md#sealed-choices)."""
    for party, opening in (record.get("openings") or {}).items():
        made = _sha256(canonical(opening))
        for part in ("inputs", "outcome"):
            choice = ((record.get(part) or {}).get("choices") or {}).get(party) or {}
            if choice.get("seal") != made:
                report.problems.append(f"{place}: {party}'s opening does not match its seal")
                break


def _sides(entry: Mapping[str, Any]) -> list[int] | None:
    if "sides" in entry:
        return [int(sides) for sides in entry["sides"]]
    plain = _PLAIN.fullmatch(str(entry.get("dice", "")))
    if plain is None:
        return None
    return [int(plain.group(2))] * int(plain.group(1))


def _check_dice(
    report: Report,
    place: str,
    rolls: Sequence[Mapping[str, Any]],
    seed: bytes,
    digest: str,
    session: str,
    number: int,
) -> None:
    counts: dict[tuple[str | None, str], int] = {}
    for position, entry in enumerate(rolls):
        who, purpose = entry.get("who"), entry.get("purpose")
        label = f"{place}, roll {position + 1} ({who}'s {purpose!r}, {entry.get('dice')})"
        if entry.get("source") != "rolled":
            if "by" not in entry:
                report.problems.append(f"{label}: supplied, but not said by whom")
            continue
        values = entry.get("values", [])
        sides = _sides(entry)
        if sides is None or len(sides) != len(values):
            report.problems.append(f"{label}: its dice's sides are not known")
            continue
        for offset, (value, faces) in enumerate(zip(values, sides, strict=True)):
            key = (who, str(purpose))
            index = counts.get(key, 0)
            counts[key] = index + 1
            expected = derive(seed, digest, session, number, who, str(purpose), index, faces)
            report.dice_checked += 1
            if value != expected:
                report.problems.append(
                    f"{label}, die {offset + 1} (index {index}, d{faces}): "
                    f"recorded {value}, derived {expected}"
                )


def verify_proof(proof: Mapping[str, Any]) -> Report:
    """Check a revealed proof (with every round, oldest first): see the module docstring."""
    session = str(proof.get("session", ""))
    report = Report(session=session)
    problems = report.problems
    if proof.get("scheme") != SCHEME:
        problems.append(f"scheme: {proof.get('scheme')!r} is not {SCHEME}")
        return report
    if not proof.get("revealed"):
        problems.append("the server seed is not revealed yet: the session is still running")
        return report
    seed = bytes.fromhex(proof["server_seed"])
    commitment = proof["commitment"]
    if _sha256(seed) != commitment:
        problems.append("server seed: its SHA-256 is not the commitment")
    seeds = proof["seeds"]
    digest = seeds_digest(seeds)
    genesis = proof["genesis"]
    if genesis.get("commitment") != commitment or genesis.get("session") != session:
        problems.append("genesis: its commitment or session is not the proof's")
    head = _sha256(canonical(genesis))
    if head != proof.get("genesis_link"):
        problems.append("genesis: its record does not match its link in the chain")
        head = str(proof.get("genesis_link"))
    _check_dice(
        report,
        "start (round 0)",
        genesis.get("start_rolls", []),
        seed,
        seeds_digest([]),
        session,
        0,
    )
    seeds_link = proof.get("seeds_link")
    if seeds_link is not None:
        made = _link(head, {"seeds": [{"by": e["by"], "seed": e["seed"]} for e in seeds]})
        if made != seeds_link:
            problems.append("seeds: the seeds listed are not the ones chained (seeds_link)")
        head = seeds_link
    rounds = proof.get("rounds", [])
    for expected_number, record in enumerate(rounds, start=1):
        number = record.get("number")
        place = f"round {number}"
        if number != expected_number:
            problems.append(f"{place}: expected round {expected_number} here")
        content = {key: record.get(key) for key in ("number", "inputs", "dice", "outcome")}
        made = _link(head, content)
        if made != record.get("link"):
            problems.append(f"{place}: its record does not match its link in the chain")
        outcome = record.get("outcome") or {}
        if "rolls" in outcome and outcome["rolls"] != record.get("dice"):
            problems.append(f"{place}: the outcome's rolls are not the round's dice")
        _check_dice(report, place, record.get("dice") or [], seed, digest, session, expected_number)
        _check_openings(report, place, record)
        head = str(record.get("link"))
        report.rounds_checked += 1
    if len(rounds) != proof.get("rounds_played"):
        problems.append(f"rounds: {len(rounds)} listed, {proof.get('rounds_played')} played")
    if head != proof.get("chain_head"):
        problems.append("chain: the last link is not the session's chain head")
    return report


def fetch_proof(url: str, token: str, *, timeout: float = 30.0) -> dict[str, Any]:
    """Every page of a session's proof (`url`: the session's, e.g. …/v1/races/<id>)."""
    base = url.rstrip("/")
    if not base.endswith("/proof"):
        base += "/proof"
    proof: dict[str, Any] | None = None
    after = 0
    while True:
        request = urllib.request.Request(
            f"{base}?after={after}&limit=500",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            page = json.loads(answer.read())
        if proof is None:
            proof = page
        else:
            proof["rounds"].extend(page.get("rounds", []))
        got = page.get("rounds") or []
        if not page.get("revealed") or not got or len(proof["rounds"]) >= page["rounds_played"]:
            return proof
        after = got[-1]["number"]


def verify(url: str, token: str, *, timeout: float = 30.0) -> Report:
    """Fetch a session's proof with any of its tokens and check it (`verify_proof`)."""
    return verify_proof(fetch_proof(url, token, timeout=timeout))
