"""The documentation pages, `/docs` (Swagger UI) and `/redoc`, rendering without internet.

FastAPI's own pages load Swagger UI and Redoc from a CDN, so they are blank on a machine
offline. Here their scripts, styles and icon come from the app itself, from the files the
fastapi-offline package ships (Swagger UI 5, which reads the OpenAPI 3.1 FastAPI emits, and
Redoc 2), served under `STATIC_URL`. The app is created with `docs_url=None, redoc_url=None`
so that these are its only documentation pages.

Redoc's bundle is served with one change: its side menu's Redocly logo, an image it would
fetch from Redocly's CDN, is left out (the "API docs by Redocly" link stays), so the page asks
nothing of another host.
"""

from __future__ import annotations

import functools
import hashlib
import re
from importlib import resources
from typing import Final

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse, Response

from app.api.common import revalidated
from app.api.routing import LeanRoute

#: Where the pages' assets are served; under `/docs` so that the router's index finds it by
#: its first two path segments like any other route.
STATIC_URL: Final = "/docs/static"
#: The pages may load nothing from another host: what they need is served here, and a
#: browser offline or behind a strict proxy then shows them as it would online. Inline scripts
#: and styles are the pages' own start-up code and the styles Swagger UI and Redoc inject.
_POLICY: Final = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src {img_src}; font-src 'self' data:; worker-src {worker_src}; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'"
)
#: Swagger UI shows an image answer (an odds chart tried out) as a `blob:` URL it makes of
#: the answer it fetched itself.
SWAGGER_UI_POLICY: Final = _POLICY.format(img_src="'self' data: blob:", worker_src="'none'")
#: Redoc runs its search in a worker it starts from a `blob:` URL of its own script.
REDOC_POLICY: Final = _POLICY.format(img_src="'self' data:", worker_src="'self' blob:")
#: The package, and its folder, holding swagger-ui-bundle.js, swagger-ui.css,
#: redoc.standalone.js and favicon.png.
ASSETS: Final = ("fastapi_offline", "static")
REDOC_BUNDLE: Final = "redoc.standalone.js"
#: The Redocly logo in Redoc's side menu: an `<img>` of `https://cdn.redoc.ly/…`, built with
#: React's `createElement` (whatever the bundle's minifier named it).
_REDOCLY_LOGO: Final = re.compile(
    r'[\w$]+\.createElement\("img",\{alt:"redocly logo",[^{}]*src:"https://cdn\.redoc\.ly/[^"]*"\}\)'
)


@functools.cache
def redoc_bundle() -> tuple[bytes, str]:
    """Redoc's bundle without the Redocly logo (its menu shows none, as when the CDN is
    unreachable), and its entity tag."""
    package, folder = ASSETS
    script = resources.files(package).joinpath(folder, REDOC_BUNDLE).read_text(encoding="utf-8")
    script, found = _REDOCLY_LOGO.subn("null", script)
    if found != 1:
        raise RuntimeError(f"{REDOC_BUNDLE}: its Redocly logo is not where this version has it")
    content = script.encode()
    return content, '"' + hashlib.sha256(content).hexdigest()[:32] + '"'


def install_docs(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Add the two pages and their assets to `app` (created without FastAPI's own pages)."""
    if app.docs_url is not None or app.redoc_url is not None:
        raise ValueError("create the app with docs_url=None, redoc_url=None: its pages are here")
    openapi_url = app.openapi_url or "/openapi.json"

    async def swagger_ui(request: Request) -> HTMLResponse:
        """Swagger UI over this service's OpenAPI document."""
        root = request.scope.get("root_path", "")
        page = get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{STATIC_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{STATIC_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{STATIC_URL}/favicon.png",
            # Bearer tokens only: no OAuth2 flow needs a redirect page.
            oauth2_redirect_url=None,
            swagger_ui_parameters=app.swagger_ui_parameters,
        )
        page.headers["Content-Security-Policy"] = SWAGGER_UI_POLICY
        return page

    async def redoc(request: Request) -> HTMLResponse:
        """Redoc over this service's OpenAPI document."""
        root = request.scope.get("root_path", "")
        page = get_redoc_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{STATIC_URL}/{REDOC_BUNDLE}",
            redoc_favicon_url=f"{root}{STATIC_URL}/favicon.png",
            # Google's fonts would be fetched from the internet; the system's serve.
            with_google_fonts=False,
        )
        page.headers["Content-Security-Policy"] = REDOC_POLICY
        return page

    async def redoc_script(request: Request) -> Response:
        """Redoc's bundle, served from the app without its Redocly logo."""
        content, etag = redoc_bundle()
        return revalidated(request, content, etag, "text/javascript", {})

    pages = (
        (docs_url, swagger_ui),
        (redoc_url, redoc),
        # Before the static files' mount, which would serve the bundle as shipped.
        (f"{STATIC_URL}/{REDOC_BUNDLE}", redoc_script),
    )
    for path, endpoint in pages:
        app.router.add_api_route(
            path,
            endpoint,
            methods=["GET", "HEAD"],
            include_in_schema=False,
            route_class_override=LeanRoute,
        )
    app.mount(STATIC_URL, StaticFiles(packages=[ASSETS]), name="docs-static")
