"""Helpers shared by every router: body parsing, rendering answers, OpenAPI examples.

Request bodies are read as bytes and validated with pydantic's JSON parser in one step
(`parse_body`), and answers are written once with orjson (`respond`), as JSON or as their
`summary` line; `LeanRoute` (app/api/routing.py) calls both (ARCHITECTURE.md, "Speed").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NoReturn, TypeVar

import orjson
from fastapi import Request
from fastapi.openapi.models import Example
from pydantic import BaseModel, ValidationError
from starlette.responses import Response

from app.errors import MalformedJson, invalid_input_from_validation
from app.rules.dice import Dice, Key, NotationRoller, Rng
from app.rules.errors import Loc

ModelT = TypeVar("ModelT", bound=BaseModel)

JSON = "application/json"
TEXT = "text/plain; charset=utf-8"


async def parse_body(request: Request, model: type[ModelT]) -> ModelT:
    """Read and validate the JSON body: 400 when malformed, 422 naming the field when invalid."""
    raw = await request.body()
    # pydantic's parser takes NaN and ±Infinity as numbers, which JSON has not. Finding the
    # words costs about a twentieth of the parse (`find`: `in` first tries the needle as an
    # int); only a body containing them is parsed a second time.
    if (raw.find(b"NaN") >= 0 or raw.find(b"Infinity") >= 0) and not is_strict_json(raw):
        raise MalformedJson("the request body is not valid JSON (NaN and Infinity are not JSON)")
    try:
        return model.model_validate_json(raw or b"null")
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
    """`Accept: text/plain` (and not JSON) asks for the summary line alone."""
    accept = request.headers.get("accept")
    if not accept or "text/plain" not in accept:
        return False
    return JSON not in accept or accept.index("text/plain") < accept.index(JSON)


def json_response(
    body: Mapping[str, Any], status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(orjson.dumps(body), status, headers=dict(headers or {}), media_type=JSON)


def respond(
    request: Request,
    body: Mapping[str, Any],
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The result as JSON, or its `summary` line alone for `Accept: text/plain`."""
    if wants_text(request) and "summary" in body:
        return Response(
            str(body["summary"]) + "\n", status, headers=dict(headers or {}), media_type=TEXT
        )
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


def text_plain_doc() -> dict[int | str, dict[str, Any]]:
    """The `Accept: text/plain` alternative of a 200 answer, for `responses=`."""
    return {
        200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
        422: {"description": "Invalid input (problem+json)"},
    }


def examples(named: Mapping[str, Any]) -> dict[str, Example]:
    """Named request examples for `Body(openapi_examples=...)`."""
    return {name: {"summary": name, "value": value} for name, value in named.items()}
