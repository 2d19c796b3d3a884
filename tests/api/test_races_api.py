"""Races through HTTP (docs/api.md#races, docs/rules.md#races), on SQLite and PostgreSQL.

Every die is supplied unless a test is about server dice; runners have speed 0 (no speed bonus)
unless the speed is what the test is about, so totals are the die plus the named modifiers.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import Session, assert_problem, bearer

URL = "/v1/races"

Rolls = dict[str, dict[str, Any]]


# --- helpers --------------------------------------------------------------------------------


def runner(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "speed": 0, **fields}


def course(*increments: dict[str, Any]) -> dict[str, Any]:
    return {"increments": list(increments)}


STRENGTH: dict[str, Any] = {"check": "strength"}


class Race(Session):
    """A race created through the API."""

    def __init__(self, client: TestClient, body: dict[str, Any]) -> None:
        super().__init__(client, "races", body)

    def play(self, rolls: Rolls | None = None) -> dict[str, Any]:
        """Play one increment; the round record."""
        response = self.post_round(rolls)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        return dict(answer["round"])


def new_race(
    client: TestClient, race_course: Any, *competitors: dict[str, Any], **options: Any
) -> Race:
    return Race(client, {"course": race_course, "competitors": list(competitors), **options})


def totals(record: dict[str, Any]) -> dict[str, int | None]:
    return {name: line["total"] for name, line in record["competitors"].items()}


def gains(record: dict[str, Any]) -> dict[str, int]:
    return {name: line["gained"] for name, line in record["competitors"].items()}


def checks(record: dict[str, Any], name: str) -> list[tuple[str, int, int | None, bool | None]]:
    """(kind, total, dc, success) of every check `name` made."""
    return [
        (check["kind"], check["total"], check["dc"], check["success"])
        for check in record["competitors"][name]["checks"]
    ]


# --- creation and the session ---------------------------------------------------------------


def test_create_answers_201_with_location_etag_tokens_and_the_start(
    store_client: TestClient,
) -> None:
    body = {"course": "dash", "competitors": [runner("Ann"), runner("Bob", speed=40)]}
    response = store_client.post(URL, json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    assert response.headers["location"] == f"{URL}/{created['id']}"
    assert response.headers["etag"] == '"1"'
    assert created["kind"] == "races"
    assert created["status"] == "active"
    assert created["version"] == 1
    assert created["round"] == 0
    assert created["result"] is None
    assert created["state"] == {
        "increment": 0,
        "of": 2,
        "ds": {"Ann": 0, "Bob": 0},
        "standing": {"Ann": "racing", "Bob": "racing"},
        "damage": {"Ann": 0, "Bob": 0},
        "flags": {"Ann": [], "Bob": []},
        "pacing": {"Ann": "normal", "Bob": "normal"},
    }
    assert set(created["tokens"]) == {"gm", "parties"}
    assert set(created["tokens"]["parties"]) == {"Ann", "Bob"}
    assert created["config"]["course"] == "dash"
    assert created["config"]["competitors"][1]["speed"] == 40
    assert created["config"]["max_retries"] == 5
    assert created["config"]["endurance_rule"] is True
    assert created["config"]["damage_instead_of_forfeit"] is False
    assert created["config"]["speed_bonus"] == "increment"
    assert created["config"]["pacing_rule"] == "safe-increments"

    got = store_client.get(response.headers["location"], headers=bearer(created["tokens"]["gm"]))
    assert got.status_code == 200
    assert got.headers["etag"] == '"1"'
    session = got.json()
    assert "tokens" not in session
    assert session["state"] == created["state"]
    assert session["summary"] == "Race (dash): increment 0 of 2 done; Ann 0, Bob 0."
    # A racer's own token reads the race.
    ann_token = created["tokens"]["parties"]["Ann"]
    ann = store_client.get(response.headers["location"], headers=bearer(ann_token))
    assert ann.status_code == 200


@pytest.mark.parametrize(("preset", "count"), [("dash", 2), ("typical", 10), ("marathon", 20)])
def test_foot_race_presets_are_that_many_strength_increments(
    store_client: TestClient, preset: str, count: int
) -> None:
    race = new_race(store_client, preset, runner("Ann"))
    increments = race.created["config"]["increments"]
    assert len(increments) == count
    assert race.created["state"]["of"] == count
    assert all(
        increment
        == {
            "check": "strength",
            "dc": None,
            "on_fail": None,
            "drown_margin": 5,
            "modifier": 0,
            "mounted": False,
            "obstacle": None,
        }
        for increment in increments
    )


def increment(check: str, **fields: Any) -> dict[str, Any]:
    """A normalised increment as the session's config spells it out."""
    return {
        "check": check,
        "dc": None,
        "on_fail": None,
        "drown_margin": 5,
        "modifier": 0,
        "mounted": False,
        "obstacle": None,
        **fields,
    }


def obstacle(
    kind: str, check: str, dc: int, *, retry: bool = False, damage: str | None = None
) -> dict[str, Any]:
    return {"kind": kind, "check": check, "dc": dc, "retry": retry, "damage": damage}


# The Dakrothian marathon's table (docs/rules.md#race-presets), increment by increment.
DAKROTHIAN_MARATHON = [
    increment("strength"),
    increment("strength"),
    increment("strength", obstacle=obstacle("obstacle", "jump", 15, retry=True, damage="3d6")),
    increment("climb", dc=14, on_fail="retry"),
    increment("climb", dc=14, on_fail="retry"),
    increment("climb", dc=14, on_fail="retry"),
    increment("strength"),
    increment("strength", obstacle=obstacle("hazard", "jump", 12, damage="3d6")),
    increment("swim", dc=15, on_fail="stall"),
    increment("swim", dc=15, on_fail="stall"),
    increment("swim", dc=15, on_fail="stall"),
    increment("swim", dc=15, on_fail="stall", modifier=-1),
    increment("swim", dc=15, on_fail="stall", modifier=-2),
    increment("strength"),
    increment("strength"),
    increment("strength", obstacle=obstacle("hazard", "balance", 12)),
    increment("strength"),
    increment("strength"),
    increment("strength", mounted=True),
    increment("strength", mounted=True, obstacle=obstacle("obstacle", "jump", 18, damage="4d6")),
]


