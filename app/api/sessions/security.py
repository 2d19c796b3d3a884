"""Session tokens and the encryption of stored idempotent answers.

Tokens carry 256 bits from `secrets`; the store keeps only their SHA-256, compared in
constant time. Idempotency keys are stored only as digests too, and a stored answer is
encrypted and authenticated with AES-256-GCM under a key derived (HKDF-SHA256) from the raw
Idempotency-Key, which only the caller holds: an altered stored answer is refused, never
replayed. A creation's stored answer holds the new session's tokens only when the caller
scoped its key with a secret of its own (see `creation_scope` in app/api/sessions/idempotency.py).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from fastapi import Request

from app.api.common import header
from app.errors import Unauthorized
from app.rules.messages import N_

if TYPE_CHECKING:
    from app.store.repository import SessionRecord

TOKEN_BYTES = 32
NONCE_BYTES = 12


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def optional_bearer(request: Request) -> str | None:
    """The bearer token if the request carries an Authorization header (then well-formed)."""
    if header(request, b"authorization") is None:
        return None
    return bearer_token(request)


def bearer_token(request: Request) -> str:
    """The `Authorization: Bearer <token>` of a session call, or 401."""
    value = header(request, b"authorization")
    if not value:
        raise Unauthorized(N_("this call needs Authorization: Bearer <token>"))
    scheme, _, token = value.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        raise Unauthorized(N_("malformed Authorization header; expected Bearer <token>"))
    return token


@dataclass(frozen=True, slots=True)
class Role:
    """Who a token speaks for: the GM, one party, or one competitor's seat."""

    kind: Literal["gm", "party", "seat"]
    party: str | None = None
    #: The competitor a seat token sits for.
    seat: str | None = None

    @property
    def is_gm(self) -> bool:
        return self.kind == "gm"


def identify(
    token: str,
    gm_hash: str,
    party_hashes: Mapping[str, str],
    seat_hashes: Mapping[str, str] | None = None,
) -> Role | None:
    """The role `token` holds in a session, comparing every hash in constant time."""
    digest = token_hash(token)
    found: Role | None = None
    if hmac.compare_digest(digest, gm_hash):
        found = Role("gm")
    for party, party_hash in party_hashes.items():
        if hmac.compare_digest(digest, party_hash) and found is None:
            found = Role("party", party)
    for seat, seat_hash in (seat_hashes or {}).items():
        if hmac.compare_digest(digest, seat_hash) and found is None:
            found = Role("seat", seat=seat)
    return found


def role_of(token: str, record: SessionRecord) -> Role | None:
    """The role `token` holds in the session `record`: GM, party, seat, or none."""
    return identify(
        token, record.gm_token_hash, record.party_token_hashes, record.seat_token_hashes
    )


def key_digest(scope: str, key: str) -> str:
    """How an Idempotency-Key is stored: its SHA-256 within its scope."""
    return hashlib.sha256(f"arbiter-idempotency-key\x1f{scope}\x1f{key}".encode()).hexdigest()


class TamperedAnswer(Exception):
    """A stored answer failed authentication: it was altered, or sealed under another key."""


def _answer_key(scope: str, key: str) -> AESGCM:
    """The AES-256-GCM key for answers stored under `key` in `scope` (HKDF-SHA256)."""
    derived = HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt=None,
        info=f"arbiter-idempotency-answer\x1f{scope}".encode(),
    ).derive(key.encode())
    return AESGCM(derived)


