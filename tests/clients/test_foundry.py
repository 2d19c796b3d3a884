"""The Foundry VTT module (`clients/foundry/`), run by Node.js against a live server and
type-checked by `tsc --checkJs` against Foundry's types (fvtt-types, the exact version of
`clients/foundry/package-lock.json`, installed by `npm ci`).

`clients/foundry/test/run.mjs` loads the module into a stand-in of the Foundry globals it touches
(`clients/foundry/test/foundry.mjs`: `game`, `Hooks`, `ChatMessage`, `Dialog`, `DialogV2`,
`Roll` with a seeded `evaluate`, Dice So Nice, Foundry's `AudioHelper`, `ui.notifications`,
`game.settings`, `game.user`, `canvas`), with a GM's and a player's client in one world, and
prints what it saw: a quick contest typed in the chat, each kind started from the selected
tokens and a dialog, its live events followed into chat (one stream, resumed after a reload with
`Last-Event-ID`), the player rolling their own seat's dice (Arbiter's, typed, or Foundry's), a
chase's terrain, a skill game's choices, grants and end from its cards. It runs once as
Foundry v12 calls a module (jQuery to `renderChatMessage`) and once as v13 does (the element to
`renderChatMessageHTML`). Without Node.js and npm the tests are skipped, except in CI
(tests/requirements.py).
"""

from __future__ import annotations

import html
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.store.database import upgrade_to_head
from tests.clients.node import INSTALL, run
from tests.requirements import npm_installed, program
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
    npm_installed(MODULE, [TSC, MODULE / "node_modules" / "fvtt-types"], INSTALL)
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
        "arbiter.parties": "client",
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
        # The player's Foundry speaks German: so does the module, in that client.
        "warned": {
            "level": "warn",
            "text": "Arbiter: Nur eine Spielleitung beginnt oder spielt einen Wettstreit.",
        },
        "quick": False,
        # Arbiter answers her quick contest in her language too.
        "quickCard": ["Ann (Fertigkeit"],
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
    # Foundry 13 has DialogV2 (and the module uses it); this 12 has only the older Dialog.
    assert dialog["api"] == ("DialogV2" if seen["generation"] >= 13 else "Dialog")
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
        name: [{"purpose": "strength", "sides": 20, "certain": 1, "most": 1, "when": None}]
        for name in ("Lydia", "Ogre")
    }
    # The GM's button is not shown to the player, nor the player's dice buttons to the GM.
    assert pending["gmActions"] == ["roll-rest"]
    assert pending["playerActions"] == ["roll-dice", "roll-mine", "enter-dice"]
    # Each reader's buttons in their own language, whoever posted the card.
    assert pending["gmLabels"] == ["Roll for the rest (GM)"]
    assert pending["playerLabels"] == [
        "Meine Würfel werfen",
        "Für mich würfeln",
        "Meine Würfel eintragen",
    ]
    dice_in = seen["diceIn"]
    assert dice_in["name"] == "Lydia"
    assert dice_in["summary"].startswith("Round 1 waits for dice from Ogre (until ")
    # The player is told in her German, the deadline as the card's.
    deadline = dice_in["summary"].removeprefix("Round 1 waits for dice from Ogre (until ")
    assert dice_in["playerNotified"] == {
        "level": "info",
        "text": f"Arbiter: Runde 1 wartet auf Würfel von Ogre (bis {deadline}",
    }
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
        "gmActions": ["roll-rest"],
        "playerActions": ["roll-dice", "roll-mine", "enter-dice"],
    }
    dialog = seen["diceDialog"]
    assert dialog["title"] == "Arbiter: Würfel von Lydia"  # the player's dialog, in German
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
        name: [{"purpose": "success", "sides": 6, "certain": 3, "most": 3, "when": None}]
        for name in ("Ann", "Bob")
    }
    # Bob's three dice typed by his player in one field, Ann's given by the GM elsewhere.
    assert "Werte, durch Kommas getrennt" in seen["bobDialog"]["content"]
    assert seen["bobDialog"]["title"] == "Arbiter: Würfel von Bob"
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


def test_the_module_is_installed_from_the_manifest_arbiter_serves(
    seen: dict[str, Any], base_url: str
) -> None:
    installed = seen["installed"]
    assert installed["manifest"] == f"{base_url}/foundry/module.json"
    assert installed["download"] == f"{base_url}/foundry/arbiter.zip"
    assert installed["kept"] == installed["manifest"]
    # The zip unpacked is the folder's loaded files, and the module ran from there.
    expected = {"module.json", "scripts", "styles", "lang"}
    for folder in ("scripts", "styles", "lang"):
        expected |= {path.relative_to(MODULE).as_posix() for path in (MODULE / folder).rglob("*")}
    assert set(installed["files"]) == expected


