"""A racer's pacing chosen before the first increment (`POST /v1/races/{id}/pacing`), and the
odds at that choice (`POST /v1/races/{id}/odds/choices`), docs/api.md#races and #odds, on
SQLite and PostgreSQL.

Runners have speed 0 and no Constitution score unless the test is about them, so an increment
check is the die plus the named modifiers: +2 sprinting, -2 pacing.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.schemas.odds import MAX_OPTIONS
from app.rules import races, serial
from tests.helpers import Session, assert_problem, bearer

STRENGTH: dict[str, Any] = {"check": "strength"}
#: One strength increment: Ann +1, Bob +2, both at a normal pace when created.
SPRINT = {
    "course": {"increments": [STRENGTH]},
    "competitors": [
        {"name": "Ann", "speed": 0, "mods": {"strength": 1}},
        {"name": "Bob", "speed": 0, "mods": {"strength": 2}},
    ],
}
OPTIONS: list[dict[str, Any]] = [
    {"move": {"name": "Ann", "pacing": "sprint"}},
    {"move": {"name": "Ann", "pacing": "pace"}},
    {"label": "as she is", "move": {"name": "Ann", "pacing": "normal"}},
]


def race(client: TestClient, body: dict[str, Any] = SPRINT, **fields: Any) -> Session:
    return Session(client, "races", {**body, **fields})


def pacing(session: Session, name: str, chosen: str, who: str = "gm", **kw: Any) -> Any:
    return session.post("pacing", {"name": name, "pacing": chosen}, who, **kw)


def ann_wins_exactly(bonus: int) -> float:
    """Ann's d20 + 1 + bonus against Bob's d20 + 2, strictly higher: over the 400 pairs."""
    wins = sum(1 for a in range(1, 21) for b in range(1, 21) if a + 1 + bonus > b + 2)
    return wins / 400


# --- choosing ---------------------------------------------------------------------------------


def test_a_chosen_pacing_is_shown_and_raced(store_client: TestClient) -> None:
    session = race(store_client)
    assert session.created["state"]["pacing"] == {"Ann": "normal", "Bob": "normal"}
    chosen = pacing(session, "Ann", "sprint", "Ann")
    assert chosen.status_code == 200, chosen.text
    body = chosen.json()
    assert body["session"]["state"]["pacing"] == {"Ann": "sprint", "Bob": "normal"}
    assert body["session"]["version"] == 2
    assert body["summary"].startswith("Ann sprints this race. ")
    # The creation's pacing stays in the config; the state says what is raced.
    assert body["session"]["config"]["competitors"][0]["pacing"] == "normal"
    assert pacing(session, "Bob", "pace", "Bob").status_code == 200
    # Changed again before the start: the last choice holds.
    assert pacing(session, "Bob", "sprint").status_code == 200
    assert pacing(session, "Bob", "pace").status_code == 200
    played = session.post_round({"Ann": {"check": 10}, "Bob": {"check": 10}})
    assert played.status_code == 200, played.text
    lines = played.json()["round"]["competitors"]
    assert lines["Ann"]["total"] == 10 + 1 + 2
    assert lines["Bob"]["total"] == 10 + 2 - 2
    assert session.session()["state"]["pacing"] == {"Ann": "sprint", "Bob": "pace"}


def test_pacing_changes_the_safe_increments(store_client: TestClient) -> None:
    """Con 1: one safe increment at a normal pace, three when pacing (docs/rules.md#races)."""
    body = {
        "course": {"increments": [STRENGTH, STRENGTH]},
        "competitors": [{"name": "Ann", "speed": 0, "con_score": 1, "con_mod": 0}],
    }
    paced = race(store_client, body)
    assert pacing(paced, "Ann", "pace").status_code == 200
    for _ in range(2):
        played = paced.post_round({"Ann": {"check": 10}})
        assert played.status_code == 200, played.text
        checks = played.json()["round"]["competitors"]["Ann"]["checks"]
        assert [check["kind"] for check in checks] == ["increment"]
    normal = race(store_client, body)
    normal.post_round({"Ann": {"check": 10}})
    second = normal.post_round({"Ann": {"check": 10, "constitution": 20}}).json()
    assert [c["kind"] for c in second["round"]["competitors"]["Ann"]["checks"]] == [
        "constitution",
        "increment",
    ]


def test_only_the_racer_her_seat_or_the_gm_choose(store_client: TestClient) -> None:
    session = race(store_client, seats=True)
    assert_problem(pacing(session, "Ann", "sprint", "Bob"), 403)
    bob_seat = session.tokens["seats"]["Bob"]
    assert_problem(pacing(session, "Ann", "sprint", token=bob_seat), 403)
    ann_seat = session.tokens["seats"]["Ann"]
    assert pacing(session, "Ann", "sprint", token=ann_seat).status_code == 200
    other = race(store_client)
    assert_problem(pacing(session, "Ann", "pace", token=other.gm), 404)
    unauthenticated = store_client.post(
        f"{session.url}/pacing", json={"name": "Ann", "pacing": "pace"}
    )
    assert_problem(unauthenticated, 401)
    assert session.session()["state"]["pacing"]["Ann"] == "sprint"


def test_pacing_refused(store_client: TestClient) -> None:
    session = race(store_client)
    assert_problem(pacing(session, "Cid", "sprint"), 422, ["body", "name"])
    assert_problem(pacing(session, "Ann", "jog"), 422, ["body", "pacing"])
    assert_problem(session.post("pacing", {"name": "Ann"}), 422, ["body", "pacing"])
    waiting = race(
        store_client, {**SPRINT, "course": {"increments": [STRENGTH, STRENGTH]}}, seats=True
    )
    opened = waiting.post("rounds", {"collect": True, "deadline_seconds": 90})
    assert opened.status_code == 202, opened.text
    assert_problem(pacing(waiting, "Ann", "sprint"), 409)
    two = race(store_client, {**SPRINT, "course": {"increments": [STRENGTH, STRENGTH]}})
    two.post_round({"Ann": {"check": 3}, "Bob": {"check": 4}})
    refused = assert_problem(pacing(two, "Ann", "sprint"), 409)
    assert "before its first increment" in refused["detail"]
    assert two.session()["version"] == 2  # nothing changed
    session.post_round({"Ann": {"check": 3}, "Bob": {"check": 4}})  # the last increment
    assert_problem(pacing(session, "Ann", "sprint"), 409)


def test_a_pacing_is_idempotent_with_a_key(store_client: TestClient) -> None:
    session = race(store_client)
    key = {"idempotency-key": "pace-ann-1"}
    first = pacing(session, "Ann", "pace", headers=key)
    again = pacing(session, "Ann", "pace", headers=key)
    assert first.status_code == again.status_code == 200
    assert again.headers.get("idempotent-replayed") == "true"
    assert again.json() == first.json()
    assert session.session()["version"] == 2


def test_a_state_stored_before_pacing_choices_loads_as_created() -> None:
    """Races stored before this field have no `pacing` in their state: each races at her
    creation's pacing."""
    config = serial.load(
        races.Config,
        {
            "course": "dash",
            "competitors": [{"name": "Ann", "speed": 30, "pacing": "sprint"}],
        },
    )
    old = {"increment": 0, "of": 2, "ds": {"Ann": 0}, "standing": {"Ann": "racing"}}
    state = serial.load(races.State, {**old, "damage": {"Ann": 0}, "flags": {"Ann": []}})
    assert state.pacing == {}
    assert races.pacing_of(config, state) == {"Ann": "sprint"}
    assert races.raced_config(config, state) is config


# --- the odds at the choice -------------------------------------------------------------------


def test_each_option_is_the_odds_after_taking_it(store_client: TestClient) -> None:
    session = race(store_client)
    asked = session.post("odds/choices", {"options": OPTIONS, "seed": 11, "trials": 2000})
    assert asked.status_code == 200, asked.text
    answer = asked.json()
    assert [option["label"] for option in answer["options"]] == [
        "Ann sprints",
        "Ann paces herself",
        "as she is",
    ]
    for option, sent in zip(answer["options"], OPTIONS, strict=True):
        assert option["move"] == sent["move"]
        taken = race(store_client)
        assert pacing(taken, "Ann", sent["move"]["pacing"]).status_code == 200
        after = taken.get("odds?seed=11&trials=2000")
        assert after.status_code == 200, after.text
        assert option["odds"] == after.json()
    assert answer["best"] == "Ann sprints"
    assert answer["summary"].startswith("Ann sprints: Ann wins ")
    assert answer["summary"].endswith("Best: Ann sprints.")
    assert "\n" not in answer["summary"]


def test_the_options_estimate_the_exact_chances(store_client: TestClient) -> None:
    """A one-increment race: Ann's chance of winning outright is a count over the 400 pairs
    of d20s; each option's estimate is within 3 of its standard errors of it."""
    session = race(store_client)
    answer = session.post("odds/choices", {"options": OPTIONS, "seed": 5, "trials": 10_000})
    assert answer.status_code == 200, answer.text
    for option, bonus in zip(answer.json()["options"], (2, -2, 0), strict=True):
        odds = option["odds"]
        assert odds["method"] == "monte-carlo"
        assert odds["trials"] == 10_000
        error = odds["standard_error"]["wins.Ann"]
        assert abs(odds["wins"]["Ann"] - ann_wins_exactly(bonus)) <= 3 * error


@pytest.mark.parametrize("who", ["gm", "Ann", "Bob"])
def test_any_token_asks_and_nothing_changes(store_client: TestClient, who: str) -> None:
    session = race(store_client)
    asked = session.post("odds/choices", {"options": OPTIONS[:1], "seed": 2}, who)
    assert asked.status_code == 200, asked.text
    assert asked.headers["etag"] == '"1"'
    assert session.session()["state"]["pacing"]["Ann"] == "normal"


def test_choices_refused(store_client: TestClient) -> None:
    session = race(store_client)
    unknown = {"options": [OPTIONS[0], {"move": {"name": "Cid", "pacing": "pace"}}]}
    assert_problem(
        session.post("odds/choices", unknown), 422, ["body", "options", 1, "move", "name"]
    )
    too_many = {"options": [OPTIONS[0]] * (MAX_OPTIONS + 1)}
    assert_problem(session.post("odds/choices", too_many), 422)
    assert_problem(session.post("odds/choices", {"options": []}), 422)
    bad_trials = {"options": OPTIONS[:1], "trials": 0}
    assert_problem(session.post("odds/choices", bad_trials), 422, ["body", "trials"])
    missing = store_client.post(
        "/v1/races/0123456789abcdef0123456789abcdef/odds/choices",
        json={"options": OPTIONS[:1]},
        headers=bearer(session.gm),
    )
    assert_problem(missing, 404)
    two = race(store_client, {**SPRINT, "course": {"increments": [STRENGTH, STRENGTH]}})
    two.post_round({"Ann": {"check": 3}, "Bob": {"check": 4}})
    assert_problem(two.post("odds/choices", {"options": OPTIONS[:1]}), 409)
    session.post_round({"Ann": {"check": 3}, "Bob": {"check": 4}})
    assert_problem(session.post("odds/choices", {"options": OPTIONS[:1]}), 409)