def test_the_dakrothian_marathon_is_rules_tables_twenty_increments(
    store_client: TestClient,
) -> None:
    horse = {"strength_mod": 4, "speed": 50}
    race = new_race(store_client, "dakrothian-marathon", runner("Ann", mount=horse))
    config = race.created["config"]
    assert config["course"] == "dakrothian-marathon"
    assert config["increments"] == DAKROTHIAN_MARATHON
    assert race.created["state"]["of"] == 20
    # The same course given as a list is the same race.
    custom = new_race(store_client, {"increments": DAKROTHIAN_MARATHON}, runner("Ann", mount=horse))
    assert custom.created["config"]["increments"] == DAKROTHIAN_MARATHON


def test_a_mounted_course_needs_a_mount_for_everybody(store_client: TestClient) -> None:
    response = store_client.post(
        URL,
        json={
            "course": "dakrothian-marathon",
            "competitors": [runner("Ann", mount={"strength_mod": 4, "speed": 50}), runner("Bob")],
        },
    )
    assert_problem(response, 422, ["body", "competitors", 1, "mount"])


# --- the increment check --------------------------------------------------------------------


def test_the_increment_check_adds_speed_mods_run_and_pacing(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(
            STRENGTH,
            {"check": "swim"},
            {"check": "climb"},
            {"check": "jump"},
            {"check": "strength", "modifier": -2},
        ),
        # +2 per full 10 ft; the check's modifier, looked up case-insensitively.
        {"name": "Ann", "speed": 30, "mods": {"Strength": 2, "swim": 1}},
        # Speeds per movement: land for strength and jump, swim, climb; else `speed` (25: +4).
        {"name": "Bob", "speed": 25, "speeds": {"land": 40, "swim": 15, "climb": 5}},
        # Run: +2 on foot-race (strength) checks only.
        {"name": "Cid", "speed": 30, "feats": ["Run"]},
        # Sprinting +2, pacing -2, on every increment check.
        {"name": "Dee", "speed": 30, "pacing": "sprint"},
        {"name": "Eve", "speed": 30, "pacing": "pace"},
        {"name": "Fay", "speed": 25, "speeds": {"swim": 10}},
    )
    everybody = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
    expected = [
        {"Ann": 18, "Bob": 18, "Cid": 18, "Dee": 18, "Eve": 14, "Fay": 14},
        {"Ann": 17, "Bob": 12, "Cid": 16, "Dee": 18, "Eve": 14, "Fay": 12},
        {"Ann": 16, "Bob": 10, "Cid": 16, "Dee": 18, "Eve": 14, "Fay": 14},
        {"Ann": 16, "Bob": 18, "Cid": 16, "Dee": 18, "Eve": 14, "Fay": 14},
        {"Ann": 16, "Bob": 16, "Cid": 16, "Dee": 16, "Eve": 12, "Fay": 12},
    ]
    for number, totals_expected in enumerate(expected, start=1):
        record = race.play({name: {"check": 10} for name in everybody})
        assert record["number"] == number
        assert totals(record) == totals_expected
        assert gains(record) == totals_expected
    session = race.session()
    ds = {name: sum(row[name] for row in expected) for name in everybody}
    assert session["state"]["ds"] == ds
    assert ds["Dee"] == 88
    assert session["status"] == "finished"
    assert session["result"]["winners"] == ["Dee"]
    assert session["result"]["tie"] is False
    assert record["finished"] is True
    assert record["winners"] == ["Dee"]


@pytest.mark.parametrize(
    ("ride_mod", "ride_die", "bonus"),
    [(0, 9, 0), (0, 10, 2), (5, 15, 4), (9, 20, 4), (10, 20, 6), (29, 1, 6)],
)
def test_mounted_increments_use_the_mount_and_the_ride_bonus(
    store_client: TestClient, ride_mod: int, ride_die: int, bonus: int
) -> None:
    race = new_race(
        store_client,
        course({"check": "strength", "mounted": True}),
        {
            "name": "Ann",
            "speed": 50,
            "mods": {"ride": ride_mod, "strength": 5},
            "feats": ["run"],
            "mount": {"name": "Bess", "strength_mod": 3, "speed": 60},
        },
    )
    record = race.play({"Ann": {"ride": ride_die, "check": 10}})
    # The mount's Strength 3 and speed 60 (+12), the Ride bonus; not the rider's Strength or Run.
    assert totals(record) == {"Ann": 10 + 3 + 12 + bonus}
    assert checks(record, "Ann") == [
        ("ride", ride_die + ride_mod, None, None),
        ("increment", 10 + 3 + 12 + bonus, None, None),
    ]
    assert [(roll["who"], roll["purpose"]) for roll in record["rolls"]] == [
        ("Ann", "ride"),
        ("Ann", "check"),
    ]


def test_a_race_of_mounted_and_foot_increments(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(STRENGTH, {"check": "strength", "mounted": True, "modifier": 1}),
        {
            "name": "Ann",
            "speed": 30,
            "pacing": "sprint",
            "mods": {"ride": 4},
            "mount": {"strength_mod": 2, "speed": 45},
        },
    )
    assert totals(race.play({"Ann": {"check": 5}})) == {"Ann": 5 + 6 + 2}
    # Mounted: Strength 2, speed 45 (+8), Ride 6 + 4 = 10 (+2), modifier +1, sprinting +2.
    assert totals(race.play({"Ann": {"ride": 6, "check": 5}})) == {"Ann": 5 + 2 + 8 + 2 + 1 + 2}


# --- increments with a DC -------------------------------------------------------------------


