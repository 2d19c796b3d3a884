"""The GURPS one-shot endpoints (docs/api.md#gurps-contests, docs/rules.md#gurps)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rules.gurps import judge_quick_contest, judge_success
from tests.helpers import assert_problem

SUCCESS_ROLL = "/v1/gurps/success-roll"
QUICK_CONTEST = "/v1/gurps/quick-contest"
RESISTANCE_ROLL = "/v1/gurps/resistance-roll"
REGULAR_CONTEST = "/v1/gurps/regular-contest"

SUCCESS_FIELDS = {"skill", "roll", "total", "success", "critical", "margin", "rolls", "summary"}
COMPETITOR_FIELDS = {"name", "skill", "roll", "total", "success", "critical", "margin"}
QUICK_FIELDS = {"winner", "tie", "margin_of_victory", "a", "b", "rolls", "summary"}
RESISTANCE_FIELDS = {
    "affected",
    "winner",
    "margin_of_victory",
    "attacker",
    "defender",
    "rolls",
    "summary",
}
REGULAR_FIELDS = {
    "effective_skills",
    "status",
    "winner",
    "rounds_taken",
    "game_seconds",
    "rounds",
    "rolls",
    "summary",
}

#: Every ordered outcome of 3d6.
OUTCOMES: list[tuple[int, int, int]] = list(
    itertools.product(range(1, 7), range(1, 7), range(1, 7))
)


def roll_of(total: int) -> list[int]:
    """Three d6 that add up to `total` (3..18)."""
    for dice in OUTCOMES:
        if sum(dice) == total:
            return list(dice)
    raise AssertionError(f"no 3d6 roll totals {total}")


def entry(who: str | None, values: list[int], source: str = "supplied") -> dict[str, Any]:
    return {"who": who, "purpose": "success", "dice": "3d6", "values": values, "source": source}


# --- success roll (docs/rules.md#success-roll) ----------------------------------------------


def success(client: TestClient, skill: int, total: int) -> dict[str, Any]:
    roll = roll_of(total)
    response = client.post(SUCCESS_ROLL, json={"skill": skill, "roll": roll})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert set(body) >= SUCCESS_FIELDS
    assert (body["skill"], body["roll"], body["total"]) == (skill, roll, total)
    assert body["rolls"] == [entry(None, roll)]
    return body


@pytest.mark.parametrize("total", [3, 4])
@pytest.mark.parametrize("skill", [-100, -5, 0, 3, 12, 1000])
def test_3_and_4_always_succeed_critically(client: TestClient, skill: int, total: int) -> None:
    body = success(client, skill, total)
    assert body["success"] is True
    assert body["critical"] == "success"
    assert body["margin"] == max(skill - total, 0)


def test_3_against_skill_minus_100_has_margin_0(client: TestClient) -> None:
    body = success(client, -100, 3)
    assert (body["success"], body["critical"], body["margin"]) == (True, "success", 0)
    assert body["summary"] == "Skill -100 rolled 3, made it by 0 (critical success)."


@pytest.mark.parametrize("skill", [16, 17, 20, 100, 1000])
def test_17_always_fails_and_is_not_critical_above_skill_15(client: TestClient, skill: int) -> None:
    body = success(client, skill, 17)
    assert (body["success"], body["critical"]) == (False, None)
    assert body["margin"] == -max(17 - skill, 0)


@pytest.mark.parametrize("skill", [-100, 3, 15, 16, 1000])
def test_18_always_fails_critically(client: TestClient, skill: int) -> None:
    body = success(client, skill, 18)
    assert (body["success"], body["critical"]) == (False, "failure")
    assert body["margin"] == -max(18 - skill, 0)


def test_17_against_skill_1000(client: TestClient) -> None:
    body = success(client, 1000, 17)
    assert (body["success"], body["critical"], body["margin"]) == (False, None, 0)
    assert body["summary"] == "Skill 1000 rolled 17, missed by 0."


@pytest.mark.parametrize(
    ("skill", "total", "succeeds", "critical", "margin"),
    [
        # 5 is a critical success only at skill 15 or more
        (14, 5, True, None, 9),
        (15, 5, True, "success", 10),
        (16, 5, True, "success", 11),
        # 6 is a critical success only at skill 16 or more
        (15, 6, True, None, 9),
        (16, 6, True, "success", 10),
        (30, 6, True, "success", 24),
        # 17 is a critical failure only at skill 15 or less
        (15, 17, False, "failure", -2),
        (16, 17, False, None, -1),
        (10, 17, False, "failure", -7),
        # t >= s + 10 is a critical failure
        (3, 13, False, "failure", -10),
        (3, 12, False, None, -9),
        (6, 16, False, "failure", -10),
        (7, 16, False, None, -9),
        (-5, 5, False, "failure", -10),
        (-100, 5, False, "failure", -105),
        (-6, 4, True, "success", 0),
        # plain successes and failures and their signed margins
        (12, 9, True, None, 3),
        (10, 11, False, None, -1),
        (12, 12, True, None, 0),
        (12, 13, False, None, -1),
        (10, 16, False, None, -6),
        (15, 16, False, None, -1),
        (20, 16, True, None, 4),
        (1000, 16, True, None, 984),
    ],
)
def test_critical_bands_and_margins(
    client: TestClient, skill: int, total: int, succeeds: bool, critical: str | None, margin: int
) -> None:
    body = success(client, skill, total)
    assert (body["success"], body["critical"], body["margin"]) == (succeeds, critical, margin)


def test_success_roll_summary(client: TestClient) -> None:
    assert success(client, 12, 9)["summary"] == "Skill 12 rolled 9, made it by 3."
    assert success(client, 10, 11)["summary"] == "Skill 10 rolled 11, missed by 1."


def test_success_roll_with_server_dice(client: TestClient) -> None:
    body = client.post(SUCCESS_ROLL, json={"skill": 11}).json()
    (rolled,) = body["rolls"]
    assert rolled["source"] == "rolled"
    assert rolled["values"] == body["roll"]
    assert all(1 <= value <= 6 for value in body["roll"])
    assert body["total"] == sum(body["roll"])
    expected = judge_success(11, tuple(body["roll"]))
    assert (body["success"], body["critical"], body["margin"]) == (
        expected.success,
        expected.critical,
        expected.margin,
    )


# --- quick contest (docs/rules.md#quick-contest) --------------------------------------------


def quick(
    client: TestClient, skill_a: int, total_a: int, skill_b: int, total_b: int
) -> dict[str, Any]:
    roll_a, roll_b = roll_of(total_a), roll_of(total_b)
    response = client.post(
        QUICK_CONTEST,
        json={
            "a": {"name": "Ann", "skill": skill_a, "roll": roll_a},
            "b": {"name": "Bob", "skill": skill_b, "roll": roll_b},
        },
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert set(body) >= QUICK_FIELDS
    assert set(body["a"]) >= COMPETITOR_FIELDS
    assert set(body["b"]) >= COMPETITOR_FIELDS
    assert body["rolls"] == [entry("Ann", roll_a), entry("Bob", roll_b)]
    assert body["tie"] is (body["winner"] is None)
    return body


def test_the_api_example(client: TestClient) -> None:
    body = quick(client, 12, 9, 10, 11)
    assert body["summary"] == (
        "Ann (skill 12) rolled 9, made it by 3; Bob (skill 10) rolled 11, missed by 1. "
        "Ann wins by 4."
    )
    assert (body["winner"], body["tie"], body["margin_of_victory"]) == ("Ann", False, 4)
    assert body["a"] == {
        "name": "Ann",
        "skill": 12,
        "roll": roll_of(9),
        "total": 9,
        "success": True,
        "critical": None,
        "margin": 3,
    }
    assert body["b"] == {
        "name": "Bob",
        "skill": 10,
        "roll": roll_of(11),
        "total": 11,
        "success": False,
        "critical": None,
        "margin": -1,
    }


def test_the_api_example_as_text(client: TestClient) -> None:
    response = client.post(
        QUICK_CONTEST,
        json={
            "a": {"name": "Ann", "skill": 12, "roll": [3, 3, 3]},
            "b": {"name": "Bob", "skill": 10, "roll": [4, 4, 3]},
        },
        headers={"Accept": "text/plain"},
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == (
        "Ann (skill 12) rolled 9, made it by 3; Bob (skill 10) rolled 11, missed by 1. "
        "Ann wins by 4.\n"
    )


@pytest.mark.parametrize(
    ("skill_a", "total_a", "skill_b", "total_b", "winner", "margin_of_victory"),
    [
        # one succeeds, the other fails: MoS + MoF
        (10, 11, 12, 9, "Bob", 4),
        (3, 4, 18, 17, "Ann", 0),  # automatic success (margin 0) beats automatic failure (0)
        # both succeed: the larger margin of success wins, by the difference
        (14, 8, 12, 9, "Ann", 3),
        (12, 9, 14, 8, "Bob", 3),
        # both fail: the smaller margin of failure wins, by the difference
        (10, 12, 10, 15, "Ann", 3),
        (8, 16, 10, 12, "Bob", 6),
        # criticals are reported but do not change who wins
        (16, 6, 12, 3, "Ann", 1),
        (1000, 17, 3, 18, "Ann", 15),
    ],
)
def test_quick_contest_outcomes(
    client: TestClient,
    skill_a: int,
    total_a: int,
    skill_b: int,
    total_b: int,
    winner: str,
    margin_of_victory: int,
) -> None:
    body = quick(client, skill_a, total_a, skill_b, total_b)
    assert (body["winner"], body["tie"], body["margin_of_victory"]) == (
        winner,
        False,
        margin_of_victory,
    )
    won, lost = (body["a"], body["b"]) if winner == "Ann" else (body["b"], body["a"])
    assert body["margin_of_victory"] == won["margin"] - lost["margin"]
    assert body["summary"].endswith(f" {winner} wins by {margin_of_victory}.")


def test_criticals_are_reported_in_a_quick_contest(client: TestClient) -> None:
    body = quick(client, 16, 6, 12, 3)
    assert (body["a"]["critical"], body["b"]["critical"]) == ("success", "success")
    assert body["summary"] == (
        "Ann (skill 16) rolled 6, made it by 10 (critical success); "
        "Bob (skill 12) rolled 3, made it by 9 (critical success). Ann wins by 1."
    )
    # An automatic failure with margin 0 against an automatic failure with margin 0: a tie.
    body = quick(client, 1000, 17, 1000, 18)
    assert (body["a"]["critical"], body["b"]["critical"]) == (None, "failure")
    assert (body["winner"], body["tie"], body["margin_of_victory"]) == (None, True, None)


@pytest.mark.parametrize(
    ("skill_a", "total_a", "skill_b", "total_b"),
    [
        (12, 9, 10, 7),  # both succeed by 3
        (10, 12, 12, 14),  # both fail by 2
        (-100, 3, -50, 4),  # two automatic successes, both by 0
        (1000, 17, 500, 18),  # two automatic failures, both by 0
        (5, 5, 5, 5),  # both succeed by 0
    ],
)
def test_quick_contest_ties(
    client: TestClient, skill_a: int, total_a: int, skill_b: int, total_b: int
) -> None:
    body = quick(client, skill_a, total_a, skill_b, total_b)
    assert (body["winner"], body["tie"], body["margin_of_victory"]) == (None, True, None)
    assert body["a"]["margin"] == body["b"]["margin"]
    assert body["summary"].endswith(" A tie: nobody wins.")


def test_quick_contest_names_must_differ(client: TestClient) -> None:
    response = client.post(
        QUICK_CONTEST, json={"a": {"name": "Ann", "skill": 12}, "b": {"name": " Ann ", "skill": 9}}
    )
    assert_problem(response, 422, ["body", "b", "name"])


# --- brute force: every pair of ordered 3d6 outcomes ----------------------------------------


def independent_success(skill: int, total: int) -> tuple[bool, int]:
    """docs/rules.md#success-roll written from the text: (success, margin of success or of
    failure)."""
    if total in (3, 4):
        made = True
    elif total in (17, 18):
        made = False
    else:
        made = total <= skill
    if made:
        return True, max(skill - total, 0)
    return False, max(total - skill, 0)


def independent_quick_contest(
    skill_a: int, total_a: int, skill_b: int, total_b: int
) -> tuple[str | None, int | None]:
    """docs/rules.md#quick-contest case by case, with the margin of victory as the text gives it
    per case."""
    made_a, margin_a = independent_success(skill_a, total_a)
    made_b, margin_b = independent_success(skill_b, total_b)
    if made_a and not made_b:
        return "a", margin_a + margin_b  # MoS of the winner plus MoF of the loser
    if made_b and not made_a:
        return "b", margin_b + margin_a
    if made_a and made_b:  # the larger margin of success wins
        if margin_a == margin_b:
            return None, None
        return ("a", margin_a - margin_b) if margin_a > margin_b else ("b", margin_b - margin_a)
    # both fail: the smaller margin of failure wins
    if margin_a == margin_b:
        return None, None
    return ("a", margin_b - margin_a) if margin_a < margin_b else ("b", margin_a - margin_b)


def independent_critical(skill: int, total: int) -> str | None:
    """The critical bands of docs/rules.md#success-roll, written from the text."""
    if total in (3, 4):
        return "success"  # whatever the skill
    if (total == 5 and skill >= 15) or (total == 6 and skill >= 16):
        return "success"
    if total == 18 or (total == 17 and skill <= 15) or total >= skill + 10:
        return "failure"
    return None


