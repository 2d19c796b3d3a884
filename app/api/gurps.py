"""GURPS contests, one call each (API.md "One-shot resolutions", RULES.md §1)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api.common import body_doc, lean_post, make_dice, parse_body, respond, text_plain_doc
from app.api.schemas.gurps import (
    QuickContestRequest,
    QuickContestResult,
    RegularContestRequest,
    RegularContestResult,
    ResistanceRollRequest,
    ResistanceRollResult,
    SuccessRollRequest,
    SuccessRollResult,
)
from app.rules import gurps
from app.rules.dice import Dice, request_rng
from app.rules.errors import RulesError

router = APIRouter(prefix="/v1/gurps", tags=["GURPS contests"])


def _competitor(name: str, result: gurps.SuccessRoll) -> dict[str, Any]:
    return {"name": name, **result.to_dict()}


@lean_post(
    router,
    "/success-roll",
    response_model=SuccessRollResult,
    responses=text_plain_doc(),
    openapi_extra=body_doc(
        SuccessRollRequest,
        {"server dice": {"skill": 12}, "supplied dice": {"skill": 12, "roll": [2, 3, 4]}},
    ),
)
async def success_roll(request: Request) -> Response:
    """Roll 3d6 against an effective skill, with criticals and the signed margin (RULES §1.1)."""
    body = await parse_body(request, SuccessRollRequest)
    dice = make_dice(
        request_rng(body.seed),
        {(None, gurps.SUCCESS): body.roll},
        {(None, gurps.SUCCESS): ("roll",)},
    )
    result = gurps.success_roll(body.skill, dice)
    return respond(
        request,
        {**result.to_dict(), "rolls": dice.rolls(), "summary": gurps.success_roll_summary(result)},
    )


@lean_post(
    router,
    "/quick-contest",
    response_model=QuickContestResult,
    responses=text_plain_doc(),
    openapi_extra=body_doc(
        QuickContestRequest,
        {
            "server dice": {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}},
            "supplied dice": {
                "a": {"name": "Ann", "skill": 12, "roll": [2, 3, 4]},
                "b": {"name": "Bob", "skill": 10, "roll": [5, 5, 1]},
            },
        },
    ),
)
async def quick_contest(request: Request) -> Response:
    """Both roll; the better margin wins, with the margin of victory (RULES §1.2)."""
    body = await parse_body(request, QuickContestRequest)
    a, b = body.a, body.b
    _distinct(a.name, b.name)
    dice = make_dice(
        request_rng(body.seed),
        {(a.name, gurps.SUCCESS): a.roll, (b.name, gurps.SUCCESS): b.roll},
        {(a.name, gurps.SUCCESS): ("a", "roll"), (b.name, gurps.SUCCESS): ("b", "roll")},
    )
    contest = gurps.quick_contest(a.skill, b.skill, dice, who_a=a.name, who_b=b.name)
    winner = {"a": a.name, "b": b.name, None: None}[contest.winner]
    return respond(
        request,
        {
            "winner": winner,
            "tie": contest.winner is None,
            "margin_of_victory": contest.margin_of_victory,
            "a": _competitor(a.name, contest.a),
            "b": _competitor(b.name, contest.b),
            "rolls": dice.rolls(),
            "summary": gurps.quick_contest_summary(a.name, b.name, contest),
        },
    )


@lean_post(
    router,
    "/resistance-roll",
    response_model=ResistanceRollResult,
    responses=text_plain_doc(),
    openapi_extra=body_doc(
        ResistanceRollRequest,
        {
            "server dice": {
                "attacker": {"name": "Wizard", "skill": 14},
                "defender": {"name": "Orc", "skill": 11},
            }
        },
    ),
)
async def resistance_roll(request: Request) -> Response:
    """The attacker rolls; only on a success does the defender resist (RULES §1.3)."""
    body = await parse_body(request, ResistanceRollRequest)
    attacker, defender = body.attacker, body.defender
    _distinct(attacker.name, defender.name, ("defender", "name"))
    dice = make_dice(
        request_rng(body.seed),
        {
            (attacker.name, gurps.SUCCESS): attacker.roll,
            (defender.name, gurps.SUCCESS): defender.roll,
        },
        {
            (attacker.name, gurps.SUCCESS): ("attacker", "roll"),
            (defender.name, gurps.SUCCESS): ("defender", "roll"),
        },
    )
    result = gurps.resistance_roll(
        attacker.skill, defender.skill, dice, attacker=attacker.name, defender=defender.name
    )
    if result.defender is None:
        defence: dict[str, Any] = {"name": defender.name, "skill": defender.skill, "rolled": False}
    else:
        defence = {**_competitor(defender.name, result.defender), "rolled": True}
    return respond(
        request,
        {
            "affected": result.affected,
            "winner": attacker.name if result.affected else defender.name,
            "margin_of_victory": result.margin_of_victory,
            "attacker": _competitor(attacker.name, result.attacker),
            "defender": defence,
            "rolls": dice.rolls(),
            "summary": gurps.resistance_summary(attacker.name, defender.name, result),
        },
    )


@lean_post(
    router,
    "/regular-contest",
    response_model=RegularContestResult,
    responses=text_plain_doc(),
    openapi_extra=body_doc(
        RegularContestRequest,
        {
            "to the end": {
                "a": {"name": "Giant", "skill": 600},
                "b": {"name": "Ogre", "skill": 500},
                "seconds_per_round": 1,
            },
            "supplied rounds": {
                "a": {"name": "Ann", "skill": 5},
                "b": {"name": "Bob", "skill": 3},
                "rounds": [{"a": [6, 6, 6], "b": [6, 6, 5]}, {"a": [1, 2, 3], "b": [6, 6, 6]}],
            },
        },
    ),
)
async def regular_contest(request: Request) -> Response:
    """Round after round until exactly one succeeds, after the extreme-score adjustment (§1.4)."""
    body = await parse_body(request, RegularContestRequest)
    config = gurps.regular_config_from_dict(body.model_dump())
    a, b = config.a.name, config.b.name
    if len(body.rounds) > config.max_rounds:
        _too_many_rounds(config.max_rounds)
    rng = request_rng(body.seed)
    dice = Dice(rng)
    state = gurps.RegularState()
    rounds: list[dict[str, Any]] = []
    while not state.finished:
        number = state.rounds + 1
        supplied = body.rounds[number - 1] if number <= len(body.rounds) else None
        round_dice = make_dice(
            rng,
            {
                (a, gurps.SUCCESS): supplied.a if supplied else None,
                (b, gurps.SUCCESS): supplied.b if supplied else None,
            },
            {
                (a, gurps.SUCCESS): ("rounds", number - 1, "a"),
                (b, gurps.SUCCESS): ("rounds", number - 1, "b"),
            },
        )
        state, played = gurps.regular_round(config, state, round_dice)
        dice.log.extend(round_dice.log)
        rounds.append({"number": number, **_sides(played)})
    if len(body.rounds) > state.rounds:
        _too_many_rounds(state.rounds)
    skill_a, skill_b = config.effective
    winner = {"a": a, "b": b, None: None}[state.winner]
    game_seconds = state.rounds * config.seconds_per_round
    if winner is None:
        summary = f"Undecided after {state.rounds} rounds ({game_seconds} s)."
    else:
        loser = b if winner == a else a
        summary = f"{winner} beats {loser} after {state.rounds} rounds ({game_seconds} s)."
    summary = f"{a} (effective {skill_a}) vs {b} (effective {skill_b}): {summary}"
    return respond(
        request,
        {
            "effective_skills": {a: skill_a, b: skill_b},
            "status": "undecided" if winner is None else "decided",
            "winner": winner,
            "rounds_taken": state.rounds,
            "game_seconds": game_seconds,
            "rounds": rounds,
            "rolls": dice.rolls(),
            "summary": summary,
        },
    )


def _sides(played: gurps.RegularRound) -> dict[str, Any]:
    return {
        side: {"roll": list(result.roll), "total": result.total, "success": result.success}
        for side, result in (("a", played.a), ("b", played.b))
    }


def _distinct(first: str, second: str, loc: tuple[str, ...] = ("b", "name")) -> None:
    if first == second:
        raise RulesError("the two competitors need different names", loc)


def _too_many_rounds(played: int) -> None:
    raise RulesError(
        f"more rounds supplied than were played; the contest ended after {played}", ("rounds",)
    )
