"""Regular contests as sessions, on SQLite and PostgreSQL.

The API is docs/api.md#regular-contests, the rules docs/rules.md#regular-contest.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers import Session, assert_problem

URL = "/v1/regular-contests"
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
RECORD_FIELDS = {"number", "a", "b", "finished", "winner", "rolls", "summary"}

#: 3d6 rolls by outcome against an effective skill of 10 (the adjusted skills below).
MADE = [1, 2, 3]  # 6
MISSED = [6, 5, 4]  # 15


class Contest(Session):
    """A regular contest created through the API."""

    def __init__(self, client: TestClient, body: dict[str, Any]) -> None:
        super().__init__(client, "regular-contests", body)

    def play(self, rolls: dict[str, Any] | None = None) -> dict[str, Any]:
        before = self.session()["version"]
        response = self.post_round(rolls)
        assert response.status_code == 200, response.text
        answer: dict[str, Any] = response.json()
        record, session = answer["round"], answer["session"]
        assert set(record) >= RECORD_FIELDS
        assert record["number"] == session["round"]
        assert session["version"] == before + 1
        assert response.headers["etag"] == f'"{session["version"]}"'
        assert record["summary"].startswith(f"Round {record['number']}: ")
        for entry in record["rolls"]:
            assert set(entry) == {"who", "purpose", "dice", "values", "source"}
        return answer


def make(client: TestClient, a: int = 3, b: int = 3, **extra: Any) -> Contest:
    """Ann and Bob; skills 3 and 3 become 10 and 10 after the adjustment."""
    return Contest(
        client, {"a": {"name": "Ann", "skill": a}, "b": {"name": "Bob", "skill": b}, **extra}
    )


# --- creation -------------------------------------------------------------------------------


def test_creation_answers_201_with_the_session_and_a_gm_token(store_client: TestClient) -> None:
    contest = make(store_client, 5, 3, seconds_per_round=6)
    body = contest.created
    assert set(body) >= SESSION_FIELDS | {"tokens"}
    assert body["kind"] == "regular-contests"
    assert (body["status"], body["version"], body["round"], body["result"]) == (
        "active",
        1,
        0,
        None,
    )
    assert set(body["tokens"]) == {"gm"}
    assert body["tokens"]["gm"]
    assert body["config"] == {
        "a": {"name": "Ann", "skill": 5},
        "b": {"name": "Bob", "skill": 3},
        "normalize": True,
        "max_rounds": 100,
        "seconds_per_round": 6,
        "effective_skills": {"Ann": 12, "Bob": 10},
    }
    assert body["state"]["effective_skills"] == {"Ann": 12, "Bob": 10}
    assert body["state"]["rounds"] == 0
    assert body["state"]["winner"] is None
    session = contest.session()
    assert "tokens" not in session
    assert session["config"] == body["config"]


@pytest.mark.parametrize(
    ("skills", "effective"),
    [
        ((5, 3), (12, 10)),
        ((3, 5), (10, 12)),
        ((19, 16), (13, 10)),
        ((600, 500), (12, 10)),
        ((16, 16), (10, 10)),
        ((500, 600), (10, 12)),
        ((12, 9), (12, 9)),
    ],
)
def test_extreme_scores_are_adjusted_at_creation(
    store_client: TestClient, skills: tuple[int, int], effective: tuple[int, int]
) -> None:
    contest = make(store_client, *skills)
    expected = {"Ann": effective[0], "Bob": effective[1]}
    assert contest.created["config"]["effective_skills"] == expected
    assert contest.created["state"]["effective_skills"] == expected
    # The rounds are rolled against the adjusted skills.
    record = contest.play({"Ann": {"success": [3, 3, 3]}, "Bob": {"success": [3, 3, 3]}})["round"]
    assert (record["a"]["skill"], record["b"]["skill"]) == effective


def test_normalize_false_keeps_the_scores(store_client: TestClient) -> None:
    contest = make(store_client, 600, 500, normalize=False)
    assert contest.created["config"]["normalize"] is False
    assert contest.created["config"]["effective_skills"] == {"Ann": 600, "Bob": 500}


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"a": {"name": "Ann", "skill": 3}}, ["body", "b"]),
        (
            {"a": {"name": "Ann", "skill": 3}, "b": {"name": "Ann", "skill": 4}},
            ["body", "b", "name"],
        ),
        (
            {"a": {"name": "Ann", "skill": 1001}, "b": {"name": "B", "skill": 4}},
            ["body", "a", "skill"],
        ),
        (
            {
                "a": {"name": "Ann", "skill": 3},
                "b": {"name": "B", "skill": 4},
                "max_rounds": 10_001,
            },
            ["body", "max_rounds"],
        ),
        (
            {"a": {"name": "Ann", "skill": 3}, "b": {"name": "B", "skill": 4}, "rounds": []},
            ["body", "rounds"],
        ),
        (
            {"a": {"name": "Ann", "skill": 3}, "b": {"name": "B", "skill": 4}, "seed": -1},
            ["body", "seed"],
        ),
    ],
)
def test_invalid_creation_is_422(
    store_client: TestClient, body: dict[str, Any], loc: list[str | int]
) -> None:
    assert_problem(store_client.post(URL, json=body), 422, loc)


def test_malformed_json_is_400(store_client: TestClient) -> None:
    response = store_client.post(
        URL, content=b'{"a": {"name"', headers={"Content-Type": "application/json"}
    )
    assert_problem(response, 400)


# --- rounds ---------------------------------------------------------------------------------


def test_exactly_one_success_finishes_the_contest(store_client: TestClient) -> None:
    contest = make(store_client, seconds_per_round=6)
    answer = contest.play({"Ann": {"success": MISSED}, "Bob": {"success": MADE}})
    record, session = answer["round"], answer["session"]
    assert record["number"] == 1
    assert record["a"] == {
        "name": "Ann",
        "roll": MISSED,
        "total": 15,
        "success": False,
        "skill": 10,
        "margin": -5,
        "critical": None,
    }
    assert record["b"]["roll"] == MADE
    assert (record["b"]["total"], record["b"]["success"], record["b"]["margin"]) == (6, True, 4)
    assert (record["finished"], record["winner"]) == (True, "Bob")
    assert record["rolls"] == [
        {"who": "Ann", "purpose": "success", "dice": "3d6", "values": MISSED, "source": "supplied"},
        {"who": "Bob", "purpose": "success", "dice": "3d6", "values": MADE, "source": "supplied"},
    ]
    assert record["summary"] == (
        "Round 1: Ann (skill 10) rolled 15, missed by 5; Bob (skill 10) rolled 6, made it by 4. "
        "Bob wins the contest."
    )
    assert (session["status"], session["version"], session["round"]) == ("finished", 2, 1)
    assert session["state"]["winner"] == "Bob"
    assert session["result"] == {
        "winner": "Bob",
        "status": "decided",
        "rounds_taken": 1,
        "game_seconds": 6,
        "effective_skills": {"Ann": 10, "Bob": 10},
    }
    assert contest.rounds() == [record]


@pytest.mark.parametrize(("ann", "bob"), [(MADE, MADE), (MISSED, MISSED), ([1, 1, 1], [1, 1, 2])])
def test_both_succeed_or_both_fail_continues(
    store_client: TestClient, ann: list[int], bob: list[int]
) -> None:
    contest = make(store_client)
    answer = contest.play({"Ann": {"success": ann}, "Bob": {"success": bob}})
    record, session = answer["round"], answer["session"]
    assert record["a"]["success"] == record["b"]["success"]
    assert (record["finished"], record["winner"]) == (False, None)
    assert record["summary"].endswith(" No winner yet.")
    assert (session["status"], session["result"], session["round"]) == ("active", None, 1)
    # The next round decides it.
    answer = contest.play({"Ann": {"success": MADE}, "Bob": {"success": MISSED}})
    assert answer["round"]["number"] == 2
    assert answer["session"]["result"]["winner"] == "Ann"
    assert answer["session"]["result"]["rounds_taken"] == 2
    assert [played["number"] for played in contest.rounds()] == [1, 2]


def test_a_finished_contest_refuses_more_rounds(store_client: TestClient) -> None:
    contest = make(store_client)
    contest.play({"Ann": {"success": MADE}, "Bob": {"success": MISSED}})
    assert_problem(contest.post_round(), 409)
    assert_problem(store_client.post(f"{contest.url}/resolve", headers=contest.headers), 409)
    session = contest.session()
    assert (session["version"], session["round"]) == (2, 1)


def test_max_rounds_stops_undecided(store_client: TestClient) -> None:
    contest = make(store_client, max_rounds=2, seconds_per_round=10)
    first = contest.play({"Ann": {"success": MADE}, "Bob": {"success": MADE}})
    assert first["round"]["finished"] is False
    second = contest.play({"Ann": {"success": MISSED}, "Bob": {"success": MISSED}})
    record, session = second["round"], second["session"]
    assert (record["finished"], record["winner"]) == (True, None)
    assert record["summary"].endswith(" Undecided after 2 rounds.")
    assert session["status"] == "finished"
    assert session["result"] == {
        "winner": None,
        "status": "undecided",
        "rounds_taken": 2,
        "game_seconds": 20,
        "effective_skills": {"Ann": 10, "Bob": 10},
    }
    assert_problem(contest.post_round(), 409)


def test_dice_not_supplied_are_rolled(store_client: TestClient) -> None:
    contest = make(store_client)
    record = contest.play({"Ann": {"success": MADE}})["round"]
    ann, bob = record["rolls"]
    assert (ann["who"], ann["source"], ann["values"]) == ("Ann", "supplied", MADE)
    assert (bob["who"], bob["source"], bob["dice"]) == ("Bob", "rolled", "3d6")
    assert bob["values"] == record["b"]["roll"]
    assert record["b"]["total"] == sum(bob["values"])


@pytest.mark.parametrize(
    ("rolls", "loc"),
    [
        ({"Ann": {"success": [1, 2, 7]}}, ["body", "rolls", "Ann", "success", 2]),
        ({"Ann": {"success": [0, 2, 3]}}, ["body", "rolls", "Ann", "success", 0]),
        ({"Ann": {"success": [1, 2]}}, ["body", "rolls", "Ann", "success"]),
        ({"Ann": {"success": [1, 2, 3, 4]}}, ["body", "rolls", "Ann", "success"]),
        ({"Ann": {"success": 3}}, ["body", "rolls", "Ann", "success"]),
        ({"Cid": {"success": [1, 2, 3]}}, ["body", "rolls", "Cid"]),
        ({"Ann": {"strength": [1, 2, 3]}}, ["body", "rolls", "Ann", "strength"]),
    ],
)
def test_bad_supplied_dice_are_422_and_change_nothing(
    store_client: TestClient, rolls: dict[str, Any], loc: list[str | int]
) -> None:
    contest = make(store_client)
    contest.play({"Ann": {"success": MADE}, "Bob": {"success": MADE}})
    assert_problem(contest.post_round(rolls), 422, loc)
    session = contest.session()
    assert (session["version"], session["round"], session["status"]) == (2, 1, "active")
    assert len(contest.rounds()) == 1


def test_text_plain_round_is_the_summary(store_client: TestClient) -> None:
    contest = make(store_client)
    response = contest.post_round(
        {"Ann": {"success": MADE}, "Bob": {"success": MISSED}}, headers={"Accept": "text/plain"}
    )
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text == (
        "Round 1: Ann (skill 10) rolled 6, made it by 4; Bob (skill 10) rolled 15, missed by 5. "
        "Ann wins the contest.\n"
    )


# --- resolve, seeds -------------------------------------------------------------------------


def test_resolve_plays_to_the_end(store_client: TestClient) -> None:
    contest = make(store_client, seed=7, seconds_per_round=3)
    contest.play({"Ann": {"success": MADE}, "Bob": {"success": MADE}})
    response = store_client.post(f"{contest.url}/resolve", headers=contest.headers)
    assert response.status_code == 200, response.text
    answer = response.json()
    session, played = answer["session"], answer["rounds"]
    assert session["status"] == "finished"
    assert [record["number"] for record in played] == list(range(2, session["round"] + 1))
    assert session["version"] == 3
    assert all(set(record) >= RECORD_FIELDS for record in played)
    assert all(not record["finished"] for record in played[:-1])
    last = played[-1]
    assert last["finished"] is True
    for record in played[:-1]:
        assert record["a"]["success"] == record["b"]["success"]
    assert last["a"]["success"] != last["b"]["success"]
    assert last["winner"] == ("Ann" if last["a"]["success"] else "Bob")
    assert all(entry["source"] == "rolled" for record in played for entry in record["rolls"])
    assert session["result"]["winner"] == last["winner"]
    assert session["result"]["rounds_taken"] == session["round"]
    assert session["result"]["game_seconds"] == 3 * session["round"]
    assert contest.rounds()[1:] == played


def test_resolve_stops_at_max_rounds(store_client: TestClient) -> None:
    # Without the adjustment -100 vs -100 succeeds only on 3 or 4: almost always undecided.
    contest = make(store_client, -100, -100, normalize=False, max_rounds=3, seed=1)
    answer = store_client.post(f"{contest.url}/resolve", headers=contest.headers).json()
    session = answer["session"]
    assert session["status"] == "finished"
    assert len(answer["rounds"]) == session["round"] <= 3
    if session["result"]["winner"] is None:
        assert (session["round"], session["result"]["status"]) == (3, "undecided")


def test_seeded_sessions_are_reproducible(store_client: TestClient) -> None:
    first = make(store_client, 11, 12, seed=2024)
    second = make(store_client, 11, 12, seed=2024)
    resolved = store_client.post(f"{first.url}/resolve", headers=first.headers).json()["rounds"]
    # Round by round with server dice gives the same dice as resolve: (seed, round number).
    by_round = []
    while second.session()["status"] == "active":
        by_round.append(second.play()["round"])
    assert by_round == resolved
    assert first.session()["result"] == second.session()["result"]


# --- the shared lifecycle -------------------------------------------------------------------


def test_tokens_and_unknown_sessions(store_client: TestClient) -> None:
    contest = make(store_client)
    other = make(store_client)
    assert_problem(store_client.get(contest.url), 401)
    assert_problem(contest.client.post(f"{contest.url}/rounds", json={}), 401)
    assert_problem(store_client.get(contest.url, headers=other.headers), 404)
    assert_problem(store_client.post(f"{contest.url}/rounds", json={}, headers=other.headers), 404)
    assert_problem(store_client.get(f"{URL}/nonexistent", headers=contest.headers), 404)
    assert contest.session()["version"] == 1


def test_if_match(store_client: TestClient) -> None:
    contest = make(store_client)
    stale = contest.post_round(
        {"Ann": {"success": MADE}, "Bob": {"success": MADE}}, headers={"If-Match": '"7"'}
    )
    assert_problem(stale, 412)
    assert contest.session()["version"] == 1
    fresh = contest.post_round(
        {"Ann": {"success": MADE}, "Bob": {"success": MADE}}, headers={"If-Match": '"1"'}
    )
    assert fresh.status_code == 200
    assert fresh.json()["session"]["version"] == 2


def test_idempotent_round(store_client: TestClient) -> None:
    contest = make(store_client)
    rolls = {"Ann": {"success": MADE}, "Bob": {"success": MADE}}
    first = contest.post_round(rolls, headers={"Idempotency-Key": "round-1"})
    again = contest.post_round(rolls, headers={"Idempotency-Key": "round-1"})
    assert first.status_code == again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert contest.session()["version"] == 2
    other = contest.post_round(
        {"Ann": {"success": MISSED}, "Bob": {"success": MADE}},
        headers={"Idempotency-Key": "round-1"},
    )
    assert_problem(other, 422)
    assert contest.session()["version"] == 2


def test_delete(store_client: TestClient) -> None:
    contest = make(store_client)
    response = store_client.delete(contest.url, headers=contest.headers)
    assert response.status_code == 204
    assert_problem(store_client.get(contest.url, headers=contest.headers), 404)
    assert_problem(contest.post_round(), 404)
