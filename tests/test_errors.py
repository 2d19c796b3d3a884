"""Failing cleanly at the edge: NaN and Infinity, huge 422s, clients that go away mid-body."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import orjson
import pytest
from fastapi.testclient import TestClient
from starlette.types import Message

from app.errors import MAX_ERRORS
from app.main import create_app
from app.settings import Settings

QUICK_CONTEST = "/v1/gurps/quick-contest"
JSON_HEADERS = {"content-type": "application/json"}


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_malformed_json(client: TestClient, constant: str) -> None:
    # pydantic's parser alone takes the constant as a number, and a 422 would follow.
    body = f'{{"a": {{"name": "Ann", "skill": {constant}}}, "b": {{"name": "Bob", "skill": 10}}}}'
    response = client.post(QUICK_CONTEST, content=body, headers=JSON_HEADERS)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["title"] == "Malformed JSON"
    assert "NaN and Infinity are not JSON" in response.json()["detail"]


def test_the_words_nan_and_infinity_inside_strings_are_fine(client: TestClient) -> None:
    body = {
        "a": {"name": "NaN", "skill": 12, "roll": [2, 3, 4]},
        "b": {"name": "Infinity", "skill": 10, "roll": [5, 5, 1]},
    }
    response = client.post(QUICK_CONTEST, json=body)
    assert response.status_code == 200
    assert response.json()["summary"].startswith("NaN (skill 12) rolled 9")


def test_a_422_lists_at_most_fifty_errors_and_counts_the_rest(client: TestClient) -> None:
    unknown = 5000
    body = orjson.dumps({f"k{index}": 0 for index in range(unknown)})
    assert len(body) < 65536
    response = client.post(QUICK_CONTEST, content=body, headers=JSON_HEADERS)
    assert response.status_code == 422
    problem = response.json()
    # Every unknown key is one error, and so are the two missing competitors.
    total = unknown + 2
    assert len(problem["errors"]) == MAX_ERRORS
    assert problem["errors_omitted"] == total - MAX_ERRORS
    assert problem["detail"].endswith(f"(and {total - MAX_ERRORS} more errors)")
    assert len(response.content) < 8 * 1024


def test_a_422_with_few_errors_lists_them_all_without_a_count(client: TestClient) -> None:
    response = client.post(QUICK_CONTEST, json={"a": {"name": "Ann"}, "b": {"name": "Bob"}})
    assert response.status_code == 422
    problem = response.json()
    assert [error["loc"] for error in problem["errors"]] == [
        ["body", "a", "skill"],
        ["body", "b", "skill"],
    ]
    assert "errors_omitted" not in problem
    assert "more errors" not in problem["detail"]


def test_a_client_leaving_mid_body_is_no_server_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'gone.db'}"))
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": QUICK_CONTEST,
        "raw_path": QUICK_CONTEST.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"host", b"test")],
        "client": ("127.0.0.1", 50000),
        "server": ("test", 80),
        "state": {},
    }
    incoming: list[Message] = [
        {"type": "http.request", "body": b'{"a": {"name": "Ann", ', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    with caplog.at_level(logging.INFO):
        asyncio.run(app(scope, receive, send))
    starts = [message for message in sent if message["type"] == "http.response.start"]
    assert [start["status"] for start in starts] == [499]
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not [record for record in caplog.records if record.exc_info]
