"""The Python client (`clients/python`) against a live server: one real uvicorn process.

It parses every answer into its generated model, raises typed errors carrying the problem+json,
and speaks the session protocol: bearer tokens, If-Match and ETag, Idempotency-Key and
Idempotent-Replayed, sealed choices (202) and their reveal (200). Its models are the document's:
a test regenerates them and finds the committed file unchanged.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest
from arbiter_client import (
    Arbiter,
    AsyncArbiter,
    InvalidInput,
    NotFound,
    PreconditionFailed,
    Unauthorized,
    models,
)
from arbiter_client import operations as ops

from app.main import create_app
from app.rules import arm_wrestling, serial
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import gurps as gurps_odds
from app.store.database import upgrade_to_head
from tests.clients import CLIENT_ROOT
from tests.store.servers import running_servers

pytestmark = pytest.mark.slow

QUICK_CONTEST = {
    "a": {"name": "Ann", "skill": 12, "roll": [2, 3, 4]},
    "b": {"name": "Bob", "skill": 10, "roll": [5, 5, 1]},
}
ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}
SKILL_GAME: dict[str, Any] = {
    "dc": 12,
    "skill_list": ["Persuade", "Intimidate", "Insight"],
    "skills_per_round": 2,
    "kind": "bidding",
    "goal": 3,
    "actions": [
        {
            "name": "Press",
            "effects": [
                {"min_margin": 0, "text": "a small concession", "progress": 1},
                {"min_margin": 2, "text": "a confession", "progress": 2},
            ],
        }
    ],
    "parties": [
        {
            "name": "Heroes",
            "controller": "players",
            "members": [{"name": "Ann", "skills": {"Persuade": 5, "Insight": 3}}],
        },
        {
            "name": "Villains",
            "controller": "gm",
            "members": [{"name": "Vex", "skills": {"Intimidate": 6}}],
        },
    ],
}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One live server on a migrated SQLite database."""
    folder = tmp_path_factory.mktemp("client-server")
    url = f"sqlite:///{folder / 'arbiter.db'}"
    upgrade_to_head(url)
    with running_servers(url, 1, folder) as (server,):
        yield server.base_url


@pytest.fixture
def arbiter(base_url: str) -> Iterator[Arbiter]:
    with Arbiter(base_url) as client:
        yield client


def test_the_committed_models_are_generated_from_the_current_document(tmp_path: Path) -> None:
    import generate  # clients/python/generate.py, on the path with the package

    regenerated = tmp_path / "models.py"
    generate.render(create_app().openapi(), regenerated)
    committed = (CLIENT_ROOT / "arbiter_client" / "models.py").read_text(encoding="utf-8")
    assert regenerated.read_text(encoding="utf-8") == committed, (
        "arbiter_client/models.py is stale: run .venv/bin/python clients/python/generate.py"
    )


def test_a_quick_contest_parses_into_its_model(arbiter: Arbiter) -> None:
    reply = arbiter.send(ops.gurps_quick_contest(QUICK_CONTEST))

    assert reply.status == 200
    answer = reply.body
    assert isinstance(answer, models.QuickContestAnswer)
    assert (answer.winner, answer.margin_of_victory, answer.tie) == ("Ann", 4, False)
    assert (answer.a.total, answer.a.margin, answer.b.total, answer.b.margin) == (9, 3, 11, -1)
    assert [(roll.who, roll.values, roll.source) for roll in answer.rolls] == [
        ("Ann", [2, 3, 4], "supplied"),
        ("Bob", [5, 5, 1], "supplied"),
    ]
    assert answer.summary == (
        "Ann (skill 12) rolled 9, made it by 3; Bob (skill 10) rolled 11, missed by 1. "
        "Ann wins by 4."
    )


def test_one_against_many_and_its_odds(arbiter: Arbiter) -> None:
    body = {
        "competitor": {"name": "Thief", "skill": 13, "roll": [2, 3, 4]},
        "opponents": [
            {"name": "Guard 1", "skill": 10, "roll": [5, 5, 1]},
            {"name": "Guard 2", "skill": 10, "roll": [1, 1, 2]},
        ],
    }
    answer = arbiter.send(ops.gurps_quick_contests(body)).body
    assert isinstance(answer, models.QuickContestsAnswer)
    assert [(r.opponent.name, r.winner) for r in answer.results] == [
        ("Guard 1", "Thief"),
        ("Guard 2", "Guard 2"),
    ]
    assert [roll.source for roll in answer.rolls] == ["supplied"] * 3
    odds = arbiter.send(ops.odds_gurps_quick_contests(body)).body
    assert isinstance(odds, models.OddsGroupAnswer)
    assert odds.all_beaten_exact == "5869267/10077696"
    opposed = {
        "competitor": {"name": "Thief", "modifier": 7, "roll": 11},
        "opponents": [{"name": "Guard", "modifier": 2, "roll": 18}],
    }
    checked = arbiter.send(ops.d20_opposed_checks(opposed)).body
    assert isinstance(checked, models.OpposedChecksAnswer)
    assert (checked.beaten, checked.results[0].winner) == (0, "Guard")
    guard = arbiter.send(ops.odds_d20_opposed_checks(opposed)).body.pairs[0]
    wins = sum(1 for a in range(1, 21) for b in range(1, 21) if a + 7 >= b + 2)
    assert Fraction(guard.beats_exact) == Fraction(wins, 400)


