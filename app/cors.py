"""Browser access: CORS from `ARBITER_CORS_ORIGINS` (comma-separated origins, or `*`).

Off by default. When on, Starlette's `CORSMiddleware` answers preflights (200) and adds the
CORS headers to every answer of an allowed origin. It goes outermost, around `Edge`: a
preflight then never reaches the rate limit or the routes (which would answer it 405), and
the answers `Edge` gives itself (413, 500) carry the headers too, so a browser can read them.
No credentials mode: callers authenticate with `Authorization: Bearer`, never cookies.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp

#: Every method the API's routes take (a webhook's change is a PATCH), and the preflight's.
ALLOW_METHODS: Final = ("GET", "POST", "PATCH", "DELETE", "OPTIONS")
#: What a browser caller sends beyond the CORS-safelisted headers; `Last-Event-ID` is for
#: event-stream clients built on `fetch` (EventSource cannot send `Authorization`).
ALLOW_HEADERS: Final = (
    "Authorization",
    "Content-Type",
    "If-Match",
    "Idempotency-Key",
    "X-Request-ID",
    "X-Client-Key",
    "Last-Event-ID",
)
#: The answer headers a browser script may read besides the CORS-safelisted ones.
EXPOSE_HEADERS: Final = (
    "ETag",
    "Location",
    "Idempotent-Replayed",
    "Link",
    "Retry-After",
    "X-Request-ID",
)
DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: How long a browser may cache a preflight's answer, in seconds.
PREFLIGHT_MAX_AGE: Final = 600


def parse_origins(spec: str | None) -> list[str]:
    """The allowed origins of `ARBITER_CORS_ORIGINS`: `["*"]`, a list, or `[]` (off).

    An origin is `scheme://host[:port]`; a trailing `/` is forgiven, anything else (a path,
    a query) is a mistake reported at startup rather than an origin that never matches.
    """
    origins: list[str] = []
    for item in (part.strip() for part in (spec or "").split(",")):
        if not item:
            continue
        if item == "*":
            return ["*"]
        origin = origin_of(item.rstrip("/"))
        if origin is None:
            raise ValueError(
                f"ARBITER_CORS_ORIGINS: {item!r} is not an origin (scheme://host[:port]) or *"
            )
        origins.append(origin)
    return origins


def origin_of(text: str) -> str | None:
    """`text` as a browser writes an origin (lower case, no default port), or None."""
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        return None
    if (
        scheme not in DEFAULT_PORTS
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username is not None
        or parts.password is not None
    ):
        return None
    netloc = parts.netloc.lower()
    if port == DEFAULT_PORTS[scheme]:
        netloc = netloc.rsplit(":", 1)[0]
    return f"{scheme}://{netloc}"


class Cors(CORSMiddleware):
    """Starlette's CORS middleware, whose preflight answers (which `Edge` never sees) say
    `X-Content-Type-Options: nosniff` too, as every other answer does."""

    def __init__(self, app: ASGIApp, /, **options: Any) -> None:
        super().__init__(app, **options)
        self.preflight_headers["X-Content-Type-Options"] = "nosniff"


def add_cors(app: FastAPI, spec: str | None) -> None:
    """Put CORS outermost on `app` for the origins of `spec`; nothing at all when it is unset.

    Call it after the app's other `add_middleware` calls (the last added is the outermost).
    """
    origins = parse_origins(spec)
    if not origins:
        return
    app.add_middleware(
        Cors,
        allow_origins=origins,
        allow_methods=ALLOW_METHODS,
        allow_headers=ALLOW_HEADERS,
        expose_headers=EXPOSE_HEADERS,
        max_age=PREFLIGHT_MAX_AGE,
    )
