"""Chases through HTTP (docs/api.md#chases, docs/rules.md#chases), on SQLite and PostgreSQL.

Both sides have speed 0 (no speed bonus) unless the test says otherwise, so increment checks
total the die plus the named modifiers.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import Session, assert_problem, bearer

URL = "/v1/chases"
RECORD_KEYS = {
    "number",
    "lead_before",
    "tactic",
    "gains",
    "lead",
    "finished",
    "outcome",
    "rolls",
    "summary",
}

Rolls = dict[str, dict[str, Any]]
STRENGTH: dict[str, Any] = {"check": "strength"}


# --- helpers --------------------------------------------------------------------------------


def side(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "speed": 0, **fields}


class Chase(Session):
    """A chase created through the API."""

    def __init__(self, client: TestClient, body: dict[str, Any]) -> None:
        super().__init__(client, "chases", body)

    def play(
        self,
        rolls: Rolls | None = None,
        terrain: dict[str, Any] | None = None,
        tactic: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Play one increment; the round record."""
        body: dict[str, Any] = {"terrain": terrain or STRENGTH, "tactic": tactic}
        if rolls is not None:
            body["rolls"] = rolls
        response = self.post("rounds", body)
        assert response.status_code == 200, response.text
        record: dict[str, Any] = response.json()["round"]
        assert set(record) >= RECORD_KEYS
        return record


def new_chase(
    client: TestClient,
    start: dict[str, Any],
    escapee: dict[str, Any] | None = None,
    chaser: dict[str, Any] | None = None,
    **options: Any,
) -> Chase:
    body = {
        "escapee": escapee or side("Ralf"),
        "chaser": chaser or side("the guard"),
        "start": start,
        **options,
    }
    return Chase(client, body)


def lead(value: int) -> dict[str, Any]:
    return {"mode": "lead", "lead": value}


# --- the worked example (docs/rules.md#chase-increments) ------------------------------------


def test_the_ralf_example(store_client: TestClient) -> None:
    chase = new_chase(
        store_client,
        lead(12),
        {"name": "Ralf", "speed": 30, "mods": {"dexterity": 2, "hide": 5}},
        {"name": "the guard", "speed": 30, "mods": {"balance": 0, "spot": 2}},
        hazard_base_cost=0,
    )
    assert chase.created["state"] == {
        "lead": 12,
        "ds": {"Ralf": 12, "the guard": 0},
        "status_detail": None,
    }
    # A hazard with penalty 4: lead 12 -> 8 at once; Dexterity 16 + 2 - 4 = 14 creates it;
    # the guard's Balance 13 misses DC 10 + 4 and adds 0; Ralf's Strength check is 12.
    first = chase.play(
        {"Ralf": {"dexterity": 16, "check": 6}, "the guard": {"hazard": 13}},
        tactic={"kind": "hazard", "penalty": 4},
    )
    assert first["number"] == 1
    assert first["lead_before"] == 12
    tactic = first["tactic"]
    assert tactic["kind"] == "hazard"
    assert tactic["cost"] == 4
    assert first["lead_before"] - tactic["cost"] == 8
    assert tactic["created"] is True
    assert tactic["escapee_total"] == 14
    assert tactic["chaser_total"] == 13
    assert tactic["success"] is True
    assert first["gains"] == {"Ralf": 12, "the guard": 0}
    assert first["lead"] == 20
    assert first["lead"] == (
        first["lead_before"] - tactic["cost"] + first["gains"]["Ralf"] - first["gains"]["the guard"]
    )
    assert first["finished"] is False
    assert first["outcome"] is None
    assert [(roll["who"], roll["purpose"], roll["values"]) for roll in first["rolls"]] == [
        ("Ralf", "dexterity", [16]),
        ("the guard", "hazard", [13]),
        ("Ralf", "check", [6]),
    ]
    assert first["summary"].startswith("Round 1: ")
    assert first["summary"].endswith("lead 12 -> 20.")

    # Next increment, not flat: Hide 15 + 5 beats Spot 8 + 2 -> escaped by hiding.
    second = chase.play(
        {"Ralf": {"hide": 15}, "the guard": {"spot": 8}},
        terrain={"check": "strength", "flat": False},
        tactic={"kind": "hide"},
    )
    assert second["number"] == 2
    assert second["lead_before"] == 20
    assert second["tactic"] == {
        "kind": "hide",
        "success": True,
        "escapee_total": 20,
        "chaser_total": 10,
    }
    assert second["finished"] is True
    assert second["outcome"] == "hid"
    session = chase.session()
    assert session["status"] == "finished"
    assert session["version"] == 3
    assert session["round"] == 2
    assert session["state"]["status_detail"] == "hid"
    assert session["result"]["winner"] == "Ralf"
    assert session["result"]["status_detail"] == "hid"
    # Finished: further rounds, resolves and ends are 409.
    assert_problem(chase.post("rounds", {"terrain": STRENGTH}), 409)
    assert_problem(chase.post("resolve", {"terrain": STRENGTH}), 409)
    assert_problem(chase.post("end", {"reason": "gave-up"}), 409)
    rounds = store_client.get(f"{chase.url}/rounds", headers=bearer(chase.gm)).json()["rounds"]
    assert [record["number"] for record in rounds] == [1, 2]
    assert rounds[0]["lead"] == 20
    assert rounds[1]["outcome"] == "hid"


