"""The whole contract in `/openapi.json`: every error, the bearer scheme and the protocol's headers.

FastAPI documents what a route declares: its body, parameters and answer. The rest of the
protocol lives in the edges and the lifecycle (tokens, If-Match, Idempotency-Key, the body
limit, the rate limit, the store's 503), so `declare_contract(app)` adds it to the document,
derived from each operation's place in the API rather than from a table per path:

* a *session call* has `{session_id}` in its path: bearer token (401, 404), and when it
  changes something (any method but GET, save a question asked in a body: `POST …/odds`)
  403, 409, 412, If-Match and Idempotency-Key;
* a *creation* is a POST to the collection of a session path (`/v1/arm-wrestles`): an
  optional bearer secret that scopes its Idempotency-Key, 201 with Location and ETag;
* a *webhook call* (`…/{session_id}/webhooks…`, the operator's `/v1/webhooks…`): a bearer
  token (401, 403, 404), 503, and for a POST 409; no If-Match, Idempotency-Key or ETag;
* a *one-shot* is any other `/v1/…` operation; the *operations* endpoints (`/healthz`, …)
  are the rest.

Every error is `application/problem+json` with the `Problem` schema; FastAPI's
`HTTPValidationError` is gone. The document is built once, on its first request: nothing here
runs while a contest is served.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

from app.api.schemas.common import BEYOND_SCHEMA, Problem
from app.errors import MAX_ERRORS, PROBLEM_JSON
from app.middleware import RateLimit

Document = dict[str, Any]
Operation = dict[str, Any]

BEARER = "bearer"
SESSION_PARAMETER = "{session_id}"
MUTATING = frozenset({"post", "put", "patch", "delete"})
#: Session paths whose POST only reads (the question is in the body): a chase's odds from here,
#: and the odds at a choice.
READ_ONLY_POSTS = ("/odds", "/odds/choices")
FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")
#: Where the store answers from: these call it, so they answer 503 while it is away.
STORE_OPERATIONS = frozenset({"/readyz"})

#: Each error status: why an operation answers it (the `Problem`'s `title` says it too).
WHY: dict[int, str] = {
    400: "Malformed JSON: the body is not JSON (NaN and Infinity are not JSON).",
    401: "No bearer token, or a malformed `Authorization` header.",
    403: "The token holds a role in this session that may not do this (a party token doing "
    "the GM's work, or another party's).",
    404: "No session with this id, or a token that holds no role in it (the same answer, so "
    "a token cannot probe ids).",
    409: "The contest is finished (or not in the phase this call needs; for `…/seeds` and "
    "`…/proof`, its dice are not verifiable, or no more seeds are taken), or a request with "
    "this Idempotency-Key is still being processed, or the answer stored under it failed its "
    "integrity check.",
    412: "`If-Match` does not name the session's current version; nothing changed.",
    413: "The request body is over the server's size limit.",
    415: "A request body sent without a JSON content type (`application/json`, or another "
    "`application/*+json`).",
    422: "Invalid input: every error is listed in `errors` as `{loc, msg}` (at most "
    f"{MAX_ERRORS}; `errors_omitted` counts the rest). Besides the schema's shape and "
    "bounds this covers the rules that span fields (described on the body's schema), dice "
    "for an unknown name or purpose or that no path of the round could use (decided before "
    "any die is read: a supplied die made unneeded by another die is played or listed in "
    "`unused`, never refused), a request over the dice budget, and an Idempotency-Key reused "
    "with another request.",
    429: "Too many requests from this client (when the server limits its rate), or a live "
    "event stream past its caps (streams per session, per token).",
    503: "The session store is away or busy past its wait, or (odds) the odds worker has as "
    "many questions waiting as it takes or the question passed its deadline; retry after "
    "`Retry-After` seconds.",
}

#: What a session call may refuse as a 422 by the session's state, which no schema can say:
#: the request is read against the session it is sent to.
SESSION_REFUSALS = (
    "what the session's state decides: dice for a name or purpose it does not have, or that "
    "no path of the round (or the choice asked about) could use; a name that is none of its "
    "competitors or parties; a choice, skill or grant its rules or its phase do not allow",
)
#: What a webhook subscription may refuse as a 422 beyond its schema.
WEBHOOK_REFUSALS = (
    "a `url` that is not an http or https URL with a host (no credentials, no fragment, a "
    "port within 0..65535), or whose host does not resolve to public addresses only",
)

STRING: Document = {"type": "string"}
REQUEST_ID_DOC = (
    "The request's id, echoed on every answer: the client's own when it is 1 to 128 of "
    "`A-Z a-z 0-9 . _ : -`, else one the server makes (it appears in the server's log line)."
)


def declare_contract(app: FastAPI) -> None:
    """Have `app.openapi()` (and so `/openapi.json`) answer the completed document.

    Call it once the app's routes are in place; the document is built on its first request.
    A second call changes nothing.
    """
    if getattr(app.openapi, "declares_contract", False):
        return
    build: Callable[[], Document] = app.openapi

    def openapi() -> Document:
        if getattr(app, "arbiter_contract", None) is None:
            app.arbiter_contract = complete(build())  # type: ignore[attr-defined]
            app.openapi_schema = app.arbiter_contract  # type: ignore[attr-defined]
        document: Document = app.arbiter_contract  # type: ignore[attr-defined]
        return document

    openapi.declares_contract = True  # type: ignore[attr-defined]
    app.openapi = openapi  # type: ignore[method-assign]


#: The keywords bounding a number.
BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def integer_bounds(node: Any) -> None:
    """Bounds of integers written as integers: pydantic writes one past 64 bits (the seed's
    `< 2**63`) as a float, `9.223372036854776e+18`, which generators read as a number they
    may send, and which the service refuses."""
    if isinstance(node, dict):
        if node.get("type") == "integer":
            for keyword in BOUNDS:
                bound = node.get(keyword)
                if isinstance(bound, float) and bound.is_integer():
                    node[keyword] = int(bound)
        for value in node.values():
            integer_bounds(value)
    elif isinstance(node, list):
        for value in node:
            integer_bounds(value)


def _refs(node: Any, into: set[str]) -> set[str]:
    """The names of the schemas `node` refers to, directly."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            into.add(ref.rsplit("/", 1)[1])
        for value in node.values():
            _refs(value, into)
    elif isinstance(node, list):
        for value in node:
            _refs(value, into)
    return into


