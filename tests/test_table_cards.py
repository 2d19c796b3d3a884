"""Rounds as cards (app/api/answers/cards.py): every session kind's round answer, page of rounds
and live event carries its round's card, made when the service answers and never stored.

The expected cards are worked out here from the rules (docs/rules.md): an arm wrestle's total is
the d20 plus the Strength modifier, and the round's winner pushes the DS by the difference; a
regular contest's 3d6 is made by the skill less the total; a race's increment check is the d20
plus the check's modifier; a chase's lead moves by the escapee's gain less the chaser's; a skill
game's check earns a token when it exceeds the DC.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import Session, bearer

LYDIA = {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1}
OGRE = {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2}


def checks_of(card: dict[str, Any]) -> list[tuple[Any, ...]]:
    """A card's checks as (name, purpose, values, modifier, total, against, margin, success,
    source)."""
    return [
        (
            die["name"],
            die["purpose"],
            die["values"],
            die["modifier"],
            die["total"],
            die["against"],
            die["margin"],
            die["success"],
            die["source"],
        )
        for die in card["dice"]
    ]


def test_an_arm_wrestle_round_is_a_card_on_every_surface(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {"a": LYDIA, "b": OGRE})
    played = made.play_round({"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}})
    card = played.json()["round"]["cards"][0]
    # Lydia 17 + 2 = 19 against the Ogre's 8 + 6 = 14: she wins by 5, and nobody led, so her
    # DS rises by 5 (docs/rules.md#pushing-the-ds).
    assert checks_of(card) == [
        ("Lydia", "strength", [17], 2, 19, {"name": "Ogre", "total": 14}, 5, True, "entered"),
        ("Ogre", "strength", [8], 6, 14, {"name": "Lydia", "total": 19}, -5, False, "entered"),
    ]
    assert card["changes"] == [
        {"name": "Lydia", "kind": "ds", "delta": 5, "to": 5, "text": "Lydia +5 (DS 5)"}
    ]
    assert card["winner"] == "Lydia"
    assert card["number"] == 1
    assert card["finished"] is False
    assert card["text"] == "Lydia 1d20+2 = 19 vs Ogre 1d20+6 = 14 → Lydia +5 (DS 5)"
    assert [(die["text"], die["note"]) for die in card["dice"]] == [
        ("Lydia 1d20+2 = 19 vs Ogre 14", "margin +5, succeeded, entered"),
        ("Ogre 1d20+6 = 14 vs Lydia 19", "margin -5, failed, entered"),
    ]
    # The Ogre now trails by 5: his win by 3 pushes her DS down, his own stays 0.
    second = made.play_round({"rolls": {"Lydia": {"strength": 10}, "Ogre": {"strength": 9}}})
    assert second.json()["round"]["cards"][0]["changes"] == [
        {"name": "Lydia", "kind": "ds", "delta": -3, "to": 2, "text": "Lydia -3 (DS 2)"}
    ]
    # The page of rounds shows the same cards, made again as it answers.
    listed = made.rounds()
    assert [record["cards"][0] for record in listed] == [card, second.json()["round"]["cards"][0]]


def test_a_card_is_never_stored_nor_chained(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {"a": LYDIA, "b": OGRE, "dice": "verifiable"})
    made.play_round({"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}})
    ended = made.post("resolve")
    assert ended.status_code == 200, ended.text
    assert all(len(record["cards"]) == 1 for record in ended.json()["rounds"])
    proof = made.get("proof")
    assert proof.status_code == 200, proof.text
    rounds = proof.json()["rounds"]
    assert rounds
    assert all("cards" not in str(record) for record in rounds)


def test_a_regular_contest_card_says_each_margin(store_client: TestClient) -> None:
    made = Session(
        store_client,
        "regular-contests",
        {"a": {"name": "Ines", "skill": 13}, "b": {"name": "Bram", "skill": 12}},
    )
    played = made.play_round(
        {"rolls": {"Ines": {"success": [3, 4, 5]}, "Bram": {"success": [6, 6, 2]}}}
    )
    card = played.json()["round"]["cards"][0]
    # 12 against skill 13: made by 1; 14 against 12: missed by 2; Ines wins.
    assert checks_of(card) == [
        ("Ines", "success", [3, 4, 5], 0, 12, {"skill": 13}, 1, True, "entered"),
        ("Bram", "success", [6, 6, 2], 0, 14, {"skill": 12}, -2, False, "entered"),
    ]
    assert card["winner"] == "Ines"
    assert card["finished"] is True
    assert card["text"] == (
        "Ines 3d6 = 12 vs skill 13, made it by 1; Bram 3d6 = 14 vs skill 12, missed by 2 "
        "→ Ines wins"
    )


def test_a_race_card_gives_each_racer_her_gain(store_client: TestClient) -> None:
    racers = [
        {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
        {"name": "Bob", "speed": 30, "mods": {"strength": 1}},
    ]
    made = Session(store_client, "races", {"course": "dash", "competitors": racers})
    played = made.play_round({"rolls": {"Ann": {"check": 14}, "Bob": {"check": 9}}})
    card = played.json()["round"]["cards"][0]
    # A dash's increment is a Strength check with no DC, d20 + Strength + 2 * floor(speed /
    # 10) (docs/rules.md#the-increment-check): 14 + 2 + 6 and 9 + 1 + 6, gained as DS.
    assert checks_of(card) == [
        ("Ann", "check", [14], 8, 22, None, None, None, "entered"),
        ("Bob", "check", [9], 7, 16, None, None, None, "entered"),
    ]
    assert [(change["name"], change["delta"], change["to"]) for change in card["changes"]] == [
        ("Ann", 22, 22),
        ("Bob", 16, 16),
    ]
    assert card["text"] == "Ann 1d20+8 = 22 → Ann +22 (DS 22); Bob 1d20+7 = 16 → Bob +16 (DS 16)"


def test_a_chase_card_moves_the_lead(store_client: TestClient) -> None:
    body = {
        "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 3}},
        "chaser": {"name": "the guard", "speed": 30, "mods": {"strength": 1}},
        "start": {"mode": "lead", "lead": 12},
    }
    made = Session(store_client, "chases", body)
    played = made.play_round(
        {
            "terrain": {"check": "strength"},
            "rolls": {"Ralf": {"check": 10}, "the guard": {"check": 15}},
        }
    )
    card = played.json()["round"]["cards"][0]
    # Ralf 10 + 3 + 6 = 19, the guard 15 + 1 + 6 = 22 (the speed bonus of 30 ft is 6): the
    # lead falls by 3, from 12 to 9.
    assert [(die["name"], die["total"], die["modifier"]) for die in card["dice"]] == [
        ("Ralf", 19, 9),
        ("the guard", 22, 7),
    ]
    assert card["changes"] == [
        {"name": "Ralf", "kind": "lead", "delta": -3, "to": 9, "text": "Ralf -3 (lead 9)"}
    ]


HEROES: dict[str, Any] = {
    "name": "Heroes",
    "controller": "players",
    "members": [{"name": "Ann", "skills": {"Athletics": 5}}],
}
SKILL_GAME: dict[str, Any] = {
    "dc": 15,
    "skill_list": ["Athletics", "Stealth"],
    "skills_per_round": 1,
    "kind": "bidding",
    "actions": [
        {"name": "Charge", "effects": [{"text": "A scramble forward.", "progress": 1}]},
        {"name": "Rally", "effects": [{"text": "Second wind.", "tokens": 2}]},
    ],
    "goal": 6,
    "parties": [
        {
            "name": "Heroes",
            "controller": "players",
            "members": [{"name": "Ann", "skills": {"Athletics": 5}}],
        },
        {
            "name": "Bandits",
            "controller": "players",
            "members": [{"name": "Rook", "skills": {"Stealth": 6}}],
        },
    ],
}


def test_a_skill_game_card_shows_tokens_earned_and_no_hidden_action(
    store_client: TestClient,
) -> None:
    made = Session(store_client, "skill-games", SKILL_GAME)
    heroes, bandits = made.token("Heroes"), made.token("Bandits")
    skills = {"party": "Heroes", "skills": ["Athletics"], "rolls": {"Ann": {"Athletics": 8}}}
    assert made.post("skills", skills, token=heroes).status_code in (200, 202)
    skills = {"party": "Bandits", "skills": ["Stealth"], "rolls": {"Rook": {"Stealth": 12}}}
    assert made.post("skills", skills, token=bandits).status_code in (200, 202)
    choice = {"party": "Heroes", "action": "Charge", "bid": 0}
    assert made.post("choices", choice, token=heroes).status_code == 202
    choice = {"party": "Bandits", "action": "Rally", "bid": 1}
    revealed = made.post("choices", choice, token=bandits)
    assert revealed.status_code == 200, revealed.text
    # Rook 12 + 6 = 18 exceeds DC 15: a token, which the Bandits bid; Ann 8 + 5 = 13 does not.
    for reader in (None, heroes, bandits):
        headers = bearer(reader) if reader else made.headers
        record = store_client.get(f"{made.url}/rounds", headers=headers).json()["rounds"][0]
        card = record["cards"][0]
        assert [
            (die["name"], die["purpose"], die["total"], die["success"]) for die in card["dice"]
        ][:2] == [("Ann", "Athletics", 13, False), ("Rook", "Stealth", 18, True)]
        assert card["dice"][0]["against"] == {"dc": 15}
        assert [die["margin"] for die in card["dice"][:2]] == [-2, 3]
        tokens = [change for change in card["changes"] if change["kind"] == "tokens"]
        assert [(change["name"], change["delta"]) for change in tokens] == [
            ("Heroes", 0),
            ("Bandits", 1),
        ]
    # The Heroes' losing action is theirs and the GM's alone; the Bandits' card never names it.
    bandits_view = store_client.get(f"{made.url}/rounds", headers=bearer(bandits)).json()
    assert "Charge" not in str(bandits_view)


def test_a_seat_reads_the_seconds_left_by_the_services_clock(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {"a": LYDIA, "b": OGRE, "seats": True})
    opened = made.post("rounds", {"collect": True, "deadline_seconds": 300})
    assert opened.status_code == 202, opened.text
    lydia = made.tokens["seats"]["Lydia"]
    waiting = made.get(token=lydia).json()["pending"]
    # Read at once: 300 s, or 299 when the clock ticked over a second meanwhile.
    assert waiting["seconds_left"] in (299, 300)
    assert waiting["owes"]["Lydia"] == [
        {"purpose": "strength", "sides": 20, "certain": 1, "most": 1, "when": None}
    ]


def test_a_sealed_choice_is_read_back_by_its_own_party_alone(store_client: TestClient) -> None:
    gm_run = {
        "name": "Bandits",
        "controller": "gm",
        "members": [{"name": "Rook", "skills": {"Stealth": 6}}],
    }
    body = {**SKILL_GAME, "parties": [HEROES, gm_run]}
    made = Session(store_client, "skill-games", body)
    heroes = made.token("Heroes")
    rolled = made.post("skills", {"party": "Heroes", "skills": ["Athletics"]}, token=heroes)
    assert rolled.status_code in (200, 202), rolled.text
    rolled = made.post("skills", {"party": "Bandits", "skills": ["Stealth"]})
    assert rolled.status_code in (200, 202), rolled.text
    nothing = made.get("choices/Heroes", token=heroes)
    assert nothing.status_code == 200, nothing.text
    assert nothing.json() == {"party": "Heroes", "round": 1, "choice": None}
    # The GM seals its own party's choice, and reads it back; the Heroes may not.
    sealed = made.post("choices", {"party": "Bandits", "action": "Rally", "bid": 0})
    assert sealed.status_code == 202, sealed.text
    assert made.get("choices/Bandits").json()["choice"] == {"action": "Rally", "bid": 0}
    assert made.get("choices/Bandits", token=heroes).status_code == 403
    # The Heroes read back their own; the GM a players' party's no more than another party
    # does; a stranger finds no session at all.
    sealed = made.post("choices", {"party": "Heroes", "action": "Charge", "bid": 0}, token=heroes)
    assert sealed.status_code == 200, sealed.text  # the last choice: revealed, round 2
    assert made.get("choices/Heroes", token=heroes).json() == {
        "party": "Heroes",
        "round": 2,
        "choice": None,
    }
    assert made.get("choices/Heroes").status_code == 403
    assert made.get("choices/Heroes", token="not-a-token").status_code == 404


def test_a_partys_sealed_choice_is_its_own_until_the_reveal(store_client: TestClient) -> None:
    made = Session(store_client, "skill-games", SKILL_GAME)
    heroes, bandits = made.token("Heroes"), made.token("Bandits")
    for party, skill, token in (("Heroes", "Athletics", heroes), ("Bandits", "Stealth", bandits)):
        rolled = made.post("skills", {"party": party, "skills": [skill]}, token=token)
        assert rolled.status_code in (200, 202), rolled.text
    sealed = made.post("choices", {"party": "Heroes", "action": "Charge", "bid": 0}, token=heroes)
    assert sealed.status_code == 202, sealed.text
    mine = made.get("choices/Heroes", token=heroes)
    assert mine.json() == {"party": "Heroes", "round": 1, "choice": {"action": "Charge", "bid": 0}}
    assert mine.headers["cache-control"] == "no-store"
    refused = made.get("choices/Heroes", token=bandits)
    assert refused.status_code == 403
    assert "Charge" not in refused.text
    assert made.get("choices/Heroes").status_code == 403


# --- the card's words, in the reader's language ---------------------------------------------

#: Lydia 17 + 2 = 19 against the Ogre's 8 + 6 = 14 (the first test's round): the card's line,
#: Lydia's own die and its note, as a player reads them in each language (the terms of
#: docs/languages.md: DS as EG, DR, GE, GS).
ARM_WRESTLE_CARD = {
    "en": (
        "Lydia 1d20+2 = 19 vs Ogre 1d20+6 = 14 → Lydia +5 (DS 5)",
        "Lydia 1d20+2 = 19 vs Ogre 14",
        "margin +5, succeeded, entered",
    ),
    "de": (
        "Lydia 1d20+2 = 19 gegen Ogre 1d20+6 = 14 → Lydia +5 (EG 5)",
        "Lydia 1d20+2 = 19 gegen Ogre 14",
        "Spanne +5, geschafft, eingegeben",
    ),
    "fr": (
        "Lydia 1d20+2 = 19 contre Ogre 1d20+6 = 14 → Lydia +5 (DR 5)",
        "Lydia 1d20+2 = 19 contre Ogre 14",
        "marge +5, réussi, saisi",
    ),
    "es": (
        "Lydia 1d20+2 = 19 contra Ogre 1d20+6 = 14 → Lydia +5 (GE 5)",
        "Lydia 1d20+2 = 19 contra Ogre 14",
        "margen +5, superada, introducido",
    ),
    "pt-BR": (
        "Lydia 1d20+2 = 19 contra Ogre 1d20+6 = 14 → Lydia +5 (GS 5)",
        "Lydia 1d20+2 = 19 contra Ogre 14",
        "margem +5, sucesso, inserido",
    ),
}


def words_left_out(card: dict[str, Any]) -> dict[str, Any]:
    """A card without its words: the data every language shares."""
    return {
        **card,
        "text": None,
        "dice": [{**die, "text": None, "note": None} for die in card["dice"]],
        "changes": [{**change, "text": None} for change in card["changes"]],
    }


@pytest.mark.parametrize("language", list(ARM_WRESTLE_CARD))
def test_a_card_speaks_the_readers_language(store_client: TestClient, language: str) -> None:
    made = Session(store_client, "arm-wrestles", {"a": LYDIA, "b": OGRE})
    played = made.play_round(
        {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}},
        headers={"accept-language": language},
    )
    card = played.json()["round"]["cards"][0]
    line, die, note = ARM_WRESTLE_CARD[language]
    assert card["text"] == line
    assert (card["dice"][0]["text"], card["dice"][0]["note"]) == (die, note)
    assert card["changes"][0]["text"] == line.split(" → ")[1]
    # A page of rounds read with `?lang=` words the same card alike; its data is the English.
    listed = store_client.get(f"{made.url}/rounds?lang={language}", headers=made.headers)
    assert listed.json()["rounds"][0]["cards"][0] == card
    english = store_client.get(f"{made.url}/rounds", headers=made.headers).json()["rounds"][0]
    assert english["cards"][0]["text"] == ARM_WRESTLE_CARD["en"][0]
    assert words_left_out(english["cards"][0]) == words_left_out(card)


def test_a_regular_contest_card_in_german(store_client: TestClient) -> None:
    made = Session(
        store_client,
        "regular-contests",
        {"a": {"name": "Ines", "skill": 13}, "b": {"name": "Bram", "skill": 12}},
    )
    played = made.play_round(
        {"rolls": {"Ines": {"success": [3, 4, 5]}, "Bram": {"success": [6, 6, 2]}}},
        headers={"accept-language": "de"},
    )
    card = played.json()["round"]["cards"][0]
    assert card["text"] == (
        "Ines 3d6 = 12 gegen Fertigkeit 13, geschafft um 1; Bram 3d6 = 14 gegen Fertigkeit 12, "
        "verfehlt um 2 → Ines gewinnt"
    )


def test_a_chase_card_in_french(store_client: TestClient) -> None:
    body = {
        "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 3}},
        "chaser": {"name": "the guard", "speed": 30, "mods": {"strength": 1}},
        "start": {"mode": "lead", "lead": 12},
    }
    made = Session(store_client, "chases", body)
    played = made.play_round(
        {
            "terrain": {"check": "strength"},
            "rolls": {"Ralf": {"check": 10}, "the guard": {"check": 15}},
        },
        headers={"accept-language": "fr"},
    )
    card = played.json()["round"]["cards"][0]
    # Each side gains its check's total; the lead moves by their difference, 19 - 22.
    assert card["text"] == (
        "Ralf 1d20+9 = 19 (+19) contre the guard 1d20+7 = 22 (+22) → Ralf -3 (avance 9)"
    )
    assert card["dice"][0]["note"] == "saisi"


PROGRESS_GAME: dict[str, Any] = {
    **SKILL_GAME,
    "actions": [
        {"name": "Charge", "effects": [{"text": "A scramble forward.", "progress": 2}]},
        {
            "name": "Trip",
            "effects": [{"text": "They stumble.", "progress": -1, "target": "opponents"}],
        },
    ],
}


def test_a_skill_game_card_gives_each_partys_progress_delta(store_client: TestClient) -> None:
    made = Session(store_client, "skill-games", PROGRESS_GAME)
    heroes, bandits = made.token("Heroes"), made.token("Bandits")

    def play(heroes_roll: int, heroes_choice: Any, bandits_choice: Any) -> dict[str, Any]:
        skills = {
            "party": "Heroes",
            "skills": ["Athletics"],
            "rolls": {"Ann": {"Athletics": heroes_roll}},
        }
        assert made.post("skills", skills, token=heroes).status_code in (200, 202)
        skills = {"party": "Bandits", "skills": ["Stealth"], "rolls": {"Rook": {"Stealth": 12}}}
        assert made.post("skills", skills, token=bandits).status_code in (200, 202)
        assert made.post("choices", heroes_choice, token=heroes).status_code == 202
        revealed = made.post("choices", bandits_choice, token=bandits)
        assert revealed.status_code == 200, revealed.text
        shown: dict[str, Any] = revealed.json()
        return shown

    # Round 1: Ann 15 + 5 = 20 and Rook 12 + 6 = 18 both beat DC 15, a token each; the Heroes
    # bid 1 against 0: Charge at margin 1 moves them 2 forward, and they hold 1 - 1 = 0.
    play(
        15,
        {"party": "Heroes", "action": "Charge", "bid": 1},
        {"party": "Bandits", "action": "Trip", "bid": 0},
    )
    # Round 2: Ann 1 + 5 = 6 earns nothing; the Bandits (2 tokens) bid 2: Trip moves the
    # Heroes, its opponents, 1 back, to 1; the Bandits' own progress does not move.
    play(
        1,
        {"party": "Heroes", "action": "Charge", "bid": 0},
        {"party": "Bandits", "action": "Trip", "bid": 2},
    )
    first, second = (record["cards"][0] for record in made.rounds())
    assert [
        (change["name"], change["kind"], change["delta"], change["to"])
        for change in first["changes"]
    ] == [
        ("Heroes", "tokens", 1, 0),
        ("Heroes", "progress", 2, 2),
        ("Bandits", "tokens", 1, 1),
        ("Bandits", "progress", 0, 0),
    ]
    assert [
        (change["name"], change["kind"], change["delta"], change["to"])
        for change in second["changes"]
    ] == [
        ("Heroes", "tokens", 0, 0),
        ("Heroes", "progress", -1, 1),
        ("Bandits", "tokens", 1, 0),
        ("Bandits", "progress", 0, 0),
    ]
    assert [change["text"] for change in second["changes"]] == [
        "Heroes earned 0 tokens (holds 0)",
        "Heroes progress -1 (now 1)",
        "Bandits earned 1 token (holds 0)",
        "Bandits progress +0 (now 0)",
    ]
    assert second["text"] == (
        "Heroes: Ann Athletics 1d20+5 = 6 vs DC 15 → 0 tokens (progress -1); "
        "Bandits: Rook Stealth 1d20+6 = 18 vs DC 15 → 1 token (progress +0). Taken: Bandits: Trip"
    )


#: One round of each kind with the server's dice: (kind, its body, its round body).
EVERY_KIND: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("arm-wrestles", {"a": LYDIA, "b": OGRE}, {}),
    (
        "regular-contests",
        {"a": {"name": "Ines", "skill": 13}, "b": {"name": "Bram", "skill": 12}},
        {},
    ),
    (
        "races",
        {
            "course": "dash",
            "competitors": [{"name": "Ann", "speed": 30}, {"name": "Bob", "speed": 30}],
        },
        {},
    ),
    (
        "chases",
        {
            "escapee": {"name": "Ralf", "speed": 30},
            "chaser": {"name": "the guard", "speed": 30},
            "start": {"mode": "lead", "lead": 12},
        },
        {"terrain": {"check": "strength"}},
    ),
]


@pytest.mark.parametrize("language", ["de", "fr", "es", "pt-BR"])
@pytest.mark.parametrize(
    ("kind", "body", "round_body"), EVERY_KIND, ids=[k for k, _, _ in EVERY_KIND]
)
def test_every_kinds_card_is_worded_in_each_language(
    store_client: TestClient, kind: str, body: dict[str, Any], round_body: Any, language: str
) -> None:
    """No English left in another language's card: its line, each die's note (who gave it is
    always said) and each change are the language's words; its data is the English card's."""
    made = Session(store_client, kind, body)
    played = made.play_round(round_body, headers={"accept-language": language})
    card = played.json()["round"]["cards"][0]
    english = made.rounds()[0]["cards"][0]
    assert words_left_out(card) == words_left_out(english)
    assert card["text"] != english["text"]
    assert all(
        mine["note"] != theirs["note"]
        for mine, theirs in zip(card["dice"], english["dice"], strict=True)
    )
    assert all(
        mine["text"] != theirs["text"]
        for mine, theirs in zip(card["changes"], english["changes"], strict=True)
    )
