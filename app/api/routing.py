"""How routes are declared and found: `LeanRoute`, a route class for speed, and `IndexedRouter`,
the app's router.

Every route is FastAPI's: routers are included (`app.include_router`), each route is listed
once, and a route written the ordinary way (an `APIRouter` of `APIRoute`s, or a decorator on
the app) gets every feature FastAPI has. Two things make the service's own routes fast
(ARCHITECTURE.md, "Speed", has the figures):

* `LeanRoute` is an `APIRoute` whose request handler skips FastAPI's per-request dependency
  solving and answer validation: it parses the body with pydantic's JSON validator in one step
  (`parse_body`), calls the endpoint, and writes its answer with orjson (`respond`), as JSON or
  as a chat message. It serves exactly what that handler can and refuses, when the route is
  built, every feature it cannot serve, naming the route and the feature (`LeanRouteRefused`).
* `IndexedRouter` is FastAPI's `APIRouter` with an index: a request is matched only against
  the routes its first two path segments can reach, in their order, by FastAPI's own loop;
  it chooses exactly the route the full scan would choose (everything else falls back to it).
* `LeanLane`, the app's exception middleware (`LaneApp`), hands a request for a `LeanRoute`
  straight to its handler and answers what it raises as Starlette would; every other request
  takes FastAPI's stack (tests/api/test_lean_lane.py compares the two).
"""

from __future__ import annotations

import inspect
import operator
import re
import types
import typing
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Generic, TypeVar

from fastapi import APIRouter, Body, FastAPI, Request, params
from fastapi._body_limit import AppBodyLimitMiddleware, wrap_app_with_body_limit
from fastapi.datastructures import DefaultPlaceholder
from fastapi.dependencies.utils import get_typed_return_annotation, request_params_to_args
from fastapi.exceptions import FastAPIError, RequestValidationError
from fastapi.routing import (
    _FASTAPI_EFFECTIVE_ROUTE_CONTEXT_KEY,
    _FASTAPI_INCLUDED_ROUTER_KEY,
    APIRoute,
    _apply_router_form_limits,
    _effective_route_context_var,
    _EffectiveRouteContext,
    _get_fastapi_scope,
    _get_scope_effective_route_context,
    _IncludedRouter,
    _update_scope,
    iter_route_contexts,
)
from fastapi.telemetry._api import _route_selected
from fastapi.telemetry._asgi import ExceptionTelemetryMiddleware
from pydantic import BaseModel
from starlette._exception_handler import _lookup_exception_handler
from starlette._utils import get_route_path, is_async_callable
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.common import CALLER, examples, parse_body, read_body, respond, text_plain_doc
from app.api.sessions.security import bearer_token

M = TypeVar("M", bound=BaseModel)
#: The path parameter of a session's operations: a route with it authenticates first.
SESSION_PARAMETER: Final = "{session_id}"
E = TypeVar("E", bound=Callable[..., Awaitable[Any]])
#: Marks an endpoint whose body `LeanRoute` hands over unvalidated (see `declare_body`).
DEFERRED = "arbiter_deferred_body"


class DeferredBody(Generic[M]):
    """A request body that is validated when the endpoint asks (`load`), not before.

    A session call first finds out who is calling (401, 404), and only then whether what it
    sent is valid (400, 422): a stranger learns nothing from the errors of its body.
    """

    def __init__(self, request: Request, model: type[M], default: M | None = None) -> None:
        self.request = request
        self.model = model
        self.default = default
        self._value: M | None = None

    async def load(self) -> M:
        if self._value is None:
            if self.default is not None and not (await read_body(self.request)).strip():
                self._value = self.default
            else:
                self._value = await parse_body(self.request, self.model)
        return self._value

    @property
    def value(self) -> M:
        """The validated body; `load` must have been awaited."""
        if self._value is None:
            raise RuntimeError("the body is read by load() first")
        return self._value


