"""The webhook sender's HTTP/1.1 (app/api/sessions/outbound.py) against a scripted receiver on
loopback: the bytes of the request as a receiver reads them, and each shape of answer a
receiver may give — informational first, chunked, without a length, malformed, asking to
wait — read as HTTP says, the connection kept only when the answer ended cleanly."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from app.api.sessions import outbound
from app.errors import InvalidInput

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """One request's head and body, as a receiver reads them."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return head, await reader.readexactly(length)


class Scripted:
    """A receiver on loopback answering each request with the next of `answers` (raw bytes),
    closing the connection after an answer when told to; the requests it read, and how many
    connections it was opened."""

    def __init__(self, answers: list[tuple[bytes, bool]]) -> None:
        self.answers = answers
        self.requests: list[tuple[bytes, bytes]] = []
        self.connections = 0
        self.server: asyncio.Server | None = None

    async def __aenter__(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/hook?x=1"

    async def __aexit__(self, *_exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await outbound.close_idle()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.answers:
                self.requests.append(await read_request(reader))
                answer, close = self.answers.pop(0)
                writer.write(answer)
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()


async def post(url: str, headers: list[tuple[str, str]] | None = None) -> outbound.Answered:
    return await outbound.post(
        url,
        headers or [],
        b'{"type":"round"}',
        allow_private=True,
        connect_timeout=5,
        total_timeout=10,
        max_answer_bytes=1024,
    )


async def outcome(url: str, headers: list[tuple[str, str]] | None = None) -> object:
    """What one POST to `url` came to: its `Answered`, or the `Failed` it raised."""
    try:
        return await post(url, headers)
    except outbound.Failed as exc:
        return exc


def run(answers: list[tuple[bytes, bool]], requests: int) -> tuple[list[object], Scripted]:
    """`requests` POSTs in turn to a receiver giving `answers`: what each came to (an
    `Answered` or the exception), and the receiver."""
    scripted = Scripted(answers)

    async def main() -> list[object]:
        got: list[object] = []
        async with scripted as url:
            for _ in range(requests):
                got.append(await outcome(url, [("webhook-id", "msg_1")]))
        return got

    return asyncio.run(main()), scripted


NO_CONTENT = b"HTTP/1.1 204 No Content\r\n\r\n"


def test_the_request_is_one_post_a_receiver_reads_byte_for_byte() -> None:
    got, scripted = run([(NO_CONTENT, False)], 1)
    assert got == [outbound.Answered(204, None)]
    head, body = scripted.requests[0]
    port = head.split(b"Host: 127.0.0.1:")[1].split(b"\r\n")[0].decode()
    assert head.decode() == (
        "POST /hook?x=1 HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\n"
        f"User-Agent: {outbound.USER_AGENT}\r\n"
        "Content-Length: 16\r\n"
        "webhook-id: msg_1\r\n\r\n"
    )
    assert body == b'{"type":"round"}'


def test_an_answer_that_ended_cleanly_keeps_its_connection_for_the_next() -> None:
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
    got, scripted = run([(NO_CONTENT, False), (chunked, False), (NO_CONTENT, False)], 3)
    assert [answer.status for answer in got] == [204, 200, 204]  # type: ignore[attr-defined]
    assert scripted.connections == 1


def test_an_informational_answer_is_followed_by_the_one_that_counts() -> None:
    answer = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok"
    got, scripted = run([(answer, False), (NO_CONTENT, False)], 2)
    assert got == [outbound.Answered(202, None), outbound.Answered(204, None)]
    assert scripted.connections == 1


def test_an_answer_without_a_length_ends_with_its_connection_which_is_not_kept() -> None:
    until_closed = b"HTTP/1.1 500 Oops\r\nConnection: close\r\n\r\nsomething broke"
    got, scripted = run([(until_closed, True), (NO_CONTENT, False)], 2)
    assert got == [outbound.Answered(500, None), outbound.Answered(204, None)]
    assert scripted.connections == 2


def test_a_connection_closed_by_the_receiver_while_kept_is_replaced_unseen() -> None:
    # The receiver closes after its first answer although it said nothing of it: the next
    # request finds the kept connection closed and is sent again on a new one.
    got, scripted = run([(NO_CONTENT, True), (NO_CONTENT, False)], 2)
    assert got == [outbound.Answered(204, None), outbound.Answered(204, None)]
    assert scripted.connections == 2


def test_a_malformed_answer_fails_the_attempt() -> None:
    got, _scripted = run([(b"HTTP/1.1 two hundred\r\n\r\n", True)], 1)
    assert isinstance(got[0], outbound.Failed)
    assert "malformed" in str(got[0])


def test_a_connection_closed_without_an_answer_fails_the_attempt() -> None:
    got, _scripted = run([(b"", True)], 1)
    assert isinstance(got[0], outbound.Failed)
    assert str(got[0]) == "the connection closed without an answer"


@pytest.mark.parametrize("later", [0, 120])
def test_retry_after_in_seconds_or_as_a_date(later: int) -> None:
    seconds = b"HTTP/1.1 429 Slow Down\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n"
    moment = format_datetime(datetime.now(UTC) + timedelta(seconds=later), usegmt=True)
    dated = f"HTTP/1.1 503 Busy\r\nretry-after: {moment}\r\nContent-Length: 0\r\n\r\n".encode()
    got, _scripted = run([(seconds, False), (dated, False)], 2)
    assert got[0] == outbound.Answered(429, 7.0)
    asked = got[1].retry_after  # type: ignore[attr-defined]
    assert asked is not None
    assert later - 5 <= asked <= later


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/a b",
        "http://example.com/caf\u00e9",
        "http://b\u00fccher.example/hook",
        "http://example.com/?q=\x7f",
    ],
)
def test_a_url_that_is_not_visible_ascii_is_refused_at_subscription(url: str) -> None:
    with pytest.raises(InvalidInput, match="visible ASCII"):
        outbound.check_url(url)


