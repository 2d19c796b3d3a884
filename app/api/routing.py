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
that share its first two path segments (`/v1/arm-wrestles`), in their order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from fastapi import APIRouter, Request
from fastapi.routing import APIRoute
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

from app.api.common import parse_body, respond, text_plain_doc

SELECTED = "arbiter.route"


def prefix_of(path: str) -> str:
    """The first two segments of a path: `/v1/arm-wrestles/x/rounds` -> `/v1/arm-wrestles`."""
    parts = path.split("/", 3)
    return "/".join(parts[:3])


class PrefixDispatch(BaseRoute):
    """One route standing for many, grouped by `prefix_of` their paths."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.routes = list(routes)
        self.by_prefix: dict[str, list[BaseRoute]] = defaultdict(list)
        for route in self.routes:
            path = getattr(route, "path", "")
            if "{" in prefix_of(path):
                raise ValueError(f"route {path} has a parameter in its first two segments")
            self.by_prefix[prefix_of(path)].append(route)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] not in ("http", "websocket"):
            return Match.NONE, {}
        partial: tuple[BaseRoute, Scope] | None = None
        for route in self.by_prefix.get(prefix_of(scope["path"]), ()):
            match, child_scope = route.matches(scope)
            if match == Match.FULL:
                return match, {**child_scope, SELECTED: route}
            if match == Match.PARTIAL and partial is None:
                partial = (route, child_scope)
        if partial is not None:
            route, child_scope = partial
            return Match.PARTIAL, {**child_scope, SELECTED: route}
        return Match.NONE, {}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        route: BaseRoute = scope[SELECTED]
        await route.handle(scope, receive, send)


class LeanRoute(APIRoute):
    """An `APIRoute` whose endpoint takes the request, its path parameters and its parsed body.

    The lean path serves an endpoint that declares (any of) `request: Request`, path
    parameters (`str`) and one body parameter (a pydantic model, `Annotated` with `Body(...)`
    for its examples; given a default, an empty body means that default). It returns its
    typed answer (rendered with the route's status code) or a `Response`. An endpoint
    declaring anything else (query parameters, dependencies) is served by FastAPI's own
    handler, so every route of the app can be of this one class.
    """

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        dependant = self.dependant
        if (
            dependant.dependencies
            or dependant.query_params
            or dependant.header_params
            or len(dependant.body_params) > 1
        ):
            # Query parameters or dependencies: FastAPI's own handler does the work.
            return super().get_route_handler()
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
        status = self.status_code or 200

        async def handler(request: Request) -> Response:
            arguments: dict[str, Any] = {name: request.path_params[name] for name in path_names}
            if request_name is not None:
                arguments[request_name] = request
            if body_name is not None:
                if body_default is not None and not (await request.body()).strip():
                    arguments[body_name] = body_default
                else:
                    arguments[body_name] = await parse_body(request, body_model)
            answer = await endpoint(**arguments)
            if isinstance(answer, Response):
                return answer
            return respond(request, answer, status)

        return handler


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