def _reached(schemas: Document, names: set[str]) -> set[str]:
    """`names` and every schema they refer to, at any depth."""
    seen, todo = set(names), list(names)
    while todo:
        for name in _refs(schemas.get(todo.pop(), {}), set()) - seen:
            seen.add(name)
            todo.append(name)
    return seen


def optional_with_defaults(document: Document) -> None:
    """A request's field that has a default is optional, said as generators read it.

    openapi-typescript (by default) types a property with a `default` as always present,
    which an answer's is, but a request's is not: a body leaving out `endurance` would not
    type-check. In the schemas that only requests use, a property's default is said in its
    description (`Default: false.`) instead of as `default`; it stays out of `required`.
    """
    schemas: Document = document.get("components", {}).get("schemas", {})
    asked: set[str] = set()
    answered: set[str] = set()
    for item in document.get("paths", {}).values():
        for operation in item.values():
            if isinstance(operation, dict):
                _refs(operation.get("requestBody", {}), asked)
                _refs(operation.get("parameters", []), asked)
                _refs(operation.get("responses", {}), answered)
    for name in _reached(schemas, asked) - _reached(schemas, answered):
        for field in schemas[name].get("properties", {}).values():
            if isinstance(field, dict) and "default" in field:
                said = json.dumps(field.pop("default"))
                text = field.get("description", "").rstrip()
                field["description"] = f"{text} Default: {said}.".lstrip()