def test_the_request_models_are_sent_as_their_json(arbiter: Arbiter) -> None:
    body = models.QuickContestRequest.model_validate(QUICK_CONTEST)

    assert arbiter.send(ops.gurps_quick_contest(body)).body.margin_of_victory == 4


def test_the_async_client_answers_the_same(base_url: str) -> None:
    async def contest() -> models.QuickContestAnswer:
        async with AsyncArbiter(base_url) as arbiter:
            return (await arbiter.send(ops.gurps_quick_contest(QUICK_CONTEST))).body

    answer = asyncio.run(contest())
    assert (answer.winner, answer.margin_of_victory) == ("Ann", 4)


def test_an_invalid_request_raises_the_problem_with_its_fields(arbiter: Arbiter) -> None:
    with pytest.raises(InvalidInput) as raised:
        arbiter.send(ops.gurps_quick_contest({"a": {"name": "Ann", "skill": 12}}))

    problem = raised.value.problem
    assert (problem.status, problem.title) == (422, "Invalid input")
    assert problem.type.endswith("/invalid-input")
    assert problem.errors is not None
    assert [error.loc for error in problem.errors] == [["body", "b"]]
    assert raised.value.headers["content-type"] == "application/problem+json"


def test_an_arm_wrestle_with_if_match_and_idempotency_key(arbiter: Arbiter) -> None:
    created = arbiter.send(ops.arm_wrestles.create(ARM_WRESTLE))
    session = created.body
    assert isinstance(session, models.ArmWrestleCreated)
    assert (created.status, created.version, session.version) == (201, 1, 1)
    assert created.location == f"/v1/arm-wrestles/{session.id}"
    assert session.tokens is not None
    gm = session.tokens.gm

    with pytest.raises(Unauthorized):
        arbiter.send(ops.arm_wrestles.get(session.id))
    with pytest.raises(NotFound):
        arbiter.send(ops.arm_wrestles.get(session.id), token="not-a-token-of-this-session")

    key = str(uuid.uuid4())
    dice = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
    played = arbiter.send(
        ops.arm_wrestles.play(session.id, dice, if_match=created.version, idempotency_key=key),
        token=gm,
    )
    assert isinstance(played.body, models.ArmWrestleRoundAnswer)
    assert (played.status, played.version, played.replayed) == (200, 2, False)
    assert played.etag == '"2"'
    assert played.body.round.number == 1
    assert played.body.session.version == 2
    assert [(roll.who, roll.values) for roll in played.body.round.rolls] == [
        ("Lydia", [17]),
        ("Ogre", [8]),
    ]

    replayed = arbiter.send(
        ops.arm_wrestles.play(session.id, dice, if_match=created.version, idempotency_key=key),
        token=gm,
    )
    assert replayed.replayed
    assert replayed.body == played.body

    with pytest.raises(PreconditionFailed) as stale:
        arbiter.send(ops.arm_wrestles.play(session.id, if_match=created.version), token=gm)
    assert (stale.value.status_code, stale.value.problem.status) == (412, 412)
    assert stale.value.problem.title == "Precondition Failed"

    now = arbiter.send(ops.arm_wrestles.get(session.id), token=gm)
    assert isinstance(now.body, models.ArmWrestleSession)
    assert (now.version, now.body.version, now.body.round) == (2, 2, 1)

    with pytest.raises(InvalidInput) as wrong_dice:
        arbiter.send(
            ops.arm_wrestles.play(session.id, {"rolls": {"Lydia": {"strength": 21}}}), token=gm
        )
    assert wrong_dice.value.problem.errors

    page = arbiter.send(ops.arm_wrestles.rounds(session.id, limit=10), token=gm)
    assert isinstance(page.body, models.ArmWrestleRounds)
    assert [record.number for record in page.body.rounds] == [1]

    resolved = arbiter.send(ops.arm_wrestles.resolve(session.id), token=gm)
    assert isinstance(resolved.body, models.ArmWrestleResolved)
    assert resolved.body.session.status == "finished"
    assert resolved.body.played >= 1

    deleted = arbiter.send(ops.arm_wrestles.delete(session.id), token=gm)
    assert (deleted.status, deleted.body) == (204, None)
    with pytest.raises(NotFound):
        arbiter.send(ops.arm_wrestles.get(session.id), token=gm)