def test_every_total_against_every_skill_matches_the_text() -> None:
    by_total = {sum(roll): roll for roll in OUTCOMES}
    for skill in range(-100, 1001):
        for total, roll in by_total.items():
            judged = judge_success(skill, roll)
            made, margin = independent_success(skill, total)
            assert (judged.total, judged.success) == (total, made), (skill, total)
            assert judged.margin == (margin if made else -margin), (skill, total)
            assert judged.critical == independent_critical(skill, total), (skill, total)


SKILL_PAIRS = [(12, 10), (15, 16), (-100, 1000), (3, 3), (20, 5), (16, 14), (-5, 8)]


@pytest.mark.parametrize(("skill_a", "skill_b"), SKILL_PAIRS)
def test_quick_contest_over_all_dice_matches_an_independent_enumeration(
    skill_a: int, skill_b: int
) -> None:
    tally = {"a": 0, "b": 0, None: 0}
    for roll_a in OUTCOMES:
        judged_a = judge_success(skill_a, roll_a)
        for roll_b in OUTCOMES:
            contest = judge_quick_contest(judged_a, judge_success(skill_b, roll_b))
            expected = independent_quick_contest(skill_a, sum(roll_a), skill_b, sum(roll_b))
            assert (contest.winner, contest.margin_of_victory) == expected, (roll_a, roll_b)
            tally[contest.winner] += 1
    assert sum(tally.values()) == 216 * 216
    # The contest is symmetric: swapping the sides swaps the wins.
    swapped = {"a": 0, "b": 0, None: 0}
    for roll_a in OUTCOMES:
        for roll_b in OUTCOMES:
            winner, _ = independent_quick_contest(skill_b, sum(roll_a), skill_a, sum(roll_b))
            swapped[winner] += 1
    assert (swapped["a"], swapped["b"], swapped[None]) == (tally["b"], tally["a"], tally[None])


