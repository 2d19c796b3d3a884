"""One against many over HTTP (docs/api.md#one-against-many): `POST /v1/gurps/quick-contests`,
`POST /v1/d20/opposed-checks` and their odds."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import assert_problem

QUICK = "/v1/gurps/quick-contests"
OPPOSED = "/v1/d20/opposed-checks"
QUICK_ODDS = "/v1/odds/gurps/quick-contests"
OPPOSED_ODDS = "/v1/odds/d20/opposed-checks"

GUARDS: dict[str, Any] = {
    "competitor": {"name": "Thief", "skill": 13, "roll": [2, 3, 4]},
    "opponents": [
        {"name": "Guard", "skill": 10, "roll": [5, 5, 1]},
        {"name": "Captain", "skill": 10, "roll": [1, 1, 2]},
        {"name": "Dog", "skill": 17, "roll": [4, 4, 5]},
    ],
}


def test_one_roll_against_three(client: TestClient) -> None:
    answer = client.post(QUICK, json=GUARDS).json()
    assert answer["mode"] == "versus"
    assert answer["competitor"]["margin"] == 4
    assert [
        (r["opponent"]["name"], r["winner"], r["tie"], r["margin_of_victory"])
        for r in answer["results"]
    ] == [
        ("Guard", "Thief", False, 5),
        ("Captain", "Captain", False, 2),
        ("Dog", None, True, None),
    ]
    assert (answer["beaten"], answer["beaten_by"], answer["ties"]) == (1, 1, 1)
    assert answer["ranking"] == []
    assert answer["winner"] is None
    assert [(r["who"], r["values"], r["source"]) for r in answer["rolls"]] == [
        ("Thief", [2, 3, 4], "supplied"),
        ("Guard", [5, 5, 1], "supplied"),
        ("Captain", [1, 1, 2], "supplied"),
        ("Dog", [4, 4, 5], "supplied"),
    ]
    assert answer["summary"] == (
        "Thief (skill 13) rolled 9, made it by 4: beats 1 of 3 (Guard); loses to Captain; "
        "ties with Dog."
    )


def test_server_dice_are_listed(client: TestClient) -> None:
    body = {
        "competitor": {"name": "Thief", "skill": 13},
        "opponents": [{"name": f"Guard {i}", "skill": 10} for i in range(64)],
        "seed": 7,
    }
    answer = client.post(QUICK, json=body).json()
    assert len(answer["rolls"]) == 65
    assert {r["source"] for r in answer["rolls"]} == {"rolled"}
    assert next(r["values"] for r in answer["rolls"]) == answer["competitor"]["roll"]
    assert answer["beaten"] + answer["beaten_by"] + answer["ties"] == 64
    assert client.post(QUICK, json=body).json() == answer  # the seed decides every die


def test_ranked(client: TestClient) -> None:
    body = {
        "mode": "ranked",
        "competitors": [
            {"name": "Ann", "skill": 12, "roll": [5, 5, 1]},
            {"name": "Bob", "skill": 10, "roll": [2, 3, 4]},
            {"name": "Dee", "skill": 14, "roll": [6, 6, 6]},
        ],
    }
    answer = client.post(QUICK, json=body).json()
    assert [(e["place"], e["name"]) for e in answer["ranking"]] == [
        (1, "Ann"),
        (1, "Bob"),
        (3, "Dee"),
    ]
    assert answer["winner"] is None  # first place shared
    assert answer["competitor"] is None
    assert answer["results"] == []
    assert answer["summary"].startswith("1. Ann (skill 12) rolled 11, made it by 1; 1. Bob")


def test_opposed_checks_with_a_rerolled_tie(client: TestClient) -> None:
    body = {
        "competitor": {"name": "Thief", "modifier": 7, "roll": 11, "rerolls": {"Captain": [15]}},
        "opponents": [
            {"name": "Guard", "modifier": 2, "roll": 18},
            {"name": "Captain", "modifier": 7, "roll": 11, "rerolls": [9]},
        ],
    }
    answer = client.post(OPPOSED, json=body).json()
    assert (answer["roll"], answer["total"]) == (11, 18)
    assert [(r["opponent"], r["winner"], len(r["attempts"])) for r in answer["results"]] == [
        ("Guard", "Guard", 1),
        ("Captain", "Thief", 2),
    ]
    assert answer["results"][1]["attempts"][1] == {
        "competitor_roll": 15,
        "competitor_total": 22,
        "opponent_roll": 9,
        "opponent_total": 16,
    }
    assert [(r["who"], r["purpose"], r["values"]) for r in answer["rolls"]] == [
        ("Thief", "check", [11]),
        ("Guard", "check", [18]),
        ("Captain", "check", [11]),
        ("Thief", "reroll against Captain", [15]),
        ("Captain", "reroll against Thief", [9]),
    ]
    assert answer["summary"] == ("Thief (d20 11 + 7 = 18) beats 1 of 2 (Captain); loses to Guard.")


@pytest.mark.parametrize(
    ("path", "body", "loc"),
    [
        (QUICK, {"competitor": {"name": "A", "skill": 10}}, ["body", "opponents"]),
        (QUICK, {"opponents": [{"name": "A", "skill": 10}]}, ["body", "competitor"]),
        (
            QUICK,
            {"mode": "ranked", "competitor": {"name": "A", "skill": 1}, "competitors": []},
            ["body", "competitors"],
        ),
        (
            QUICK,
            {
                "mode": "ranked",
                "competitor": {"name": "Z", "skill": 1},
                "competitors": [{"name": "A", "skill": 1}, {"name": "B", "skill": 1}],
            },
            ["body", "competitor"],
        ),
        (
            QUICK,
            {"competitor": {"name": "A", "skill": 10}, "opponents": [{"name": "A", "skill": 9}]},
            ["body", "opponents", 0, "name"],
        ),
        (
            QUICK,
            {
                "competitor": {"name": "A", "skill": 10},
                "opponents": [{"name": f"O{i}", "skill": 9} for i in range(65)],
            },
            ["body", "opponents"],
        ),
        (
            OPPOSED,
            {
                "competitor": {"name": "A", "modifier": 1, "rerolls": {"Nobody": [3]}},
                "opponents": [{"name": "B", "modifier": 2}],
            },
            ["body", "competitor", "rerolls"],
        ),
        (
            OPPOSED,
            {"mode": "ranked", "competitors": [{"name": "A", "modifier": 1}]},
            [
                "body",
                "competitors",
            ],
        ),
        (
            OPPOSED,
            {
                "mode": "ranked",
                "opponents": [{"name": "B", "modifier": 2}],
                "competitors": [{"name": "A", "modifier": 1}, {"name": "B", "modifier": 1}],
            },
            ["body", "opponents"],
        ),
        (
            OPPOSED,
            {
                "mode": "ranked",
                "competitors": [{"name": "A", "modifier": 1}, {"name": "A", "modifier": 2}],
            },
            ["body", "competitors", 1, "name"],
        ),
        (
            OPPOSED,
            {"competitors": [{"name": "A", "modifier": 1}, {"name": "B", "modifier": 2}]},
            ["body", "competitors"],
        ),
        (OPPOSED, {"mode": "ranked"}, ["body", "competitors"]),
    ],
)
def test_bad_bodies(client: TestClient, path: str, body: dict[str, Any], loc: list[Any]) -> None:
    assert_problem(client.post(path, json=body), 422, loc)


def test_rerolls_without_a_tie_are_reported_not_refused(client: TestClient) -> None:
    # Whether a reroll is needed depends on the first dice: a table's reroll counts as thrown
    # and is reported in `unused` when there was no tie, never refused.
    versus = client.post(
        OPPOSED,
        json={
            "competitor": {"name": "A", "modifier": 1, "roll": 5},
            "opponents": [{"name": "B", "modifier": 2, "roll": 9, "rerolls": [4]}],
        },
    )
    assert versus.status_code == 200, versus.text
    answer = versus.json()
    assert [(r["who"], r["purpose"], r["values"]) for r in answer["rolls"]] == [
        ("A", "check", [5]),
        ("B", "check", [9]),
    ]
    assert answer["unused"] == [
        {"who": "B", "purpose": "reroll against A", "values": [4], "why": "not-needed"}
    ]
    ranked = client.post(
        OPPOSED,
        json={
            "mode": "ranked",
            "competitors": [
                {"name": "A", "modifier": 1, "roll": 5, "rerolls": [7]},
                {"name": "B", "modifier": 2, "roll": 9},
            ],
        },
    )
    assert ranked.status_code == 200, ranked.text
    assert ranked.json()["unused"] == [
        {"who": "A", "purpose": "reroll", "values": [7], "why": "not-needed"}
    ]


def test_an_opponents_rerolls_without_a_roll_are_never_its_first_roll(client: TestClient) -> None:
    body = {
        "competitor": {"name": "A", "modifier": 1, "roll": 5},
        "opponents": [{"name": "B", "modifier": 1, "rerolls": [4]}],
    }
    for seed in range(40):
        answer = client.post(OPPOSED, json={**body, "seed": seed}).json()
        first = answer["rolls"][1]
        assert (first["who"], first["purpose"], first["source"]) == ("B", "check", "rolled")
        tied = len(answer["results"][0]["attempts"]) > 1
        supplied = [r for r in answer["rolls"] if r["source"] == "supplied" and r["who"] == "B"]
        assert supplied == ([{**supplied[0], "values": [4]}] if tied else [])
        assert ("unused" in answer) is not tied


def test_chat_forms_are_safe(client: TestClient) -> None:
    body = {
        "competitor": {"name": "Thief", "skill": 13, "roll": [2, 3, 4]},
        "opponents": [{"name": "@everyone", "skill": 10, "roll": [5, 5, 1]}],
    }
    markdown = client.post(QUICK, json=body, headers={"accept": "text/markdown"}).text
    assert "@everyone" not in markdown
    plain = client.post(QUICK, json=body, headers={"accept": "text/plain"}).text
    assert "\n" not in plain.rstrip("\n")
    assert "@everyone" not in plain
    assert "@everyone" not in client.post(QUICK, json=body).json()["summary"]


def test_odds_per_opponent_and_together(client: TestClient) -> None:
    body = {
        "competitor": {"name": "Thief", "skill": 13},
        "opponents": [{"name": "Guard 1", "skill": 10}, {"name": "Guard 2", "skill": 10}],
    }
    answer = client.post(QUICK_ODDS, json=body).json()
    assert answer["method"] == "exact"
    assert answer["mode"] == "versus"
    two = client.post(
        "/v1/odds/gurps/quick-contest",
        json={"a": {"name": "Thief", "skill": 13}, "b": {"name": "Guard", "skill": 10}},
    ).json()
    for pair in answer["pairs"]:
        assert pair["beats_exact"] == two["a_wins_exact"]
        assert pair["ties_exact"] == two["tie_exact"]
        assert pair["beaten_by_exact"] == two["b_wins_exact"]
    beaten = {k: Fraction(v) for k, v in answer["beaten_exact"].items()}
    assert sum(beaten.values()) == 1
    assert Fraction(answer["all_beaten_exact"]) == beaten["2"]
    # The shared roll: beating both is likelier than the product of beating each.
    assert Fraction(answer["independent_all_beaten_exact"]) == Fraction(two["a_wins_exact"]) ** 2
    assert beaten["2"] > Fraction(answer["independent_all_beaten_exact"])
    assert answer["summary"].startswith("Thief beats all 2 ")


def test_ranked_odds(client: TestClient) -> None:
    body = {
        "mode": "ranked",
        "competitors": [{"name": "A", "skill": 10}, {"name": "B", "skill": 10}],
    }
    answer = client.post(QUICK_ODDS, json=body).json()
    first = [Fraction(e["first_exact"]) for e in answer["ranking"]]
    assert first[0] == first[1]  # the same skill: the same chance
    assert first[0] + first[1] + Fraction(answer["nobody_alone_first_exact"]) == 1


def test_opposed_odds(client: TestClient) -> None:
    body = {
        "competitor": {"name": "Thief", "modifier": 7},
        "opponents": [{"name": "Guard", "modifier": 2}, {"name": "Captain", "modifier": 7}],
    }
    answer = client.post(OPPOSED_ODDS, json=body).json()
    guard = answer["pairs"][0]
    # Thief wins when d20 + 7 >= d20' + 2 (the higher modifier takes equal totals).
    wins = sum(1 for a in range(1, 21) for b in range(1, 21) if a + 7 >= b + 2)
    assert Fraction(guard["beats_exact"]) == Fraction(wins, 400)
    assert guard["ties_exact"] == "0"
    assert Fraction(answer["beaten_by_any_exact"]) == 1 - Fraction(answer["beaten_exact"]["2"])
    assert_problem(
        client.post(OPPOSED_ODDS, json={**body, "opponents": [body["competitor"]]}),
        422,
        ["body", "opponents", 0, "name"],
    )


def test_ranked_opposed_checks(client: TestClient) -> None:
    body = {
        "mode": "ranked",
        "competitors": [
            {"name": "Ann", "modifier": 3, "roll": 14, "rerolls": [9, 4]},
            {"name": "Bob", "modifier": 7, "roll": 10},
            {"name": "Dee", "modifier": 3, "roll": 14, "rerolls": [9, 18]},
        ],
    }
    answer = client.post(OPPOSED, json=body).json()
    assert answer["mode"] == "ranked"
    assert answer["ranking"] == [
        {"place": 1, "name": "Bob", "modifier": 7, "roll": 10, "total": 17, "rerolls": []},
        {"place": 2, "name": "Dee", "modifier": 3, "roll": 14, "total": 17, "rerolls": [9, 18]},
        {"place": 3, "name": "Ann", "modifier": 3, "roll": 14, "total": 17, "rerolls": [9, 4]},
    ]
    assert answer["winner"] == "Bob"
    assert (answer["competitor"], answer["results"], answer["beaten"]) == (None, [], None)
    assert [(r["who"], r["purpose"], r["values"]) for r in answer["rolls"]] == [
        ("Ann", "check", [14]),
        ("Bob", "check", [10]),
        ("Dee", "check", [14]),
        ("Ann", "reroll", [9]),
        ("Dee", "reroll", [9]),
        ("Ann", "reroll", [4]),
        ("Dee", "reroll", [18]),
    ]
    assert answer["summary"] == (
        "1. Bob (d20 10 + 7 = 17); 2. Dee (d20 14 + 3 = 17, rerolls 9 18); "
        "3. Ann (d20 14 + 3 = 17, rerolls 9 4)."
    )
    plain = client.post(OPPOSED, json=body, headers={"accept": "text/plain"})
    assert plain.text.rstrip("\n") == answer["summary"]
    # Seeded: the same ranking again; the versus mode answers as before, with its mode.
    unrolled = [{"name": name, "modifier": 0} for name in ("Ann", "Bob", "Dee")]
    seeded = {"mode": "ranked", "seed": 7, "competitors": unrolled}
    assert client.post(OPPOSED, json=seeded).json() == client.post(OPPOSED, json=seeded).json()
    versus = {
        "competitor": {"name": "Thief", "modifier": 7, "roll": 11},
        "opponents": [{"name": "Guard", "modifier": 2, "roll": 18}],
    }
    shown = client.post(OPPOSED, json=versus).json()
    assert (shown["mode"], shown["ranking"], shown["winner"]) == ("versus", [], None)


def test_ranked_opposed_odds(client: TestClient) -> None:
    body = {
        "mode": "ranked",
        "competitors": [
            {"name": "Ann", "modifier": 3},
            {"name": "Bob", "modifier": 5},
            {"name": "Cid", "modifier": 3},
        ],
    }
    answer = client.post(OPPOSED_ODDS, json=body).json()
    assert (answer["method"], answer["mode"], answer["pairs"]) == ("exact", "ranked", [])
    first = {e["name"]: Fraction(e["first_exact"]) for e in answer["ranking"]}
    shared = {e["name"]: Fraction(e["shared_first_exact"]) for e in answer["ranking"]}
    assert first["Ann"] == first["Cid"] < first["Bob"]
    assert sum(first.values()) + Fraction(answer["nobody_alone_first_exact"]) == 1
    # Bob first alone: every other total below his (Ann's and Cid's d20 + 3 at most his
    # d20 + 5, equal totals his by the higher modifier), counted over the three d20s.
    bob = sum(
        1
        for b in range(1, 21)
        for a in range(1, 21)
        for c in range(1, 21)
        if a + 3 <= b + 5 and c + 3 <= b + 5
    )
    assert first["Bob"] == Fraction(bob, 8000)
    assert shared["Bob"] == 0
    # Ann and Cid share first only if still tied after every one of the 20 rerolls.
    assert shared["Ann"] == shared["Cid"] > 0
    assert answer["summary"].startswith("Most likely first alone: Bob ")
