"""The Foundry VTT module (`clients/foundry/`), run by Node.js against a live server and
type-checked by `tsc --checkJs` against Foundry's types (fvtt-types, the exact version of
`clients/foundry/package-lock.json`, installed by `npm ci`).

`clients/foundry/test/run.mjs` loads the module into a stand-in of the Foundry globals it touches
(`clients/foundry/test/foundry.mjs`: `game`, `Hooks`, `ChatMessage`, `Dialog`,
`ui.notifications`, `game.settings`, `game.user`, `canvas`), with a GM's and a player's client in
one world, and prints what it saw: a quick contest typed in the chat, an arm wrestle started from
the selected tokens and a dialog, its live events followed into chat (one stream, resumed after a
reload with `Last-Event-ID`) and the player rolling their own seat's dice. It runs once as
Foundry v12 calls a module (jQuery to `renderChatMessage`) and once as v13 does (the element to
`renderChatMessageHTML`). Without Node.js and npm the tests are skipped, except in CI
(tests/requirements.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import html
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.store.database import upgrade_to_head
from tests.clients.node import INSTALL, run
from tests.requirements import program
from tests.store.servers import running_servers

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "clients" / "foundry"
TSC = MODULE / "node_modules" / ".bin" / "tsc"
SUMMARY = re.compile(r'<p class="arbiter-summary">([^<]*)</p>')


def shown_summary(content: str) -> str:
    """The summary line a card shows, as its reader reads it (the HTML's escapes undone)."""
    found = SUMMARY.findall(content)
    assert len(found) == 1, content
    return html.unescape(found[0])


def foundry_tools() -> Path:
    """tsc and Foundry's types in `clients/foundry/node_modules`, installed first if need be
    (as tests/clients/node.py installs the TypeScript client's: one `npm ci` at a time)."""
    program("node", INSTALL, called="Node.js (node)")
    npm = program("npm", INSTALL)
    key = hashlib.sha256(str(MODULE).encode()).hexdigest()[:16]
    with (Path(tempfile.gettempdir()) / f"arbiter-npm-{key}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (TSC.exists() and (MODULE / "node_modules" / "fvtt-types").exists()):
            installed = run(npm, "ci", "--no-audit", "--no-fund", cwd=MODULE)
            assert installed.returncode == 0, installed.stdout + installed.stderr
    return TSC


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One live server on a migrated SQLite database."""
    folder = tmp_path_factory.mktemp("foundry-server")
    url = f"sqlite:///{folder / 'arbiter.db'}"
    upgrade_to_head(url)
    with running_servers(url, 1, folder) as (server,):
        yield server.base_url


@pytest.fixture(scope="module", params=[12, 13], ids=["v12", "v13"])
def seen(request: pytest.FixtureRequest, base_url: str) -> dict[str, Any]:
    """What the script printed, with Foundry of that generation calling the module."""
    node = program("node", INSTALL, called="Node.js (node)")
    ran = run(node, MODULE / "test" / "run.mjs", base_url, str(request.param), cwd=MODULE)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    printed: dict[str, Any] = json.loads(ran.stdout)
    return printed


def test_the_settings_keep_tokens_in_the_browser(seen: dict[str, Any]) -> None:
    # The URL is the world's; the GM's and the seats' tokens stay in each browser.
    assert seen["settings"] == {
        "arbiter.url": "world",
        "arbiter.deadline": "world",
        "arbiter.sessions": "client",
        "arbiter.seats": "client",
    }
    assert seen["errors"] == []


def test_a_quick_contest_from_the_chat_posts_a_card_with_the_dice(seen: dict[str, Any]) -> None:
    assert seen["passesOther"] is True  # any other line goes on to the chat
    assert seen["quickReturned"] is False  # the command's own line is never posted
    quick = seen["quick"]
    result = quick["result"]
    a, b = result["a"], result["b"]
    assert (a["name"], a["skill"], b["name"], b["skill"]) == ("Lydia", 14, "Ogre", 11)
    assert [(roll["who"], roll["purpose"], roll["dice"]) for roll in result["rolls"]] == [
        ("Lydia", "success", "3d6"),
        ("Ogre", "success", "3d6"),
    ]
    # The card shows the service's summary and every die it rolled, in order.
    assert quick["dice"] == a["roll"] + b["roll"]
    assert all(1 <= value <= 6 for value in quick["dice"])
    assert (a["total"], b["total"]) == (sum(a["roll"]), sum(b["roll"]))
    assert shown_summary(quick["content"]) == result["summary"]
    assert "Quick contest: Lydia vs Ogre" in quick["content"]
    assert quick["speaker"] == {"alias": "Arbiter"}


def test_arbiters_refusal_is_the_gms_error_notification(seen: dict[str, Any]) -> None:
    assert seen["refused"] == {
        "level": "error",
        "text": "Arbiter: the two competitors need different names (422)",
    }


def test_a_player_rolls_a_quick_contest_but_starts_no_session(seen: dict[str, Any]) -> None:
    assert seen["playerCommands"] == {
        "start": False,
        "dialogs": 0,
        "warned": {"level": "warn", "text": "Arbiter: only a GM starts or plays a contest."},
        "quick": False,
        "quickCard": ["Ann (skill 12) "],
    }


def test_the_parser_reads_events_split_anywhere(seen: dict[str, Any]) -> None:
    parsing = seen["parsing"]
    # An event comes once its blank line has (a CR at a chunk's end waits for a possible LF);
    # comments are skipped, the id carries over, a field without a colon is empty.
    assert parsing["perChunk"] == [
        [],
        [],
        [{"event": "round", "id": "7", "data": '{"a":1}'}],
        [],
        [
            {"event": "message", "id": "7", "data": "Zo\u00eb"},
            {"event": "ended", "id": "8", "data": ""},
        ],
    ]
    assert (parsing["retry"], parsing["lastEventId"]) == (250, "8")


def test_a_misused_command_warns_and_whispers_the_help_to_its_author(
    seen: dict[str, Any],
) -> None:
    assert seen["misuse"] == {
        "warned": {"level": "warn", "text": "Write it as: /arbiter quick Lydia 14 vs Ogre 11"},
        "whisper": ["gm1"],
    }


def test_the_selected_tokens_fill_the_dialog_and_the_contest_starts(
    seen: dict[str, Any],
) -> None:
    dialog = seen["dialog"]
    assert dialog["title"] == "Arbiter: Arm wrestle"
    assert dialog["buttons"] == ["start", "cancel"]
    # Names from the tokens; Lydia's seat to the player owning her token, the Ogre's the GM's.
    assert dialog["shown"] == {
        "a.name": "Lydia",
        "a.strength_mod": "0",
        "a.con_score": "10",
        "a.con_mod": "0",
        "a.seat": "player1",
        "b.name": "Ogre",
        "b.strength_mod": "0",
        "b.con_score": "10",
        "b.con_mod": "0",
        "b.seat": "",
        "target": "20",
    }
    started = seen["started"]
    assert started["kind"] == "arm-wrestles"
    assert started["version"] == 1
    # The target set in the dialog: 100 keeps the match on for the rounds the script plays.
    assert started["summary"] == "Arm wrestle Lydia vs Ogre: DS Lydia 0, Ogre 0 (target 100)."
    assert started["config"]["target"] == 100
    config = started["config"]
    assert [
        (side["name"], side["strength_mod"], side["con_score"], side["con_mod"])
        for side in (config["a"], config["b"])
    ] == [("Lydia", 2, 14, 2), ("Ogre", 4, 16, 3)]
    assert started["gmActions"] == ["play"]


def test_the_seat_is_whispered_to_its_player_alone(seen: dict[str, Any]) -> None:
    started = seen["started"]
    assert started["seatWhisper"] == ["player1"]
    assert started["seatSeenBy"] == ["gm1", "player1"]  # the GM sees every whisper
    assert started["playerSeats"] == [[True, "Lydia", "arm-wrestles", True]]
    assert started["gmSeats"] is None
    assert started["worldHoldsNoToken"] is True


def test_one_stream_per_session_in_a_gm_client(seen: dict[str, Any]) -> None:
    streams = seen["streamsAfterSecondFollow"]
    assert len(streams["open"]) == 1
    assert streams["requests"] == 1


def test_a_player_rolls_their_own_seats_dice(seen: dict[str, Any]) -> None:
    pending = seen["pending"]
    assert pending["version"] == 2
    assert pending["waitingFor"] == ["Lydia", "Ogre"]
    assert pending["owes"] == {
        name: [{"purpose": "strength", "certain": 1, "most": 1, "when": None}]
        for name in ("Lydia", "Ogre")
    }
    # The GM's button is not shown to the player, nor the player's dice form to the GM.
    assert pending["gmActions"] == ["roll-mine", "roll-rest"]
    assert pending["playerActions"] == ["roll-mine", "enter-dice"]
    dice_in = seen["diceIn"]
    assert dice_in["name"] == "Lydia"
    assert dice_in["summary"].startswith("Round 1 waits for dice from Ogre (until ")
    assert dice_in["playerNotified"] == {"level": "info", "text": f"Arbiter: {dice_in['summary']}"}
    round1 = seen["round1"]
    assert (round1["number"], round1["version"]) == (1, 4)
    assert round1["diceFrom"] == {"Lydia": "roll-for-me", "Ogre": "gm"}
    assert [
        (roll["who"], roll["purpose"], roll["dice"], roll["source"]) for roll in round1["rolls"]
    ] == [
        ("Lydia", "strength", "1d20", "rolled"),
        ("Ogre", "strength", "1d20", "rolled"),
    ]
    assert round1["cardDice"] == [value for roll in round1["rolls"] for value in roll["values"]]
    assert round1["summary"].startswith("Round 1: ")
    assert shown_summary(round1["content"]) == round1["summary"]
    assert round1["gmActions"] == ["play"]


def test_after_a_reload_the_stream_resumes_from_the_last_card(seen: dict[str, Any]) -> None:
    assert seen["playedWhileAway"] == {"status": 200}
    resumed = seen["resumed"]
    # The first stream opened afresh; the reloaded page's asked for what followed version 4.
    assert resumed["lastSeen"] == "4"
    assert resumed["streams"] == [None, "4"]
    assert (resumed["number"], resumed["version"]) == (2, 5)
    assert resumed["checks"] == {
        "Lydia": {"roll": 18, "total": 20},
        "Ogre": {"roll": 5, "total": 9},
    }
    # Every change of the session is one card, none lost or repeated across the reload.
    assert seen["sessionCards"] == [
        [1, "session"],
        [2, "pending"],
        [3, "dice-in"],
        [4, "round"],
        [5, "round"],  # played while the GM's page was away
        [6, "pending"],
        [7, "dice-in"],
        [8, "round"],
        [9, "deleted"],
    ]
    assert seen["deleted"] == {"status": 204, "open": []}


def test_a_reload_before_a_cards_id_was_kept_posts_no_card_twice(seen: dict[str, Any]) -> None:
    """The id kept is put back to 7 after round 3's card (8) was posted: the stream resumes
    from 7, replays 8, and the card already in the chat is not posted again (the session's
    cards above: one per version)."""
    assert seen["keptBeforeRewind"] == "8"
    assert seen["rewound"] == [None, "4", "7"]


def test_a_player_enters_the_dice_they_rolled(seen: dict[str, Any]) -> None:
    assert seen["pending3"] == {
        "gmActions": ["roll-mine", "roll-rest"],
        "playerActions": ["roll-mine", "enter-dice"],
    }
    dialog = seen["diceDialog"]
    assert dialog["title"] == "Arbiter: Lydia's dice"
    assert dialog["shown"] == {"strength": ""}  # a field per purpose her seat owes
    round3 = seen["round3"]
    assert round3["number"] == 3
    assert round3["diceFrom"] == {"Lydia": "seat", "Ogre": "gm"}
    assert round3["lydia"] == {
        "who": "Lydia",
        "purpose": "strength",
        "dice": "1d20",
        "values": [17],
        "source": "supplied",
    }
    assert round3["cardDice"][0] == 17
    assert round3["supplied"] is True


def test_a_regular_contest_from_the_dialog_alone(seen: dict[str, Any]) -> None:
    assert seen["regularDialog"] == {
        "a.name": "",
        "a.skill": "10",
        "a.seat": "",
        "b.name": "",
        "b.skill": "10",
        "b.seat": "",
    }
    assert seen["playCommand"] is False
    regular = seen["regular"]
    assert regular["kind"] == "regular-contests"
    assert regular["summary"] == (
        "Ann (effective 12) vs Bob (effective 10): 0 rounds played, no winner yet."
    )
    assert regular["waitingFor"] == ["Ann", "Bob"]
    assert regular["owes"] == {
        name: [{"purpose": "success", "certain": 3, "most": 3, "when": None}]
        for name in ("Ann", "Bob")
    }
    # Bob's three dice typed by his player in one field, Ann's given by the GM elsewhere.
    assert "values, separated by commas" in seen["bobDialog"]["content"]
    assert seen["bobDialog"]["title"] == "Arbiter: Bob's dice"
    assert regular["annDice"] == 200
    assert regular["rolls"] == [
        ["Ann", "success", "3d6", [1, 1, 2], "supplied"],
        ["Bob", "success", "3d6", [6, 6, 6], "supplied"],
    ]
    assert regular["diceFrom"] == {"Ann": "gm", "Bob": "seat"}
    assert (regular["status"], regular["winner"]) == ("finished", "Ann")
    assert regular["cardDice"] == [1, 1, 2, 6, 6, 6]
    assert regular["buttons"] == []  # nothing left to play
    # A finished session is followed no more.
    assert regular["open"] == []
    # Bob's seat is the player's now; Lydia's went with her deleted session.
    assert regular["playerSeats"] == ["Bob"]


def test_a_session_followed_and_let_go_by_command(seen: dict[str, Any]) -> None:
    assert seen["followCommand"] is False
    # The finished contest followed afresh: the session as it stands, then let go by itself.
    assert seen["refollowed"] == {"version": 4, "status": "finished"}
    assert seen["letGo"] == {"open": [], "held": []}
    # One made elsewhere, without seats: followed, played with the server's dice, let go.
    made = seen["followedMade"]
    assert made == {
        "summary": "Arm wrestle Kit vs Troll: DS Kit 0, Troll 0 (target 20).",
        "open": True,
        "actions": ["play"],
    }
    assert seen["madeRound"] == {"number": 1, "diceFrom": None, "sources": ["rolled", "rolled"]}
    assert seen["unfollowReturned"] is False
    assert seen["unfollowed"] == {"open": [], "held": []}


def test_a_session_gone_is_shown_and_let_go(seen: dict[str, Any]) -> None:
    assert seen["ghost"] == {
        "notified": [
            {
                "level": "error",
                "text": "Arbiter: no arm wrestle with id 0123456789abcdef0123456789abcdef (404)",
            }
        ],
        "held": [],
        "open": [],
    }


def test_tsc_checks_the_module_against_foundrys_types(tmp_path: Path) -> None:
    """The module type-checks; the same check refuses a misuse of Foundry's API, so it is known
    to read Foundry's types (and not `any`)."""
    tsc = foundry_tools()
    checked = run(tsc, "-p", "jsconfig.json", cwd=MODULE)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    for part in ("scripts", "types", "jsconfig.json"):
        source = MODULE / part
        if source.is_dir():
            shutil.copytree(source, tmp_path / part)
        else:
            shutil.copy(source, tmp_path / part)
    (tmp_path / "node_modules").symlink_to(MODULE / "node_modules")
    (tmp_path / "scripts" / "misuse.js").write_text(
        'Hooks.once("ready", () => {\n'
        "  ui.notifications?.info(42);\n"
        '  game.settings.get("arbiter", "nowhere");\n'
        "});\n",
        encoding="utf-8",
    )
    refused = run(tsc, "-p", "jsconfig.json", cwd=tmp_path)
    assert refused.returncode != 0
    errors = sorted(line for line in refused.stdout.splitlines() if "error TS" in line)
    # A number for a notification's text; a setting the module never registered.
    assert errors == [
        "scripts/misuse.js(2,26): error TS2345: Argument of type 'number' is not assignable"
        " to parameter of type 'string'.",
        "scripts/misuse.js(3,32): error TS2345: Argument of type '\"nowhere\"' is not"
        " assignable to parameter of type 'KeyFor<\"arbiter\">'.",
    ], refused.stdout