def test_equal_skills_win_equally_often() -> None:
    tally = {"a": 0, "b": 0, None: 0}
    for roll_a in OUTCOMES:
        for roll_b in OUTCOMES:
            contest = judge_quick_contest(judge_success(11, roll_a), judge_success(11, roll_b))
            tally[contest.winner] += 1
    assert tally["a"] == tally["b"]
    assert tally[None] > 0


@pytest.mark.parametrize(("skill_a", "skill_b"), SKILL_PAIRS[:4])
def test_quick_contest_over_http_spot_checks_the_enumeration(
    client: TestClient, skill_a: int, skill_b: int
) -> None:
    # Every 97th pair of the 46 656 (97 is prime to 216, so every roll of each side appears).
    for index in range(0, 216 * 216, 97):
        roll_a, roll_b = OUTCOMES[index // 216], OUTCOMES[index % 216]
        body = client.post(
            QUICK_CONTEST,
            json={
                "a": {"name": "Ann", "skill": skill_a, "roll": list(roll_a)},
                "b": {"name": "Bob", "skill": skill_b, "roll": list(roll_b)},
            },
        ).json()
        winner, margin_of_victory = independent_quick_contest(
            skill_a, sum(roll_a), skill_b, sum(roll_b)
        )
        names = {"a": "Ann", "b": "Bob", None: None}
        assert (body["winner"], body["margin_of_victory"], body["tie"]) == (
            names[winner],
            margin_of_victory,
            winner is None,
        ), (roll_a, roll_b)


# --- resistance roll (docs/rules.md#resistance-roll) ----------------------------------------


def resistance(
    client: TestClient,
    attacker: tuple[int, list[int] | None],
    defender: tuple[int, list[int] | None],
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "attacker": {"name": "Wizard", "skill": attacker[0]},
        "defender": {"name": "Orc", "skill": defender[0]},
        **extra,
    }
    if attacker[1] is not None:
        body["attacker"]["roll"] = attacker[1]
    if defender[1] is not None:
        body["defender"]["roll"] = defender[1]
    response = client.post(RESISTANCE_ROLL, json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    assert set(result) >= RESISTANCE_FIELDS
    assert set(result["attacker"]) >= COMPETITOR_FIELDS
    return result


def test_a_failed_attack_means_the_defender_does_not_roll(client: TestClient) -> None:
    result = resistance(client, (10, [6, 5, 1]), (11, [1, 1, 1]))
    assert result["attacker"]["success"] is False
    assert result["attacker"]["margin"] == -2
    assert (result["affected"], result["winner"], result["margin_of_victory"]) == (
        False,
        "Orc",
        None,
    )
    assert result["defender"] == {"name": "Orc", "skill": 11, "rolled": False}
    # The supplied defender dice count as thrown: left out of `rolls`, reported unused.
    assert result["rolls"] == [entry("Wizard", [6, 5, 1])]
    assert result["unused"] == [
        {"who": "Orc", "purpose": "success", "values": [1, 1, 1], "why": "ended"}
    ]
    assert result["summary"] == (
        "Wizard (skill 10) rolled 12, missed by 2; Orc need not resist. Orc is not affected."
    )


def test_a_failed_attack_rolls_no_server_dice_for_the_defender(client: TestClient) -> None:
    result = resistance(client, (1000, [6, 6, 6]), (11, None))
    assert result["defender"]["rolled"] is False
    assert "roll" not in result["defender"]
    assert [roll["who"] for roll in result["rolls"]] == ["Wizard"]


def test_the_attacker_affects_by_winning_outright(client: TestClient) -> None:
    result = resistance(client, (14, [2, 3, 4]), (11, [4, 4, 4]))
    assert (result["affected"], result["winner"], result["margin_of_victory"]) == (
        True,
        "Wizard",
        6,
    )
    assert result["defender"] == {
        "name": "Orc",
        "skill": 11,
        "rolled": True,
        "roll": [4, 4, 4],
        "total": 12,
        "success": False,
        "critical": None,
        "margin": -1,
    }
    assert result["rolls"] == [entry("Wizard", [2, 3, 4]), entry("Orc", [4, 4, 4])]


def test_the_defender_resists_by_a_better_margin(client: TestClient) -> None:
    result = resistance(client, (14, [4, 4, 4]), (11, [1, 2, 3]))
    assert (result["affected"], result["winner"], result["margin_of_victory"]) == (
        False,
        "Orc",
        3,
    )
    assert result["defender"]["rolled"] is True


@pytest.mark.parametrize(
    ("attacker", "defender"),
    [
        ((14, [3, 3, 3]), (11, [2, 2, 2])),  # both succeed by 5
        ((3, [1, 1, 1]), (-50, [1, 1, 2])),  # two automatic successes, both by 0
        ((10, [4, 3, 3]), (4, [1, 1, 2])),  # made it by 0 vs an automatic success by 0
    ],
)
def test_every_tie_goes_to_the_defender(
    client: TestClient, attacker: tuple[int, list[int]], defender: tuple[int, list[int]]
) -> None:
    result = resistance(client, attacker, defender)
    assert result["attacker"]["margin"] == result["defender"]["margin"]
    assert (result["affected"], result["winner"], result["margin_of_victory"]) == (
        False,
        "Orc",
        None,
    )
    assert result["summary"].endswith(" A tie goes to the defender: Orc resists.")


def test_resistance_roll_with_server_dice(client: TestClient) -> None:
    result = resistance(client, (10, None), (10, None), seed=5)
    rolled = result["rolls"]
    assert rolled[0]["who"] == "Wizard"
    assert all(roll["source"] == "rolled" for roll in rolled)
    assert len(rolled) == (2 if result["attacker"]["success"] else 1)
    assert result["defender"]["rolled"] is result["attacker"]["success"]


# --- regular contest, one shot (docs/rules.md#regular-contest) ------------------------------

ADJUSTMENTS = [
    ((5, 3), (12, 10)),
    ((3, 5), (10, 12)),
    ((19, 16), (13, 10)),
    ((600, 500), (12, 10)),
    ((16, 16), (10, 10)),
    # and the branches around them
    ((500, 600), (10, 12)),
    ((1000, 21), (476, 10)),
    ((21, 20), (11, 10)),  # not both above 20, but both 14 or more
    ((25, 10), (25, 10)),
    ((14, 30), (10, 26)),
    ((6, 7), (6, 7)),
    ((-100, 6), (10, 116)),
    ((13, 18), (13, 18)),
]


def regular(client: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(REGULAR_CONTEST, json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    assert set(result) >= REGULAR_FIELDS
    return result


@pytest.mark.parametrize(("skills", "effective"), ADJUSTMENTS)
def test_extreme_scores_are_adjusted(
    client: TestClient, skills: tuple[int, int], effective: tuple[int, int]
) -> None:
    expected = effective
    result = regular(
        client,
        {
            "a": {"name": "Giant", "skill": skills[0]},
            "b": {"name": "Ogre", "skill": skills[1]},
            "max_rounds": 1,
            "rounds": [{"a": [3, 3, 3], "b": [3, 3, 3]}],
        },
    )
    assert result["effective_skills"] == {"Giant": expected[0], "Ogre": expected[1]}
    assert result["summary"].startswith(
        f"Giant (effective {expected[0]}) vs Ogre (effective {expected[1]}): "
    )


@pytest.mark.parametrize(("skills", "_effective"), ADJUSTMENTS)
def test_normalize_false_keeps_the_scores(
    client: TestClient, skills: tuple[int, int], _effective: tuple[int, int]
) -> None:
    result = regular(
        client,
        {
            "a": {"name": "Giant", "skill": skills[0]},
            "b": {"name": "Ogre", "skill": skills[1]},
            "normalize": False,
            "max_rounds": 1,
        },
    )
    assert result["effective_skills"] == {"Giant": skills[0], "Ogre": skills[1]}


def test_supplied_rounds_are_played_in_order(client: TestClient) -> None:
    result = regular(
        client,
        {
            "a": {"name": "Ann", "skill": 5},  # 12 after the adjustment
            "b": {"name": "Bob", "skill": 3},  # 10
            "seconds_per_round": 6,
            "rounds": [
                {"a": [6, 6, 6], "b": [6, 6, 5]},  # both fail
                {"a": [1, 2, 3], "b": [2, 2, 2]},  # both succeed
                {"a": [5, 5, 3], "b": [4, 4, 2]},  # Ann fails on 13, Bob makes 10
            ],
        },
    )
    assert (result["status"], result["winner"], result["rounds_taken"]) == ("decided", "Bob", 3)
    assert result["game_seconds"] == 18
    assert result["rounds"] == [
        {
            "number": 1,
            "a": {"roll": [6, 6, 6], "total": 18, "success": False},
            "b": {"roll": [6, 6, 5], "total": 17, "success": False},
        },
        {
            "number": 2,
            "a": {"roll": [1, 2, 3], "total": 6, "success": True},
            "b": {"roll": [2, 2, 2], "total": 6, "success": True},
        },
        {
            "number": 3,
            "a": {"roll": [5, 5, 3], "total": 13, "success": False},
            "b": {"roll": [4, 4, 2], "total": 10, "success": True},
        },
    ]
    assert result["rolls"] == [
        entry("Ann", [6, 6, 6]),
        entry("Bob", [6, 6, 5]),
        entry("Ann", [1, 2, 3]),
        entry("Bob", [2, 2, 2]),
        entry("Ann", [5, 5, 3]),
        entry("Bob", [4, 4, 2]),
    ]
    assert result["summary"] == (
        "Ann (effective 12) vs Bob (effective 10): Bob beats Ann after 3 rounds (18 s)."
    )


def test_server_dice_continue_after_the_supplied_rounds(client: TestClient) -> None:
    result = regular(
        client,
        {
            "a": {"name": "Ann", "skill": 10},
            "b": {"name": "Bob", "skill": 10},
            "rounds": [{"a": [1, 1, 1], "b": [1, 1, 2]}],
            "seed": 11,
        },
    )
    assert result["rounds"][0]["a"]["roll"] == [1, 1, 1]
    assert result["rolls"][:2] == [entry("Ann", [1, 1, 1]), entry("Bob", [1, 1, 2])]
    assert all(roll["source"] == "rolled" for roll in result["rolls"][2:])
    assert len(result["rolls"]) == 2 * result["rounds_taken"]
    assert result["rounds_taken"] >= 2
    last = result["rounds"][-1]
    assert last["a"]["success"] != last["b"]["success"]
    assert result["winner"] == ("Ann" if last["a"]["success"] else "Bob")
    for played in result["rounds"][:-1]:
        assert played["a"]["success"] == played["b"]["success"]


def test_max_rounds_stops_undecided(client: TestClient) -> None:
    result = regular(
        client,
        {
            "a": {"name": "Ann", "skill": 10},
            "b": {"name": "Bob", "skill": 10},
            "max_rounds": 2,
            "seconds_per_round": 5,
            "rounds": [{"a": [1, 1, 1], "b": [1, 1, 1]}, {"a": [6, 6, 6], "b": [6, 6, 6]}],
        },
    )
    assert (result["status"], result["winner"], result["rounds_taken"]) == ("undecided", None, 2)
    assert result["game_seconds"] == 10
    assert result["summary"].endswith(": Undecided after 2 rounds (10 s).")


def test_default_seconds_per_round_is_1(client: TestClient) -> None:
    result = regular(
        client,
        {
            "a": {"name": "Ann", "skill": 10},
            "b": {"name": "Bob", "skill": 10},
            "rounds": [{"a": [1, 1, 1], "b": [1, 1, 1]}, {"a": [1, 1, 1], "b": [6, 6, 6]}],
        },
    )
    assert (result["rounds_taken"], result["game_seconds"], result["winner"]) == (2, 2, "Ann")


@pytest.mark.parametrize(
    ("extra", "loc"),
    [
        # the contest ends in round 1, but two rounds are supplied
        (
            {"rounds": [{"a": [1, 1, 1], "b": [6, 6, 6]}, {"a": [1, 1, 1], "b": [6, 6, 6]}]},
            ["body", "rounds"],
        ),
        # more rounds than max_rounds
        (
            {
                "max_rounds": 1,
                "rounds": [{"a": [1, 1, 1], "b": [1, 1, 1]}, {"a": [1, 1, 1], "b": [6, 6, 6]}],
            },
            ["body", "rounds"],
        ),
        ({"rounds": [{"a": [1, 1, 7], "b": [1, 1, 1]}]}, ["body", "rounds", 0, "a", 2]),
        ({"rounds": [{"a": [1, 1], "b": [1, 1, 1]}]}, ["body", "rounds", 0, "a"]),
        ({"rounds": [{"a": [1, 1, 1]}]}, ["body", "rounds", 0, "b"]),
        ({"max_rounds": 0}, ["body", "max_rounds"]),
        ({"max_rounds": 10_001}, ["body", "max_rounds"]),
        ({"seconds_per_round": -1}, ["body", "seconds_per_round"]),
        ({"normalize": "maybe"}, ["body", "normalize"]),
        ({"seed": 2**63}, ["body", "seed"]),
    ],
)
def test_regular_contest_invalid_input(
    client: TestClient, extra: dict[str, Any], loc: list[str | int]
) -> None:
    body = {"a": {"name": "Ann", "skill": 10}, "b": {"name": "Bob", "skill": 10}, **extra}
    assert_problem(client.post(REGULAR_CONTEST, json=body), 422, loc)


def test_a_long_contest_within_max_rounds_10000(client: TestClient) -> None:
    # Skill -100 against -100 without the adjustment: only 3 and 4 succeed, so it is long.
    result = regular(
        client,
        {
            "a": {"name": "Ann", "skill": -100},
            "b": {"name": "Bob", "skill": -100},
            "normalize": False,
            "max_rounds": 10_000,
            "seed": 3,
        },
    )
    assert result["rounds_taken"] == len(result["rounds"]) <= 10_000
    assert result["game_seconds"] == result["rounds_taken"]


# --- seeds, text/plain, errors --------------------------------------------------------------

SEEDED = [
    (SUCCESS_ROLL, {"skill": 12, "seed": 42}),
    (
        QUICK_CONTEST,
        {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}, "seed": 42},
    ),
    (
        RESISTANCE_ROLL,
        {
            "attacker": {"name": "Wizard", "skill": 14},
            "defender": {"name": "Orc", "skill": 11},
            "seed": 2**63 - 1,
        },
    ),
    (
        REGULAR_CONTEST,
        {"a": {"name": "Giant", "skill": 600}, "b": {"name": "Ogre", "skill": 500}, "seed": 0},
    ),
]


@pytest.mark.parametrize(("url", "body"), SEEDED)
def test_seeded_requests_are_byte_identical(
    client: TestClient, url: str, body: dict[str, Any]
) -> None:
    first = client.post(url, json=body)
    second = client.post(url, json=body)
    assert first.status_code == 200
    assert first.content == second.content
    assert all(roll["source"] == "rolled" for roll in first.json()["rolls"])


def test_different_seeds_roll_differently(client: TestClient) -> None:
    rolls = {
        tuple(client.post(SUCCESS_ROLL, json={"skill": 10, "seed": seed}).json()["roll"])
        for seed in range(20)
    }
    assert len(rolls) > 1


@pytest.mark.parametrize(("url", "body"), SEEDED)
def test_text_plain_is_the_summary_line(client: TestClient, url: str, body: dict[str, Any]) -> None:
    as_json = client.post(url, json=body).json()
    response = client.post(url, json=body, headers={"Accept": "text/plain"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == as_json["summary"] + "\n"


@pytest.mark.parametrize("url", [SUCCESS_ROLL, QUICK_CONTEST, RESISTANCE_ROLL, REGULAR_CONTEST])
def test_malformed_json_is_400(client: TestClient, url: str) -> None:
    response = client.post(
        url, content=b'{"skill": 12', headers={"Content-Type": "application/json"}
    )
    assert_problem(response, 400)


@pytest.mark.parametrize("url", [SUCCESS_ROLL, QUICK_CONTEST, RESISTANCE_ROLL, REGULAR_CONTEST])
def test_a_body_over_64_kib_is_413(client: TestClient, url: str) -> None:
    padding = " " * (64 * 1024)
    response = client.post(
        url,
        content=f'{{"skill": 12{padding}}}'.encode(),
        headers={"Content-Type": "application/json"},
    )
    assert_problem(response, 413)


def test_a_body_of_64_kib_is_not_413(client: TestClient) -> None:
    prefix = b'{"skill": 12'
    content = prefix + b" " * (64 * 1024 - len(prefix) - 1) + b"}"
    assert len(content) == 64 * 1024
    response = client.post(
        SUCCESS_ROLL, content=content, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("url", "body", "loc"),
    [
        (SUCCESS_ROLL, {}, ["body", "skill"]),
        (SUCCESS_ROLL, {"skill": -101}, ["body", "skill"]),
        (SUCCESS_ROLL, {"skill": 1001}, ["body", "skill"]),
        (SUCCESS_ROLL, {"skill": 12.5}, ["body", "skill"]),
        (SUCCESS_ROLL, {"skill": 12, "roll": [1, 2]}, ["body", "roll"]),
        (SUCCESS_ROLL, {"skill": 12, "roll": [1, 2, 3, 4]}, ["body", "roll"]),
        (SUCCESS_ROLL, {"skill": 12, "roll": [0, 2, 3]}, ["body", "roll", 0]),
        (SUCCESS_ROLL, {"skill": 12, "roll": [1, 2, 7]}, ["body", "roll", 2]),
        (SUCCESS_ROLL, {"skill": 12, "seed": -1}, ["body", "seed"]),
        (SUCCESS_ROLL, {"skill": 12, "luck": 1}, ["body", "luck"]),
        (QUICK_CONTEST, {"a": {"name": "Ann", "skill": 12}}, ["body", "b"]),
        (
            QUICK_CONTEST,
            {"a": {"name": "", "skill": 12}, "b": {"name": "Bob", "skill": 12}},
            ["body", "a", "name"],
        ),
        (
            QUICK_CONTEST,
            {
                "a": {"name": "Ann", "skill": 12, "roll": [6, 6, 9]},
                "b": {"name": "Bob", "skill": 1},
            },
            ["body", "a", "roll", 2],
        ),
        (
            QUICK_CONTEST,
            {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Ann", "skill": 10}},
            ["body", "b", "name"],
        ),
        (
            RESISTANCE_ROLL,
            {"attacker": {"name": "W", "skill": 12}, "defender": {"name": "W", "skill": 10}},
            ["body", "defender", "name"],
        ),
        (
            RESISTANCE_ROLL,
            {
                "attacker": {"name": "W", "skill": 3, "roll": [6, 6, 6]},
                "defender": {"name": "O", "skill": 10, "roll": [6, 6]},
            },
            ["body", "defender", "roll"],
        ),
        (
            REGULAR_CONTEST,
            {"a": {"name": "Ann", "skill": 10}, "b": {"name": "Ann", "skill": 10}},
            ["body", "b", "name"],
        ),
        (
            REGULAR_CONTEST,
            {"a": {"name": "Ann", "skill": 10, "roll": [1, 1, 1]}, "b": {"name": "B", "skill": 1}},
            ["body", "a", "roll"],
        ),
    ],
)
def test_invalid_input_is_422(
    client: TestClient, url: str, body: dict[str, Any], loc: list[str | int]
) -> None:
    assert_problem(client.post(url, json=body), 422, loc)


# --- any schema-valid body resolves or is a 422, never a 5xx ---------------------------------

names = st.text(min_size=0, max_size=70)
skills = st.integers(-100, 1000)
rolls = st.lists(st.integers(1, 6), min_size=3, max_size=3)
seeds = st.integers(0, 2**63 - 1)


def competitors(with_roll: bool) -> st.SearchStrategy[dict[str, Any]]:
    optional = {"roll": rolls} if with_roll else {}
    return st.fixed_dictionaries({"name": names, "skill": skills}, optional=optional)


BODIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    SUCCESS_ROLL: st.fixed_dictionaries({"skill": skills}, optional={"roll": rolls, "seed": seeds}),
    QUICK_CONTEST: st.fixed_dictionaries(
        {"a": competitors(True), "b": competitors(True)}, optional={"seed": seeds}
    ),
    RESISTANCE_ROLL: st.fixed_dictionaries(
        {"attacker": competitors(True), "defender": competitors(True)}, optional={"seed": seeds}
    ),
    REGULAR_CONTEST: st.fixed_dictionaries(
        {"a": competitors(False), "b": competitors(False)},
        optional={
            "normalize": st.booleans(),
            "max_rounds": st.integers(1, 300),
            "seconds_per_round": st.integers(0, 86_400),
            "rounds": st.lists(
                st.fixed_dictionaries({"a": rolls, "b": rolls}), min_size=0, max_size=4
            ),
            "seed": seeds,
        },
    ),
}


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_schema_valid_body_resolves_or_is_422(client: TestClient, data: st.DataObject) -> None:
    url = data.draw(st.sampled_from(sorted(BODIES)))
    body = data.draw(BODIES[url])
    response = client.post(url, json=body)
    assert response.status_code in (200, 422), response.text
    if response.status_code == 422:
        assert_problem(response, 422)
        return
    result = response.json()
    assert result["summary"]
    assert all(1 <= value <= 6 for roll in result["rolls"] for value in roll["values"])
    if url == SUCCESS_ROLL:
        assert result["total"] == sum(result["roll"])
        total = result["total"]
        assert result["success"] is (total <= 4 or total <= min(body["skill"], 16))
    elif url == QUICK_CONTEST:
        if result["winner"] is not None:
            won, lost = (
                (result["a"], result["b"])
                if result["winner"] == result["a"]["name"]
                else (result["b"], result["a"])
            )
            assert result["margin_of_victory"] == won["margin"] - lost["margin"] >= 0
    elif url == RESISTANCE_ROLL:
        assert result["defender"]["rolled"] is result["attacker"]["success"]
        assert result["affected"] is (result["winner"] == result["attacker"]["name"])
    else:
        assert result["rounds_taken"] == len(result["rounds"]) >= len(body.get("rounds", []))
        assert result["game_seconds"] == result["rounds_taken"] * body.get("seconds_per_round", 1)