# --- starts ---------------------------------------------------------------------------------


def test_create_answers_201_and_an_initiative_start_rolls_at_creation(
    store_client: TestClient,
) -> None:
    chase = new_chase(
        store_client,
        {"mode": "initiative"},
        side("Ralf", mods={"initiative": 3}),
        rolls={"Ralf": {"initiative": 9}},
    )
    response, created = chase.response, chase.created
    assert response.headers["location"] == f"{URL}/{chase.id}"
    assert response.headers["etag"] == '"1"'
    assert created["kind"] == "chases"
    assert created["status"] == "active"
    assert (created["version"], created["round"], created["result"]) == (1, 0, None)
    assert set(created["tokens"]["parties"]) == {"Ralf", "the guard"}
    assert created["state"] == {
        "lead": 12,
        "ds": {"Ralf": 12, "the guard": 0},
        "status_detail": None,
    }
    start_rolls = [
        {
            "who": "Ralf",
            "purpose": "initiative",
            "dice": "1d20",
            "values": [9],
            "source": "supplied",
        }
    ]
    assert created["start_rolls"] == start_rolls
    assert created["config"]["start"] == {"mode": "initiative"}
    assert created["config"]["hazard_base_cost"] == 5
    assert created["config"]["max_rounds"] == 200
    assert created["config"]["speed_bonus"] == "increment"
    assert created["config"]["max_retries"] == 5
    # The start's dice stay on the session after rounds are played.
    chase.play({"Ralf": {"check": 5}, "the guard": {"check": 5}})
    session = chase.session()
    assert session["start_rolls"] == start_rolls
    assert "start_rolls" not in session["state"]
    assert session["state"]["lead"] == 12


def test_a_seeded_initiative_start_is_rolled_by_the_server(store_client: TestClient) -> None:
    body = {
        "escapee": side("Ralf", mods={"initiative": 20}),
        "chaser": side("the guard"),
        "start": {"mode": "initiative"},
        "seed": 99,
    }
    first, second = Chase(store_client, body), Chase(store_client, body)
    (roll,) = first.created["start_rolls"]
    assert (roll["who"], roll["purpose"], roll["source"]) == ("Ralf", "initiative", "rolled")
    assert first.created["state"]["lead"] == roll["values"][0] + 20
    assert second.created["start_rolls"] == first.created["start_rolls"]


@pytest.mark.parametrize(
    ("start", "expected"),
    [({"mode": "distance", "increments": 3}, 15), ({"mode": "lead", "lead": 7}, 7)],
)
def test_distance_and_lead_starts(
    store_client: TestClient, start: dict[str, Any], expected: int
) -> None:
    chase = new_chase(store_client, start)
    assert chase.created["state"]["lead"] == expected
    assert chase.created["state"]["ds"] == {"Ralf": expected, "the guard": 0}
    shown = {**start, "with_initiative": False} if start["mode"] == "distance" else start
    assert chase.created["config"]["start"] == shown
    assert "start_rolls" not in chase.created


def test_a_distance_start_with_initiative_adds_the_initiative_check(
    store_client: TestClient,
) -> None:
    # "The escapee's starting DS is increased by 5 times that number": 3 increments (15) on top
    # of Ralf's initiative, 8 + 2.
    start = {"mode": "distance", "increments": 3, "with_initiative": True}
    escapee = side("Ralf", mods={"initiative": 2})
    chase = new_chase(store_client, start, escapee, rolls={"Ralf": {"initiative": 8}})
    assert chase.created["state"]["lead"] == 8 + 2 + 15
    assert chase.created["config"]["start"] == start
    (roll,) = chase.created["start_rolls"]
    assert (roll["who"], roll["purpose"], roll["values"]) == ("Ralf", "initiative", [8])
    # Alone (the default), the same body's initiative die is the wrong count.
    alone = {**start, "with_initiative": False}
    body = {"escapee": escapee, "chaser": side("the guard"), "start": alone}
    refused = store_client.post(URL, json={**body, "rolls": {"Ralf": {"initiative": 8}}})
    assert_problem(refused, 422)
    # The odds from the start weigh every initiative roll: the lead starts at 18 to 37.
    odds = store_client.post("/v1/odds/chases", json={**body, "start": start, "terrain": STRENGTH})
    assert odds.status_code == 200, odds.text
    fixed = store_client.post(
        "/v1/odds/chases",
        json={**body, "start": start, "terrain": STRENGTH, "rolls": {"Ralf": {"initiative": 8}}},
    )
    assert fixed.status_code == 200, fixed.text
    assert fixed.json() != odds.json()