def test_a_url_in_idna_form_and_percent_encoded_is_taken() -> None:
    assert outbound.check_url("https://xn--bcher-kva.example/caf%C3%A9?a=1") == (
        "https",
        "xn--bcher-kva.example",
        443,
        "/caf%C3%A9?a=1",
    )


@pytest.mark.parametrize("value", ["a\r\nX-Injected: 1", "caf\u00e9"])
def test_a_header_that_is_not_one_line_of_ascii_is_never_sent(value: str) -> None:
    scripted = Scripted([(NO_CONTENT, False)])

    async def main() -> None:
        async with scripted as url:
            with pytest.raises(ValueError, match="one line of ASCII"):
                await post(url, [("webhook-id", value)])

    asyncio.run(main())
    assert scripted.requests == []


def certificate(folder: Path, host: str) -> tuple[Path, Path]:
    """A self-signed certificate for `host` and its key, written in `folder`."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    now = datetime.now(UTC)
    made = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=1))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert, private = folder / f"{host}.pem", folder / f"{host}.key"
    cert.write_bytes(made.public_bytes(serialization.Encoding.PEM))
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert, private


@pytest.mark.parametrize("issued_to", ["localhost", "elsewhere.example"])
def test_https_checks_the_receivers_certificate_and_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, issued_to: str
) -> None:
    """An https receiver is reached over TLS: a certificate no authority the service trusts
    signed is refused, and so is one issued to another name; one it trusts, for the URL's
    host, carries the requests, its connection kept between them."""
    cert, private = certificate(tmp_path, issued_to)
    serving = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    serving.load_cert_chain(cert, private)
    scripted = Scripted([(NO_CONTENT, False)] * 2)

    async def main() -> list[object]:
        scripted.server = await asyncio.start_server(scripted._serve, "127.0.0.1", 0, ssl=serving)
        port = scripted.server.sockets[0].getsockname()[1]
        url = f"https://localhost:{port}/hook"
        got: list[object] = []
        try:
            got.append(await outcome(url))
            trusting = ssl.create_default_context(cafile=str(cert))
            monkeypatch.setattr(outbound, "_tls", lambda: trusting)
            for _ in range(2):
                got.append(await outcome(url))
        finally:
            scripted.server.close()
            await outbound.close_idle()
        return got

    untrusted, *trusted = asyncio.run(main())
    assert isinstance(untrusted, outbound.Failed)
    assert "CERTIFICATE_VERIFY_FAILED" in str(untrusted)
    if issued_to == "localhost":
        assert trusted == [outbound.Answered(204, None)] * 2
        assert len(scripted.requests) == 2
        # One connection (the refused handshake never reached the receiver's code), kept for
        # both requests.
        assert scripted.connections == 1
    else:
        assert all(isinstance(each, outbound.Failed) for each in trusted)
        assert all("match" in str(each) or "mismatch" in str(each) for each in trusted)
        assert scripted.requests == []
