"""The TypeScript tools the client tests run: openapi-typescript and tsc, the exact versions of
`clients/typescript/package-lock.json`, installed into its `node_modules` by `npm ci`.

They need Node.js and npm: without them a test that asks for the tools is skipped with one line
saying what to install, except in CI (`CI=true`), where it fails (tests/requirements.py). The
install is done once, by whichever test process asks first; the others (pytest-xdist workers)
wait for it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.requirements import npm_installed, program

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"
BIN = PACKAGE / "node_modules" / ".bin"
TOOLS = ("openapi-typescript", "tsc")
INSTALL = "install Node.js 20 and npm"


def run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def typescript_tools() -> Path:
    """The folder of the installed tools (`BIN`), installed first if need be."""
    program("node", INSTALL, called="Node.js (node)")  # the tools are Node.js scripts
    npm_installed(PACKAGE, [BIN / tool for tool in TOOLS], INSTALL)
    return BIN
