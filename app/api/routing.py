"""Route dispatch by path prefix.

Starlette matches a request against the routes one by one, each a regular expression; with
forty routes, a round posted to the last contest kind paid for thirty failed matches first.
`PrefixDispatch` sits first in the app's route list and hands each request only the routes
that share its first two path segments (`/v1/arm-wrestles`), in their order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

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
