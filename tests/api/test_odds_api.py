"""The odds endpoints over HTTP (docs/api.md#odds): bodies, 422s, charts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from decimal import Decimal
from fractions import Fraction
from math import sqrt
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.kinds import OddsQuestion
from app.api.kinds.registry import KINDS
from app.api.odds import chases as chase_answers
from app.api.odds import gurps as gurps_answers
from app.api.odds import skill_games as token_answers
from app.api.odds.worker import as_json
from app.main import create_app
from app.rules import arm_wrestling, gurps, races
from app.rules.dice import Dice
from app.rules.errors import RulesError
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import gurps as gurps_odds
from app.settings import Settings
from tests.conformance import Conforming

QUICK = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}


@pytest.fixture
def odds_client(tmp_path: Path) -> Iterator[TestClient]:
    """An app serving the odds routes."""
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'odds.db'}"))
    with TestClient(Conforming(app)) as client:
        yield client


def _sums_to_one(exact: dict[str, str]) -> None:
    assert sum(Fraction(p) for p in exact.values()) == 1


def test_quick_contest_odds_known_values(odds_client: TestClient) -> None:
    answer = odds_client.post("/v1/odds/gurps/quick-contest", json=QUICK)
    assert answer.status_code == 200
    body = answer.json()
    assert body["method"] == "exact"
    assert Fraction(body["a_wins_exact"]) == Fraction(29715, 46656)
    assert Fraction(body["tie_exact"]) == Fraction(3906, 46656)
    assert Fraction(body["b_wins_exact"]) == Fraction(13035, 46656)
    assert body["a_wins"] == pytest.approx(29715 / 46656)
    _sums_to_one(body["margin_of_victory_exact"])


@pytest.mark.parametrize(("skill_a", "skill_b"), [(12, 10), (3, 18), (20, 20)])
def test_quick_contest_answer_writes_the_exact_odds(
    odds_client: TestClient, skill_a: int, skill_b: int
) -> None:
    question = {"a": {"name": "Ann", "skill": skill_a}, "b": {"name": "Bob", "skill": skill_b}}
    body = odds_client.post("/v1/odds/gurps/quick-contest", json=question).json()
    odds = gurps_odds.quick_contest_odds(skill_a, skill_b)
    for name in ("a_wins", "b_wins", "tie"):
        chance = getattr(odds, name)
        assert body[f"{name}_exact"] == str(chance)
        assert body[name] == float(chance)
    assert body["margin_of_victory_exact"] == {
        str(m): str(p) for m, p in odds.margin_of_victory.items()
    }
    assert body["margin_of_victory"] == {
        str(m): float(p) for m, p in odds.margin_of_victory.items()
    }


def test_success_roll_odds(odds_client: TestClient) -> None:
    body = odds_client.post("/v1/odds/gurps/success-roll", json={"skill": 10}).json()
    assert Fraction(body["success_exact"]) == Fraction(1, 2)
    assert Fraction(body["critical_success_exact"]) == Fraction(4, 216)
    _sums_to_one(body["margin_exact"])


def test_resistance_and_regular_contest_odds(odds_client: TestClient) -> None:
    body = odds_client.post(
        "/v1/odds/gurps/resistance-roll",
        json={"attacker": {"name": "W", "skill": 14}, "defender": {"name": "O", "skill": 11}},
    ).json()
    assert 0 < body["affected"] < 1
    body = odds_client.post(
        "/v1/odds/gurps/regular-contest",
        json={"a": {"name": "Giant", "skill": 600}, "b": {"name": "Ogre", "skill": 500}},
    ).json()
    assert body["effective_skills"] == {"Giant": 12, "Ogre": 10}
    total = sum(Fraction(body[k]) for k in ("a_wins_exact", "b_wins_exact", "undecided_exact"))
    assert total == 1


def _is_decimal_of(text: str, exact: Fraction) -> bool:
    """`text` is a decimal of 17 significant digits within half a unit of its last digit of
    `exact` (the fraction's decimal to a double's full precision)."""
    written = Decimal(text)
    unit = Fraction(10) ** (written.adjusted() - 16)
    digits = len(written.as_tuple().digits)
    return digits == 17 and abs(Fraction(written) - exact) <= unit / 2


def test_exact_odds_past_the_fractions_length_are_decimals_never_null(
    odds_client: TestClient,
) -> None:
    """A regular contest of 10,000 rounds: its chance of staying undecided, q ** 10000, has
    about 37,600 digits; every `*_exact` is then the fraction's decimal, still exact."""
    body = odds_client.post(
        "/v1/odds/gurps/regular-contest",
        json={
            "a": {"name": "A", "skill": 12},
            "b": {"name": "B", "skill": 13},
            "max_rounds": 10000,
        },
    ).json()
    assert body["method"] == "exact"
    # Independently: 3d6 makes 12 or less in 160 of 216 rolls, 13 or less in 181.
    a, b = Fraction(160, 216), Fraction(181, 216)
    same = a * b + (1 - a) * (1 - b)
    undecided = same**10000
    assert undecided.denominator.bit_length() > 37_000 * 3.3  # 37,000 digits
    rounds = (1 - undecided) / (1 - same)
    exact = {
        "a_wins_exact": a * (1 - b) * rounds,
        "b_wins_exact": b * (1 - a) * rounds,
        "undecided_exact": undecided,
        "expected_rounds_exact": rounds,
    }
    for name, value in exact.items():
        assert body[name] is not None, name
        assert _is_decimal_of(body[name], value), (name, body[name])


