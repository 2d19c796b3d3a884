"""The Cairn Hill roll, one call (docs/api.md#cairn-hill-roll, docs/rules.md#cairn-hill-roll)."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Final, get_args

from fastapi import APIRouter, Body

from app.api.common import (
    examples,
    make_dice,
)
from app.api.i18n import said
from app.api.routing import one_shot_router
from app.api.schemas.cairn import CairnPosition, CairnRollAnswer, CairnRollRequest
from app.api.schemas.common import roll_records, unused_records
from app.rules import cairn
from app.rules.dice import request_rng

CAIRN_KEY = (None, cairn.CAIRN)
CRITICAL_KEY = (None, cairn.CRITICAL)
MAGNITUDE_KEY = (None, cairn.MAGNITUDE)
#: The section of the rules reference the answer links as the rule it applied (`rule`).
RULE = "docs/rules.md#cairn-hill-roll"

#: A position name of the rules as the answer's `CairnPosition` (the same strings).
POSITIONS: Final[dict[str, CairnPosition]] = {name: name for name in get_args(CairnPosition)}


async def roll(
    body: Annotated[
        CairnRollRequest,
        Body(
            openapi_examples=examples(
                {
                    "server dice": {"stats": [5, 7], "target": 45},
                    "worked example (docs/rules.md#cairn-hill-roll)": {
                        "rating": 12,
                        "target": 45,
                        "dice": [87, 78, 75, 62, 37, 36, 7],
                        "critical_die": 13,
                        "magnitude_die": 51,
                    },
                }
            )
        ),
    ],
) -> CairnRollAnswer:
    """Seven d100s, two averaged by rating, plus the rating, with criticals
    (docs/rules.md#cairn-hill-roll)."""
    rating = cairn.resolve_rating(body.rating, body.stats)
    dice = make_dice(
        request_rng(body.seed),
        {
            CAIRN_KEY: body.dice,
            CRITICAL_KEY: None if body.critical_die is None else [body.critical_die],
            MAGNITUDE_KEY: None if body.magnitude_die is None else [body.magnitude_die],
        },
        {
            CAIRN_KEY: ("dice",),
            CRITICAL_KEY: ("critical_die",),
            MAGNITUDE_KEY: ("magnitude_die",),
        },
    )
    result = cairn.cairn_roll(rating, dice, target=body.target, success_rows=body.success_x2_x3)
    # A magnitude die supplied for a roll without a critical is not needed: reported, never
    # refused (docs/rules.md#supplied-and-server-dice).
    unused = dice.leftovers(ended=False)
    answer: CairnRollAnswer = {
        "rating": result.rating,
        "dice_sorted": list(result.dice_sorted),
        "chosen": list(result.chosen),
        "chosen_names": [POSITIONS[name] for name in result.chosen_names],
        "average": result.average,
        "base_score": result.base_score,
        "critical_die": result.critical_die,
        "critical": result.critical,
        "magnitude_die": result.magnitude_die,
        "multiplier": result.multiplier,
        "adjustment": result.adjustment,
        "score": result.score,
        "target": result.target,
        "success": result.success,
        "rule": RULE,
        "rolls": roll_records(dice.log),
        "summary": said(cairn.cairn_message(result)),
    }
    if unused:
        answer["unused"] = unused_records(unused)
    return answer


@cache
def router() -> APIRouter:
    """This module's routes, built by the first `create_app` (they hold no state)."""
    return one_shot_router(
        "/v1/cairn",
        "Cairn Hill",
        ("/roll", roll, "rollCairn"),
    )
