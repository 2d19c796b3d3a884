"""Verifiable sessions' dice (docs/verifiable-dice.md): what the lifecycle keeps and derives.

A session created with `"dice": "verifiable"` has a secret server seed, stored in the session's row
(`dice_secret`: sealed under the dice key when one is set, `app/api/sessions/security.py`) and in no
answer, log line or live event before the reveal; and, beside the rules' state under `verifiable`,
its public part: `{"commitment", "seeds": [{"by", "seed"}], "genesis_link", "head", "open",
"seeds_link"}` — the commitment (SHA-256 of the server seed), the seeds the token holders added, the
chain's first link and its head, whether seeds are still taken (until the session's first change of
any other kind, which chains them: `seeds_link`).

Every server die of such a session is derived at its place (`Derivation.rng`, the rules'
`DerivedRng`); every supplied roll records who supplied it (`supplier`); every round stored
carries its link in the chain (`link_of`). Sessions without verifiable dice never reach this
module's work: the lifecycle asks `record.dice_secret is None` first.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from app.api.sessions.security import SEED_PLAIN, Role, open_seed, seal_seed
from app.errors import InvalidInput
from app.rules.dice import DieRoll
from app.rules.messages import N_
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
from app.settings import Settings, StartupRefused
from app.store import repository
from app.store.database import Store, Transaction, database_file
from app.store.repository import SessionRecord

#: The shortest dice key (ARBITER_DICE_KEY's own minimum).
MIN_DICE_KEY: Final = 32

#: The stored state's key of a verifiable session's public part.
VERIFIABLE: Final = "verifiable"

#: The dice key of this process (`dice_key_for`), set by `create_app` (`configure`), and
#: whether verifiable sessions are offered.
_dice_key: str | None = None
_offered = True

#: Why a deployment on PostgreSQL does not start without a dice key.
POSTGRES_NEEDS_A_KEY: Final = (
    "verifiable dice on PostgreSQL need ARBITER_DICE_KEY (at least 32 characters, e.g. "
    "`openssl rand -hex 32`), the same for every replica, to seal each server seed at rest; "
    "set it, or set ARBITER_VERIFIABLE_DICE=false to offer no verifiable sessions"
)


def configure(dice_key: str | None, *, offered: bool = True) -> None:
    """Seal new server seeds under `dice_key` (None: store them as they are); `offered`:
    whether sessions with verifiable dice may be created."""
    global _dice_key, _offered
    _dice_key = dice_key
    _offered = offered


def dice_key() -> str | None:
    return _dice_key


def sealing_key() -> str | None:
    """The key a new session's server seed is sealed under, or a 422 when this server offers
    no verifiable dice."""
    if not _offered:
        raise InvalidInput(
            N_("this server does not offer verifiable dice"),
            errors=[{"loc": ["body", "dice"], "msg": "verifiable dice are not offered here"}],
        )
    return _dice_key


async def seal_plain_seeds(store: Store, key: str) -> int:
    """Seal under `key` every server seed stored as it is (sessions made before every
    deployment had a dice key), each in place and the same seed; how many this call sealed.
    Run at start: processes starting together seal each seed once (the store's compare)."""

    async def transaction(connection: Transaction) -> int:
        sealed = 0
        for session_id, stored in await repository.plain_secrets(connection, SEED_PLAIN):
            seed = open_seed(session_id, stored, key)
            made = seal_seed(session_id, seed, key)
            sealed += await repository.reseal_secret(connection, session_id, stored, made)
        return sealed

    return await store.run("write", transaction)


def default_key_file() -> Path:
    """Where the service keeps the dice key it made (SQLite without ARBITER_DICE_KEY): the
    user's state directory (XDG), not the database's folder."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "arbiter" / "dice-key"


def dice_key_for(settings: Settings) -> str | None:
    """The dice key of a deployment (docs/verifiable-dice.md#where-the-server-seed-lives):
    ARBITER_DICE_KEY when set; on PostgreSQL none otherwise, and no start while verifiable
    dice are offered (`StartupRefused`); on SQLite the key in its key file, made at the
    first start; for a database in memory, one for the process."""
    if settings.dice_key is not None:
        return settings.dice_key.get_secret_value()
    if not settings.verifiable_dice:
        return None
    postgres, database = database_file(settings.database_url)
    if postgres:
        raise StartupRefused(POSTGRES_NEEDS_A_KEY)
    if database is None:
        return secrets.token_hex(32)
    path = (settings.dice_key_file or default_key_file()).expanduser().absolute()
    folder = Path(database).expanduser().absolute().parent
    if path.resolve().is_relative_to(folder.resolve()):
        raise StartupRefused(
            f"the dice key file {path} is in the database's folder ({folder}): a copy of the "
            "folder would carry the key with the seeds it seals; set ARBITER_DICE_KEY_FILE "
            "to a path elsewhere"
        )
    try:
        return kept_key(path)
    except OSError as exc:
        raise StartupRefused(
            f"cannot keep the dice key in {path} ({exc.strerror or exc}); set "
            "ARBITER_DICE_KEY, or ARBITER_DICE_KEY_FILE to a writable path"
        ) from None


def kept_key(path: Path) -> str:
    """The key in `path`, made there first if there is none (readable by its owner only).

    Made whole in a file of its own and linked into place, so that of processes starting
    together one makes it and every one reads the same key.
    """
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        made = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
        descriptor = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(descriptor, (secrets.token_hex(32) + "\n").encode())
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        try:
            os.link(made, path)
        except FileExistsError:
            pass  # another process made it first: its key is the one
        finally:
            made.unlink()
    key = path.read_text(encoding="utf-8").strip()
    if len(key) < MIN_DICE_KEY:
        raise StartupRefused(
            f"the dice key file {path} holds no key of at least {MIN_DICE_KEY} characters"
        )
    return key


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
