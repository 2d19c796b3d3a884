"""Verifiable dice (docs/verifiable-dice.md): committed, derived, chained.

Everything here is specified byte by byte in docs/verifiable-dice.md, so that anyone can
recompute it with their own code: the canonical JSON of a value, the commitment to a server
seed, the digest of the seeds the session's token holders added, each server die (HMAC-SHA256
keyed by the server seed over the die's place, rejection-sampled), and the chain of round
records. Standard library only (`hmac`, `hashlib`, `json`): nothing hand-made.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Mapping
from typing import Any, Final

#: The scheme's name: the first element of every die's message and the genesis record's
#: `scheme`.
SCHEME: Final = "arbiter-verifiable-dice-v1"
#: The server seed's length in bytes.
SERVER_SEED_BYTES: Final = 32
#: 2**256: the range of one HMAC-SHA256 value read as a big-endian integer.
_SPAN: Final = 1 << 256


def canonical(value: Any) -> bytes:
    """The canonical JSON of `value`: keys sorted (by code point), no white space, UTF-8, no
    escapes but the ones JSON requires (docs/verifiable-dice.md#canonical-json)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def new_server_seed() -> bytes:
    """A fresh server seed from the operating system's CSPRNG."""
    return secrets.token_bytes(SERVER_SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    """SHA-256 of the server seed's bytes, in lower-case hex."""
    return hashlib.sha256(server_seed).hexdigest()


def seeds_digest(seeds: Iterable[Mapping[str, str]]) -> str:
    """SHA-256 (hex) of the canonical JSON of the added seeds, `[{"by", "seed"}, ...]` in the
    order they were added (no seed: the digest of `[]`)."""
    listed = [{"by": entry["by"], "seed": entry["seed"]} for entry in seeds]
    return hashlib.sha256(canonical(listed)).hexdigest()


def die_message(
    digest: str,
    session: str,
    round_number: int,
    who: str | None,
    purpose: str,
    index: int,
    sides: int,
    counter: int,
) -> bytes:
    """The HMAC message of one attempt at one die: the canonical JSON of its place."""
    return canonical([SCHEME, digest, session, round_number, who, purpose, index, sides, counter])


def derive_die(
    server_seed: bytes,
    digest: str,
    session: str,
    round_number: int,
    who: str | None,
    purpose: str,
    index: int,
    sides: int,
) -> int:
    """The die of `sides` sides at this place: HMAC-SHA256 keyed by the server seed, read as
    a 256-bit big-endian integer, kept when below the largest multiple of `sides` that fits
    (else the next counter), then 1 + the value modulo `sides`."""
    if sides < 1:
        raise ValueError("a die needs at least one side")
    limit = _SPAN - _SPAN % sides
    counter = 0
    while True:
        message = die_message(digest, session, round_number, who, purpose, index, sides, counter)
        value = int.from_bytes(hmac.digest(server_seed, message, "sha256"), "big")
        if value < limit:
            return value % sides + 1
        counter += 1


class DerivedRng:
    """The server dice of one round of a verifiable session, each derived from its place.

    A die's place is (session, round, who, purpose, index), `index` counting the server dice
    of that (who, purpose) in the round from 0 (`prior`: those already rolled in this round
    by an earlier call, e.g. a skill game's checks before its reveal).
    """

    __slots__ = ("_counts", "_digest", "_round", "_seed", "_session")

    def __init__(
        self,
        server_seed: bytes,
        digest: str,
        session: str,
        round_number: int,
        prior: Mapping[tuple[str | None, str], int] | None = None,
    ) -> None:
        self._seed = server_seed
        self._digest = digest
        self._session = session
        self._round = round_number
        self._counts: dict[tuple[str | None, str], int] = dict(prior or {})

    def die(self, _sides: int) -> int:
        raise TypeError("a verifiable session's dice are drawn at their place (`die_at`)")

    def die_at(self, sides: int, who: str | None, purpose: str) -> int:
        """The next server die of (who, purpose) in this round."""
        key = (who, purpose)
        index = self._counts.get(key, 0)
        self._counts[key] = index + 1
        return derive_die(
            self._seed, self._digest, self._session, self._round, who, purpose, index, sides
        )


def genesis(
    session: str,
    kind: str,
    commitment_hex: str,
    config: Any,
    start_rolls: Any,
) -> dict[str, Any]:
    """The chain's first record: the session, its kind, the commitment, the contest's config
    and the dice rolled at its creation (round 0)."""
    return {
        "scheme": SCHEME,
        "session": session,
        "kind": kind,
        "commitment": commitment_hex,
        "config": config,
        "start_rolls": start_rolls,
    }


def genesis_link(record: Mapping[str, Any]) -> str:
    """hash_0: SHA-256 (hex) of the genesis record's canonical JSON."""
    return hashlib.sha256(canonical(record)).hexdigest()


#: The random bytes of a salt that seals a choice (docs/verifiable-dice.md#sealed-choices).
SEAL_SALT_BYTES: Final = 16


def new_salt() -> str:
    """A fresh salt for a sealed choice, in lower-case hex, from the operating system's CSPRNG."""
    return secrets.token_hex(SEAL_SALT_BYTES)


def seal(opening: Mapping[str, Any]) -> str:
    """A sealed choice's digest: SHA-256 (hex) of its opening's canonical JSON (the hidden
    value and its salt, `{"action", "salt"}`)."""
    return hashlib.sha256(canonical(opening)).hexdigest()


def round_content(number: int, inputs: Any, dice: Any, outcome: Any) -> dict[str, Any]:
    """What the chain covers of a stored round: every field the store keeps of it, a sealed
    choice in its sealed form (its salt is not chained, its opening shown only to whom it
    belongs)."""
    return {"number": number, "inputs": inputs, "dice": dice, "outcome": outcome}


def seeds_content(seeds: Iterable[Mapping[str, str]]) -> dict[str, Any]:
    """What the chain covers of the seeds added, once no more are taken."""
    return {"seeds": [{"by": entry["by"], "seed": entry["seed"]} for entry in seeds]}


def link(previous: str, content_bytes: bytes) -> str:
    """hash_n: SHA-256 (hex) of hash_{n-1}'s 32 bytes followed by the record's canonical JSON."""
    return hashlib.sha256(bytes.fromhex(previous) + content_bytes).hexdigest()
