"""Seats through HTTP, on SQLite and PostgreSQL (docs/api.md#tokens-and-roles).

A session created with `"seats": true` gives each competitor a seat token: shown once, stored
only as its SHA-256, reading the session (the session, its rounds, its odds) and refused (403)
everything that plays, resolves, ends or deletes it, without the session changing.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from app.store.database import null_pool_engine
from app.store.repository import sessions
from tests.helpers import Session, assert_problem, bearer

ARM_WRESTLE: dict[str, Any] = {
    "a": {"name": "Lydia", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "b": {"name": "Ogre", "strength_mod": 0, "con_score": 200, "con_mod": 0},
    "target": 100,
    "max_rounds": 10_000,
}
CHASE: dict[str, Any] = {
    "escapee": {"name": "Ralf", "speed": 30},
    "chaser": {"name": "Guard", "speed": 30},
    "start": {"mode": "lead", "lead": 2},
}
#: A seated session of every kind that has seats, and its competitors.
SEATED: dict[str, tuple[dict[str, Any], set[str]]] = {
    "arm-wrestles": (ARM_WRESTLE, {"Lydia", "Ogre"}),
    "regular-contests": (
        {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}},
        {"Ann", "Bob"},
    ),
    "races": (
        {
            "course": "typical",
            "competitors": [{"name": "Ann", "speed": 30}, {"name": "Bob", "speed": 40}],
        },
        {"Ann", "Bob"},
    ),
    "chases": (CHASE, {"Ralf", "Guard"}),
}
#: 32 random bytes in URL-safe base64 without padding.
TOKEN_256_BITS = re.compile(r"^[A-Za-z0-9_-]{43}$")


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    direct = null_pool_engine(database_url)
    yield direct
    direct.dispose()


def stored_seats(engine: Engine, session_id: str) -> Any:
    with engine.connect() as connection:
        return connection.execute(
            select(sessions.c.seat_token_hashes).where(sessions.c.id == session_id)
        ).scalar_one()


@pytest.mark.parametrize("kind", sorted(SEATED))
def test_a_seated_session_gives_each_competitor_a_token_shown_once_and_stored_hashed(
    store_client: TestClient, engine: Engine, kind: str
) -> None:
    body, names = SEATED[kind]
    made = Session(store_client, kind, {**body, "seats": True})
    seats: dict[str, str] = made.tokens["seats"]
    assert set(seats) == names
    parties = made.tokens.get("parties", {})
    tokens = {made.gm, *seats.values(), *parties.values()}
    assert len(tokens) == 1 + len(seats) + len(parties)  # every token its own
    for token in seats.values():
        assert TOKEN_256_BITS.fullmatch(token), token
    assert stored_seats(engine, made.id) == {
        name: hashlib.sha256(token.encode()).hexdigest() for name, token in seats.items()
    }
    for token in seats.values():
        shown = made.get(token=token)
        assert shown.status_code == 200, shown.text
        assert shown.json() == {
            key: value for key, value in made.created.items() if key != "tokens"
        }
        assert all(seat not in shown.text for seat in seats.values())


@pytest.mark.parametrize("kind", sorted(SEATED))
def test_a_session_without_seats_has_no_seat_tokens(
    store_client: TestClient, engine: Engine, kind: str
) -> None:
    body, _names = SEATED[kind]
    for created in (body, {**body, "seats": False}):
        made = Session(store_client, kind, created)
        assert "seats" not in made.tokens
        assert stored_seats(engine, made.id) is None


def test_skill_games_have_no_seats(store_client: TestClient) -> None:
    game = {
        "dc": 10,
        "skill_list": ["Persuade"],
        "skills_per_round": 1,
        "kind": "option",
        "actions": [{"name": "Press", "effects": [{"text": "Ahead.", "progress": 1}]}],
        "parties": [
            {"name": "Heroes", "controller": "gm", "members": [{"name": "Ann", "skills": {}}]},
            {"name": "Villains", "controller": "gm", "members": [{"name": "Rook", "skills": {}}]},
        ],
        "seats": True,
    }
    assert_problem(store_client.post("/v1/skill-games", json=game), 422, ["body", "seats"])


def test_a_seat_reads_the_session_its_rounds_and_its_odds(store_client: TestClient) -> None:
    # At most 20 rounds: its exact odds are within the work of one question.
    body = {**ARM_WRESTLE, "seats": True, "seed": 4, "max_rounds": 20}
    made = Session(store_client, "arm-wrestles", body)
    played = made.play_round({"rolls": {"Lydia": {"strength": 15}, "Ogre": {"strength": 10}}})
    for token in made.tokens["seats"].values():
        assert made.get(token=token).json() == played.json()["session"]
        rounds = made.get("rounds", token=token)
        assert rounds.status_code == 200
        assert rounds.json() == {"rounds": [played.json()["round"]]}
        assert rounds.json()["rounds"][0]["checks"]["Lydia"]["roll"] == 15
        odds = made.get("odds", token=token)
        assert odds.status_code == 200, odds.text
        assert odds.json() == made.get("odds").json()
        assert odds.headers["etag"] == '"2"'


def test_a_seat_may_not_play_resolve_or_delete(store_client: TestClient) -> None:
    """A seat token playing a round (with its own dice, another's, or none), resolving or
    deleting the session is 403, with If-Match and Idempotency-Key too, and nothing changes."""
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seats": True})
    lydia = made.tokens["seats"]["Lydia"]
    own = {"rolls": {"Lydia": {"strength": 12}}}
    others = {"rolls": {"Ogre": {"strength": 12}}}
    both = {"rolls": {"Lydia": {"strength": 12}, "Ogre": {"strength": 3}}}
    for body in ({}, own, others, both):
        problem = assert_problem(made.post("rounds", body, token=lydia), 403)
        assert problem["detail"] == "only the GM's token may do this"
    assert_problem(made.post("rounds", own, headers={"If-Match": '"1"'}, token=lydia), 403)
    keyed = {"Idempotency-Key": "seat-round"}
    assert_problem(made.post("rounds", own, headers=keyed, token=lydia), 403)
    assert_problem(made.post("resolve", token=lydia), 403)
    assert_problem(store_client.delete(made.url, headers=bearer(lydia)), 403)
    assert made.session()["version"] == 1
    assert made.rounds() == []
    # The key was not spent on the refusal: the GM's first use of it plays.
    assert made.post("rounds", {}, headers=keyed).status_code == 200


def test_a_chase_seat_may_not_end_the_chase(store_client: TestClient) -> None:
    made = Session(store_client, "chases", {**CHASE, "seats": True})
    for token in made.tokens["seats"].values():
        assert_problem(made.post("end", {"reason": "gave-up"}, token=token), 403)
    assert made.session()["status"] == "active"


def test_a_seat_of_another_session_is_a_stranger(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seats": True})
    other = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seats": True})
    stranger = other.tokens["seats"]["Lydia"]
    assert_problem(made.get(token=stranger), 404)
    assert_problem(made.get("rounds", token=stranger), 404)
    assert_problem(made.post("rounds", {}, token=stranger), 404)
    assert made.session()["version"] == 1


# --- rounds that wait for the seats' dice -------------------------------------------------

#: A short arm wrestle nobody tires in: the first to a DS of 30 wins.
SHORT_ARM_WRESTLE: dict[str, Any] = {**ARM_WRESTLE, "target": 30, "seats": True, "seed": 12}
START = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
COLLECT = {"collect": True, "deadline_seconds": 60}


class Clock:
    """The app's clock, moved by the test."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


@pytest.fixture
def clock(store_client: TestClient) -> Iterator[Clock]:
    told = Clock(START)
    app: Any = store_client.app
    app.state.clock = told
    yield told
    del app.state.clock


def strength(value: int) -> dict[str, Any]:
    return {"strength": value}


def dice_of(made: Session, name: str, value: int, **headers: str) -> Any:
    return made.post(
        "rounds/pending/dice",
        {"rolls": {name: strength(value)}},
        headers=headers,
        token=made.tokens["seats"][name],
    )


def test_a_seated_arm_wrestle_played_to_its_end_by_its_seats_and_the_gm(
    store_client: TestClient, clock: Clock
) -> None:
    made = Session(store_client, "arm-wrestles", SHORT_ARM_WRESTLE)
    deadline = (START + timedelta(seconds=60)).isoformat()

    # Round 1: both seats roll; the round plays with the last die in.
    opened = made.post("rounds", COLLECT)
    assert opened.status_code == 202, opened.text
    # What each seat owes, from the session's state: no fatigue check is due yet, so each
    # surely rolls its Strength die, and nothing else.
    owes = {
        name: [{"purpose": "strength", "sides": 20, "certain": 1, "most": 1, "when": None}]
        for name in ("Lydia", "Ogre")
    }
    waiting = {
        "number": 1,
        "waiting_for": ["Lydia", "Ogre"],
        "deadline": deadline,
        "owes": owes,
    }
    assert opened.json()["pending"] == waiting
    assert opened.json()["session"]["pending"] == waiting
    assert opened.headers["etag"] == '"2"'
    first = dice_of(made, "Lydia", 17)
    assert first.status_code == 202, first.text
    assert set(first.json()) == {"pending", "name", "session", "summary"}
    assert first.json()["name"] == "Lydia"
    assert first.json()["pending"] == {**waiting, "waiting_for": ["Ogre"]}
    played = dice_of(made, "Ogre", 5)
    assert played.status_code == 200, played.text
    record = played.json()["round"]
    assert record["number"] == 1
    assert record["checks"] == {"Lydia": {"roll": 17, "total": 17}, "Ogre": {"roll": 5, "total": 5}}
    assert record["ds"] == {"Lydia": 12, "Ogre": 0}
    assert record["dice_from"] == {"Lydia": "seat", "Ogre": "seat"}
    assert "pending" not in played.json()["session"]
    assert played.json()["session"]["version"] == 4

    # Round 2: the Ogre rolls, the GM rolls for Lydia (the server's dice).
    assert made.post("rounds", COLLECT).status_code == 202
    assert dice_of(made, "Ogre", 3).status_code == 202
    assert_problem(made.post("rounds/pending/roll-for", {"names": ["Ogre"]}), 422)  # he rolled
    rolled = made.post("rounds/pending/roll-for", {"names": ["Lydia"]})
    assert rolled.status_code == 200, rolled.text
    record = rolled.json()["round"]
    assert record["dice_from"] == {"Ogre": "seat", "Lydia": "gm"}
    by_who = {roll["who"]: roll for roll in record["rolls"]}
    assert (by_who["Ogre"]["source"], by_who["Ogre"]["values"]) == ("supplied", [3])
    assert by_who["Lydia"]["source"] == "rolled"
    lydia = by_who["Lydia"]["values"][0]
    assert record["checks"]["Lydia"] == {"roll": lydia, "total": lydia}
    assert record["ds"] == {"Lydia": 12 + max(lydia - 3, 0), "Ogre": max(3 - lydia, 0)}

    # Round 3 is opened, then cancelled: the die given is dropped unseen.
    before = made.session()
    assert made.post("rounds", COLLECT).status_code == 202
    assert dice_of(made, "Lydia", 20).status_code == 202
    cancelled = made.client.delete(f"{made.url}/rounds/pending", headers=made.headers)
    assert cancelled.status_code == 200, cancelled.text
    assert "pending" not in cancelled.json()["session"]
    assert cancelled.json()["session"]["state"] == before["state"]
    assert cancelled.json()["session"]["round"] == 2
    assert_problem(made.client.delete(f"{made.url}/rounds/pending", headers=made.headers), 409)

    # Round 3 again: Lydia rolls, the Ogre does not; past the deadline his die is the
    # server's, rolled at the deadline, when the next call reads the session.
    clock.moment = START + timedelta(minutes=10)
    assert made.post("rounds", COLLECT).status_code == 202
    assert dice_of(made, "Lydia", 2).status_code == 202
    clock.moment += timedelta(seconds=59)
    assert made.session("gm")["pending"]["waiting_for"] == ["Ogre"]
    clock.moment += timedelta(seconds=1)
    ogre = made.tokens["seats"]["Ogre"]
    settled = made.get(token=ogre).json()
    assert "pending" not in settled
    assert settled["round"] == 3
    assert settled["updated_at"] == (START + timedelta(minutes=11)).isoformat()
    record = made.get("rounds?after=2", token=ogre).json()["rounds"][0]
    assert record["dice_from"] == {"Lydia": "seat", "Ogre": "deadline"}
    assert record["checks"]["Lydia"]["roll"] == 2

    # Round 4 passes its deadline too, and a seat's late dice find it played already.
    assert made.post("rounds", COLLECT).status_code == 202
    clock.moment += timedelta(seconds=60)
    assert_problem(dice_of(made, "Lydia", 20), 409)
    record = made.get("rounds?after=3", token=ogre).json()["rounds"][0]
    assert record["dice_from"] == {"Lydia": "deadline", "Ogre": "deadline"}
    settled = made.session()

    # Then to the end: Lydia 20 against the Ogre's 1 until she reaches 30.
    status = settled["status"]
    while status == "active":
        assert made.post("rounds", COLLECT).status_code == 202
        assert dice_of(made, "Lydia", 20).status_code == 202
        answer = dice_of(made, "Ogre", 1)
        assert answer.status_code == 200, answer.text
        status = answer.json()["session"]["status"]
    final = made.session()
    assert final["result"]["winner"] == "Lydia"
    assert final["state"]["ds"]["Lydia"] >= 30
    assert_problem(made.post("rounds", COLLECT), 409)
    numbers = [played["number"] for played in made.rounds()]
    assert numbers == list(range(1, final["round"] + 1))


def test_a_seat_acts_for_nobody_but_itself(store_client: TestClient, clock: Clock) -> None:
    """Every seat action on another competitor's behalf, and every GM action by a seat, is
    403 and changes nothing."""
    assert clock.moment == START
    made = Session(store_client, "arm-wrestles", SHORT_ARM_WRESTLE)
    lydia = made.tokens["seats"]["Lydia"]
    assert_problem(made.post("rounds", COLLECT, token=lydia), 403)
    assert made.post("rounds", COLLECT).status_code == 202
    version = made.session()["version"]
    for rolls in (
        {"Ogre": strength(3)},
        {"Lydia": strength(3), "Ogre": strength(3)},
    ):
        problem = assert_problem(
            made.post("rounds/pending/dice", {"rolls": rolls}, token=lydia), 403
        )
        assert problem["detail"] == "this seat's token gives Lydia's dice, not Ogre's"
    assert_problem(made.post("rounds/pending/roll-for", {"names": ["Ogre"]}, token=lydia), 403)
    refused = made.client.delete(f"{made.url}/rounds/pending", headers=bearer(lydia))
    assert_problem(refused, 403)
    assert_problem(made.post("resolve", token=lydia), 403)
    assert made.session()["version"] == version
    assert made.session()["pending"]["waiting_for"] == ["Lydia", "Ogre"]
    # Once the GM has rolled for the Ogre, his seat's dice come too late.
    assert made.post("rounds/pending/roll-for", {"names": ["Ogre"]}).status_code == 202
    assert_problem(dice_of(made, "Ogre", 12), 409)
    # A seat may ask the server to roll its own dice ("roll for me"), and so plays the round.
    mine = made.post("rounds/pending/roll-for", {"names": ["Lydia"]}, token=lydia)
    assert mine.status_code == 200, mine.text
    record = mine.json()["round"]
    assert record["dice_from"] == {"Ogre": "gm", "Lydia": "roll-for-me"}
    assert {roll["source"] for roll in record["rolls"]} == {"rolled"}

    # A race's follower (a party token) gives no seat's dice either.
    race = Session(store_client, "races", {**SEATED["races"][0], "seats": True})
    assert race.post("rounds", COLLECT).status_code == 202
    follower = race.tokens["parties"]["Ann"]
    ann = {"rolls": {"Ann": {"check": 10}}}
    assert_problem(race.post("rounds/pending/dice", ann, token=follower), 403)
    assert (
        race.post("rounds/pending/dice", ann, token=race.tokens["seats"]["Ann"]).status_code == 202
    )


def test_a_seat_never_sees_another_seats_dice_before_the_round_plays(
    store_client: TestClient, clock: Clock
) -> None:
    assert clock.moment == START
    made = Session(store_client, "arm-wrestles", SHORT_ARM_WRESTLE)
    ogre = made.tokens["seats"]["Ogre"]
    assert made.post("rounds", COLLECT).status_code == 202
    shown_before = made.get(token=ogre).json()
    given = dice_of(made, "Lydia", 19)
    assert given.status_code == 202
    for answer in (given.json(), made.get(token=ogre).json()):
        session = answer.get("session", answer)
        # A session read says the seconds left by the service's clock (60: it has not moved).
        if "session" not in answer:
            assert session["pending"].pop("seconds_left") == 60
        assert session["pending"] == {
            "number": 1,
            "waiting_for": ["Ogre"],
            "deadline": (START + timedelta(seconds=60)).isoformat(),
            "owes": {
                name: [{"purpose": "strength", "sides": 20, "certain": 1, "most": 1, "when": None}]
                for name in ("Lydia", "Ogre")
            },
        }
        assert session["state"] == shown_before["state"]
        assert "19" not in json.dumps(session["pending"]) + json.dumps(session["state"])
    assert made.get("rounds", token=ogre).json() == {"rounds": []}
    # The session shows what it showed before the die, but its pending round and version.
    changed = {"pending", "version", "updated_at"}
    seen = made.get(token=ogre).json()
    assert {key: seen[key] for key in seen if key not in changed} == {
        key: shown_before[key] for key in shown_before if key not in changed
    }
    # Once the round plays, everyone sees every die.
    played = dice_of(made, "Ogre", 4).json()["round"]
    assert made.get("rounds", token=ogre).json() == {"rounds": [played]}
    assert played["checks"]["Lydia"]["roll"] == 19


def test_a_seats_dice_keep_the_sessions_guarantees(store_client: TestClient, clock: Clock) -> None:
    """If-Match and Idempotency-Key on a seat's dice: a stale version is 412 and nothing
    changes; a retried call replays its answer and gives no die twice."""
    assert clock.moment == START
    made = Session(store_client, "arm-wrestles", SHORT_ARM_WRESTLE)
    assert made.post("rounds", COLLECT).status_code == 202
    assert_problem(dice_of(made, "Lydia", 8, **{"If-Match": '"1"'}), 412)
    assert made.session()["pending"]["waiting_for"] == ["Lydia", "Ogre"]
    first = dice_of(made, "Lydia", 8, **{"If-Match": '"2"', "Idempotency-Key": "lydia-1"})
    assert first.status_code == 202
    again = dice_of(made, "Lydia", 8, **{"If-Match": '"2"', "Idempotency-Key": "lydia-1"})
    assert (again.status_code, again.headers["idempotent-replayed"]) == (202, "true")
    assert again.content == first.content
    assert made.session()["version"] == 3
    played = dice_of(made, "Ogre", 9, **{"Idempotency-Key": "ogre-1"})
    assert played.status_code == 200
    replayed = dice_of(made, "Ogre", 9, **{"Idempotency-Key": "ogre-1"})
    assert (replayed.status_code, replayed.content) == (200, played.content)
    assert [len(made.rounds())] == [1]
    assert made.rounds()[0]["checks"]["Ogre"]["roll"] == 9


def test_dice_a_round_cannot_use_never_hold_it_up(store_client: TestClient, clock: Clock) -> None:
    """A Constitution die with no check due is refused when it is given (422, nothing
    changes: decided by the session's state, before any die is read); the dice that were
    given play at the deadline, and only the missing ones are the server's."""
    made = Session(store_client, "arm-wrestles", SHORT_ARM_WRESTLE)
    assert made.post("rounds", COLLECT).status_code == 202
    unusable = {"rolls": {"Ogre": {"strength": 6, "constitution": 9}}}
    assert dice_of(made, "Lydia", 11).status_code == 202
    ogre = made.tokens["seats"]["Ogre"]
    assert_problem(made.post("rounds/pending/dice", unusable, token=ogre), 422)
    assert made.session()["pending"]["waiting_for"] == ["Ogre"]
    assert made.session()["version"] == 3

    lydia = made.tokens["seats"]["Lydia"]
    replaced = {"rolls": {"Lydia": {"strength": 11, "constitution": 2}}}
    assert_problem(
        made.post("rounds/pending/dice", replaced, token=lydia),
        422,
        ["body", "rolls", "Lydia", "constitution"],
    )
    clock.moment = START + timedelta(seconds=60)
    record = made.get("rounds", token=ogre).json()["rounds"][0]
    assert record["dice_from"] == {"Lydia": "seat", "Ogre": "deadline"}
    sources = {(roll["who"], roll["source"], tuple(roll["values"])) for roll in record["rolls"]}
    assert ("Lydia", "supplied", (11,)) in sources
    assert {source for who, source, _ in sources if who == "Ogre"} == {"rolled"}


def test_collect_and_its_deadline_go_together(store_client: TestClient) -> None:
    made = Session(store_client, "arm-wrestles", {**ARM_WRESTLE, "seats": True})
    assert_problem(made.post("rounds", {"collect": True}), 422, ["body", "collect"])
    assert_problem(made.post("rounds", {"deadline_seconds": 60}), 422, ["body", "deadline_seconds"])
    assert made.get().json()["version"] == 1  # nothing changed


def test_a_collected_race_round_waits_for_the_racers_still_racing(
    store_client: TestClient, clock: Clock
) -> None:
    """A racer who forfeited rolls nothing: the round waiting for dice does not wait for her,
    takes no dice from her seat, and plays with the others' dice (given, or past its
    deadline the server's)."""
    body = {
        "course": {
            "increments": [
                {"check": "climb", "dc": 14},
                {"check": "strength"},
                {"check": "strength"},
            ]
        },
        "competitors": [{"name": "Ann", "speed": 0}, {"name": "Bob", "speed": 0}],
        "max_retries": 0,
        "seats": True,
    }
    race = Session(store_client, "races", body)
    forfeit = race.play_round({"rolls": {"Ann": {"check": 3}, "Bob": {"check": 14}}})
    assert forfeit.status_code == 200, forfeit.text
    assert forfeit.json()["round"]["competitors"]["Ann"]["standing"] == "forfeited"

    opened = race.post("rounds", COLLECT)
    assert opened.status_code == 202, opened.text
    assert opened.json()["pending"]["waiting_for"] == ["Bob"]
    ann = {"rolls": {"Ann": {"check": 10}}}
    refused = race.post("rounds/pending/dice", ann, token=race.tokens["seats"]["Ann"])
    assert_problem(refused, 422, ["body", "rolls", "Ann"])
    assert_problem(race.post("rounds/pending/roll-for", {"names": ["Ann"]}), 422)
    bob = {"rolls": {"Bob": {"check": 12}}}
    played = race.post("rounds/pending/dice", bob, token=race.tokens["seats"]["Bob"])
    assert played.status_code == 200, played.text
    record = played.json()["round"]
    assert record["dice_from"] == {"Bob": "seat"}
    assert record["competitors"]["Ann"]["checks"] == []
    assert [roll["who"] for roll in record["rolls"]] == ["Bob"]

    # The last increment: past its deadline, only Bob's die is the server's.
    assert race.post("rounds", COLLECT).status_code == 202
    clock.moment = START + timedelta(seconds=60)
    final = race.session()
    assert "pending" not in final
    assert final["status"] == "finished"
    assert final["result"]["winners"] == ["Bob"]
    last = race.rounds()[-1]
    assert last["dice_from"] == {"Bob": "deadline"}
    assert [roll["who"] for roll in last["rolls"]] == ["Bob"]


def test_a_pending_round_says_what_each_seat_owes_from_the_state(
    store_client: TestClient, clock: Clock
) -> None:
    """Lydia's fatigue check is due: she surely rolls her Constitution die, and both Strength
    dice are conditional (a failed check ends the match first). Lydia is done with her
    Constitution die alone; the Ogre, who owes nothing sure, is done once he has answered
    (his Strength die, or "roll for me"); a die they did not send is the server's."""
    assert clock.moment == START
    body = {
        "a": {"name": "Lydia", "strength_mod": 0, "con_score": 0, "con_mod": 5},
        "b": {"name": "Ogre", "strength_mod": 0, "con_score": 9, "con_mod": 0},
        "seats": True,
    }
    made = Session(store_client, "arm-wrestles", body)
    opened = made.post("rounds", COLLECT)
    assert opened.status_code == 202, opened.text
    conditional = {
        "purpose": "strength",
        "sides": 20,
        "certain": 0,
        "most": 1,
        "when": "if no fatigue check ends the match",
    }
    assert opened.json()["pending"]["owes"] == {
        "Lydia": [
            {"purpose": "constitution", "sides": 20, "certain": 1, "most": 1, "when": None},
            conditional,
        ],
        "Ogre": [conditional],
    }
    # Her Strength die alone leaves her waiting: the sure Constitution die is still owed.
    assert dice_of(made, "Lydia", 12).status_code == 202
    assert made.session()["pending"]["waiting_for"] == ["Lydia", "Ogre"]
    con = {"rolls": {"Lydia": {"constitution": 15}}}
    given = made.post("rounds/pending/dice", con, token=made.tokens["seats"]["Lydia"])
    assert given.status_code == 202, given.text
    assert given.json()["pending"]["waiting_for"] == ["Ogre"]
    played = made.post(
        "rounds/pending/roll-for", {"names": ["Ogre"]}, token=made.tokens["seats"]["Ogre"]
    )
    assert played.status_code == 200, played.text
    record = played.json()["round"]
    assert record["dice_from"] == {"Lydia": "seat", "Ogre": "roll-for-me"}
    by_key = {(roll["who"], roll["purpose"]): roll for roll in record["rolls"]}
    assert by_key[("Lydia", "constitution")]["values"] == [15]  # 15 + 5 passes DC 10
    assert (by_key[("Lydia", "strength")]["source"], by_key[("Lydia", "strength")]["values"]) == (
        "supplied",
        [12],
    )
    assert by_key[("Ogre", "strength")]["source"] == "rolled"
    assert "unused" not in record


def test_resolve_takes_no_dice(store_client: TestClient) -> None:
    """`resolve` plays with the server's dice: no body or {} only, anything else 422 and
    nothing played (dice sent to it would otherwise be ignored)."""
    made = Session(store_client, "arm-wrestles", ARM_WRESTLE)
    junk_bodies: list[Any] = [{"rolls": {"Lydia": {"strength": 20}}}, {"anything": 1}, [], "x"]
    for junk in junk_bodies:
        refused = made.client.post(f"{made.url}/resolve", json=junk, headers=made.headers)
        assert_problem(refused, 422)
    assert made.session()["version"] == 1
    garbled = made.client.post(
        f"{made.url}/resolve",
        content=b"{not json",
        headers={**made.headers, "content-type": "application/json"},
    )
    assert_problem(garbled, 422)
    assert made.client.post(f"{made.url}/resolve", json={}, headers=made.headers).status_code == 200


def test_a_roll_for_keeps_the_dice_a_seat_sent(store_client: TestClient, clock: Clock) -> None:
    """A seat that sent part of its dice (a conditional Strength die, its sure Constitution
    die still owed) and is then rolled for by the GM keeps them: they are played, the server
    rolls only the rest; never dropped."""
    assert clock.moment == START
    body = {
        "a": {"name": "Lydia", "strength_mod": 0, "con_score": 0, "con_mod": 9},
        "b": {"name": "Ogre", "strength_mod": 0, "con_score": 9, "con_mod": 0},
        "seats": True,
        "dice": "verifiable",
    }
    made = Session(store_client, "arm-wrestles", body)
    assert made.post("rounds", COLLECT).status_code == 202
    assert dice_of(made, "Lydia", 13).status_code == 202
    assert dice_of(made, "Ogre", 4).status_code == 202
    played = made.post("rounds/pending/roll-for", {"names": ["Lydia"]})
    assert played.status_code == 200, played.text
    record = played.json()["round"]
    assert record["dice_from"] == {"Lydia": "gm", "Ogre": "seat"}
    by_key = {(roll["who"], roll["purpose"]): roll for roll in record["rolls"]}
    constitution = by_key[("Lydia", "constitution")]
    assert (constitution["source"], "by" in constitution) == ("rolled", False)
    strength = by_key[("Lydia", "strength")]  # her check passes: 1 + 9 >= 10
    assert (strength["source"], strength["values"], strength["by"]) == (
        "supplied",
        [13],
        "seat:Lydia",
    )