def test_dice_so_nice_shows_each_results_dice_before_its_card(seen: dict[str, Any]) -> None:
    if seen["generation"] < 13:
        # This world has no Dice So Nice (no game.dice3d): nothing is shown, the cards come.
        assert seen["quick"]["shown"] is None
        assert seen["round1"]["shown"] is None
        return
    # Shown just before each card was posted, to every client, with the card's very dice.
    quick = seen["quick"]
    assert quick["shown"] == {
        "values": quick["dice"],
        "faces": [6, 6],
        "synchronize": True,
        "by": "gm1",
    }
    round1 = seen["round1"]
    assert round1["shown"]["values"] == round1["cardDice"]
    assert round1["shown"]["faces"] == [20, 20]
    race = seen["race"]
    assert race["shown"]["values"] == [value for roll in race["rolls"] for value in roll["values"]]
    checks = seen["skillChecks"]
    assert checks["shown"]["values"] == checks["diceOf"] == checks["cardDice"]


def test_every_call_asks_arbiter_in_its_clients_language_and_dialogs_are_v2_where_they_can(
    seen: dict[str, Any],
) -> None:
    # The GM's Foundry is in English, the player's in German: each call says its own.
    assert seen["languages"] == {"player": ["de"], "gm": ["en"], "any": ["de", "en"]}
    assert seen["dialogApis"] == (["DialogV2"] if seen["generation"] >= 13 else ["Dialog"])
    # Foundry 13's deprecated global Dialog is never read.
    assert seen["deprecatedDialogReads"] == 0


def test_a_race_from_the_selected_tokens_plays_an_increment_with_the_seats_dice(
    seen: dict[str, Any],
) -> None:
    dialog = seen["raceDialog"]
    assert dialog["shown"] == {
        "course": "dash",
        "r0.name": "Lydia",
        "r0.speed": "30",
        "r0.con_score": "10",
        "r0.seat": "player1",
        "r1.name": "Ogre",
        "r1.speed": "30",
        "r1.con_score": "10",
        "r1.seat": "",
    }
    race = seen["race"]
    assert race["title"] == "Race: Lydia vs Ogre"
    config = race["config"]
    assert config["course"] == "dash"
    assert len(config["increments"]) == 2  # a dash: two Strength increments
    assert [(c["name"], c["speed"], c["con_score"]) for c in config["competitors"]] == [
        ("Lydia", 40, 10),
        ("Ogre", 30, 14),
    ]
    assert race["seat"] == [["player1"], "Lydia", True]
    # Before the first increment, each racer's pacing may be chosen: by her player, or the GM.
    assert race["gmActions"] == ["play", "pacing"]
    assert seen["raceCardActions"] == {"gm": ["play", "pacing"], "player": ["pacing"]}
    assert seen["pacingDialog"] == {
        "title": "Arbiter: das Tempo eines Läufers für das Rennen",
        "shown": {"name": "Lydia", "pacing": "normal"},
    }
    paced = seen["paced"]
    assert paced["pacing"] == {"Lydia": "sprint", "Ogre": "normal"}
    assert paced["actions"] == ["play", "pacing"]
    assert paced["notified"]["text"].startswith("Arbiter: ")
    assert race["waitingFor"] == ["Lydia", "Ogre"]
    assert race["increment"] == 1
    assert race["diceFrom"] == {"Lydia": "roll-for-me", "Ogre": "gm"}
    assert [(roll["who"], roll["purpose"]) for roll in race["rolls"]][:2] == [
        ("Lydia", "check"),
        ("Ogre", "check"),
    ]
    assert race["cardDice"] == [value for roll in race["rolls"] for value in roll["values"]]
    assert race["roundActions"] == ["play"]  # one increment of two left