@pytest.mark.parametrize(
    ("path", "body", "loc"),
    [
        ("/v1/odds/gurps/quick-contest", {"a": QUICK["a"], "b": QUICK["a"]}, ["b", "name"]),
        ("/v1/odds/gurps/success-roll", {"skill": 1001}, ["skill"]),
        (
            "/v1/odds/gurps/resistance-roll",
            {"attacker": QUICK["a"], "defender": QUICK["a"]},
            ["defender", "name"],
        ),
        ("/v1/odds/cairn", {"rating": 5, "stats": [2, 3]}, ["stats"]),
        ("/v1/odds/cairn", {"rating": 101}, ["rating"]),
        (
            "/v1/odds/arm-wrestles",
            {
                "a": {"name": "L", "strength_mod": 2, "con_score": 12, "con_mod": 1},
                "b": {"name": "L", "strength_mod": 6, "con_score": 15, "con_mod": 2},
            },
            ["b", "name"],
        ),
    ],
)
def test_the_resolutions_422s(
    odds_client: TestClient, path: str, body: object, loc: list[str]
) -> None:
    answer = odds_client.post(path, json=body)
    assert answer.status_code == 422
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert loc[-1] in answer.text
    resolution = path.replace("/v1/odds/cairn", "/v1/cairn/roll").replace("/v1/odds/", "/v1/")
    if "arm-wrestles" not in path:
        assert odds_client.post(resolution, json=body).status_code == 422


def test_cairn_odds(odds_client: TestClient) -> None:
    body = odds_client.post("/v1/odds/cairn", json={"rating": 12, "target": 45}).json()
    assert body["chosen_names"] == ["middle", "third best"]
    _sums_to_one(body["distribution_exact"])
    assert 0.9 < body["success"] < 0.91
    assert Fraction(body["critical_success_exact"]) == Fraction(12, 100)


#: An arm wrestle of at most two rounds: its odds are answered exactly.
SMALL_ARM_WRESTLE = {
    "a": {"name": "A", "strength_mod": 0, "con_score": 5, "con_mod": 0},
    "b": {"name": "B", "strength_mod": 1, "con_score": 5, "con_mod": 0},
    "target": 4,
    "max_rounds": 2,
}


def test_arm_wrestle_odds(odds_client: TestClient) -> None:
    small = SMALL_ARM_WRESTLE
    body = odds_client.post("/v1/odds/arm-wrestles", json=small).json()
    assert body["method"] == "exact"
    parts = ("a_wins_exact", "b_wins_exact", "draw_exact", "undecided_exact")
    assert sum(Fraction(body[k]) for k in parts) == 1
    large = {
        "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
        "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
        "seed": 5,
    }
    body = odds_client.post("/v1/odds/arm-wrestles", json=large).json()
    assert body["method"] == "exact"
    assert (body["seed"], body["trials"], body["standard_error"]) == (None, None, None)
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("Lydia", 2, 12, 1), arm_wrestling.Competitor("Ogre", 6, 15, 2)
    )
    odds = arm_odds.exact_odds(config, arm_wrestling.start(config, Dice()))
    assert Fraction(body["a_wins_exact"]) == odds.a_wins
    assert Fraction(body["draw_exact"]) == odds.draw
    assert round(body["draw"], 7) == 0.0000544
    assert sum(Fraction(body[k]) for k in parts) == 1
    # The seed changes nothing.
    assert odds_client.post("/v1/odds/arm-wrestles", json={**large, "seed": 6}).json() == body