def test_a_distance_start_with_initiative_that_can_give_no_lead_is_refused(
    store_client: TestClient,
) -> None:
    start = {"mode": "distance", "increments": 1, "with_initiative": True}
    body = {"escapee": side("Ralf", mods={"initiative": -30}), "chaser": side("the guard")}
    problem = assert_problem(store_client.post(URL, json={**body, "start": start}), 422)
    assert ["body", "start", "with_initiative"] in [error["loc"] for error in problem["errors"]]


def test_a_start_lead_of_thirty_has_escaped_already(store_client: TestClient) -> None:
    chase = new_chase(store_client, {"mode": "distance", "increments": 6})
    assert chase.created["status"] == "finished"
    assert chase.created["state"]["status_detail"] == "escaped"
    assert chase.created["result"]["winner"] == "Ralf"
    assert_problem(chase.post("rounds", {"terrain": STRENGTH}), 409)


@pytest.mark.parametrize(
    ("start", "rolls", "loc"),
    [
        ({"mode": "lead"}, None, ["body", "start", "lead"]),
        ({"mode": "lead", "lead": 0}, None, ["body", "start", "lead"]),
        ({"mode": "lead", "lead": -3}, None, ["body", "start", "lead"]),
        ({"mode": "distance"}, None, ["body", "start", "increments"]),
        ({"mode": "distance", "increments": 0}, None, ["body", "start", "increments"]),
        ({"mode": "head-start"}, None, ["body", "start", "mode"]),
        ({}, None, ["body", "start", "mode"]),
        ({"mode": "lead", "lead": 5, "increments": 2}, None, ["body", "start", "increments"]),
        (
            {"mode": "initiative"},
            {"Ralf": {"initiative": 21}},
            ["body", "rolls", "Ralf", "initiative"],
        ),
        ({"mode": "initiative"}, {"Ralf": {"check": 4}}, ["body", "rolls", "Ralf", "check"]),
        (
            {"mode": "initiative"},
            {"the guard": {"initiative": 4}},
            ["body", "rolls", "the guard", "initiative"],
        ),
        # A die nobody rolls is the wrong count.
        (
            {"mode": "lead", "lead": 5},
            {"Ralf": {"initiative": 4}},
            ["body", "rolls", "Ralf", "initiative"],
        ),
    ],
)
def test_invalid_starts_are_422(
    store_client: TestClient, start: dict[str, Any], rolls: Rolls | None, loc: list[Any]
) -> None:
    body: dict[str, Any] = {"escapee": side("Ralf"), "chaser": side("the guard"), "start": start}
    if rolls is not None:
        body["rolls"] = rolls
    assert_problem(store_client.post(URL, json=body), 422, loc)


def test_an_initiative_that_gives_no_lead_is_422(store_client: TestClient) -> None:
    body = {
        "escapee": side("Ralf", mods={"initiative": -5}),
        "chaser": side("the guard"),
        "start": {"mode": "initiative"},
        "rolls": {"Ralf": {"initiative": 5}},
    }
    assert_problem(store_client.post(URL, json=body), 422, ["body", "start", "mode"])
    body["rolls"] = {"Ralf": {"initiative": 6}}
    assert Chase(store_client, body).created["state"]["lead"] == 1
    body["escapee"] = side("Ralf", mods={"initiative": -20})
    del body["rolls"]
    assert_problem(store_client.post(URL, json=body), 422, ["body", "start", "mode"])


def test_other_invalid_chases_are_422(store_client: TestClient) -> None:
    same_names = {"escapee": side("Ralf"), "chaser": side("Ralf"), "start": lead(5)}
    assert_problem(store_client.post(URL, json=same_names), 422, ["body", "chaser", "name"])
    too_long = {"escapee": side("Ralf"), "chaser": side("G"), "start": lead(5), "max_rounds": 0}
    assert_problem(store_client.post(URL, json=too_long), 422, ["body", "max_rounds"])
    negative = {
        "escapee": side("Ralf"),
        "chaser": side("G"),
        "start": lead(5),
        "hazard_base_cost": -1,
    }
    assert_problem(store_client.post(URL, json=negative), 422, ["body", "hazard_base_cost"])


