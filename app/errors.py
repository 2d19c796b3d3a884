"""One error hierarchy, mapped once to problem+json (RFC 9457) in `install_error_handlers`."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import Response

from app.api import i18n
from app.api.answers.formats import error_message, plain, preferred_form
from app.rules.errors import PhaseError, RulesError
from app.rules.messages import N_, Listing, Message, english, m, ng, term
from app.store.database import Unavailable

log = logging.getLogger("arbiter")

PROBLEM_JSON = "application/problem+json"
TYPE_BASE = "https://arbiter.example/problems/"
#: A 422 lists this many errors at most (and counts the rest in `errors_omitted`): a 64 KB
#: body can make thousands, and the answer must stay small.
MAX_ERRORS = 50
#: What a 503 asks a client to wait before retrying, in seconds, unless it says otherwise.
RETRY_AFTER_SECONDS = 5


class ApiError(Exception):
    """An error with an HTTP status; subclasses name the cases of docs/api.md#errors."""

    status: int = 500
    title: str = N_("Internal Server Error")
    slug: str = "internal"

    def __init__(
        self,
        detail: str | Message | None = None,
        *,
        errors: Sequence[dict[str, Any]] | None = None,
        omitted: int = 0,
        headers: dict[str, str] | None = None,
        said: Message | None = None,
    ) -> None:
        """`detail`: a fixed sentence (marked `N_`), or a message naming its values (then
        `said`); `omitted`: errors found beyond those in `errors` (which is cut to
        `MAX_ERRORS`); `said`: the detail as a message, when it is built of parts
        (docs/languages.md)."""
        if isinstance(detail, Message):
            said, detail = detail, english(detail)
        listed = list(errors[:MAX_ERRORS]) if errors else None
        self.omitted = omitted + (len(errors) - len(listed) if errors and listed else 0)
        if self.omitted:
            if said is not None:
                said = m("{detail} (and {count} more errors)", detail=said, count=self.omitted)
            detail = f"{detail or self.title} (and {self.omitted} more errors)"
        self.said = said
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.errors = listed
        self.headers = headers or {}


class MalformedJson(ApiError):
    status, title, slug = 400, N_("Malformed JSON"), "malformed-json"


class Unauthorized(ApiError):
    status, title, slug = 401, N_("Unauthorized"), "unauthorized"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail, headers={"WWW-Authenticate": "Bearer"})


class Forbidden(ApiError):
    status, title, slug = 403, N_("Forbidden"), "forbidden"


class NotFound(ApiError):
    status, title, slug = 404, N_("Not Found"), "not-found"


def not_found(what: str, identifier: str) -> NotFound:
    """`no chase with id …`: the 404 of a session (or another thing) that is not there, its
    detail a message (`what` a word marked with `N_`: see `THINGS`)."""
    return NotFound(
        f"no {what} with id {identifier}",
        said=m("no {what} with id {id}", what=term(what), id=identifier),
    )


#: What a 404 names, as `not_found` shows it: each kind's title and the webhooks' things.
THINGS = (
    N_("arm wrestle"),
    N_("chase"),
    N_("race"),
    N_("regular contest"),
    N_("skill game"),
    N_("webhook"),
)


class MethodNotAllowed(ApiError):
    status, title, slug = 405, N_("Method Not Allowed"), "method-not-allowed"


class Conflict(ApiError):
    status, title, slug = 409, N_("Conflict"), "conflict"


class PreconditionFailed(ApiError):
    status, title, slug = 412, N_("Precondition Failed"), "precondition-failed"


class RequestTimeout(ApiError):
    status, title, slug = 408, N_("Request Timeout"), "request-timeout"


class PayloadTooLarge(ApiError):
    status, title, slug = 413, N_("Payload Too Large"), "payload-too-large"


class UnsupportedMediaType(ApiError):
    status, title, slug = 415, N_("Unsupported Media Type"), "unsupported-media-type"


class InvalidInput(ApiError):
    status, title, slug = 422, N_("Invalid input"), "invalid-input"