def declare_body(
    endpoint: E,
    model: type[BaseModel],
    named_examples: Mapping[str, Any] | None,
    *,
    default: BaseModel | None = None,
    eager: bool = False,
) -> E:
    """Declare the `body` parameter of a lean endpoint as `model`, validated on demand.

    The endpoint receives a `DeferredBody` (with `eager`, the validated body itself); the
    OpenAPI document shows `model`, with the examples, and optional when there is a `default`.
    """
    signature = inspect.signature(endpoint)
    annotation = Annotated[model, Body(openapi_examples=examples(named_examples or {}))]  # type: ignore[valid-type]
    parameters = [
        parameter.replace(
            annotation=annotation,
            default=inspect.Parameter.empty if default is None else default,
        )
        if parameter.name == "body"
        else parameter
        for parameter in signature.parameters.values()
    ]
    endpoint.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    setattr(endpoint, DEFERRED, not eager)
    return endpoint


def declare_no_body(endpoint: E) -> E:
    """Hide an endpoint's optional `body` parameter: this route takes no body."""
    signature = inspect.signature(endpoint)
    parameters = [p for p in signature.parameters.values() if p.name != "body"]
    endpoint.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return endpoint


# --- the lean route -------------------------------------------------------------------------


class LeanRouteRefused(FastAPIError):
    """A `LeanRoute` was asked for a feature its handler does not serve."""

    def __init__(self, route: str, feature: str) -> None:
        super().__init__(
            f"LeanRoute {route} cannot serve {feature}; declare the route with FastAPI's "
            "APIRoute (the default route class) to have it"
        )
        self.route = route
        self.feature = feature


#: `response_model_*` options a lean route cannot honour, with the value that means "unused".
_ANSWER_OPTIONS: Final[Mapping[str, Any]] = {
    "response_model_include": None,
    "response_model_exclude": None,
    "response_model_by_alias": True,
    "response_model_exclude_unset": False,
    "response_model_exclude_defaults": False,
    "response_model_exclude_none": False,
}