def complete(generated: Document) -> Document:
    """The document with every operation's statuses, security and headers declared."""
    document = copy.deepcopy(generated)
    paths: dict[str, dict[str, Operation]] = document.get("paths", {})
    collections = {
        path.split(SESSION_PARAMETER)[0].rstrip("/") for path in paths if SESSION_PARAMETER in path
    }
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for name in FASTAPI_VALIDATION_SCHEMAS:
        schemas.pop(name, None)
    schemas.update(problem_schemas())
    components.setdefault("securitySchemes", {})[BEARER] = {
        "type": "http",
        "scheme": "bearer",
        "description": "A session's token: the GM's, or a party's (shown once, at creation).",
    }
    components.setdefault("headers", {}).update(HEADERS)
    close_keyed_objects(schemas)
    integer_bounds(document)
    optional_with_defaults(document)
    refusals = {
        (path, method): refused_beyond_schema(schemas, operation)
        for path, item in paths.items()
        for method, operation in item.items()
        if isinstance(operation, dict)
    }
    drop_refusals(document)
    for path, item in paths.items():
        for method, operation in item.items():
            if method in ("get", "put", "post", "delete", "patch", "head", "options"):
                declare(path, method, operation, creation=method == "post" and path in collections)
                beyond = refusals[(path, method)]
                if is_webhooks(path):
                    beyond += WEBHOOK_REFUSALS if "requestBody" in operation else ()
                elif SESSION_PARAMETER in path and reads_state(path, method, operation):
                    beyond += SESSION_REFUSALS
                if beyond and "422" in operation["responses"]:
                    document_refusals(operation["responses"]["422"], beyond)
    leftover = re.search(
        r"#/components/schemas/(HTTPValidationError|ValidationError)\b", str(document)
    )
    if leftover:
        raise AssertionError(f"{leftover.group(0)} is still referenced")
    return document


def reads_state(path: str, method: str, operation: Operation) -> bool:
    """Whether a session operation reads what it is sent against the session's state: one
    with a body or a query that plays, chooses or asks the odds (not a page of rounds, a
    seed, a proof or a deletion, whose 422s are their schemas' own)."""
    asks = "requestBody" in operation or any(
        p.get("in") == "query" and p is not LANG for p in operation.get("parameters", ())
    )
    plain = method == "delete" or path.endswith(("/seeds", "/proof"))
    return asks and not plain and not (method == "get" and path.endswith("/rounds"))


def refused_beyond_schema(schemas: Document, operation: Operation) -> list[str]:
    """The refusals no schema can say (`BEYOND_SCHEMA`) of every schema the operation's
    request holds, at any depth, each once, in the order found."""
    found: list[str] = []
    inline = [operation.get("requestBody", {}), operation.get("parameters", [])]
    held = sorted(_reached(schemas, _refs(inline, set())))
    for node in [inline, *(schemas[name] for name in held)]:
        for refusal in _refusals_in(node):
            if refusal not in found:
                found.append(refusal)
    return found


def _refusals_in(node: Any) -> list[str]:
    """`BEYOND_SCHEMA` lists of `node` and of the schemas written inside it (not referred to)."""
    found: list[str] = []
    if isinstance(node, dict):
        found.extend(node.get(BEYOND_SCHEMA, []))
        for key, value in node.items():
            if key != BEYOND_SCHEMA:
                found.extend(_refusals_in(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_refusals_in(value))
    return found


def drop_refusals(node: Any) -> None:
    """`BEYOND_SCHEMA` taken out of every schema: the operations' 422s say it."""
    if isinstance(node, dict):
        node.pop(BEYOND_SCHEMA, None)
        for value in node.values():
            drop_refusals(value)
    elif isinstance(node, list):
        for value in node:
            drop_refusals(value)


def document_refusals(response: Document, refusals: list[str]) -> None:
    """A 422 listing what the operation refuses of a request its schema allows."""
    response["description"] = (
        response["description"]
        + " This operation also refuses, as a 422, what its schema allows but no schema can "
        + "say: "
        + "; ".join(refusals)
        + "."
    )
    response[BEYOND_SCHEMA] = refusals


def close_keyed_objects(node: Any) -> None:
    """Objects keyed by non-blank names take only such keys, said as generators read it.

    pydantic describes a `dict` whose keys must match a pattern with `patternProperties`,
    which leaves other keys free in JSON Schema (the models refuse them), and which
    generators turn into an empty model (openapi-python-client: a map of the players' own
    dice became `{}`). The document says it as `additionalProperties: <the value's schema>`
    and `propertyNames: {pattern}`: the same keys and values, in the form they all read.
    """
    if isinstance(node, dict):
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict) and len(patterns) == 1 and "additionalProperties" not in node:
            ((pattern, value),) = patterns.items()
            del node["patternProperties"]
            node["additionalProperties"] = value
            node.setdefault("propertyNames", {})["pattern"] = pattern
        for value in node.values():
            close_keyed_objects(value)
    elif isinstance(node, list):
        for value in node:
            close_keyed_objects(value)


