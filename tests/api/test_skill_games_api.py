"""Legend skill games through HTTP, on SQLite and PostgreSQL.

The API is docs/api.md#skill-games, the rules docs/rules.md#skill-games.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
import orjson
import pytest
from fastapi.testclient import TestClient

from app.api.kinds import skill_games as skill_games_api
from app.api.sessions.lifecycle import mutate as original_mutate
from app.rules import skill_games as skill_games_rules
from app.rules.dice import SeededRng
from app.store import repository
from tests.helpers import Session, assert_problem, bearer

URL = "/v1/skill-games"
SKILLS = ["Athletics", "Stealth", "Persuasion"]
MEMBERS = {"Heroes": ["Ann", "Bo"], "Villains": ["Rook", "Mara"], "Rangers": ["Cy"]}
SESSION_FIELDS = {
    "id", "kind", "status", "version", "created_at", "updated_at", "config", "state", "result",
    "round",
}  # fmt: skip
STATE_FIELDS = {"phase", "tokens", "progress", "skills_done", "submitted"}
RECORD_FIELDS = {"number", "checks", "choices", "effects", "tokens", "progress", "finished"}
ROLL_FIELDS = {"who", "purpose", "dice", "values", "source"}


def parties(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    return [
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
            "members": [
                {"name": "Rook", "skills": {"Stealth": 6}},
                {"name": "Mara", "skills": {"Athletics": 1, "Persuasion": 4}},
            ],
        },
        *extra,
    ]


RANGERS = {"name": "Rangers", "controller": "players", "members": [{"name": "Cy", "skills": {}}]}


def bidding_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "dc": 15,
        "skill_list": SKILLS,
        "skills_per_round": 2,
        "kind": "bidding",
        "actions": [
            {
                "name": "Charge",
                "effects": [
                    {"min_margin": 0, "text": "A scramble forward.", "progress": 1},
                    {"min_margin": 2, "text": "A clean break.", "progress": 2},
                    {"min_margin": 4, "text": "A rout.", "progress": 3},
                ],
            },
            {
                "name": "Ambush",
                "effects": [
                    {
                        "min_margin": 1,
                        "text": "They fall back.",
                        "progress": -1,
                        "target": "opponents",
                    }
                ],
            },
            {"name": "Rally", "effects": [{"text": "Second wind.", "tokens": 2}]},
            {
                "name": "Sabotage",
                "effects": [{"text": "Supplies burn.", "tokens": -2, "target": "opponents"}],
            },
        ],
        "goal": 4,
        "max_rounds": 5,
        "parties": parties(),
    }
    body.update(changes)
    return body


def option_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "dc": 15,
        "skill_list": SKILLS,
        "skills_per_round": 2,
        "kind": "option",
        "max_actions_per_round": 2,
        "actions": [
            {"name": "Scout", "cost": 1, "effects": [{"text": "Paths found.", "progress": 1}]},
            {
                "name": "Bribe",
                "cost": 2,
                "effects": [
                    {"text": "Palms greased.", "progress": 1},
                    {"text": "Their purse thins.", "tokens": -1, "target": "opponents"},
                ],
            },
            {"name": "Rest", "cost": 0, "effects": [{"text": "A quiet night.", "tokens": 1}]},
        ],
        "max_rounds": 3,
        "parties": parties(),
    }
    body.update(changes)
    return body


def dice(
    party: str, skills: Sequence[str], values: Mapping[tuple[str, str], int] | None = None
) -> dict[str, dict[str, int]]:
    """Every d20 of a party's skills call: 1 unless `values[(member, skill)]` says otherwise."""
    chosen = values or {}
    return {
        member: {skill: chosen.get((member, skill), 1) for skill in skills}
        for member in MEMBERS[party]
    }


def winning_dice(party: str, skills: Sequence[str], tokens: int) -> dict[str, dict[str, int]]:
    """Dice earning exactly `tokens`: a 20 for the first member on the first `tokens` skills.

    With DC 15 and modifiers of at most +6, a 20 always exceeds the DC and a 1 never does.
    """
    first = MEMBERS[party][0]
    return dice(party, skills, {(first, skill): 20 for skill in skills[:tokens]})


class Game(Session):
    """A skill game created through the API; its calls are made as the GM or a party."""

    def __init__(self, client: TestClient, body: dict[str, Any]) -> None:
        super().__init__(client, "skill-games", body)

    def skills(
        self,
        party: str,
        skills: Sequence[str],
        rolls: Mapping[str, Mapping[str, int]] | None = None,
        who: str | None = None,
    ) -> httpx.Response:
        body: dict[str, Any] = {"party": party, "skills": list(skills)}
        if rolls is not None:
            body["rolls"] = rolls
        return self.post("skills", body, who or party)

    def earn(
        self, party: str, tokens: int, skills: Sequence[str] = ("Athletics", "Stealth")
    ) -> None:
        response = self.skills(party, skills, winning_dice(party, skills, tokens))
        assert response.status_code == 200, response.text
        assert response.json()["tokens_earned"] == tokens

    def bid(
        self, party: str, action: str, bid: int, who: str | None = None, **extra: Any
    ) -> httpx.Response:
        return self.post(
            "choices", {"party": party, "action": action, "bid": bid, **extra}, who or party
        )

    def buy(self, party: str, actions: Sequence[str], who: str | None = None) -> httpx.Response:
        return self.post("choices", {"party": party, "actions": list(actions)}, who or party)


def roll(who: str, purpose: str, value: int, source: str = "supplied") -> dict[str, Any]:
    return {"who": who, "purpose": purpose, "dice": "1d20", "values": [value], "source": source}


def skill_rolls(
    party: str, skills: Sequence[str], given: Mapping[str, Mapping[str, int]]
) -> list[dict[str, Any]]:
    """The `rolls` entries of a skills call: skill by skill, members in roster order."""
    return [
        roll(member, skill, given[member][skill]) for skill in skills for member in MEMBERS[party]
    ]


# --- creation --------------------------------------------------------------------------------


def test_create_answers_201_with_location_etag_and_one_token_per_party(
    store_client: TestClient,
) -> None:
    response = store_client.post(URL, json=bidding_body(parties=parties(RANGERS)))
    assert response.status_code == 201
    body = response.json()
    assert response.headers["location"] == f"{URL}/{body['id']}"
    assert response.headers["etag"] == '"1"'
    assert set(body) >= SESSION_FIELDS | {"tokens", "summary"}
    assert (body["kind"], body["status"], body["version"], body["round"]) == (
        "skill-games",
        "active",
        1,
        0,
    )
    assert set(body["tokens"]) == {"gm", "parties"}
    assert set(body["tokens"]["parties"]) == {"Heroes", "Villains", "Rangers"}
    tokens = [body["tokens"]["gm"], *body["tokens"]["parties"].values()]
    assert len(set(tokens)) == 4
    assert body["state"] == {
        "phase": "skills",
        "tokens": {"Heroes": 0, "Villains": 0, "Rangers": 0},
        "progress": {"Heroes": 0, "Villains": 0, "Rangers": 0},
        "skills_done": [],
        "submitted": [],
        "round": 1,
        "finished": False,
        "winner": None,
    }
    assert body["result"] is None
    # The config is normalised: defaults filled in.
    config = body["config"]
    assert (config["max_actions_per_round"], config["token_rule"]) == (1, "exceed")
    assert config["actions"][2] == {
        "name": "Rally",
        "effects": [
            {"min_margin": 0, "text": "Second wind.", "progress": 0, "tokens": 2, "target": "self"}
        ],
    }

    # Every token of the session reads it; the tokens are shown only at creation.
    for token in tokens:
        got = store_client.get(f"{URL}/{body['id']}", headers=bearer(token))
        assert got.status_code == 200
        assert got.headers["etag"] == '"1"'
        assert "tokens" not in got.json()
        assert got.json()["state"] == body["state"]


def test_create_with_a_seed_stores_it_and_accepts_the_option_kind(
    store_client: TestClient,
) -> None:
    response = store_client.post(URL, json=option_body(seed=7, token_rule="meet"))
    assert response.status_code == 201
    config = response.json()["config"]
    assert (config["kind"], config["token_rule"], config["max_rounds"]) == ("option", "meet", 3)
    assert "goal" not in config
    assert config["actions"][0] == {
        "name": "Scout",
        "cost": 1,
        "effects": [{"text": "Paths found.", "progress": 1, "tokens": 0, "target": "self"}],
    }