def _longest(strength_mod: int) -> dict[str, Any]:
    """The longest match the creation limits allow: 200 free rounds, then 116 fatigue checks
    at +104 (the last one failing on every face)."""
    side = {"strength_mod": 0, "con_score": 200, "con_mod": 100, "endurance": True}
    return {
        "a": {**side, "name": "A", "strength_mod": strength_mod},
        "b": {**side, "name": "B"},
        "target": 100,
        "max_rounds": 10_000,
    }


def test_the_longest_match_the_limits_allow(odds_client: TestClient) -> None:
    # One side never losing a round (modifiers 19 apart): answered, exactly.
    body = odds_client.post("/v1/odds/arm-wrestles", json=_longest(19)).json()
    assert body["method"] == "exact"
    parts = ("a_wins_exact", "b_wins_exact", "draw_exact", "undecided_exact")
    assert sum(Fraction(body[k]) for k in parts) == 1
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("A", 19, 200, 100, endurance=True),
        arm_wrestling.Competitor("B", 0, 200, 100, endurance=True),
        target=100,
        max_rounds=10_000,
    )
    start = arm_wrestling.start(config, Dice())
    assert arm_odds.horizon(config, start) == 316
    odds = arm_odds.exact_odds(config, start)
    assert Fraction(body["b_wins_exact"]) == odds.b_wins > 0
    assert Fraction(body["expected_rounds_exact"]) == odds.expected_rounds
    # Even: past the exact walk's budget, the bounded walk answers, every bound small.
    even = odds_client.post("/v1/odds/arm-wrestles", json=_longest(0))
    assert even.status_code == 200, even.text
    body = even.json()
    assert body["method"] == "bounded"
    assert all(body[f"{k}_exact"] is None for k in (*parts_names(), "expected_rounds"))
    bound = body["error_bound"]
    assert set(bound) == {*parts_names(), "expected_rounds"}
    assert all(0 < bound[k] < 1e-12 for k in parts_names())
    # An even match: a and b win alike, and every ending adds up to 1 within the bounds.
    assert body["a_wins"] == body["b_wins"] > 0.4
    total = sum(body[k] for k in parts_names())
    assert abs(total - 1) <= sum(bound[k] for k in parts_names()) + 4 * 2**-53
    assert body["summary"].endswith(f"rounds expected (each within {max(bound.values()):.0e}).")


def parts_names() -> tuple[str, ...]:
    return ("a_wins", "b_wins", "draw", "undecided")


def test_charts(odds_client: TestClient) -> None:
    svg = odds_client.post(
        "/v1/odds/gurps/quick-contest", json=QUICK, headers={"Accept": "image/svg+xml"}
    )
    assert svg.status_code == 200
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert "margin of victory" in svg.text
    assert "probability" in svg.text
    png = odds_client.post("/v1/odds/cairn", json={"rating": 12}, headers={"Accept": "image/png"})
    assert png.headers["content-type"] == "image/png"
    assert png.content.startswith(b"\x89PNG\r\n\x1a\n")
    text = odds_client.post(
        "/v1/odds/gurps/quick-contest", json=QUICK, headers={"Accept": "text/plain"}
    )
    assert text.text.startswith("Ann (skill 12) wins")


async def ask(
    path: str, config: Any, state: Any, question: OddsQuestion | None = None
) -> Mapping[str, Any]:
    """The odds a kind's session answers from `state` (`GET …/odds`)."""
    odds = KINDS[path].odds
    assert odds is not None
    return await odds.ask(config, state, question or OddsQuestion())


def test_session_odds_equal_fresh_odds_from_that_state() -> None:
    asyncio.run(_session_odds())


