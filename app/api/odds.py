"""Odds before and during a contest (docs/api.md#odds, docs/rules.md#odds).

Each `POST /v1/odds/...` takes the body of the matching resolution or session creation (its
dice and seed are not used, except the seed of a Monte Carlo estimate) with the same
validation and errors, and answers from `app.rules.odds`. `session_odds` answers the same
questions from a session's config and state ("odds from here", `GET /v1/{kind}/{id}/odds`);
the kinds of `SESSION_ODDS_BODIES` (chases) also take that question as a JSON body
(`POST /v1/{kind}/{id}/odds`, the same answer).

Speed: the GURPS questions take well under a millisecond and run inline. The heavier ones
(a Cairn distribution, an arm wrestle's walk or its Monte Carlo estimate, every chart) run in
a one-process pool, so the event loop keeps serving other requests meanwhile; their answers
are kept in a bounded cache in this process too (identical questions are answered from it).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from functools import cache, lru_cache
from multiprocessing import get_context
from typing import Annotated, Any, Final, NamedTuple, TypeVar

from fastapi import APIRouter, Body, Request
from pydantic import ValidationError
from starlette.responses import Response

from app.api import charts
from app.api import races as race_kind
from app.api.cairn import POSITIONS
from app.api.common import examples
from app.api.routing import LeanRoute
from app.api.schemas.arm_wrestles import ArmWrestleCreate
from app.api.schemas.cairn import CairnRollRequest
from app.api.schemas.chases import ChaseTerrain
from app.api.schemas.common import Strict, validate_json
from app.api.schemas.gurps import (
    QuickContestRequest,
    RegularContestRequest,
    ResistanceRollRequest,
    SuccessRollRequest,
)
from app.api.schemas.odds import (
    OddsArmWrestleAnswer,
    OddsCairnAnswer,
    OddsChaseAnswer,
    OddsChaseFromHereRequest,
    OddsChaseRequest,
    OddsPartyTokens,
    OddsQuickContestAnswer,
    OddsRaceAnswer,
    OddsRegularContestAnswer,
    OddsResistanceRollAnswer,
    OddsSkillGameTokensAnswer,
    OddsSkillGameTokensRequest,
    OddsSuccessRollAnswer,
)
from app.api.schemas.races import RaceCreate
from app.notation import validate_notation
from app.rules import arm_wrestling, cairn, chases, gurps, races, serial, skill_games
from app.rules.dice import Dice
from app.rules.errors import RulesError
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import cairn as cairn_odds
from app.rules.odds import chases as chase_odds
from app.rules.odds import fraction_text
from app.rules.odds import gurps as gurps_odds
from app.rules.odds import races as race_odds
from app.rules.odds import skill_games as skill_odds

T = TypeVar("T")

#: Answers kept per process (identical questions); the rules' functions keep their own too.
CACHE_SIZE: Final = 512


_workers: list[ProcessPoolExecutor] = []


def _pool() -> ProcessPoolExecutor:
    """One worker process for the heavy questions, shared by every app of this process
    ("spawn": no fork of a running event loop). It ends with the process: joined at exit,
    and on its own when the process is killed (`_follow_parent`)."""
    if not _workers:
        _workers.append(
            ProcessPoolExecutor(
                max_workers=1,
                mp_context=get_context("spawn"),
                initializer=_follow_parent,
                initargs=(os.getpid(),),
            )
        )
    return _workers[0]


def start_pool() -> None:
    """Start the worker process now and have it import the odds modules (about 0.7 s), so a
    first heavy question does not wait for that; for the app's lifespan, at startup."""
    _pool().submit(_ready)


def _ready() -> None:
    """Nothing: running it in the worker imports this module, and so the rules' odds."""


def _follow_parent(parent: int) -> None:
    """In the worker: end when the server process is gone (killed, it cannot stop us)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


_answers: OrderedDict[tuple[Any, ...], Any] = OrderedDict()


async def off_loop(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` in the worker process, from the cache when asked before."""
    key = (function.__module__, function.__qualname__, *args)
    if key in _answers:
        _answers.move_to_end(key)
        return _answers[key]  # type: ignore[no-any-return]
    result = await asyncio.get_running_loop().run_in_executor(_pool(), function, *args)
    _remember(key, result)
    return result


def _remember(key: tuple[Any, ...], answer: Any) -> None:
    _answers[key] = answer
    if len(_answers) > CACHE_SIZE:
        _answers.popitem(last=False)


def _p(probability: Fraction) -> float:
    return float(probability)


