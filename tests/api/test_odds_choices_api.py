"""The odds at a choice of the next step (`POST /v1/{kind}/{id}/odds/choices`, docs/api.md#odds):
each option's answer is the odds of the session whose next step is that option, its dice
unknown, as `…/odds` answers them; any token of the session; options refused as the step's own
call refuses them."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.kinds.registry import KINDS
from app.api.schemas.odds import MAX_OPTIONS
from app.rules import chases, races, serial
from app.rules.dice import Dice
from app.rules.odds import chases as chase_odds
from tests.helpers import Session, assert_problem, bearer

#: A lead of 22: hiding, a hazard and no tactic can all be chosen. No Constitution scores, so
#: an increment is one d20 each: `lead + (e + 2 + 6) - (c + 1 + 6)` (strength, 30 ft).
CHASE = {
    "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2, "hide": 5, "dexterity": 3}},
    "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1, "balance": 1}},
    "start": {"mode": "lead", "lead": 22},
    "max_rounds": 12,
}
STRENGTH = {"check": "strength"}
UPHILL = {"check": "strength", "modifier": -3}
HIDE = {"terrain": STRENGTH, "tactic": {"kind": "hide"}}
HAZARD = {"terrain": STRENGTH, "tactic": {"kind": "hazard", "penalty": 4}}
RUN = {"terrain": STRENGTH}
EXACT = ("caught_exact", "escaped_exact", "hid_exact", "gave_up_exact", "expected_increments_exact")


def choices(session: Session, body: Any, who: str = "gm") -> Any:
    answer = session.post("odds/choices", body, who)
    assert answer.status_code == 200, answer.text
    assert answer.headers["etag"] == f'"{session.response.headers["etag"].strip(chr(34))}"'
    return answer.json()


def odds(session: Session, question: dict[str, Any]) -> dict[str, Any]:
    answer = session.post("odds", question)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def test_the_policys_own_move_is_the_odds_from_here(store_client: TestClient) -> None:
    chase = Session(store_client, "chases", CHASE)
    hiding = choices(
        chase,
        {"options": [{"move": HIDE}, {"move": HAZARD}], "tactic_policy": "hide-when-possible"},
    )
    # At a lead of 22 the policy hides: the hide option is the odds from here.
    assert hiding["options"][0]["odds"] == odds(
        chase, {"terrain": STRENGTH, "tactic_policy": "hide-when-possible"}
    )
    running = choices(chase, {"options": [{"move": RUN, "label": "run"}]})
    assert running["options"][0]["odds"] == odds(chase, {"terrain": STRENGTH})
    assert running["options"][0]["label"] == "run"
    assert running["options"][0]["move"] == RUN


def test_a_hazard_is_the_odds_of_the_session_whose_next_increment_it_is(
    store_client: TestClient,
) -> None:
    chase = Session(store_client, "chases", CHASE)
    answer = choices(chase, {"options": [{"move": HAZARD}], "tactic_policy": "hide-when-possible"})
    option = answer["options"][0]
    assert option["label"] == "hazard (penalty 4)"
    config = serial.load(chases.Config, chase.created["config"])
    state = chases.start(config, Dice())
    first = chases.RoundInput(
        chases.Terrain(races.Increment(check="strength")), chases.CreateHazard(penalty=4)
    )
    exact = chase_odds.choice_odds(config, state, first, first.terrain, "hide-when-possible")
    assert isinstance(exact, chase_odds.ChaseOdds)
    assert Fraction(option["odds"]["escaped_exact"]) == exact.escaped
    assert Fraction(option["odds"]["caught_exact"]) == exact.caught
    assert option["odds"]["method"] == "exact"
    assert (
        sum(Fraction(option["odds"][name]) for name in EXACT[:2])
        + Fraction(option["odds"]["gave_up_exact"])
        == 1
    )


def test_an_option_is_the_mixture_of_the_sessions_after_each_of_its_rolls(
    store_client: TestClient,
) -> None:
    """Uphill next (-3), open street after: each pair of d20s played in a session of its own,
    its `…/odds` weighed by how many pairs give that lead."""
    chase = Session(store_client, "chases", CHASE)
    answer = choices(chase, {"options": [{"move": {"terrain": UPHILL}}], "terrain": STRENGTH})
    got = answer["options"][0]["odds"]
    assert answer["options"][0]["label"] == "no tactic"
    mixed = dict.fromkeys(EXACT, Fraction(0))
    for difference in range(-19, 20):  # escapee's d20 minus the chaser's
        escapee_die = max(1, 1 + difference)
        chaser_die = escapee_die - difference
        weight = Fraction(20 - abs(difference), 400)
        played = Session(store_client, "chases", CHASE)
        rolls = {"Ralf": {"check": escapee_die}, "Guard": {"check": chaser_die}}
        played.play_round({"terrain": UPHILL, "rolls": rolls})
        after = odds(played, {"terrain": STRENGTH})
        for name in EXACT:
            mixed[name] += weight * Fraction(after[name])
    for name in EXACT:
        assert Fraction(got[name]) == mixed[name], name
    assert got["increments_played"] == 0


def test_options_asked_together_are_each_asked_alone(store_client: TestClient) -> None:
    """Options walked together (the same terrain after) and apart (each on its own terrain
    after): one call answers each as a call with that option alone does."""
    chase = Session(store_client, "chases", CHASE)
    moves = [HIDE, HAZARD, RUN, {"terrain": UPHILL}]
    for terrain in (STRENGTH, None):
        together = choices(
            chase,
            {
                "options": [{"move": move} for move in moves],
                "tactic_policy": "hide-when-possible",
                **({} if terrain is None else {"terrain": terrain}),
            },
        )
        for move, option in zip(moves, together["options"], strict=True):
            alone = choices(
                chase,
                {
                    "options": [{"move": move}],
                    "tactic_policy": "hide-when-possible",
                    **({} if terrain is None else {"terrain": terrain}),
                },
            )
            assert option["odds"] == alone["options"][0]["odds"]
            assert option["odds"]["method"] == "exact"
    # Uphill next, then the open street or uphill throughout: not the same odds.
    assert (
        together["options"][3]["odds"]
        != choices(chase, {"options": [{"move": {"terrain": UPHILL}}], "terrain": STRENGTH})[
            "options"
        ][0]["odds"]
    )


@pytest.mark.parametrize("who", ["gm", "Ralf", "Guard"])
def test_any_token_of_the_session(store_client: TestClient, who: str) -> None:
    chase = Session(store_client, "chases", CHASE)
    body = {"options": [{"move": HIDE}, {"move": HAZARD}, {"move": RUN}]}
    answer = choices(chase, body, who)
    assert [option["label"] for option in answer["options"]] == [
        "hide",
        "hazard (penalty 4)",
        "no tactic",
    ]
    escapes = {option["label"]: option["odds"]["escaped"] for option in answer["options"]}
    assert answer["best"] == max(escapes, key=escapes.__getitem__)
    assert answer["summary"].startswith("Ralf's next increment: hide: escapes ")
    assert "\n" not in answer["summary"]


def test_bad_options_are_422(store_client: TestClient) -> None:
    chase = Session(store_client, "chases", CHASE)
    too_many = {"options": [{"move": RUN}] * (MAX_OPTIONS + 1)}
    assert_problem(chase.post("odds/choices", too_many), 422)
    assert_problem(chase.post("odds/choices", {"options": []}), 422)
    with_dice = {"options": [{"move": {**RUN, "rolls": {"Ralf": {"check": 3}}}}]}
    assert_problem(
        chase.post("odds/choices", with_dice), 422, ["body", "options", 0, "move", "rolls"]
    )
    collecting = {"options": [{"move": {**RUN, "collect": True, "deadline_seconds": 60}}]}
    assert_problem(
        chase.post("odds/choices", collecting), 422, ["body", "options", 0, "move", "collect"]
    )
    flat_hide = {
        "options": [{"move": RUN}, {"move": {**HIDE, "terrain": {**STRENGTH, "flat": True}}}]
    }
    assert_problem(chase.post("odds/choices", flat_hide), 422)
    unknown_tactic = {"options": [{"move": {**RUN, "tactic": {"kind": "juggle"}}}]}
    assert_problem(chase.post("odds/choices", unknown_tactic), 422)
    # Hiding needs a lead of 20: refused as the round would be, located in its option.
    short = Session(store_client, "chases", {**CHASE, "start": {"mode": "lead", "lead": 12}})
    refused = assert_problem(
        short.post("odds/choices", {"options": [{"move": RUN}, {"move": HIDE}]}), 422
    )
    assert refused["errors"][0]["loc"][:4] == ["body", "options", 1, "move"]


def test_unknown_session_stranger_and_finished(store_client: TestClient) -> None:
    chase = Session(store_client, "chases", CHASE)
    body = {"options": [{"move": RUN}]}
    missing = store_client.post(
        "/v1/chases/0123456789abcdef0123456789abcdef/odds/choices",
        json=body,
        headers=bearer(chase.gm),
    )
    assert_problem(missing, 404)
    other = Session(store_client, "chases", CHASE)
    assert_problem(chase.post("odds/choices", body, token=other.gm), 404)
    assert_problem(store_client.post(f"{chase.url}/odds/choices", json=body), 401)
    assert chase.post("end", {}).status_code == 200
    assert_problem(chase.post("odds/choices", body), 409)


# --- skill games ------------------------------------------------------------------------------

GAME = {
    "dc": 12,
    "skill_list": ["Athletics", "Stealth", "Persuasion"],
    "skills_per_round": 2,
    "kind": "option",
    "actions": [{"name": "Rest", "cost": 0, "effects": [{"text": "rest"}]}],
    "goal": 5,
    "parties": [
        {
            "name": "Heroes",
            "controller": "players",
            "members": [
                {"name": "Ann", "skills": {"Athletics": 5, "Stealth": 2}},
                {"name": "Bo", "skills": {"Persuasion": 4}},
            ],
        },
        {
            "name": "Bandits",
            "controller": "gm",
            "members": [{"name": "Rook", "skills": {"Stealth": 6}}],
        },
    ],
}
CLIMB = {"party": "Heroes", "skills": ["Athletics", "Stealth"]}
TALK = {"party": "Heroes", "skills": ["Stealth", "Persuasion"]}


@pytest.mark.parametrize("who", ["gm", "Heroes", "Bandits"])
def test_skill_game_options_are_the_token_odds_of_that_choice(
    store_client: TestClient, who: str
) -> None:
    game = Session(store_client, "skill-games", GAME)
    answer = choices(game, {"options": [{"move": CLIMB}, {"move": TALK, "label": "talk"}]}, who)
    for option, move in zip(answer["options"], (CLIMB, TALK), strict=True):
        tokens = store_client.post(
            "/v1/odds/skill-games/tokens",
            json={"game": GAME, "skills": {move["party"]: move["skills"]}},
        )
        assert tokens.status_code == 200, tokens.text
        assert option["odds"] == tokens.json()
        assert option["move"] == move
    assert [option["label"] for option in answer["options"]] == [
        "Heroes: Athletics, Stealth",
        "talk",
    ]
    # A token above DC 12: Ann's Athletics +5 misses on 1-7, Bo's (+0) on 1-12; her Stealth +2
    # misses on 1-10, his on 1-12.
    climb = answer["options"][0]["odds"]["parties"]["Heroes"]
    assert Fraction(climb["token_exact"]["Athletics"]) == 1 - Fraction(7 * 12, 400)
    assert Fraction(climb["token_exact"]["Stealth"]) == 1 - Fraction(10 * 12, 400)
    expected = {
        option["label"]: option["odds"]["parties"]["Heroes"]["expected_tokens"]
        for option in answer["options"]
    }
    assert answer["best"] == max(expected, key=expected.__getitem__)


def test_skill_game_options_refused_as_the_skills_call_would(store_client: TestClient) -> None:
    game = Session(store_client, "skill-games", GAME)
    unknown = {"options": [{"move": {"party": "Heroes", "skills": ["Athletics", "Flying"]}}]}
    assert_problem(
        game.post("odds/choices", unknown), 422, ["body", "options", 0, "move", "skills", 1]
    )
    with_dice = {"options": [{"move": {**CLIMB, "rolls": {"Ann": {"Athletics": 3}}}}]}
    assert_problem(
        game.post("odds/choices", with_dice), 422, ["body", "options", 0, "move", "rolls"]
    )
    assert game.post("skills", CLIMB).status_code == 200
    # Heroes have chosen this round: choosing again is out of phase.
    assert_problem(game.post("odds/choices", {"options": [{"move": TALK}]}), 409)


WITHOUT_CHOICES = sorted(path for path, kind in KINDS.items() if kind.choices is None)


@pytest.mark.parametrize("kind", WITHOUT_CHOICES)
def test_kinds_without_a_choice_have_no_route(store_client: TestClient, kind: str) -> None:
    paths = store_client.get("/openapi.json").json()["paths"]
    assert f"/v1/{kind}/{{session_id}}/odds/choices" not in paths
