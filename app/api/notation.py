"""Dice notation for ad-hoc rolls: `GET|POST /v1/roll` (API.md, RULES.md §5)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from app.api.common import body_doc, lean_post, parse_body, respond, text_plain_doc
from app.api.schemas.notation import RollRequest, RollResult
from app.errors import rules_error
from app.notation import MAX_EXPRESSION_LENGTH, NotationError, roll_expression, roll_summary
from app.rules.dice import MAX_SEED, request_rng

router = APIRouter(prefix="/v1", tags=["Dice notation"])

#: The one roll's (who, purpose) in `rolls`.
WHO = None
PURPOSE = "roll"


def _roll(request: Request, expr: str, seed: int | None, where: str) -> Response:
    """Roll `expr`; a notation error names the `expr` field of the query or the body."""
    try:
        result, dice = roll_expression(expr, request_rng(seed), who=WHO, purpose=PURPOSE)
    except NotationError as exc:
        raise rules_error(NotationError(exc.msg, ("expr",)), where) from None
    return respond(
        request,
        {
            "expr": expr,
            "total": result.total,
            "breakdown": result.breakdown,
            "rolls": dice.rolls(),
            "summary": roll_summary(result),
        },
    )


@router.get("/roll", response_model=RollResult, responses=text_plain_doc())
async def roll_get(
    request: Request,
    expr: Annotated[
        str,
        Query(
            min_length=1,
            max_length=MAX_EXPRESSION_LENGTH,
            description="dice notation, e.g. 4d6kh3",
            examples=["4d6kh3"],
        ),
    ],
    seed: Annotated[int | None, Query(ge=0, lt=MAX_SEED, description="0 <= seed < 2**63")] = None,
) -> Response:
    """Roll dice notation given in the query, e.g. `?expr=4d6kh3` (RULES §5)."""
    return _roll(request, expr, seed, "query")


@lean_post(
    router,
    "/roll",
    response_model=RollResult,
    responses=text_plain_doc(),
    openapi_extra=body_doc(
        RollRequest,
        {
            "ability score": {"expr": "4d6kh3"},
            "seeded damage": {"expr": "2d6+1d4[fire]+3", "seed": 42},
            "exploding": {"expr": "3d6e6"},
        },
    ),
)
async def roll_post(request: Request) -> Response:
    """Roll dice notation: NdS, arithmetic, kh/kl/ph/pl, rr/ro, e, mi/ma, [annotations] (§5)."""
    body = await parse_body(request, RollRequest)
    return _roll(request, body.expr, body.seed, "body")