def _exact(probability: Fraction) -> str:
    text = fraction_text(probability)
    if text is None:  # small denominators only reach here (6**6, 100**9)
        raise ValueError("an exact fraction too long to write")
    return text


def _distribution(values: Mapping[int, Fraction]) -> tuple[dict[str, float], dict[str, str]]:
    return (
        {str(value): float(p) for value, p in values.items()},
        {str(value): _exact(p) for value, p in values.items()},
    )


def _percent(probability: float) -> str:
    return f"{probability * 100:.1f}%"


async def _maybe_chart(
    request: Request, answer: T, distribution: Mapping[str, float], title: str, xlabel: str
) -> T | Response:
    kind = charts.wanted_image(request)
    if kind is None:
        return answer
    body = await off_loop(charts.bar_chart_bytes, tuple(distribution.items()), title, xlabel, kind)
    return Response(body, media_type=kind)


async def _maybe_grouped_chart(
    request: Request,
    answer: T,
    series: Mapping[str, Mapping[str, float]],
    title: str,
    xlabel: str,
    legend_title: str,
) -> T | Response:
    """`_maybe_chart` for several distributions, one per name: grouped bars, a legend."""
    kind = charts.wanted_image(request)
    if kind is None:
        return answer
    hashable = tuple((name, tuple(values.items())) for name, values in series.items())
    body = await off_loop(
        charts.grouped_bar_chart_bytes, hashable, title, xlabel, kind, legend_title
    )
    return Response(body, media_type=kind)


# --- GURPS --------------------------------------------------------------------------------


def success_roll_answer(skill: int) -> OddsSuccessRollAnswer:
    odds = gurps_odds.success_roll_odds(skill)
    margin, margin_exact = _distribution(odds.margin)
    return {
        "method": "exact",
        "skill": skill,
        "success": _p(odds.success),
        "success_exact": _exact(odds.success),
        "critical_success": _p(odds.critical_success),
        "critical_success_exact": _exact(odds.critical_success),
        "critical_failure": _p(odds.critical_failure),
        "critical_failure_exact": _exact(odds.critical_failure),
        "margin": margin,
        "margin_exact": margin_exact,
        "summary": f"Skill {skill}: succeeds {_percent(float(odds.success))} "
        f"(critical success {_percent(float(odds.critical_success))}, critical failure "
        f"{_percent(float(odds.critical_failure))}).",
    }


async def success_roll(
    request: Request,
    body: Annotated[
        SuccessRollRequest,
        Body(openapi_examples=examples({"skill 12": {"skill": 12}})),
    ],
) -> OddsSuccessRollAnswer | Response:
    """Exact odds of a success roll: success, criticals, the signed margin
    (docs/rules.md#success-roll)."""
    answer = success_roll_answer(body.skill)
    return await _maybe_chart(
        request, answer, answer["margin"], f"Skill {body.skill}: signed margin", "margin"
    )


async def quick_contest(
    request: Request,
    body: Annotated[
        QuickContestRequest,
        Body(
            openapi_examples=examples(
                {"12 vs 10": {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}}
            )
        ),
    ],
) -> OddsQuickContestAnswer | Response:
    """Exact odds of a quick contest, with the margin of victory (docs/rules.md#quick-contest)."""
    a, b = body.a, body.b
    _distinct(a.name, b.name)
    parts = _quick_contest_parts(a.skill, b.skill)
    answer: OddsQuickContestAnswer = {
        "method": "exact",
        "a": a.name,
        "b": b.name,
        "a_wins": parts.a_wins,
        "a_wins_exact": parts.a_wins_exact,
        "b_wins": parts.b_wins,
        "b_wins_exact": parts.b_wins_exact,
        "tie": parts.tie,
        "tie_exact": parts.tie_exact,
        "margin_of_victory": parts.margin,
        "margin_of_victory_exact": parts.margin_exact,
        "summary": f"{a.name} (skill {a.skill}) wins {_percent(parts.a_wins)}, "
        f"{b.name} (skill {b.skill}) {_percent(parts.b_wins)}, tie {_percent(parts.tie)}.",
    }
    return await _maybe_chart(
        request,
        answer,
        parts.margin,
        f"{a.name} vs {b.name}: margin of victory",
        "margin of victory",
    )


class _QuickContestParts(NamedTuple):
    """What a quick contest's answer says whoever asks (the names aside), written once."""

    a_wins: float
    a_wins_exact: str
    b_wins: float
    b_wins_exact: str
    tie: float
    tie_exact: str
    margin: dict[str, float]
    margin_exact: dict[str, str]