def test_dc_increments_retry_or_stall_and_flag_drowning(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(
            {"check": "climb", "dc": 14, "on_fail": "retry"},
            {"check": "swim", "dc": 15, "on_fail": "stall"},
            {"check": "swim", "dc": 15, "on_fail": "stall", "drown_margin": 3},
        ),
        runner("Ann"),
        runner("Bob"),
    )
    climb = race.play({"Ann": {"check": 10, "obstacle": [14]}, "Bob": {"check": 14}})
    ann = climb["competitors"]["Ann"]
    # The failed climb is retried at once; the retry passes: 0 DS minus 10 for the retry.
    assert ann["gained"] == -10
    assert ann["total"] == 10
    assert ann["events"] == ["check-failed", "retry"]
    assert checks(climb, "Ann") == [("increment", 10, 14, False), ("retry", 14, 14, True)]
    assert climb["competitors"]["Bob"]["gained"] == 14

    swim = race.play({"Ann": {"check": 10}, "Bob": {"check": 11}})
    # Failing by 5 (the default drown_margin) or more: nothing added, and drowning.
    assert gains(swim) == {"Ann": 0, "Bob": 0}
    assert swim["competitors"]["Ann"]["events"] == ["check-failed", "drowning"]
    assert swim["competitors"]["Bob"]["events"] == ["check-failed"]
    assert swim["competitors"]["Ann"]["standing"] == "racing"
    state = race.session()["state"]
    assert state["flags"] == {"Ann": ["drowning"], "Bob": []}
    assert state["ds"] == {"Ann": -10, "Bob": 14}

    tunnel = race.play({"Ann": {"check": 15}, "Bob": {"check": 12}})
    # drown_margin 3: Bob fails by 3.
    assert gains(tunnel) == {"Ann": 15, "Bob": 0}
    assert tunnel["competitors"]["Bob"]["events"] == ["check-failed", "drowning"]
    session = race.session()
    assert session["state"]["flags"] == {"Ann": ["drowning"], "Bob": ["drowning"]}
    # Drowning swimmers stay in; Bob's 14 beats Ann's 5.
    assert session["result"]["winners"] == ["Bob"]


def test_a_failed_climb_forfeits_after_max_retries(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course({"check": "climb", "dc": 14}, STRENGTH),
        runner("Ann", mods={"climb": 2}),
        runner("Bob"),
        max_retries=2,
    )
    assert race.created["config"]["increments"][0]["on_fail"] == "retry"
    record = race.play({"Ann": {"check": 5, "obstacle": [6, 11]}, "Bob": {"check": 14}})
    ann = record["competitors"]["Ann"]
    assert ann["events"] == [
        "check-failed",
        "retry",
        "check-failed",
        "retry",
        "check-failed",
        "forfeited",
    ]
    assert ann["gained"] == -20
    assert ann["standing"] == "forfeited"
    assert checks(record, "Ann") == [
        ("increment", 7, 14, False),
        ("retry", 8, 14, False),
        ("retry", 13, 14, False),
    ]
    # A forfeited runner makes no more checks: dice for her are not used, so refused.
    assert_problem(
        race.post_round({"Ann": {"check": 10}, "Bob": {"check": 10}}),
        422,
        ["body", "rolls", "Ann", "check"],
    )
    last = race.play({"Bob": {"check": 1}})
    assert last["competitors"]["Ann"] == {
        "gained": 0,
        "total": None,
        "ds": -20,
        "standing": "forfeited",
        "events": [],
        "checks": [],
    }
    # Bob's 15 wins; Ann's DS does not count.
    assert last["winners"] == ["Bob"]


# --- obstacles and hazards ------------------------------------------------------------------


def test_obstacles_damage_retries_and_forfeits(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(
            {
                "check": "strength",
                "obstacle": {
                    "kind": "obstacle",
                    "check": "jump",
                    "dc": 15,
                    "retry": True,
                    "damage": "2d6",
                },
            },
            {"check": "strength", "obstacle": {"kind": "obstacle", "check": "jump", "dc": 18}},
        ),
        runner("Ann"),
        runner("Bob", mods={"jump": 3}),
        runner("Cid"),
        max_retries=1,
    )
    first = race.play(
        {
            # Fails (damage 3 + 4), retries at 10 DS and passes: goes on, adds 0.
            "Ann": {"obstacle": [10, 15], "damage": [3, 4]},
            # Jump 12 + 3 passes: the increment check as usual.
            "Bob": {"obstacle": 12, "check": 12},
            # Fails, and fails her max_retries (1) retry: damage both times, forfeits.
            "Cid": {"obstacle": [1, 2], "damage": [1, 1, 2, 2]},
        }
    )
    ann, bob, cid = (first["competitors"][name] for name in ("Ann", "Bob", "Cid"))
    assert ann["events"] == ["obstacle-failed", "damage 7", "retry"]
    assert (ann["gained"], ann["total"], ann["standing"]) == (-10, None, "racing")
    assert checks(first, "Ann") == [("obstacle", 10, 15, False), ("obstacle", 15, 15, True)]
    assert (bob["gained"], bob["total"]) == (12, 12)
    assert cid["events"] == [
        "obstacle-failed",
        "damage 2",
        "retry",
        "obstacle-failed",
        "damage 4",
        "forfeited",
    ]
    assert (cid["gained"], cid["standing"]) == (-10, "forfeited")
    damage_rolls = [roll for roll in first["rolls"] if roll["purpose"] == "damage"]
    assert [
        (roll["who"], roll["dice"], roll["values"], roll["source"]) for roll in damage_rolls
    ] == [
        ("Ann", "2d6", [3, 4], "supplied"),
        ("Cid", "2d6", [1, 1], "supplied"),
        ("Cid", "2d6", [2, 2], "supplied"),
    ]
    state = race.session()["state"]
    assert state["damage"] == {"Ann": 7, "Bob": 0, "Cid": 6}
    assert state["standing"] == {"Ann": "racing", "Bob": "racing", "Cid": "forfeited"}

    # No retry: a failed obstacle forfeits at once.
    second = race.play({"Ann": {"obstacle": 17}, "Bob": {"obstacle": 15, "check": 9}})
    assert second["competitors"]["Ann"]["events"] == ["obstacle-failed", "forfeited"]
    assert second["competitors"]["Ann"]["standing"] == "forfeited"
    assert second["finished"] is True
    assert second["winners"] == ["Bob"]
    result = race.session()["result"]
    assert result["winners"] == ["Bob"]
    assert result["ds"] == {"Ann": -10, "Bob": 21, "Cid": -10}


