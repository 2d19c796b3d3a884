"""The long throw, resolved in one call (docs/api.md#long-throws, docs/rules.md#long-throws).

Supplied dice sit on each competitor: `roll` (one d20 for the distance or caber check, as a
number or a one-element list; in precision one d20 per series she throws in, used in order, the
server rolling any further ones), and, for a thrown creature, `damage_roll` (its 1d6 landing
damage) and `tumble_roll` (its Tumble d20), two fields this endpoint adds to
docs/api.md#long-throws.
Supplied dice count as thrown: those the competition did not use (a thrower who cannot lift the
object, a precision throw after the competition ended) are listed in the answer's `unused`; what
no path could use (a second distance throw, a creature's landing die for an object) is a 422,
decided before any die is read (docs/rules.md#supplied-and-server-dice).
"""

from __future__ import annotations

from functools import cache
from typing import Annotated, Final

from fastapi import APIRouter, Body

from app.api.common import (
    examples,
    make_dice,
)
from app.api.i18n import said
from app.api.routing import one_shot_router
from app.api.schemas.common import roll_records, unused_records
from app.api.schemas.long_throws import (
    CustomObject,
    LongThrowAnswer,
    LongThrowCompetitor,
    LongThrowCompetitorResult,
    LongThrowCreatureDamage,
    LongThrowLoadLimits,
    LongThrowObject,
    LongThrowRequest,
    LongThrowSeries,
    Penalty,
)
from app.rules import long_throw, serial
from app.rules.dice import Key, check_supplied, request_rng
from app.rules.errors import Loc

#: `Assessment.penalty` (an int) as the answer's `Penalty`: the values of LOAD_PENALTY, or 0.
PENALTIES: Final[dict[int, Penalty]] = {0: 0, -3: -3, -6: -6}
#: The section of the rules reference the answer links as the rule it applied (`rule`).
RULE = "docs/rules.md#long-throws"


def _thrown(body: LongThrowRequest) -> long_throw.ThrownObject:
    if isinstance(body.object, CustomObject):
        custom = body.object
        return long_throw.ThrownObject(
            custom.name,
            custom.weight_lb,
            custom.range_increment_ft,
            weapon=custom.weapon,
            creature=custom.creature,
        )
    return long_throw.STANDARD_OBJECTS[body.object]


def _thrower(competitor: LongThrowCompetitor) -> long_throw.Thrower:
    limits = competitor.load_limits
    return long_throw.Thrower(
        name=competitor.name,
        strength_score=competitor.strength_score,
        load_limits=(
            long_throw.LoadLimits(limits.light, limits.medium, limits.heavy) if limits else None
        ),
        size=competitor.size,
        strength_mod=competitor.strength_mod,
        dex_mod=competitor.dex_mod,
        ranged_attack_bonus=competitor.ranged_attack_bonus,
        weapon_focus=competitor.weapon_focus,
        far_shot=competitor.far_shot,
        tumble_mod=competitor.tumble_mod,
    )


def config_of(body: LongThrowRequest) -> long_throw.LongThrowConfig:
    """The competition a request body describes (docs/rules.md#long-throws)."""
    return long_throw.long_throw_config(
        _thrown(body),
        [_thrower(competitor) for competitor in body.competitors],
        mode=body.mode,
        into_wall=body.into_wall,
        max_series=body.max_series,
        toss_distance_ft=body.toss_distance_ft,
        far_shot_doubles=body.far_shot_doubles,
    )


def _supplied(
    competitors: list[LongThrowCompetitor],
) -> tuple[dict[Key, list[int] | None], dict[Key, Loc]]:
    supplied: dict[Key, list[int] | None] = {}
    locs: dict[Key, Loc] = {}
    for index, competitor in enumerate(competitors):
        roll = competitor.roll
        fields: dict[str, tuple[str, list[int] | None]] = {
            long_throw.THROW: ("roll", [roll] if isinstance(roll, int) else roll),
            long_throw.DAMAGE: (
                "damage_roll",
                None if competitor.damage_roll is None else [competitor.damage_roll],
            ),
            long_throw.TUMBLE: (
                "tumble_roll",
                None if competitor.tumble_roll is None else [competitor.tumble_roll],
            ),
        }
        for purpose, (field, values) in fields.items():
            key = (competitor.name, purpose)
            supplied[key] = values
            locs[key] = ("competitors", index, field)
    return supplied, locs