@lru_cache(maxsize=CACHE_SIZE)
def _quick_contest_parts(skill_a: int, skill_b: int) -> _QuickContestParts:
    # Kept whole per pair of skills: a repeated question costs no Fraction or string work.
    # The dicts are shared by every answer built from them, and never changed.
    odds = gurps_odds.quick_contest_odds(skill_a, skill_b)
    margin, margin_exact = _distribution(odds.margin_of_victory)
    return _QuickContestParts(
        _p(odds.a_wins),
        _exact(odds.a_wins),
        _p(odds.b_wins),
        _exact(odds.b_wins),
        _p(odds.tie),
        _exact(odds.tie),
        margin,
        margin_exact,
    )


async def resistance_roll(
    body: Annotated[
        ResistanceRollRequest,
        Body(
            openapi_examples=examples(
                {
                    "14 vs 11": {
                        "attacker": {"name": "Wizard", "skill": 14},
                        "defender": {"name": "Orc", "skill": 11},
                    }
                }
            )
        ),
    ],
) -> OddsResistanceRollAnswer:
    """Exact probability that the defender is affected (docs/rules.md#resistance-roll)."""
    attacker, defender = body.attacker, body.defender
    _distinct(attacker.name, defender.name, ("defender", "name"))
    affected = gurps_odds.resistance_odds(attacker.skill, defender.skill)
    return {
        "method": "exact",
        "attacker": attacker.name,
        "defender": defender.name,
        "affected": _p(affected),
        "affected_exact": _exact(affected),
        "summary": f"{defender.name} is affected by {attacker.name} "
        f"{_percent(float(affected))} of the time.",
    }


def regular_contest_answer(
    config: gurps.RegularConfig, state: gurps.RegularState
) -> OddsRegularContestAnswer:
    """The odds of a regular contest from `state` (a finished one: its result, certain)."""
    a, b = config.a.name, config.b.name
    if state.finished:
        odds = gurps_odds.RegularContestOdds(
            config.effective,
            Fraction(state.winner == "a"),
            Fraction(state.winner == "b"),
            Fraction(state.winner is None),
            Fraction(state.rounds),
            state.rounds,
        )
    else:
        odds = gurps_odds.regular_contest_odds(
            config.a.skill, config.b.skill, config.normalize, config.max_rounds, state.rounds
        )
    skill_a, skill_b = odds.effective
    return {
        "method": "exact",
        "effective_skills": {a: skill_a, b: skill_b},
        "a_wins": _p(odds.a_wins),
        "a_wins_exact": fraction_text(odds.a_wins),
        "b_wins": _p(odds.b_wins),
        "b_wins_exact": fraction_text(odds.b_wins),
        "undecided": _p(odds.undecided),
        "undecided_exact": fraction_text(odds.undecided),
        "expected_rounds": _p(odds.expected_rounds),
        "expected_rounds_exact": fraction_text(odds.expected_rounds),
        "rounds_played": odds.rounds_played,
        "summary": f"{a} (effective {skill_a}) wins {_percent(float(odds.a_wins))}, "
        f"{b} (effective {skill_b}) {_percent(float(odds.b_wins))}, undecided after "
        f"{config.max_rounds} rounds {_percent(float(odds.undecided))}; "
        f"{float(odds.expected_rounds):.2f} rounds expected.",
    }


async def regular_contest(
    body: Annotated[
        RegularContestRequest,
        Body(
            openapi_examples=examples(
                {
                    "giants": {
                        "a": {"name": "Giant", "skill": 600},
                        "b": {"name": "Ogre", "skill": 500},
                    }
                }
            )
        ),
    ],
) -> OddsRegularContestAnswer:
    """Exact odds of a regular contest within `max_rounds`, with the expected rounds (§1.4)."""
    config = body.to_rules()
    gurps.check_regular_config(config)
    return regular_contest_answer(config, gurps.RegularState())


def _distinct(first: str, second: str, loc: tuple[str, ...] = ("b", "name")) -> None:
    # The resolution's own check (app/api/gurps.py): the same 422 for the same body.
    if first == second:
        raise RulesError("the two competitors need different names", loc)


# --- Cairn Hill ---------------------------------------------------------------------------