def problem_schemas() -> dict[str, Document]:
    problem = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    problem["properties"]["errors"] = {
        "type": "array",
        "items": {"$ref": "#/components/schemas/ProblemError"},
        "description": f"The invalid parts of a 422, at most {MAX_ERRORS}.",
    }
    problem["properties"]["errors_omitted"] = {
        "type": "integer",
        "minimum": 1,
        "description": "Errors found beyond those listed.",
    }
    return {
        "Problem": problem,
        "ProblemError": {
            "type": "object",
            "title": "ProblemError",
            "description": "One invalid part of a request: where it is and what is wrong.",
            "properties": {
                "loc": {
                    "type": "array",
                    "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    "description": 'The path to the part: `["body", "a", "skill"]`.',
                },
                "msg": {"type": "string"},
            },
            "required": ["loc", "msg"],
        },
    }


HEADERS: dict[str, Document] = {
    "X-Request-ID": {"description": REQUEST_ID_DOC, "required": True, "schema": STRING},
    "ETag": {
        "description": 'The session\'s version, `"<version>"`: send it back in `If-Match`.',
        "required": True,
        "schema": {"type": "string", "pattern": '^"[0-9]+"$'},
    },
    "Location": {
        "description": "The new session's URL.",
        "required": True,
        "schema": {"type": "string", "pattern": "^/v1/"},
    },
    "Idempotent-Replayed": {
        "description": "Present on a replay of an answer stored under the Idempotency-Key.",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "required": True,
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    },
    "Link": {
        "description": 'The next page, `<…>; rel="next"`, while more rounds remain.',
        "schema": STRING,
    },
    "WWW-Authenticate": {"description": "`Bearer`.", "required": True, "schema": STRING},
}


def header(name: str) -> Document:
    return {"$ref": f"#/components/headers/{name}"}


def parameter(name: str, description: str, schema: Document) -> Document:
    return {
        "name": name,
        "in": "header",
        "required": False,
        "description": description,
        "schema": schema,
    }


IF_MATCH = parameter(
    "If-Match",
    'Apply the change only to this version of the session (its ETag, `"<version>"`, or `*`); '
    "a stale or unreadable one answers 412 and nothing changes.",
    STRING,
)
IDEMPOTENCY_KEY = parameter(
    "Idempotency-Key",
    "Makes the call safe to retry: the same key and request within 24 hours replays the "
    "stored answer (with `Idempotent-Replayed: true`) and changes nothing; the same key with "
    "another request is a 422, and while the first is still being processed a 409.",
    {"type": "string", "minLength": 1, "maxLength": 255},
)
CREATION_KEY = {
    **IDEMPOTENCY_KEY,
    "description": IDEMPOTENCY_KEY["description"]
    + " Scoped to the kind, and to the caller when it sends `Authorization: Bearer <a secret "
    "of its own>`: only then does a replay carry the session's tokens.",
}
REQUEST_ID = parameter("X-Request-ID", REQUEST_ID_DOC, STRING)
#: `?lang=`, honoured by every `/v1` call (app/api/i18n.py): its summaries, text answers and
#: problem details.
LANG = {
    "name": "lang",
    "in": "query",
    "required": False,
    "description": "The language of the answer's summaries, text and problem details (`en`, "
    "`de`, `fr`, `es`, `pt-BR`; docs/languages.md), for a client that cannot set "
    "`Accept-Language`: it wins over that header when it names a language served (`de-AT` is "
    "`de`, `pt` is `pt-BR`) and is ignored otherwise. JSON field names, values and a "
    "problem's `type` never change with it.",
    "schema": STRING,
}


def is_odds(path: str) -> bool:
    """An odds question (`/v1/odds/…`, a session's `…/odds`): the odds worker may be busy."""
    return path.startswith("/v1/odds/") or path.endswith("/odds")


