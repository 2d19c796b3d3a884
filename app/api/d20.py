"""A lone d20 check, one call (API.md "POST /v1/d20/check", RULES.md §0)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api.common import body_doc, lean_post, make_dice, parse_body, respond, text_plain_doc
from app.api.schemas.d20 import D20CheckRequest, D20CheckResult
from app.rules import checks
from app.rules.dice import request_rng

router = APIRouter(prefix="/v1/d20", tags=["d20 checks"])

CHECK_KEY = (None, checks.CHECK)


@lean_post(
    router,
    "/check",
    response_model=D20CheckResult,
    responses=text_plain_doc(),
    openapi_extra=body_doc(
        D20CheckRequest,
        {
            "server dice": {"modifier": 3, "dc": 15},
            "supplied die": {"modifier": -2, "dc": 10, "roll": 14},
            "no DC": {"modifier": 5},
        },
    ),
)
async def check(request: Request) -> Response:
    """Roll d20 + modifier, succeeding when the total meets the DC (RULES §0)."""
    body = await parse_body(request, D20CheckRequest)
    dice = make_dice(
        request_rng(body.seed),
        {CHECK_KEY: None if body.roll is None else [body.roll]},
        {CHECK_KEY: ("roll",)},
    )
    result = checks.d20_check(body.modifier, dice, dc=body.dc)
    return respond(
        request,
        {**result.to_dict(), "rolls": dice.rolls(), "summary": checks.check_summary(result)},
    )