def cairn_answer(rating: int, target: int | None) -> OddsCairnAnswer:
    """The Cairn answer (computed in the worker process: about 5-10 ms cold)."""
    odds = cairn_odds.cairn_odds(rating, target)
    distribution, exact = _distribution(odds.distribution)
    lower, higher = odds.chosen
    line = (
        f"Rating {rating} ({cairn.POSITION_NAMES[lower]} and {cairn.POSITION_NAMES[higher]}): "
        f"mean score {float(odds.mean):.2f}, critical success "
        f"{_percent(float(odds.critical_success))}, critical failure "
        f"{_percent(float(odds.critical_failure))}"
    )
    if odds.success is not None:
        line += f"; score >= {target}: {_percent(float(odds.success))}"
    return {
        "method": "exact",
        "rating": rating,
        "chosen_names": [
            POSITIONS[cairn.POSITION_NAMES[lower]],
            POSITIONS[cairn.POSITION_NAMES[higher]],
        ],
        "distribution": distribution,
        "distribution_exact": exact,
        "mean": _p(odds.mean),
        "mean_exact": _exact(odds.mean),
        "critical_success": _p(odds.critical_success),
        "critical_success_exact": _exact(odds.critical_success),
        "critical_failure": _p(odds.critical_failure),
        "critical_failure_exact": _exact(odds.critical_failure),
        "target": target,
        "success": None if odds.success is None else _p(odds.success),
        "success_exact": None if odds.success is None else _exact(odds.success),
        "summary": line + ".",
    }


async def cairn_roll(
    request: Request,
    body: Annotated[
        CairnRollRequest,
        Body(openapi_examples=examples({"rating 12 vs 45": {"rating": 12, "target": 45}})),
    ],
) -> OddsCairnAnswer | Response:
    """The exact score distribution of a Cairn Hill roll, its mean and criticals
    (docs/rules.md#cairn-hill-roll)."""
    rating = cairn.resolve_rating(body.rating, body.stats)
    answer = await off_loop(cairn_answer, rating, body.target)
    return await _maybe_chart(
        request, answer, answer["distribution"], f"Cairn Hill, rating {rating}", "score"
    )


# --- arm wrestling ------------------------------------------------------------------------


def arm_wrestle_answer(
    config: arm_wrestling.Config, state: arm_wrestling.State, seed: int
) -> OddsArmWrestleAnswer:
    """The arm wrestle answer (computed in the worker process)."""
    odds = arm_odds.arm_wrestle_odds(config, state, seed)
    a, b = config.a.name, config.b.name
    if isinstance(odds, arm_odds.ArmWrestleOdds):
        answer: OddsArmWrestleAnswer = {
            "method": "exact",
            "a": a,
            "b": b,
            "a_wins": _p(odds.a_wins),
            "a_wins_exact": fraction_text(odds.a_wins),
            "b_wins": _p(odds.b_wins),
            "b_wins_exact": fraction_text(odds.b_wins),
            "draw": _p(odds.draw),
            "draw_exact": fraction_text(odds.draw),
            "undecided": _p(odds.undecided),
            "undecided_exact": fraction_text(odds.undecided),
            "expected_rounds": _p(odds.expected_rounds),
            "expected_rounds_exact": fraction_text(odds.expected_rounds),
            "standard_error": None,
            "trials": None,
            "seed": None,
            "rounds_played": state.rounds_played,
            "summary": "",
        }
        a_wins, b_wins = float(odds.a_wins), float(odds.b_wins)
    else:
        answer = {
            "method": "monte-carlo",
            "a": a,
            "b": b,
            "a_wins": odds.a_wins.probability,
            "a_wins_exact": None,
            "b_wins": odds.b_wins.probability,
            "b_wins_exact": None,
            "draw": odds.draw.probability,
            "draw_exact": None,
            "undecided": odds.undecided.probability,
            "undecided_exact": None,
            "expected_rounds": odds.expected_rounds,
            "expected_rounds_exact": None,
            "standard_error": {
                "a_wins": odds.a_wins.standard_error,
                "b_wins": odds.b_wins.standard_error,
                "draw": odds.draw.standard_error,
                "undecided": odds.undecided.standard_error,
            },
            "trials": odds.trials,
            "seed": odds.seed,
            "rounds_played": state.rounds_played,
            "summary": "",
        }
        a_wins, b_wins = odds.a_wins.probability, odds.b_wins.probability
    answer["summary"] = (
        f"{a} wins {_percent(a_wins)}, {b} {_percent(b_wins)}, draw "
        f"{_percent(answer['draw'])}, undecided {_percent(answer['undecided'])}; "
        f"{answer['expected_rounds']:.2f} rounds expected ({answer['method']})."
    )
    return answer


