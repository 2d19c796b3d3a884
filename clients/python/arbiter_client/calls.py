"""What a call to Arbiter is, independent of how it is sent: `Call[T]` and its answer `Reply[T]`.

A `Call` holds the method, path, body and headers of one request and how to parse each success
status it may answer into its model `T`; `Arbiter.send` and `AsyncArbiter.send` send it. The
calls themselves are built by `arbiter_client.operations`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from arbiter_client.errors import error_for

T = TypeVar("T")
ModelT = TypeVar("ModelT", bound=BaseModel)

#: A request body: the generated model, or the same JSON as a mapping.
Body = BaseModel | Mapping[str, Any]


class UnexpectedAnswer(Exception):
    """A success status the operation does not document (a proxy's, or a newer server's)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"unexpected {response.status_code} from {response.request.url}")
        self.response = response


@dataclass(frozen=True, slots=True)
class Reply(Generic[T]):
    """A successful answer: its status, its body parsed into a model, and its headers."""

    status: int
    body: T
    headers: httpx.Headers

    @property
    def etag(self) -> str | None:
        """The session's version as an entity tag (`"3"`): send it back as `If-Match`."""
        tag: str | None = self.headers.get("etag")
        return tag

    @property
    def version(self) -> int | None:
        """The session's version that `ETag` carries, as a number."""
        tag = self.etag
        if tag is None:
            return None
        digits = tag.removeprefix("W/").strip('"')
        return int(digits) if digits.isdigit() else None

    @property
    def location(self) -> str | None:
        location: str | None = self.headers.get("location")
        return location

    @property
    def replayed(self) -> bool:
        """True when the answer is a replay of an earlier request with the same Idempotency-Key."""
        flag: str = self.headers.get("idempotent-replayed", "")
        return flag.lower() == "true"


@dataclass(frozen=True, slots=True)
class Call(Generic[T]):
    """One request, and the parser of each success status it answers."""

    method: str
    path: str
    answers: Mapping[int, Callable[[bytes], T]]
    body: Body | None = None
    params: Mapping[str, str | int] = field(default_factory=dict)
    headers: Mapping[str, str] = field(default_factory=dict)

    def request(self, http: httpx.Client | httpx.AsyncClient, token: str | None) -> httpx.Request:
        headers = {"accept": "application/json", **self.headers}
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        content: bytes | None = None
        if self.body is not None:
            headers["content-type"] = "application/json"
            content = encode(self.body)
        return http.build_request(
            self.method, self.path, params=dict(self.params), headers=headers, content=content
        )

    def reply(self, response: httpx.Response) -> Reply[T]:
        """The parsed answer; raises `ArbiterError` (problem+json) for any error status."""
        if response.is_error:
            raise error_for(response)
        parse = self.answers.get(response.status_code)
        if parse is None:
            raise UnexpectedAnswer(response)
        return Reply(response.status_code, parse(response.content), response.headers)


def encode(body: Body) -> bytes:
    if isinstance(body, BaseModel):
        # Fields the caller left unset stay out, so the server applies its own defaults.
        return body.model_dump_json(by_alias=True, exclude_unset=True).encode()
    return json.dumps(body, allow_nan=False).encode()


def parser(model: type[ModelT]) -> Callable[[bytes], ModelT]:
    return model.model_validate_json


def no_content(_: bytes) -> None:
    return None


def segment(value: str) -> str:
    """A path segment from a caller's value: an id is never allowed to add a segment."""
    return quote(value, safe="")


def precondition(if_match: int | str | None, idempotency_key: str | None) -> dict[str, str]:
    """The `If-Match` (a version number, or an ETag as received) and `Idempotency-Key` headers."""
    headers: dict[str, str] = {}
    if if_match is not None:
        headers["if-match"] = f'"{if_match}"' if isinstance(if_match, int) else if_match
    if idempotency_key is not None:
        headers["idempotency-key"] = idempotency_key
    return headers