def _invalid_bodies() -> list[tuple[dict[str, Any], list[Any]]]:
    cases: list[tuple[dict[str, Any], list[Any]]] = []
    without_dc = bidding_body()
    del without_dc["dc"]
    cases.append((without_dc, ["body", "dc"]))
    cases.append((bidding_body(kind="auction"), ["body", "kind"]))
    cases.append((bidding_body(surprise=True), ["body", "surprise"]))
    cases.append((bidding_body(seed=-1), ["body", "seed"]))
    cases.append((bidding_body(token_rule="beat"), ["body", "token_rule"]))
    cases.append((bidding_body(max_rounds=10_001), ["body", "max_rounds"]))
    cases.append((bidding_body(parties=parties()[:1]), ["body", "parties"]))
    many = [
        {"name": f"P{i}", "controller": "gm", "members": [{"name": f"M{i}"}]} for i in range(17)
    ]
    cases.append((bidding_body(parties=many), ["body", "parties"]))
    crowd = parties()
    crowd[0]["members"] = [{"name": f"M{i}"} for i in range(65)]
    cases.append((bidding_body(parties=crowd), ["body", "parties", 0, "members"]))
    bad_controller = parties()
    bad_controller[1]["controller"] = "dm"
    cases.append((bidding_body(parties=bad_controller), ["body", "parties", 1, "controller"]))
    cases.append((bidding_body(skills_per_round=4), ["body", "skills_per_round"]))
    cases.append((bidding_body(skill_list=["Athletics", "Athletics"]), ["body", "skill_list", 1]))
    twice = parties()
    twice[1]["name"] = "Heroes"
    cases.append((bidding_body(parties=twice), ["body", "parties", 1, "name"]))
    clash = parties()
    clash[1]["members"][0]["name"] = "Heroes"
    cases.append((bidding_body(parties=clash), ["body", "parties", 1, "members", 0, "name"]))
    off_list = parties()
    off_list[0]["members"][0]["skills"]["Climb"] = 3
    cases.append(
        (bidding_body(parties=off_list), ["body", "parties", 0, "members", 0, "skills", "Climb"])
    )
    endless = bidding_body()
    del endless["goal"], endless["max_rounds"]
    cases.append((endless, ["body"]))
    costly = bidding_body()
    costly["actions"][0]["cost"] = 2
    cases.append((costly, ["body", "actions", 0, "cost"]))
    cases.append((bidding_body(max_actions_per_round=2), ["body", "max_actions_per_round"]))
    same_tier = bidding_body()
    same_tier["actions"][0]["effects"][1]["min_margin"] = 0
    cases.append((same_tier, ["body", "actions", 0, "effects", 1, "min_margin"]))
    no_effects = bidding_body()
    no_effects["actions"][0]["effects"] = []
    cases.append((no_effects, ["body", "actions", 0, "effects"]))
    dup_action = bidding_body()
    dup_action["actions"][1]["name"] = "Charge"
    cases.append((dup_action, ["body", "actions", 1, "name"]))
    free = option_body()
    del free["actions"][0]["cost"]
    cases.append((free, ["body", "actions", 0, "cost"]))
    tiered = option_body()
    tiered["actions"][0]["effects"][0]["min_margin"] = 1
    cases.append((tiered, ["body", "actions", 0, "effects", 0, "min_margin"]))
    bad_target = option_body()
    bad_target["actions"][0]["effects"][0]["target"] = "everyone"
    cases.append((bad_target, ["body", "actions", 0, "effects", 0, "target"]))
    # Shapes and bounds the rules' config reader used to check (tests/rules moved here).
    cases.append((bidding_body(dc=True), ["body", "dc"]))
    cases.append((bidding_body(skill_list=[]), ["body", "skill_list"]))
    cases.append((bidding_body(skills_per_round=0), ["body", "skills_per_round"]))
    cases.append((bidding_body(actions=[]), ["body", "actions"]))
    cases.append((bidding_body(goal=0), ["body", "goal"]))
    below = bidding_body()
    below["actions"][0]["effects"][0]["min_margin"] = -1
    cases.append((below, ["body", "actions", 0, "effects", 0, "min_margin"]))
    blank = bidding_body()
    blank["actions"][2]["effects"][0]["text"] = ""
    cases.append((blank, ["body", "actions", 2, "effects", 0, "text"]))
    empty = parties()
    empty[0]["members"] = []
    cases.append((bidding_body(parties=empty), ["body", "parties", 0, "members"]))
    negative = option_body()
    negative["actions"][0]["cost"] = -1
    cases.append((negative, ["body", "actions", 0, "cost"]))
    cases.append((option_body(max_actions_per_round=0), ["body", "max_actions_per_round"]))
    return cases


@pytest.mark.parametrize(("body", "loc"), _invalid_bodies())
def test_creation_validation_names_the_field(
    store_client: TestClient, body: dict[str, Any], loc: list[Any]
) -> None:
    assert_problem(store_client.post(URL, json=body), 422, loc)


def test_malformed_create_body_is_400(store_client: TestClient) -> None:
    response = store_client.post(
        URL, content=b'{"dc": 15,', headers={"Content-Type": "application/json"}
    )
    assert_problem(response, 400)


# --- skills and tokens -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token_rule", "die", "earns"),
    [
        ("exceed", 10, False),  # 10 + 5 = 15, the DC: not above it
        ("exceed", 11, True),  # 16 = DC + 1
        ("meet", 10, True),
        ("meet", 11, True),
        ("meet", 9, False),  # 14 = DC - 1
    ],
)
def test_a_token_at_the_dc_and_at_dc_plus_one_under_both_token_rules(
    store_client: TestClient, token_rule: str, die: int, earns: bool
) -> None:
    game = Game(store_client, bidding_body(skills_per_round=1, token_rule=token_rule))
    rolls = dice("Heroes", ["Athletics"], {("Ann", "Athletics"): die})
    response = game.skills("Heroes", ["Athletics"], rolls)
    assert response.status_code == 200
    body = response.json()
    assert body["checks"] == {"Athletics": {"best": die + 5, "by": "Ann", "token": earns}}
    assert body["tokens_earned"] == int(earns)
    assert body["session"]["state"]["tokens"] == {"Heroes": int(earns), "Villains": 0}
    assert body["rolls"] == skill_rolls("Heroes", ["Athletics"], rolls)


def test_skills_answer_checks_tokens_rolls_and_the_session(store_client: TestClient) -> None:
    game = Game(store_client, bidding_body())
    rolls = dice(
        "Heroes",
        ["Stealth", "Persuasion"],
        {("Ann", "Stealth"): 13, ("Bo", "Stealth"): 17, ("Ann", "Persuasion"): 18},
    )
    response = game.skills("Heroes", ["Stealth", "Persuasion"], rolls)
    assert response.status_code == 200
    assert response.headers["etag"] == '"2"'
    body = response.json()
    assert set(body) >= {"checks", "tokens_earned", "session", "rolls", "summary"}
    # Stealth: Ann 13 + 2 = 15, Bo 17 + 0 = 17 (best); Persuasion: Ann 18 + 0, Bo 1 + 3.
    assert body["checks"] == {
        "Stealth": {"best": 17, "by": "Bo", "token": True},
        "Persuasion": {"best": 18, "by": "Ann", "token": True},
    }
    assert body["tokens_earned"] == 2
    assert body["rolls"] == [
        roll("Ann", "Stealth", 13),
        roll("Bo", "Stealth", 17),
        roll("Ann", "Persuasion", 18),
        roll("Bo", "Persuasion", 1),
    ]
    assert body["summary"] == (
        "Round 1: Heroes: Stealth 17 by Bo (token), Persuasion 18 by Ann (token) against DC 15; "
        "2 tokens earned."
    )
    session = body["session"]
    assert session["version"] == 2
    assert session["state"]["skills_done"] == ["Heroes"]
    assert session["state"]["phase"] == "skills"
    assert session["state"]["tokens"] == {"Heroes": 2, "Villains": 0}

    # The GM may roll a players' party's skills too; the last party moves the phase on.
    villains = game.skills(
        "Villains",
        ["Athletics", "Stealth"],
        winning_dice("Villains", ["Athletics", "Stealth"], 1),
        who="gm",
    )
    assert villains.status_code == 200
    assert villains.json()["session"]["state"]["phase"] == "choices"
    assert villains.json()["summary"].endswith("sealed choices are due.")