async def arm_wrestles(
    body: Annotated[
        ArmWrestleCreate,
        Body(
            openapi_examples=examples(
                {
                    "Lydia vs the Ogre": {
                        "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
                        "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
                    }
                }
            )
        ),
    ],
) -> OddsArmWrestleAnswer:
    """Odds of an arm wrestle from its start: exact when small, else Monte Carlo (§3.1)."""
    config = body.to_rules()
    arm_wrestling.check_config(config)
    if config.loser_damage is not None:
        validate_notation(config.loser_damage, ("loser_damage",))
    state = arm_wrestling.State(names=(config.a.name, config.b.name))
    return await arm_wrestle_odds(config, state, body.seed or 0)


async def arm_wrestle_odds(
    config: arm_wrestling.Config, state: arm_wrestling.State, seed: int
) -> OddsArmWrestleAnswer:
    """Inline when a question's work is bounded by a couple of milliseconds (no trial can
    outlast the estimate's round budget), else in the worker process: handing a question to
    the worker and back costs a fifth of a small question's time."""
    if arm_odds.longest_trial(config, state) <= arm_odds.SIMULATION_BUDGET:
        return _inline_cached(arm_wrestle_answer, config, state, seed)
    return await off_loop(arm_wrestle_answer, config, state, seed)


# --- skill-game tokens --------------------------------------------------------------------

#: Up to this many (member, skill) checks the token odds are computed inline (well under a
#: millisecond); past it, in the worker process (64 members x 64 skills: tens of ms).
INLINE_TOKEN_CHECKS: Final = 256


def skill_game_tokens_answer(body_json: str) -> OddsSkillGameTokensAnswer:
    """The token odds of a request already checked (`_check_tokens_request`), from its JSON
    (hashable, for the cache, and cheap to send to the worker process)."""
    body = OddsSkillGameTokensRequest.model_validate_json(body_json)
    config = body.game.to_rules()
    parties: dict[str, OddsPartyTokens] = {}
    lines: list[str] = []
    for odds in skill_odds.token_odds(config, body.skills):
        tokens, tokens_exact = _distribution(odds.tokens)
        parties[odds.party] = {
            "skills": list(odds.skills),
            "token": {skill: _p(p) for skill, p in odds.token.items()},
            "token_exact": {skill: _exact(p) for skill, p in odds.token.items()},
            "tokens": tokens,
            "tokens_exact": tokens_exact,
            "expected_tokens": _p(odds.expected),
            "expected_tokens_exact": _exact(odds.expected),
        }
        chances = ", ".join(f"{skill} {_percent(float(p))}" for skill, p in odds.token.items())
        lines.append(f"{odds.party}: {float(odds.expected):.2f} tokens expected ({chances})")
    return {
        "method": "exact",
        "dc": config.dc,
        "token_rule": config.token_rule,
        "parties": parties,
        "summary": "; ".join(lines) + ".",
    }


def _check_tokens_request(body: OddsSkillGameTokensRequest) -> skill_games.Config:
    """The creation's checks (their errors under `game`), then the skills call's."""
    config = body.game.to_rules()
    try:
        skill_games.check_config(config)
    except RulesError as error:
        raise skill_odds.located_under(error, ("game",)) from None
    skill_odds.check_choices(config, body.skills)
    return config


#: The token-odds example of the document (two parties of a three-skill game), which the
#: tests and the benchmark ask too.
TOKENS_EXAMPLE: Final[dict[str, Any]] = {
    "game": {
        "dc": 14,
        "skill_list": ["Climb", "Lore", "Sneak"],
        "skills_per_round": 2,
        "kind": "option",
        "actions": [{"name": "Rest", "cost": 0, "effects": [{"text": "rest"}]}],
        "goal": 5,
        "parties": [
            {
                "name": "Heroes",
                "controller": "players",
                "members": [
                    {"name": "Ann", "skills": {"Climb": 4}},
                    {"name": "Bo", "skills": {"Lore": 6}},
                ],
            },
            {
                "name": "Rivals",
                "controller": "gm",
                "members": [{"name": "Cy", "skills": {"Sneak": 5}}],
            },
        ],
    },
    "skills": {"Heroes": ["Climb", "Lore"], "Rivals": ["Sneak", "Lore"]},
}