async def _session_odds() -> None:
    config = gurps.RegularConfig(gurps.Contestant("A", 12), gurps.Contestant("B", 10), max_rounds=5)
    here = await ask("regular-contests", config, gurps.RegularState(rounds=2))
    fresh = gurps_answers.regular_contest_answer(
        gurps.RegularConfig(gurps.Contestant("A", 12), gurps.Contestant("B", 10), max_rounds=3),
        gurps.RegularState(),
    )
    assert here["a_wins_exact"] == fresh["a_wins_exact"]
    done = await ask(
        "regular-contests", config, gurps.RegularState(rounds=3, winner="b", finished=True)
    )
    assert (done["b_wins"], done["a_wins"]) == (1.0, 0.0)
    match = arm_wrestling.Config(
        arm_wrestling.Competitor("A", 0, 9, 0),
        arm_wrestling.Competitor("B", 0, 9, 0),
        target=5,
        max_rounds=3,
    )
    state = arm_wrestling.State(names=("A", "B"), ds=(2, 0), rounds_played=1)
    answer = await ask("arm-wrestles", match, state)
    assert answer["rounds_played"] == 1
    assert answer["method"] == "exact"
    assert await ask("arm-wrestles", match, state, OddsQuestion(seed=9, trials=5)) == answer
    race = races.Config(
        course="dash",
        competitors=(
            races.Competitor("Ann", speed=30, mods={"strength": 2}),
            races.Competitor("Bob", speed=30),
        ),
    )
    asked = await ask("races", race, races.start(race, Dice()), OddsQuestion(seed=2, trials=12))
    assert (asked["method"], asked["trials"], asked["seed"]) == ("monte-carlo", 12, 2)


GAME = token_answers.TOKENS_EXAMPLE["game"]


def test_skill_game_token_odds(odds_client: TestClient) -> None:
    answer = odds_client.post(
        "/v1/odds/skill-games/tokens",
        json={"game": GAME, "skills": {"Heroes": ["Climb", "Lore"], "Rivals": ["Sneak", "Lore"]}},
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["method"] == "exact"
    heroes = body["parties"]["Heroes"]
    # Climb: Ann needs 11+ (10 faces of 20), Bo 15+ (6): misses 10 x 14 of 400.
    assert Fraction(heroes["token_exact"]["Climb"]) == 1 - Fraction(10 * 14, 400)
    _sums_to_one(heroes["tokens_exact"])
    _sums_to_one(body["parties"]["Rivals"]["tokens_exact"])
    expected = sum(int(n) * Fraction(p) for n, p in heroes["tokens_exact"].items())
    assert Fraction(heroes["expected_tokens_exact"]) == expected
    meet = odds_client.post(
        "/v1/odds/skill-games/tokens",
        json={"game": {**GAME, "token_rule": "meet"}, "skills": {"Rivals": ["Sneak", "Lore"]}},
    ).json()
    assert list(meet["parties"]) == ["Rivals"]
    assert meet["parties"]["Rivals"]["token"]["Sneak"] > body["parties"]["Rivals"]["token"]["Sneak"]


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        (
            {"game": {**GAME, "goal": None}, "skills": {"Heroes": ["Climb", "Lore"]}},
            ["body", "game"],
        ),
        ({"game": GAME, "skills": {"Heroes": ["Climb", "Climb"]}}, ["body", "skills", "Heroes", 1]),
        ({"game": GAME, "skills": {"Heroes": ["Climb", "Dance"]}}, ["body", "skills", "Heroes", 1]),
        ({"game": GAME, "skills": {"Nobody": ["Climb", "Lore"]}}, ["body", "skills", "Nobody"]),
        ({"game": GAME, "skills": {}}, ["body", "skills"]),
    ],
)
def test_skill_game_token_odds_422s(
    odds_client: TestClient, body: dict[str, object], loc: list[object]
) -> None:
    answer = odds_client.post("/v1/odds/skill-games/tokens", json=body)
    assert answer.status_code == 422, answer.text
    locs = [error["loc"] for error in answer.json()["errors"]]
    assert any(found[: len(loc)] == loc for found in locs), locs


def test_large_skill_game_token_odds_run_in_the_worker(odds_client: TestClient) -> None:
    skills = ["Climb", "Lore", "Sneak", "Swim", "Ride"]
    members = [{"name": f"M{i}", "skills": {"Climb": i % 7}} for i in range(60)]
    game = {
        **GAME,
        "skill_list": skills,
        "skills_per_round": 5,
        "parties": [
            {"name": "Horde", "controller": "gm", "members": members},
            GAME["parties"][1],
        ],
    }
    assert token_answers.INLINE_TOKEN_CHECKS < 60 * 5
    body = odds_client.post(
        "/v1/odds/skill-games/tokens", json={"game": game, "skills": {"Horde": skills}}
    ).json()
    _sums_to_one(body["parties"]["Horde"]["tokens_exact"])
    assert body["parties"]["Horde"]["token"]["Climb"] > body["parties"]["Horde"]["token"]["Lore"]


