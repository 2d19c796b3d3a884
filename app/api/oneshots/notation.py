"""Dice notation for ad-hoc rolls: `GET|POST /v1/roll` (docs/api.md#dice-notation-roll,
docs/rules.md#dice-notation)."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from fastapi import APIRouter, Body, Query, Request
from starlette.responses import Response

from app.api.common import examples, respond, text_plain_doc
from app.api.routing import one_shot_router
from app.api.schemas.common import DICE_NOTATION, refused_beyond_schema, roll_records
from app.api.schemas.notation import NotationRollAnswer, RollRequest
from app.errors import rules_error
from app.notation import MAX_EXPRESSION_LENGTH, NotationError, roll_expression, roll_summary
from app.rules.dice import MAX_SEED, request_rng

#: The one roll's (who, purpose) in `rolls`.
WHO = None
PURPOSE = "roll"
#: The section of the rules reference the answer links as the rule it applied (`rule`).
RULE = "docs/rules.md#dice-notation"


def _roll(expr: str, seed: int | None, where: str) -> NotationRollAnswer:
    """Roll `expr`; a notation error names the `expr` field of the query or the body."""
    try:
        result, dice = roll_expression(expr, request_rng(seed), who=WHO, purpose=PURPOSE)
    except NotationError as exc:
        raise rules_error(NotationError(exc.said or exc.msg, ("expr",)), where) from None
    answer: NotationRollAnswer = {
        "expr": expr,
        "total": result.total,
        "breakdown": result.breakdown,
        "rule": RULE,
        "rolls": roll_records(dice.log),
        "summary": roll_summary(result),
    }
    return answer


async def roll_get(
    request: Request,
    expr: Annotated[
        str,
        Query(
            min_length=1,
            max_length=MAX_EXPRESSION_LENGTH,
            description="dice notation, e.g. 4d6kh3",
            examples=["4d6kh3"],
            json_schema_extra=refused_beyond_schema(DICE_NOTATION),
        ),
    ],
    seed: Annotated[int | None, Query(ge=0, lt=MAX_SEED, description="0 <= seed < 2**63")] = None,
) -> Response:
    """Roll dice notation given in the query, e.g. `?expr=4d6kh3` (docs/rules.md#dice-notation)."""
    return respond(request, _roll(expr, seed, "query"))


async def roll_post(
    body: Annotated[
        RollRequest,
        Body(
            openapi_examples=examples(
                {
                    "ability score": {"expr": "4d6kh3"},
                    "seeded damage": {"expr": "2d6+1d4[fire]+3", "seed": 42},
                    "exploding": {"expr": "3d6e6"},
                }
            )
        ),
    ],
) -> NotationRollAnswer:
    """Roll dice notation: NdS, arithmetic, kh/kl/ph/pl, rr/ro, e, mi/ma, [annotations]
    (docs/rules.md#grammar)."""
    return _roll(body.expr, body.seed, "body")


@cache
def router() -> APIRouter:
    """This module's routes, built by the first `create_app` (they hold no state)."""
    routes = one_shot_router("/v1", "Dice notation", ("/roll", roll_post, "rollNotationWithBody"))
    routes.add_api_route(
        "/roll",
        roll_get,
        methods=["GET"],
        operation_id="rollNotation",
        responses=text_plain_doc(NotationRollAnswer),
    )
    return routes
