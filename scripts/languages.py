#!/usr/bin/env python3
"""The reviewer's table of docs/languages.md: each one-shot contest's worked example (its
request example with the players' own dice, from /openapi.json) as the service answers it in
every language served, one summary line per kind and language.

    .venv/bin/python scripts/languages.py    # rewrites the table in docs/languages.md

tests/test_i18n.py checks that the committed table is what the service answers.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "languages.md"
BEGIN = "<!-- The reviewer's table, written by scripts/languages.py: do not edit by hand. -->"
END = "<!-- End of the reviewer's table. -->"
#: Examples whose dice are the players' own (the same answer every time).
FIXED_DICE = ("supplied", "worked example")
#: Answers whose summary is not words (a dice expression's breakdown).
WORDLESS = ("/v1/roll",)


class Client(Protocol):
    def get(self, url: str, **kwargs: Any) -> Any: ...

    def post(self, url: str, **kwargs: Any) -> Any: ...


def worked_examples(client: Client) -> Iterator[tuple[str, str, Any]]:
    """(path, example's name, body) for every one-shot POST with an example of fixed dice."""
    contract = client.get("/openapi.json").json()
    for path, operations in contract["paths"].items():
        post = operations.get("post")
        if post is None or "{" in path or "/odds" in path or path in WORDLESS:
            continue
        content = post.get("requestBody", {}).get("content", {}).get("application/json", {})
        for name, example in content.get("examples", {}).items():
            if any(mark in name for mark in FIXED_DICE):
                yield path, name, example["value"]
                break


def table(client: Client) -> str:
    """The table as markdown: one row per kind and language."""
    from app.api.i18n import LANGUAGES

    rows = ["| kind | example | language | summary |", "|---|---|---|---|"]
    for path, name, body in worked_examples(client):
        for language in LANGUAGES:
            answer = client.post(
                path, json=body, headers={"accept": "text/plain", "accept-language": language}
            )
            if answer.status_code != 200:
                raise SystemExit(f"{path} ({name}) answered {answer.status_code}: {answer.text}")
            line = answer.text.rstrip("\n").replace("|", "\\|")
            rows.append(f"| `{path}` | {name} | {language} | {line} |")
    return "\n".join(rows)


def with_table(document: str, written: str) -> str:
    """`document` with the text between its markers replaced by `written`."""
    head, _, rest = document.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n\n{written}\n\n{END}{tail}"


def committed_table(document: str) -> str:
    """The table between the markers of `document`."""
    return document.partition(BEGIN)[2].partition(END)[0].strip()


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import Settings

    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(database_url=f"sqlite:///{directory}/languages.db")
        with TestClient(create_app(settings)) as client:
            written = table(client)
    DOC.write_text(with_table(DOC.read_text(), written))
    print(f"wrote the reviewer's table in {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
