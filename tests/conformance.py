"""Every answer the test suite receives is checked against what /openapi.json says of it.

`Conforming(app)` wraps the app under test: each 2xx JSON body is validated, strictly and
closed to undocumented keys, against the answer type of the operation that served it (the
same type FastAPI turns into the operation's response schema). A body that does not fit,
or a 2xx JSON body from an operation that documents none, fails the test that caused it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute
from pydantic import TypeAdapter
from starlette.types import Message, Receive, Scope, Send

JSON = b"application/json"


@cache
def _adapter(answer_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(answer_type)


class NonConformingAnswer(AssertionError):
    """A served body that its operation's documented type does not describe."""


class Conforming:
    """An ASGI wrapper checking every served 2xx JSON body against its operation's type."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.checked = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    @staticmethod
    def answer_type(route: Any, status: int) -> Any:
        """The type the route documents for the JSON of a `status` answer, or None."""
        documented = (getattr(route, "responses", None) or {}).get(status, {})
        model = documented.get("model")
        if model is None and status == (getattr(route, "status_code", None) or 200):
            model = getattr(route, "response_model", None)
        return model

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, capture)
        status = start.get("status", 0)
        headers = dict(start.get("headers", []))
        if not 200 <= status < 300 or not headers.get(b"content-type", b"").startswith(JSON):
            return
        if scope["path"] == self.app.openapi_url:  # the document itself
            return
        route = scope.get("route")  # the route that served it, as the router set it
        where = f"{scope['method']} {scope['path']} -> {status}"
        model = self.answer_type(route, status) if isinstance(route, APIRoute) else None
        if model is None:
            raise NonConformingAnswer(f"{where}: a JSON answer its operation does not document")
        try:
            _adapter(model).validate_json(b"".join(chunks), strict=True)
        except Exception as exc:
            raise NonConformingAnswer(f"{where} does not fit {model}: {exc}") from exc
        self.checked += 1
