"""How routes are declared and found: `LeanRoute`, one route class, and `PrefixDispatch`.

`LeanRoute` is FastAPI's `APIRoute` with a leaner request path. The endpoint is declared
once, with its body, path parameters and answer type in its signature, so `/openapi.json`
describes exactly what is served; at request time the route skips FastAPI's dependency
solving: it parses the body with pydantic's JSON validator in one step (`parse_body`), calls
the endpoint, and writes its typed answer with orjson, as JSON or, for `Accept: text/plain`,
as its `summary` line (ARCHITECTURE.md, "Speed", has the figures).

Dispatch by path prefix:

Starlette matches a request against the routes one by one, each a regular expression; with
forty routes, a round posted to the last contest kind paid for thirty failed matches first.
`PrefixDispatch` sits first in the app's route list and hands each request only the routes
that share its first two path segments (`/v1/arm-wrestles`), in their order. A path it
serves, asked with a method none of its routes take, is a 405 whose `Allow` lists the methods
of every route of that path (Starlette's routes would each name only their own).
"""

from __future__ import annotations

import inspect
from collections import defaultdict
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Annotated, Any, Generic, TypeVar

from fastapi import APIRouter, Body, Request
from fastapi.dependencies.utils import request_params_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.common import examples, parse_body, read_body, respond, text_plain_doc
from app.errors import MethodNotAllowed, api_error_response

SELECTED = "arbiter.route"
#: Set on a request whose path is served, but not for its method: the `Allow` of its 405.
ALLOWED = "arbiter.allowed"


def prefix_of(path: str) -> str:
    """The first two segments of a path: `/v1/arm-wrestles/x/rounds` -> `/v1/arm-wrestles`."""
    parts = path.split("/", 3)
    return "/".join(parts[:3])


class PrefixDispatch(BaseRoute):
    """One route standing for many, grouped by `prefix_of` their paths, then by shape.

    Within a prefix, a request is matched only against the routes its path could fit: those
    with as many segments and either its last segment as their literal last one or a
    parameter there (`/v1/arm-wrestles/x/rounds` meets `…/{session_id}/rounds`, not
    `…/{session_id}/resolve`), in their order. A route whose parameter may span segments
    (`{name:path}`) is a candidate for every path of its prefix.
    """

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.routes = list(routes)
        spanning: dict[str, list[BaseRoute]] = defaultdict(list)
        shapes: dict[tuple[str, int, str | None], list[BaseRoute]] = defaultdict(list)
        for route in self.routes:
            path = getattr(route, "path", "")
            prefix = prefix_of(path)
            if "{" in prefix:
                raise ValueError(f"route {path} has a parameter in its first two segments")
            segments = path.split("/")
            if ":path}" in path:
                spanning[prefix].append(route)
            else:
                last = segments[-1] if "{" not in segments[-1] else None
                shapes[(prefix, len(segments), last)].append(route)
        order = {id(route): index for index, route in enumerate(self.routes)}

        def ordered(*groups: Sequence[BaseRoute]) -> tuple[BaseRoute, ...]:
            return tuple(sorted((r for group in groups for r in group), key=lambda r: order[id(r)]))

        #: (prefix, segments, literal last segment) -> the routes such a path may match.
        self.by_literal: dict[tuple[str, int, str], tuple[BaseRoute, ...]] = {
            (prefix, count, last): ordered(
                routes, shapes.get((prefix, count, None), ()), spanning.get(prefix, ())
            )
            for (prefix, count, last), routes in shapes.items()
            if last is not None
        }
        #: (prefix, segments) -> the routes a path with any other last segment may match.
        self.by_count: dict[tuple[str, int], tuple[BaseRoute, ...]] = {
            (prefix, count): ordered(routes, spanning.get(prefix, ()))
            for (prefix, count, last), routes in shapes.items()
            if last is None
        }
        self.spanning = {prefix: ordered(routes) for prefix, routes in spanning.items()}
        #: (type, method, path) -> the route without path parameters that served it in full
        #: (the first in order, as the scan would find it again), matched alone next time;
        #: as many entries as such routes and their methods.
        self.static: dict[tuple[str, str | None, str], BaseRoute] = {}

    def candidates(self, path: str) -> Sequence[BaseRoute]:
        """The routes `path` may match, in their order."""
        segments = path.split("/")
        prefix = "/".join(segments[:3])
        count = len(segments)
        found = self.by_literal.get((prefix, count, segments[-1]))
        if found is None:
            found = self.by_count.get((prefix, count))
        if found is None:
            found = self.spanning.get(prefix, ())
        return found

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] not in ("http", "websocket"):
            return Match.NONE, {}
        static = self.static.get((scope["type"], scope.get("method"), scope["path"]))
        if static is not None:
            match, child_scope = static.matches(scope)
            if match == Match.FULL:
                return match, {**child_scope, SELECTED: static}
        candidates = self.candidates(scope["path"])
        method = scope.get("method")
        for route in candidates:
            # A route that does not take this method can only match in part: it is
            # matched below, and only when no route takes the request in full.
            methods = getattr(route, "methods", None)
            if methods is not None and method not in methods:
                continue
            match, child_scope = route.matches(scope)
            if match == Match.FULL:
                if not getattr(route, "param_convertors", True):
                    self.static[(scope["type"], method, scope["path"])] = route
                return match, {**child_scope, SELECTED: route}
        partial: tuple[BaseRoute, Scope] | None = None
        for route in candidates:
            match, child_scope = route.matches(scope)
            if match != Match.NONE:
                partial = (route, child_scope)
                break
        if partial is not None:
            route, child_scope = partial
            return Match.PARTIAL, {**child_scope, SELECTED: route, ALLOWED: self.allowed(scope)}
        return Match.NONE, {}

    def allowed(self, scope: Scope) -> str:
        """The methods served at this request's path (which none of them is), for `Allow`."""
        methods: set[str] = set()
        for route in self.candidates(scope["path"]):
            if route.matches(scope)[0] is not Match.NONE:
                methods.update(getattr(route, "methods", None) or ())
        return ", ".join(sorted(methods))

    def lean_handler(self, scope: Scope) -> Callable[[Request], Awaitable[Response]] | None:
        """The lean handler of the route serving this request in full, with the route's
        scope (path parameters, endpoint) added to `scope`; None when there is none."""
        match, child_scope = self.matches(scope)
        if match is not Match.FULL:
            return None
        handler: Callable[[Request], Awaitable[Response]] | None = getattr(
            child_scope[SELECTED], "lean_handler", None
        )
        if handler is not None:
            scope.update(child_scope)
        return handler

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        allowed: str | None = scope.get(ALLOWED)
        if allowed is not None:
            response = api_error_response(
                MethodNotAllowed(
                    f"{scope['method']} is not served at this path; it serves {allowed}",
                    headers={"Allow": allowed},
                )
            )
            await response(scope, receive, send)
            return
        route: BaseRoute = scope[SELECTED]
        await route.handle(scope, receive, send)