CHASE = {
    "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2, "hide": 5}},
    "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1}},
    "start": {"mode": "lead", "lead": 12},
    "max_rounds": 30,
    "terrain": {"check": "strength"},
    "tactic_policy": "hide-when-possible",
}


def test_chase_odds(odds_client: TestClient) -> None:
    answer = odds_client.post("/v1/odds/chases", json=CHASE)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["method"] == "exact"
    total = sum(Fraction(body[k]) for k in ("caught_exact", "escaped_exact", "gave_up_exact"))
    assert total == 1
    assert 0 < body["hid"] <= body["escaped"]
    initiative = {**CHASE, "start": {"mode": "initiative"}, "tactic_policy": "none"}
    body = odds_client.post("/v1/odds/chases", json=initiative).json()
    assert body["hid"] == 0
    fixed = {**initiative, "rolls": {"Ralf": {"initiative": 12}}}
    same = odds_client.post("/v1/odds/chases", json={**CHASE, "tactic_policy": "none"}).json()
    assert odds_client.post("/v1/odds/chases", json=fixed).json()["caught"] == same["caught"]


def test_chase_odds_fall_back_to_monte_carlo(odds_client: TestClient) -> None:
    body = {
        **CHASE,
        "max_retries": None,
        "seed": 3,
        "terrain": {
            "check": "strength",
            "obstacle": {"kind": "obstacle", "check": "jump", "dc": 12, "retry": True},
        },
    }
    answer = odds_client.post("/v1/odds/chases", json=body).json()
    assert answer["method"] == "monte-carlo"
    assert answer["seed"] == 3
    assert answer["trials"] > 10
    assert answer["caught_exact"] is None


@pytest.mark.parametrize(
    ("change", "loc"),
    [
        ({"start": {"mode": "lead", "lead": 0}}, "lead"),
        ({"chaser": {**CHASE["escapee"]}}, "name"),  # type: ignore[dict-item]
        ({"terrain": {"check": "strength", "mounted": True}}, "mounted"),
    ],
)
def test_chase_odds_422s(odds_client: TestClient, change: dict[str, object], loc: str) -> None:
    answer = odds_client.post("/v1/odds/chases", json={**CHASE, **change})
    assert answer.status_code == 422, answer.text
    assert loc in answer.text


