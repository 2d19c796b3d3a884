"""The `POST /v1/odds/...` endpoints (docs/api.md#odds).

Each takes the body of the matching resolution or session creation (its dice and seed are not
used, except the seed of a Monte Carlo estimate), checked as that call checks it (for a kind,
its own `start` or `configure`), and answers from its family's module.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, cast

import orjson
from fastapi import APIRouter, Body, Request
from starlette.responses import Response

from app.api import i18n
from app.api.answers import charts
from app.api.answers.formats import markdown_message, postable, preferred_form, text_message
from app.api.common import (
    MARKDOWN,
    TEXT,
    JsonAnswer,
    examples,
    header,
    parse_json,
    read_body,
    refuse_other_types,
)
from app.api.kinds.arm_wrestles import KIND as ARM_WRESTLES
from app.api.kinds.chases import KIND as CHASES
from app.api.kinds.chases import check_terrain
from app.api.kinds.races import KIND as RACES
from app.api.kinds.skill_games import KIND as SKILL_GAMES
from app.api.odds import cairn, chases, gurps, races, skill_games
from app.api.odds.arm_wrestles import arm_wrestle_odds
from app.api.odds.figures import (
    ChartWords,
    chart_response,
    in_language,
    maybe_chart,
    maybe_grouped_chart,
)
from app.api.odds.worker import inline_cached, off_loop, off_loop_bytes, preload
from app.api.oneshots.gurps import distinct_names
from app.api.routing import DeferredBody, LeanRoute, declare_body
from app.api.schemas.arm_wrestles import ArmWrestleCreate
from app.api.schemas.cairn import CairnRollRequest
from app.api.schemas.gurps import (
    QuickContestRequest,
    RegularContestRequest,
    ResistanceRollRequest,
    SuccessRollRequest,
)
from app.api.schemas.odds import (
    OddsArmWrestleAnswer,
    OddsCairnAnswer,
    OddsChaseAnswer,
    OddsChaseRequest,
    OddsQuickContestAnswer,
    OddsRaceAnswer,
    OddsRaceRequest,
    OddsRegularContestAnswer,
    OddsResistanceRollAnswer,
    OddsSkillGameTokensAnswer,
    OddsSkillGameTokensRequest,
    OddsSuccessRollAnswer,
)
from app.rules import cairn as cairn_rules
from app.rules import chases as chase_rules
from app.rules import gurps as gurps_rules
from app.rules.dice import Dice
from app.rules.errors import RulesError
from app.rules.messages import N_, m, term
from app.rules.odds import gurps as gurps_odds
from app.rules.odds import skill_games as skill_odds

# Each odds worker imports this module, and so every answer's function, before its first question.
preload(__name__)

# --- GURPS --------------------------------------------------------------------------------


async def success_roll(
    request: Request,
    body: Annotated[
        SuccessRollRequest,
        Body(openapi_examples=examples({"skill 12": {"skill": 12}})),
    ],
) -> OddsSuccessRollAnswer | Response:
    """Exact odds of a success roll: success, criticals, the signed margin
    (docs/rules.md#success-roll)."""
    answer = gurps.success_roll_answer(body.skill)
    answer = in_language(answer, gurps.success_roll_said(answer))
    words = ChartWords(m("Skill {skill}: signed margin", skill=body.skill), term(N_("margin")))
    return await maybe_chart(request, answer, answer["margin"], words)


async def quick_contest(
    request: Request,
    body: Annotated[
        QuickContestRequest,
        Body(
            openapi_examples=examples(
                {"12 vs 10": {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}}
            )
        ),
    ],
) -> OddsQuickContestAnswer | Response:
    """Exact odds of a quick contest, with the margin of victory (docs/rules.md#quick-contest)."""
    a, b = body.a, body.b
    distinct_names(a.name, b.name)
    answer = gurps.quick_contest_answer(a.name, a.skill, b.name, b.skill)
    answer = in_language(answer, gurps.quick_contest_said(answer, a.skill, b.skill))
    words = ChartWords(
        m("{a} vs {b}: margin of victory", a=a.name, b=b.name), term(N_("margin of victory"))
    )
    return await maybe_chart(request, answer, answer["margin_of_victory"], words)


async def resistance_roll(
    body: Annotated[
        ResistanceRollRequest,
        Body(
            openapi_examples=examples(
                {
                    "14 vs 11": {
                        "attacker": {"name": "Wizard", "skill": 14},
                        "defender": {"name": "Orc", "skill": 11},
                    }
                }
            )
        ),
    ],
) -> OddsResistanceRollAnswer:
    """Exact probability that the defender is affected (docs/rules.md#resistance-roll)."""
    attacker, defender = body.attacker, body.defender
    distinct_names(attacker.name, defender.name, ("defender", "name"))
    answer = gurps.resistance_roll_answer(
        attacker.name, attacker.skill, defender.name, defender.skill
    )
    return in_language(answer, gurps.resistance_roll_said(answer))


async def regular_contest(
    body: Annotated[
        RegularContestRequest,
        Body(
            openapi_examples=examples(
                {
                    "giants": {
                        "a": {"name": "Giant", "skill": 600},
                        "b": {"name": "Ogre", "skill": 500},
                    }
                }
            )
        ),
    ],
) -> OddsRegularContestAnswer:
    """Exact odds of a regular contest within `max_rounds`, with the expected rounds
    (docs/rules.md#regular-contest)."""
    config = body.to_rules()
    gurps_rules.check_regular_config(config)
    answer = gurps.regular_contest_answer(config, gurps_rules.RegularState())
    return in_language(answer, gurps.regular_contest_said(config, answer))


# --- Cairn Hill ---------------------------------------------------------------------------


async def cairn_roll(
    request: Request,
    body: Annotated[
        CairnRollRequest,
        Body(openapi_examples=examples({"rating 12 vs 45": {"rating": 12, "target": 45}})),
    ],
) -> OddsCairnAnswer | Response:
    """The exact score distribution of a Cairn Hill roll, its mean and criticals
    (docs/rules.md#cairn-hill-roll)."""
    rating = cairn_rules.resolve_rating(body.rating, body.stats)
    answer = await off_loop(cairn.cairn_answer, rating, body.target, body.success_x2_x3)
    answer = in_language(answer, cairn.cairn_said(answer))
    words = ChartWords(m("Cairn Hill, rating {rating}", rating=rating), term(N_("score")))
    return await maybe_chart(request, answer, answer["distribution"], words)


# --- the kinds, from their start ----------------------------------------------------------


async def arm_wrestles(
    body: Annotated[
        ArmWrestleCreate,
        Body(
            openapi_examples=examples(
                {
                    "Lydia vs the Ogre": {
                        "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
                        "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
                    }
                }
            )
        ),
    ],
) -> OddsArmWrestleAnswer:
    """Exact odds of an arm wrestle from its start (docs/rules.md#arm-wrestling)."""
    config, state = ARM_WRESTLES.start(body, Dice())
    return await arm_wrestle_odds(config, state)


async def chase(
    body: Annotated[
        OddsChaseRequest,
        Body(
            openapi_examples=examples(
                {
                    "Ralf and the guard": {
                        "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2}},
                        "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1}},
                        "start": {"mode": "lead", "lead": 12},
                        "terrain": {"check": "strength"},
                        "tactic_policy": "hide-when-possible",
                    }
                }
            )
        ),
    ],
) -> OddsChaseAnswer:
    """Odds that a chase over the same terrain every increment ends caught or escaped: exact
    over the lead when small, else Monte Carlo (docs/rules.md#chases)."""
    config = CHASES.configure(body)
    state: chase_rules.State | None = None
    supplied = (body.rolls or {}).get(config.escapee.name)
    if not chase_rules.rolls_initiative(config.start):
        chase_rules.start(config, Dice())  # the creation's 422 for a start with no lead
    elif supplied is not None and supplied.initiative is not None:
        die: dict[tuple[str | None, str], list[int]] = {
            (config.escapee.name, chase_rules.INITIATIVE): [supplied.initiative]
        }
        state = chase_rules.start(config, Dice(supplied=die))
    terrain = body.terrain.to_terrain()
    check_terrain(config, terrain)
    return await chases.chase_odds_from(
        config, state, terrain, body.tactic_policy, body.seed or 0, body.trials
    )


async def race(
    body: Annotated[
        OddsRaceRequest,
        Body(
            openapi_examples=examples(
                {
                    "a dash": {
                        "course": "dash",
                        "competitors": [
                            {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
                            {"name": "Bob", "speed": 40, "mods": {"strength": 0}},
                        ],
                        "seed": 7,
                    }
                }
            )
        ),
    ],
) -> OddsRaceAnswer:
    """A seeded Monte Carlo estimate of who wins a race and who forfeits, of `trials` trials
    when asked (docs/rules.md#races)."""
    config, state = RACES.start(body, Dice())
    return await races.race_odds_from(config, state, body.seed or 0, body.trials)


# --- skill-game tokens --------------------------------------------------------------------


def _checked_tokens_request(body: OddsSkillGameTokensRequest) -> int:
    """The creation's checks (their errors under `game`), then the skills call's; how many
    (member, skill) checks the question asks."""
    try:
        config, _ = SKILL_GAMES.start(body.game, Dice())
    except RulesError as error:
        raise error.located_under(("game",)) from None
    skill_odds.check_choices(config, body.skills)
    checks = 0
    for party, chosen in body.skills.items():
        side = config.party(party)
        assert side is not None  # checked
        checks += len(side.members) * len(chosen)
    return checks


async def skill_game_tokens(
    request: Request, body: DeferredBody[OddsSkillGameTokensRequest]
) -> OddsSkillGameTokensAnswer | Response:
    """Exact odds of the tokens each party earns in one round for its chosen skills
    (docs/rules.md#skill-games); for `Accept: image/svg+xml` or `image/png`, the parties'
    distributions as grouped bars."""
    raw = await read_body(request)
    if len(raw) > skill_games.INLINE_TOKEN_BODY_BYTES:
        refuse_other_types(request, raw)
        form = _answer_form(request)
        encoded = await off_loop_bytes(_encoded_tokens_answer, raw, form, i18n.current())
        if form == "json":
            return JsonAnswer(encoded)
        if form in (charts.SVG, charts.PNG):
            return chart_response(encoded, form)
        media_type = TEXT if form == "text" else MARKDOWN
        return Response(encoded, headers={"Vary": "Accept"}, media_type=media_type)
    question = await body.load()
    checks = _checked_tokens_request(question)
    body_json = question.model_dump_json()
    if checks <= skill_games.INLINE_TOKEN_CHECKS:
        answer = inline_cached(skill_games.skill_game_tokens_answer, body_json)
    else:
        answer = await off_loop(skill_games.skill_game_tokens_answer, body_json)
    answer = in_language(answer, skill_games.tokens_said(answer))
    return await maybe_grouped_chart(request, answer, *_token_chart(answer))


def _token_chart(
    answer: OddsSkillGameTokensAnswer,
) -> tuple[dict[str, dict[str, float]], ChartWords]:
    """The token answer's chart: its series, and its words (title, axis and legend)."""
    series = {party: tokens["tokens"] for party, tokens in answer["parties"].items()}
    title = m(
        "Tokens earned in one round (DC {dc}, token rule {token_rule})",
        dc=answer["dc"],
        token_rule=answer["token_rule"],
    )
    return series, ChartWords(title, term(N_("tokens earned")), term(N_("party")))


def _answer_form(request: Request) -> str:
    """What the caller asks for: a chart's image type, `text`, `markdown` or `json`."""
    image = charts.wanted_image(request)
    if image is not None:
        return image
    return preferred_form(header(request, b"accept"))


def _encoded_tokens_answer(raw: bytes, form: str, language: str) -> bytes:
    """In the worker: a large token question checked as the route checks a small one (the
    same 400s and 422s), answered, and written in `form` (`_answer_form`), its words in
    `language` (the request's)."""
    question = parse_json(raw, OddsSkillGameTokensRequest)
    _checked_tokens_request(question)
    answer = skill_games.tokens_answer(question.game.to_rules(), question.skills)
    if form in (charts.SVG, charts.PNG):
        series, words = _token_chart(answer)
        title, xlabel, legend, ylabel = words.in_words(language)
        return charts.grouped_bar_chart_bytes(
            tuple((name, tuple(values.items())) for name, values in series.items()),
            title,
            xlabel,
            cast(charts.ImageType, form),
            legend,
            ylabel,
        )
    answer = in_language(answer, skill_games.tokens_said(answer), language)
    if form == "text":
        return (text_message(answer) or "").encode()
    if form == "markdown":
        return (markdown_message(answer) or "").encode()
    return orjson.dumps(postable(answer))


# --- the routes ---------------------------------------------------------------------------


@cache
def router() -> APIRouter:
    """The odds routes, built by the first `create_app` (they hold no state)."""
    # Once per process, about 1 ms: a first quick-contest question then costs table lookups.
    gurps_odds.warm_verdicts()
    router = APIRouter(prefix="/v1/odds", tags=["Odds"], route_class=LeanRoute)
    routes: tuple[tuple[str, Callable[..., Any], str, Any, bool], ...] = (
        ("/gurps/success-roll", success_roll, "oddsGurpsSuccess", OddsSuccessRollAnswer, True),
        (
            "/gurps/quick-contest",
            quick_contest,
            "oddsGurpsQuickContest",
            OddsQuickContestAnswer,
            True,
        ),
        (
            "/gurps/resistance-roll",
            resistance_roll,
            "oddsGurpsResistanceRoll",
            OddsResistanceRollAnswer,
            False,
        ),
        (
            "/gurps/regular-contest",
            regular_contest,
            "oddsGurpsRegularContest",
            OddsRegularContestAnswer,
            False,
        ),
        ("/cairn", cairn_roll, "oddsCairn", OddsCairnAnswer, True),
        ("/arm-wrestles", arm_wrestles, "oddsArmWrestle", OddsArmWrestleAnswer, False),
        ("/chases", chase, "oddsChase", OddsChaseAnswer, False),
        ("/races", race, "oddsRace", OddsRaceAnswer, False),
        (
            "/skill-games/tokens",
            declare_body(
                skill_game_tokens,
                OddsSkillGameTokensRequest,
                {"two parties": skill_games.TOKENS_EXAMPLE},
            ),
            "oddsSkillGameTokens",
            OddsSkillGameTokensAnswer,
            True,
        ),
    )
    for path, endpoint, operation_id, answer, charted in routes:
        router.add_api_route(
            path,
            endpoint,
            methods=["POST"],
            responses=charts.chart_doc(charted, model=answer),
            operation_id=operation_id,
        )
    return router