def test_skills_text_plain_is_the_summary_line(store_client: TestClient) -> None:
    game = Game(store_client, bidding_body(skills_per_round=1))
    response = store_client.post(
        f"{game.url}/skills",
        json={"party": "Heroes", "skills": ["Athletics"], "rolls": dice("Heroes", ["Athletics"])},
        headers={**bearer(game.gm), "Accept": "text/plain"},
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == "Round 1: Heroes: Athletics 6 by Ann against DC 15; 0 tokens earned.\n"


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"party": "Heroes", "skills": ["Athletics", "Climb"]}, ["body", "skills", 1]),
        ({"party": "Heroes", "skills": ["Athletics", "Athletics"]}, ["body", "skills", 1]),
        ({"party": "Heroes", "skills": ["Athletics"]}, ["body", "skills"]),
        (
            {
                "party": "Heroes",
                "skills": ["Athletics", "Stealth"],
                "rolls": {"Rook": {"Stealth": 3}},
            },
            ["body", "rolls", "Rook"],
        ),
        (
            {
                "party": "Heroes",
                "skills": ["Athletics", "Stealth"],
                "rolls": {"Ann": {"Persuasion": 3}},
            },
            ["body", "rolls", "Ann", "Persuasion"],
        ),
        (
            {
                "party": "Heroes",
                "skills": ["Athletics", "Stealth"],
                "rolls": {"Ann": {"Stealth": 21}},
            },
            ["body", "rolls", "Ann", "Stealth"],
        ),
        ({"party": "Heroes", "skills": ["Athletics", "Stealth"], "extra": 1}, ["body", "extra"]),
        ({"party": "Nobody", "skills": ["Athletics", "Stealth"]}, ["body", "party"]),
    ],
)
def test_invalid_skills_calls_are_422_and_change_nothing(
    store_client: TestClient, body: dict[str, Any], loc: list[Any]
) -> None:
    game = Game(store_client, bidding_body())
    assert_problem(game.post("skills", body, "gm"), 422, loc)
    session = game.session()
    assert session["version"] == 1
    assert session["state"]["skills_done"] == []


def test_seeded_skill_dice_derive_from_seed_round_and_party(store_client: TestClient) -> None:
    seed = 2024
    skills = ["Athletics", "Stealth"]
    first = Game(store_client, bidding_body(seed=seed))
    second = Game(store_client, bidding_body(seed=seed))
    answers = []
    for game in (first, second):
        heroes = game.skills("Heroes", skills).json()
        villains = game.skills("Villains", skills, who="gm").json()
        answers.append((heroes["rolls"], villains["rolls"]))
    assert answers[0] == answers[1]

    for party, rolled in zip(("Heroes", "Villains"), answers[0], strict=True):
        rng = SeededRng(seed, f"round:1:skills:{party}")
        expected = [
            roll(member, skill, rng.die(20), "rolled")
            for skill in skills
            for member in MEMBERS[party]
        ]
        assert rolled == expected


# --- sealed choices ----------------------------------------------------------------------------


def at_choices(client: TestClient, body: dict[str, Any], heroes: int, villains: int) -> Game:
    """A new game in its first choices phase; Rangers, when playing, earn nothing."""
    game = Game(client, body)
    game.earn("Heroes", heroes)
    game.earn("Villains", villains)
    if any(party["name"] == "Rangers" for party in body["parties"]):
        game.earn("Rangers", 0)
    assert game.session()["state"]["phase"] == "choices"
    return game


def test_phase_errors_are_409(store_client: TestClient) -> None:
    game = Game(store_client, bidding_body())
    assert_problem(game.bid("Heroes", "Charge", 0), 409)
    game.earn("Heroes", 1)
    assert_problem(game.skills("Heroes", ["Athletics", "Stealth"]), 409)  # twice in a round
    game.earn("Villains", 1)
    assert_problem(game.skills("Villains", ["Athletics", "Stealth"], who="gm"), 409)
    assert game.session()["version"] == 3


def test_a_submission_is_202_until_the_last_and_may_be_replaced(store_client: TestClient) -> None:
    game = at_choices(store_client, bidding_body(parties=parties(RANGERS)), 1, 1)

    first = game.bid("Heroes", "Charge", 1)
    assert first.status_code == 202
    assert first.headers["etag"] == '"5"'
    body = first.json()
    assert body["submitted"] is True
    assert body["waiting_for"] == ["Villains", "Rangers"]
    assert body["session"]["state"]["submitted"] == ["Heroes"]
    assert body["summary"] == "Heroes has sealed its choice; waiting for Villains, Rangers."

    # Replacing the sealed choice is another 202; only the last one counts.
    again = game.bid("Heroes", "Rally", 0)
    assert again.status_code == 202
    assert again.json()["waiting_for"] == ["Villains", "Rangers"]
    assert game.bid("Villains", "Sabotage", 1, who="gm").status_code == 202

    last = game.bid("Rangers", "Charge", 0)
    assert last.status_code == 200
    revealed = last.json()
    assert set(revealed) >= {"round", "session", "summary"}
    record = revealed["round"]
    # The Rangers' token sees its own action and the winner's, not the Heroes' losing one.
    assert record["choices"] == {
        "Heroes": {"bid": 0},
        "Villains": {"action": "Sabotage", "bid": 1},
        "Rangers": {"action": "Charge", "bid": 0},
    }
    assert game.rounds()[0]["choices"] == {
        "Heroes": {"action": "Rally", "bid": 0},
        "Villains": {"action": "Sabotage", "bid": 1},
        "Rangers": {"action": "Charge", "bid": 0},
    }
    assert record["bids"] == {"Heroes": 0, "Villains": 1, "Rangers": 0}
    # Villains win by 1; Sabotage's tier 0 takes 2 from each other party (Heroes have 1).
    assert record["effects"] == [
        {
            "party": "Villains",
            "action": "Sabotage",
            "margin": 1,
            "tier": 0,
            "text": "Supplies burn.",
        }
    ]
    assert record["tokens"] == {"Heroes": 0, "Villains": 0, "Rangers": 0}
    assert revealed["session"]["state"]["submitted"] == []
    assert revealed["session"]["state"]["phase"] == "skills"
    assert revealed["session"]["round"] == 1


def test_tokens_may_seal_only_their_own_party(store_client: TestClient) -> None:
    game = at_choices(store_client, bidding_body(parties=parties(RANGERS)), 1, 1)

    # A party token acting for another party: 403, whoever controls that party.
    assert_problem(game.bid("Villains", "Charge", 0, who="Heroes"), 403)
    assert_problem(game.bid("Rangers", "Charge", 0, who="Heroes"), 403)
    assert_problem(game.skills("Heroes", ["Athletics", "Stealth"], who="Villains"), 403)
    # The GM token seals only for GM-controlled parties: a players' party uses its own token.
    assert_problem(game.bid("Heroes", "Charge", 0, who="gm"), 403)
    assert_problem(game.bid("Rangers", "Charge", 0, who="gm"), 403)
    # Only the GM grants, ends or deletes.
    assert_problem(
        game.post("grants", {"party": "Heroes", "tokens": 1, "reason": "x"}, "Heroes"), 403
    )
    assert_problem(game.post("end", {}, "Villains"), 403)
    assert_problem(store_client.delete(game.url, headers=bearer(game.token("Heroes"))), 403)
    # An unknown party named by the GM is a 422 on `party`.
    assert_problem(game.bid("Nobody", "Charge", 0, who="gm"), 422, ["body", "party"])
    assert game.session()["version"] == 4

    # A GM-controlled party may seal with the GM's token or its own.
    assert game.bid("Villains", "Charge", 0, who="gm").status_code == 202
    assert game.bid("Villains", "Rally", 0, who="Villains").status_code == 202