class LeanRoute(APIRoute):
    """An `APIRoute` whose handler calls an `async def` endpoint with its request, path and
    query parameters and one body, and writes what it returns as it is.

    What it serves: `request: Request`; path parameters (plain `str` ones handed over as they
    are, others validated as FastAPI does); query parameters (FastAPI's own validation); one
    body parameter, a pydantic model (`Annotated` with `Body(...)` for its examples; given a
    default, an empty body means that default; `declare_body` for a body validated only when
    the endpoint asks). The endpoint returns a `Response`, or a mapping written with orjson as
    JSON, or as its chat message for `Accept: text/plain` or `text/markdown`.

    What it refuses when the route is built (`LeanRouteRefused`, naming the route and the
    feature): dependencies (its own or its router's), header and cookie parameters, several
    or embedded bodies, form data, `Response`/`BackgroundTasks`/`WebSocket`/`SecurityScopes`
    parameters, synchronous endpoints, and `response_model` with its options: a lean route
    never filters or validates its answer. The answer's type is documented instead as the
    model of its status in `responses` — given there, or taken from the endpoint's return
    annotation (its part that is not a `Response`), which mypy checks; the test suite checks
    every served body against it (tests/conformance.py).
    """

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        name = f"{path} ({getattr(endpoint, '__name__', endpoint)})"
        response_model = kwargs.pop("response_model", None)
        if response_model is not None and not isinstance(response_model, DefaultPlaceholder):
            raise LeanRouteRefused(name, "response_model (it never filters its answer)")
        for option, unused in _ANSWER_OPTIONS.items():
            if kwargs.get(option, unused) != unused:
                raise LeanRouteRefused(name, option)
        if not inspect.iscoroutinefunction(endpoint):
            raise LeanRouteRefused(name, "a synchronous endpoint")
        status = kwargs.get("status_code") or 200
        responses: dict[int | str, dict[str, Any]] = dict(kwargs.pop("responses", None) or {})
        documented = responses.get(status, {})
        answer = documented.get("model") or _answer_type(endpoint)
        if answer is not None:
            responses[status] = {**documented, "model": answer}
        response_class = kwargs.get("response_class")
        if answer is not None and not (
            response_class is None or isinstance(response_class, DefaultPlaceholder)
        ):
            raise LeanRouteRefused(name, "response_class (its answers are written as JSON)")
        #: The type of the answer of the route's status (None: it has none, or a Response).
        self.answer: Any = answer
        super().__init__(path, endpoint, response_model=None, responses=responses, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        # FastAPI builds an included route's handler again with the route as its router
        # includes it (prefix, the router's dependencies), handed over in this variable, as
        # `APIRoute.get_route_handler` reads it.
        context = _effective_route_context_var.get()
        route: Any = context if context is not None and context.original_route is self else self
        handler = _lean_handler(route, f"{route.path} ({self.name})")
        # What `handle` runs for the route as built here (as FastAPI keeps `app` on each),
        # and what the lean lane calls (`LeanLane`).
        route.lean_app = wrap_app_with_body_limit(_lean_app(handler), route.max_body_size)
        route.lean_handler = handler
        return handler

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The request, handed to the lean handler's app: FastAPI's route app without its two
        exit stacks (for dependencies, which a lean route has none of) and its per-route
        exception wrapper; what the handler raises goes to the app's exception middleware,
        which answers it with the same handlers (Starlette's own lookup, sync ones included).
        """
        context = _get_scope_effective_route_context(scope)
        route: Any = context if context is not None and context.original_route is self else self
        methods = route.methods
        if methods and scope["method"] not in methods:
            # As Starlette's and FastAPI's routes answer a method they do not serve.
            raise HTTPException(status_code=405, headers={"Allow": ", ".join(methods)})
        await route.lean_app(scope, receive, send)


def _lean_app(handler: Callable[[Request], Awaitable[Response]]) -> ASGIApp:
    """The ASGI app of a lean route: the handler's response, sent."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await handler(Request(scope, receive, send))
        await response(scope, receive, send)

    return app


def _answer_type(endpoint: Callable[..., Any]) -> Any:
    """The endpoint's return annotation without its `Response` part (None for nothing left)."""
    annotation = get_typed_return_annotation(endpoint)
    if annotation is None or annotation is inspect.Signature.empty:
        return None
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        kept = [
            arg
            for arg in typing.get_args(annotation)
            if not (isinstance(arg, type) and issubclass(arg, Response))
        ]
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else typing.Union[tuple(kept)]  # noqa: UP007
    if isinstance(annotation, type) and issubclass(annotation, Response):
        return None
    return annotation


def _refusals(route: Any) -> Iterable[str]:
    """What the route declares that a lean handler does not serve."""
    dependant = route.dependant
    if dependant.dependencies:
        yield "dependencies (Depends)"
    if dependant.header_params:
        yield "header parameters"
    if dependant.cookie_params:
        yield "cookie parameters"
    if len(dependant.body_params) > 1 or route._embed_body_fields:
        yield "several or embedded bodies (Body(embed=True))"
    if any(isinstance(body.field_info, params.Form) for body in dependant.body_params):
        yield "form data"
    for attribute, feature in (
        ("response_param_name", "a Response parameter"),
        ("background_tasks_param_name", "a BackgroundTasks parameter"),
        ("websocket_param_name", "a WebSocket parameter"),
        ("http_connection_param_name", "an HTTPConnection parameter"),
        ("security_scopes_param_name", "a SecurityScopes parameter"),
    ):
        if getattr(dependant, attribute) is not None:
            yield feature


def _lean_handler(route: Any, name: str) -> Callable[[Request], Coroutine[Any, Any, Response]]:
    """The lean request handler of `route` (a `LeanRoute`, or its state as a router includes
    it), after refusing what it does not serve."""
    for feature in _refusals(route):
        raise LeanRouteRefused(name, feature)
    dependant = route.dependant
    query = dependant.query_params
    paths = dependant.path_params
    # Plain string path parameters are handed over as matched; others are validated.
    plain_paths = all(
        field.field_info.annotation is str and not field.field_info.metadata for field in paths
    )
    path_names = tuple(field.name for field in paths)
    body = dependant.body_params[0] if dependant.body_params else None
    body_name = body.name if body is not None else None
    body_model: Any = body.field_info.annotation if body is not None else None
    # A body with a default may be left out: an empty body means the default.
    body_default: Any = (
        None if body is None or body.field_info.is_required() else body.field_info.default
    )
    request_name = dependant.request_param_name
    endpoint: Callable[..., Awaitable[Any]] = route.endpoint
    deferred = getattr(endpoint, DEFERRED, False)
    status = route.status_code or 200
    session_call = SESSION_PARAMETER in route.path_format

    async def handler(request: Request) -> Response:
        if session_call:
            # A session's operation knows its caller before it checks what was sent: a body
            # over the limit is a 413 first, then no token a 401, a stranger's token a 404
            # (here for a path's or a query's error, else by the endpoint), and only then a
            # path's, a query's or a body's error a 400 or 422.
            if body_name is not None:
                await read_body(request)
            bearer_token(request)
        if plain_paths:
            arguments: dict[str, Any] = {name: request.path_params[name] for name in path_names}
        else:
            arguments, errors = request_params_to_args(paths, request.path_params)
            if errors:
                if session_call:
                    await _known_caller(request, route.path_format)
                raise RequestValidationError(errors)
        if query:
            values, errors = request_params_to_args(query, request.query_params)
            if errors:
                if session_call:
                    await _known_caller(request, route.path_format)
                raise RequestValidationError(errors)
            arguments.update(values)
        if request_name is not None:
            arguments[request_name] = request
        if body_name is not None:
            if deferred:
                arguments[body_name] = DeferredBody(request, body_model, body_default)
            elif body_default is not None and not (await read_body(request)).strip():
                arguments[body_name] = body_default
            else:
                arguments[body_name] = await parse_body(request, body_model)
        # Work handed to the odds worker notices this caller leaving while it waits.
        caller = CALLER.set(request)
        try:
            answer = await endpoint(**arguments)
        finally:
            CALLER.reset(caller)
        if isinstance(answer, Response):
            return answer
        return respond(request, answer, status)

    return handler


async def _known_caller(request: Request, path_format: str) -> None:
    """404 for a token of no role in the session (`app.state.known_caller`, set by
    `create_app`), before a session operation answers an error of its query."""
    check = getattr(request.app.state, "known_caller", None)
    if check is not None:
        # `/v1/<kind>/{session_id}/…`: the kind is the path's second segment.
        await check(request, path_format.split("/")[2], request.path_params["session_id"])


def one_shot_router(
    prefix: str, tag: str, *posts: tuple[str, Callable[..., Awaitable[Any]], str]
) -> APIRouter:
    """A module's one-shot `POST` endpoints, each `(path, endpoint, operationId)`.

    They answer their typed result, or its summary line for `Accept: text/plain`.
    """
    router = APIRouter(prefix=prefix, tags=[tag], route_class=LeanRoute)
    for path, endpoint, operation_id in posts:
        router.add_api_route(
            path,
            endpoint,
            methods=["POST"],
            responses=text_plain_doc(),
            operation_id=operation_id,
        )
    return router


def answers(status: int, model: Any, **more: Any) -> dict[int | str, dict[str, Any]]:
    """`responses=` documenting the answer of `status` as `model` (a lean route's answer)."""
    return {status: {**more, "model": model}}


# --- the router -----------------------------------------------------------------------------


def prefix_of(path: str) -> str:
    """The first two segments of a path: `/v1/arm-wrestles/x/rounds` -> `/v1/arm-wrestles`."""
    second = path.find("/", 1)
    third = path.find("/", second + 1) if second > 0 else -1
    return path if third < 0 else path[:third]


_ROUTES_VERSION: Final = operator.attrgetter("_routes_version")
#: Where FastAPI keeps a request's telemetry, when it records any (it tells it the route).
TELEMETRY: Final = "fastapi.telemetry"
#: A route whose paths cannot be told by their first two segments: a candidate for every path.
ANY: Final = None


def _prefix(path: str | None, mount: bool) -> str | None:
    """The one prefix (`prefix_of`) of every path a route of this template can match in full
    or in part, or `ANY` when the template does not tell."""
    if path is None or "{" in prefix_of(path):
        return ANY
    if mount and path.count("/") < 2:
        # A mount matches anything under its path: its prefix is known past one segment.
        return ANY
    return prefix_of(path)


@dataclass(frozen=True, slots=True)
class _Entry:
    """One place of the router's scan: a route of its own, or a route of a router it
    includes, taken out of that router (`context`: the route as it is included)."""

    route: BaseRoute
    context: Any = None
    included: Any = None
    #: The path pattern that must match for the route to match at all, when that is all its
    #: path decides (FastAPI's and Starlette's routes): other paths are passed over with it.
    pattern: re.Pattern[str] | None = None

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if self.context is None:
            return self.route.matches(scope)
        match, child_scope = self.context.matches(scope)
        if match is not Match.NONE:
            child_scope["route"] = self.route  # as APIRoute.matches names itself
        return match, child_scope

    def enter(self, scope: Scope, child_scope: Scope) -> None:
        """What the scope holds once this place is chosen, before its route is handed it."""
        if self.context is None:
            # What APIRouter.app does with the route it chose.
            _update_scope(scope, child_scope)
            _route_selected(
                scope=scope,
                path=getattr(self.route, "path_format", None),
                mount=isinstance(self.route, Mount),
            )
            return
        # What the included router's entry does, handing the request to its route: its form
        # limits, itself and the route as included, in FastAPI's part of the scope.
        form_limits = self.included.include_context.form_limits
        if form_limits:
            _apply_router_form_limits(scope, form_limits)
        fastapi_scope = _get_fastapi_scope(scope)
        fastapi_scope[_FASTAPI_INCLUDED_ROUTER_KEY] = self.included
        _update_scope(scope, child_scope)
        if TELEMETRY in scope:
            _route_selected(scope=scope, path=self.context.path_format, mount=False)
        fastapi_scope[_FASTAPI_EFFECTIVE_ROUTE_CONTEXT_KEY] = self.context

    async def handle(self, scope: Scope, child_scope: Scope, receive: Receive, send: Send) -> None:
        self.enter(scope, child_scope)
        await self.route.handle(scope, receive, send)

    def lean_handler(self) -> Callable[[Request], Awaitable[Response]] | None:
        """The lean handler of this place's route as it is included, when `LeanLane` may
        call it: a `LeanRoute` with no body limit of its own (FastAPI's per-route
        `max_body_size`, which its route app enforces)."""
        if not isinstance(self.route, LeanRoute):
            return None
        target: Any = self.route if self.context is None else self.context
        if target.max_body_size is not None:
            return None
        handler: Callable[[Request], Awaitable[Response]] | None = getattr(
            target, "lean_handler", None
        )
        return handler


def _entries(route: BaseRoute) -> list[tuple[_Entry, str | None]]:
    """The places of one route of the router, each with its prefix (`_prefix`).

    An included router of FastAPI routes only is taken apart, one place per route, matched as
    it would match them (the included router would match each request twice: to say it
    matches, then to choose); any other stays one place, under each prefix of its routes."""
    if isinstance(route, _IncludedRouter):
        candidates = route.effective_candidates()
        contexts = [
            candidate
            for candidate in candidates
            if isinstance(candidate, _EffectiveRouteContext)
            and isinstance(candidate.original_route, APIRoute)
        ]
        if len(contexts) == len(candidates):
            return [
                (
                    _Entry(context.original_route, context, route, context.path_regex),
                    _prefix(context.path, False),
                )
                for context in contexts
            ]
    # A route's own path pattern decides whether it matches at all (a Mount's does not).
    pattern = route.path_regex if isinstance(route, Route) else None
    entry = _Entry(route, pattern=pattern)
    prefixes = {
        _prefix(context.path, isinstance(context.original_route, Mount))
        for context in iter_route_contexts([route])
    }
    if ANY in prefixes or not prefixes:
        return [(entry, ANY)]
    return [(entry, prefix) for prefix in prefixes]


@dataclass(frozen=True, slots=True)
class _Index:
    """The places of the scan each prefix can reach, in their order."""

    version: tuple[int, int]
    #: The routers whose changes remake the index: this one and all it includes.
    routers: Sequence[APIRouter]
    by_prefix: Mapping[str, tuple[_Entry, ...]]
    #: The places of a prefix no route names (those that may match any path).
    anywhere: tuple[_Entry, ...]


class IndexedRouter(APIRouter):
    """FastAPI's router, finding a request's route through an index of path prefixes.

    For each prefix (the first two path segments) the router keeps the places of its scan
    that a path under that prefix can match, in their order: its own routes, and the routes
    of the routers it includes (a router of FastAPI routes is taken apart into its routes,
    which are matched and handed the request as the included router would). A route left out
    cannot match, so the route chosen is the one FastAPI's full scan would choose; a request
    none of them takes goes through the full scan (redirects, 404). The index is remade when
    the routes change. With low-priority routes (FastAPI's frontends), whose order against
    redirects the index would not keep, every request goes through the full scan.
    """

    _index: _Index | None = None

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().app(scope, receive, send)
            return
        chosen = self.choose(scope)
        if chosen is not None:
            place, child_scope, _ = chosen
            self.enter(scope)
            await place.handle(scope, child_scope, receive, send)
            return
        await super().app(scope, receive, send)

    def enter(self, scope: Scope) -> None:
        """What the router sets in the scope of a request it hands to one of its places."""
        if self.form_limits:
            _apply_router_form_limits(scope, self.form_limits)
        scope.setdefault("router", self)

    def choose(self, scope: Scope) -> tuple[_Entry, Scope, Match] | None:
        """The place FastAPI's scan would hand this HTTP request to: the first that matches
        it in full, else the first that matches it in part (a method it does not serve);
        None when no place of the index does (the full scan answers: redirects, 404)."""
        index = self._index
        if index is None or index.version != self._version(index.routers):
            index = self.reindex()
        if not (index.by_prefix or index.anywhere):
            return None
        path = get_route_path(scope)
        partial: tuple[_Entry, Scope, Match] | None = None
        for place in index.by_prefix.get(prefix_of(path), index.anywhere):
            pattern = place.pattern
            if pattern is not None and pattern.match(path) is None:
                continue
            match, child_scope = place.matches(scope)
            if match is Match.FULL:
                return place, child_scope, match
            if match is Match.PARTIAL and partial is None:
                partial = (place, child_scope, match)
        return partial

    def _version(self, routers: Sequence[APIRouter]) -> tuple[int, int]:
        """What tells when the routes have changed: how many this router holds, and the
        change counts FastAPI keeps of it and of every router it includes (FastAPI's own
        `_get_routes_version` adds them up too, walking the tree each time)."""
        return (len(self.routes), sum(map(_ROUTES_VERSION, routers)))

    def reindex(self) -> _Index:
        """Build the index of the routes as they are now; every included route is built
        (and a `LeanRoute` refuses what it cannot serve) here, not on a first request."""
        routers = [self, *_included_routers(self)]
        version = self._version(routers)
        if next(iter(self._iter_low_priority_routes()), None) is not None:
            self._index = _Index(version, routers, {}, ())
            return self._index
        places = [place for route in self.routes for place in _entries(route)]
        named = {prefix for _, prefix in places if prefix is not ANY}
        by_prefix = {
            prefix: tuple(_unique(entry for entry, at in places if at is ANY or at == prefix))
            for prefix in named
        }
        anywhere = tuple(_unique(entry for entry, at in places if at is ANY))
        self._index = _Index(version, routers, by_prefix, anywhere)
        return self._index

    def allowed_methods(self, scope: Scope) -> list[str]:
        """Every method served at the request's path, for a 405's `Allow` (Starlette's own
        405 names only the methods of the first route of that path)."""
        methods: set[str] = set()
        for context in iter_route_contexts(self.routes):
            if context.methods and context.matches(scope)[0] is not Match.NONE:
                methods.update(context.methods)
        return sorted(methods)

    def template(self, scope: Scope) -> str | None:
        """The path template of the first route matching this request in full or in part
        (for the metrics of answers given before routing: 413, 429), or None."""
        for context in iter_route_contexts(self.routes):
            if context.matches(scope)[0] is not Match.NONE:
                path: str | None = context.path
                return path
        return None


def _unique(entries: Iterable[_Entry]) -> Iterable[_Entry]:
    """`entries` in order, each once (a place under several prefixes is listed for each)."""
    seen: set[int] = set()
    for entry in entries:
        if id(entry) not in seen:
            seen.add(id(entry))
            yield entry


def _included_routers(router: APIRouter) -> Iterable[APIRouter]:
    """Every router `router` includes, at any depth (FastAPI keeps each as an entry of its
    routes holding the router it includes)."""
    for route in router.routes:
        if isinstance(route, _IncludedRouter):
            yield route.original_router
            yield from _included_routers(route.original_router)


def route_template(scope: Scope) -> str | None:
    """The path of the route that served this request, for metrics and logs."""
    route = scope.get("route")
    return None if route is None else getattr(route, "path", None)


def index_routes(app: FastAPI) -> IndexedRouter:
    """Make `app`'s router an `IndexedRouter` (FastAPI builds a plain `APIRouter`): the same
    object, routes and settings, with the indexed lookup."""
    router = app.router
    if router.middleware_stack != router.app:
        raise FastAPIError("index_routes: the router has middleware of its own")
    router.__class__ = IndexedRouter
    router.middleware_stack = router.app
    assert isinstance(router, IndexedRouter)
    return router


# --- the lean lane --------------------------------------------------------------------------


class LeanLane(ExceptionMiddleware):
    """Starlette's exception middleware, which hands a request for a `LeanRoute` straight to
    its lean handler.

    For every other request it is the exception middleware itself: FastAPI's
    `AsyncExitStackMiddleware`, the router and the route follow. A request the router would
    hand to a `LeanRoute` (FastAPI's own choice, `IndexedRouter.choose`) skips the exit stack
    (a lean route has no dependencies and takes no files, which are all it serves), the
    router's and the route's ASGI layers, and is answered here: the scope is set as the
    router and the route set it (`router`, `route`, path parameters, FastAPI's part), the
    handler is called, and what it raises is answered exactly as
    `starlette._exception_handler.wrap_app_handling_exceptions` answers it, with the same
    handlers: by status for an `HTTPException`, else by the first class of the exception's
    MRO that has one, a synchronous handler in the thread pool, re-raised (to the server
    error middleware) when none; after the answer has started, a `RuntimeError`.
    tests/api/test_lean_lane.py sends every kind of request and failure through this lane and
    through the full stack and compares the answers.
    """

    def __init__(self, app: ASGIApp, router: IndexedRouter, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            chosen = self.router.choose(scope)
            if chosen is not None and chosen[2] is Match.FULL:
                place, child_scope, _ = chosen
                handler = place.lean_handler()
                if handler is not None:
                    scope["starlette.exception_handlers"] = (
                        self._exception_handlers,
                        self._status_handlers,
                    )
                    self.router.enter(scope)
                    place.enter(scope, child_scope)
                    await self._serve(handler, scope, receive, send)
                    return
        await super().__call__(scope, receive, send)

    async def _serve(
        self,
        handler: Callable[[Request], Awaitable[Response]],
        scope: Scope,
        receive: Receive,
        send: Send,
    ) -> None:
        try:
            response = await handler(Request(scope, receive, send))
        except Exception as exc:
            # Nothing was sent: the handler only builds its response.
            await self._answer(exc, False, scope, receive, send)
            return
        started = False

        async def sender(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await response(scope, receive, sender)
        except Exception as exc:
            await self._answer(exc, started, scope, receive, sender)

    async def _answer(
        self, exc: Exception, started: bool, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """`exc` answered as Starlette's `wrap_app_handling_exceptions` answers it."""
        handler = None
        if isinstance(exc, HTTPException):
            handler = self._status_handlers.get(exc.status_code)
        if handler is None:
            handler = _lookup_exception_handler(self._exception_handlers, exc)
        if handler is None:
            raise exc
        if started:
            raise RuntimeError("Caught handled exception, but response already started.") from exc
        conn = Request(scope, receive, send)
        # Starlette types a handler as taking a request or a websocket; this lane is HTTP's.
        if is_async_callable(handler):
            response = await handler(conn, exc)  # type: ignore[arg-type]
        else:
            response = await run_in_threadpool(handler, conn, exc)
        if response is not None:
            await response(scope, receive, send)
        # Reused exception instances accumulate tracebacks across requests.
        exc.__traceback__ = None


class LaneApp(FastAPI):
    """FastAPI, with `LeanLane` in place of Starlette's exception middleware (the same
    handlers, the same place in the stack: inside the app's own middleware, outside the
    exit stack and the router), and without the two layers FastAPI puts in every app's stack
    that do nothing for this one (`_pass_through`). `lean_lane = False` builds FastAPI's
    stack unchanged."""

    lean_lane: bool = True

    def build_middleware_stack(self) -> ASGIApp:
        stack = super().build_middleware_stack()
        if not self.lean_lane or not isinstance(self.router, IndexedRouter):
            return stack
        # Each layer is a coroutine (and its cells) that every request in flight holds
        # while it lasts: an open live stream for its whole life (docs/performance.md).
        above: Any = stack
        while getattr(above, "app", None) is not None:
            if self._pass_through(above.app):
                above.app = above.app.app
            else:
                above = above.app
        outer: Any = None
        layer: Any = stack
        while layer is not None and type(layer) is not ExceptionMiddleware:
            outer, layer = layer, getattr(layer, "app", None)
        if layer is None or outer is None:
            raise FastAPIError("LaneApp: no exception middleware in the stack")
        lane = LeanLane(layer.app, self.router, debug=layer.debug)
        lane._exception_handlers = layer._exception_handlers
        lane._status_handlers = layer._status_handlers
        outer.app = lane
        return stack

    def _pass_through(self, layer: Any) -> bool:
        """Whether `layer` only hands every request of this app on: FastAPI's app-wide body
        limit with no limit set (the app's own `Edge` limits bodies), and its exception
        telemetry with telemetry off (it reports to a request's telemetry, which only an
        app with telemetry on starts). Both are in every FastAPI app's stack."""
        if type(layer) is AppBodyLimitMiddleware:
            return self.max_body_size is None
        if type(layer) is ExceptionTelemetryMiddleware:
            telemetry = self._telemetry
            return not (telemetry["tracing"] or telemetry["metrics"] or telemetry["logs"])
        return False