def test_damage_instead_of_forfeit(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(
            {
                "check": "strength",
                "obstacle": {"kind": "obstacle", "check": "jump", "dc": 18, "damage": "1d4+2"},
            }
        ),
        runner("Ann"),
        damage_instead_of_forfeit=True,
    )
    record = race.play({"Ann": {"obstacle": 1, "damage": [3], "check": 11}})
    ann = record["competitors"]["Ann"]
    # The failed obstacle costs only its damage: no retry, no forfeit, the check as usual.
    assert ann["events"] == ["obstacle-failed", "damage 5"]
    assert (ann["gained"], ann["total"], ann["standing"]) == (11, 11, "racing")
    assert race.session()["state"]["damage"] == {"Ann": 5}
    assert record["winners"] == ["Ann"]


def test_hazards_add_nothing_on_failure_and_deal_damage(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(
            {
                "check": "strength",
                "modifier": 1,
                "obstacle": {"kind": "hazard", "check": "balance", "dc": 12, "damage": "1d6"},
            },
            STRENGTH,
        ),
        runner("Ann", mods={"balance": 1}),
        runner("Bob"),
    )
    record = race.play({"Ann": {"obstacle": 9, "damage": [4]}, "Bob": {"obstacle": 11, "check": 7}})
    ann = record["competitors"]["Ann"]
    # Balance 9 + 1 + the increment's modifier 1 = 11 < 12: 0 DS, damage, still in.
    assert ann["events"] == ["hazard-failed", "damage 4"]
    assert (ann["gained"], ann["total"], ann["standing"]) == (0, None, "racing")
    assert checks(record, "Ann") == [("hazard", 11, 12, False)]
    # Bob's 11 + 1 passes; his check has the modifier too.
    assert gains(record) == {"Ann": 0, "Bob": 8}
    state = race.session()["state"]
    assert state["damage"] == {"Ann": 4, "Bob": 0}
    final = race.play({"Ann": {"check": 20}, "Bob": {"check": 11}})
    assert final["winners"] == ["Ann"]


def test_obstacle_damage_must_be_dice_notation(store_client: TestClient) -> None:
    bad = store_client.post(
        URL,
        json={
            "course": course(
                STRENGTH,
                {
                    "check": "strength",
                    "obstacle": {"kind": "hazard", "check": "jump", "dc": 12, "damage": "3d6"},
                },
                {
                    "check": "strength",
                    "obstacle": {"kind": "obstacle", "check": "jump", "dc": 12, "damage": "3q6"},
                },
                {
                    "check": "strength",
                    "obstacle": {"kind": "hazard", "check": "jump", "dc": 12, "damage": "1/0"},
                },
            ),
            "competitors": [runner("Ann")],
        },
    )
    problem = assert_problem(bad, 422, ["body", "course", "increments", 2, "obstacle", "damage"])
    locs = [error["loc"] for error in problem["errors"]]
    assert locs == [
        ["body", "course", "increments", 2, "obstacle", "damage"],
        ["body", "course", "increments", 3, "obstacle", "damage"],
    ]
    too_many_dice = store_client.post(
        URL,
        json={
            "course": course(
                {
                    "check": "strength",
                    "obstacle": {"kind": "hazard", "check": "jump", "dc": 12, "damage": "1001d6"},
                }
            ),
            "competitors": [runner("Ann")],
        },
    )
    assert_problem(too_many_dice, 422, ["body", "course", "increments", 0, "obstacle", "damage"])


# --- long races -----------------------------------------------------------------------------


def test_long_race_constitution_checks(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(STRENGTH, STRENGTH, STRENGTH, STRENGTH),
        # Con 2: two safe increments, then Constitution (d20 - 4) vs 2 x increments raced.
        runner("Ann", con_score=2),
        # The Endurance feat: +4 on the Constitution check.
        runner("Bob", con_score=2, feats=["endurance"]),
        # Pacing: 2 more safe increments (and -2 on the check).
        runner("Cid", con_score=2, pacing="pace"),
        # Sprinting: 2 fewer; con_mod given is used as given.
        runner("Dee", con_score=4, con_mod=2, pacing="sprint"),
        # No con_score: never checks.
        runner("Eve"),
    )
    names = ("Ann", "Bob", "Cid", "Dee", "Eve")
    for _ in range(2):
        record = race.play({name: {"check": 10} for name in names})
        assert all(checks(record, name)[0][0] == "increment" for name in names)
    third = race.play(
        {
            "Ann": {"constitution": 7},  # 7 - 4 = 3 < DC 4: rests
            "Bob": {"constitution": 4, "check": 10},  # 4 - 4 + 4 = 4 >= 4
            "Cid": {"check": 10},
            "Dee": {"constitution": 2, "check": 10},  # 2 + 2 = 4 >= 4
            "Eve": {"check": 10},
        }
    )
    assert third["competitors"]["Ann"]["events"] == ["rested"]
    assert (third["competitors"]["Ann"]["gained"], third["competitors"]["Ann"]["total"]) == (
        0,
        None,
    )
    assert checks(third, "Ann") == [("constitution", 3, 4, False)]
    assert checks(third, "Bob") == [("constitution", 4, 4, True), ("increment", 10, None, None)]
    assert checks(third, "Dee") == [("constitution", 4, 4, True), ("increment", 12, None, None)]
    assert gains(third) == {"Ann": 0, "Bob": 10, "Cid": 8, "Dee": 12, "Eve": 10}
    fourth = race.play(
        {
            "Ann": {"constitution": 20, "check": 10},  # 16 >= DC 6
            "Bob": {"constitution": 1},  # 1 < 6: rests
            "Cid": {"check": 10},  # 4 safe increments when pacing: still no check
            "Dee": {"constitution": 3},  # 5 < 6
            "Eve": {"check": 10},
        }
    )
    assert checks(fourth, "Ann") == [("constitution", 16, 6, True), ("increment", 10, None, None)]
    assert [name for name, line in fourth["competitors"].items() if "rested" in line["events"]] == [
        "Bob",
        "Dee",
    ]


