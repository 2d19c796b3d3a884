"""One error hierarchy, mapped once to problem+json (RFC 9457) in `install_error_handlers`."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.rules.errors import PhaseError, RulesError

log = logging.getLogger("arbiter")

PROBLEM_JSON = "application/problem+json"
TYPE_BASE = "https://arbiter.example/problems/"


class ApiError(Exception):
    """An error with an HTTP status; subclasses name the cases of API.md's error table."""

    status: int = 500
    title: str = "Internal Server Error"
    slug: str = "internal"

    def __init__(
        self,
        detail: str | None = None,
        *,
        errors: Sequence[dict[str, Any]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.errors = list(errors) if errors else None
        self.headers = headers or {}


class MalformedJson(ApiError):
    status, title, slug = 400, "Malformed JSON", "malformed-json"


class Unauthorized(ApiError):
    status, title, slug = 401, "Unauthorized", "unauthorized"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail, headers={"WWW-Authenticate": "Bearer"})


class Forbidden(ApiError):
    status, title, slug = 403, "Forbidden", "forbidden"


class NotFound(ApiError):
    status, title, slug = 404, "Not Found", "not-found"


class MethodNotAllowed(ApiError):
    status, title, slug = 405, "Method Not Allowed", "method-not-allowed"


class Conflict(ApiError):
    status, title, slug = 409, "Conflict", "conflict"


class PreconditionFailed(ApiError):
    status, title, slug = 412, "Precondition Failed", "precondition-failed"


class PayloadTooLarge(ApiError):
    status, title, slug = 413, "Payload Too Large", "payload-too-large"


class InvalidInput(ApiError):
    status, title, slug = 422, "Invalid input", "invalid-input"


class TooManyRequests(ApiError):
    status, title, slug = 429, "Too Many Requests", "rate-limited"


class ServiceUnavailable(ApiError):
    status, title, slug = 503, "Service Unavailable", "unavailable"


def problem_response(
    status: int,
    title: str,
    detail: str,
    *,
    slug: str,
    errors: Sequence[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    body: dict[str, Any] = {
        "type": TYPE_BASE + slug,
        "title": title,
        "status": status,
        "detail": detail,
    }
    if errors is not None:
        body["errors"] = list(errors)
    return Response(orjson.dumps(body), status, headers=headers, media_type=PROBLEM_JSON)


def api_error_response(exc: ApiError) -> Response:
    return problem_response(
        exc.status, exc.title, exc.detail, slug=exc.slug, errors=exc.errors, headers=exc.headers
    )


def _loc(parts: Sequence[Any]) -> list[str | int]:
    return [part if isinstance(part, int) else str(part) for part in parts]


def validation_errors(
    exc: ValidationError | RequestValidationError, prefix: str = ""
) -> list[dict[str, Any]]:
    """pydantic errors as API.md's `[{"loc", "msg"}]`, with input values left out."""
    out: list[dict[str, Any]] = []
    for error in exc.errors():
        loc = _loc(error.get("loc", ()))
        if prefix and (not loc or loc[0] != prefix):
            loc = [prefix, *loc]
        out.append({"loc": loc, "msg": str(error.get("msg", "invalid"))})
    return out or [{"loc": [prefix] if prefix else [], "msg": "invalid input"}]


def invalid_input_from_validation(exc: ValidationError, prefix: str = "body") -> ApiError:
    """A pydantic error on a request body: 400 for malformed JSON, else 422."""
    for error in exc.errors():
        if error.get("type") == "json_invalid":
            return MalformedJson("the request body is not valid JSON")
    errors = validation_errors(exc, prefix)
    return InvalidInput(_first_message(errors), errors=errors)


def rules_error(exc: RulesError, prefix: str = "body") -> ApiError:
    errors = [
        {
            "loc": [prefix, *_loc(violation.loc)] if prefix else _loc(violation.loc),
            "msg": violation.msg,
        }
        for violation in exc.violations
    ]
    return InvalidInput(exc.msg, errors=errors)


def _first_message(errors: Sequence[dict[str, Any]]) -> str:
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def install_error_handlers(app: FastAPI) -> None:
    """Map every error, ours and the framework's, to problem+json."""

    async def on_api_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return api_error_response(exc)

    async def on_rules_error(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, RulesError)
        return api_error_response(rules_error(exc))

    async def on_phase_error(_: Request, exc: Exception) -> Response:
        return api_error_response(Conflict(str(exc)))

    async def on_request_validation(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        for error in exc.errors():
            if error.get("type") == "json_invalid":
                return api_error_response(MalformedJson("the request body is not valid JSON"))
        errors = validation_errors(exc)
        return api_error_response(InvalidInput(_first_message(errors), errors=errors))

    async def on_http_exception(_: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        titles = {404: NotFound, 405: MethodNotAllowed, 413: PayloadTooLarge}
        kind = titles.get(exc.status_code)
        if kind is not None:
            detail = exc.detail if exc.status_code != 404 else "no such resource"
            return api_error_response(kind(str(detail)))
        return problem_response(
            exc.status_code,
            str(exc.detail),
            str(exc.detail),
            slug=f"http-{exc.status_code}",
            headers=dict(exc.headers or {}),
        )

    async def on_unexpected(_: Request, exc: Exception) -> Response:
        log.exception("unhandled error", exc_info=exc)
        return api_error_response(ApiError("an unexpected error occurred; nothing was changed"))

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RulesError, on_rules_error)
    app.add_exception_handler(PhaseError, on_phase_error)
    app.add_exception_handler(RequestValidationError, on_request_validation)
    app.add_exception_handler(StarletteHTTPException, on_http_exception)
    app.add_exception_handler(Exception, on_unexpected)
