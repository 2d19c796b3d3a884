"""Arbiter serves its Foundry VTT module (app/api/foundry.py): the manifest a GM pastes into
Foundry, its `manifest` and `download` naming the address the request came to (through a
trusted proxy, the one that proxy passes on), and the module's zip, read back as Foundry
unpacks it. That the zip's module installs and runs is proven by the Node run of
tests/clients/test_foundry.py, which installs it from this zip."""

from __future__ import annotations

import asyncio
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api import foundry
from app.api.foundry import DOWNLOAD_URL, MANIFEST_URL
from app.main import create_app
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "clients" / "foundry"


def asked(
    tmp_path: Path, *requests: tuple[str, dict[str, str]], peer: str = "127.0.0.1", **settings: Any
) -> list[httpx.Response]:
    """The answers of one app to `requests` (path, headers), in order, from `peer`."""
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'arbiter.db'}", **settings))
    transport = httpx.ASGITransport(app=app, client=(peer, 5000))

    async def ask() -> list[httpx.Response]:
        async with httpx.AsyncClient(
            transport=transport, base_url="http://arbiter.test:8000"
        ) as client:
            return [await client.get(path, headers=headers) for path, headers in requests]

    return asyncio.run(ask())


def test_the_manifest_points_at_the_address_it_was_asked_at(tmp_path: Path) -> None:
    answer, other_host = asked(
        tmp_path, (MANIFEST_URL, {}), (MANIFEST_URL, {"host": "rpg.example"})
    )
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/json"
    served = answer.json()
    assert served["manifest"] == "http://arbiter.test:8000/foundry/module.json"
    assert served["download"] == "http://arbiter.test:8000/foundry/arbiter.zip"
    # Everything else is the folder's own module.json, as written.
    own = json.loads((MODULE / "module.json").read_text(encoding="utf-8"))
    assert {key: value for key, value in served.items() if key not in ("manifest", "download")} == (
        own
    )
    assert served["id"] == "arbiter"
    # Another Host, another address: nothing is cached across them.
    other = other_host.json()
    assert other["download"] == "http://rpg.example/foundry/arbiter.zip"
    assert "Host" in answer.headers["vary"]


def test_forwarded_scheme_and_host_are_believed_from_a_trusted_proxy_only(
    tmp_path: Path,
) -> None:
    forwarded = {"x-forwarded-proto": "https", "x-forwarded-host": "arbiter.example"}
    odd_scheme = {"x-forwarded-proto": "javascript"}
    through, odd = asked(
        tmp_path,
        (MANIFEST_URL, forwarded),
        (MANIFEST_URL, odd_scheme),
        peer="10.0.0.1",
        forwarded_allow_ips="10.0.0.1",
    )
    assert through.json()["manifest"] == "https://arbiter.example/foundry/module.json"
    assert through.json()["download"] == "https://arbiter.example/foundry/arbiter.zip"
    # A scheme that is neither http nor https is not taken from anyone.
    assert odd.json()["manifest"] == "http://arbiter.test:8000/foundry/module.json"
    # The same headers from a peer that is not a trusted proxy: not believed.
    (direct,) = asked(
        tmp_path, (MANIFEST_URL, forwarded), peer="10.0.0.9", forwarded_allow_ips="10.0.0.1"
    )
    assert direct.json()["manifest"] == "http://arbiter.test:8000/foundry/module.json"


def shipped() -> set[str]:
    """The files Foundry loads of the module folder, by their path in it."""
    names = {"module.json"}
    for folder in ("scripts", "styles", "lang"):
        names |= {
            path.relative_to(MODULE).as_posix()
            for path in (MODULE / folder).rglob("*")
            if path.is_file()
        }
    return names


def test_the_zip_holds_the_module_as_foundry_unpacks_it(tmp_path: Path) -> None:
    answer, served = asked(tmp_path, (DOWNLOAD_URL, {}), (MANIFEST_URL, {}))
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(answer.content)) as zipped:
        assert zipped.testzip() is None
        names = set(zipped.namelist())
        # The folder's loaded files, byte for byte, at the archive's root; nothing of its
        # development (tests, types, package.json, node_modules).
        assert names == shipped()
        for name in names - {"module.json"}:
            assert zipped.read(name) == (MODULE / name).read_bytes(), name
        # Its module.json the manifest served at the same address, which the installed module
        # keeps (Foundry checks its `manifest` for updates).
        inside = json.loads(zipped.read("module.json"))
    assert inside == served.json()
    assert inside["manifest"] == "http://arbiter.test:8000/foundry/module.json"
    assert {"scripts/arbiter.js", "lang/en.json", "lang/pt-BR.json"} <= names
    # Everything module.json names is in the zip.
    own = json.loads((MODULE / "module.json").read_text(encoding="utf-8"))
    named = [*own["esmodules"], *own["styles"], *(lang["path"] for lang in own["languages"])]
    assert set(named) <= names


def test_the_zip_is_revalidated_by_its_entity_tag(tmp_path: Path) -> None:
    first, again = asked(tmp_path, (DOWNLOAD_URL, {}), (DOWNLOAD_URL, {}))
    etag = first.headers["etag"]
    assert etag == again.headers["etag"]
    assert first.content == again.content
    assert re.fullmatch(r'"[0-9a-f]{32}"', etag)
    unchanged, stale = asked(
        tmp_path, (DOWNLOAD_URL, {"if-none-match": etag}), (DOWNLOAD_URL, {"if-none-match": '"0"'})
    )
    assert unchanged.status_code == 304
    assert unchanged.content == b""
    assert unchanged.headers["etag"] == etag
    assert stale.status_code == 200
    assert stale.content == first.content
    # Asked at another address, another zip: its module.json names that address.
    (elsewhere,) = asked(tmp_path, (DOWNLOAD_URL, {"host": "rpg.example"}))
    assert elsewhere.headers["etag"] != etag
    assert "Host" in elsewhere.headers["vary"]
    with zipfile.ZipFile(io.BytesIO(elsewhere.content)) as zipped:
        inside = json.loads(zipped.read("module.json"))
    assert inside["download"] == "http://rpg.example/foundry/arbiter.zip"


def test_a_deployment_without_the_module_answers_404(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(foundry, "FOLDER", tmp_path / "nowhere")
    foundry.manifest.cache_clear()
    foundry.archive.cache_clear()
    try:
        answers = asked(tmp_path, (MANIFEST_URL, {}), (DOWNLOAD_URL, {}))
    finally:
        foundry.manifest.cache_clear()
        foundry.archive.cache_clear()
    for answer in answers:
        assert answer.status_code == 404
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.json()["detail"] == (
            "this deployment of Arbiter does not carry the Foundry module"
        )