# --- the end of a chase ---------------------------------------------------------------------


def test_caught_at_a_lead_of_zero(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(5))
    record = chase.play({"Ralf": {"check": 1}, "the guard": {"check": 6}})
    assert (record["gains"], record["lead"]) == ({"Ralf": 1, "the guard": 6}, 0)
    assert (record["finished"], record["outcome"]) == (True, "caught")
    session = chase.session()
    assert session["status"] == "finished"
    assert session["state"] == {
        "lead": 0,
        "ds": {"Ralf": 6, "the guard": 6},
        "status_detail": "caught",
    }
    assert session["result"]["winner"] == "the guard"
    assert session["summary"] == "Chase over: the guard caught Ralf after 1 increment."


def test_escaped_at_a_lead_of_thirty(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(25))
    record = chase.play({"Ralf": {"check": 9}, "the guard": {"check": 5}})
    assert (record["lead"], record["finished"], record["outcome"]) == (29, False, None)
    record = chase.play({"Ralf": {"check": 6}, "the guard": {"check": 5}})
    assert (record["lead"], record["finished"], record["outcome"]) == (30, True, "escaped")
    assert chase.session()["result"]["winner"] == "Ralf"


def test_the_gm_ends_a_chase(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(10))
    ralf = chase.created["tokens"]["parties"]["Ralf"]
    assert_problem(chase.post("end", {"reason": "gave-up"}, token=ralf), 403)
    assert_problem(chase.post("end", {"reason": "bored"}), 422, ["body", "reason"])
    assert_problem(store_client.post(f"{chase.url}/end", json={"reason": "gave-up"}), 401)
    assert chase.session()["version"] == 1
    response = chase.post("end", {"reason": "gave-up"})
    assert response.status_code == 200, response.text
    assert response.headers["etag"] == '"2"'
    session = response.json()["session"]
    assert session["status"] == "finished"
    assert session["version"] == 2
    assert session["round"] == 0
    assert session["state"] == {
        "lead": 10,
        "ds": {"Ralf": 10, "the guard": 0},
        "status_detail": "gave-up",
    }
    assert session["result"]["winner"] == "Ralf"
    assert session["result"]["status_detail"] == "gave-up"
    assert chase.session() == session
    assert_problem(chase.post("end", {"reason": "gave-up"}), 409)
    assert_problem(chase.post("rounds", {"terrain": STRENGTH}), 409)


def test_end_without_a_body_means_gave_up(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(10))
    response = store_client.post(f"{chase.url}/end", headers=bearer(chase.gm))
    assert response.status_code == 200, response.text
    assert response.json()["session"]["state"]["status_detail"] == "gave-up"


def test_the_chaser_gives_up_after_max_rounds(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(10), max_rounds=2)
    first = chase.play({"Ralf": {"check": 7}, "the guard": {"check": 7}})
    assert first["finished"] is False
    second = chase.play({"Ralf": {"check": 7}, "the guard": {"check": 7}})
    assert (second["finished"], second["outcome"], second["lead"]) == (True, None, 10)
    session = chase.session()
    assert session["state"]["status_detail"] == "gave-up"
    assert session["result"]["winner"] == "Ralf"


# --- tactics --------------------------------------------------------------------------------


def test_a_hazard_costs_the_base_cost_plus_its_penalty(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(15), chaser=side("the guard", mods={"jump": 3}))
    # Cost 5 + 2; created (16 - 2 = 14); the guard's Balance 12 meets DC 12 and checks as usual.
    passed = chase.play(
        {"Ralf": {"dexterity": 16, "check": 10}, "the guard": {"hazard": 12, "check": 8}},
        tactic={"kind": "hazard", "penalty": 2},
    )
    assert passed["tactic"]["cost"] == 7
    assert (passed["tactic"]["created"], passed["tactic"]["success"]) == (True, False)
    assert passed["gains"] == {"Ralf": 10, "the guard": 8}
    assert passed["lead"] == 15 - 7 + 10 - 8
    # Not created (13 < 14): still paid for; the guard makes no hazard check.
    failed = chase.play(
        {"Ralf": {"dexterity": 13, "check": 10}, "the guard": {"check": 10}},
        tactic={"kind": "hazard", "penalty": 0},
    )
    assert failed["tactic"]["cost"] == 5
    assert failed["tactic"]["created"] is False
    assert failed["tactic"]["success"] is False
    assert failed["lead"] == 10 - 5
    # Another chaser check: the guard's Jump 3 + 7 misses DC 10 + 1: he adds 0.
    jumped = chase.play(
        {"Ralf": {"dexterity": 20, "check": 4}, "the guard": {"hazard": 7}},
        tactic={"kind": "hazard", "penalty": 1, "chaser_check": "Jump"},
    )
    assert jumped["tactic"]["chaser_total"] == 10
    assert jumped["tactic"]["success"] is True
    assert jumped["gains"] == {"Ralf": 4, "the guard": 0}
    assert jumped["lead"] == 5 - 6 + 4
    assert chase.session()["state"]["ds"] == {"Ralf": 15 - 7 + 10 - 5 + 10 - 6 + 4, "the guard": 18}


