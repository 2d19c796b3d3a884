"""The table page, `GET /table`: a live page for the game master and each player.

One HTML page and its assets (plain ES modules and a style sheet, committed as they are served,
no build step), from the package `app.table`. The page reads its session, kind and token from
the URL's fragment (`/table#session=…&kind=…&token=…`), which a browser never sends to a server,
and calls the API with `Authorization: Bearer`. Its Content-Security-Policy allows only what the
page itself loads: its own scripts and style sheet, no inline script or style, and requests to
this origin alone. The API's CORS middleware and edge wrap it as they wrap every answer.
"""

from __future__ import annotations

import functools
import hashlib
import os
from importlib import resources
from typing import Final

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.staticfiles import PathLike
from starlette.types import Scope

from app.api.common import revalidated
from app.api.routing import LeanRoute

PAGE_URL: Final = "/table"
ASSETS_URL: Final = "/table/assets"
#: The package holding `index.html` and the folder of its assets.
PACKAGE: Final = "app.table"
ASSETS: Final = (PACKAGE, "assets")
#: Everything the page loads is its own: scripts and styles from this origin's files (no
#: inline code, no `eval`), no plug-ins, no frames, calls to this origin only. Its charts are
#: SVG built in the page, so images need nothing but `'self'`.
POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'none'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
#: The page's own headers besides its policy: its tokens are in its fragment, and no referrer
#: leaves it (a browser never sends a fragment, but a link followed from it needs no address).
PAGE_HEADERS: Final = {
    "Content-Security-Policy": POLICY,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


@functools.cache
def page() -> tuple[bytes, str]:
    """The page's HTML and its entity tag."""
    content = resources.files(PACKAGE).joinpath("index.html").read_bytes()
    return content, '"' + hashlib.sha256(content).hexdigest()[:32] + '"'


def install_table(app: FastAPI) -> None:
    """Add the table page and its assets to `app`."""

    async def table(request: Request) -> Response:
        """The live table page (session, kind and token in its URL's fragment)."""
        content, etag = page()
        return revalidated(request, content, etag, "text/html; charset=utf-8", PAGE_HEADERS)

    app.router.add_api_route(
        PAGE_URL,
        table,
        methods=["GET", "HEAD"],
        include_in_schema=False,
        route_class_override=LeanRoute,
    )
    app.mount(ASSETS_URL, TableAssets(packages=[ASSETS]), name="table-assets")


class TableAssets(StaticFiles):
    """The page's assets, with the page's own `nosniff` (a module script must be served as
    JavaScript) and revalidated on each load, so a new version is never mixed with an old one."""

    def file_response(
        self,
        full_path: PathLike,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-cache"
        return response
