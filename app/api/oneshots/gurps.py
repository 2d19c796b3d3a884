"""GURPS contests, one call each (docs/api.md#one-shot-resolutions, docs/rules.md#gurps)."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from fastapi import APIRouter, Body

from app.api.common import (
    examples,
    make_dice,
)
from app.api.i18n import said
from app.api.routing import one_shot_router
from app.api.schemas.common import roll_records, unused_records
from app.api.schemas.gurps import (
    GurpsCompetitorRoll,
    QuickContestAnswer,
    QuickContestRequest,
    RegularContestAnswer,
    RegularContestRequest,
    RegularRoundPlayed,
    RegularRoundSide,
    ResistanceDefenderRolled,
    ResistanceDefenderUnrolled,
    ResistanceRollAnswer,
    ResistanceRollRequest,
    SuccessRollAnswer,
    SuccessRollRequest,
)
from app.rules import gurps
from app.rules.dice import Dice, request_rng
from app.rules.errors import RulesError
from app.rules.messages import N_, Argument, m, ng

#: The section of the rules reference each answer links as the rule it applied (`rule`).
SUCCESS_ROLL_RULE = "docs/rules.md#success-roll"
QUICK_CONTEST_RULE = "docs/rules.md#quick-contest"
RESISTANCE_ROLL_RULE = "docs/rules.md#resistance-roll"
REGULAR_CONTEST_RULE = "docs/rules.md#regular-contest"


def competitor_roll(name: str, result: gurps.SuccessRoll) -> GurpsCompetitorRoll:
    """`name`, then the success roll's fields.

    Written out rather than `serial.dump_as(result, name=name)`: a quick contest, the
    service's most asked question, builds two, and this costs it about 18,000 instructions
    fewer a request (callgrind, the same request a thousand times).
    """
    return {
        "name": name,
        "skill": result.skill,
        "roll": list(result.roll),
        "total": result.total,
        "success": result.success,
        "critical": result.critical,
        "margin": result.margin,
    }


async def success_roll(
    body: Annotated[
        SuccessRollRequest,
        Body(
            openapi_examples=examples(
                {"server dice": {"skill": 12}, "supplied dice": {"skill": 12, "roll": [2, 3, 4]}}
            )
        ),
    ],
) -> SuccessRollAnswer:
    """Roll 3d6 against an effective skill, with criticals and the signed margin
    (docs/rules.md#success-roll)."""
    dice = make_dice(
        request_rng(body.seed),
        {(None, gurps.SUCCESS): body.roll},
        {(None, gurps.SUCCESS): ("roll",)},
    )
    result = gurps.success_roll(body.skill, dice)
    answer: SuccessRollAnswer = {
        "skill": result.skill,
        "roll": list(result.roll),
        "total": result.total,
        "success": result.success,
        "critical": result.critical,
        "margin": result.margin,
        "rule": SUCCESS_ROLL_RULE,
        "rolls": roll_records(dice.log),
        "summary": said(gurps.success_roll_message(result)),
    }
    return answer


async def quick_contest(
    body: Annotated[
        QuickContestRequest,
        Body(
            openapi_examples=examples(
                {
                    "server dice": {
                        "a": {"name": "Ann", "skill": 12},
                        "b": {"name": "Bob", "skill": 10},
                    },
                    "supplied dice": {
                        "a": {"name": "Ann", "skill": 12, "roll": [2, 3, 4]},
                        "b": {"name": "Bob", "skill": 10, "roll": [5, 5, 1]},
                    },
                }
            )
        ),
    ],
) -> QuickContestAnswer:
    """Both roll; the better margin wins, with the margin of victory
    (docs/rules.md#quick-contest)."""
    a, b = body.a, body.b
    distinct_names(a.name, b.name)
    dice = make_dice(
        request_rng(body.seed),
        {(a.name, gurps.SUCCESS): a.roll, (b.name, gurps.SUCCESS): b.roll},
        {(a.name, gurps.SUCCESS): ("a", "roll"), (b.name, gurps.SUCCESS): ("b", "roll")},
    )
    contest = gurps.quick_contest(a.skill, b.skill, dice, who_a=a.name, who_b=b.name)
    winner = {"a": a.name, "b": b.name, None: None}[contest.winner]
    answer: QuickContestAnswer = {
        "winner": winner,
        "tie": contest.winner is None,
        "margin_of_victory": contest.margin_of_victory,
        "a": competitor_roll(a.name, contest.a),
        "b": competitor_roll(b.name, contest.b),
        "rule": QUICK_CONTEST_RULE,
        "rolls": roll_records(dice.log),
        "summary": said(gurps.quick_contest_message(a.name, b.name, contest)),
    }
    return answer


async def resistance_roll(
    body: Annotated[
        ResistanceRollRequest,
        Body(
            openapi_examples=examples(
                {
                    "server dice": {
                        "attacker": {"name": "Wizard", "skill": 14},
                        "defender": {"name": "Orc", "skill": 11},
                    }
                }
            )
        ),
    ],
) -> ResistanceRollAnswer:
    """The attacker rolls; only on a success does the defender resist
    (docs/rules.md#resistance-roll)."""
    attacker, defender = body.attacker, body.defender
    distinct_names(attacker.name, defender.name, ("defender", "name"))
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
    defence: ResistanceDefenderRolled | ResistanceDefenderUnrolled
    if result.defender is None:
        defence = {"name": defender.name, "skill": defender.skill, "rolled": False}
    else:
        resisted = result.defender
        defence = {
            "name": defender.name,
            "skill": resisted.skill,
            "roll": list(resisted.roll),
            "total": resisted.total,
            "success": resisted.success,
            "critical": resisted.critical,
            "margin": resisted.margin,
            "rolled": True,
        }
    answer: ResistanceRollAnswer = {
        "affected": result.affected,
        "winner": attacker.name if result.affected else defender.name,
        "margin_of_victory": result.margin_of_victory,
        "attacker": competitor_roll(attacker.name, result.attacker),
        "defender": defence,
        "rule": RESISTANCE_ROLL_RULE,
        "rolls": roll_records(dice.log),
        "summary": said(gurps.resistance_message(attacker.name, defender.name, result)),
    }
    # The defender's supplied dice after a failed attack count as thrown: reported, never
    # refused (docs/rules.md#supplied-and-server-dice).
    unused = dice.leftovers(ended=True)
    if unused:
        answer["unused"] = unused_records(unused)
    return answer


async def regular_contest(
    body: Annotated[
        RegularContestRequest,
        Body(
            openapi_examples=examples(
                {
                    "to the end": {
                        "a": {"name": "Giant", "skill": 600},
                        "b": {"name": "Ogre", "skill": 500},
                        "seconds_per_round": 1,
                    },
                    "supplied rounds": {
                        "a": {"name": "Ann", "skill": 5},
                        "b": {"name": "Bob", "skill": 3},
                        "rounds": [
                            {"a": [6, 6, 6], "b": [6, 6, 5]},
                            {"a": [1, 2, 3], "b": [6, 6, 6]},
                        ],
                    },
                }
            )
        ),
    ],
) -> RegularContestAnswer:
    """Round after round until exactly one succeeds, after the extreme-score adjustment
    (docs/rules.md#regular-contest)."""
    config = body.to_rules()
    gurps.check_regular_config(config)
    a, b = config.a.name, config.b.name
    if len(body.rounds) > config.max_rounds:
        _too_many_rounds(config.max_rounds)
    rng = request_rng(body.seed)
    dice = Dice(rng)
    state = gurps.RegularState()
    rounds: list[RegularRoundPlayed] = []
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
        rounds.append({"number": number, "a": _side(played.a), "b": _side(played.b)})
    if len(body.rounds) > state.rounds:
        _too_many_rounds(state.rounds)
    skill_a, skill_b = config.effective
    winner = {"a": a, "b": b, None: None}[state.winner]
    game_seconds = state.rounds * config.seconds_per_round
    sides: dict[str, Argument] = {"a": a, "skill_a": skill_a, "b": b, "skill_b": skill_b}
    if winner is None:
        summary = ng(
            "{a} (effective {skill_a}) vs {b} (effective {skill_b}): Undecided after {count} "
            "round ({seconds} s).",
            "{a} (effective {skill_a}) vs {b} (effective {skill_b}): Undecided after {count} "
            "rounds ({seconds} s).",
            state.rounds,
            **sides,
            seconds=game_seconds,
        )
    else:
        summary = ng(
            "{a} (effective {skill_a}) vs {b} (effective {skill_b}): {winner} beats {loser} "
            "after {count} round ({seconds} s).",
            "{a} (effective {skill_a}) vs {b} (effective {skill_b}): {winner} beats {loser} "
            "after {count} rounds ({seconds} s).",
            state.rounds,
            **sides,
            winner=winner,
            loser=b if winner == a else a,
            seconds=game_seconds,
        )
    answer: RegularContestAnswer = {
        "effective_skills": {a: skill_a, b: skill_b},
        "status": "undecided" if winner is None else "decided",
        "winner": winner,
        "rounds_taken": state.rounds,
        "game_seconds": game_seconds,
        "rounds": rounds,
        "rule": REGULAR_CONTEST_RULE,
        "rolls": roll_records(dice.log),
        "summary": said(summary),
    }
    return answer


def _side(result: gurps.SuccessRoll) -> RegularRoundSide:
    # A regular contest's round shows only what decides it: the roll, its total, success.
    return {"roll": list(result.roll), "total": result.total, "success": result.success}


def distinct_names(first: str, second: str, loc: tuple[str, ...] = ("b", "name")) -> None:
    """Two competitors of one contest need different names (the odds ask the same)."""
    if first == second:
        raise RulesError(N_("the two competitors need different names"), loc)


def _too_many_rounds(played: int) -> None:
    raise RulesError(
        m(
            "more rounds supplied than were played; the contest ended after {played}",
            played=played,
        ),
        ("rounds",),
    )


@cache
def router() -> APIRouter:
    """This module's routes, built by the first `create_app` (they hold no state)."""
    return one_shot_router(
        "/v1/gurps",
        "GURPS contests",
        ("/success-roll", success_roll, "rollGurpsSuccess"),
        ("/quick-contest", quick_contest, "resolveGurpsQuickContest"),
        ("/resistance-roll", resistance_roll, "resolveGurpsResistanceRoll"),
        ("/regular-contest", regular_contest, "resolveGurpsRegularContest"),
    )