def test_a_partys_skills_and_their_odds_at_the_choice(arbiter: Arbiter) -> None:
    session = arbiter.send(ops.skill_games.create(SKILL_GAME)).body
    assert isinstance(session, models.SkillGameCreated)
    assert session.tokens is not None
    assert session.tokens.parties is not None
    heroes = session.tokens.parties["Heroes"]
    moves = [["Persuade", "Insight"], ["Persuade", "Intimidate"]]
    asked = arbiter.send(
        ops.skill_games.odds_at_choices(
            session.id,
            {
                "options": [
                    {"move": {"party": "Heroes", "skills": moves[0]}},
                    {"move": {"party": "Heroes", "skills": moves[1]}, "label": "threaten"},
                ]
            },
        ),
        token=heroes,
    ).body
    assert isinstance(asked, models.OddsSkillGameChoicesAnswer)
    assert [option.label for option in asked.options] == ["Heroes: Persuade, Insight", "threaten"]
    for option, skills in zip(asked.options, moves, strict=True):
        alone = arbiter.send(
            ops.odds_skill_game_tokens({"game": SKILL_GAME, "skills": {"Heroes": skills}})
        ).body
        assert option.odds == alone
    # Above DC 12: Ann's Persuade +5 on 8 or more, her Insight +3 on 10 or more, and
    # Intimidate, a skill she lacks, at +0 on 13 or more.
    insight = asked.options[0].odds.parties["Heroes"].token_exact
    threaten = asked.options[1].odds.parties["Heroes"].token_exact
    assert (Fraction(insight["Persuade"]), Fraction(insight["Insight"])) == (
        Fraction(13, 20),
        Fraction(11, 20),
    )
    assert Fraction(threaten["Intimidate"]) == Fraction(8, 20)
    assert asked.best == "Heroes: Persuade, Insight"


def test_a_sealed_skill_game_round(arbiter: Arbiter) -> None:
    session = arbiter.send(ops.skill_games.create(SKILL_GAME)).body
    assert isinstance(session, models.SkillGameCreated)
    assert session.tokens is not None
    parties = session.tokens.parties
    assert parties is not None
    heroes, villains = parties["Heroes"], parties["Villains"]

    chosen = arbiter.send(
        ops.skill_games.skills(
            session.id,
            {
                "party": "Heroes",
                "skills": ["Persuade", "Insight"],
                "rolls": {"Ann": {"Persuade": 15, "Insight": 12}},
            },
        ),
        token=heroes,
    )
    assert isinstance(chosen.body, models.SkillGameSkillsAnswer)
    assert chosen.body.tokens_earned == 2
    villains_skills = {
        "party": "Villains",
        "skills": ["Intimidate", "Persuade"],
        "rolls": {"Vex": {"Intimidate": 10, "Persuade": 10}},
    }
    assert (
        arbiter.send(
            ops.skill_games.skills(session.id, villains_skills), token=villains
        ).body.tokens_earned
    ) == 1

    sealed = arbiter.send(
        ops.skill_games.choices(session.id, {"party": "Heroes", "action": "Press", "bid": 2}),
        token=heroes,
    )
    assert sealed.status == 202
    assert isinstance(sealed.body, models.SkillGameSealed)
    assert (sealed.body.party, sealed.body.waiting_for) == ("Heroes", ["Villains"])

    revealed = arbiter.send(
        ops.skill_games.choices(session.id, {"party": "Villains", "action": "Press", "bid": 1}),
        token=villains,
    )
    assert revealed.status == 200
    assert isinstance(revealed.body, models.SkillGameRevealed)
    assert revealed.version == revealed.body.session.version
    assert revealed.body.round.number == 1


