"""Verifiable sessions' dice (docs/verifiable-dice.md): what the lifecycle keeps and derives.

A session created with `"dice": "verifiable"` has a secret server seed, stored in the session's
row (`dice_secret`: sealed under the dice key when one is set, `app/api/security.py`) and in no
answer, log line or live event before the reveal; and, beside the rules' state under
`verifiable`, its public part: `{"commitment", "seeds": [{"by", "seed"}], "genesis_link",
"head", "open", "seeds_link"}` — the commitment (SHA-256 of the server seed), the seeds the
token holders added, the chain's first link and its head, whether seeds are still taken
(until the session's first change of any other kind, which chains them: `seeds_link`).

Every server die of such a session is derived at its place (`Derivation.rng`, the rules'
`DerivedRng`); every supplied roll records who supplied it (`supplier`); every round stored
carries its link in the chain (`link_of`). Sessions without verifiable dice never reach this
module's work: the lifecycle asks `record.dice_secret is None` first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from app.api.security import Role, open_seed
from app.rules.dice import DieRoll
from app.rules.verifiable import (
    DerivedRng,
    canonical,
    genesis,
    genesis_link,
    link,
    round_content,
    seeds_content,
    seeds_digest,
)
from app.store.repository import SessionRecord

#: The stored state's key of a verifiable session's public part.
VERIFIABLE: Final = "verifiable"

#: The dice key of this process (`Settings.dice_key`), set by `create_app` (`configure`).
_dice_key: str | None = None


def configure(dice_key: str | None) -> None:
    """Seal new server seeds under `dice_key` (None: store them as they are)."""
    global _dice_key
    _dice_key = dice_key


def dice_key() -> str | None:
    return _dice_key


def block(record: SessionRecord) -> dict[str, Any] | None:
    """A verifiable session's public part, or None for any other session."""
    if record.dice_secret is None:
        return None
    found: dict[str, Any] = record.state[VERIFIABLE]
    return found


def server_seed(record: SessionRecord) -> bytes:
    """The session's server seed, opened (`SealedSeed` if it cannot be)."""
    assert record.dice_secret is not None
    return open_seed(record.id, record.dice_secret, _dice_key)


@dataclass(frozen=True, slots=True)
class Derivation:
    """Where a verifiable session's server dice come from: its server seed, the digest of the
    seeds added, its id."""

    seed: bytes
    digest: str
    session: str

    def rng(self, number: int, prior: Iterable[DieRoll] = ()) -> DerivedRng:
        """The server dice of round `number` (`prior`: rolls of it an earlier call made)."""
        counts: dict[tuple[str | None, str], int] = {}
        for entry in prior:
            if entry.source == "rolled":
                key = (entry.who, entry.purpose)
                counts[key] = counts.get(key, 0) + len(entry.values)
        return DerivedRng(self.seed, self.digest, self.session, number, counts)


def seeding(record: SessionRecord) -> int | Derivation | None:
    """What a session's server dice derive from: its seed (None: the CSPRNG), or, for a
    verifiable session, its `Derivation`."""
    if record.dice_secret is None:
        return record.seed
    return Derivation(
        server_seed(record), seeds_digest(record.state[VERIFIABLE]["seeds"]), record.id
    )


def supplier(role: Role) -> str:
    """Who a token speaks for, as a supplied roll's `by` and an added seed's `by`."""
    if role.kind == "seat":
        return f"seat:{role.seat}"
    if role.kind == "party":
        return f"party:{role.party}"
    return "gm"


def opened(
    session: str, kind: str, commitment_hex: str, config: Any, start_rolls: Any
) -> dict[str, Any]:
    """A new verifiable session's public part: no seeds yet, the chain at its genesis."""
    first = genesis(session, kind, commitment_hex, config, start_rolls)
    head = genesis_link(first)
    return {
        "commitment": commitment_hex,
        "seeds": [],
        "genesis_link": head,
        "head": head,
        "open": True,
    }


def genesis_of(record: SessionRecord, start_rolls: Any) -> dict[str, Any]:
    """The genesis record of a stored verifiable session."""
    public = block(record)
    assert public is not None
    return genesis(record.id, record.kind, public["commitment"], record.config, start_rolls)


def link_of(previous: str, number: int, inputs: Any, dice: Any, outcome: Any) -> str:
    """A round's link: after `previous`, over its canonical content."""
    return link(previous, canonical(round_content(number, inputs, dice, outcome)))


def closed(public: Mapping[str, Any]) -> dict[str, Any]:
    """The public part once seeds are no longer taken: while they still were, the seeds are
    chained after the genesis (`seeds_link`, the new head) and the seeds closed."""
    if not public["open"]:
        return dict(public)
    made = link(public["head"], canonical(seeds_content(public["seeds"])))
    return {**public, "open": False, "head": made, "seeds_link": made}