def test_a_hazard_can_get_the_escapee_caught(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(6))
    record = chase.play(
        {"Ralf": {"dexterity": 20, "check": 1}, "the guard": {"hazard": 1}},
        tactic={"kind": "hazard", "penalty": 3},
    )
    assert record["lead"] == 6 - 8 + 1
    assert record["outcome"] == "caught"


def test_a_lost_hide_adds_nothing_for_the_escapee(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(22), side("Ralf", mods={"hide": 2}))
    record = chase.play(
        {"Ralf": {"hide": 5}, "the guard": {"spot": 15, "check": 10}}, tactic={"kind": "hide"}
    )
    assert record["tactic"]["success"] is False
    assert record["gains"] == {"Ralf": 0, "the guard": 10}
    assert record["lead"] == 12
    assert record["finished"] is False


def test_equal_hide_and_spot_reroll(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(22))
    record = chase.play(
        {"Ralf": {"hide": [7, 12]}, "the guard": {"spot": [7, 3]}}, tactic={"kind": "hide"}
    )
    assert record["outcome"] == "hid"
    hides = [roll["values"] for roll in record["rolls"] if roll["purpose"] == "hide"]
    assert hides == [[7], [12]]


def test_hiding_needs_a_lead_of_twenty_and_cover(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(19))
    short = chase.post(
        "rounds", {"terrain": STRENGTH, "tactic": {"kind": "hide"}, "rolls": {"Ralf": {"hide": 20}}}
    )
    assert_problem(short, 422, ["body", "tactic", "kind"])
    session = chase.session()
    assert (session["version"], session["round"], session["state"]["lead"]) == (1, 0, 19)
    chase.play({"Ralf": {"check": 6}, "the guard": {"check": 5}})
    flat = chase.post(
        "rounds", {"terrain": {"check": "strength", "flat": True}, "tactic": {"kind": "hide"}}
    )
    assert_problem(flat, 422, ["body", "tactic", "kind"])
    assert chase.session()["version"] == 2
    # Not flat, lead 20: allowed.
    record = chase.play({"Ralf": {"hide": 20}, "the guard": {"spot": 1}}, tactic={"kind": "hide"})
    assert record["outcome"] == "hid"


@pytest.mark.parametrize(
    ("tactic", "loc"),
    [
        ({"kind": "hazard"}, ["body", "tactic", "penalty"]),
        ({"kind": "hazard", "penalty": -1}, ["body", "tactic", "penalty"]),
        ({"kind": "run"}, ["body", "tactic", "kind"]),
        ({"kind": "hide", "penalty": 2}, ["body", "tactic", "penalty"]),
    ],
)
def test_invalid_tactics_are_422(
    store_client: TestClient, tactic: dict[str, Any], loc: list[Any]
) -> None:
    chase = new_chase(store_client, lead(25))
    assert_problem(chase.post("rounds", {"terrain": STRENGTH, "tactic": tactic}), 422, loc)


# --- terrain as in races --------------------------------------------------------------------


def test_terrain_checks_work_as_in_races(store_client: TestClient) -> None:
    chase = new_chase(
        store_client,
        lead(15),
        {"name": "Ralf", "speed": 30, "mods": {"swim": 2}, "feats": ["run"], "pacing": "sprint"},
        {"name": "the guard", "speed": 20, "speeds": {"swim": 10}, "mods": {"jump": 1}},
    )
    # Swim, modifier -1: Ralf 10 + 2 + 6 + 2 (sprint, no Run) - 1; the guard 10 + 2 - 1.
    swim = chase.play(
        {"Ralf": {"check": 10}, "the guard": {"check": 10}},
        terrain={"check": "swim", "modifier": -1},
    )
    assert swim["gains"] == {"Ralf": 19, "the guard": 11}
    # A hazard in the terrain: the guard's Jump 5 + 1 misses DC 10: 0, damage 1d4 = 3.
    hazard = chase.play(
        {
            "Ralf": {"obstacle": 10, "check": 1},
            "the guard": {"obstacle": 5, "damage": [3]},
        },
        terrain={
            "check": "strength",
            "obstacle": {"kind": "hazard", "check": "jump", "dc": 10, "damage": "1d4"},
        },
    )
    assert hazard["gains"] == {"Ralf": 1 + 6 + 2 + 2, "the guard": 0}
    assert hazard["lead"] == 15 + 8 + 11
    assert hazard["outcome"] == "escaped"


