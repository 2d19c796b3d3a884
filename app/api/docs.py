"""The documentation pages, `/docs` (Swagger UI) and `/redoc`, rendering without internet.

FastAPI's own pages load Swagger UI and Redoc from a CDN, so they are blank on a machine
offline. Here their scripts, styles and icon come from the app itself, from the files the
fastapi-offline package ships (Swagger UI 5, which reads the OpenAPI 3.1 FastAPI emits, and
Redoc 2), served under `STATIC_URL`. The app is created with `docs_url=None, redoc_url=None`
so that these are its only documentation pages.
"""

from __future__ import annotations

from typing import Final

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse

from app.api.routing import LeanRoute

#: Where the pages' assets are served; under `/docs` so that the router's index finds it by
#: its first two path segments like any other route.
STATIC_URL: Final = "/docs/static"
#: The pages may load nothing from another host: what they need is served here, and a
#: browser offline or behind a strict proxy then shows them as it would online. (Redoc's
#: footer logo, from its CDN, is refused and hides itself.) Inline scripts and styles are the
#: pages' own start-up code and the styles Swagger UI and Redoc inject; workers are Redoc's.
CONTENT_SECURITY_POLICY: Final = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'"
)
#: The package, and its folder, holding swagger-ui-bundle.js, swagger-ui.css,
#: redoc.standalone.js and favicon.png.
ASSETS: Final = ("fastapi_offline", "static")


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
        page.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        return page

    async def redoc(request: Request) -> HTMLResponse:
        """Redoc over this service's OpenAPI document."""
        root = request.scope.get("root_path", "")
        page = get_redoc_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{STATIC_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{STATIC_URL}/favicon.png",
            # Google's fonts would be fetched from the internet; the system's serve.
            with_google_fonts=False,
        )
        page.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        return page

    for path, endpoint in ((docs_url, swagger_ui), (redoc_url, redoc)):
        app.router.add_api_route(
            path,
            endpoint,
            methods=["GET", "HEAD"],
            include_in_schema=False,
            route_class_override=LeanRoute,
        )
    app.mount(STATIC_URL, StaticFiles(packages=[ASSETS]), name="docs-static")