def test_missing_and_foreign_tokens(store_client: TestClient) -> None:
    game = at_choices(store_client, bidding_body(), 1, 1)
    other = Game(store_client, bidding_body())
    body = {"party": "Heroes", "action": "Charge", "bid": 0}
    assert_problem(store_client.post(f"{game.url}/choices", json=body), 401)
    assert_problem(store_client.get(game.url), 401)
    assert_problem(
        store_client.post(f"{game.url}/choices", json=body, headers=bearer(other.gm)), 404
    )
    assert_problem(
        store_client.get(f"{game.url}/rounds", headers=bearer(other.token("Heroes"))), 404
    )
    assert_problem(
        store_client.post(f"{URL}/{'0' * 32}/choices", json=body, headers=bearer(game.gm)), 404
    )
    assert game.session()["version"] == 3


@pytest.mark.parametrize(
    ("choice", "loc"),
    [
        ({"action": "Charge", "bid": 3}, ["body", "bid"]),  # above the 2 tokens
        ({"action": "Charge", "bid": -1}, ["body", "bid"]),
        ({"action": "Charge"}, ["body", "bid"]),
        ({"action": "Teleport", "bid": 1}, ["body", "action"]),
        ({"actions": ["Charge"]}, ["body", "actions"]),
        (
            {"action": "Charge", "bid": 1, "rolls": {"Villains": {"order": 5}}},
            ["body", "rolls", "Villains"],
        ),
        (
            {"action": "Charge", "bid": 1, "rolls": {"Heroes": {"order": 0}}},
            ["body", "rolls", "Heroes", "order", "int"],
        ),
    ],
)
def test_invalid_bids_are_422_and_change_nothing(
    store_client: TestClient, choice: dict[str, Any], loc: list[Any]
) -> None:
    game = at_choices(store_client, bidding_body(), 2, 1)
    before = game.session()
    response = game.post("choices", {"party": "Heroes", **choice}, "Heroes")
    if loc[-1] == "int":  # a union's error loc names the member that failed
        body = assert_problem(response, 422)
        assert any(error["loc"][:4] == loc[:4] for error in body["errors"]), body
    else:
        assert_problem(response, 422, loc)
    after = game.session()
    assert after["version"] == before["version"]
    assert after["state"] == before["state"]
    assert after["state"]["submitted"] == []


@pytest.mark.parametrize(
    ("actions", "loc"),
    [
        (["Bribe", "Scout"], ["body", "actions"]),  # costs 3, over the 2 tokens
        (["Scout", "Rest", "Bribe"], ["body", "actions"]),  # over max_actions_per_round 2
        (["Scout", "Scout"], ["body", "actions", 1]),
        (["Teleport"], ["body", "actions", 0]),
    ],
)
def test_option_purchases_over_budget_or_limit_are_422_and_change_nothing(
    store_client: TestClient, actions: list[str], loc: list[Any]
) -> None:
    game = at_choices(store_client, option_body(), 2, 1)
    before = game.session()
    assert_problem(game.buy("Heroes", actions), 422, loc)
    assert_problem(game.bid("Heroes", "Scout", 1), 422, ["body", "action"])
    after = game.session()
    assert after["version"] == before["version"]
    assert after["state"]["submitted"] == []


def test_if_match_guards_every_call(store_client: TestClient) -> None:
    game = at_choices(store_client, bidding_body(), 1, 1)
    assert game.session()["version"] == 3
    stale = game.post(
        "choices", {"party": "Heroes", "action": "Charge", "bid": 1}, "Heroes", {"If-Match": '"2"'}
    )
    assert_problem(stale, 412)
    assert game.session()["version"] == 3
    assert game.session()["state"]["submitted"] == []
    stale_grant = game.post(
        "grants", {"party": "Heroes", "tokens": 1, "reason": "x"}, "gm", {"If-Match": '"1"'}
    )
    assert_problem(stale_grant, 412)
    fresh = game.post(
        "choices", {"party": "Heroes", "action": "Charge", "bid": 1}, "Heroes", {"If-Match": '"3"'}
    )
    assert fresh.status_code == 202
    assert fresh.headers["etag"] == '"4"'


def test_idempotent_replay_of_a_sealed_choice(store_client: TestClient) -> None:
    game = at_choices(store_client, bidding_body(), 1, 1)
    key = {"Idempotency-Key": "seal-1"}
    body = {"party": "Heroes", "action": "Charge", "bid": 1}
    first = game.post("choices", body, "Heroes", key)
    assert first.status_code == 202
    replay = game.post("choices", body, "Heroes", key)
    assert replay.status_code == 202
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.json() == first.json()
    assert game.session()["version"] == 4
    assert_problem(
        game.post("choices", {**body, "bid": 0}, "Heroes", key), 422, ["header", "Idempotency-Key"]
    )


# --- secrecy -----------------------------------------------------------------------------------

VOLATILE = {"id", "created_at", "updated_at"}


def _public(value: Any) -> Any:
    """A body without its volatile fields (ids, times) and without the game's config."""
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items() if k not in VOLATILE | {"config"}}
    if isinstance(value, list):
        return [_public(item) for item in value]
    return value


def _observe_before_reveal(
    client: TestClient, kind: str, secret: dict[str, Any]
) -> tuple[Game, list[Any]]:
    """Everything other parties and the GM are answered after Heroes seal `secret`."""
    gambit = {
        "name": "Moonlit Gambit",
        "effects": [{"text": "Under cover of night.", "progress": 2}],
    }
    if kind == "bidding":
        body = bidding_body(seed=11)
        body["actions"].append(gambit)
    else:
        body = option_body(seed=11)
        body["actions"].append({**gambit, "cost": 3917})
    game = Game(client, body)
    game.earn("Heroes", 1)
    game.earn("Villains", 1)
    assert (
        game.post(
            "grants", {"party": "Heroes", "tokens": 3999, "reason": "A war chest"}, "gm"
        ).status_code
        == 200
    )

    seen: list[httpx.Response] = []
    sealed = game.post("choices", {"party": "Heroes", **secret}, "Heroes")
    assert sealed.status_code == 202
    seen.append(sealed)
    for who in ("Villains", "gm", "Heroes"):
        seen.append(client.get(game.url, headers=bearer(game.token(who))))
        seen.append(
            client.get(game.url, headers={**bearer(game.token(who)), "Accept": "text/plain"})
        )
        seen.append(client.get(f"{game.url}/rounds", headers=bearer(game.token(who))))
    over = {"action": "Charge", "bid": 9} if kind == "bidding" else {"actions": ["Bribe"]}
    seen += [
        game.post("choices", {"party": "Villains", **over}, "gm"),  # 422: over its 1 token
        game.post("choices", {"party": "Heroes", **secret}, "Villains"),  # 403
        game.post("choices", {"party": "Heroes", **secret}, "gm"),  # 403
        game.skills("Villains", ["Athletics", "Stealth"], who="gm"),  # 409
        game.post("grants", {"party": "Heroes", "tokens": -1, "reason": "Theft"}, "gm"),  # 409
        game.post("grants", {"party": "Villains", "tokens": 1, "reason": "Luck"}, "gm"),  # 200
        game.post(
            "choices",
            {"party": "Villains", "action": "Rally", "bid": 0}
            if kind == "bidding"
            else {"party": "Villains", "actions": ["Rest"]},
            "gm",
            {"If-Match": '"1"'},
        ),  # 412
    ]
    assert [response.status_code for response in seen[-7:]] == [422, 403, 403, 409, 409, 200, 412]
    return game, [
        response.text
        if response.headers["content-type"].startswith("text/plain")
        else _public(response.json())
        for response in seen
    ]