def test_endurance_rule_false_turns_the_checks_off(store_client: TestClient) -> None:
    race = new_race(store_client, "dash", runner("Ann", con_score=0), endurance_rule=False)
    assert race.created["config"]["endurance_rule"] is False
    assert totals(race.play({"Ann": {"check": 5}})) == {"Ann": 5}
    # A Constitution die would not be used: refused, nothing played.
    assert_problem(
        race.post_round({"Ann": {"constitution": 20, "check": 5}}),
        422,
        ["body", "rolls", "Ann", "constitution"],
    )
    assert race.session()["round"] == 1
    assert totals(race.play({"Ann": {"check": 6}})) == {"Ann": 6}


def test_mounts_tire_by_their_own_constitution_unless_not_living(
    store_client: TestClient,
) -> None:
    mounted = {"check": "strength", "mounted": True}
    race = new_race(
        store_client,
        course(STRENGTH, STRENGTH, mounted, mounted),
        # The rider's Con 1 does not matter on mounted increments; the horse's Con 1 does,
        # counting only the mounted increments raced.
        runner("Ann", con_score=1, mount={"strength_mod": 0, "speed": 0, "con_score": 1}),
        runner(
            "Bob",
            mount={"strength_mod": 0, "speed": 0, "con_score": 1, "con_mod": 0, "living": False},
        ),
    )
    race.play({"Ann": {"check": 10}, "Bob": {"check": 10}})
    second = race.play({"Ann": {"constitution": 20, "check": 10}, "Bob": {"check": 10}})
    assert checks(second, "Ann")[0] == ("constitution", 15, 2, True)
    third = race.play({"Ann": {"ride": 1, "check": 10}, "Bob": {"ride": 1, "check": 10}})
    # The horse's first mounted increment is safe.
    assert [check[0] for check in checks(third, "Ann")] == ["ride", "increment"]
    fourth = race.play({"Ann": {"constitution": 6}, "Bob": {"ride": 1, "check": 10}})
    # Con 1 (mod -5): 6 - 5 = 1 < DC 2: the horse rests; the golem horse never tires.
    assert checks(fourth, "Ann") == [("constitution", 1, 2, False)]
    assert fourth["competitors"]["Ann"]["events"] == ["rested"]
    assert [check[0] for check in checks(fourth, "Bob")] == ["ride", "increment"]


# --- winners, ties, resolve -----------------------------------------------------------------


def test_equal_highest_ds_is_a_tie(store_client: TestClient) -> None:
    race = new_race(store_client, "dash", runner("Ann"), runner("Bob"), runner("Cid"))
    race.play({"Ann": {"check": 12}, "Bob": {"check": 8}, "Cid": {"check": 3}})
    last = race.play({"Ann": {"check": 8}, "Bob": {"check": 12}, "Cid": {"check": 2}})
    assert last["finished"] is True
    assert last["winners"] == ["Ann", "Bob"]
    session = race.session()
    assert session["result"]["tie"] is True
    assert session["result"]["winners"] == ["Ann", "Bob"]
    assert "Tie between Ann and Bob at DS 20" in last["summary"]
    assert session["summary"] == "Race (dash) over: tie between Ann, Bob; Ann 20, Bob 20, Cid 5."


def test_a_race_everybody_forfeits_ends_without_winners(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(
            {"check": "strength", "obstacle": {"kind": "obstacle", "check": "jump", "dc": 20}},
            STRENGTH,
        ),
        runner("Ann"),
        runner("Bob"),
    )
    record = race.play({"Ann": {"obstacle": 1}, "Bob": {"obstacle": 19}})
    assert record["finished"] is True
    assert record["winners"] == []
    session = race.session()
    assert session["status"] == "finished"
    assert session["state"]["increment"] == 1
    assert_problem(race.post_round(), 409)


def test_resolve_runs_the_race_to_the_end_with_server_dice(store_client: TestClient) -> None:
    competitors = [
        {"name": "Ann", "speed": 30, "mods": {"strength": 3}},
        {"name": "Bob", "speed": 40, "feats": ["run"], "con_score": 3},
        {"name": "Cid", "speed": 20, "pacing": "sprint", "con_score": 4},
    ]
    race = Race(store_client, {"course": "typical", "competitors": competitors, "seed": 42})
    race.play({"Ann": {"check": 20}})  # some dice supplied, the rest from the seed
    response = store_client.post(f"{race.url}/resolve", headers=bearer(race.gm))
    assert response.status_code == 200, response.text
    answer = response.json()
    # The answer lists the last few rounds; all nine played are a GET away.
    assert answer["played"] == 9
    listed = store_client.get(f"{race.url}/rounds?after=1", headers=bearer(race.gm))
    rounds = listed.json()["rounds"]
    assert answer["rounds"] == rounds[-5:]
    assert [record["number"] for record in rounds] == list(range(2, 11))
    assert all(roll["source"] == "rolled" for record in rounds for roll in record["rolls"])
    session = answer["session"]
    assert session["status"] == "finished"
    assert session["round"] == 10
    assert session["version"] == 3
    assert session["state"]["increment"] == 10
    ds = session["state"]["ds"]
    best = max(ds.values())
    assert session["result"]["winners"] == [name for name in ds if ds[name] == best]
    assert rounds[-1]["finished"] is True
    assert rounds[-1]["winners"] == session["result"]["winners"]
    # Each DS is the sum of what was gained.
    stored = store_client.get(f"{race.url}/rounds", headers=bearer(race.gm)).json()["rounds"]
    assert [record["number"] for record in stored] == list(range(1, 11))
    for name in ds:
        assert ds[name] == sum(record["competitors"][name]["gained"] for record in stored)
    # The same seeded race resolves the same way.
    again = Race(store_client, {"course": "typical", "competitors": competitors, "seed": 42})
    again.play({"Ann": {"check": 20}})
    replay = store_client.post(f"{again.url}/resolve", headers=bearer(again.gm)).json()
    assert replay["session"]["state"] == session["state"]
    replayed = store_client.get(f"{again.url}/rounds?after=1", headers=bearer(again.gm))
    assert [record["rolls"] for record in replayed.json()["rounds"]] == [
        record["rolls"] for record in rounds
    ]
    assert_problem(store_client.post(f"{race.url}/resolve", headers=bearer(race.gm)), 409)
    assert_problem(race.post_round(), 409)


