"""TypeScript types from the document: openapi-typescript generates them from `/openapi.json`,
and `tsc` (default settings, strict on, no emit) type-checks `clients/typescript/example.ts`
against them — and refuses a misuse, so the check is known to look at the generated types.

The tools are the exact versions of `clients/typescript/package-lock.json` (`npm ci`); without
Node.js and npm the tests are skipped, except in CI (tests/clients/node.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.main import create_app
from tests.clients.node import BIN, PACKAGE, run, typescript_tools

pytestmark = pytest.mark.slow

MISUSE = """\
import type { paths } from "./arbiter";
type Answer =
  paths["/v1/gurps/quick-contest"]["post"]["responses"][200]["content"]["application/json"];
export const wrong: Answer["margin_of_victory"] = "by four";
"""


@pytest.fixture(scope="module")
def typed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the document, the types generated from it and the example."""
    typescript_tools()
    folder = tmp_path_factory.mktemp("typescript")
    (folder / "openapi.json").write_text(json.dumps(create_app().openapi()), encoding="utf-8")
    generated = run(
        BIN / "openapi-typescript", "openapi.json", "--output", "arbiter.d.ts", cwd=folder
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    shutil.copy(PACKAGE / "example.ts", folder / "example.ts")
    return folder


def test_the_example_type_checks_against_the_generated_types(typed: Path) -> None:
    checked = run(BIN / "tsc", "--noEmit", "--strict", "example.ts", cwd=typed)

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "QuickContestRequest" in (typed / "arbiter.d.ts").read_text(encoding="utf-8")


def test_tsc_refuses_a_use_the_types_forbid(typed: Path) -> None:
    (typed / "misuse.ts").write_text(MISUSE, encoding="utf-8")

    checked = run(BIN / "tsc", "--noEmit", "--strict", "misuse.ts", cwd=typed)

    assert checked.returncode != 0
    assert "error TS2322" in checked.stdout
    assert "misuse.ts(4," in checked.stdout
