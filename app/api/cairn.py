"""The Cairn Hill roll, one call (API.md "POST /v1/cairn/roll", RULES.md §2)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from app.api.common import body_doc, lean_post, make_dice, parse_body, respond, text_plain_doc
from app.api.schemas.cairn import CairnRollRequest, CairnRollResult
from app.rules import cairn
from app.rules.dice import request_rng

router = APIRouter(prefix="/v1/cairn", tags=["Cairn Hill"])

CAIRN_KEY = (None, cairn.CAIRN)
CRITICAL_KEY = (None, cairn.CRITICAL)
MAGNITUDE_KEY = (None, cairn.MAGNITUDE)


@lean_post(
    router,
    "/roll",
    response_model=CairnRollResult,
    responses=text_plain_doc(),
    openapi_extra=body_doc(
        CairnRollRequest,
        {
            "server dice": {"stats": [5, 7], "target": 45},
            "worked example (RULES §2)": {
                "rating": 12,
                "target": 45,
                "dice": [87, 78, 75, 62, 37, 36, 7],
                "critical_die": 13,
                "magnitude_die": 51,
            },
        },
    ),
)
async def roll(request: Request) -> Response:
    """Seven d100s, two averaged by rating, plus the rating, with criticals (RULES §2)."""
    body = await parse_body(request, CairnRollRequest)
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
    result = cairn.cairn_roll(rating, dice, target=body.target)
    # A magnitude die supplied for a roll without a critical is ignored, not a wrong count.
    dice.require_all_used(ignore=[MAGNITUDE_KEY])
    return respond(
        request,
        {**result.to_dict(), "rolls": dice.rolls(), "summary": cairn.cairn_summary(result)},
    )