@pytest.mark.parametrize(
    ("kind", "secret", "other"),
    [
        ("bidding", {"action": "Moonlit Gambit", "bid": 3917}, {"action": "Charge", "bid": 2}),
        ("option", {"actions": ["Moonlit Gambit"]}, {"actions": ["Scout", "Rest"]}),
    ],
)
def test_nothing_of_a_sealed_choice_shows_before_the_reveal(
    store_client: TestClient, kind: str, secret: dict[str, Any], other: dict[str, Any]
) -> None:
    game, seen = _observe_before_reveal(store_client, kind, secret)
    text = orjson.dumps(seen).decode()
    assert "Moonlit" not in text
    assert "Gambit" not in text
    assert "3917" not in text
    assert "Under cover of night" not in text
    # Only *that* Heroes submitted shows.
    assert '"submitted":["Heroes"]' in text

    # Another sealed choice gives exactly the same answers: nothing depends on it.
    _, seen_other = _observe_before_reveal(store_client, kind, other)
    assert seen_other == seen

    # After the reveal the choice is there for all to see (so the search above could find it).
    last = {"action": "Rally", "bid": 0} if kind == "bidding" else {"actions": ["Rest"]}
    revealed = game.post("choices", {"party": "Villains", **last}, "gm")
    assert revealed.status_code == 200
    assert revealed.json()["round"]["choices"]["Heroes"] == secret
    assert "Moonlit Gambit" in orjson.dumps(game.rounds("Villains")).decode()


# --- what each token reads of a revealed bidding round ----------------------------------------


def _without_config(value: Any) -> Any:
    """`value` without any session's `config` (which lists every action of the game)."""
    if isinstance(value, dict):
        return {key: _without_config(item) for key, item in value.items() if key != "config"}
    if isinstance(value, list):
        return [_without_config(item) for item in value]
    return value


def _reads(response: httpx.Response) -> str:
    """What a reader gets from an answer, as text, the config (the action set) left out."""
    if response.headers["content-type"].startswith("application/json"):
        return orjson.dumps(_without_config(response.json())).decode()
    return response.text


def test_a_party_token_never_reads_another_partys_losing_action(store_client: TestClient) -> None:
    # Legend: the parties "reveal the number of tokens they bid, but not the actions they
    # chose". The Villains win with Charge (bid 2); the Heroes lose with Ambush (bid 1), the
    # Rangers with Rally (bid 0). Everyone reads every bid and the Villains' Charge; the
    # Heroes' Ambush is theirs and the GM's alone, the Rangers' Rally likewise.
    game = at_choices(store_client, bidding_body(parties=parties(RANGERS)), 1, 2)
    assert game.bid("Heroes", "Ambush", 1).status_code == 202
    assert game.bid("Villains", "Charge", 2, who="gm").status_code == 202
    key = {"Idempotency-Key": "reveal-1"}
    body = {"party": "Rangers", "action": "Rally", "bid": 0}
    markdown = game.post("choices", body, "Rangers", {**key, "Accept": "text/markdown"})
    assert markdown.status_code == 200, markdown.text
    revealed = game.post("choices", body, "Rangers", key)
    assert revealed.headers["idempotent-replayed"] == "true"
    record = revealed.json()["round"]
    assert record["bids"] == {"Heroes": 1, "Villains": 2, "Rangers": 0}
    assert record["choices"] == {
        "Heroes": {"bid": 1},
        "Villains": {"action": "Charge", "bid": 2},
        "Rangers": {"action": "Rally", "bid": 0},
    }
    assert record["effects"] == [
        {"party": "Villains", "action": "Charge", "margin": 1, "tier": 0,
         "text": "A scramble forward."},
    ]  # fmt: skip
    assert record["summary"] == (
        "Round 1: Bids: Heroes 1, Villains 2, Rangers 0. Villains wins the bid by 1. "
        "Villains — Charge: A scramble forward. Progress: Heroes 0, Villains 1, Rangers 0. "
        "Tokens: Heroes 0, Villains 0, Rangers 0."
    )
    text = game.post("choices", body, "Rangers", {**key, "Accept": "text/plain"})
    for answer in (markdown, revealed, text):
        assert "Ambush" not in _reads(answer)
    assert "Rally" not in _reads(text) + markdown.text  # the summary names only Charge

    # The GM reads every action.
    (whole,) = game.rounds()
    assert whole["choices"] == {
        "Heroes": {"action": "Ambush", "bid": 1},
        "Villains": {"action": "Charge", "bid": 2},
        "Rangers": {"action": "Rally", "bid": 0},
    }
    assert {**whole, "choices": None} == {**record, "choices": None}

    # Each party's token, through every read of the session.
    for party, own, hidden in (("Heroes", "Ambush", "Rally"), ("Rangers", "Rally", "Ambush")):
        (seen,) = game.rounds(party)
        assert seen["choices"][party] == {"action": own, "bid": record["bids"][party]}
        assert seen["choices"]["Villains"] == {"action": "Charge", "bid": 2}
        other = "Rangers" if party == "Heroes" else "Heroes"
        assert seen["choices"][other] == {"bid": record["bids"][other]}
        reads = [
            game.get("rounds", party),
            game.get("rounds", party, {"Accept": "text/markdown"}),
            game.get("rounds", party, {"Accept": "text/plain"}),
            game.get("", party),
            game.get("", party, {"Accept": "text/markdown"}),
            game.get("", party, {"Accept": "text/plain"}),
            # Skill games have no odds from a session; the token odds take no session.
            game.get("odds", party),
        ]
        assert reads[-1].status_code in (404, 405)
        for answer in reads:
            assert hidden not in _reads(answer), (party, answer.request.url)
        assert own in _reads(reads[0])


def test_tied_bidders_actions_show_and_a_tied_bidder_who_did_nothing_keeps_hers(
    store_client: TestClient,
) -> None:
    # Heroes (Charge) and Villains (Ambush, no margin-0 tier) tie at 1; the Rangers bid 0 on
    # Rally. The Heroes take Charge, so all read it; the Villains take nothing, so their
    # Ambush is theirs and the GM's, as is the Rangers' losing Rally.
    game = at_choices(store_client, bidding_body(parties=parties(RANGERS)), 1, 1)
    assert game.bid("Heroes", "Charge", 1).status_code == 202
    assert game.bid("Villains", "Ambush", 1, who="gm").status_code == 202
    revealed = game.bid("Rangers", "Rally", 0)
    assert revealed.status_code == 200
    record = revealed.json()["round"]
    assert record["order"] == ["Heroes"]
    assert record["choices"] == {
        "Heroes": {"action": "Charge", "bid": 1},
        "Villains": {"bid": 1},
        "Rangers": {"action": "Rally", "bid": 0},
    }
    assert game.rounds("Heroes")[0]["choices"] == {
        "Heroes": {"action": "Charge", "bid": 1},
        "Villains": {"bid": 1},
        "Rangers": {"bid": 0},
    }
    assert game.rounds("Villains")[0]["choices"]["Villains"] == {"action": "Ambush", "bid": 1}


def test_an_option_game_reveals_every_action_to_every_party(store_client: TestClient) -> None:
    # "All parties simultaneously reveal their chosen actions."
    game = at_choices(store_client, option_body(), 2, 1)
    assert game.buy("Heroes", ["Bribe"]).status_code == 202
    assert game.buy("Villains", ["Scout"], who="gm").status_code == 200
    assert game.rounds("Heroes")[0]["choices"] == {
        "Heroes": {"actions": ["Bribe"]},
        "Villains": {"actions": ["Scout"]},
    }


# --- the reveal --------------------------------------------------------------------------------


def test_tied_bids_act_in_the_order_of_supplied_d20s_with_rerolls(
    store_client: TestClient,
) -> None:
    game = at_choices(store_client, bidding_body(), 1, 1)
    heroes_dice = winning_dice("Heroes", ["Athletics", "Stealth"], 1)
    assert game.bid("Heroes", "Charge", 1, rolls={"Heroes": {"order": [7, 3]}}).status_code == 202
    response = game.bid("Villains", "Rally", 1, who="gm", rolls={"Villains": {"order": [7, 15]}})
    assert response.status_code == 200
    record = response.json()["round"]
    assert record["bids"] == {"Heroes": 1, "Villains": 1}
    # 7 and 7 tie, so both roll again among themselves: Villains 15 beat Heroes 3.
    assert record["order"] == ["Villains", "Heroes"]
    assert record["effects"] == [
        {"party": "Villains", "action": "Rally", "margin": 0, "tier": 0, "text": "Second wind."},
        {
            "party": "Heroes",
            "action": "Charge",
            "margin": 0,
            "tier": 0,
            "text": "A scramble forward.",
        },
    ]
    assert record["tokens"] == {"Heroes": 0, "Villains": 2}
    assert record["progress"] == {"Heroes": 1, "Villains": 0}
    # Every die of the round: the skill checks of both calls, then the order d20s.
    villains_dice = winning_dice("Villains", ["Athletics", "Stealth"], 1)
    assert record["rolls"] == [
        *skill_rolls("Heroes", ["Athletics", "Stealth"], heroes_dice),
        *skill_rolls("Villains", ["Athletics", "Stealth"], villains_dice),
        roll("Heroes", "order", 7),
        roll("Villains", "order", 7),
        roll("Heroes", "order", 3),
        roll("Villains", "order", 15),
    ]
    assert "Order: Villains, Heroes." in record["summary"]
    assert game.rounds() == [record]


