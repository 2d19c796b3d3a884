"""Arm wrestles as sessions, on SQLite and PostgreSQL.

The API is docs/api.md#arm-wrestles, the rules docs/rules.md#arm-wrestling.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.numeric import arm_wrestling as numeric
from app.rules import arm_wrestling
from tests.helpers import Session, assert_problem, bearer

URL = "/v1/arm-wrestles"
SESSION_FIELDS = {
    "id",
    "kind",
    "status",
    "version",
    "created_at",
    "updated_at",
    "config",
    "state",
    "result",
    "round",
}
RECORD_FIELDS = {
    "number",
    "fatigue",
    "checks",
    "round_winner",
    "difference",
    "ds",
    "leader",
    "finished",
    "winner",
    "reason",
    "rolls",
    "summary",
}
ROLL_FIELDS = {"who", "purpose", "dice", "values", "source"}

LYDIA = {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1}
OGRE = {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2}


def dice(
    lydia: int | None = None,
    ogre: int | None = None,
    *,
    lydia_con: int | None = None,
    ogre_con: int | None = None,
    lydia_damage: list[int] | None = None,
    ogre_damage: list[int] | None = None,
) -> dict[str, dict[str, Any]]:
    """A round body's `rolls` for Lydia and the Ogre."""
    rolls: dict[str, dict[str, Any]] = {"Lydia": {}, "Ogre": {}}
    for name, purpose, value in (
        ("Lydia", "strength", lydia),
        ("Ogre", "strength", ogre),
        ("Lydia", "constitution", lydia_con),
        ("Ogre", "constitution", ogre_con),
        ("Lydia", "damage", lydia_damage),
        ("Ogre", "damage", ogre_damage),
    ):
        if value is not None:
            rolls[name][purpose] = value
    return {name: given for name, given in rolls.items() if given}


