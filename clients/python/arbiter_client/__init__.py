"""A typed client for Arbiter, the tabletop-RPG contest service (sync and async, on httpx)."""

from arbiter_client import models, operations
from arbiter_client.calls import Call, Reply, UnexpectedAnswer
from arbiter_client.client import Arbiter, AsyncArbiter
from arbiter_client.errors import (
    ArbiterError,
    Conflict,
    FieldError,
    Forbidden,
    InvalidInput,
    MalformedRequest,
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    PreconditionFailed,
    PreconditionRequired,
    Problem,
    ServiceUnavailable,
    TooManyRequests,
    Unauthorized,
)

__all__ = [
    "Arbiter",
    "ArbiterError",
    "AsyncArbiter",
    "Call",
    "Conflict",
    "FieldError",
    "Forbidden",
    "InvalidInput",
    "MalformedRequest",
    "MethodNotAllowed",
    "NotFound",
    "PayloadTooLarge",
    "PreconditionFailed",
    "PreconditionRequired",
    "Problem",
    "Reply",
    "ServiceUnavailable",
    "TooManyRequests",
    "Unauthorized",
    "UnexpectedAnswer",
    "models",
    "operations",
]
