#!/usr/bin/env python3
"""The reviewer's table of docs/languages.md: each one-shot contest's worked example (its
request example with the players' own dice, from /openapi.json) as the service answers it in
every language served, one summary line per kind and language; then each session kind's first
round with the players' own dice and the session's summary after it.

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
    rows.extend(session_rows(client))
    return "\n".join(rows)


#: Each session kind's example with the players' own dice: (path, its creation, the call that
#: plays its first round: (path under the session, body, who calls)).
SESSIONS: tuple[tuple[str, dict[str, Any], tuple[str, dict[str, Any], str]], ...] = (
    (
        "/v1/arm-wrestles",
        {
            "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
            "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
        },
        ("rounds", {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}, "gm"),
    ),
    (
        "/v1/races",
        {
            "course": "dash",
            "competitors": [{"name": "Ann", "speed": 30}, {"name": "Bob", "speed": 0}],
        },
        ("rounds", {"rolls": {"Ann": {"check": 12}, "Bob": {"check": 3}}}, "gm"),
    ),
    (
        "/v1/chases",
        {
            "escapee": {"name": "Ralf", "speed": 30, "mods": {"dexterity": 2, "hide": 5}},
            "chaser": {"name": "the guard", "speed": 30, "mods": {"balance": 0, "spot": 2}},
            "start": {"mode": "lead", "lead": 12},
            "hazard_base_cost": 0,
        },
        (
            "rounds",
            {
                "terrain": {"check": "strength"},
                "tactic": {"kind": "hazard", "penalty": 4},
                "rolls": {"Ralf": {"dexterity": 16, "check": 6}, "the guard": {"hazard": 13}},
            },
            "gm",
        ),
    ),
    (
        "/v1/skill-games",
        {
            "dc": 15,
            "skill_list": ["Athletics", "Stealth", "Persuasion"],
            "skills_per_round": 2,
            "kind": "bidding",
            "actions": [{"name": "Charge", "effects": [{"text": "A clean break.", "progress": 2}]}],
            "goal": 4,
            "parties": [
                {
                    "name": "Heroes",
                    "controller": "players",
                    "members": [
                        {"name": "Ann", "skills": {"Athletics": 5, "Stealth": 2}},
                        {"name": "Bo", "skills": {"Persuasion": 3}},
                    ],
                },
                {
                    "name": "Villains",
                    "controller": "gm",
                    "members": [{"name": "Rook", "skills": {"Stealth": 6}}],
                },
            ],
        },
        (
            "skills",
            {
                "party": "Heroes",
                "skills": ["Stealth", "Persuasion"],
                "rolls": {
                    "Ann": {"Stealth": 13, "Persuasion": 18},
                    "Bo": {"Stealth": 17, "Persuasion": 1},
                },
            },
            "Heroes",
        ),
    ),
)


def session_rows(client: Client) -> Iterator[str]:
    """Each session kind's first round played, and the session's own summary after it, in
    every language served (a session per language: the same dice, the same round)."""
    from app.api.i18n import LANGUAGES

    for path, creation, (call, body, who) in SESSIONS:
        lines: dict[str, tuple[str, str]] = {}
        for language in LANGUAGES:
            created = client.post(path, json=creation)
            if created.status_code != 201:
                raise SystemExit(f"{path} answered {created.status_code}: {created.text}")
            tokens = created.json()["tokens"]
            token = tokens["gm"] if who == "gm" else tokens["parties"][who]
            played = client.post(
                f"{path}/{created.json()['id']}/{call}",
                json=body,
                headers={"authorization": f"Bearer {token}", "accept-language": language},
            )
            if played.status_code != 200:
                raise SystemExit(f"{path}/{call} answered {played.status_code}: {played.text}")
            answer = played.json()
            lines[language] = (answer["summary"], answer["session"]["summary"])
        for index, name in enumerate(("its first round, supplied dice", "the session after it")):
            for language, said in lines.items():
                line = said[index].replace("|", "\\|")
                yield f"| `{path}` | {name} | {language} | {line} |"


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
    from app.store.database import upgrade_to_head

    with tempfile.TemporaryDirectory() as directory:
        url = f"sqlite:///{directory}/languages.db"
        upgrade_to_head(url)
        settings = Settings(database_url=url)
        with TestClient(create_app(settings)) as client:
            written = table(client)
    DOC.write_text(with_table(DOC.read_text(), written))
    print(f"wrote the reviewer's table in {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