class TooManyRequests(ApiError):
    status, title, slug = 429, N_("Too Many Requests"), "rate-limited"


class TooManyStreams(TooManyRequests):
    """429, always with `Retry-After`: a session's or a token's live streams are all taken
    (docs/api.md#live-events); one comes free when a stream ends."""

    slug = "too-many-streams"

    def __init__(self, detail: str | Message, *, retry_after: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class ServiceUnavailable(ApiError):
    """503, always with `Retry-After`: the condition is expected to pass."""

    status, title, slug = 503, N_("Service Unavailable"), "unavailable"

    def __init__(
        self, detail: str | Message | None = None, *, retry_after: int = RETRY_AFTER_SECONDS
    ) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class OddsBusy(ServiceUnavailable):
    """503: the odds worker has as many questions waiting as it takes (`odds_queue_limit`)."""

    title, slug = N_("Odds Worker Busy"), "odds-busy"


class OddsLate(ServiceUnavailable):
    """503: an odds question not answered within its deadline (`odds_deadline_seconds`)."""

    title, slug = N_("Odds Past Their Deadline"), "odds-late"


class ClientClosedRequest(ApiError):
    """The client went away before its request was read: nobody receives this answer, but
    access logs and metrics see 499 (as nginx names it), not a server error."""

    status, title, slug = 499, N_("Client Closed Request"), "client-closed-request"


def problem_response(
    status: int,
    title: str,
    detail: str,
    *,
    slug: str,
    errors: Sequence[dict[str, Any]] | None = None,
    errors_omitted: int = 0,
    headers: dict[str, str] | None = None,
) -> Response:
    body: dict[str, Any] = {
        "type": TYPE_BASE + slug,
        # In the request's language when the catalogs hold them (docs/languages.md); `type`
        # and `errors` never change with it.
        "title": i18n.gettext(title),
        "status": status,
        # A caller's name in it is postable as it is: one line, no mentions.
        "detail": plain(i18n.gettext(detail)),
    }
    if errors is not None:
        body["errors"] = list(errors)
        if errors_omitted:
            body["errors_omitted"] = errors_omitted
    return Response(orjson.dumps(body), status, headers=headers, media_type=PROBLEM_JSON)


def detail_of(exc: ApiError) -> str:
    """The error's detail in the request's language: its message's, else its fixed sentence's
    (translated by `problem_response`), else as written."""
    return exc.detail if exc.said is None else i18n.said(exc.said)


def api_error_response(exc: ApiError) -> Response:
    return problem_response(
        exc.status,
        exc.title,
        detail_of(exc),
        slug=exc.slug,
        errors=exc.errors,
        errors_omitted=exc.omitted,
        headers=exc.headers,
    )


def _loc(parts: Sequence[Any]) -> list[str | int]:
    return [part if isinstance(part, int) else str(part) for part in parts]


def invalid_input(errors: Sequence[Mapping[str, Any]], prefix: str = "") -> ApiError:
    """pydantic's errors as a 422 listing docs/api.md#errors (input values left
    out), the first `MAX_ERRORS` of them; 400 when the body was not JSON at all."""
    if errors and errors[0].get("type") == "json_invalid":
        return MalformedJson(N_("the request body is not valid JSON"))
    out: list[dict[str, Any]] = []
    for error in errors[:MAX_ERRORS]:
        loc = _loc(error.get("loc", ()))
        if prefix and (not loc or loc[0] != prefix):
            loc = [prefix, *loc]
        out.append({"loc": loc, "msg": str(error.get("msg", "invalid"))})
    if not out:
        out = [{"loc": [prefix] if prefix else [], "msg": "invalid input"}]
    return InvalidInput(
        _first_message(out),
        errors=out,
        omitted=max(0, len(errors) - MAX_ERRORS),
        said=_first_said(out, errors[0] if errors else {}),
    )


def invalid_input_from_validation(exc: ValidationError, prefix: str = "body") -> ApiError:
    """A pydantic error on a request body: 400 for malformed JSON, else 422."""
    # Without urls and inputs: a large body can fail in thousands of places. (The contexts
    # are small: the first error's names the values its message shows, docs/languages.md.)
    return invalid_input(exc.errors(include_url=False, include_input=False), prefix)


def rules_error(exc: RulesError, prefix: str = "body") -> ApiError:
    errors = [
        {
            "loc": [prefix, *_loc(violation.loc)] if prefix else _loc(violation.loc),
            "msg": violation.msg,
        }
        for violation in exc.violations
    ]
    return InvalidInput(exc.msg, errors=errors, said=exc.said)


def _first_message(errors: Sequence[dict[str, Any]]) -> str:
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


#: pydantic's messages that name no value, as a 422's detail shows them in another language
#: (its `errors` keep pydantic's own words).
PYDANTIC_WORDS: Final = (
    N_("Field required"),
    N_("Extra inputs are not permitted"),
    N_("Input should be a valid integer"),
    N_("Input should be a valid integer, unable to parse string as an integer"),
    N_("Input should be a valid string"),
    N_("Input should be a valid boolean"),
    N_("Input should be a valid list"),
    N_("Input should be a valid dictionary"),
    N_("Input should be a valid number"),
    N_("Input should be a valid dictionary or instance of Model"),
)


def _value(value: Any) -> str | int:
    """A value of a pydantic error's context as a message shows it (a whole number in the
    language's own digits)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _pydantic_said(error: Mapping[str, Any]) -> Message | None:
    """pydantic's message of `error` that names a value, as a message with that value (None
    for another): the same English as pydantic's, in the language's own words."""
    context = error.get("ctx") or {}
    kind = error.get("type")
    said: Message | None = None
    if kind == "less_than_equal" and "le" in context:
        said = m("Input should be less than or equal to {le}", le=_value(context["le"]))
    elif kind == "less_than" and "lt" in context:
        said = m("Input should be less than {lt}", lt=_value(context["lt"]))
    elif kind == "greater_than_equal" and "ge" in context:
        said = m("Input should be greater than or equal to {ge}", ge=_value(context["ge"]))
    elif kind == "greater_than" and "gt" in context:
        said = m("Input should be greater than {gt}", gt=_value(context["gt"]))
    elif kind == "multiple_of" and "multiple_of" in context:
        said = m(
            "Input should be a multiple of {multiple_of}",
            multiple_of=_value(context["multiple_of"]),
        )
    elif kind == "string_too_short" and isinstance(context.get("min_length"), int):
        said = ng(
            "String should have at least {count} character",
            "String should have at least {count} characters",
            context["min_length"],
        )
    elif kind == "string_too_long" and isinstance(context.get("max_length"), int):
        said = ng(
            "String should have at most {count} character",
            "String should have at most {count} characters",
            context["max_length"],
        )
    elif kind == "too_short" and context.get("field_type") == "List":
        said = ng(
            "List should have at least {count} item after validation, not {actual}",
            "List should have at least {count} items after validation, not {actual}",
            context.get("min_length", 0),
            actual=_value(context.get("actual_length")),
        )
    elif kind == "too_long" and context.get("field_type") == "List":
        said = ng(
            "List should have at most {count} item after validation, not {actual}",
            "List should have at most {count} items after validation, not {actual}",
            context.get("max_length", 0),
            actual=_value(context.get("actual_length")),
        )
    elif kind == "string_pattern_mismatch" and "pattern" in context:
        said = m("String should match pattern '{pattern}'", pattern=str(context["pattern"]))
    elif kind == "literal_error" and "expected" in context:
        # pydantic's "'a', 'b' or 'c'": the values listed again, joined in the language's
        # words (checked below to read as pydantic's own in English).
        head, _or, last = str(context["expected"]).rpartition(" or ")
        values = [*head.split(", "), last] if head else [last]
        said = m("Input should be {expected}", expected=Listing(values, "or"))
    # Only where it says what pydantic said (a message of another version reads as it is).
    return said if said is not None and english(said) == error.get("msg") else None


def _first_said(errors: Sequence[dict[str, Any]], first_error: Mapping[str, Any]) -> Message:
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"])
    said = _pydantic_said(first_error) or term(str(first["msg"]))
    return m("{where}: {msg}", where=where, msg=said) if where else said


def method_not_allowed(request: Request, allow: str | None = None) -> ApiError:
    """A 405 whose `Allow` names every method served at the request's path: the router's
    `allowed_methods` (app/api/routing.py; Starlette's own 405 names one route's), and those
    the refusing app named itself (`allow`: a mount's static files)."""
    methods = {method.strip() for method in (allow or "").split(",") if method.strip()}
    allowed_methods = getattr(request.scope.get("router"), "allowed_methods", None)
    if allowed_methods is not None:
        methods.update(allowed_methods(request.scope))
    allowed = ", ".join(sorted(methods))
    method = request.scope.get("method", "")
    return MethodNotAllowed(
        m(
            "{method} is not served at this path; it serves {allowed}",
            method=method,
            allowed=allowed,
        ),
        headers={"Allow": allowed},
    )


def error_answer(request: Request, exc: ApiError) -> Response:
    """The error as problem+json, or, for a caller asking for `text/plain` or `text/markdown`
    (a chat bot), its detail as one line of that form: its status says the rest."""
    form = preferred_form(request.headers.get("accept"))
    if form == "json":
        return api_error_response(exc)
    media_type = "text/plain; charset=utf-8" if form == "text" else "text/markdown; charset=utf-8"
    return Response(
        error_message(form, i18n.gettext(detail_of(exc))),
        exc.status,
        headers={**(exc.headers or {}), "Vary": "Accept"},
        media_type=media_type,
    )


def install_error_handlers(app: FastAPI) -> None:
    """Map every error, ours and the framework's, to problem+json (or a chat line)."""

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return error_answer(request, exc)

    async def on_rules_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RulesError)
        return error_answer(request, rules_error(exc))

    async def on_phase_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, PhaseError)
        return error_answer(request, Conflict(str(exc), said=exc.said))

    async def on_request_validation(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return error_answer(request, invalid_input(exc.errors()))

    async def on_unavailable(request: Request, exc: Exception) -> Response:
        # The store logged the incident once; a line per request would bury it.
        assert isinstance(exc, Unavailable)
        return error_answer(request, ServiceUnavailable(str(exc), retry_after=exc.retry_after))

    async def on_client_disconnect(request: Request, _: Exception) -> Response:
        return error_answer(request, ClientClosedRequest(N_("the client closed the connection")))

    async def on_http_exception(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 405:
            allow = (exc.headers or {}).get("Allow")
            return error_answer(request, method_not_allowed(request, allow))
        titles = {404: NotFound, 405: MethodNotAllowed, 413: PayloadTooLarge}
        kind = titles.get(exc.status_code)
        if kind is not None:
            detail = exc.detail if exc.status_code != 404 else N_("no such resource")
            return error_answer(request, kind(str(detail), headers=dict(exc.headers or {})))
        other = ApiError(str(exc.detail), headers=dict(exc.headers or {}))
        other.status, other.title, other.slug = (
            exc.status_code,
            str(exc.detail),
            f"http-{exc.status_code}",
        )
        return error_answer(request, other)

    async def on_unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unhandled error", exc_info=exc)
        return error_answer(
            request, ApiError(N_("an unexpected error occurred; nothing was changed"))
        )

    app.add_exception_handler(ApiError, on_api_error)
    app.add_exception_handler(RulesError, on_rules_error)
    app.add_exception_handler(PhaseError, on_phase_error)
    app.add_exception_handler(RequestValidationError, on_request_validation)
    app.add_exception_handler(StarletteHTTPException, on_http_exception)
    app.add_exception_handler(Unavailable, on_unavailable)
    app.add_exception_handler(ClientDisconnect, on_client_disconnect)
    app.add_exception_handler(Exception, on_unexpected)
