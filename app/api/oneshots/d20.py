"""A lone d20 check, one call (docs/api.md#d20-check, docs/rules.md#dice-and-checks)."""

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
from app.api.schemas.common import roll_records
from app.api.schemas.d20 import D20CheckAnswer, D20CheckRequest
from app.rules import checks
from app.rules.dice import request_rng

CHECK_KEY = (None, checks.CHECK)
#: The section of the rules reference the answer links as the rule it applied (`rule`).
RULE = "docs/rules.md#d20-checks"


async def check(
    body: Annotated[
        D20CheckRequest,
        Body(
            openapi_examples=examples(
                {
                    "server dice": {"modifier": 3, "dc": 15},
                    "supplied die": {"modifier": -2, "dc": 10, "roll": 14},
                    "no DC": {"modifier": 5},
                }
            )
        ),
    ],
) -> D20CheckAnswer:
    """Roll d20 + modifier, succeeding when the total meets the DC
    (docs/rules.md#dice-and-checks)."""
    dice = make_dice(
        request_rng(body.seed),
        {CHECK_KEY: None if body.roll is None else [body.roll]},
        {CHECK_KEY: ("roll",)},
    )
    result = checks.d20_check(body.modifier, dice, dc=body.dc)
    answer: D20CheckAnswer = {
        "roll": result.roll,
        "modifier": result.modifier,
        "total": result.total,
        "dc": result.dc,
        "success": result.success,
        "rule": RULE,
        "rolls": roll_records(dice.log),
        "summary": said(checks.check_message(result)),
    }
    return answer


@cache
def router() -> APIRouter:
    """This module's routes, built by the first `create_app` (they hold no state)."""
    return one_shot_router(
        "/v1/d20",
        "d20 checks",
        ("/check", check, "rollD20Check"),
    )
