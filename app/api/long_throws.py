"""The long throw, resolved in one call (API.md "POST /v1/long-throws", RULES.md §3.2).

Supplied dice sit on each competitor: `roll` (one d20 for the distance or caber check, as a
number or a one-element list; in precision one d20 per series she throws in, used in order, the
server rolling any further ones), and, for a thrown creature, `damage_roll` (its 1d6 landing
damage) and `tumble_roll` (its Tumble d20), two fields this endpoint adds to API.md's request.
Supplied dice of a thrower who cannot lift the object are ignored; any other unused value is a
422 (RULES.md §0: the wrong count).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api.common import body_doc, lean_post, make_dice, parse_body, respond, text_plain_doc
from app.api.schemas.long_throws import (
    Competitor,
    CustomObject,
    LongThrowRequest,
    LongThrowResult,
)
from app.rules import long_throw
from app.rules.dice import Key, request_rng
from app.rules.errors import Loc

router = APIRouter(prefix="/v1", tags=["d20 games of skill"])


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


def _thrower(competitor: Competitor) -> long_throw.Thrower:
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


def _supplied(
    competitors: list[Competitor],
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


@lean_post(
    router,
    "/long-throws",
    response_model=LongThrowResult,
    responses=text_plain_doc(),
    openapi_extra=body_doc(
        LongThrowRequest,
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
                    {"name": "Ogre", "strength_score": 21, "size": "large", "tumble_mod": 6},
                    {"name": "Gnome", "strength_score": 8, "size": "small"},
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
        },
    ),
)
async def long_throws(request: Request) -> Response:
    """Throw for distance, caber rotation or precision; highest DS or last one in wins (§3.2)."""
    body = await parse_body(request, LongThrowRequest)
    config = long_throw.long_throw_config(
        _thrown(body),
        [_thrower(competitor) for competitor in body.competitors],
        mode=body.mode,
        into_wall=body.into_wall,
        max_series=body.max_series,
    )
    supplied, locs = _supplied(body.competitors)
    dice = make_dice(request_rng(body.seed), supplied, locs)
    outcome = long_throw.resolve_long_throw(config, dice)
    cannot_throw = [
        (assessment.thrower.name, purpose)
        for assessment in config.assessments
        if not assessment.eligible
        for purpose in (long_throw.THROW, long_throw.DAMAGE, long_throw.TUMBLE)
    ]
    # Ruling (RULES.md §3.2.2): a thrower who cannot lift the object rolls no dice, so her
    # supplied values are ignored rather than rejected as the wrong count.
    dice.require_all_used(ignore=cannot_throw)
    result: dict[str, Any] = {
        "mode": config.mode,
        "object": config.thrown.to_dict(),
        "winners": list(outcome.winners),
        "tie": outcome.tie,
        "competitors": outcome.competitor_dicts(),
    }
    if config.mode == "precision":
        result["series"] = [series.to_dict() for series in outcome.series]
    result |= {"rolls": dice.rolls(), "summary": long_throw.long_throw_summary(outcome)}
    return respond(request, result)
