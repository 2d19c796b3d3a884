"""Arbiter's errors as exceptions: every answer that is not a success raises `ArbiterError`.

The server answers errors as `application/problem+json` (RFC 9457); the exception carries that
body parsed (`problem`), and its class names the case, so a caller can catch the one it handles
(a stale `If-Match` is `PreconditionFailed`, a busy store `ServiceUnavailable` with its
`retry_after`).
"""

from __future__ import annotations

from typing import ClassVar

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError


class FieldError(BaseModel):
    """One invalid part of a request: where it is (`loc`) and what is wrong with it."""

    model_config = ConfigDict(extra="ignore")

    loc: list[str | int]
    msg: str


class Problem(BaseModel):
    """An `application/problem+json` body; `errors` lists a 422's invalid fields."""

    model_config = ConfigDict(extra="allow")

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None
    errors: list[FieldError] | None = None
    errors_omitted: int | None = None


class ArbiterError(Exception):
    """An answer outside 2xx, with its problem+json body and its headers."""

    status: ClassVar[int | None] = None

    def __init__(self, problem: Problem, headers: httpx.Headers) -> None:
        super().__init__(f"{problem.status} {problem.title}: {problem.detail or problem.title}")
        self.problem = problem
        self.headers = headers

    @property
    def status_code(self) -> int:
        return self.problem.status


class MalformedRequest(ArbiterError):
    status = 400


class Unauthorized(ArbiterError):
    status = 401


class Forbidden(ArbiterError):
    status = 403


class NotFound(ArbiterError):
    status = 404


class MethodNotAllowed(ArbiterError):
    status = 405


class Conflict(ArbiterError):
    """409: the contest is over, or the same Idempotency-Key is still being processed."""

    status = 409


class PreconditionFailed(ArbiterError):
    """412: the `If-Match` version is not the session's version any more."""

    status = 412


class PayloadTooLarge(ArbiterError):
    status = 413


class InvalidInput(ArbiterError):
    """422: the request is well-formed but breaks a rule; `problem.errors` says where."""

    status = 422


class PreconditionRequired(ArbiterError):
    status = 428


class TooManyRequests(ArbiterError):
    status = 429


class ServiceUnavailable(ArbiterError):
    """503: the store is away or busy, or the odds worker is (`odds-busy`) or was too slow
    (`odds-late`); retry after `retry_after` seconds."""

    status = 503

    @property
    def retry_after(self) -> int | None:
        value: str | None = self.headers.get("retry-after")
        return int(value) if value is not None and value.isdigit() else None


BY_STATUS: dict[int, type[ArbiterError]] = {
    kind.status: kind
    for kind in (
        MalformedRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        Conflict,
        PreconditionFailed,
        PayloadTooLarge,
        InvalidInput,
        PreconditionRequired,
        TooManyRequests,
        ServiceUnavailable,
    )
    if kind.status is not None
}


def error_for(response: httpx.Response) -> ArbiterError:
    """The exception for an unsuccessful `response`, whatever its body turned out to be."""
    try:
        problem = Problem.model_validate_json(response.content)
    except ValidationError:
        # A proxy in front of the service may answer with HTML or nothing at all.
        problem = Problem(
            title=response.reason_phrase or "Error",
            status=response.status_code,
            detail=response.text[:500] or None,
        )
    return BY_STATUS.get(response.status_code, ArbiterError)(problem, response.headers)
