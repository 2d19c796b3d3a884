"""A slow or stalled client holds nothing shared, on a real server (app/serving.py).

A client dribbling a round's body reads as a request in progress: the app reads every body
before it takes SQLite's write lock or a PostgreSQL connection, so other sessions' rounds,
creations and reads are answered meanwhile — with one slow body on SQLite, and one more than
the pool's connections on PostgreSQL. Heads over their limits are refused (431), and a head
or a body that does not arrive in time is answered 408 and its connection closed.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import orjson
import pytest

from app.store.database import upgrade_to_head
from tests.helpers import Session, bearer
from tests.store.servers import Server, start_server, stop_server, wait_until_healthy

pytestmark = pytest.mark.slow

ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
    "target": 100,
    "max_rounds": 100,
}
POOL = 2
#: A bound on every answer the test waits for (not a figure it checks).
PATIENCE_S = 20.0


@contextmanager
def serving(database_url: str, log_dir: Path, **settings: str) -> Iterator[Server]:
    server = start_server(
        database_url,
        log_dir,
        {
            "ARBITER_DB_POOL_SIZE": str(POOL),
            **{f"ARBITER_{k.upper()}": v for k, v in settings.items()},
        },
    )
    try:
        wait_until_healthy(server)
        yield server
    finally:
        stop_server(server)


def _connect(server: Server) -> socket.socket:
    host, port = server.base_url.removeprefix("http://").split(":")
    connection = socket.create_connection((host, int(port)), timeout=PATIENCE_S)
    return connection


def _slow_round(server: Server, session: Session) -> socket.socket:
    """A round posted with its head and a tenth of its body, the rest never sent."""
    connection = _connect(server)
    path = session.url.removeprefix(server.base_url)
    connection.sendall(
        f"POST {path}/rounds HTTP/1.1\r\nHost: test\r\n"
        f"Authorization: Bearer {session.gm}\r\nContent-Type: application/json\r\n"
        "Content-Length: 100\r\n\r\n{          ".encode()
    )
    return connection


def _nothing_answered(connection: socket.socket) -> bool:
    connection.setblocking(False)
    try:
        return connection.recv(1) == b""  # closed without an answer
    except BlockingIOError:
        return True  # still waiting, as it should
    finally:
        connection.setblocking(True)


def test_slow_bodies_hold_no_lock_and_no_connection(database_url: str, tmp_path: Path) -> None:
    slow_count = POOL + 1 if database_url.startswith("postgresql") else 1
    with (
        serving(database_url, tmp_path) as server,
        httpx.Client(base_url=server.base_url, timeout=PATIENCE_S) as client,
    ):
        stalled = Session(client, "arm-wrestles", dict(ARM_WRESTLE))
        other = Session(client, "arm-wrestles", dict(ARM_WRESTLE))
        slow = [_slow_round(server, stalled) for _ in range(slow_count)]
        try:
            # Every slow request has reached the app, waiting for its body.
            assert client.get("/healthz").status_code == 200
            statuses = [
                client.post(other.url + "/rounds", json={}, headers=other.headers).status_code
                for _ in range(5)
            ]
            statuses.append(client.post("/v1/arm-wrestles", json=ARM_WRESTLE).status_code)
            statuses.append(client.get(other.url, headers=other.headers).status_code)
            statuses.append(client.get(stalled.url, headers=stalled.headers).status_code)
            statuses.append(
                client.post(stalled.url + "/rounds", json={}, headers=stalled.headers).status_code
            )
            assert all(200 <= status < 300 or status == 409 for status in statuses), statuses
            assert statuses.count(201) == 1
            assert all(_nothing_answered(connection) for connection in slow)
        finally:
            for connection in slow:
                connection.close()
        # The stalled session played only the one round sent whole.
        assert client.get(stalled.url, headers=stalled.headers).json()["round"] == 1


def _answer(connection: socket.socket) -> bytes:
    chunks = []
    while chunk := connection.recv(4096):
        chunks.append(chunk)
    return b"".join(chunks)


def test_heads_and_bodies_over_their_limits(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'limits.db'}"
    upgrade_to_head(url)
    with serving(
        url, tmp_path, header_timeout_seconds="1", body_read_timeout_seconds="1"
    ) as server:
        big = httpx.get(server.base_url + "/healthz", headers={"x-big": "a" * 40_000})
        assert big.status_code == 431
        many = httpx.get(
            server.base_url + "/healthz", headers=[(f"x-h{n}", "1") for n in range(150)]
        )
        assert many.status_code == 431
        assert many.text == "more than 100 headers"
        # In the language the head asks for, when it says (and it says which).
        many_de = httpx.get(
            server.base_url + "/healthz",
            headers=[("accept-language", "de"), *((f"x-h{n}", "1") for n in range(150))],
        )
        assert many_de.status_code == 431
        assert many_de.headers["content-language"] == "de"
        assert many_de.text == "mehr als 100 Kopfzeilen"
        big_fr = httpx.get(server.base_url + "/healthz?lang=fr", headers={"x-big": "a" * 40_000})
        assert big_fr.status_code == 431
        assert big_fr.text == "l'en-tête de la requête dépasse 32\u202f768 octets"
        assert httpx.get(server.base_url + "/healthz").status_code == 200
        # The limits hold for a head that is not the first of its read (pipelined), and for
        # one whose headers are over their count before it has ended.
        pipelined = _connect(server)
        pipelined.sendall(
            b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n"
            b"GET /healthz HTTP/1.1\r\nHost: test\r\nx-big: " + b"a" * 40_000 + b"\r\n\r\n"
        )
        # (Both heads are parsed in one go: the refusal closes the connection first.)
        assert _answer(pipelined).endswith(b"the request's head is over 32768 bytes")
        arriving = _connect(server)
        arriving.sendall(
            b"\r\nGET /healthz HTTP/1.1\r\nHost: test\r\n"
            + b"".join(b"x-h%d: 1\r\n" % n for n in range(150))
        )
        assert _answer(arriving).startswith(b"HTTP/1.1 431 ")
        # A head that never ends, and a connection that sends nothing: 408, then closed.
        dribbling = _connect(server)
        dribbling.sendall(b"GET /healthz?lang=es HTTP/1.1\r\nHost: test\r\n")
        dribbled = _answer(dribbling)
        assert dribbled.startswith(b"HTTP/1.1 408 ")
        assert b"content-language: es\r\n" in dribbled
        assert dribbled.endswith("las cabeceras de la petición tardaron demasiado".encode())
        silent = _connect(server)
        assert _answer(silent).startswith(b"HTTP/1.1 408 ")
        # A body that never ends: 408 as problem+json, the connection closed.
        made = httpx.post(server.base_url + "/v1/arm-wrestles", json=ARM_WRESTLE).json()
        slow = _connect(server)
        slow.sendall(
            f"POST /v1/arm-wrestles/{made['id']}/rounds HTTP/1.1\r\nHost: test\r\n"
            f"Authorization: Bearer {made['tokens']['gm']}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode()
        )
        answer = _answer(slow)
        assert answer.startswith(b"HTTP/1.1 408 ")
        assert b"application/problem+json" in answer
        assert b'"status":408' in answer
        assert b'"detail":"the request body did not arrive within 1 s"' in answer
        slow_pt = _connect(server)
        slow_pt.sendall(
            f"POST /v1/arm-wrestles/{made['id']}/rounds HTTP/1.1\r\nHost: test\r\n"
            f"Authorization: Bearer {made['tokens']['gm']}\r\nAccept-Language: pt-BR\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode()
        )
        answer_pt = _answer(slow_pt)
        assert answer_pt.startswith(b"HTTP/1.1 408 ")
        assert b"content-language: pt-BR\r\n" in answer_pt
        problem = orjson.loads(answer_pt.partition(b"\r\n\r\n")[2])
        assert problem["detail"] == "o corpo da requisição não chegou em 1 s"
        assert problem["type"] == "https://arbiter.example/problems/request-timeout"
        shown = httpx.get(
            f"{server.base_url}/v1/arm-wrestles/{made['id']}", headers=bearer(made["tokens"]["gm"])
        )
        assert shown.json()["round"] == 0
