"""The TypeScript client (`clients/typescript/client.ts`) compiled by `tsc --strict` against the
types openapi-typescript generates from the document, and run by Node.js against a live server.

`tests/clients/live_events.ts` drives it and prints what it saw: its event-stream parser on a
stream cut at awkward places, then typed calls playing an arm wrestle while a live-events reader
follows it through a dropped connection, resuming with `Last-Event-ID`. tsc also refuses calls
the types forbid, so the calls are known to be checked, and compiles README.md's example of it.
Without Node.js and npm the tests are skipped, except in CI (tests/clients/node.py).
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.main import create_app
from app.store.database import upgrade_to_head
from tests.clients.node import BIN, PACKAGE, run, typescript_tools
from tests.requirements import program
from tests.store.servers import running_servers

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TS_BLOCK = re.compile(r"^[ \t]*```ts[ \t]*\n(.*?)^[ \t]*```", re.M | re.S)
#: Calls the types forbid, and the error tsc refuses each with.
MISUSES = [
    ('arbiter.call("post", "/v1/arm-wrestles")', "TS2554"),  # no body
    ('arbiter.call("get", "/v1/arm-wrestles/{session_id}", {})', "TS2345"),  # no session_id
    ('arbiter.call("post", "/v1/gurps/success-roll", { body: { skill: "12" } })', "TS2322"),
    ('arbiter.call("get", "/v1/nowhere")', "TS2345"),  # no such path
]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the generated types, the client and the live script, compiled to
    CommonJS in `out/`."""
    typescript_tools()
    folder = tmp_path_factory.mktemp("typescript-client")
    (folder / "openapi.json").write_text(json.dumps(create_app().openapi()), encoding="utf-8")
    generated = run(
        BIN / "openapi-typescript", "openapi.json", "--output", "arbiter.d.ts", cwd=folder
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    shutil.copy(PACKAGE / "client.ts", folder / "client.ts")
    shutil.copy(HERE / "live_events.ts", folder / "live_events.ts")
    built = run(
        BIN / "tsc",
        "--strict",
        "--target",
        "es2022",
        "--module",
        "commonjs",
        "--outDir",
        "out",
        "client.ts",
        "live_events.ts",
        cwd=folder,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    return folder


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One live server on a migrated SQLite database."""
    folder = tmp_path_factory.mktemp("typescript-client-server")
    url = f"sqlite:///{folder / 'arbiter.db'}"
    upgrade_to_head(url)
    with running_servers(url, 1, folder) as (server,):
        yield server.base_url


@pytest.fixture(scope="module")
def seen(compiled: Path, base_url: str) -> dict[str, Any]:
    """What the live script printed."""
    node = program("node", "install Node.js 20 and npm", called="Node.js (node)")
    ran = run(node, compiled / "out" / "live_events.js", base_url, cwd=compiled)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    printed: dict[str, Any] = json.loads(ran.stdout)
    return printed


def test_the_parser_reads_events_split_anywhere(seen: dict[str, Any]) -> None:
    parsing = seen["parsing"]

    assert parsing["events"] == [
        {"event": "round", "id": "7", "data": '{"a":1}\nsecond line'},
        {"event": "message", "id": "7", "data": "no id or name"},  # the id carries over
        {"event": "ended", "id": "8", "data": ""},
        {"event": "message", "id": "8", "data": "Zo\u00eb"},
    ]
    # An event comes once its blank line has (a CR waits for a possible LF); none without data.
    assert parsing["perChunk"] == [0, 0, 0, 1, 1, 1, 0, 0, 1]
    assert parsing["comments"] == ["keep-alive"]
    assert (parsing["retry"], parsing["lastEventId"]) == (250, "8")


def test_typed_calls_play_an_arm_wrestle(seen: dict[str, Any]) -> None:
    live = seen["live"]

    assert live["created"] == {"status": 201, "version": 1}
    assert live["rounds"] == [
        {"number": 1, "version": 2, "replayed": False},
        {"number": 2, "version": 3, "replayed": False},
        {"number": 3, "version": 4, "replayed": False},
        {"number": 3, "version": 4, "replayed": True},  # the retry with the same key
    ]
    assert live["stale"] == {
        "status": 412,
        "title": "Precondition Failed",
        "detail": 'If-Match "1" is stale: the session is at version 4',
    }
    assert live["deleted"] == {"status": 204, "body": None}


def test_the_reader_resumes_after_a_drop_losing_and_repeating_nothing(
    seen: dict[str, Any],
) -> None:
    live = seen["live"]
    events = live["events"]

    assert [(event["id"], event["event"]) for event in events] == [
        ("1", "session"),
        ("2", "round"),
        ("3", "round"),  # played while the reader was away: replayed on its return
        ("4", "round"),
        ("5", "deleted"),
    ]
    # The second connection sent the id of the last event read before the drop.
    assert live["asked"] == [None, "2"]
    assert live["connections"] == 2
    assert live["reconnections"] == ["TypeError: connection dropped"]
    assert live["lastEventId"] == "5"
    rounds = [event["data"] for event in events[1:4]]
    assert [data["round"]["number"] for data in rounds] == [1, 2, 3]
    assert [data["session"]["version"] for data in rounds] == [2, 3, 4]
    strengths = [
        (data["round"]["checks"]["Lydia"]["roll"], data["round"]["checks"]["Ogre"]["roll"])
        for data in rounds
    ]
    assert strengths == [(17, 8), (16, 9), (15, 10)]
    assert events[0]["data"]["session"]["version"] == 1
    assert events[4]["data"] == {"id": live["id"]}
    assert all("tokens" not in json.dumps(event["data"]) for event in events)


def test_the_reader_stops_and_refuses_a_session_it_cannot_see(seen: dict[str, Any]) -> None:
    live = seen["live"]

    assert live["watched"] == ["4 session"]  # opened at version 4, stopped after one event
    assert live["missing"] == {"status": 404, "title": "Not Found"}


def test_tsc_refuses_calls_the_types_forbid(compiled: Path) -> None:
    lines = ['import { Arbiter } from "./client";', "const arbiter = new Arbiter('');"]
    lines += [f"export const call{index} = {call};" for index, (call, _) in enumerate(MISUSES)]
    (compiled / "misuse.ts").write_text("\n".join(lines) + "\n", encoding="utf-8")

    checked = run(
        BIN / "tsc", "--noEmit", "--strict", "--target", "es2022", "misuse.ts", cwd=compiled
    )

    assert checked.returncode != 0
    for line, (call, error) in enumerate(MISUSES, start=3):
        assert re.search(rf"misuse\.ts\({line},\d+\): error {error}", checked.stdout), (
            f"tsc did not refuse {call} with {error}:\n{checked.stdout}"
        )


def test_the_readmes_typescript_compiles(compiled: Path) -> None:
    """The README's TypeScript client example (in docs/reference.md, the README's second half),
    in a function, `match` an arm wrestle's body."""
    readme = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
    blocks = TS_BLOCK.findall(readme)
    assert len(blocks) == 1
    source = "\n".join(
        [
            'import { Arbiter, ifMatch } from "./client";',
            'import type { components } from "./arbiter";',
            'declare const match: components["schemas"]["ArmWrestleCreate"];',
            "export async function readme(): Promise<void> {",
            textwrap.dedent(blocks[0]),
            "}",
        ]
    )
    (compiled / "readme.ts").write_text(source, encoding="utf-8")

    checked = run(
        BIN / "tsc", "--noEmit", "--strict", "--target", "es2022", "readme.ts", cwd=compiled
    )

    assert checked.returncode == 0, checked.stdout + checked.stderr + "\n" + source