def test_one_shot_odds_parse_into_their_models(arbiter: Arbiter) -> None:
    success = arbiter.send(ops.odds_gurps_success_roll({"skill": 10})).body
    assert isinstance(success, models.OddsSuccessRollAnswer)
    assert success.success_exact == "1/2"  # 108 of the 216 totals of 3d6 are 10 or less

    quick = arbiter.send(ops.odds_gurps_quick_contest(models.QuickContestRequest.model_validate(
        {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}
    ))).body  # fmt: skip
    assert isinstance(quick, models.OddsQuickContestAnswer)
    exact = gurps_odds.quick_contest_odds(12, 10)
    assert (Fraction(quick.a_wins_exact), Fraction(quick.b_wins_exact)) == (
        exact.a_wins,
        exact.b_wins,
    )

    # A fresh match is exact: the rules' own fractions, whatever the seed.
    arm = arbiter.send(ops.odds_arm_wrestle({**ARM_WRESTLE, "seed": 42})).body
    assert isinstance(arm, models.OddsArmWrestleAnswer)
    config = serial.load(arm_wrestling.Config, {"a": ARM_WRESTLE["a"], "b": ARM_WRESTLE["b"]})
    odds = arm_odds.exact_odds(config, arm_wrestling.State(names=("Lydia", "Ogre")))
    assert (arm.method, arm.seed, arm.trials, arm.error_bound) == ("exact", None, None, None)
    assert arm.a_wins_exact is not None
    assert arm.draw_exact is not None
    assert Fraction(arm.a_wins_exact) == odds.a_wins
    assert Fraction(arm.draw_exact) == odds.draw


def test_odds_from_a_sessions_state(arbiter: Arbiter, base_url: str) -> None:
    created = arbiter.send(ops.arm_wrestles.create(ARM_WRESTLE)).body
    assert created.tokens is not None
    gm = created.tokens.gm
    dice = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
    arbiter.send(ops.arm_wrestles.play(created.id, dice), token=gm)
    odds = arbiter.send(ops.arm_wrestles.odds(created.id, seed=3), token=gm).body
    assert isinstance(odds, models.OddsArmWrestleAnswer)
    raw = httpx.get(
        f"{base_url}/v1/arm-wrestles/{created.id}/odds",
        params={"seed": 3},
        headers={"authorization": f"Bearer {gm}"},
    ).json()
    assert odds.rounds_played == 1
    assert odds.model_dump(mode="json") == models.OddsArmWrestleAnswer.model_validate(
        raw
    ).model_dump(mode="json")

    chase = arbiter.send(ops.chases.create({
        "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2}},
        "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1}},
        "start": {"mode": "lead", "lead": 12},
    })).body  # fmt: skip
    assert chase.tokens is not None
    terrain = models.ChaseTerrain.model_validate({"check": "strength"})
    asked = arbiter.send(
        ops.chases.odds(chase.id, seed=5, terrain=terrain, tactic_policy="hide-when-possible"),
        token=chase.tokens.gm,
    ).body
    posted = arbiter.send(
        ops.chases.odds_with_terrain(
            chase.id,
            {"terrain": {"check": "strength"}, "tactic_policy": "hide-when-possible", "seed": 5},
        ),
        token=chase.tokens.gm,
    ).body
    assert isinstance(asked, models.OddsChaseAnswer)
    assert asked == posted
    # The odds at a choice: the policy's own move is the odds from here.
    chosen = arbiter.send(
        ops.chases.odds_at_choices(
            chase.id,
            {
                "options": [{"move": {"terrain": {"check": "strength"}}, "label": "run"}],
                "seed": 5,
            },
        ),
        token=chase.tokens.gm,
    ).body
    assert isinstance(chosen, models.OddsChaseChoicesAnswer)
    assert chosen.best == "run"
    from_here = arbiter.send(
        ops.chases.odds(chase.id, seed=5, terrain=terrain), token=chase.tokens.gm
    ).body
    assert chosen.options[0].odds == from_here


def test_a_racers_pacing_and_its_odds_at_the_choice(arbiter: Arbiter) -> None:
    race = arbiter.send(ops.races.create({
        "course": "dash",
        "competitors": [
            {"name": "Ann", "speed": 30, "mods": {"strength": 1}},
            {"name": "Bob", "speed": 30, "mods": {"strength": 2}},
        ],
    })).body  # fmt: skip
    assert race.tokens is not None
    assert race.tokens.parties is not None
    ann = race.tokens.parties["Ann"]
    options = {"options": [{"move": {"name": "Ann", "pacing": "sprint"}}], "seed": 4}
    asked = arbiter.send(ops.races.odds_at_choices(race.id, options), token=ann).body
    assert isinstance(asked, models.OddsRaceChoicesAnswer)
    assert asked.best == "Ann sprints"
    chosen = arbiter.send(
        ops.races.pacing(race.id, {"name": "Ann", "pacing": "sprint"}, if_match=1), token=ann
    )
    assert isinstance(chosen.body, models.RacePacingChosen)
    assert chosen.version == 2
    assert chosen.body.session.state.pacing["Ann"] == "sprint"
    after = arbiter.send(ops.races.odds(race.id, seed=4), token=ann).body
    assert asked.options[0].odds == after