def is_webhooks(path: str) -> bool:
    """A webhook subscription's call (a session's GM's, or the operator's `/v1/webhooks`):
    bearer token (401, 403, 404), no If-Match nor Idempotency-Key, no ETag."""
    return path.startswith("/v1/webhooks") or "/{session_id}/webhooks" in path


def declare(path: str, method: str, operation: Operation, *, creation: bool) -> None:
    """Complete one operation: its error statuses, security, and request and answer headers."""
    session = SESSION_PARAMETER in path
    hooks = is_webhooks(path)
    changes = session and method in MUTATING and not path.endswith(READ_ONLY_POSTS) and not hooks
    keyed = changes or creation
    has_body = "requestBody" in operation
    has_query = any(p.get("in") == "query" for p in operation.get("parameters", ()))
    # A path parameter of another type than a string (a delivery's number) is checked: 422.
    typed_path = any(
        p.get("in") == "path" and p.get("schema", {}).get("type") not in (None, "string")
        for p in operation.get("parameters", ())
    )
    statuses: set[int] = set()
    if has_body:
        statuses |= {400, 413, 415, 422}
    if method == "delete":
        statuses.add(413)  # the body is read (and ignored), so it counts towards the limit
    if has_query or keyed or typed_path:
        statuses.add(422)
    if session:
        statuses |= {401, 404, 503}
    if changes:
        statuses |= {403, 409, 412}
    if path.endswith("/odds/choices"):
        statuses.add(409)  # the next step's choice of a finished contest, or one already made
    if path.endswith("/proof"):
        statuses.add(409)  # a session whose dice are not verifiable
    if creation:
        statuses |= {401, 409, 503}
    if hooks:
        statuses |= {401, 403, 404, 503}
        if method == "post":
            statuses.add(409)  # past the subscriptions' cap
    if path in STORE_OPERATIONS or is_odds(path):
        statuses.add(503)
    if path not in RateLimit.EXEMPT:
        statuses.add(429)

    responses: dict[str, Document] = operation.setdefault("responses", {})
    for status in [
        status for status, response in responses.items() if _fastapi_validation(response)
    ]:
        del responses[status]
    for code in sorted(statuses):
        responses[str(code)] = problem_response(code)
    for status, response in responses.items():
        headers = response.setdefault("headers", {})
        headers["X-Request-ID"] = header("X-Request-ID")
        if not status.startswith("2"):
            continue
        if keyed:
            headers["Idempotent-Replayed"] = header("Idempotent-Replayed")
        if creation and status == "201":
            headers["Location"] = header("Location")
            headers["ETag"] = header("ETag")
        if (
            session
            and not hooks
            and status != "204"
            and "application/json" in response.get("content", {})
        ):
            headers["ETag"] = header("ETag")
        if session and method == "get" and path.endswith("/rounds"):
            headers["Link"] = header("Link")

    parameters: list[Document] = operation.setdefault("parameters", [])
    if changes:
        parameters.append(IF_MATCH)
    if keyed:
        parameters.append(CREATION_KEY if creation else IDEMPOTENCY_KEY)
    parameters.append(REQUEST_ID)
    if path.startswith("/v1/") and not any(p.get("name") == "lang" for p in parameters):
        parameters.append(LANG)
    if session or hooks:
        operation["security"] = [{BEARER: []}]
    elif creation:
        # Optional: a secret of the caller's own, scoping its Idempotency-Key to it.
        operation["security"] = [{}, {BEARER: []}]


def problem_response(status: int) -> Document:
    headers: dict[str, Document] = {}
    if status in (429, 503):
        headers["Retry-After"] = header("Retry-After")
    if status == 401:
        headers["WWW-Authenticate"] = header("WWW-Authenticate")
    return {
        "description": WHY[status],
        "headers": headers,
        "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


def _fastapi_validation(response: Document) -> bool:
    return (
        any(
            media.get("schema", {}).get("$ref", "").endswith("/HTTPValidationError")
            for media in response.get("content", {}).values()
        )
        or response.get("description") == "Invalid input (problem+json)"
    )