def test_a_chases_increment_takes_the_gms_terrain_and_tactic(seen: dict[str, Any]) -> None:
    assert seen["chaseDialog"] == {
        "e.name": "Lydia",
        "e.speed": "30",
        "e.con_score": "10",
        "e.seat": "player1",
        "c.name": "Ogre",
        "c.speed": "30",
        "c.con_score": "10",
        "c.seat": "",
        "lead": "10",
    }
    # Only the GM plays the increment or gives up: neither is on the player's card.
    assert seen["chaseActions"] == {"gm": ["play", "give-up"], "player": []}
    increment = seen["incrementDialog"]
    assert increment["title"] == "Arbiter: the chase's next increment"
    # The terrain's DC and what stands before the check; no mounted increment, as neither
    # side has a mount.
    assert increment["shown"] == {
        "terrain": "strength",
        "dc": "",
        "obstacle": "",
        "obstacle_check": "dexterity",
        "obstacle_dc": "10",
        "tactic": "",
        "penalty": "2",
    }
    assert increment["client"] == "gm1"
    # The GM set a DC 12 check behind a DC 8 jump hazard: the seat owes the obstacle's die and
    # the check's, each if she gets that far, beside her hazard's Dexterity.
    assert seen["chaseOwes"]["Lydia"] == [
        {"purpose": "dexterity", "sides": 20, "certain": 1, "most": 1, "when": None},
        {
            "purpose": "obstacle",
            "sides": 20,
            "certain": 0,
            "most": 1,
            "when": "if she faces the obstacle",
        },
        {
            "purpose": "check",
            "sides": 20,
            "certain": 0,
            "most": 1,
            "when": "if she makes the increment check",
        },
    ]
    chase = seen["chase"]
    terrain = chase["terrain"]
    assert (terrain["check"], terrain["dc"], terrain["on_fail"], terrain["mounted"]) == (
        "strength",
        12,
        "stall",
        False,
    )
    assert terrain["obstacle"] == {
        "kind": "hazard",
        "check": "jump",
        "dc": 8,
        "retry": False,
        "damage": None,
    }
    tactic = chase["tactic"]
    assert (tactic["kind"], tactic["penalty"], tactic["created"]) == ("hazard", 2, False)
    # Her typed dice: Dexterity 1 fails the hazard; 20s clear the jump and the DC 12 check.
    assert chase["escapeeDice"] == [
        ["dexterity", [1], "supplied"],
        ["obstacle", [20], "supplied"],
        ["check", [20], "supplied"],
    ]
    lead_before, lead, gains = chase["lead"]
    assert lead_before == 10
    assert gains["Lydia"] > 0
    assert lead == lead_before - tactic["cost"] + gains["Lydia"] - gains["Ogre"]
    assert chase["cardDice"] == chase["rolls"]
    if chase["status"] == "active":
        assert chase["actions"] == ["play", "give-up"]
        assert seen["chaseEnded"] == {"status": "finished", "detail": "gave-up", "actions": []}
    else:
        assert lead <= 0  # caught in that increment: nothing left to give up
        assert chase["actions"] == []


def test_a_skill_game_is_played_by_each_party_with_its_own_token(seen: dict[str, Any]) -> None:
    dialog = seen["skillDialog"]
    # Lydia's token is her player's: she goes to the first party, which that player plays.
    assert (dialog["m0.name"], dialog["m0.party"], dialog["p1.holder"]) == (
        "Lydia",
        "p1",
        "player1",
    )
    assert (dialog["m1.name"], dialog["m1.party"], dialog["p2.holder"]) == ("Ogre", "p2", "")
    start = seen["skillStart"]
    config = start["config"]
    assert config["skill_list"] == ["Persuade", "Insight"]
    assert [(p["name"], p["controller"], p["members"]) for p in config["parties"]] == [
        ("Heroes", "players", [{"name": "Lydia", "skills": {"Persuade": 3, "Insight": 1}}]),
        ("Villains", "gm", [{"name": "Ogre", "skills": {"Persuade": 1}}]),
    ]
    assert [action["name"] for action in config["actions"]] == ["Press", "Rally"]
    # The party's token whispered to its player alone, and kept in the player's browser.
    assert start["party"] == [["player1"], "Heroes"]
    assert start["playerParties"] == ["Heroes"]
    # The GM's card adds the grant and the end, which the player's lacks.
    assert start["gmActions"] == ["choose-skills", "grant", "end-game"]
    assert start["playerActions"] == ["choose-skills"]
    assert start["playerLabels"] == ["Fertigkeiten wählen"]
    # A field per skill for each member's own d20 (Lydia, the first party's first member).
    assert seen["heroesSkillsDialog"]["shown"] == {
        "party": "Heroes",
        "skill1": "Persuade",
        "skill2": "Insight",
        "die.0.0.1": "",
        "die.0.0.2": "",
    }
    # The GM chooses for the party the GM plays, with its own member's fields.
    assert seen["villainsSkillsDialog"] == {
        "party": "Villains",
        "skill1": "Persuade",
        "skill2": "Insight",
        "die.1.0.1": "",
        "die.1.0.2": "",
    }
    checks = seen["skillChecks"]
    assert checks["rolls"] == [["Lydia", "Persuade", 1], ["Lydia", "Insight", 1]]
    # Lydia's Persuade d20 typed in (17) is hers; her Insight, left blank, Arbiter's.
    persuade, insight = checks["diceOf"]
    assert persuade == 17
    assert checks["sources"] == [
        ["Lydia", "Persuade", [17], "supplied"],
        ["Lydia", "Insight", [insight], "rolled"],
    ]
    assert checks["heroes"]["Persuade"]["best"] == 17 + 3
    assert checks["heroes"]["Insight"]["best"] == insight + 1
    assert checks["next"] == ["choose", "grant", "end-game"]
    cards = seen["skillCardActions"]
    assert cards["gm"] == ["choose", "grant", "end-game"]
    assert cards["player"] == ["choose"]
    assert cards["gmLabels"] == ["Seal a choice", "Grant tokens (GM)", "End the game (GM)"]
    grant = seen["grantDialog"]
    assert grant["title"] == "Arbiter: grant a party tokens"
    assert grant["shown"] == {"party": "Heroes", "tokens": "1", "reason": ""}
    # Both parties to choose from, the first preset.
    assert '<option value="Villains">Villains</option>' in grant["content"]
    # Heroes' tokens: one per check that earned one (its Persuade's 20 did), and the grant's.
    granted = seen["granted"]
    earned = sum(check["token"] for check in checks["heroes"].values())
    assert checks["heroes"]["Persuade"]["token"] is True
    tokens = granted["tokens"]
    assert tokens["Heroes"] == earned + 1
    assert granted["grant"] == {"party": "Heroes", "tokens": 1, "reason": "a rousing speech"}
    assert granted["summary"] == (
        "The GM grants Heroes 1 token: a rousing speech. "
        f"Tokens: Heroes {tokens['Heroes']}, Villains {tokens['Villains']}."
    )
    assert seen["heroesChoiceDialog"] == {"party": "Heroes", "action": "Press", "bid": "0"}