def test_resolve_a_dakrothian_marathon(store_client: TestClient) -> None:
    horse = {"strength_mod": 4, "speed": 50, "con_score": 14}
    racers = [
        {
            "name": name,
            "speed": 30,
            "con_score": 12,
            "mods": {"climb": 4, "swim": 4, "jump": 4},
            "mount": horse,
        }
        for name in ("Ann", "Bob", "Cid")
    ]
    race = Race(store_client, {"course": "dakrothian-marathon", "competitors": racers, "seed": 7})
    response = store_client.post(f"{race.url}/resolve", headers=bearer(race.gm))
    assert response.status_code == 200, response.text
    session = response.json()["session"]
    assert session["status"] == "finished"
    assert 1 <= session["round"] <= 20
    racing = [
        name for name, standing in session["state"]["standing"].items() if standing == "racing"
    ]
    if racing:
        best = max(session["state"]["ds"][name] for name in racing)
        assert session["result"]["winners"] == [
            name for name in racing if session["state"]["ds"][name] == best
        ]
    else:
        assert session["result"]["winners"] == []


# --- invalid input, tokens ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"course": "sprint", "competitors": [runner("Ann")]}, ["body", "course"]),
        ({"course": "dash", "competitors": []}, ["body", "competitors"]),
        (
            {"course": "dash", "competitors": [runner(f"R{i}") for i in range(65)]},
            ["body", "competitors"],
        ),
        (
            {"course": course(*[STRENGTH] * 201), "competitors": [runner("Ann")]},
            ["body", "course", "increments"],
        ),
        ({"course": course(), "competitors": [runner("Ann")]}, ["body", "course", "increments"]),
        (
            {
                "course": course(STRENGTH, {"check": "swim", "dc": "x"}),
                "competitors": [runner("A")],
            },
            ["body", "course", "increments", 1, "dc"],
        ),
        (
            {"course": course({"check": "swim", "on_fail": "stall"}), "competitors": [runner("A")]},
            ["body", "course", "increments", 0, "on_fail"],
        ),
        (
            {"course": "dash", "competitors": [runner("Ann"), runner("Ann")]},
            ["body", "competitors", 1, "name"],
        ),
        (
            {"course": "dash", "competitors": [runner("Ann", pacing="jog")]},
            ["body", "competitors", 0, "pacing"],
        ),
        (
            {"course": "dash", "competitors": [runner("Ann")], "max_retries": 101},
            ["body", "max_retries"],
        ),
        (
            {"course": "dash", "competitors": [runner("Ann")], "max_retries": -1},
            ["body", "max_retries"],
        ),
        (
            {"course": "dash", "competitors": [runner("Ann")], "speed_bonus": "any-roll"},
            ["body", "speed_bonus"],
        ),
        (
            {"course": "dash", "competitors": [runner("Ann")], "pacing_rule": "constitution"},
            ["body", "pacing_rule"],
        ),
        ({"course": "dash", "competitors": [runner("Ann")], "laps": 3}, ["body", "laps"]),
    ],
)
def test_invalid_races_are_422(store_client: TestClient, body: Any, loc: list[Any]) -> None:
    assert_problem(store_client.post(URL, json=body), 422, loc)


def test_two_hundred_increments_are_allowed(store_client: TestClient) -> None:
    race = new_race(store_client, course(*[STRENGTH] * 200), runner("Ann"))
    assert race.created["state"]["of"] == 200


def test_bad_supplied_dice_are_422_and_change_nothing(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course(
            {
                "check": "strength",
                "obstacle": {"kind": "hazard", "check": "jump", "dc": 30, "damage": "2d6"},
            },
            STRENGTH,
        ),
        runner("Ann"),
    )
    cases: list[tuple[Rolls, list[Any]]] = [
        ({"Ann": {"obstacle": 21}}, ["body", "rolls", "Ann", "obstacle"]),
        ({"Ann": {"obstacle": [0]}}, ["body", "rolls", "Ann", "obstacle", 0]),
        ({"Ann": {"hide": 3}}, ["body", "rolls", "Ann", "hide"]),
        ({"Zed": {"check": 3}}, ["body", "rolls", "Zed"]),
        ({"Ann": {"obstacle": 4, "damage": [7, 1]}}, ["body", "rolls", "Ann", "damage"]),
        ({"Ann": {"obstacle": 4, "damage": [1]}}, ["body", "rolls", "Ann", "damage"]),
        ({"Ann": {"obstacle": 4, "damage": [1, 2, 3]}}, ["body", "rolls", "Ann", "damage"]),
        ({"Ann": {"obstacle": [4, 5]}}, ["body", "rolls", "Ann", "obstacle"]),
        ({"Ann": {"constitution": 5}}, ["body", "rolls", "Ann", "constitution"]),
    ]
    for rolls, loc in cases:
        assert_problem(race.post_round(rolls), 422, loc)
    session = race.session()
    assert (session["version"], session["round"], session["state"]["increment"]) == (1, 0, 0)
    listed = store_client.get(f"{race.url}/rounds", headers=bearer(race.gm)).json()
    assert listed == {"rounds": []}
    record = race.play({"Ann": {"obstacle": 4, "damage": [6, 1], "check": 5}})
    assert record["competitors"]["Ann"]["events"] == ["hazard-failed", "damage 7"]
    # The failed hazard ends her increment: the check die she rolled is reported, not refused.
    assert record["unused"] == [
        {"who": "Ann", "purpose": "check", "values": [5], "why": "not-needed"}
    ]