def test_long_chases_use_the_endurance_rule(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(15), side("Ralf", con_score=1), side("the guard"))
    chase.play({"Ralf": {"check": 5}, "the guard": {"check": 5}})
    # One safe increment; then Constitution (d20 - 5) vs DC 2: 3 - 5 fails, Ralf rests.
    record = chase.play({"Ralf": {"constitution": 3}, "the guard": {"check": 5}})
    assert record["gains"] == {"Ralf": 0, "the guard": 5}
    assert record["lead"] == 10
    off = new_chase(
        store_client, lead(15), side("Ralf", con_score=1), side("the guard"), endurance_rule=False
    )
    off.play({"Ralf": {"check": 5}, "the guard": {"check": 5}})
    assert off.play({"Ralf": {"check": 5}, "the guard": {"check": 5}})["lead"] == 15


def test_mounted_terrain_needs_two_mounts(store_client: TestClient) -> None:
    chase = new_chase(
        store_client, lead(10), side("Ralf", mount={"strength_mod": 2, "speed": 60}), side("G")
    )
    response = chase.post("rounds", {"terrain": {"check": "strength", "mounted": True}})
    assert_problem(response, 422, ["body", "terrain", "mounted"])


def test_terrain_damage_must_be_dice_notation(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(10))
    terrain = {
        "check": "strength",
        "obstacle": {"kind": "hazard", "check": "jump", "dc": 10, "damage": "3q6"},
    }
    response = chase.post("rounds", {"terrain": terrain})
    assert_problem(response, 422, ["body", "terrain", "obstacle", "damage"])
    assert chase.session()["version"] == 1


# --- resolve --------------------------------------------------------------------------------


def test_resolve_without_tactics(store_client: TestClient) -> None:
    chase = new_chase(
        store_client,
        lead(15),
        {"name": "Ralf", "speed": 30},
        {"name": "the guard", "speed": 30},
        max_rounds=40,
        seed=2024,
    )
    chase.play({"Ralf": {"check": 10}, "the guard": {"check": 10}})
    response = chase.post("resolve", {"terrain": {"check": "strength"}})
    assert response.status_code == 200, response.text
    answer = response.json()
    rounds, session = answer["rounds"], answer["session"]
    assert [record["number"] for record in rounds] == list(range(2, 2 + len(rounds)))
    assert session["status"] == "finished"
    assert session["version"] == 3
    assert session["round"] == 1 + len(rounds) <= 40
    assert all(record["tactic"] is None for record in rounds)
    assert all(not record["finished"] for record in rounds[:-1])
    assert rounds[-1]["finished"] is True
    previous = 15
    for record in rounds:
        assert record["lead_before"] == previous
        assert record["lead"] == previous + record["gains"]["Ralf"] - record["gains"]["the guard"]
        previous = record["lead"]
    detail = session["state"]["status_detail"]
    if detail == "caught":
        assert previous <= 0
    elif detail == "escaped":
        assert previous >= 30
    else:
        assert detail == "gave-up"
        assert session["round"] == 40
    # Seeded: the same chase resolves the same way.
    again = new_chase(
        store_client,
        lead(15),
        {"name": "Ralf", "speed": 30},
        {"name": "the guard", "speed": 30},
        max_rounds=40,
        seed=2024,
    )
    again.play({"Ralf": {"check": 10}, "the guard": {"check": 10}})
    replay = again.post("resolve", {"terrain": {"check": "strength"}}).json()
    assert replay["rounds"] == rounds
    assert_problem(chase.post("resolve", {"terrain": STRENGTH}), 409)


def test_resolve_hides_when_possible(store_client: TestClient) -> None:
    chase = new_chase(
        store_client,
        lead(5),
        # Faster than the guard, and a poor hider: she hides and often fails.
        {"name": "Ralf", "speed": 60, "mods": {"hide": -10}},
        {"name": "the guard", "speed": 30, "mods": {"spot": 10}},
        seed=11,
    )
    response = chase.post(
        "resolve", {"terrain": {"check": "strength"}, "tactic_policy": "hide-when-possible"}
    )
    assert response.status_code == 200, response.text
    session = response.json()["session"]
    # The answer lists the last few rounds; all of them are a GET away.
    page = f"{chase.url}/rounds?limit=500"
    rounds = store_client.get(page, headers=bearer(chase.gm)).json()["rounds"]
    assert response.json()["played"] == len(rounds) == session["round"]
    assert response.json()["rounds"] == rounds[-5:]
    assert session["status"] == "finished"
    assert any(record["tactic"] is not None for record in rounds)
    for record in rounds:
        hid = record["tactic"] is not None
        assert hid == (record["lead_before"] >= 20)
        if hid:
            assert record["tactic"]["kind"] == "hide"