def test_a_tied_party_without_a_margin_zero_tier_does_nothing_and_unused_order_dice_are_reported(
    store_client: TestClient,
) -> None:
    game = at_choices(store_client, bidding_body(), 1, 1)
    assert game.bid("Heroes", "Ambush", 1, rolls={"Heroes": {"order": 9}}).status_code == 202
    response = game.bid("Villains", "Charge", 1, who="gm", rolls={"Villains": {"order": 4}})
    assert response.status_code == 200
    record = response.json()["round"]
    assert record["order"] == ["Villains"]
    assert record["effects"] == [
        {
            "party": "Villains",
            "action": "Charge",
            "margin": 0,
            "tier": 0,
            "text": "A scramble forward.",
        }
    ]
    assert [entry["purpose"] for entry in record["rolls"]] == [
        "Athletics",
        "Athletics",
        "Stealth",
        "Stealth",
    ] * 2
    # No tie to break: the order dice both parties sent count as thrown, reported unused.
    assert record["unused"] == [
        {"who": "Heroes", "purpose": "order", "values": [9], "why": "not-needed"},
        {"who": "Villains", "purpose": "order", "values": [4], "why": "not-needed"},
    ]
    assert "No margin-0 effect for Heroes." in record["summary"]
    assert game.rounds() == [record]


def test_seeded_order_dice_derive_from_seed_and_round(store_client: TestClient) -> None:
    seed = 99
    game = at_choices(store_client, bidding_body(seed=seed), 1, 1)
    assert game.bid("Heroes", "Charge", 1).status_code == 202
    record = game.bid("Villains", "Rally", 1, who="gm").json()["round"]
    rng = SeededRng(seed, "round:1:reveal")
    heroes, villains = rng.die(20), rng.die(20)
    order_rolls = [entry for entry in record["rolls"] if entry["purpose"] == "order"]
    assert order_rolls[:2] == [
        roll("Heroes", "order", heroes, "rolled"),
        roll("Villains", "order", villains, "rolled"),
    ]
    if heroes != villains:
        assert len(order_rolls) == 2
        assert record["order"] == (
            ["Heroes", "Villains"] if heroes > villains else ["Villains", "Heroes"]
        )


def test_reaching_the_goal_ends_the_game(store_client: TestClient) -> None:
    game = at_choices(store_client, bidding_body(goal=2), 2, 0)
    assert game.bid("Heroes", "Charge", 2).status_code == 202
    response = game.bid("Villains", "Rally", 0, who="gm")
    assert response.status_code == 200
    body = response.json()
    record = body["round"]
    assert record["effects"][0]["tier"] == 2
    assert (record["finished"], record["winner"]) == (True, "Heroes")
    session = body["session"]
    assert session["status"] == "finished"
    assert session["result"] == {
        "winner": "Heroes",
        "tie": False,
        "progress": {"Heroes": 2, "Villains": 0},
        "tokens": {"Heroes": 0, "Villains": 0},
        "reason": "goal",
    }
    assert session["state"]["finished"] is True
    assert session["state"]["winner"] == "Heroes"
    assert record["summary"].endswith("Heroes wins the game (goal reached).")
    # A finished game takes no more calls.
    assert_problem(game.skills("Heroes", ["Athletics", "Stealth"]), 409)
    assert_problem(game.bid("Heroes", "Charge", 0), 409)
    assert_problem(game.post("grants", {"party": "Heroes", "tokens": 1, "reason": "x"}, "gm"), 409)
    assert_problem(game.post("end", {}, "gm"), 409)
    assert game.session()["version"] == session["version"]


@pytest.mark.parametrize(("heroes_bid", "winner"), [(1, "Heroes"), (0, None)])
def test_max_rounds_ends_the_game_highest_progress_wins_else_a_tie(
    store_client: TestClient, heroes_bid: int, winner: str | None
) -> None:
    game = at_choices(store_client, bidding_body(goal=None, max_rounds=1), 1, 0)
    assert game.bid("Heroes", "Charge", heroes_bid).status_code == 202
    # At 0-0 both tie with a margin-0 tier, so each advances 1: still a tie.
    response = game.bid("Villains", "Charge", 0, who="gm", rolls={"Villains": {"order": 5}})
    body = response.json()
    assert body["round"]["finished"] is True
    assert body["round"]["winner"] == winner
    result = body["session"]["result"]
    assert (result["winner"], result["tie"], result["reason"]) == (
        winner,
        winner is None,
        "max_rounds",
    )
    assert body["session"]["status"] == "finished"


# --- the GM ------------------------------------------------------------------------------------


