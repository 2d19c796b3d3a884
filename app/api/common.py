"""Helpers shared by every router: body parsing, rendering answers, OpenAPI examples.

Request bodies are read as bytes and validated with pydantic's JSON parser in one step
(`parse_body`), and answers are written once with orjson (`respond`), as JSON or, for
`Accept: text/plain` or `text/markdown`, as a chat message (app/api/answers/formats.py); `LeanRoute`
(app/api/routing.py) calls both (ARCHITECTURE.md, "Speed").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any, Final, NoReturn, TypeVar

import orjson
from fastapi import Request
from fastapi.openapi.models import Example
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect
from starlette.responses import Response

from app.api.answers import formats
from app.api.answers.formats import Form, _negotiate, preferred_form
from app.api.schemas.common import validate_json
from app.errors import MalformedJson, UnsupportedMediaType, invalid_input_from_validation
from app.rules.dice import Dice, Key, NotationRoller, Rng
from app.rules.errors import Loc
from app.rules.messages import N_

ModelT = TypeVar("ModelT", bound=BaseModel)

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"
MARKDOWN = "text/markdown; charset=utf-8"


def header(request: Request, name: bytes) -> str | None:
    """The value of the request's header `name` (lower case), the first if it is repeated, as
    `request.headers.get` gives it; the headers are put in a table once per request (a round
    reads five, most of them absent, and Starlette's lookup scans the list for each)."""
    scope = request.scope
    table: dict[bytes, bytes] | None = scope.get(_HEADER_TABLE)
    if table is None:
        table = {}
        for key, value in scope["headers"]:
            table.setdefault(key, value)
        scope[_HEADER_TABLE] = table
    value = table.get(name)
    return None if value is None else value.decode("latin-1")


_HEADER_TABLE: Final = "arbiter.headers"


#: The request a lean route is serving (set by its handler, `app.api.routing`), so that work
#: that waits for long (an odds question queued for the worker) notices its caller leaving.
CALLER: ContextVar[Request | None] = ContextVar("caller", default=None)


async def read_body(request: Request) -> bytes:
    """The request's whole body, read once (later calls answer it again).

    What `Request.body()` does, straight from `receive`: Starlette's reads through an async
    generator, about a twentieth of a quick contest's time. A client that goes away first
    raises `ClientDisconnect`, as there.
    """
    scope = request.scope
    body: bytes | None = scope.get(BODY)
    if body is not None:
        return body
    chunks: list[bytes] = []
    while True:
        message = await request.receive()
        if message["type"] == "http.request":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        elif message["type"] == "http.disconnect":
            raise ClientDisconnect()
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    scope[BODY] = body
    return body


#: Where `read_body` keeps the body it read, in the request's scope.
BODY: Final = "arbiter.body"


def is_json_type(content_type: str | None) -> bool:
    """Whether a Content-Type names JSON: `application/json` or `application/<x>+json`."""
    if content_type is None:
        return False
    media_type = content_type.partition(";")[0].strip().lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


async def parse_body(request: Request, model: type[ModelT]) -> ModelT:
    """Read and validate the JSON body: 415 when it is not sent as JSON, 400 when malformed,
    422 naming the field when invalid."""
    raw = await read_body(request)
    refuse_other_types(request, raw)
    return parse_json(raw, model)


def refuse_other_types(request: Request, raw: bytes) -> None:
    """415 for a body not sent as JSON."""
    if raw and not is_json_type(header(request, b"content-type")):
        raise UnsupportedMediaType(
            N_("the request body must be sent as JSON (Content-Type: application/json)")
        )


def parse_json(raw: bytes, model: type[ModelT]) -> ModelT:
    """Validate a JSON body (`parse_body` without the request): 400 when malformed, 422 naming
    the field when invalid."""
    # pydantic's parser takes NaN and ±Infinity as numbers, which JSON has not. Finding the
    # words costs about a twentieth of the parse (`find`: `in` first tries the needle as an
    # int); only a body containing them is parsed a second time.
    if (raw.find(b"NaN") >= 0 or raw.find(b"Infinity") >= 0) and not is_strict_json(raw):
        raise MalformedJson(
            N_("the request body is not valid JSON (NaN and Infinity are not JSON)")
        )
    try:
        return validate_json(model, raw or b"null")
    except ValidationError as exc:
        raise invalid_input_from_validation(exc) from None


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(name)


def is_strict_json(raw: bytes) -> bool:
    """Whether `raw` parses as JSON without NaN, Infinity or -Infinity (which the standard
    library, like pydantic, would take)."""
    try:
        json.loads(raw, parse_constant=_refuse_constant)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError are ValueErrors too
        return False
    return True


def wants_text(request: Request) -> bool:
    """`Accept` prefers the summary line alone (`text/plain`) to JSON and markdown."""
    return preferred_form(header(request, b"accept")) == "text"


def json_response(
    body: Mapping[str, Any], status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """The answer as JSON, its summary lines postable as they are (`formats.postable`)."""
    formats.postable(body)
    if headers or status < 200 or status in (204, 304):
        return Response(orjson.dumps(body), status, headers=dict(headers or {}), media_type=JSON)
    return JsonAnswer(orjson.dumps(body), status)


class JsonAnswer(Response):
    """A JSON answer with no headers of its own: Starlette's `Response` with its two headers
    written directly rather than worked out (they are always these)."""

    media_type = JSON

    def __init__(self, content: bytes, status_code: int = 200) -> None:
        self.status_code = status_code
        self.background = None
        self.body = content
        self.raw_headers = [
            (b"content-length", str(len(content)).encode()),
            (b"content-type", b"application/json"),
        ]


def message_response(
    form: Form,
    body: Mapping[str, Any],
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response | None:
    """The answer as a chat message of `form` (text or markdown), or None when it has none."""
    if form == "text":
        message, media_type = formats.text_message(body), TEXT
    elif form == "markdown":
        message, media_type = formats.markdown_message(body), MARKDOWN
    else:
        return None
    if message is None:
        return None
    return Response(
        message, status, headers={**(headers or {}), "Vary": "Accept"}, media_type=media_type
    )


def respond(
    request: Request,
    body: Mapping[str, Any],
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The result as JSON, or as a chat message for `Accept: text/plain` or `text/markdown`.

    An answer without a summary line (a page of rounds, for text) stays JSON.
    """
    accept = header(request, b"accept")
    if accept is not None and "text/" in accept:
        form = _negotiate(accept)
        if form != "json":
            message = message_response(form, body, status, headers)
            if message is not None:
                return message
    return json_response(body, status, headers)


def make_dice(
    rng: Rng,
    supplied: Mapping[Key, list[int] | tuple[int, ...] | None],
    locs: Mapping[Key, Loc] | None = None,
    notation: NotationRoller | None = None,
) -> Dice:
    """A dice source from the supplied values that are present (`None` means: roll them)."""
    present = {key: list(values) for key, values in supplied.items() if values is not None}
    return Dice(rng, present, locs=locs, notation=notation)


def message_doc(
    status: int = 200, *, text: bool = True, model: Any = None
) -> dict[int | str, dict[str, Any]]:
    """The chat-message alternatives of a `status` answer, for `responses=`: `text/markdown`,
    and `text/plain` unless the answer has no summary line (`text=False`, a page of rounds);
    `model` is the type of its JSON (a lean route's answer, app/api/routing.py)."""
    content: dict[str, Any] = {"text/markdown": {"schema": {"type": "string"}}}
    if text:
        content["text/plain"] = {"schema": {"type": "string"}}
    answer: dict[str, Any] = {
        "description": "The result as JSON; for `Accept: text/plain` its summary line, "
        "for `text/markdown` a Discord-ready message (summary line, then every die: "
        "criticals in bold, dropped dice struck through). Both neutralise caller-chosen "
        "names and stay within 2000 characters.",
        "content": content,
    }
    if model is not None:
        answer["model"] = model
    return {status: answer}


def text_plain_doc(model: Any = None) -> dict[int | str, dict[str, Any]]:
    """The `Accept: text/plain` and `text/markdown` alternatives of a one-shot's 200 answer,
    for `responses=` (`model`: the type of its JSON, when the endpoint returns a Response)."""
    return {**message_doc(model=model), 422: {"description": "Invalid input (problem+json)"}}


def examples(named: Mapping[str, Any]) -> dict[str, Example]:
    """Named request examples for `Body(openapi_examples=...)`."""
    return {name: {"summary": name, "value": value} for name, value in named.items()}


def revalidated(
    request: Request, content: bytes, etag: str, media_type: str, headers: Mapping[str, str]
) -> Response:
    """`content` served with its ETag, or a 304 when the caller holds that version already
    (`If-None-Match`): a page, its strings or an asset built once and kept."""
    tagged = {**headers, "ETag": etag}
    if etag in request.headers.get("if-none-match", ""):
        return Response(status_code=304, headers=tagged)
    return Response(content, media_type=media_type, headers=tagged)
