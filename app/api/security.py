"""Session tokens and the encryption of stored idempotent answers.

Tokens carry 256 bits from `secrets`; the store keeps only their SHA-256, compared in
constant time. Idempotency keys are stored only as digests too, and a stored answer (which,
for a session's creation, holds that session's tokens) is encrypted with a keystream derived
from the raw key, which only the caller holds.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Literal

from fastapi import Request

from app.errors import Unauthorized

TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(request: Request) -> str:
    """The `Authorization: Bearer <token>` of a session call, or 401."""
    header = request.headers.get("authorization")
    if not header:
        raise Unauthorized("this call needs Authorization: Bearer <token>")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        raise Unauthorized("malformed Authorization header; expected Bearer <token>")
    return token


@dataclass(frozen=True, slots=True)
class Role:
    """Who a token speaks for: the GM, or one party."""

    kind: Literal["gm", "party"]
    party: str | None = None

    @property
    def is_gm(self) -> bool:
        return self.kind == "gm"


def identify(token: str, gm_hash: str, party_hashes: dict[str, str]) -> Role | None:
    """The role `token` holds in a session, comparing every hash in constant time."""
    digest = token_hash(token)
    found: Role | None = None
    if hmac.compare_digest(digest, gm_hash):
        found = Role("gm")
    for party, party_hash in party_hashes.items():
        if hmac.compare_digest(digest, party_hash) and found is None:
            found = Role("party", party)
    return found


def key_digest(scope: str, key: str) -> str:
    """How an Idempotency-Key is stored: its SHA-256 within its scope."""
    return hashlib.sha256(f"arbiter-idempotency-key\x1f{scope}\x1f{key}".encode()).hexdigest()


def _keystream(scope: str, key: str, length: int) -> bytes:
    seed = hashlib.sha256(f"arbiter-idempotency-body\x1f{scope}\x1f{key}".encode()).digest()
    blocks = bytearray()
    counter = 0
    while len(blocks) < length:
        blocks += hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1
    return bytes(blocks[:length])


def seal_body(scope: str, key: str, body: bytes) -> bytes:
    """Encrypt (or, applied again, decrypt) a stored answer under the raw key."""
    if not body:
        return body
    stream = _keystream(scope, key, len(body))
    mixed = int.from_bytes(body, "big") ^ int.from_bytes(stream, "big")
    return mixed.to_bytes(len(body), "big")


def request_fingerprint(method: str, path: str, token: str | None, body: bytes) -> bytes:
    """Identifies a request: the same key with another fingerprint is a different request."""
    digest = hashlib.sha256()
    for part in (method.encode(), path.encode(), (token or "").encode()):
        digest.update(len(part).to_bytes(4, "big") + part)
    digest.update(body)
    return digest.digest()