def test_tokens_and_ids(store_client: TestClient) -> None:
    race = new_race(store_client, "dash", runner("Ann"), runner("Bob"))
    other = new_race(store_client, "dash", runner("Cid"))
    ann_token = race.created["tokens"]["parties"]["Ann"]
    assert_problem(store_client.post(f"{race.url}/rounds", json={}), 401)
    assert_problem(store_client.get(race.url), 401)
    assert_problem(store_client.get(f"{URL}/nope", headers=bearer(race.gm)), 404)
    assert_problem(store_client.get(race.url, headers=bearer(other.gm)), 404)
    assert_problem(race.post_round(token=other.gm), 404)
    # A racer's token reads, but may not play, resolve or delete.
    assert_problem(race.post_round(token=ann_token), 403)
    assert_problem(store_client.post(f"{race.url}/resolve", headers=bearer(ann_token)), 403)
    assert_problem(store_client.delete(race.url, headers=bearer(ann_token)), 403)
    assert race.session()["version"] == 1
    stale = store_client.post(
        f"{race.url}/rounds", json={}, headers={**bearer(race.gm), "If-Match": '"7"'}
    )
    assert_problem(stale, 412)
    assert store_client.delete(race.url, headers=bearer(race.gm)).status_code == 204
    assert_problem(store_client.get(race.url, headers=bearer(race.gm)), 404)


def test_summary_lines_and_text_plain(store_client: TestClient) -> None:
    race = new_race(store_client, "dash", {"name": "Ann", "speed": 30}, runner("Bob"))
    record = race.play({"Ann": {"check": 12}, "Bob": {"check": 3}})
    assert record["summary"] == "Round 1: Increment 1/2 (strength): Ann +18 (DS 18); Bob +3 (DS 3)."
    response = store_client.post(
        f"{race.url}/rounds",
        json={"rolls": {"Ann": {"check": 1}, "Bob": {"check": 1}}},
        headers={**bearer(race.gm), "Accept": "text/plain"},
    )
    assert response.status_code == 200
    assert response.text == (
        "Round 2: Increment 2/2 (strength): Ann +7 (DS 25); Bob +1 (DS 4). "
        "Ann wins the race with DS 25.\n"
    )


# --- create-body checks moved here from tests/rules (the schema checks them now) ------------


def _obstacle_course(**obstacle: Any) -> dict[str, Any]:
    return course({"check": "strength", "obstacle": obstacle})


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"competitors": [runner("Ann", speed=-5)]}, ["body", "competitors", 0, "speed"]),
        (
            {"competitors": [runner("Ann", speeds={"fly": 60})]},
            ["body", "competitors", 0, "speeds", "fly"],
        ),
        (
            {"competitors": [runner("Ann", mods={"Hide": 1, "hide": 2})]},
            ["body", "competitors", 0, "mods", "hide"],
        ),
        ({"competitors": [runner(" ")]}, ["body", "competitors", 0, "name"]),
        (
            {"course": course({"check": "swim", "dc": 15, "drown_margin": 0})},
            ["body", "course", "increments", 0, "drown_margin"],
        ),
        (
            {"course": course({"check": "swim", "on_fail": "sink", "dc": 3})},
            ["body", "course", "increments", 0, "on_fail"],
        ),
        (
            {"course": _obstacle_course(kind="pit", check="jump", dc=3)},
            ["body", "course", "increments", 0, "obstacle", "kind"],
        ),
        (
            {"course": _obstacle_course(kind="hazard", check="jump")},
            ["body", "course", "increments", 0, "obstacle", "dc"],
        ),
        (
            {"course": _obstacle_course(kind="hazard", check="jump", dc=3, damage="x" * 1001)},
            ["body", "course", "increments", 0, "obstacle", "damage"],
        ),
        (
            {"course": _obstacle_course(kind="hazard", check="jump", dc=3, retry=True)},
            ["body", "course", "increments", 0, "obstacle", "retry"],
        ),
        (
            {
                "course": course({"check": "swim", "mounted": True}),
                "competitors": [runner("Ann", mount={"strength_mod": 1, "speed": 40})],
            },
            ["body", "course", "increments", 0, "check"],
        ),
        ({"max_retries": -1}, ["body", "max_retries"]),
        ({"endurance_rule": "yes"}, ["body", "endurance_rule"]),
    ],
)
def test_more_invalid_races_are_422(
    store_client: TestClient, body: dict[str, Any], loc: list[Any]
) -> None:
    full = {"course": "dash", "competitors": [runner("Ann")], **body}
    assert_problem(store_client.post(URL, json=full), 422, loc)