def test_resolve_on_flat_ground_never_hides(store_client: TestClient) -> None:
    chase = new_chase(
        store_client,
        lead(25),
        {"name": "Ralf", "speed": 30},
        {"name": "the guard", "speed": 30},
        seed=5,
    )
    response = chase.post(
        "resolve",
        {"terrain": {"check": "strength", "flat": True}, "tactic_policy": "hide-when-possible"},
    )
    assert response.status_code == 200, response.text
    rounds = response.json()["rounds"]
    assert all(record["tactic"] is None for record in rounds)
    assert response.json()["session"]["state"]["status_detail"] in ("caught", "escaped", "gave-up")


def test_resolve_stops_at_max_rounds(store_client: TestClient) -> None:
    # Water nobody can swim: nobody gains, the lead never moves, the chaser gives up.
    chase = new_chase(store_client, lead(15), max_rounds=3)
    water = {"check": "swim", "dc": 1000, "on_fail": "stall", "drown_margin": 1000}
    response = chase.post("resolve", {"terrain": water})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert [record["lead"] for record in answer["rounds"]] == [15, 15, 15]
    assert [record["finished"] for record in answer["rounds"]] == [False, False, True]
    assert answer["rounds"][-1]["outcome"] is None
    assert answer["session"]["state"]["status_detail"] == "gave-up"
    assert answer["session"]["result"]["winner"] == "Ralf"
    assert answer["session"]["summary"] == (
        "Chase over: the guard gave up; Ralf got away with a lead of 15 after 3 increments."
    )


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({}, ["body", "terrain"]),
        ({"terrain": STRENGTH, "tactic_policy": "always"}, ["body", "tactic_policy"]),
        ({"terrain": {"check": "strength", "mounted": True}}, ["body", "terrain", "mounted"]),
    ],
)
def test_invalid_resolves_are_422(
    store_client: TestClient, body: dict[str, Any], loc: list[Any]
) -> None:
    chase = new_chase(store_client, lead(10))
    assert_problem(chase.post("resolve", body), 422, loc)
    assert chase.session()["version"] == 1


# --- dice and tokens ------------------------------------------------------------------------


def test_bad_supplied_dice_are_422_and_change_nothing(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(10))
    cases: list[tuple[Rolls, list[Any]]] = [
        ({"Ralf": {"check": 0}}, ["body", "rolls", "Ralf", "check"]),
        ({"Ralf": {"check": 21}}, ["body", "rolls", "Ralf", "check"]),
        ({"Ralf": {"initiative": 3}}, ["body", "rolls", "Ralf", "initiative"]),
        ({"Ralf": {"strength": 3}}, ["body", "rolls", "Ralf", "strength"]),
        ({"Nobody": {"check": 3}}, ["body", "rolls", "Nobody"]),
        ({"Ralf": {"check": 3, "hide": 4}}, ["body", "rolls", "Ralf", "hide"]),
        (
            {"Ralf": {"check": 3}, "the guard": {"hazard": 4}},
            ["body", "rolls", "the guard", "hazard"],
        ),
        ({"Ralf": {"obstacle": [30]}}, ["body", "rolls", "Ralf", "obstacle", 0]),
    ]
    for rolls, loc in cases:
        assert_problem(chase.post("rounds", {"terrain": STRENGTH, "rolls": rolls}), 422, loc)
    session = chase.session()
    assert (session["version"], session["round"], session["state"]["lead"]) == (1, 0, 10)
    assert store_client.get(f"{chase.url}/rounds", headers=bearer(chase.gm)).json() == {
        "rounds": []
    }


def test_tokens_and_ids(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(10))
    other = new_chase(store_client, lead(10))
    guard = chase.created["tokens"]["parties"]["the guard"]
    body = {"terrain": STRENGTH}
    assert_problem(store_client.post(f"{chase.url}/rounds", json=body), 401)
    assert_problem(store_client.get(chase.url), 401)
    assert_problem(store_client.get(f"{URL}/missing", headers=bearer(chase.gm)), 404)
    assert_problem(store_client.get(chase.url, headers=bearer(other.gm)), 404)
    assert_problem(chase.post("rounds", body, token=other.gm), 404)
    # A side's token reads the chase but may not play it.
    assert store_client.get(chase.url, headers=bearer(guard)).status_code == 200
    assert_problem(chase.post("rounds", body, token=guard), 403)
    assert_problem(chase.post("resolve", body, token=guard), 403)
    assert chase.session()["version"] == 1
    assert store_client.delete(chase.url, headers=bearer(chase.gm)).status_code == 204
    assert_problem(store_client.get(chase.url, headers=bearer(chase.gm)), 404)


