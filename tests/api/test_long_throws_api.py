"""`POST /v1/long-throws` against docs/api.md#long-throws (docs/rules.md#long-throws)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import assert_problem

URL = "/v1/long-throws"

COMPETITOR_KEYS = {"name", "eligible", "load", "penalty", "roll", "check", "ds"}
TOP_KEYS = {"mode", "winners", "tie", "competitors", "rolls", "summary"}


def post(client: TestClient, body: Any, **headers: str) -> Any:
    return client.post(URL, json=body, headers=headers)


def test_distance_with_supplied_dice(client: TestClient) -> None:
    body = {
        "object": "javelin",
        "competitors": [
            {"name": "Ann", "strength_score": 14, "weapon_focus": True, "roll": 15},
            {"name": "Bob", "strength_score": 10, "far_shot": True, "roll": 17},
            {"name": "Cid", "strength_score": 1, "size": "fine", "roll": 20},
        ],
    }
    response = post(client, body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    result = response.json()
    assert set(result) >= TOP_KEYS
    assert "series" not in result
    assert result["mode"] == "distance"
    assert result["object"] == {
        "name": "javelin",
        "weight_lb": 2,
        "range_increment_ft": 30,
        "weapon": True,
        "creature": False,
    }
    assert result["winners"] == ["Bob"]
    assert result["tie"] is False
    ann, bob, cid = result["competitors"]
    assert ann == {
        "name": "Ann",
        "eligible": True,
        "load": "light",
        "penalty": 0,
        "load_limits": {"light": 58, "medium": 116, "heavy": 175},
        "roll": 15,
        "check": 18,
        "ds": 18,
        "increments": 3,
        "distance_ft": 90,
    }
    assert (bob["check"], bob["ds"], bob["increments"], bob["distance_ft"]) == (17, 34, 2, 120)
    assert cid == {
        "name": "Cid",
        "eligible": False,
        "load": "over",
        "penalty": 0,
        "load_limits": {"light": 0, "medium": 0, "heavy": 1},
        "roll": None,
        "check": None,
        "ds": None,
        "increments": None,
        "distance_ft": None,
    }
    # Cid's supplied die is ignored: she cannot lift the javelin and rolls nothing
    assert result["rolls"] == [
        {"who": "Ann", "purpose": "throw", "dice": "1d20", "values": [15], "source": "supplied"},
        {"who": "Bob", "purpose": "throw", "dice": "1d20", "values": [17], "source": "supplied"},
    ]
    assert result["summary"] == (
        "Long throw (javelin, distance): Ann rolled 15, check 18, DS 18, 3 increments (90 ft); "
        "Bob rolled 17, check 17, DS 34, 2 increments (120 ft); "
        "Cid cannot lift it (2 lb > heavy load 1 lb). Bob wins."
    )


def test_load_penalties_and_the_under_ten_ruling(client: TestClient) -> None:
    body = {
        "object": "stone",
        "competitors": [
            {"name": "Medium", "strength_score": 3, "roll": 20},
            {"name": "Heavy", "strength_score": 2, "roll": 20},
        ],
    }
    result = post(client, body).json()
    medium, heavy = result["competitors"]
    assert (medium["load"], medium["penalty"], medium["check"]) == ("medium", -3, 13)
    assert (medium["increments"], medium["distance_ft"]) == (1, 10)
    assert (heavy["load"], heavy["penalty"], heavy["check"]) == ("heavy", -6, 10)
    body["competitors"] = [{"name": "Heavy", "strength_score": 2, "roll": 15}]
    heavy = post(client, body).json()["competitors"][0]
    # check 5: floor(10 ft * 5 / 10) = 5 ft, no whole increment
    assert (heavy["check"], heavy["increments"], heavy["distance_ft"]) == (5, 0, 5)


def test_custom_object_and_given_load_limits(client: TestClient) -> None:
    body = {
        "object": {"name": "anvil", "weight_lb": 120.5, "range_increment_ft": 3},
        "competitors": [
            {"name": "Ann", "load_limits": {"light": 50, "medium": 121, "heavy": 200}},
            {"name": "Bob", "load_limits": {"light": 50, "medium": 100, "heavy": 120}},
        ],
        "mode": "caber",
        "seed": 11,
    }
    result = post(client, body).json()
    ann, bob = result["competitors"]
    assert (ann["eligible"], ann["load"], ann["penalty"]) == (True, "medium", -3)
    assert (bob["eligible"], bob["load"]) == (False, "over")
    assert ann["check"] == ann["roll"] - 3
    assert result["winners"] == ["Ann"]
    assert result["object"]["weight_lb"] == 120.5


def test_halfling_into_a_wall(client: TestClient) -> None:
    body = {
        "object": "halfling",
        "into_wall": True,
        "competitors": [
            {
                "name": "Ogre",
                "strength_score": 17,
                "tumble_mod": 3,
                "roll": 10,
                "damage_roll": 4,
                "tumble_roll": 12,
            },
            {
                "name": "Hob",
                "strength_score": 12,
                "roll": 9,
                "damage_roll": 6,
                "tumble_roll": 14,
            },
        ],
    }
    result = post(client, body).json()
    ogre, hob = result["competitors"]
    assert ogre["creature_damage"] == {
        "damage": 0,
        "rolled_damage": 7,
        "tumble_roll": 12,
        "tumble_total": 15,
        "negated": True,
        "wall_damage": 7,
    }
    assert hob["creature_damage"] == {
        "damage": 7,
        "rolled_damage": 7,
        "tumble_roll": 14,
        "tumble_total": 14,
        "negated": False,
        "wall_damage": 7,
    }
    assert [(r["who"], r["purpose"], r["dice"]) for r in result["rolls"]] == [
        ("Ogre", "throw", "1d20"),
        ("Ogre", "damage", "1d6"),
        ("Ogre", "tumble", "1d20"),
        ("Hob", "throw", "1d20"),
        ("Hob", "damage", "1d6"),
        ("Hob", "tumble", "1d20"),
    ]


def test_an_ineligible_throwers_entry(client: TestClient) -> None:
    """docs/rules.md#who-may-throw-loads: too heavy to lift, reported with her load limits and
    nothing rolled."""
    body = {
        "object": "log",
        "competitors": [
            {"name": "Weak", "strength_score": 8},
            {"name": "Strong", "strength_score": 18, "roll": 11},
        ],
    }
    answer = post(client, body).json()
    assert answer["winners"] == ["Strong"]
    assert answer["competitors"][0] == {
        "name": "Weak",
        "eligible": False,
        "load": "over",
        "penalty": 0,
        "load_limits": {"light": 26, "medium": 53, "heavy": 80},
        "roll": None,
        "check": None,
        "ds": None,
        "increments": None,
        "distance_ft": None,
    }


def test_an_ineligible_thrower_has_no_creature_damage(client: TestClient) -> None:
    body = {
        "object": "halfling",
        "competitors": [
            {"name": "Ann", "strength_score": 16, "roll": 12, "damage_roll": 6, "tumble_roll": 14},
            {"name": "Weak", "strength_score": 2},
            {
                "name": "Bob",
                "strength_score": 16,
                "tumble_mod": 10,
                "roll": 12,
                "damage_roll": 2,
                "tumble_roll": 5,
            },
        ],
    }
    answer = post(client, body).json()
    assert answer["competitors"][1]["name"] == "Weak"
    assert answer["competitors"][1]["creature_damage"] is None


def test_an_object_that_is_no_creature_has_no_creature_damage_key(client: TestClient) -> None:
    body = {
        "object": "stone",
        "into_wall": True,
        "competitors": [{"name": "Ann", "strength_score": 16, "roll": 9}],
    }
    assert "creature_damage" not in post(client, body).json()["competitors"][0]


def test_caber_entries_have_no_distance_keys(client: TestClient) -> None:
    body = {
        "object": "log",
        "mode": "caber",
        "competitors": [
            {
                "name": "Ann",
                "strength_score": 18,
                "dex_mod": 4,
                "far_shot": True,
                "weapon_focus": True,
                "roll": 10,
            },
            {"name": "Bob", "strength_score": 22, "dex_mod": 0, "roll": 12},
            {"name": "Cid", "strength_score": 5, "dex_mod": 9},
        ],
    }
    entry = post(client, body).json()["competitors"][0]
    assert "increments" not in entry
    assert "distance_ft" not in entry


def test_precision_entries_series_by_series(client: TestClient) -> None:
    """The dice of tests/rules/test_long_throw.py::test_precision_runs_until_one_is_left."""
    body = {
        "object": "javelin",
        "mode": "precision",
        "competitors": [
            {"name": "Ann", "strength_score": 10, "ranged_attack_bonus": 6, "roll": [5, 2, 1]},
            {
                "name": "Bob",
                "strength_score": 10,
                "ranged_attack_bonus": 6,
                "far_shot": True,
                "roll": [1],
            },
            {"name": "Cid", "strength_score": 10, "ranged_attack_bonus": 6, "roll": [20, 1, 7]},
        ],
    }
    entries = {entry["name"]: entry for entry in post(client, body).json()["competitors"]}
    assert entries["Cid"] == {
        "name": "Cid",
        "eligible": True,
        "load": "light",
        "penalty": 0,
        "load_limits": {"light": 33, "medium": 66, "heavy": 100},
        "roll": [20, 1, 7],
        "check": [20, 1, 5],
        "ds": 2,
        "out_in_series": None,
    }
    assert (entries["Ann"]["roll"], entries["Ann"]["ds"], entries["Ann"]["out_in_series"]) == (
        [5, 2, 1],
        1,
        3,
    )
    assert (entries["Bob"]["roll"], entries["Bob"]["ds"], entries["Bob"]["out_in_series"]) == (
        [1],
        0,
        1,
    )


def test_precision_weapon_focus_adds_one_to_each_attack(client: TestClient) -> None:
    """Issue 12, point 5: the same roll hits with Weapon Focus in the javelin and misses without."""
    body = {
        "object": "javelin",
        "mode": "precision",
        "max_series": 1,
        "competitors": [
            {
                "name": "Ann",
                "strength_score": 10,
                "ranged_attack_bonus": 3,
                "weapon_focus": True,
                "roll": [7],
            },
            {"name": "Bob", "strength_score": 10, "ranged_attack_bonus": 3, "roll": [7]},
        ],
    }
    result = post(client, body).json()
    ann, bob = result["competitors"]
    assert (ann["check"], ann["out_in_series"]) == ([5], None)  # 7 + 3 - 6 + 1 hits AC 5
    assert (bob["check"], bob["out_in_series"]) == ([4], 1)  # 7 + 3 - 6 misses
    assert result["winners"] == ["Ann"]


def test_caber_has_no_distance(client: TestClient) -> None:
    body = {
        "object": "log",
        "mode": "caber",
        "competitors": [
            {"name": "Ann", "strength_score": 18, "dex_mod": 4, "far_shot": True, "roll": 10},
            {"name": "Bob", "strength_score": 22, "roll": 12},
        ],
    }
    result = post(client, body).json()
    ann, bob = result["competitors"]
    assert set(ann) == COMPETITOR_KEYS | {"load_limits"}
    assert (ann["check"], ann["ds"], bob["ds"]) == (11, 11, 12)
    assert result["winners"] == ["Bob"]
    assert "series" not in result


def test_precision_throws_the_series_did_not_reach_are_reported(client: TestClient) -> None:
    # Bob misses the first series and is out: Ann's second throw counts as thrown, reported
    # in `unused` (how many series are thrown is decided by the throws), never refused.
    body = {
        "object": "javelin",
        "mode": "precision",
        "competitors": [
            {"name": "Ann", "strength_score": 10, "ranged_attack_bonus": 30, "roll": [20, 17]},
            {"name": "Bob", "strength_score": 10, "roll": 1},
        ],
    }
    answer = post(client, body).json()
    assert answer["winners"] == ["Ann"]
    assert [roll["values"] for roll in answer["rolls"]] == [[20], [1]]
    assert answer["unused"] == [
        {"who": "Ann", "purpose": "throw", "values": [17], "why": "surplus"}
    ]


def test_precision_series(client: TestClient) -> None:
    body = {
        "object": "javelin",
        "mode": "precision",
        "competitors": [
            {"name": "Ann", "strength_score": 10, "ranged_attack_bonus": 6, "roll": [5, 2, 1]},
            {
                "name": "Bob",
                "strength_score": 10,
                "ranged_attack_bonus": 6,
                "far_shot": True,
                "roll": [1],
            },
            {"name": "Cid", "strength_score": 10, "ranged_attack_bonus": 6, "roll": [20, 1, 7]},
        ],
    }
    response = post(client, body)
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["mode"] == "precision"
    assert result["winners"] == ["Cid"]
    assert result["tie"] is False
    series = result["series"]
    assert [s["number"] for s in series] == [1, 2, 3]
    assert [s["distance_increments"] for s in series] == [4, 4, 5]
    assert [s["out"] for s in series] == [["Bob"], [], ["Ann"]]
    assert series[0]["throws"] == [
        {"name": "Ann", "roll": 5, "range_penalty": 6, "total": 5, "hit": True},
        {"name": "Bob", "roll": 1, "range_penalty": 2, "total": 5, "hit": False},
        {"name": "Cid", "roll": 20, "range_penalty": 6, "total": 20, "hit": True},
    ]
    cid = result["competitors"][2]
    assert (cid["roll"], cid["check"], cid["ds"], cid["out_in_series"]) == (
        [20, 1, 7],
        [20, 1, 5],
        2,
        None,
    )
    assert result["summary"] == (
        "Long throw (javelin, precision): 3 series; Bob out in series 1; "
        "Ann out in series 3. Cid wins."
    )


def test_precision_max_series_tie(client: TestClient) -> None:
    body: dict[str, Any] = {
        "object": "discus",
        "mode": "precision",
        "max_series": 2,
        "competitors": [
            {"name": "Ann", "strength_score": 10, "ranged_attack_bonus": 20, "roll": [9, 9]},
            {"name": "Bob", "strength_score": 10, "ranged_attack_bonus": 20, "roll": [9, 1]},
        ],
    }
    result = post(client, body).json()
    # series 1: both 9 + 20 - 6 = 23 hit; series 2: Bob's natural 1 misses, Ann hits
    assert [s["out"] for s in result["series"]] == [[], ["Bob"]]
    assert (result["winners"], result["tie"]) == (["Ann"], False)
    body["competitors"][1]["roll"] = [9, 9]
    result = post(client, body).json()
    assert [s["out"] for s in result["series"]] == [[], []]
    assert (result["winners"], result["tie"]) == (["Ann", "Bob"], True)
    assert result["summary"] == (
        "Long throw (discus, precision): 2 series. Still in after 2 series: tie between Ann, Bob."
    )


def test_accept_text_plain_gives_the_summary(client: TestClient) -> None:
    body = {"object": "discus", "competitors": [{"name": "Ann", "strength_score": 10, "roll": 9}]}
    response = post(client, body, accept="text/plain")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == (
        "Long throw (discus, distance): Ann rolled 9, check 9, DS 9, 18 ft. Ann wins.\n"
    )


def test_same_seed_same_bytes(client: TestClient) -> None:
    body = {
        "object": "halfling",
        "mode": "distance",
        "competitors": [
            {"name": f"T{i}", "strength_score": 10 + i, "tumble_mod": i} for i in range(8)
        ],
        "seed": 123456789,
    }
    first = post(client, body)
    second = post(client, body)
    assert first.status_code == 200
    assert first.content == second.content
    precision = {**body, "object": "javelin", "mode": "precision"}
    assert post(client, precision).content == post(client, precision).content
    assert all(r["source"] == "rolled" for r in first.json()["rolls"])


def test_malformed_json_is_400(client: TestClient) -> None:
    response = client.post(
        URL, content=b'{"object": ', headers={"content-type": "application/json"}
    )
    assert_problem(response, 400)


#: The member of `object`'s union that names a standard object, as a 422's `loc` names it.
STANDARD_OBJECT = "literal['javelin','discus','stone','halfling','small-boulder','log']"


def one(**competitor: Any) -> dict[str, Any]:
    return {"object": "javelin", "competitors": [{"name": "Ann", **competitor}]}


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        (one(), ["body", "competitors", 0]),
        (one(strength_score=0), ["body", "competitors", 0, "strength_score"]),
        (one(strength_score=201), ["body", "competitors", 0, "strength_score"]),
        (one(strength_score=10, size="enormous"), ["body", "competitors", 0, "size"]),
        # A field that is a union (a d20 or a list of them, an object's name or its description)
        # is refused under the name pydantic gives the member that refused it first.
        (one(strength_score=10, roll=21), ["body", "competitors", 0, "roll", "constrained-int"]),
        (one(strength_score=10, roll=0), ["body", "competitors", 0, "roll", "constrained-int"]),
        (one(strength_score=10, roll=[3, 4]), ["body", "competitors", 0, "roll"]),
        (one(strength_score=10, damage_roll=7), ["body", "competitors", 0, "damage_roll"]),
        (one(strength_score=10, damage_roll=3), ["body", "competitors", 0, "damage_roll"]),
        (one(strength_score=10, tumble_roll=3), ["body", "competitors", 0, "tumble_roll"]),
        (one(strength_score=10, colour="red"), ["body", "competitors", 0, "colour"]),
        (one(strength_score=10, strength_mod=1001), ["body", "competitors", 0, "strength_mod"]),
        (
            one(load_limits={"light": 10, "medium": 5, "heavy": 20}),
            ["body", "competitors", 0, "load_limits"],
        ),
        (
            one(load_limits={"light": 10, "medium": 20}),
            ["body", "competitors", 0, "load_limits", "heavy"],
        ),
        (
            one(load_limits={"light": 10, "medium": 20, "heavy": 30}),
            ["body", "competitors", 0, "strength_mod"],
        ),
        ({**one(strength_score=10), "object": "anvil"}, ["body", "object", STANDARD_OBJECT]),
        (
            {
                **one(strength_score=10),
                "object": {"name": "air", "weight_lb": 0, "range_increment_ft": 1},
            },
            ["body", "object", STANDARD_OBJECT],
        ),
        ({**one(strength_score=10), "mode": "sprint"}, ["body", "mode"]),
        ({**one(strength_score=10), "max_series": 0}, ["body", "max_series"]),
        ({**one(strength_score=10), "max_series": 10_001}, ["body", "max_series"]),
        ({**one(strength_score=10), "seed": -1}, ["body", "seed"]),
        ({**one(strength_score=10), "seed": 2**63}, ["body", "seed"]),
        ({**one(strength_score=10), "wind": 3}, ["body", "wind"]),
        ({"object": "javelin", "competitors": []}, ["body", "competitors"]),
        ({"object": "javelin"}, ["body", "competitors"]),
        (
            {
                "object": "javelin",
                "competitors": [{"name": f"T{i}", "strength_score": 10} for i in range(65)],
            },
            ["body", "competitors"],
        ),
        (
            {
                "object": "javelin",
                "competitors": [
                    {"name": "Ann", "strength_score": 10},
                    {"name": "Ann", "strength_score": 12},
                ],
            },
            ["body", "competitors", 1, "name"],
        ),
        (
            # a lone thrower throws no precision series: her supplied roll is not needed
            {
                "object": "stone",
                "mode": "precision",
                "competitors": [{"name": "Ann", "strength_score": 10, "roll": [5]}],
            },
            ["body", "competitors", 0, "roll"],
        ),
        (
            # precision resolves hits, not landings: no creature damage dice
            {
                "object": "halfling",
                "mode": "precision",
                "competitors": [
                    {"name": "Ann", "strength_score": 10, "roll": [20], "damage_roll": 2},
                    {"name": "Bob", "strength_score": 10, "roll": [1]},
                ],
            },
            ["body", "competitors", 0, "damage_roll"],
        ),
        ([1, 2], ["body"]),
    ],
)
def test_invalid_input_is_422_naming_the_field(
    client: TestClient, body: Any, loc: list[Any]
) -> None:
    assert_problem(post(client, body), 422, loc)


def test_sixty_four_competitors_are_accepted(client: TestClient) -> None:
    body = {
        "object": "javelin",
        "competitors": [{"name": f"T{i}", "strength_score": 10} for i in range(64)],
        "seed": 5,
    }
    response = post(client, body)
    assert response.status_code == 200
    assert len(response.json()["competitors"]) == 64


def test_the_halfling_toss(client: TestClient) -> None:
    # From 15 ft (3 of the halfling's 5 ft increments): the Ogre (Str 18, +4) rolls 16, check
    # 20, 3 increments, 15 ft — into the bank; Bram (Str 14, +2) rolls 12, check 14, 10 ft —
    # short: he loses, pelted with stones.
    body = {
        "object": "halfling",
        "mode": "halfling-toss",
        "competitors": [
            {"name": "Ogre", "strength_score": 18, "roll": 16, "damage_roll": 2, "tumble_roll": 3},
            {"name": "Bram", "strength_score": 14, "roll": 12, "damage_roll": 4, "tumble_roll": 5},
        ],
    }
    response = post(client, body)
    assert response.status_code == 200, response.text
    result = response.json()
    assert (result["mode"], result["toss_distance_ft"]) == ("halfling-toss", 15)
    assert (result["winners"], result["tie"]) == (["Ogre"], False)
    ogre, bram = result["competitors"]
    assert {key: ogre[key] for key in ("check", "ds", "increments", "distance_ft", "landed")} == {
        "check": 20, "ds": 20, "increments": 3, "distance_ft": 15, "landed": True,
    }  # fmt: skip
    assert {key: bram[key] for key in ("check", "distance_ft", "landed")} == {
        "check": 14, "distance_ft": 10, "landed": False,
    }  # fmt: skip
    assert ogre["creature_damage"]["damage"] == 2
    assert (
        "Bram rolled 12, check 14, DS 14, 2 increments (10 ft), misses: loses"
        in (result["summary"])
    )
    assert result["summary"].endswith("Ogre wins.")
    # From 20 ft the Ogre's 15 ft falls short too: nobody lands it.
    farther = post(client, {**body, "toss_distance_ft": 20}).json()
    assert (farther["winners"], farther["toss_distance_ft"]) == ([], 20)
    assert [entry["landed"] for entry in farther["competitors"]] == [False, False]


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({"object": "stone"}, ["body", "object"]),
        ({"into_wall": True}, ["body", "into_wall"]),
        ({"toss_distance_ft": 10}, ["body", "toss_distance_ft"]),
        ({"mode": "distance", "toss_distance_ft": 20}, ["body", "toss_distance_ft"]),
    ],
)
def test_halfling_toss_refusals(
    client: TestClient, changes: dict[str, Any], loc: list[str]
) -> None:
    body = {
        "object": "halfling",
        "mode": "halfling-toss",
        "competitors": [{"name": "Ogre", "strength_score": 18}],
        **changes,
    }
    problem = assert_problem(post(client, body), 422)
    assert [error["loc"] for error in problem["errors"]] == [loc]


def test_far_shot_doubles_the_check_or_the_die(client: TestClient) -> None:
    # Str 14 (+2), Far Shot, a d20 of 15: check 17; DS 34 (the whole check doubled, the
    # default) or 2 * 15 + 2 = 32 (the die alone). Either way 2 increments of 60 ft.
    body = {
        "object": "javelin",
        "competitors": [{"name": "Far", "strength_score": 14, "far_shot": True, "roll": 15}],
    }
    whole = post(client, body).json()["competitors"][0]
    die = post(client, {**body, "far_shot_doubles": "die"}).json()["competitors"][0]
    assert (whole["check"], whole["ds"], whole["distance_ft"]) == (17, 34, 120)
    assert (die["check"], die["ds"], die["distance_ft"]) == (17, 32, 120)
    problem = assert_problem(post(client, {**body, "far_shot_doubles": "roll"}), 422)
    assert problem["errors"][0]["loc"] == ["body", "far_shot_doubles"]


def test_openapi_documents_the_endpoint_with_examples(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    operation = schema["paths"][URL]["post"]
    content = operation["requestBody"]["content"]["application/json"]
    assert content["schema"]["$ref"] == "#/components/schemas/LongThrowRequest"
    assert {"distance", "halfling into a wall", "precision", "halfling toss"} <= set(
        content["examples"]
    )
    assert "LongThrowRequest" in schema["components"]["schemas"]
    for example in content["examples"].values():
        assert post(client, example["value"]).status_code == 200


# --- property: any schema-shaped body resolves or is a 422, never a 5xx ----------------------

SIZES = ["fine", "diminutive", "tiny", "small", "medium", "large", "huge", "gargantuan", "colossal"]
modifiers = st.integers(-10, 40)


@st.composite
def load_limits(draw: st.DrawFn) -> dict[str, int]:
    light, medium, heavy = sorted(draw(st.lists(st.integers(0, 3000), min_size=3, max_size=3)))
    return {"light": light, "medium": medium, "heavy": heavy}


strength = st.one_of(
    st.fixed_dictionaries({"strength_score": st.integers(1, 200)}),
    st.fixed_dictionaries({"load_limits": load_limits()}, optional={"strength_mod": modifiers}),
    st.fixed_dictionaries({"strength_score": st.integers(1, 60), "load_limits": load_limits()}),
)

competitor_options = st.fixed_dictionaries(
    {},
    optional={
        "size": st.sampled_from(SIZES),
        "strength_mod": modifiers,
        "dex_mod": modifiers,
        "ranged_attack_bonus": modifiers,
        "weapon_focus": st.booleans(),
        "far_shot": st.booleans(),
        "tumble_mod": modifiers,
        "roll": st.one_of(st.integers(1, 20), st.lists(st.integers(1, 20), max_size=4)),
        "damage_roll": st.integers(1, 6),
        "tumble_roll": st.integers(1, 20),
    },
)


@st.composite
def competitors(draw: st.DrawFn) -> list[dict[str, Any]]:
    names = draw(st.lists(st.sampled_from(["Ann", "Bob", "Cid", "Dee", "Eve"]), unique=True))
    if not names:
        names = ["Ann"]
    return [{"name": name, **draw(strength), **draw(competitor_options)} for name in names]


custom_object = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["anvil", "Anvil Two"]),
        "weight_lb": st.one_of(
            st.integers(1, 5000), st.floats(0.001, 5000, allow_nan=False, allow_infinity=False)
        ),
        "range_increment_ft": st.integers(1, 200),
    },
    optional={"weapon": st.booleans(), "creature": st.booleans()},
)

bodies = st.fixed_dictionaries(
    {
        "object": st.one_of(
            st.sampled_from(["javelin", "discus", "stone", "halfling", "small-boulder", "log"]),
            custom_object,
        ),
        "competitors": competitors(),
    },
    optional={
        "mode": st.sampled_from(["distance", "caber", "precision", "halfling-toss"]),
        "far_shot_doubles": st.sampled_from(["check", "die"]),
        "into_wall": st.booleans(),
        "max_series": st.integers(1, 100),
        "seed": st.integers(0, 2**63 - 1),
    },
)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=bodies)
def test_any_body_resolves_or_is_422_never_5xx(client: TestClient, body: dict[str, Any]) -> None:
    response = post(client, body)
    assert response.status_code in (200, 422), response.text
    if response.status_code == 422:
        assert_problem(response, 422)
    else:
        result = response.json()
        assert set(result) >= TOP_KEYS
        assert result["tie"] == (len(result["winners"]) > 1)
        assert [c["name"] for c in result["competitors"]] == [
            c["name"].strip() for c in body["competitors"]
        ]
        for entry in result["competitors"]:
            assert set(entry) >= COMPETITOR_KEYS
            assert entry["penalty"] in (0, -3, -6)