def test_gm_grants_tokens_and_the_next_round_records_them(store_client: TestClient) -> None:
    game = Game(store_client, bidding_body())
    response = game.post(
        "grants", {"party": "Heroes", "tokens": 3, "reason": "A rousing speech"}, "gm"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["grant"] == {"party": "Heroes", "tokens": 3, "reason": "A rousing speech"}
    assert body["session"]["state"]["tokens"] == {"Heroes": 3, "Villains": 0}
    assert body["session"]["version"] == 2
    assert body["summary"] == (
        "The GM grants Heroes 3 tokens: A rousing speech. Tokens: Heroes 3, Villains 0."
    )
    taken = game.post("grants", {"party": "Heroes", "tokens": -1, "reason": "Taxes"}, "gm")
    assert taken.json()["session"]["state"]["tokens"]["Heroes"] == 2
    assert_problem(
        game.post("grants", {"party": "Villains", "tokens": -1, "reason": "x"}, "gm"),
        422,
        ["body", "tokens"],
    )
    assert_problem(
        game.post("grants", {"party": "Nobody", "tokens": 1, "reason": "x"}, "gm"),
        422,
        ["body", "party"],
    )
    assert_problem(
        game.post("grants", {"party": "Heroes", "tokens": 1}, "gm"), 422, ["body", "reason"]
    )
    assert game.session()["version"] == 3

    game.earn("Heroes", 0)
    game.earn("Villains", 0)
    assert game.bid("Heroes", "Charge", 2).status_code == 202
    # No tokens are taken from a party whose choice is sealed (it could no longer pay).
    assert_problem(game.post("grants", {"party": "Heroes", "tokens": -1, "reason": "x"}, "gm"), 409)
    record = game.bid("Villains", "Rally", 0, who="gm").json()["round"]
    assert record["grants"] == [
        {"party": "Heroes", "tokens": 3, "reason": "A rousing speech"},
        {"party": "Heroes", "tokens": -1, "reason": "Taxes"},
    ]
    # The next round starts with no grants on its books.
    game.earn("Heroes", 0)
    game.earn("Villains", 0)
    game.bid("Heroes", "Charge", 0)
    assert (
        "grants"
        not in game.bid("Villains", "Charge", 0, who="gm", rolls={"Villains": {"order": 1}}).json()[
            "round"
        ]
    )


def test_gm_ends_the_game_discarding_sealed_choices(store_client: TestClient) -> None:
    game = Game(store_client, bidding_body())
    game.earn("Heroes", 2)
    game.earn("Villains", 1)
    assert game.bid("Heroes", "Charge", 2).status_code == 202
    response = game.post("end", {"reason": "Dawn breaks"}, "gm")
    assert response.status_code == 200
    body = response.json()
    session = body["session"]
    assert session["status"] == "finished"
    assert session["result"] == {
        "winner": None,
        "tie": True,
        "progress": {"Heroes": 0, "Villains": 0},
        "tokens": {"Heroes": 2, "Villains": 1},
        "reason": "ended",
    }
    assert session["state"]["submitted"] == []
    assert body["summary"].endswith("(Dawn breaks)")
    assert "ended by the GM" in body["summary"]
    assert "Charge" not in orjson.dumps(_public(body)).decode()
    assert game.rounds() == []
    assert_problem(game.bid("Villains", "Rally", 0, who="gm"), 409)
    assert_problem(game.post("end", {}, "gm"), 409)
    # Ending needs no body at all.
    other = Game(store_client, bidding_body())
    bare = store_client.post(f"{other.url}/end", headers=bearer(other.gm))
    assert bare.status_code == 200
    assert bare.json()["session"]["result"]["reason"] == "ended"


def test_delete_by_the_gm_then_404(store_client: TestClient) -> None:
    game = Game(store_client, bidding_body())
    assert store_client.delete(game.url, headers=bearer(game.gm)).status_code == 204
    assert_problem(store_client.get(game.url, headers=bearer(game.gm)), 404)
    assert_problem(game.skills("Heroes", ["Athletics", "Stealth"]), 404)


# --- concurrency -------------------------------------------------------------------------------


async def _race(app: Any, requests: list[tuple[str, dict[str, Any], str]]) -> list[httpx.Response]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        return list(
            await asyncio.gather(
                *(
                    client.post(url, json=body, headers=bearer(token))
                    for url, body, token in requests
                )
            )
        )


@pytest.mark.parametrize("party_count", [2, 3])
def test_concurrent_last_submissions_reveal_exactly_once(
    store_client: TestClient, party_count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race is forced, not timed: each request is held at the door of `mutate` until both
    # are in, so neither has begun its change when the other arrives. On PostgreSQL each is
    # held again once it has read the session, so both seal on the same version and only the
    # store keeps them apart. Events are ordered by a counter, never by a clock.
    clock = itertools.count()
    entered: list[int] = []
    sealing: list[tuple[int, int]] = []
    original_submit = skill_games_rules.submit_choice
    original_get_session = repository.get_session
    postgres = store_client.app.state.store.is_postgres  # type: ignore[attr-defined]

    def noting_submit(*args: Any, **kwargs: Any) -> Any:
        start = next(clock)
        try:
            return original_submit(*args, **kwargs)
        finally:
            sealing.append((start, next(clock)))

    def held_together() -> tuple[Callable[..., Any], Callable[..., Any], list[int]]:
        """One race's hooks: each holds the two requests until both have reached it."""
        both_in = asyncio.Barrier(2)
        both_read = asyncio.Barrier(2)
        first_reads: list[int] = []

        async def noting_mutate(*args: Any, **kwargs: Any) -> Any:
            entered.append(next(clock))
            await both_in.wait()
            return await original_mutate(*args, **kwargs)

        async def reading_together(*args: Any, **kwargs: Any) -> Any:
            record = await original_get_session(*args, **kwargs)
            if len(first_reads) < 2:
                first_reads.append(next(clock))
                await both_read.wait()
            return record

        return noting_mutate, reading_together, first_reads

    for _ in range(3):
        extra = (RANGERS,) if party_count == 3 else ()
        game = at_choices(store_client, bidding_body(parties=parties(*extra)), 1, 1)
        if extra:  # the first of three seals early; the last two race
            assert game.bid("Rangers", "Rally", 0).status_code == 202
        url = f"{game.url}/choices"
        entered.clear()
        sealing.clear()
        noting_mutate, reading_together, first_reads = held_together()
        with monkeypatch.context() as patch:
            patch.setattr(skill_games_api, "mutate", noting_mutate)
            patch.setattr(skill_games_rules, "submit_choice", noting_submit)
            if postgres:
                # SQLite queues writers for its write lock before they read, so holding a
                # reader there would hold the other writer out for good.
                patch.setattr(repository, "get_session", reading_together)
            # On the app's own event loop, where its database connections live.
            assert store_client.portal is not None
            responses = store_client.portal.call(
                _race,
                store_client.app,
                [
                    (
                        url,
                        {"party": "Heroes", "action": "Charge", "bid": 1},
                        game.token("Heroes"),
                    ),
                    (url, {"party": "Villains", "action": "Charge", "bid": 0}, game.gm),
                ],
            )
        assert len(entered) == 2
        # Both are in before the first is done: only the store keeps them apart.
        assert max(entered) < min(end for _, end in sealing)
        if postgres:
            assert len(first_reads) == 2
            # Optimistic writes: a sealing computed on a version that changed meanwhile is
            # thrown away and done again, so the one that counted began after the other
            # had ended.
            assert len(sealing) >= 2
            assert max(start for start, _ in sealing) >= min(end for _, end in sealing)
        else:
            # SQLite transactions run on the event loop, so within one process the second
            # request cannot start before the first has committed (tests/store covers
            # writers in several processes).
            (_, first_end), (second_start, _) = sorted(sealing)
            assert first_end <= second_start

        assert sorted(response.status_code for response in responses) == [200, 202], [
            response.text for response in responses
        ]
        (revealing,) = [response for response in responses if response.status_code == 200]
        (waiting,) = [response for response in responses if response.status_code == 202]
        assert len(waiting.json()["waiting_for"]) == 1
        record = revealing.json()["round"]
        assert record["number"] == 1
        assert record["bids"]["Heroes"] == 1
        # The record as the revealing token reads it (a party's hides the others' losing
        # actions: docs/rules.md#bidding).
        revealer = (
            "gm" if revealing.request.headers["authorization"] == f"Bearer {game.gm}" else "Heroes"
        )
        assert game.rounds(revealer) == [record]
        session = game.session()
        assert session["round"] == 1
        assert session["version"] == (7 if extra else 5)
        assert session["state"]["submitted"] == []
        assert session["state"]["progress"]["Heroes"] == 1


# --- whole games -------------------------------------------------------------------------------


def test_a_full_bidding_game_to_its_goal(store_client: TestClient) -> None:
    game = Game(store_client, bidding_body())
    records = []

    def play(
        heroes: tuple[list[str], dict[tuple[str, str], int]],
        villains: tuple[list[str], dict[tuple[str, str], int]],
        heroes_choice: dict[str, Any],
        villains_choice: dict[str, Any],
    ) -> dict[str, Any]:
        heroes_dice = dice("Heroes", heroes[0], heroes[1])
        villains_dice = dice("Villains", villains[0], villains[1])
        first = game.skills("Heroes", heroes[0], heroes_dice)
        second = game.skills("Villains", villains[0], villains_dice, who="gm")
        assert first.status_code == second.status_code == 200
        assert (
            game.post("choices", {"party": "Heroes", **heroes_choice}, "Heroes").status_code == 202
        )
        response = game.post("choices", {"party": "Villains", **villains_choice}, "gm")
        assert response.status_code == 200, response.text
        record: dict[str, Any] = response.json()["round"]
        assert set(record) >= RECORD_FIELDS | {"rolls", "summary", "bids"}
        assert record["rolls"] == [*first.json()["rolls"], *second.json()["rolls"]] + [
            entry for entry in record["rolls"] if entry["purpose"] == "order"
        ]
        records.append(record)
        return record

    # Round 1: Heroes earn 2 (Ann: Athletics 12 + 5, Stealth 14 + 2), Villains 1 (Rook 10 + 6).
    one = play(
        (["Athletics", "Stealth"], {("Ann", "Athletics"): 12, ("Ann", "Stealth"): 14}),
        (["Stealth", "Persuasion"], {("Rook", "Stealth"): 10, ("Mara", "Persuasion"): 8}),
        {"action": "Charge", "bid": 2},
        {"action": "Sabotage", "bid": 1},
    )
    assert one["number"] == 1
    assert one["checks"] == {
        "Heroes": {
            "Athletics": {"best": 17, "by": "Ann", "token": True},
            "Stealth": {"best": 16, "by": "Ann", "token": True},
        },
        "Villains": {
            "Stealth": {"best": 16, "by": "Rook", "token": True},
            "Persuasion": {"best": 12, "by": "Mara", "token": False},
        },
    }
    assert one["bids"] == {"Heroes": 2, "Villains": 1}
    assert one["effects"] == [
        {
            "party": "Heroes",
            "action": "Charge",
            "margin": 1,
            "tier": 0,
            "text": "A scramble forward.",
        }
    ]
    assert (one["tokens"], one["progress"], one["finished"]) == (
        {"Heroes": 0, "Villains": 0},
        {"Heroes": 1, "Villains": 0},
        False,
    )
    assert "order" not in one
    assert one["summary"] == (
        "Round 1: Bids: Heroes 2, Villains 1. Heroes wins the bid by 1. Heroes — Charge: A "
        "scramble forward. Progress: Heroes 1, Villains 0. Tokens: Heroes 0, Villains 0."
    )

    # Round 2: Heroes earn 2, Villains 1 (Rook's Stealth 9 + 6 = 15 only meets the DC).
    two = play(
        (["Athletics", "Persuasion"], {("Ann", "Athletics"): 15, ("Bo", "Persuasion"): 13}),
        (["Stealth", "Athletics"], {("Rook", "Stealth"): 9, ("Rook", "Athletics"): 20}),
        {"action": "Rally", "bid": 0},
        {"action": "Ambush", "bid": 1},
    )
    assert two["checks"]["Villains"] == {
        "Stealth": {"best": 15, "by": "Rook", "token": False},
        "Athletics": {"best": 20, "by": "Rook", "token": True},
    }
    assert two["effects"] == [
        {"party": "Villains", "action": "Ambush", "margin": 1, "tier": 1, "text": "They fall back."}
    ]
    assert (two["tokens"], two["progress"]) == (
        {"Heroes": 2, "Villains": 0},
        {"Heroes": 0, "Villains": 0},
    )

    # Round 3: Heroes earn 2 and bid all 4 against nothing: the top tier.
    three = play(
        (["Athletics", "Stealth"], {("Ann", "Athletics"): 12, ("Ann", "Stealth"): 14}),
        (["Stealth", "Persuasion"], {}),
        {"action": "Charge", "bid": 4},
        {"action": "Rally", "bid": 0},
    )
    assert three["effects"] == [
        {"party": "Heroes", "action": "Charge", "margin": 4, "tier": 4, "text": "A rout."}
    ]
    assert (three["tokens"], three["progress"]) == (
        {"Heroes": 0, "Villains": 0},
        {"Heroes": 3, "Villains": 0},
    )

    # Round 4: a tie at 1; the order d20s put Villains first, then Heroes reach the goal.
    four = play(
        (["Athletics", "Stealth"], {("Ann", "Athletics"): 20}),
        (["Stealth", "Persuasion"], {("Rook", "Stealth"): 20}),
        {"action": "Charge", "bid": 1, "rolls": {"Heroes": {"order": 4}}},
        {"action": "Rally", "bid": 1, "rolls": {"Villains": {"order": 18}}},
    )
    assert four["order"] == ["Villains", "Heroes"]
    assert four["rolls"][-2:] == [roll("Heroes", "order", 4), roll("Villains", "order", 18)]
    assert four["effects"] == [
        {"party": "Villains", "action": "Rally", "margin": 0, "tier": 0, "text": "Second wind."},
        {
            "party": "Heroes",
            "action": "Charge",
            "margin": 0,
            "tier": 0,
            "text": "A scramble forward.",
        },
    ]
    assert (four["tokens"], four["progress"]) == (
        {"Heroes": 0, "Villains": 2},
        {"Heroes": 4, "Villains": 0},
    )
    assert (four["finished"], four["winner"]) == (True, "Heroes")

    assert [record["number"] for record in records] == [1, 2, 3, 4]
    assert game.rounds() == records
    # A party's token reads every bid and the actions taken, and of the actions not taken
    # only its own: round 1's losing Sabotage is the Villains' and the GM's alone.
    villains = game.rounds("Villains")
    assert [record["choices"] for record in villains] == [
        {"Heroes": {"action": "Charge", "bid": 2}, "Villains": {"action": "Sabotage", "bid": 1}},
        {"Heroes": {"bid": 0}, "Villains": {"action": "Ambush", "bid": 1}},
        {"Heroes": {"action": "Charge", "bid": 4}, "Villains": {"action": "Rally", "bid": 0}},
        {"Heroes": {"action": "Charge", "bid": 1}, "Villains": {"action": "Rally", "bid": 1}},
    ]
    assert [{**record, "choices": None} for record in villains] == [
        {**record, "choices": None} for record in records
    ]
    assert game.rounds("Heroes")[0]["choices"] == {
        "Heroes": {"action": "Charge", "bid": 2},
        "Villains": {"bid": 1},
    }
    assert game.rounds("Heroes")[1:] == [
        skill_games_api.round_shown_to(record, "Heroes") for record in records[1:]
    ]
    session = game.session("Heroes")
    assert (session["status"], session["round"]) == ("finished", 4)
    assert session["result"] == {
        "winner": "Heroes",
        "tie": False,
        "progress": {"Heroes": 4, "Villains": 0},
        "tokens": {"Heroes": 0, "Villains": 2},
        "reason": "goal",
    }
    # create + 4 rounds x (2 skills + 2 choices)
    assert session["version"] == 1 + 4 * 4
    assert session["summary"].startswith(
        "Skill game (bidding, DC 15) over after 4 rounds: Heroes wins"
    )


def test_a_full_option_game_to_max_rounds(store_client: TestClient) -> None:
    game = Game(store_client, option_body())
    skills = ["Athletics", "Stealth"]

    def play(
        heroes: int, villains: int, heroes_buy: list[str], villains_buy: list[str]
    ) -> dict[str, Any]:
        game.earn("Heroes", heroes, skills)
        game.earn("Villains", villains, skills)
        assert game.buy("Heroes", heroes_buy).status_code == 202
        response = game.buy("Villains", villains_buy, who="gm")
        assert response.status_code == 200, response.text
        record: dict[str, Any] = response.json()["round"]
        assert "bids" not in record
        assert "order" not in record
        assert len(record["rolls"]) == 8
        return record

    one = play(2, 1, ["Bribe"], ["Scout", "Rest"])
    assert one["choices"] == {
        "Heroes": {"actions": ["Bribe"]},
        "Villains": {"actions": ["Scout", "Rest"]},
    }
    assert one["effects"] == [
        {"party": "Heroes", "action": "Bribe", "text": "Palms greased."},
        {"party": "Heroes", "action": "Bribe", "text": "Their purse thins."},
        {"party": "Villains", "action": "Scout", "text": "Paths found."},
        {"party": "Villains", "action": "Rest", "text": "A quiet night."},
    ]
    # All at once: Villains' -1 and +1 cancel out after paying 1 of their 1 token.
    assert (one["tokens"], one["progress"]) == (
        {"Heroes": 0, "Villains": 0},
        {"Heroes": 1, "Villains": 1},
    )

    two = play(1, 2, [], ["Bribe"])
    assert two["choices"]["Heroes"] == {"actions": []}
    assert (two["tokens"], two["progress"]) == (
        {"Heroes": 0, "Villains": 0},
        {"Heroes": 1, "Villains": 2},
    )
    assert "Heroes buy nothing." in two["summary"]

    three = play(2, 0, ["Scout", "Rest"], ["Rest"])
    assert (three["tokens"], three["progress"]) == (
        {"Heroes": 2, "Villains": 1},
        {"Heroes": 2, "Villains": 2},
    )
    assert (three["finished"], three["winner"]) == (True, None)
    assert three["summary"].endswith("The game ends in a tie (last round played).")

    session = game.session()
    assert session["status"] == "finished"
    assert session["result"] == {
        "winner": None,
        "tie": True,
        "progress": {"Heroes": 2, "Villains": 2},
        "tokens": {"Heroes": 2, "Villains": 1},
        "reason": "max_rounds",
    }
    assert [record["number"] for record in game.rounds()] == [1, 2, 3]
    assert_problem(game.skills("Heroes", skills), 409)


def test_state_keeps_to_the_documented_fields(store_client: TestClient) -> None:
    game = at_choices(store_client, bidding_body(), 1, 1)
    game.bid("Heroes", "Charge", 1)
    state = game.session("Villains")["state"]
    assert set(state) >= STATE_FIELDS
    assert not {"choices", "checks", "round_rolls", "order_dice", "grants"} & set(state)
    assert copy.deepcopy(state)["submitted"] == ["Heroes"]