async def skill_game_tokens(
    request: Request,
    body: Annotated[
        OddsSkillGameTokensRequest,
        Body(openapi_examples=examples({"two parties": TOKENS_EXAMPLE})),
    ],
) -> OddsSkillGameTokensAnswer | Response:
    """Exact odds of the tokens each party earns in one round for its chosen skills
    (docs/rules.md#skill-games); for `Accept: image/svg+xml` or `image/png`, the parties'
    distributions as grouped bars."""
    config = _check_tokens_request(body)
    checks = 0
    for party, chosen in body.skills.items():
        side = config.party(party)
        assert side is not None  # checked
        checks += len(side.members) * len(chosen)
    body_json = body.model_dump_json()
    if checks <= INLINE_TOKEN_CHECKS:
        answer = _inline_cached(skill_game_tokens_answer, body_json)
    else:
        answer = await off_loop(skill_game_tokens_answer, body_json)
    series = {party: tokens["tokens"] for party, tokens in answer["parties"].items()}
    return await _maybe_grouped_chart(
        request,
        answer,
        series,
        f"Tokens earned in one round (DC {answer['dc']}, token rule {answer['token_rule']})",
        "tokens earned",
        "party",
    )


def _inline_cached(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` here, from the same cache as `off_loop` when asked before."""
    key = (function.__module__, function.__qualname__, *args)
    if key in _answers:
        _answers.move_to_end(key)
        return _answers[key]  # type: ignore[no-any-return]
    result = function(*args)
    _remember(key, result)
    return result


# --- chases and races ----------------------------------------------------------------------


def _json(value: object) -> str:
    # Rules dataclasses hold dicts (unhashable): their JSON is the cache key and what the
    # worker process is sent.
    return json.dumps(serial.dump(value), sort_keys=True)


def chase_answer(
    config_json: str,
    state_json: str | None,
    terrain_json: str,
    policy: chase_odds.Policy,
    seed: int,
) -> OddsChaseAnswer:
    """The chase answer (computed in the worker process); `state_json` None: from the start."""
    config = serial.load(chases.Config, json.loads(config_json))
    state = None if state_json is None else serial.load(chases.State, json.loads(state_json))
    terrain = serial.load(chases.Terrain, json.loads(terrain_json))
    odds = chase_odds.chase_odds(config, state, terrain, policy, seed)
    names = ("caught", "escaped", "hid", "gave_up")
    answer: OddsChaseAnswer = {
        "method": "exact",
        "escapee": config.escapee.name,
        "chaser": config.chaser.name,
        "tactic_policy": policy,
        "caught": 0.0,
        "caught_exact": None,
        "escaped": 0.0,
        "escaped_exact": None,
        "hid": 0.0,
        "hid_exact": None,
        "gave_up": 0.0,
        "gave_up_exact": None,
        "expected_increments": 0.0,
        "expected_increments_exact": None,
        "standard_error": None,
        "trials": None,
        "seed": None,
        "increments_played": 0 if state is None else state.increments,
        "summary": "",
    }
    if isinstance(odds, chase_odds.ChaseOdds):
        for name in names:
            probability: Fraction = getattr(odds, name)
            answer[name] = _p(probability)  # type: ignore[literal-required]
            answer[f"{name}_exact"] = fraction_text(probability)  # type: ignore[literal-required]
        answer["expected_increments"] = _p(odds.expected_increments)
        answer["expected_increments_exact"] = fraction_text(odds.expected_increments)
    else:
        answer["method"] = "monte-carlo"
        for name in names:
            answer[name] = getattr(odds, name).probability  # type: ignore[literal-required]
        answer["standard_error"] = {name: getattr(odds, name).standard_error for name in names}
        answer["expected_increments"] = odds.expected_increments
        answer["trials"], answer["seed"] = odds.trials, odds.seed
    answer["summary"] = (
        f"{config.chaser.name} catches {config.escapee.name} {_percent(answer['caught'])}, "
        f"{config.escapee.name} escapes {_percent(answer['escaped'])} (hiding "
        f"{_percent(answer['hid'])}), still on after {config.max_rounds} increments "
        f"{_percent(answer['gave_up'])}; {answer['expected_increments']:.2f} increments "
        f"expected ({answer['method']})."
    )
    return answer


def check_chase_terrain(config: chases.Config, terrain: chases.Terrain) -> None:
    """The terrain as a round body's: `check_round_input`, mounts, damage notation."""
    chase_odds.check_terrain(config, terrain)
    obstacle = terrain.increment.obstacle
    if obstacle is not None and obstacle.damage is not None:
        race_kind.check_damage_notation([(("terrain", "obstacle", "damage"), obstacle.damage)])


async def chase(
    body: Annotated[
        OddsChaseRequest,
        Body(
            openapi_examples=examples(
                {
                    "Ralf and the guard": {
                        "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2}},
                        "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1}},
                        "start": {"mode": "lead", "lead": 12},
                        "terrain": {"check": "strength"},
                        "tactic_policy": "hide-when-possible",
                    }
                }
            )
        ),
    ],
) -> OddsChaseAnswer:
    """Odds that a chase over the same terrain every increment ends caught or escaped: exact
    over the lead when small, else Monte Carlo (docs/rules.md#chases)."""
    config = body.to_rules()
    chases.check_config(config)
    state: chases.State | None = None
    supplied = (body.rolls or {}).get(config.escapee.name)
    if not isinstance(config.start, chases.InitiativeStart):
        chases.start(config, Dice())  # the creation's 422 for a start with no lead
    elif supplied is not None and supplied.initiative is not None:
        die: dict[tuple[str | None, str], list[int]] = {
            (config.escapee.name, chases.INITIATIVE): [supplied.initiative]
        }
        state = chases.start(config, Dice(supplied=die))
    terrain = body.terrain.to_terrain()
    check_chase_terrain(config, terrain)
    return await off_loop(
        chase_answer,
        _json(config),
        None if state is None else _json(state),
        _json(terrain),
        body.tactic_policy,
        body.seed or 0,
    )


def race_answer(config_json: str, state_json: str, seed: int) -> OddsRaceAnswer:
    """The race answer (computed in the worker process)."""
    config = serial.load(races.Config, json.loads(config_json))
    state = serial.load(races.State, json.loads(state_json))
    odds = race_odds.race_odds(config, state, seed)
    errors = {f"wins.{name}": e.standard_error for name, e in odds.wins.items()}
    errors.update({f"forfeits.{name}": e.standard_error for name, e in odds.forfeits.items()})
    errors.update(tie=odds.tie.standard_error, nobody=odds.nobody.standard_error)
    wins = {name: e.probability for name, e in odds.wins.items()}
    leader = max(wins, key=wins.__getitem__)
    return {
        "method": "exact" if odds.exact else "monte-carlo",
        "wins": wins,
        "forfeits": {name: e.probability for name, e in odds.forfeits.items()},
        "tie": odds.tie.probability,
        "nobody": odds.nobody.probability,
        "standard_error": errors,
        "trials": odds.trials,
        "seed": odds.seed,
        "increments_played": state.increment,
        "summary": f"{leader} wins {_percent(wins[leader])} of {odds.trials} races; a tie "
        f"{_percent(odds.tie.probability)}.",
    }


async def race(
    body: Annotated[
        RaceCreate,
        Body(
            openapi_examples=examples(
                {
                    "a dash": {
                        "course": "dash",
                        "competitors": [
                            {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
                            {"name": "Bob", "speed": 40, "mods": {"strength": 0}},
                        ],
                        "seed": 7,
                    }
                }
            )
        ),
    ],
) -> OddsRaceAnswer:
    """A seeded Monte Carlo estimate of who wins a race and who forfeits
    (docs/rules.md#races)."""
    config, state = race_kind.KIND.start(body, Dice())
    return await off_loop(race_answer, _json(config), _json(state), body.seed or 0)


# --- odds from here -----------------------------------------------------------------------


#: The kinds whose sessions answer `GET …/odds`, and the type of that answer.
SESSION_ODDS: Final[Mapping[str, Any]] = {
    "arm-wrestles": OddsArmWrestleAnswer,
    "regular-contests": OddsRegularContestAnswer,
    "races": OddsRaceAnswer,
    "chases": OddsChaseAnswer,
}


async def session_odds(kind_path: str, config: Any, state: Any, query: Mapping[str, str]) -> Any:
    """The odds of a session from its current state (`GET /v1/{kind}/{id}/odds`).

    `config` and `state` are the kind's rules config and state as the lifecycle loads them;
    `query` the request's query parameters (`seed` for a Monte Carlo estimate). Raises
    `LookupError` for a kind without odds from here (yet).
    """
    if kind_path == "arm-wrestles":
        seed = int(query.get("seed", "0"))
        return await arm_wrestle_odds(config, state, seed)
    if kind_path == "regular-contests":
        return regular_contest_answer(config, state)
    if kind_path == "races":
        seed = int(query.get("seed", "0"))
        return await off_loop(race_answer, _json(config), _json(state), seed)
    if kind_path == "chases":
        return await chase_session_odds(config, state, query)
    raise LookupError(f"no odds from here for {kind_path}")


async def chase_session_odds(
    config: chases.Config, state: chases.State, query: Mapping[str, str]
) -> OddsChaseAnswer:
    """A chase's odds from here: `query["terrain"]` is the terrain as a round body's JSON
    (`{"check": "strength", ...}`), `tactic_policy` optional (`none`), `seed` optional."""
    raw = query.get("terrain")
    if raw is None:
        raise RulesError("the terrain of the increments to come is needed", ("query", "terrain"))
    try:
        terrain = validate_json(ChaseTerrain, raw.encode()).to_terrain()
    except ValidationError as error:
        raise RulesError(
            "not a terrain: " + "; ".join(str(e["msg"]) for e in error.errors()),
            ("query", "terrain"),
        ) from None
    asked = query.get("tactic_policy", "none")
    if asked not in ("none", "hide-when-possible"):
        raise RulesError(
            "tactic_policy must be none or hide-when-possible", ("query", "tactic_policy")
        )
    policy: chase_odds.Policy = "none" if asked == "none" else "hide-when-possible"
    return await _chase_from_here(config, state, terrain, policy, int(query.get("seed", "0")))


async def chase_odds_from_body(
    config: chases.Config, state: chases.State, body: OddsChaseFromHereRequest
) -> OddsChaseAnswer:
    """A chase's odds from here asked with a JSON body (`POST …/odds`): the same answer as
    `chase_session_odds` for the same terrain, policy and seed."""
    terrain = body.terrain.to_terrain()
    return await _chase_from_here(config, state, terrain, body.tactic_policy, body.seed or 0)


async def _chase_from_here(
    config: chases.Config,
    state: chases.State,
    terrain: chases.Terrain,
    policy: chase_odds.Policy,
    seed: int,
) -> OddsChaseAnswer:
    check_chase_terrain(config, terrain)
    return await off_loop(chase_answer, _json(config), _json(state), _json(terrain), policy, seed)


class OddsBody(NamedTuple):
    """How a kind's session takes the question of its odds from here as a JSON body
    (`POST /v1/{kind}/{id}/odds`): the body's model, the operation's id and examples, and
    the answer from the kind's rules config and state and the validated body."""

    model: type[Strict]
    operation_id: str
    examples: Mapping[str, Any]
    answer: Callable[[Any, Any, Any], Awaitable[Any]]


#: The kinds whose sessions also answer `POST …/odds` (their `GET …/odds` stands too).
SESSION_ODDS_BODIES: Final[Mapping[str, OddsBody]] = {
    "chases": OddsBody(
        OddsChaseFromHereRequest,
        "oddsChaseFromHereWithTerrain",
        {
            "strength, hiding when it can": {
                "terrain": {"check": "strength"},
                "tactic_policy": "hide-when-possible",
            },
            "an obstacle, seeded": {
                "terrain": {
                    "check": "strength",
                    "obstacle": {"kind": "obstacle", "check": "jump", "dc": 12},
                },
                "seed": 7,
            },
        },
        chase_odds_from_body,
    ),
}


@cache
def router() -> APIRouter:
    """This module's routes, built by the first `create_app` (they hold no state)."""
    # Once per process, about 1 ms: a first quick-contest question then costs table lookups.
    gurps_odds.warm_verdicts()
    router = APIRouter(prefix="/v1/odds", tags=["Odds"], route_class=LeanRoute)
    routes: tuple[tuple[str, Callable[..., Any], str, Any, bool], ...] = (
        ("/gurps/success-roll", success_roll, "oddsGurpsSuccess", OddsSuccessRollAnswer, True),
        (
            "/gurps/quick-contest",
            quick_contest,
            "oddsGurpsQuickContest",
            OddsQuickContestAnswer,
            True,
        ),
        (
            "/gurps/resistance-roll",
            resistance_roll,
            "oddsGurpsResistanceRoll",
            OddsResistanceRollAnswer,
            False,
        ),
        (
            "/gurps/regular-contest",
            regular_contest,
            "oddsGurpsRegularContest",
            OddsRegularContestAnswer,
            False,
        ),
        ("/cairn", cairn_roll, "oddsCairn", OddsCairnAnswer, True),
        ("/arm-wrestles", arm_wrestles, "oddsArmWrestle", OddsArmWrestleAnswer, False),
        ("/chases", chase, "oddsChase", OddsChaseAnswer, False),
        ("/races", race, "oddsRace", OddsRaceAnswer, False),
        (
            "/skill-games/tokens",
            skill_game_tokens,
            "oddsSkillGameTokens",
            OddsSkillGameTokensAnswer,
            True,
        ),
    )
    for path, endpoint, operation_id, answer, charted in routes:
        router.add_api_route(
            path,
            endpoint,
            methods=["POST"],
            responses=charts.chart_doc(charted, model=answer),
            operation_id=operation_id,
        )
    return router