def test_names_are_case_insensitive_and_defaults_derived(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        course({"check": "Swim"}, {"check": "swim", "dc": 10}, {"check": "jump", "dc": 10}),
        runner(
            "Ann",
            speed=30,
            speeds={"swim": 20},
            mods={"SWIM": 5},
            con_score=15,
            mount={"strength_mod": 2, "speed": 50, "con_score": 13},
        ),
    )
    config = race.created["config"]
    assert [increment["check"] for increment in config["increments"]] == ["swim"] * 2 + ["jump"]
    # With a dc but no on_fail, anything but a climb stalls.
    assert [increment["on_fail"] for increment in config["increments"]] == [None, "stall", "stall"]
    ann = config["competitors"][0]
    assert ann["mods"] == {"swim": 5}
    assert ann["con_mod"] == 2
    assert ann["mount"]["con_mod"] == 1
    assert totals(race.play({"Ann": {"check": 10}})) == {"Ann": 10 + 5 + 4}


# --- options where the source reads two ways --------------------------------------------------


def test_options_are_stored_and_shown_in_the_config(store_client: TestClient) -> None:
    race = new_race(
        store_client,
        "dash",
        runner("Ann"),
        speed_bonus="every-roll",
        pacing_rule="constitution-score",
        max_retries=None,
        damage_instead_of_forfeit=True,
    )
    for config in (race.created["config"], race.session()["config"]):
        assert config["speed_bonus"] == "every-roll"
        assert config["pacing_rule"] == "constitution-score"
        assert config["max_retries"] is None
        assert config["damage_instead_of_forfeit"] is True


def test_speed_bonus_every_roll_through_http(store_client: TestClient) -> None:
    # Speed 30 (+6); Jump DC 12 rolled 8: fails alone, passes with the speed bonus.
    wall = {"check": "strength", "obstacle": {"kind": "obstacle", "check": "jump", "dc": 12}}
    default = new_race(store_client, course(wall), runner("Ann", speed=30))
    record = default.play({"Ann": {"obstacle": 8}})
    assert checks(record, "Ann") == [("obstacle", 8, 12, False)]
    assert record["competitors"]["Ann"]["standing"] == "forfeited"
    every = new_race(store_client, course(wall), runner("Ann", speed=30), speed_bonus="every-roll")
    record = every.play({"Ann": {"obstacle": 8, "check": 10}})
    assert checks(record, "Ann") == [("obstacle", 14, 12, True), ("increment", 16, None, None)]


def test_pacing_rule_constitution_score_through_http(store_client: TestClient) -> None:
    # Con 10 sprinting, 9 increments: 8 safe either way, then DC 16 with 16 rolled.
    racer = runner("Ann", con_score=10, pacing="sprint")
    outcomes = []
    for rule in ("safe-increments", "constitution-score"):
        race = new_race(store_client, course(*[STRENGTH] * 9), racer, pacing_rule=rule)
        for _ in range(8):
            race.play({"Ann": {"check": 10}})
        rolls: Rolls = {"Ann": {"constitution": 16}}
        if rule == "safe-increments":
            rolls["Ann"]["check"] = 10
        record = race.play(rolls)
        outcomes.append(checks(record, "Ann")[0])
    assert outcomes == [("constitution", 16, 16, True), ("constitution", 15, 16, False)]


def test_a_hazard_with_damage_instead_of_forfeit_through_http(store_client: TestClient) -> None:
    hazard = {
        "check": "strength",
        "obstacle": {"kind": "hazard", "check": "balance", "dc": 12, "damage": "1d6"},
    }
    rolls: Rolls = {"Ann": {"obstacle": 3, "damage": [4], "check": 11}}
    slowed = new_race(store_client, course(hazard), runner("Ann"))
    record = slowed.play({"Ann": {"obstacle": 3, "damage": [4]}})
    assert gains(record) == {"Ann": 0}
    going_on = new_race(store_client, course(hazard), runner("Ann"), damage_instead_of_forfeit=True)
    record = going_on.play(rolls)
    assert record["competitors"]["Ann"]["events"] == ["hazard-failed", "damage 4"]
    assert (gains(record), going_on.session()["state"]["damage"]) == ({"Ann": 11}, {"Ann": 4})


def test_uncapped_retries_pass_when_a_die_passes(store_client: TestClient) -> None:
    climb = {"check": "climb", "dc": 15, "on_fail": "retry"}
    capped = new_race(store_client, course(climb), runner("Ann"))
    record = capped.play({"Ann": {"check": 1, "obstacle": [1] * 5}})
    assert record["competitors"]["Ann"]["standing"] == "forfeited"
    uncapped = new_race(store_client, course(climb), runner("Ann"), max_retries=None)
    record = uncapped.play({"Ann": {"check": 1, "obstacle": [1] * 7 + [15]}})
    ann = record["competitors"]["Ann"]
    assert (ann["standing"], ann["gained"], ann["events"].count("retry")) == ("racing", -80, 8)


def test_an_obstacle_no_retry_can_pass_forfeits_instead_of_sticking_the_race(
    store_client: TestClient,
) -> None:
    # DC 25 with a +0 jump: even a natural 20 falls short, so with no cap on retries Ann
    # forfeits at once (`impassable`) instead of retrying until the work limit; Bob, +6, can
    # pass it and races on. Server dice: the round is played, not refused.
    wall = {
        "check": "strength",
        "obstacle": {"kind": "obstacle", "check": "jump", "dc": 25, "retry": True},
    }
    race = new_race(
        store_client,
        course(wall, STRENGTH),
        runner("Ann"),
        runner("Bob", mods={"jump": 6}),
        max_retries=None,
        seed=3,
    )
    played = race.post_round()
    assert played.status_code == 200, played.text
    ann = played.json()["round"]["competitors"]["Ann"]
    assert ann["standing"] == "forfeited"
    assert ann["events"] == ["obstacle-failed", "impassable", "forfeited"]
    assert "Ann forfeited [obstacle-failed, impassable]" in played.json()["summary"]
    assert played.json()["session"]["state"]["standing"]["Bob"] == "racing"
    resolved = store_client.post(f"{race.url}/resolve", json={}, headers=bearer(race.gm))
    assert resolved.status_code == 200, resolved.text
    session = resolved.json()["session"]
    assert session["status"] == "finished"
    assert session["result"]["winners"] == ["Bob"]