def test_a_losing_bids_action_stays_sealed_in_the_chat(seen: dict[str, Any]) -> None:
    revealed = seen["revealed"]
    # Heroes bid 1 and pressed; the Villains bid 0 on Rally, which only they and the GM read.
    assert revealed["gmRead"] == [
        {"Heroes": {"action": "Press", "bid": 1}, "Villains": {"action": "Rally", "bid": 0}}
    ]
    public = {"Heroes": {"action": "Press", "bid": 1}, "Villains": {"bid": 0}}
    assert revealed["heroesRead"] == [public]
    # The card, and what it carries, show every reader what a party's token reads.
    assert revealed["choices"] == public
    assert revealed["rallyInChat"] == 0
    assert "Rally" not in revealed["content"]
    assert revealed["effects"] == [
        {"party": "Heroes", "action": "Press", "margin": 1, "tier": 0, "text": "Ground gained."}
    ]
    assert "<li>Heroes: Press: Ground gained.</li>" in revealed["content"]
    # The next round's skills, and the GM's grant and end.
    assert revealed["actions"] == ["choose-skills", "grant", "end-game"]
    # Its dice rolled on screen with the skills; the reveal does not roll them again.
    assert revealed["shown"] is None
    assert revealed["grantTitle"] == "Skill game: Heroes vs Villains: tokens granted"
    # The sealing told its player alone, in a notification: the chat says only who sealed.
    assert revealed["sealedSummary"] == "Heroes has sealed its choice; waiting for Villains."
    assert revealed["playerNotified"] == {
        "level": "info",
        "text": "Arbiter: Heroes hat seine Wahl versiegelt; es fehlen noch Villains.",
    }


def test_an_option_games_actions_are_chosen_by_each_party(seen: dict[str, Any]) -> None:
    option = seen["option"]
    # An option game's actions each cost: Press 1, Rally 0 (as the dialog's lines say).
    assert option["config"] == ["option", [["Press", 1], ["Rally", 0]]]
    # One action a round by default: one field, preset to the first action.
    assert option["form"] == {"party": "Heroes", "action1": "Press"}
    # Every party's actions show to all once revealed.
    assert option["choices"] == {
        "Heroes": {"actions": ["Rally"]},
        "Villains": {"actions": ["Rally"]},
    }
    assert option["effects"] == [["Heroes", "Rally"], ["Villains", "Rally"]]