M = TypeVar("M", bound=BaseModel)
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


class LeanRoute(APIRoute):
    """An `APIRoute` whose endpoint takes the request, its path parameters and its parsed body.

    The lean path serves an endpoint that declares (any of) `request: Request`, path
    parameters (`str`), query parameters and one body parameter (a pydantic model, `Annotated`
    with `Body(...)` for its examples; given a default, an empty body means that default; see
    `declare_body` for a body validated only when the endpoint asks). It returns its
    typed answer (rendered with the route's status code) or a `Response`. An endpoint
    declaring anything else (dependencies, header parameters) is served by FastAPI's own
    handler, so every route of the app can be of this one class.

    A lean route is served by `lean_app`: without FastAPI's per-request exit stacks (for
    dependencies with `yield`, which it has none of) and its per-route exception wrapper (the
    app's exception middleware maps what the handler raises, with the same handlers).
    """

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        #: The lean handler (set by `get_route_handler`), or None when FastAPI's own serves.
        self.lean_handler: Callable[[Request], Awaitable[Response]] | None = None
        super().__init__(path, endpoint, **kwargs)
        if self.lean_handler is not None:
            self.app = lean_app(self.lean_handler)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        dependant = self.dependant
        if dependant.dependencies or dependant.header_params or len(dependant.body_params) > 1:
            # Dependencies or header parameters: FastAPI's own handler does the work.
            return super().get_route_handler()
        query = dependant.query_params
        body = dependant.body_params[0] if dependant.body_params else None
        body_name = body.name if body is not None else None
        body_model: Any = body.field_info.annotation if body is not None else None
        # A body with a default may be left out: an empty body means the default.
        body_default: Any = (
            None if body is None or body.field_info.is_required() else body.field_info.default
        )
        path_names = tuple(param.name for param in dependant.path_params)
        request_name = dependant.request_param_name
        endpoint: Callable[..., Awaitable[Any]] = self.endpoint
        deferred = getattr(endpoint, DEFERRED, False)
        status = self.status_code or 200

        async def handler(request: Request) -> Response:
            arguments: dict[str, Any] = {name: request.path_params[name] for name in path_names}
            if query:
                values, errors = request_params_to_args(query, request.query_params)
                if errors:
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
            answer = await endpoint(**arguments)
            if isinstance(answer, Response):
                return answer
            return respond(request, answer, status)

        self.lean_handler = handler
        return handler


def lean_app(handler: Callable[[Request], Awaitable[Response]]) -> ASGIApp:
    """The ASGI app of a lean route: the handler's response, sent."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await handler(Request(scope, receive, send))
        await response(scope, receive, send)

    return app


class LeanLane:
    """The innermost middleware: a request that a lean route serves in full goes straight to
    its handler, past the framework's exception middleware, exit stack and router (about a
    tenth of a quick contest's time); any other request goes on to them.

    What the handler raises is answered by the app's own exception handlers, found as the
    exception middleware finds them (by status for an `HTTPException`, then by class); an
    exception without one (a bug: the handler for `Exception`) goes on up to `Edge`.
    """

    def __init__(self, app: ASGIApp, dispatch: PrefixDispatch) -> None:
        self.app = app
        self.dispatch = dispatch

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = self.dispatch.lean_handler(scope) if scope["type"] == "http" else None
        if handler is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive, send)
        try:
            response = await handler(request)
        except Exception as exc:
            on_error = exception_handler(scope.get("app"), exc)
            if on_error is None:
                raise
            response = await on_error(request, exc)
        await response(scope, receive, send)


def exception_handler(app: Any, exc: Exception) -> Callable[..., Awaitable[Response]] | None:
    """The app's handler for `exc`, as Starlette's exception middleware chooses it (never the
    one for `Exception`, which answers unexpected errors at the edge)."""
    handlers: Mapping[Any, Any] = getattr(app, "exception_handlers", {})
    if isinstance(exc, HTTPException) and exc.status_code in handlers:
        found: Callable[..., Awaitable[Response]] = handlers[exc.status_code]
        return found
    for cls in type(exc).__mro__:
        if cls is Exception:
            return None
        if cls in handlers:
            found = handlers[cls]
            return found
    return None


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