class Wrestle(Session):
    """An arm wrestle created through the API, Lydia against the Ogre unless the body says."""

    def __init__(self, client: TestClient, **body: Any) -> None:
        body.setdefault("a", LYDIA)
        body.setdefault("b", OGRE)
        super().__init__(client, "arm-wrestles", body)

    def play(self, rolls: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Play a round that must succeed: (round record, session)."""
        before = self.session()
        response = self.post_round(rolls)
        assert response.status_code == 200, response.text
        answer = response.json()
        record, session = answer["round"], answer["session"]
        assert_record(record)
        assert record["number"] == before["round"] + 1 == session["round"]
        assert session["version"] == before["version"] + 1
        assert response.headers["etag"] == f'"{session["version"]}"'
        assert session["state"]["ds"] == record["ds"]
        assert session["state"]["leader"] == record["leader"]
        assert session["status"] == ("finished" if record["finished"] else "active")
        if rolls:
            supplied = {
                (entry["who"], entry["purpose"])
                for entry in record["rolls"]
                if entry["source"] == "supplied"
            }
            unused = {(entry["who"], entry["purpose"]) for entry in record.get("unused", [])}
            wanted = {(name, purpose) for name, given in rolls.items() for purpose in given}
            # Every supplied die is played or reported, never both, never dropped.
            assert supplied | unused == wanted
            assert not supplied & unused
        return record, session


def assert_record(record: dict[str, Any]) -> None:
    """Every round record carries the fields docs/api.md#arm-wrestles lists, its dice and a
    summary."""
    assert set(record) >= RECORD_FIELDS
    assert record["summary"].startswith(f"Round {record['number']}: ")
    for entry in record["rolls"]:
        assert set(entry) == ROLL_FIELDS
        assert entry["source"] in ("supplied", "rolled")
    for check in record["fatigue"]:
        assert set(check) == {"name", "dc", "roll", "total", "passed"}
        assert check["passed"] is (check["total"] >= check["dc"])
    if record["finished"]:
        assert record["reason"] in ("target", "fatigue", "draw", "max_rounds")
    else:
        assert (record["winner"], record["reason"]) == (None, None)


def strained(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "effect": "strained-arm",
        "detail": (
            "failed the Constitution check: -2 to Strength-based rolls with that arm until she "
            "rests for at least one minute"
        ),
    }


# --- the source's worked example ------------------------------------------------------------

#: (Lydia's d20, the Ogre's d20, round winner, difference, DS after, leader), as the table of
#: docs/rules.md#pushing-the-ds has them.
LYDIA_AND_THE_OGRE = [
    (17, 8, "Lydia", 5, {"Lydia": 5, "Ogre": 0}, "Lydia"),  # 19 vs 14: Lydia 5
    (5, 9, "Ogre", 8, {"Lydia": -3, "Ogre": 0}, "Ogre"),  # 7 vs 15: Lydia -3, the Ogre leads
    (10, 12, "Ogre", 6, {"Lydia": -3, "Ogre": 6}, "Ogre"),  # 12 vs 18: Ogre 6
    (15, 10, "Lydia", 1, {"Lydia": -3, "Ogre": 5}, "Ogre"),  # 17 vs 16: Ogre 5
    (4, 8, "Ogre", 8, {"Lydia": -3, "Ogre": 13}, "Ogre"),  # 6 vs 14: Ogre 13
]


def lydia_and_the_ogre(client: TestClient) -> Wrestle:
    wrestle = Wrestle(client)
    for number, (lydia, ogre, winner, difference, ds, leader) in enumerate(
        LYDIA_AND_THE_OGRE, start=1
    ):
        record, session = wrestle.play(dice(lydia, ogre))
        assert record["number"] == number
        assert record["fatigue"] == []
        assert record["checks"] == {
            "Lydia": {"roll": lydia, "total": lydia + 2},
            "Ogre": {"roll": ogre, "total": ogre + 6},
        }
        assert (record["round_winner"], record["difference"]) == (winner, difference)
        assert (record["ds"], record["leader"]) == (ds, leader)
        assert (record["finished"], record["winner"], record["reason"]) == (False, None, None)
        assert record["rolls"] == [
            {
                "who": "Lydia",
                "purpose": "strength",
                "dice": "1d20",
                "values": [lydia],
                "source": "supplied",
            },
            {
                "who": "Ogre",
                "purpose": "strength",
                "dice": "1d20",
                "values": [ogre],
                "source": "supplied",
            },
        ]
        assert session["state"] == {
            "ds": ds,
            "leader": leader,
            "con_checks_made": {"Lydia": 0, "Ogre": 0},
        }
        assert (session["status"], session["result"]) == ("active", None)
    return wrestle


def test_lydia_and_the_ogre_round_by_round(store_client: TestClient) -> None:
    wrestle = lydia_and_the_ogre(store_client)
    session = wrestle.session()
    assert (session["version"], session["round"]) == (6, 5)
    played = wrestle.rounds()
    assert [record["number"] for record in played] == [1, 2, 3, 4, 5]
    assert [record["summary"] for record in played] == [
        "Round 1: Lydia beats Ogre by 5: Lydia's DS rises to 5 (Lydia 5, Ogre 0; Lydia leads).",
        "Round 2: Ogre beats Lydia by 8: Lydia's DS falls to -3 (Lydia -3, Ogre 0; Ogre leads).",
        "Round 3: Ogre beats Lydia by 6: Ogre's DS rises to 6 (Lydia -3, Ogre 6; Ogre leads).",
        "Round 4: Lydia beats Ogre by 1: Ogre's DS falls to 5 (Lydia -3, Ogre 5; Ogre leads).",
        "Round 5: Ogre beats Lydia by 8: Ogre's DS rises to 13 (Lydia -3, Ogre 13; Ogre leads).",
    ]


def test_the_ogre_needs_to_win_by_7_next_round(store_client: TestClient) -> None:
    wrestle = lydia_and_the_ogre(store_client)
    record, session = wrestle.play(dice(6, 9))  # 8 vs 15: by 7
    assert (record["round_winner"], record["difference"]) == ("Ogre", 7)
    assert record["ds"] == {"Lydia": -3, "Ogre": 20}
    assert (record["finished"], record["winner"], record["reason"]) == (True, "Ogre", "target")
    assert record["summary"].endswith(" Ogre wins, reaching DS 20.")
    assert (session["status"], session["version"], session["round"]) == ("finished", 7, 6)
    assert session["result"] == {"winner": "Ogre", "reason": "target", "consequences": []}
    # A finished match refuses further rounds and changes nothing.
    assert_problem(wrestle.post_round(dice(10, 10)), 409)
    assert_problem(wrestle.resolve(), 409)
    assert wrestle.session()["version"] == 7
    assert len(wrestle.rounds()) == 6


def test_by_6_is_not_enough_and_equal_totals_change_nothing(store_client: TestClient) -> None:
    wrestle = lydia_and_the_ogre(store_client)
    record, _ = wrestle.play(dice(7, 9))  # 9 vs 15: by 6
    assert record["ds"] == {"Lydia": -3, "Ogre": 19}
    assert record["finished"] is False
    record, session = wrestle.play(dice(14, 10))  # 16 vs 16
    assert (record["round_winner"], record["difference"]) == (None, 0)
    assert (record["ds"], record["leader"]) == ({"Lydia": -3, "Ogre": 19}, "Ogre")
    assert record["summary"] == (
        "Round 7: Lydia and Ogre tie at 16: nothing changes (Lydia -3, Ogre 19; Ogre leads)."
    )
    assert session["status"] == "active"
    record, session = wrestle.play(dice(10, 7))  # 12 vs 13: by 1, DS 20 >= 20
    assert (record["ds"], record["winner"], record["reason"]) == (
        {"Lydia": -3, "Ogre": 20},
        "Ogre",
        "target",
    )
    assert session["result"]["winner"] == "Ogre"


# --- target number --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "lydia", "finished"),
    [
        (5, 17, True),  # 19 vs 14: DS 5 reaches 5
        (5, 20, True),  # 22 vs 14: DS 8 passes 5
        (6, 17, False),  # DS 5 < 6
        (1, 13, True),  # 15 vs 14: DS 1
    ],
)
def test_a_ds_at_or_above_the_target_wins(
    store_client: TestClient, target: int, lydia: int, finished: bool
) -> None:
    wrestle = Wrestle(store_client, target=target)
    assert wrestle.created["config"]["target"] == target
    record, session = wrestle.play(dice(lydia, 8))
    assert record["finished"] is finished
    if finished:
        assert (record["winner"], record["reason"]) == ("Lydia", "target")
        assert session["result"] == {"winner": "Lydia", "reason": "target", "consequences": []}
    else:
        assert session["result"] is None


def test_the_default_target_is_20(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client)
    assert wrestle.created["config"]["target"] == 20
    record, _ = wrestle.play(dice(20, 1))  # 22 vs 7: by 15
    assert record["finished"] is False
    record, _ = wrestle.play(dice(6, 4))  # 8 vs 10: Ogre trails, Lydia falls by 2 to 13
    assert record["ds"] == {"Lydia": 13, "Ogre": 0}
    record, _ = wrestle.play(dice(19, 7))  # 21 vs 13: by 8 -> 21
    assert (record["ds"]["Lydia"], record["winner"]) == (21, "Lydia")


# --- fatigue --------------------------------------------------------------------------------


def tired_pair(**extra: Any) -> dict[str, Any]:
    """Lydia wrestles 2 rounds freely, the Ogre (with Endurance) 3; even Strength."""
    return {
        "a": {"name": "Lydia", "strength_mod": 0, "con_score": 2, "con_mod": 1},
        "b": {"name": "Ogre", "strength_mod": 0, "con_score": 3, "con_mod": 0, "endurance": True},
        **extra,
    }


def test_fatigue_checks_start_after_con_score_rounds_with_a_rising_dc(
    store_client: TestClient,
) -> None:
    wrestle = Wrestle(store_client, **tired_pair())
    for _ in range(2):
        record, session = wrestle.play(dice(10, 10))
        assert record["fatigue"] == []
    assert session["state"]["con_checks_made"] == {"Lydia": 0, "Ogre": 0}

    record, session = wrestle.play(dice(10, 10, lydia_con=9))  # round 3: Lydia only
    assert record["fatigue"] == [
        {"name": "Lydia", "dc": 10, "roll": 9, "total": 10, "passed": True}
    ]
    assert session["state"]["con_checks_made"] == {"Lydia": 1, "Ogre": 0}
    assert record["rolls"][0] == {
        "who": "Lydia",
        "purpose": "constitution",
        "dice": "1d20",
        "values": [9],
        "source": "supplied",
    }
    assert record["checks"] == {
        "Lydia": {"roll": 10, "total": 10},
        "Ogre": {"roll": 10, "total": 10},
    }

    record, session = wrestle.play(dice(10, 10, lydia_con=10, ogre_con=6))  # round 4: both
    assert record["fatigue"] == [
        {"name": "Lydia", "dc": 11, "roll": 10, "total": 11, "passed": True},
        # Endurance: +4
        {"name": "Ogre", "dc": 10, "roll": 6, "total": 10, "passed": True},
    ]
    assert session["state"]["con_checks_made"] == {"Lydia": 2, "Ogre": 1}

    record, session = wrestle.play(dice(10, 10, lydia_con=11, ogre_con=7))  # round 5
    assert [(check["dc"], check["total"]) for check in record["fatigue"]] == [(12, 12), (11, 11)]
    assert session["state"]["con_checks_made"] == {"Lydia": 3, "Ogre": 2}
    assert session["status"] == "active"

    # Round 6: Lydia fails DC 13; the Ogre passes DC 12 and wins.
    record, session = wrestle.play(dice(lydia_con=11, ogre_con=8))
    assert record["fatigue"] == [
        {"name": "Lydia", "dc": 13, "roll": 11, "total": 12, "passed": False},
        {"name": "Ogre", "dc": 12, "roll": 8, "total": 12, "passed": True},
    ]
    assert (record["checks"], record["round_winner"], record["difference"]) == ({}, None, 0)
    assert (record["finished"], record["winner"], record["reason"]) == (True, "Ogre", "fatigue")
    assert record["summary"] == (
        "Round 6: Constitution: Lydia 12 vs DC 13, fails; Ogre 12 vs DC 12, passes. "
        "Lydia can wrestle no more: Ogre wins."
    )
    assert session["state"]["con_checks_made"] == {"Lydia": 4, "Ogre": 3}
    assert session["result"] == {
        "winner": "Ogre",
        "reason": "fatigue",
        "consequences": [strained("Lydia")],
    }
    assert_problem(wrestle.post_round(), 409)


def test_endurance_makes_the_difference(store_client: TestClient) -> None:
    body = tired_pair()
    body["a"]["con_score"] = 0
    body["b"]["con_score"] = 0
    with_endurance = Wrestle(store_client, **body)
    record, _ = with_endurance.play(dice(10, 10, lydia_con=9, ogre_con=6))
    assert [check["passed"] for check in record["fatigue"]] == [True, True]
    body["b"]["endurance"] = False
    without = Wrestle(store_client, **body)
    record, session = without.play(dice(lydia_con=9, ogre_con=6))
    assert record["fatigue"][1] == {
        "name": "Ogre",
        "dc": 10,
        "roll": 6,
        "total": 6,
        "passed": False,
    }
    assert (record["winner"], record["reason"]) == ("Lydia", "fatigue")
    assert session["result"]["consequences"] == [strained("Ogre")]


def test_both_fail_and_the_higher_ds_wins(store_client: TestClient) -> None:
    body = tired_pair()
    body["a"]["con_score"] = 1
    body["b"]["con_score"] = 1
    wrestle = Wrestle(store_client, **body)
    wrestle.play(dice(10, 15))  # the Ogre by 5
    record, session = wrestle.play(dice(lydia_con=2, ogre_con=2))  # 3 and 6 vs DC 10
    assert [check["passed"] for check in record["fatigue"]] == [False, False]
    assert record["ds"] == {"Lydia": 0, "Ogre": 5}
    assert (record["finished"], record["winner"], record["reason"]) == (True, "Ogre", "fatigue")
    assert record["summary"].endswith(" Both can wrestle no more: Ogre wins on the higher DS.")
    assert session["result"] == {
        "winner": "Ogre",
        "reason": "fatigue",
        "consequences": [strained("Lydia"), strained("Ogre")],
    }


def test_both_fail_at_equal_ds_is_a_draw(store_client: TestClient) -> None:
    body = tired_pair()
    body["a"]["con_score"] = 0
    body["b"]["con_score"] = 0
    wrestle = Wrestle(store_client, **body)
    record, session = wrestle.play(dice(lydia_con=1, ogre_con=1))
    assert record["fatigue"] == [
        {"name": "Lydia", "dc": 10, "roll": 1, "total": 2, "passed": False},
        {"name": "Ogre", "dc": 10, "roll": 1, "total": 5, "passed": False},
    ]
    assert (record["finished"], record["winner"], record["reason"]) == (True, None, "draw")
    assert record["leader"] is None
    assert record["summary"].endswith(" Both can wrestle no more with equal DS: a draw.")
    assert session["status"] == "finished"
    assert session["result"] == {
        "winner": None,
        "reason": "draw",
        "consequences": [strained("Lydia"), strained("Ogre")],
    }


def test_strength_dice_in_a_round_that_ends_on_fatigue_are_reported_unused(
    store_client: TestClient,
) -> None:
    # The fatigue check ends the match before the Strength checks: the Strength dice the
    # table rolled count as thrown and are reported, never refused (the caller could not
    # have known), and the round is played.
    body = tired_pair()
    body["a"]["con_score"] = 0
    wrestle = Wrestle(store_client, **body)
    record, session = wrestle.play(dice(10, 10, lydia_con=1))
    assert (record["reason"], record["winner"]) == ("fatigue", "Ogre")
    assert [(roll["who"], roll["purpose"]) for roll in record["rolls"]] == [
        ("Lydia", "constitution")
    ]
    assert record["unused"] == [
        {"who": "Lydia", "purpose": "strength", "values": [10], "why": "ended"},
        {"who": "Ogre", "purpose": "strength", "values": [10], "why": "ended"},
    ]
    assert session["status"] == "finished"
    (stored,) = wrestle.rounds()
    assert stored["unused"] == record["unused"]


def test_a_constitution_die_with_no_check_due_is_refused_before_any_die(
    store_client: TestClient,
) -> None:
    # Decided by the session's state alone: the first round makes no fatigue check.
    wrestle = Wrestle(store_client, **tired_pair())
    response = wrestle.post_round(dice(10, 10, lydia_con=5))
    assert_problem(response, 422, ["body", "rolls", "Lydia", "constitution"])
    assert (wrestle.session()["version"], wrestle.rounds()) == (1, [])


# --- modifiers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "total"),
    [
        ({}, 12),
        ({"off_hand": True}, 10),
        ({"off_hand": True, "two_weapon_fighting": True}, 12),
        ({"two_weapon_fighting": True}, 12),
        ({"misc_mod": 3}, 15),
        ({"off_hand": True, "misc_mod": -1}, 9),
        ({"off_hand": True, "two_weapon_fighting": True, "misc_mod": 4}, 16),
    ],
)
def test_off_hand_and_misc_mod(store_client: TestClient, flags: dict[str, Any], total: int) -> None:
    wrestle = Wrestle(store_client, a={**LYDIA, **flags})
    record, _ = wrestle.play(dice(10, 6))  # Lydia 10 + 2, the Ogre 6 + 6 = 12
    assert record["checks"]["Lydia"] == {"roll": 10, "total": total}
    assert record["difference"] == abs(total - 12)
    assert (
        record["round_winner"]
        == {True: "Lydia", False: "Ogre", None: None}[None if total == 12 else total > 12]
    )


# --- variants -------------------------------------------------------------------------------


def test_spikes_loser_takes_1d4_plus_the_winners_strength_bonus(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, variant="spikes", target=5)
    record, session = wrestle.play(dice(5, 10, lydia_damage=[3]))  # 7 vs 16: the Ogre by 9
    assert (record["winner"], record["reason"]) == ("Ogre", "target")
    assert record["rolls"][-1] == {
        "who": "Lydia",
        "purpose": "damage",
        "dice": "1d4",
        "values": [3],
        "source": "supplied",
    }
    assert record["summary"].endswith(" Lydia takes 9 damage and an injured hand.")
    result = session["result"]
    assert result["damage"] == {"name": "Lydia", "amount": 9}
    assert [(item["name"], item["effect"]) for item in result["consequences"]] == [
        ("Lydia", "damage"),
        ("Lydia", "injured-hand"),
    ]
    assert "9 damage" in result["consequences"][0]["detail"]


def test_spikes_damage_die_may_be_given_alone(store_client: TestClient) -> None:
    # docs/api.md#supplying-dice: {purpose: value or [values]}.
    wrestle = Wrestle(store_client, variant="spikes", target=5)
    record, session = wrestle.play(
        {"Lydia": {"strength": 5, "damage": 1}, "Ogre": {"strength": 10}}
    )
    assert record["rolls"][-1]["values"] == [1]
    assert session["result"]["damage"] == {"name": "Lydia", "amount": 7}


@pytest.mark.parametrize(("strength_mod", "amount"), [(-1, 4), (0, 4), (3, 7)])
def test_spikes_strength_bonus_is_never_negative(
    store_client: TestClient, strength_mod: int, amount: int
) -> None:
    wrestle = Wrestle(
        store_client, variant="spikes", target=5, a={**LYDIA, "strength_mod": strength_mod}
    )
    _, session = wrestle.play(dice(20, 1, ogre_damage=[4]))
    assert session["result"]["winner"] == "Lydia"
    assert session["result"]["damage"] == {"name": "Ogre", "amount": amount}


def test_spikes_damage_is_rolled_when_not_supplied(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, variant="spikes", target=5)
    record, session = wrestle.play(dice(5, 10))
    damage = record["rolls"][-1]
    assert (damage["who"], damage["purpose"], damage["dice"], damage["source"]) == (
        "Lydia",
        "damage",
        "1d4",
        "rolled",
    )
    (spike,) = damage["values"]
    assert 1 <= spike <= 4
    assert session["result"]["damage"] == {"name": "Lydia", "amount": spike + 6}


def test_spikes_damage_when_the_match_ends_on_fatigue(store_client: TestClient) -> None:
    # Ruling (app/rules/arm_wrestling.py): a fatigue ending has a loser, who takes the damage.
    body = tired_pair(variant="spikes")
    body["a"]["con_score"] = 0
    wrestle = Wrestle(store_client, **body)
    _, session = wrestle.play(dice(lydia_con=1, lydia_damage=[2]))
    assert session["result"]["winner"] == "Ogre"
    assert session["result"]["damage"] == {"name": "Lydia", "amount": 2}  # Ogre's bonus is 0
    assert [item["effect"] for item in session["result"]["consequences"]] == [
        "strained-arm",
        "damage",
        "injured-hand",
    ]


def test_psychic_uses_caster_level(store_client: TestClient) -> None:
    wrestle = Wrestle(
        store_client,
        variant="psychic",
        a={**LYDIA, "caster_level": 5},
        b={**OGRE, "caster_level": 1, "misc_mod": 1},
    )
    record, _ = wrestle.play(dice(10, 10))
    assert record["checks"] == {
        "Lydia": {"roll": 10, "total": 15},
        "Ogre": {"roll": 10, "total": 12},
    }
    assert (record["round_winner"], record["difference"]) == ("Lydia", 3)


def test_psychic_loser_damage(store_client: TestClient) -> None:
    # Caster levels 5 and 1 (+1 misc): 10 + 5 beats 10 + 2 by 3, the target; the Ogre takes
    # the match's loser_damage. Its odds are those of the same match without it.
    match = {
        "variant": "psychic",
        "a": {**LYDIA, "caster_level": 5},
        "b": {**OGRE, "caster_level": 1, "misc_mod": 1},
        "target": 3,
    }
    wrestle = Wrestle(store_client, **match, loser_damage="1d6+2")
    assert wrestle.created["config"]["loser_damage"] == "1d6+2"
    record, session = wrestle.play(dice(10, 10, ogre_damage=[5]))
    assert (record["winner"], record["reason"]) == ("Lydia", "target")
    assert session["result"]["damage"] == {"name": "Ogre", "amount": 7}
    fresh = Wrestle(store_client, **match, loser_damage="1d6+2")
    plain = Wrestle(store_client, **match)
    with_damage = store_client.get(f"{fresh.url}/odds", headers=bearer(fresh.gm)).json()
    without = store_client.get(f"{plain.url}/odds", headers=bearer(plain.gm)).json()
    assert with_damage["a_wins"] == without["a_wins"]


def test_psychic_needs_caster_level(store_client: TestClient) -> None:
    response = store_client.post(
        URL, json={"a": LYDIA, "b": {**OGRE, "caster_level": 1}, "variant": "psychic"}
    )
    assert_problem(response, 422, ["body", "a", "caster_level"])


MENTAL = {
    "variant": "mental",
    "a": {**LYDIA, "int_mod": 3, "wis_score": 1, "wis_mod": 2},
    "b": {**OGRE, "int_mod": -1, "wis_score": 1, "wis_mod": -1},
}


def test_mental_uses_int_and_wisdom(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, **MENTAL)
    record, _ = wrestle.play(dice(10, 10))  # round 1 is free (wis_score 1): no check
    assert record["fatigue"] == []
    assert record["checks"] == {
        "Lydia": {"roll": 10, "total": 13},
        "Ogre": {"roll": 10, "total": 9},
    }
    # Round 2: Wisdom checks (the "constitution" dice) at DC 10 with wis_mod.
    record, session = wrestle.play(dice(lydia_con=8, ogre_con=10))
    assert record["fatigue"] == [
        {"name": "Lydia", "dc": 10, "roll": 8, "total": 10, "passed": True},
        {"name": "Ogre", "dc": 10, "roll": 10, "total": 9, "passed": False},
    ]
    assert record["summary"].startswith("Round 2: Wisdom: ")
    assert (session["result"]["winner"], session["result"]["reason"]) == ("Lydia", "fatigue")
    (strain,) = session["result"]["consequences"]
    assert (strain["name"], strain["effect"]) == ("Ogre", "strained-arm")
    assert "damage" not in session["result"]


def test_mental_loser_damage_with_supplied_dice(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, **MENTAL, target=4, loser_damage="2d6+1")
    assert wrestle.created["config"]["loser_damage"] == "2d6+1"
    record, session = wrestle.play(dice(10, 10, ogre_damage=[4, 5]))  # 13 vs 9: by 4
    assert (record["winner"], record["reason"]) == ("Lydia", "target")
    assert record["rolls"][-1] == {
        "who": "Ogre",
        "purpose": "damage",
        "dice": "2d6+1",
        "values": [4, 5],
        "source": "supplied",
    }
    assert session["result"]["damage"] == {"name": "Ogre", "amount": 10}
    assert [item["effect"] for item in session["result"]["consequences"]] == ["damage"]


def test_mental_loser_damage_with_server_dice(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, **MENTAL, target=4, loser_damage="3d4")
    record, session = wrestle.play(dice(10, 10))
    damage = record["rolls"][-1]
    assert (damage["who"], damage["purpose"], damage["dice"], damage["source"]) == (
        "Ogre",
        "damage",
        "3d4",
        "rolled",
    )
    assert len(damage["values"]) == 3
    assert session["result"]["damage"] == {"name": "Ogre", "amount": sum(damage["values"])}


def test_mental_loser_damage_needs_every_die_or_none(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, **MENTAL, target=4, loser_damage="2d6")
    assert_problem(
        wrestle.post_round(dice(10, 10, ogre_damage=[4])), 422, ["body", "rolls", "Ogre", "damage"]
    )
    assert_problem(
        wrestle.post_round(dice(10, 10, ogre_damage=[4, 5, 6])),
        422,
        ["body", "rolls", "Ogre", "damage"],
    )
    assert_problem(
        wrestle.post_round(dice(10, 10, ogre_damage=[4, 7])),
        422,
        ["body", "rolls", "Ogre", "damage"],
    )
    assert (wrestle.session()["version"], wrestle.rounds()) == (1, [])


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({**MENTAL, "loser_damage": "2d"}, ["body", "loser_damage"]),
        ({**MENTAL, "loser_damage": "banana"}, ["body", "loser_damage"]),
        ({**MENTAL, "loser_damage": "1001d6"}, ["body", "loser_damage"]),
        ({**MENTAL, "loser_damage": ""}, ["body", "loser_damage"]),
        ({"a": LYDIA, "b": OGRE, "loser_damage": "2d6"}, ["body", "loser_damage"]),
        ({**MENTAL, "a": LYDIA}, ["body", "a", "int_mod"]),
        ({**MENTAL, "a": {**LYDIA, "int_mod": 1}}, ["body", "a", "wis_score"]),
        ({"a": LYDIA, "b": {**OGRE, "name": "Lydia"}}, ["body", "b", "name"]),
        ({"a": LYDIA}, ["body", "b"]),
        ({"a": LYDIA, "b": {"name": "Ogre", "strength_mod": 6}}, ["body", "b", "con_score"]),
        ({"a": LYDIA, "b": OGRE, "target": 0}, ["body", "target"]),
        ({"a": LYDIA, "b": OGRE, "target": 101}, ["body", "target"]),
        ({"a": LYDIA, "b": OGRE, "variant": "thumb"}, ["body", "variant"]),
        ({"a": LYDIA, "b": OGRE, "max_rounds": 0}, ["body", "max_rounds"]),
        ({"a": LYDIA, "b": OGRE, "max_rounds": 10_001}, ["body", "max_rounds"]),
        ({"a": {**LYDIA, "grip": 2}, "b": OGRE}, ["body", "a", "grip"]),
        ({"a": LYDIA, "b": OGRE, "seed": 2**63}, ["body", "seed"]),
    ],
)
def test_invalid_creation_is_422(
    store_client: TestClient, body: dict[str, Any], loc: list[str | int]
) -> None:
    assert_problem(store_client.post(URL, json=body), 422, loc)


MENTAL_PAIR = {
    "variant": "mental",
    "a": {**LYDIA, "int_mod": 1, "wis_score": 10},
    "b": {**OGRE, "int_mod": 1, "wis_score": 10},
}


#: Moved from the rules tests when the create body's schema took over single-field checks.
@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"a": LYDIA, "b": OGRE, "variant": "telekinetic"}, ["body", "variant"]),
        (
            {"a": LYDIA, "b": OGRE, "variant": "spikes", "loser_damage": "1d6"},
            ["body", "loser_damage"],
        ),
        ({"a": {**LYDIA, "name": "  "}, "b": OGRE}, ["body", "a", "name"]),
        ({"a": {**LYDIA, "con_score": -1}, "b": OGRE}, ["body", "a", "con_score"]),
        (
            {"a": {"name": "Lydia", "con_score": 10, "con_mod": 0}, "b": OGRE},
            ["body", "a", "strength_mod"],
        ),
        ({"a": {**LYDIA, "strength_mod": "strong"}, "b": OGRE}, ["body", "a", "strength_mod"]),
        ({"a": {**LYDIA, "endurance": "yes"}, "b": OGRE}, ["body", "a", "endurance"]),
        (
            {"a": {**LYDIA, "caster_level": -1}, "b": OGRE, "variant": "psychic"},
            ["body", "a", "caster_level"],
        ),
        (
            {**MENTAL_PAIR, "a": {**LYDIA, "int_mod": 1, "wis_score": -3}},
            ["body", "a", "wis_score"],
        ),
        ({**MENTAL_PAIR, "loser_damage": "d" * 1001}, ["body", "loser_damage"]),
        ({**MENTAL_PAIR, "loser_damage": " "}, ["body", "loser_damage"]),
    ],
)
def test_single_field_violations_are_422(
    store_client: TestClient, body: dict[str, Any], loc: list[str | int]
) -> None:
    assert_problem(store_client.post(URL, json=body), 422, loc)


def test_mental_wis_mod_defaults_to_the_modifier_of_wis_score(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, **{**MENTAL_PAIR, "a": {**LYDIA, "int_mod": 4, "wis_score": 1}})
    # A missing modifier is the one its score gives (1 -> -5):
    # docs/rules.md#ability-modifiers-and-bonuses.
    assert wrestle.created["config"]["a"]["wis_mod"] == -5
    assert wrestle.created["config"]["b"]["wis_mod"] == 0


# --- max_rounds -----------------------------------------------------------------------------


def test_max_rounds_stops_undecided(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, max_rounds=2)
    record, _ = wrestle.play(dice(14, 10))  # 16 vs 16
    assert record["finished"] is False
    record, session = wrestle.play(dice(15, 10))  # 17 vs 16: Lydia by 1
    assert record["ds"] == {"Lydia": 1, "Ogre": 0}
    assert (record["finished"], record["winner"], record["reason"]) == (True, None, "max_rounds")
    assert record["summary"].endswith(" No winner after 2 rounds.")
    assert session["result"] == {"winner": None, "reason": "max_rounds", "consequences": []}
    assert_problem(wrestle.post_round(), 409)


def test_reaching_the_target_in_the_last_round_still_wins(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, max_rounds=1, target=3)
    record, _ = wrestle.play(dice(15, 8))  # 17 vs 14
    assert (record["winner"], record["reason"]) == ("Lydia", "target")


# --- supplied dice that are wrong change nothing --------------------------------------------


@pytest.mark.parametrize(
    ("rolls", "loc"),
    [
        ({"Lydia": {"strength": 21}}, ["body", "rolls", "Lydia", "strength"]),
        ({"Lydia": {"strength": 0}}, ["body", "rolls", "Lydia", "strength"]),
        ({"Lydia": {"strength": [10, 11]}}, ["body", "rolls", "Lydia", "strength"]),
        ({"Lydia": {"constitution": 21}}, ["body", "rolls", "Lydia", "constitution"]),
        ({"Cid": {"strength": 10}}, ["body", "rolls", "Cid"]),
        ({"Lydia": {"luck": 10}}, ["body", "rolls", "Lydia", "luck"]),
        # a fatigue die before any check is due, a damage die without spikes: left unused
        (
            {"Lydia": {"strength": 10, "constitution": 10}},
            ["body", "rolls", "Lydia", "constitution"],
        ),
        ({"Ogre": {"damage": [2]}}, ["body", "rolls", "Ogre", "damage"]),
    ],
)
def test_bad_supplied_dice_are_422_and_change_nothing(
    store_client: TestClient, rolls: dict[str, Any], loc: list[str | int]
) -> None:
    wrestle = Wrestle(store_client)
    wrestle.play(dice(17, 8))
    assert_problem(wrestle.post_round(rolls), 422, loc)
    session = wrestle.session()
    assert (session["version"], session["round"], session["status"]) == (2, 1, "active")
    assert session["state"]["ds"] == {"Lydia": 5, "Ogre": 0}
    assert len(wrestle.rounds()) == 1


def test_spikes_damage_die_out_of_range_changes_nothing(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, variant="spikes", target=5)
    assert_problem(
        wrestle.post_round(dice(5, 10, lydia_damage=[5])), 422, ["body", "rolls", "Lydia", "damage"]
    )
    # Two values for one 1d4: no path of a round uses them.
    assert_problem(
        wrestle.post_round(dice(5, 10, ogre_damage=[2, 3])),
        422,
        ["body", "rolls", "Ogre", "damage"],
    )
    session = wrestle.session()
    assert (session["version"], session["round"], session["result"]) == (1, 0, None)
    assert wrestle.rounds() == []


def test_spikes_damage_the_round_did_not_call_for_is_reported(store_client: TestClient) -> None:
    # Damage before the match ends: the round plays, the die is reported.
    wrestle = Wrestle(store_client, variant="spikes", target=20)
    record, _ = wrestle.play(dice(10, 6, lydia_damage=[2]))
    assert record["finished"] is False
    assert record["unused"] == [
        {"who": "Lydia", "purpose": "damage", "values": [2], "why": "not-needed"}
    ]
    # Damage for the winner: the loser's is rolled by the server, the winner's reported.
    wrestle = Wrestle(store_client, variant="spikes", target=5)
    record, _ = wrestle.play(dice(5, 10, ogre_damage=[2]))
    assert (record["winner"], record["reason"]) == ("Ogre", "target")
    assert record["rolls"][-1]["who"] == "Lydia"
    assert record["rolls"][-1]["source"] == "rolled"
    assert record["unused"] == [{"who": "Ogre", "purpose": "damage", "values": [2], "why": "ended"}]


def test_server_dice_fill_in_what_is_not_supplied(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client)
    record, _ = wrestle.play({"Ogre": {"strength": 8}})
    lydia, ogre = record["rolls"]
    assert (lydia["who"], lydia["purpose"], lydia["source"]) == ("Lydia", "strength", "rolled")
    assert (ogre["who"], ogre["values"], ogre["source"]) == ("Ogre", [8], "supplied")
    assert record["checks"]["Lydia"] == {
        "roll": lydia["values"][0],
        "total": lydia["values"][0] + 2,
    }


# --- resolve and seeds ----------------------------------------------------------------------


def test_resolve_plays_to_the_end(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, **tired_pair(seed=99))
    wrestle.play(dice(12, 10))
    response = wrestle.resolve()
    assert response.status_code == 200, response.text
    answer = response.json()
    session, played = answer["session"], answer["rounds"]
    assert session["status"] == "finished"
    assert session["version"] == 3
    assert [record["number"] for record in played] == list(range(2, session["round"] + 1))
    for record in played:
        assert_record(record)
        assert all(entry["source"] == "rolled" for entry in record["rolls"])
    assert all(record["finished"] is False for record in played[:-1])
    last = played[-1]
    assert last["finished"] is True
    assert session["result"]["winner"] == last["winner"]
    assert session["result"]["reason"] == last["reason"]
    assert session["state"]["ds"] == last["ds"]
    assert wrestle.rounds()[1:] == played
    assert_problem(wrestle.resolve(), 409)


def test_resolve_stops_at_max_rounds(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, target=100, max_rounds=3, seed=5)
    answer = wrestle.resolve().json()
    assert len(answer["rounds"]) == 3
    assert answer["session"]["result"] == {
        "winner": None,
        "reason": "max_rounds",
        "consequences": [],
    }


def test_seeded_sessions_are_reproducible(store_client: TestClient) -> None:
    first = Wrestle(store_client, **tired_pair(seed=12345, variant="spikes"))
    second = Wrestle(store_client, **tired_pair(seed=12345, variant="spikes"))
    resolved = first.resolve().json()["rounds"]
    # Round by round with server dice: each round's dice come from (seed, round number).
    by_round = []
    while second.session()["status"] == "active":
        by_round.append(second.play()[0])
    assert by_round == resolved
    assert first.session()["result"] == second.session()["result"]
    assert first.rounds() == second.rounds()


def test_unseeded_sessions_roll_from_the_server(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client, **tired_pair())
    answer = wrestle.resolve().json()
    assert answer["session"]["status"] == "finished"
    assert all(
        entry["source"] == "rolled" for record in answer["rounds"] for entry in record["rolls"]
    )


# --- the shared lifecycle -------------------------------------------------------------------


def test_creation_answers_201_with_the_normalised_config(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client)
    body = wrestle.created
    assert set(body) >= SESSION_FIELDS | {"tokens"}
    assert body["kind"] == "arm-wrestles"
    assert (body["status"], body["version"], body["round"], body["result"]) == (
        "active",
        1,
        0,
        None,
    )
    assert set(body["tokens"]) == {"gm"}
    assert body["state"] == {
        "ds": {"Lydia": 0, "Ogre": 0},
        "leader": None,
        "con_checks_made": {"Lydia": 0, "Ogre": 0},
    }
    config = body["config"]
    assert (config["target"], config["variant"], config["max_rounds"]) == (20, "standard", 200)
    assert config["a"]["name"] == "Lydia"
    assert (config["a"]["off_hand"], config["a"]["misc_mod"]) == (False, 0)
    session = wrestle.session()
    assert "tokens" not in session
    assert (session["config"], session["state"]) == (config, body["state"])


def test_tokens_unknown_sessions_and_delete(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client)
    other = Wrestle(store_client)
    assert_problem(store_client.get(wrestle.url), 401)
    assert_problem(store_client.post(f"{wrestle.url}/rounds", json={}), 401)
    assert_problem(store_client.get(wrestle.url, headers=other.headers), 404)
    assert_problem(store_client.post(f"{wrestle.url}/resolve", headers=other.headers), 404)
    assert_problem(store_client.get(f"{URL}/nope", headers=wrestle.headers), 404)
    assert wrestle.session()["version"] == 1
    assert store_client.delete(wrestle.url, headers=wrestle.headers).status_code == 204
    assert_problem(store_client.get(wrestle.url, headers=wrestle.headers), 404)
    assert other.session()["version"] == 1


def test_if_match_and_idempotency(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client)
    assert_problem(wrestle.post_round(dice(17, 8), headers={"If-Match": '"2"'}), 412)
    assert wrestle.session()["version"] == 1
    first = wrestle.post_round(dice(17, 8), headers={"If-Match": '"1"', "Idempotency-Key": "k1"})
    assert first.status_code == 200
    replay = wrestle.post_round(dice(17, 8), headers={"If-Match": '"1"', "Idempotency-Key": "k1"})
    assert replay.status_code == 200
    assert replay.headers["idempotent-replayed"] == "true"
    assert replay.json() == first.json()
    session = wrestle.session()
    assert (session["version"], session["state"]["ds"]) == (2, {"Lydia": 5, "Ogre": 0})


def test_text_plain_round(store_client: TestClient) -> None:
    wrestle = Wrestle(store_client)
    response = wrestle.post_round(dice(17, 8), headers={"Accept": "text/plain"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == (
        "Round 1: Lydia beats Ogre by 5: Lydia's DS rises to 5 (Lydia 5, Ogre 0; Lydia leads).\n"
    )


def test_a_long_match_s_odds_are_bounded_from_where_it_stands(store_client: TestClient) -> None:
    # An even match that can last 316 rounds: past the exact walk, after a round (Lydia
    # ahead by 6) the bounded walk answers from that state, as the numeric walk does.
    side = {"strength_mod": 0, "con_score": 200, "con_mod": 100, "endurance": True}
    wrestle = Wrestle(
        store_client,
        a={**side, "name": "Lydia"},
        b={**side, "name": "Ogre"},
        target=100,
        max_rounds=10_000,
    )
    wrestle.play(dice(16, 10))
    answer = store_client.get(f"{wrestle.url}/odds", headers=bearer(wrestle.gm))
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["method"], body["rounds_played"], body["a_wins_exact"]) == ("bounded", 1, None)
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("Lydia", 0, 200, 100, endurance=True),
        arm_wrestling.Competitor("Ogre", 0, 200, 100, endurance=True),
        target=100,
        max_rounds=10_000,
    )
    state = arm_wrestling.State(names=("Lydia", "Ogre"), ds=(6, 0), rounds_played=1)
    walked = numeric.arm_wrestle_odds(config, state)
    for name in ("a_wins", "b_wins", "draw", "undecided", "expected_rounds"):
        assert body[name] == float(getattr(walked.odds, name))
        assert body["error_bound"][name] == walked.bound[name]
    assert body["a_wins"] > body["b_wins"]