def test_the_gm_ends_a_skill_game_from_its_card(seen: dict[str, Any]) -> None:
    assert seen["optionRoundActions"] == {
        "gm": ["choose-skills", "grant", "end-game"],
        "player": ["choose-skills"],
    }
    assert seen["endDialog"] == {
        "title": "Arbiter: end the game",
        "shown": {"reason": ""},
        "actions": ["end", "cancel"],
    }
    ended = seen["optionEnded"]
    assert ended["status"] == "finished"
    # Both parties rallied (no progress) in the one round played: a tie, ended by the GM, for
    # the reason given.
    result = ended["result"]
    assert (result["winner"], result["tie"], result["progress"], result["reason"]) == (
        None,
        True,
        {"Heroes": 0, "Villains": 0},
        "ended",
    )
    assert ended["summary"].endswith("(the council adjourns)")
    assert ended["actions"] == []


def test_a_player_rolls_their_seats_dice_with_foundrys_dice(seen: dict[str, Any]) -> None:
    """Dee's player presses Roll my dice: one Foundry Roll of 3d6 (what a regular contest's
    seat owes), evaluated in the player's client, sent as the seat's dice."""
    rolled = seen["foundryDice"]
    assert rolled["playerActions"] == ["roll-dice", "roll-mine", "enter-dice"]
    assert rolled["gmActions"] == ["roll-rest"]
    assert rolled["playerLabels"] == [
        "Meine Würfel werfen",
        "Für mich würfeln",
        "Meine Würfel eintragen",
    ]
    assert rolled["owes"]["Dee"] == [
        {"purpose": "success", "sides": 6, "certain": 3, "most": 3, "when": None}
    ]
    assert len(rolled["rolled"]) == 1
    foundry_roll = rolled["rolled"][0]
    assert (foundry_roll["by"], foundry_roll["formula"], foundry_roll["flavor"]) == (
        "player1",
        "3d6",
        "Dee: success",
    )
    values = foundry_roll["values"]
    assert len(values) == 3
    assert all(1 <= value <= 6 for value in values)
    # The round used the very values Foundry rolled, as supplied by Dee's seat.
    assert rolled["diceIn"] == "Dee"
    dee = [roll for roll in rolled["rolls"] if roll[0] == "Dee"]
    assert dee == [["Dee", "success", "3d6", values, "supplied"]]
    assert rolled["diceFrom"] == {"Dee": "seat", "Cy": "gm"}
    assert (rolled["dee"]["roll"], rolled["dee"]["total"]) == (values, sum(values))
    assert rolled["supplied"] is True
    # (Dee's player reads Arbiter in German.)
    assert rolled["notified"]["text"].startswith("Arbiter: Runde 1 wartet auf Würfel von Cy (bis ")
    if seen["generation"] >= 13:
        # Dice So Nice shows the player's roll, from the player's client (and plays its own
        # sound): the chat's dice sound is not played over it.
        assert rolled["shown"][0] == {
            "by": "player1",
            "values": values,
            "faces": [6],
            "synchronize": True,
        }
        assert rolled["sounds"] == []
    else:
        # Without Dice So Nice, the chat's dice sound, on the player's client alone.
        assert rolled["shown"] == []
        assert rolled["sounds"] == [{"by": "player1", "src": "sounds/dice.wav", "socket": False}]


def test_roll_my_dice_rolls_each_owed_purpose_with_its_own_die(seen: dict[str, Any]) -> None:
    rolls = seen["owedRolls"]
    # An arm wrestle's checks are d20s, the spiked variant's damage a d4 (docs/rules.md); a
    # conditional die is rolled as far as it is bounded, sent with the sure ones.
    assert rolls["armWrestle"] == [
        {"purpose": "constitution", "count": 1, "sides": 20},
        {"purpose": "strength", "count": 1, "sides": 20},
        {"purpose": "damage", "count": 1, "sides": 4},
    ]
    # A damage roll in dice notation has no bound: left to Arbiter.
    assert rolls["notationDamage"] == []
    # A regular contest's success is one roll of 3d6.
    assert rolls["regular"] == [{"purpose": "success", "count": 3, "sides": 6}]
    # A sure die is rolled once, not as often as rerolls could ask; an unbounded one not at all.
    assert rolls["hide"] == [{"purpose": "hide", "count": 1, "sides": 20}]


def test_a_chase_whose_sides_ride_plays_a_mounted_increment(seen: dict[str, Any]) -> None:
    # Both sides have a mount: the increment's dialog offers a mounted one.
    assert seen["mountedDialog"]["mounted"] == ""
    mounted = seen["mountedRound"]
    assert mounted["terrain"]["mounted"] is True
    # Each side's ride check came before the increment's check.
    assert mounted["purposes"] == [
        ["Kit", "ride"],
        ["Kit", "check"],
        ["Troll", "ride"],
        ["Troll", "check"],
    ]


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