async def long_throws(
    body: Annotated[
        LongThrowRequest,
        Body(
            openapi_examples=examples(
                {
                    "distance": {
                        "object": "javelin",
                        "competitors": [
                            {"name": "Ann", "strength_score": 14, "weapon_focus": True, "roll": 15},
                            {"name": "Bob", "strength_score": 12, "far_shot": True},
                        ],
                    },
                    "halfling into a wall": {
                        "object": "halfling",
                        "into_wall": True,
                        "competitors": [
                            {
                                "name": "Ogre",
                                "strength_score": 21,
                                "size": "large",
                                "tumble_mod": 6,
                            },
                            {"name": "Gnome", "strength_score": 8, "size": "small"},
                        ],
                    },
                    "halfling toss": {
                        "object": "halfling",
                        "mode": "halfling-toss",
                        "competitors": [
                            {"name": "Ogre", "strength_score": 18, "roll": 16},
                            {"name": "Bram", "strength_score": 14, "roll": 12},
                        ],
                    },
                    "precision": {
                        "object": "javelin",
                        "mode": "precision",
                        "competitors": [
                            {"name": "Ann", "strength_score": 12, "ranged_attack_bonus": 8},
                            {
                                "name": "Bob",
                                "strength_score": 10,
                                "ranged_attack_bonus": 5,
                                "far_shot": True,
                            },
                        ],
                        "seed": 7,
                    },
                }
            )
        ),
    ],
) -> LongThrowAnswer:
    """Throw for distance, caber rotation, precision or a halfling toss; highest DS or last
    one in wins (docs/rules.md#long-throws)."""
    config = config_of(body)
    supplied, locs = _supplied(body.competitors)
    present = {key: values for key, values in supplied.items() if values is not None}
    check_supplied(long_throw.dice_needs(config), present, locs)
    dice = make_dice(request_rng(body.seed), supplied, locs)
    outcome = long_throw.resolve_long_throw(config, dice)
    # Every supplied die the competition did not use is reported, never refused: a thrower who
    # cannot lift the object throws nothing (docs/rules.md#who-may-throw-loads), and how many
    # series a precision contest throws is decided by the throws.
    unused = dice.leftovers(ended=False)
    thrown = _object(config.thrown)
    winners = list(outcome.winners)
    competitors = _competitors(outcome)
    rolls = roll_records(dice.log)
    summary = said(long_throw.long_throw_message(outcome))
    answer: LongThrowAnswer
    if config.mode == "precision":
        answer = {
            "mode": config.mode,
            "object": thrown,
            "winners": winners,
            "tie": outcome.tie,
            "competitors": competitors,
            "series": [_series(series) for series in outcome.series],
            "rule": RULE,
            "rolls": rolls,
            "summary": summary,
        }
    else:
        answer = {
            "mode": config.mode,
            "object": thrown,
            "winners": winners,
            "tie": outcome.tie,
            "competitors": competitors,
            "rule": RULE,
            "rolls": rolls,
            "summary": summary,
        }
        if config.mode == "halfling-toss":
            answer["toss_distance_ft"] = config.toss_distance_ft
    if unused:
        answer["unused"] = unused_records(unused)
    return answer


# The answer's parts: the rules' dataclasses as they are (`serial.dump`), or reshaped.


def _object(thrown: long_throw.ThrownObject) -> LongThrowObject:
    dumped: LongThrowObject = serial.dump(thrown)
    return dumped


def _competitors(outcome: long_throw.LongThrow) -> list[LongThrowCompetitorResult]:
    """docs/api.md#long-throws entries, in the order given."""
    if outcome.config.mode == "precision":
        return [_precision_entry(outcome, a) for a in outcome.config.assessments]
    return [_throw_entry(outcome.config, result) for result in outcome.throws]


def _limits(limits: long_throw.LoadLimits) -> LongThrowLoadLimits:
    dumped: LongThrowLoadLimits = serial.dump(limits)
    return dumped


def _throw_entry(
    config: long_throw.LongThrowConfig, result: long_throw.ThrowResult
) -> LongThrowCompetitorResult:
    """A thrower's entry in `distance` or `caber` mode."""
    assessment = result.assessment
    entry: LongThrowCompetitorResult = {
        "name": assessment.thrower.name,
        "eligible": assessment.eligible,
        "load": assessment.load,
        "penalty": PENALTIES[assessment.penalty],
        "load_limits": _limits(assessment.limits),
        "roll": result.roll,
        "check": result.check,
        "ds": result.degree_of_success,
    }
    if config.mode in ("distance", "halfling-toss"):
        distance = result.distance
        entry["increments"] = distance.increments if distance else None
        entry["distance_ft"] = distance.distance_ft if distance else None
    if config.mode == "halfling-toss":
        entry["landed"] = result.landed
    if config.creature_landings:
        landing = result.creature_damage
        entry["creature_damage"] = _landing(landing) if landing else None
    return entry


def _landing(landing: long_throw.CreatureDamage) -> LongThrowCreatureDamage:
    return {
        "damage": landing.damage,
        "rolled_damage": landing.rolled,
        "tumble_roll": landing.tumble_roll,
        "tumble_total": landing.tumble_total,
        "negated": landing.negated,
        "wall_damage": landing.wall_damage,
    }


def _precision_entry(
    outcome: long_throw.LongThrow, assessment: long_throw.Assessment
) -> LongThrowCompetitorResult:
    """A thrower's entry in `precision` mode: her rolls and totals series by series."""
    name = assessment.thrower.name
    entry: LongThrowCompetitorResult = {
        "name": name,
        "eligible": assessment.eligible,
        "load": assessment.load,
        "penalty": PENALTIES[assessment.penalty],
        "load_limits": _limits(assessment.limits),
        "roll": None,
        "check": None,
        "ds": None,
        "out_in_series": None,
    }
    if assessment.eligible:
        mine = [throw for series in outcome.series for throw in series.throws if throw.name == name]
        entry["roll"] = [throw.roll for throw in mine]
        entry["check"] = [throw.total for throw in mine]
        entry["ds"] = sum(throw.hit for throw in mine)
        entry["out_in_series"] = next((s.number for s in outcome.series if name in s.out), None)
    return entry


def _series(series: long_throw.Series) -> LongThrowSeries:
    dumped: LongThrowSeries = serial.dump(series)
    return dumped


@cache
def router() -> APIRouter:
    """This module's routes, built by the first `create_app` (they hold no state)."""
    return one_shot_router(
        "/v1",
        "d20 games of skill",
        ("/long-throws", long_throws, "resolveLongThrows"),
    )
