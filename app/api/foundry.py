"""The Foundry VTT module, served by Arbiter itself: `GET /foundry/module.json`, the manifest a
GM pastes into Foundry's *Install Module* (its `manifest` and `download` pointing back here),
and `GET /foundry/arbiter.zip`, the module as Foundry installs it (docs/foundry.md).

The module is the folder `clients/foundry` (plain ES modules, no build step); what Foundry
loads of it (`module.json`, `scripts/`, `styles/`, `lang/`) is zipped in memory, once for each
address it is asked at (the last few kept). The manifest, the served one and the one in the
zip (which the installed module keeps, and Foundry checks for updates), names this service by
the address the request came to: its scheme and host, or, from a trusted proxy
(`ARBITER_FORWARDED_ALLOW_IPS`), the ones that proxy passes on in `X-Forwarded-Proto` and
`X-Forwarded-Host`.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Final

from fastapi import FastAPI, Request
from starlette.responses import Response

from app.api.routing import LeanRoute
from app.errors import NotFound
from app.middleware import VIA_TRUSTED_PROXY
from app.rules.messages import N_

MANIFEST_URL: Final = "/foundry/module.json"
DOWNLOAD_URL: Final = "/foundry/arbiter.zip"
#: The module's folder, in the repository beside the service.
FOLDER: Final = Path(__file__).resolve().parents[2] / "clients" / "foundry"
#: What Foundry loads of the folder: the manifest and the folders it names.
SHIPPED: Final = ("module.json", "scripts", "styles", "lang")
#: Each request may come to another address: the manifest, and the zip holding it, vary with it.
SERVED_HEADERS: Final = {
    "Cache-Control": "no-cache",
    "Vary": "Host, X-Forwarded-Host, X-Forwarded-Proto",
    "X-Content-Type-Options": "nosniff",
}
#: The zips kept, one per address asked at (a deployment answers at one or two).
ZIPS_KEPT: Final = 8


@functools.cache
def manifest() -> dict[str, object]:
    """The module's own module.json; a deployment without the module's folder (an install of
    the package alone) answers 404."""
    path = FOLDER / "module.json"
    if not path.is_file():
        raise NotFound(N_("this deployment of Arbiter does not carry the Foundry module"))
    loaded: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def filled_manifest(base: str) -> bytes:
    """module.json with its `manifest` and `download` at `base`, this service's address."""
    filled = {**manifest(), "manifest": base + MANIFEST_URL, "download": base + DOWNLOAD_URL}
    return (json.dumps(filled, ensure_ascii=False, indent=2) + "\n").encode()


def shipped_files() -> list[tuple[str, Path]]:
    """Every file Foundry loads, by its path in the module, in a stable order."""
    files: list[tuple[str, Path]] = []
    for part in SHIPPED:
        path = FOLDER / part
        if path.is_file():
            files.append((part, path))
        else:
            files.extend(
                (found.relative_to(FOLDER).as_posix(), found)
                for found in sorted(path.rglob("*"))
                if found.is_file()
            )
    return files


@functools.lru_cache(maxsize=ZIPS_KEPT)
def archive(base: str) -> tuple[bytes, str]:
    """The module's zip as served at `base` (its files at the archive's root, as Foundry
    unpacks them into `Data/modules/arbiter`; its module.json the manifest served there) and
    its entity tag. Every entry carries one fixed date, so the same files make the same
    bytes, and the same tag, in every process."""
    inside = filled_manifest(base)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        for name, path in shipped_files():
            entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            content = inside if name == "module.json" else path.read_bytes()
            zipped.writestr(entry, content)
    content = buffer.getvalue()
    return content, '"' + hashlib.sha256(content).hexdigest()[:32] + '"'


def public_base(request: Request) -> str:
    """The address this request came to, as its client wrote it: the scheme and host a trusted
    proxy passes on, else the request's own."""
    scheme = request.url.scheme
    host = request.headers.get("host") or request.url.netloc
    if request.scope.get(VIA_TRUSTED_PROXY, False):
        proto = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        if proto in ("http", "https"):
            scheme = proto
        forwarded_host = request.headers.get("x-forwarded-host", "").split(",")[0].strip()
        if forwarded_host:
            host = forwarded_host
    root = request.scope.get("root_path", "").rstrip("/")
    return f"{scheme}://{host}{root}"


def install_foundry(app: FastAPI) -> None:
    """Add the Foundry module's manifest and its zip to `app`."""

    async def foundry_manifest(request: Request) -> Response:
        """The Foundry VTT module's manifest, its URLs pointing at this service."""
        return Response(
            filled_manifest(public_base(request)),
            media_type="application/json",
            headers=SERVED_HEADERS,
        )

    async def foundry_zip(request: Request) -> Response:
        """The Foundry VTT module, zipped as Foundry installs it."""
        content, etag = archive(public_base(request))
        headers = {**SERVED_HEADERS, "ETag": etag}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        headers["Content-Disposition"] = 'attachment; filename="arbiter.zip"'
        return Response(content, media_type="application/zip", headers=headers)

    for path, endpoint in ((MANIFEST_URL, foundry_manifest), (DOWNLOAD_URL, foundry_zip)):
        app.router.add_api_route(
            path,
            endpoint,
            methods=["GET", "HEAD"],
            include_in_schema=False,
            route_class_override=LeanRoute,
        )