def seal_body(scope: str, key: str, body: bytes) -> bytes:
    """Encrypt and authenticate a stored answer under the raw key: nonce || ciphertext+tag."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    return nonce + _answer_key(scope, key).encrypt(nonce, body, scope.encode())


def open_body(scope: str, key: str, sealed: bytes) -> bytes:
    """The stored answer `seal_body` sealed, or `TamperedAnswer` if it was altered."""
    nonce, ciphertext = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
    try:
        return _answer_key(scope, key).decrypt(nonce, ciphertext, scope.encode())
    except (InvalidTag, ValueError):
        raise TamperedAnswer(scope) from None


def request_fingerprint(method: str, path: str, token: str | None, body: bytes) -> bytes:
    """Identifies a request: the same key with another fingerprint is a different request."""
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), (token or "").encode()):
        digest.update(len(part).to_bytes(4, "big") + part)
    digest.update(body)
    return digest.digest()


#: How a verifiable session's server seed is stored: a version byte, then the seed as it is
#: (no dice key set) or sealed (nonce || ciphertext+tag).
SEED_PLAIN, SEED_SEALED = b"\x00", b"\x01"


class SealedSeed(Exception):
    """A stored server seed that cannot be opened: altered, or sealed under another dice key
    (or none is set)."""


def _seed_key(dice_key: str, session_id: str) -> AESGCM:
    derived = HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt=None,
        info=f"arbiter-dice-seed\x1f{session_id}".encode(),
    ).derive(dice_key.encode())
    return AESGCM(derived)


def seal_seed(session_id: str, seed: bytes, dice_key: str | None) -> bytes:
    """A server seed as the store keeps it: sealed under the dice key (its session's id
    authenticated with it), or as it is when no key is set."""
    if dice_key is None:
        return SEED_PLAIN + seed
    nonce = secrets.token_bytes(NONCE_BYTES)
    sealed = _seed_key(dice_key, session_id).encrypt(nonce, seed, session_id.encode())
    return SEED_SEALED + nonce + sealed


def open_seed(session_id: str, stored: bytes, dice_key: str | None) -> bytes:
    """The server seed `seal_seed` stored, or `SealedSeed`."""
    version, rest = stored[:1], stored[1:]
    if version == SEED_PLAIN:
        return rest
    if version != SEED_SEALED or dice_key is None:
        raise SealedSeed(session_id)
    nonce, ciphertext = rest[:NONCE_BYTES], rest[NONCE_BYTES:]
    try:
        return _seed_key(dice_key, session_id).decrypt(nonce, ciphertext, session_id.encode())
    except (InvalidTag, ValueError):
        raise SealedSeed(session_id) from None


#: How a webhook's signing secret is stored: a version byte, then the secret as it is (no
#: webhook key set) or sealed (nonce || ciphertext+tag), as the server seeds are.
SECRET_PLAIN, SECRET_SEALED = b"\x00", b"\x01"


class SealedSecret(Exception):
    """A stored webhook secret that cannot be opened: altered, or sealed under another key."""


def _webhook_key(webhook_key: str, subscription_id: str) -> AESGCM:
    derived = HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt=None,
        info=f"arbiter-webhook-secret\x1f{subscription_id}".encode(),
    ).derive(webhook_key.encode())
    return AESGCM(derived)


def seal_webhook_secret(subscription_id: str, secret: bytes, webhook_key: str | None) -> bytes:
    """A webhook's signing secret as the store keeps it: sealed under the webhook key (its
    subscription's id authenticated with it), or as it is when no key is set."""
    if webhook_key is None:
        return SECRET_PLAIN + secret
    nonce = secrets.token_bytes(NONCE_BYTES)
    sealed = _webhook_key(webhook_key, subscription_id).encrypt(
        nonce, secret, subscription_id.encode()
    )
    return SECRET_SEALED + nonce + sealed


def open_webhook_secret(subscription_id: str, stored: bytes, webhook_key: str | None) -> bytes:
    """The signing secret `seal_webhook_secret` stored, or `SealedSecret`."""
    version, rest = stored[:1], stored[1:]
    if version == SECRET_PLAIN:
        return rest
    if version != SECRET_SEALED or webhook_key is None:
        raise SealedSecret(subscription_id)
    nonce, ciphertext = rest[:NONCE_BYTES], rest[NONCE_BYTES:]
    try:
        return _webhook_key(webhook_key, subscription_id).decrypt(
            nonce, ciphertext, subscription_id.encode()
        )
    except (InvalidTag, ValueError):
        raise SealedSecret(subscription_id) from None