# --- body checks moved here from tests/rules (the schema checks them now) -------------------


def test_more_invalid_chase_bodies_are_422(store_client: TestClient) -> None:
    too_many = {
        "escapee": side("Ralf"),
        "chaser": side("G"),
        "start": lead(5),
        "max_rounds": 10_001,
    }
    assert_problem(store_client.post(URL, json=too_many), 422, ["body", "max_rounds"])
    chase = new_chase(store_client, lead(22))
    problem = assert_problem(
        chase.post("rounds", {"terrain": {"dc": 3}, "tactic": {"kind": "dance"}}), 422
    )
    locs = [error["loc"] for error in problem["errors"]]
    assert ["body", "terrain", "check"] in locs
    assert ["body", "tactic", "kind"] in locs
    flat = {"terrain": {"check": "climb", "flat": "yes"}}
    assert_problem(chase.post("resolve", flat), 422, ["body", "terrain", "flat"])


def test_round_bodies_are_normalised(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(15), side("Ralf", mods={"dexterity": 3}), side("G"))
    record = chase.play(
        {"Ralf": {"dexterity": 11, "check": 10}, "G": {"hazard": 4}},
        terrain={"check": "Swim", "dc": 12},
        tactic={"kind": "hazard", "penalty": 0, "chaser_check": "Tumble"},
    )
    assert record["terrain"]["check"] == "swim"
    assert record["terrain"]["on_fail"] == "stall"
    assert record["tactic"]["chaser_check"] == "tumble"


# --- options where the source reads two ways --------------------------------------------------


def test_chase_options_are_stored_and_shown(store_client: TestClient) -> None:
    chase = new_chase(store_client, lead(10), speed_bonus="every-roll", max_retries=None)
    for config in (chase.created["config"], chase.session()["config"]):
        assert (config["speed_bonus"], config["max_retries"]) == ("every-roll", None)
    bad = store_client.post(
        URL,
        json={
            "escapee": side("Ralf"),
            "chaser": side("Guard"),
            "start": lead(10),
            "speed_bonus": "never",
        },
    )
    assert_problem(bad, 422, ["body", "speed_bonus"])


def test_chase_speed_bonus_every_roll_on_a_terrain_hazard(store_client: TestClient) -> None:
    # Both speed 30 (+6). The guard's Balance 8 fails DC 12 alone, passes with the bonus.
    marsh = {"check": "strength", "obstacle": {"kind": "hazard", "check": "balance", "dc": 12}}
    rolls: Rolls = {"Ralf": {"obstacle": 12, "check": 5}, "the guard": {"obstacle": 8, "check": 5}}
    fast = {"escapee": side("Ralf", speed=30), "chaser": side("the guard", speed=30)}
    default = new_chase(store_client, lead(10), **fast)
    record = default.play({**rolls, "the guard": {"obstacle": 8}}, terrain=marsh)
    assert (record["gains"], record["lead"]) == ({"Ralf": 11, "the guard": 0}, 21)
    every = new_chase(store_client, lead(10), **fast, speed_bonus="every-roll")
    record = every.play(rolls, terrain=marsh)
    assert (record["gains"], record["lead"]) == ({"Ralf": 11, "the guard": 11}, 10)
    hide = {"kind": "hide"}
    # tactic checks never get it: Hide 10 vs Spot 10, equal modifiers, the reroll decides
    chase = new_chase(store_client, lead(25), **fast, speed_bonus="every-roll")
    record = chase.play({"Ralf": {"hide": [10, 12]}, "the guard": {"spot": [10, 3]}}, tactic=hide)
    assert record["tactic"]["escapee_total"] == 12
    assert record["tactic"]["chaser_total"] == 3


def test_a_chase_terrain_no_retry_can_pass_ends_it_instead_of_sticking(
    store_client: TestClient,
) -> None:
    # DC 100 with a +0 climb can never pass: with no cap on retries both sides forfeit at once
    # (`impassable`) and the escapee's forfeit is a catch, rather than a 422 at the work limit.
    chase = new_chase(store_client, lead(10), max_retries=None, seed=5)
    never = {"check": "climb", "dc": 100, "on_fail": "retry"}
    played = chase.post("rounds", {"terrain": never})
    assert played.status_code == 200, played.text
    record = played.json()["round"]
    assert record["sides"]["Ralf"]["events"] == ["check-failed", "impassable", "forfeited"]
    assert record["outcome"] == "caught"
    assert chase.session()["status"] == "finished"