RACE = {
    "course": "dash",
    "competitors": [
        {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
        {"name": "Bob", "speed": 30, "mods": {"strength": 0}},
    ],
    "seed": 11,
}


def test_race_odds(odds_client: TestClient) -> None:
    answer = odds_client.post("/v1/odds/races", json=RACE)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["method"] == "monte-carlo"
    assert body["seed"] == 11
    assert body["trials"] > 1000
    assert sum(body["wins"].values()) + body["tie"] + body["nobody"] == pytest.approx(1)
    assert body["wins"]["Ann"] > body["wins"]["Bob"]
    assert body["forfeits"] == {"Ann": 0.0, "Bob": 0.0}
    again = odds_client.post("/v1/odds/races", json=RACE).json()
    assert again == body  # seeded (and cached)
    sure = {
        **RACE,
        "competitors": [
            {"name": "Ann", "speed": 30, "mods": {"strength": 60}},
            {"name": "Bob", "speed": 30, "mods": {"strength": 0}},
        ],
    }
    body = odds_client.post("/v1/odds/races", json=sure).json()
    assert body["wins"] == {"Ann": 1.0, "Bob": 0.0}
    # Won every time, yet an estimate: Ann's chance is not stated as certain.
    trials = body["trials"]
    assert body["standard_error"]["wins.Ann"] == pytest.approx(
        sqrt(2 / (trials + 4) * (trials + 2) / (trials + 4) / (trials + 4))
    )
    duplicate = {**RACE, "competitors": [RACE["competitors"][0]] * 2}  # type: ignore[index]
    assert odds_client.post("/v1/odds/races", json=duplicate).status_code == 422


def test_race_and_chase_odds_from_a_session_state() -> None:
    asyncio.run(_race_and_chase_from_here())


async def _race_and_chase_from_here() -> None:
    from app.rules import chases, races
    from app.rules.dice import Dice

    config = races.Config(
        course="dash",
        competitors=(
            races.Competitor("Ann", 30, mods={"strength": 2}),
            races.Competitor("Bob", 30, mods={"strength": 0}),
        ),
    )
    state = races.start(config, Dice())
    state, _ = races.play_round(
        config, state, Dice(supplied={("Ann", races.CHECK): [20], ("Bob", races.CHECK): [1]})
    )
    here = await ask("races", config, state, OddsQuestion(seed=2))
    assert here["increments_played"] == 1
    assert here["wins"]["Ann"] > 0.9
    chase = chases.Config(
        races.Competitor("Ralf", 30, mods={"strength": 2}),
        races.Competitor("Guard", 30, mods={"strength": 1}),
        chases.LeadStart(lead=12),
        max_rounds=30,
    )
    later = chases.State(lead=7, ds={"Ralf": 9, "Guard": 2}, increments=3)
    answer = await ask("chases", chase, later, OddsQuestion(terrain='{"check": "strength"}'))
    fresh = chase_answers.chase_answer(
        as_json(chase),
        as_json(chases.State(lead=7, ds={"Ralf": 7, "Guard": 0}, increments=3)),
        as_json(chases.Terrain(races.Increment(check="strength"))),
        "none",
        0,
    )
    assert answer["caught_exact"] == fresh["caught_exact"]
    assert answer["increments_played"] == 3
    with pytest.raises(RulesError):
        await ask("chases", chase, later)
    done = chases.State(lead=0, ds={"Ralf": 0, "Guard": 0}, status_detail="caught", increments=4)
    caught = await ask("chases", chase, done, OddsQuestion(terrain='{"check": "strength"}'))
    assert (caught["caught"], caught["expected_increments"]) == (1.0, 4.0)


def test_a_chart_titled_with_names_that_look_like_math(odds_client: TestClient) -> None:
    names = {"a": {"name": "$\\frac{ Ann", "skill": 12}, "b": {"name": "x$ Bob_", "skill": 10}}
    svg = odds_client.post(
        "/v1/odds/gurps/quick-contest", json=names, headers={"Accept": "image/svg+xml"}
    )
    assert svg.status_code == 200
    assert "$\\frac{ Ann vs x$ Bob_" in svg.text  # drawn as written, not parsed as math


def test_estimates_take_the_trials_asked(odds_client: TestClient) -> None:
    race = odds_client.post("/v1/odds/races", json={**RACE, "trials": 37}).json()
    assert race["trials"] == 37
    # Ann (+2 Strength) never forfeits a dash: never seen, yet not "0 +- 0".
    assert race["forfeits"]["Ann"] == 0
    assert race["standard_error"]["forfeits.Ann"] == pytest.approx(sqrt(2 / 41 * 39 / 41 / 41))
    more = odds_client.post("/v1/odds/races", json={**RACE, "trials": 2000}).json()
    assert more["trials"] == 2000
    assert more["standard_error"]["wins.Ann"] < race["standard_error"]["wins.Ann"] / 5
    chase = {
        **CHASE,
        "max_retries": None,
        "seed": 3,
        "trials": 40,
        "terrain": {
            "check": "strength",
            "obstacle": {"kind": "obstacle", "check": "jump", "dc": 12, "retry": True},
        },
    }
    answer = odds_client.post("/v1/odds/chases", json=chase).json()
    assert (answer["method"], answer["trials"]) == ("monte-carlo", 40)
    # An exact answer ignores them.
    exact = odds_client.post("/v1/odds/chases", json={**CHASE, "trials": 40}).json()
    assert (exact["method"], exact["trials"]) == ("exact", None)


@pytest.mark.parametrize("trials", [0, -1, 10_001, "many", 2.5])
def test_trials_out_of_bounds_are_422(odds_client: TestClient, trials: object) -> None:
    for path, body in (("/v1/odds/races", RACE), ("/v1/odds/chases", CHASE)):
        answer = odds_client.post(path, json={**body, "trials": trials})
        assert answer.status_code == 422, (path, answer.text)
        assert "trials" in answer.text
