"""One against many, and everyone at once: a GURPS roll against each opponent's or a ranking,
a d20 check against each opponent's opposed check, and their exact odds
(docs/api.md#one-against-many, docs/rules.md#one-against-many)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache
from typing import Annotated

from fastapi import APIRouter, Body

from app.api.common import examples, make_dice
from app.api.i18n import said
from app.api.odds.figures import exact, percent, probability
from app.api.odds.worker import off_loop
from app.api.oneshots.gurps import competitor_roll
from app.api.routing import LeanRoute, one_shot_router
from app.api.schemas.common import roll_records, unused_records
from app.api.schemas.groups import (
    OddsGroupAnswer,
    OddsPair,
    OddsRankedEntry,
    OpposedChecksAnswer,
    OpposedChecksOddsRequest,
    OpposedChecksRequest,
    OpposedCompetitor,
    OpposedOpponent,
    QuickContestPair,
    QuickContestsAnswer,
    QuickContestsOddsRequest,
    QuickContestsRequest,
    RankedChecker,
)
from app.api.schemas.gurps import GurpsCompetitor
from app.rules import groups, gurps
from app.rules.dice import Dice, Key, request_rng
from app.rules.errors import RulesError
from app.rules.messages import N_, m
from app.rules.odds import groups as group_odds

RULE = "docs/rules.md#one-against-many"
THREE = examples(
    {
        "one against three": {
            "competitor": {"name": "Thief", "skill": 13},
            "opponents": [
                {"name": "Guard 1", "skill": 10},
                {"name": "Guard 2", "skill": 10},
                {"name": "Captain", "skill": 12},
            ],
        },
        "ranked": {
            "mode": "ranked",
            "competitors": [
                {"name": "Ann", "skill": 12},
                {"name": "Bob", "skill": 11},
                {"name": "Cid", "skill": 13},
            ],
        },
    }
)
SUPPLIED = examples(
    {
        "supplied dice": {
            "competitor": {"name": "Thief", "skill": 13, "roll": [2, 3, 4]},
            "opponents": [
                {"name": "Guard 1", "skill": 10, "roll": [5, 5, 1]},
                {"name": "Guard 2", "skill": 10, "roll": [1, 1, 2]},
            ],
        }
    }
)
OPPOSED = examples(
    {
        "stealth against three": {
            "competitor": {"name": "Thief", "modifier": 7},
            "opponents": [
                {"name": "Guard 1", "modifier": 2},
                {"name": "Guard 2", "modifier": 2},
                {"name": "Captain", "modifier": 7},
            ],
        }
    }
)
OPPOSED_RANKED = examples(
    {
        "ranked": {
            "mode": "ranked",
            "competitors": [
                {"name": "Ann", "modifier": 3},
                {"name": "Bob", "modifier": 5},
                {"name": "Cid", "modifier": 3},
            ],
        }
    }
)
OPPOSED_SUPPLIED = examples(
    {
        "supplied dice, a tie rerolled": {
            "competitor": {
                "name": "Thief",
                "modifier": 7,
                "roll": 11,
                "rerolls": {"Captain": [15]},
            },
            "opponents": [
                {"name": "Guard 1", "modifier": 2, "roll": 18},
                {"name": "Captain", "modifier": 7, "roll": 11, "rerolls": [9]},
            ],
        }
    }
)


# --- who takes part ---------------------------------------------------------------------------


def _versus(body: QuickContestsRequest) -> tuple[GurpsCompetitor, list[GurpsCompetitor]]:
    """The competitor and the opponents of a "versus" body (the fields checked across)."""
    if body.competitors is not None:
        raise RulesError(N_('"competitors" is for mode "ranked"'), ("competitors",))
    if body.competitor is None:
        raise RulesError(N_('mode "versus" needs a competitor'), ("competitor",))
    if body.opponents is None:
        raise RulesError(N_('mode "versus" needs opponents'), ("opponents",))
    names = [body.competitor.name, *(o.name for o in body.opponents)]
    _distinct(names)
    return body.competitor, body.opponents


def _ranked(body: QuickContestsRequest) -> list[GurpsCompetitor]:
    for field in ("competitor", "opponents"):
        if getattr(body, field) is not None:
            raise RulesError(m('"{field}" is for mode "versus"', field=field), (field,))
    if body.competitors is None:
        raise RulesError(N_('mode "ranked" needs competitors'), ("competitors",))
    _distinct([c.name for c in body.competitors], lambda index: ("competitors", index))
    return body.competitors


def _distinct(
    names: Sequence[str],
    loc: Callable[[int], tuple[str | int, ...]] = lambda index: (
        ("competitor",) if index == 0 else ("opponents", index - 1)
    ),
) -> None:
    """Every name differs from every other; `loc(i)` locates the i-th (by default: the
    competitor first, then the opponents)."""
    seen: set[str] = set()
    for index, name in enumerate(names):
        if name in seen:
            where = loc(index)
            raise RulesError(m("the name {name} is used twice", name=repr(name)), (*where, "name"))
        seen.add(name)


def _opposed(body: OpposedChecksRequest) -> tuple[OpposedCompetitor, list[OpposedOpponent]]:
    """The competitor and the opponents of a "versus" body (the fields checked across)."""
    if body.competitors is not None:
        raise RulesError(N_('"competitors" is for mode "ranked"'), ("competitors",))
    if body.competitor is None:
        raise RulesError(N_('mode "versus" needs a competitor'), ("competitor",))
    if body.opponents is None:
        raise RulesError(N_('mode "versus" needs opponents'), ("opponents",))
    me, opponents = body.competitor, body.opponents
    names = [me.name, *(o.name for o in opponents)]
    _distinct(names)
    for opponent in me.rerolls or {}:
        if opponent not in names[1:]:
            raise RulesError(
                m("{opponent} is not an opponent of this call", opponent=repr(opponent)),
                ("competitor", "rerolls"),
            )
    return me, opponents


def _opposed_ranked(body: OpposedChecksRequest) -> list[RankedChecker]:
    for field in ("competitor", "opponents"):
        if getattr(body, field) is not None:
            raise RulesError(m('"{field}" is for mode "versus"', field=field), (field,))
    if body.competitors is None:
        raise RulesError(N_('mode "ranked" needs competitors'), ("competitors",))
    _distinct([c.name for c in body.competitors], lambda index: ("competitors", index))
    return body.competitors


# --- resolutions ------------------------------------------------------------------------------


async def quick_contests(
    body: Annotated[QuickContestsRequest, Body(openapi_examples={**THREE, **SUPPLIED})],
) -> QuickContestsAnswer:
    """One competitor's single roll against each opponent's own roll, every pair a quick contest
    (a result per opponent); or, with `"mode": "ranked"`, everyone rolls once and is ranked
    (docs/rules.md#one-against-many)."""
    locs: dict[Key, tuple[str | int, ...]] = {}
    if body.mode == "ranked":
        everyone = _ranked(body)
        for index, competitor in enumerate(everyone):
            locs[(competitor.name, gurps.SUCCESS)] = ("competitors", index, "roll")
    else:
        me, opponents = _versus(body)
        everyone = [me, *opponents]
        locs[(me.name, gurps.SUCCESS)] = ("competitor", "roll")
        for index, opponent in enumerate(opponents):
            locs[(opponent.name, gurps.SUCCESS)] = ("opponents", index, "roll")
    supplied: dict[Key, list[int] | None] = {(c.name, gurps.SUCCESS): c.roll for c in everyone}
    dice = make_dice(request_rng(body.seed), supplied, locs)
    if body.mode == "ranked":
        placed = groups.ranked([(c.name, c.skill) for c in everyone], dice)
        first = [p for p in placed if p.place == 1]
        return {
            "mode": "ranked",
            "competitor": None,
            "results": [],
            "beaten": None,
            "beaten_by": None,
            "ties": None,
            "ranking": [{"place": p.place, **competitor_roll(p.name, p.roll)} for p in placed],
            "winner": first[0].name if len(first) == 1 else None,
            "rule": RULE,
            "rolls": roll_records(dice.log),
            "summary": said(groups.ranked_message(placed)),
        }
    contests = groups.quick_contests(
        (me.name, me.skill), [(o.name, o.skill) for o in opponents], dice
    )
    results: list[QuickContestPair] = [
        {
            "opponent": competitor_roll(pair.name, pair.roll),
            "winner": None
            if pair.winner is None
            else me.name
            if pair.winner == "competitor"
            else pair.name,
            "tie": pair.winner is None,
            "margin_of_victory": pair.margin_of_victory,
        }
        for pair in contests.results
    ]
    return {
        "mode": "versus",
        "competitor": competitor_roll(me.name, contests.competitor),
        "results": results,
        "beaten": contests.beaten,
        "beaten_by": contests.beaten_by,
        "ties": contests.ties,
        "ranking": [],
        "winner": None,
        "rule": RULE,
        "rolls": roll_records(dice.log),
        "summary": said(groups.quick_contests_message(me.name, contests)),
    }


async def opposed_checks(
    body: Annotated[
        OpposedChecksRequest,
        Body(openapi_examples={**OPPOSED, **OPPOSED_RANKED, **OPPOSED_SUPPLIED}),
    ],
) -> OpposedChecksAnswer:
    """One d20 check against each opponent's opposed check: the higher total wins, equal totals
    go to the higher modifier, equal modifiers as well and that pair rolls again; after 20
    rerolls the opponent wins. Or, with `"mode": "ranked"`, everyone makes one check and is
    ranked, ties broken the same way, those still tied after 20 rerolls sharing the place
    (docs/rules.md#one-against-many)."""
    if body.mode == "ranked":
        return _ranked_checks(body)
    me, opponents = _opposed(body)
    supplied: dict[Key, list[int] | None] = {
        (me.name, groups.CHECK): None if me.roll is None else [me.roll]
    }
    locs: dict[Key, tuple[str | int, ...]] = {(me.name, groups.CHECK): ("competitor", "roll")}
    for against, values in (me.rerolls or {}).items():
        key = (me.name, groups.reroll_purpose(against))
        supplied[key] = values
        locs[key] = ("competitor", "rerolls", against)
    for index, opponent in enumerate(opponents):
        # Each die its own key: an opponent's rerolls are never taken as its first roll.
        supplied[(opponent.name, groups.CHECK)] = None if opponent.roll is None else [opponent.roll]
        locs[(opponent.name, groups.CHECK)] = ("opponents", index, "roll")
        if opponent.rerolls:
            key = (opponent.name, groups.reroll_purpose(me.name))
            supplied[key] = opponent.rerolls
            locs[key] = ("opponents", index, "rerolls")
    dice = make_dice(request_rng(body.seed), supplied, locs)
    checks = groups.opposed_checks(
        (me.name, me.modifier), [(o.name, o.modifier) for o in opponents], dice
    )
    answer: OpposedChecksAnswer = {
        "mode": "versus",
        "competitor": me.name,
        "modifier": me.modifier,
        "roll": checks.competitor.roll,
        "total": checks.competitor.total,
        "results": [
            {
                "opponent": pair.name,
                "modifier": pair.modifier,
                "winner": me.name if pair.competitor_wins else pair.name,
                "attempts": [
                    {
                        "competitor_roll": ours.roll,
                        "competitor_total": ours.total,
                        "opponent_roll": theirs.roll,
                        "opponent_total": theirs.total,
                    }
                    for ours, theirs in pair.attempts
                ],
            }
            for pair in checks.results
        ],
        "beaten": checks.beaten,
        "beaten_by": len(checks.results) - checks.beaten,
        "ranking": [],
        "winner": None,
        "rule": RULE,
        "rolls": roll_records(dice.log),
        "summary": said(groups.opposed_checks_message(me.name, checks)),
    }
    return _with_unused(answer, dice)


def _ranked_checks(body: OpposedChecksRequest) -> OpposedChecksAnswer:
    """Everyone's one d20 check, ranked (docs/rules.md#one-against-many)."""
    everyone = _opposed_ranked(body)
    supplied: dict[Key, list[int] | None] = {}
    locs: dict[Key, tuple[str | int, ...]] = {}
    for index, competitor in enumerate(everyone):
        supplied[(competitor.name, groups.CHECK)] = (
            None if competitor.roll is None else [competitor.roll]
        )
        locs[(competitor.name, groups.CHECK)] = ("competitors", index, "roll")
        if competitor.rerolls:
            supplied[(competitor.name, groups.REROLL)] = competitor.rerolls
            locs[(competitor.name, groups.REROLL)] = ("competitors", index, "rerolls")
    dice = make_dice(request_rng(body.seed), supplied, locs)
    ranking = groups.ranked_checks([(c.name, c.modifier) for c in everyone], dice)
    first = [entry for entry in ranking if entry.place == 1]
    answer: OpposedChecksAnswer = {
        "mode": "ranked",
        "competitor": None,
        "modifier": None,
        "roll": None,
        "total": None,
        "results": [],
        "beaten": None,
        "beaten_by": None,
        "ranking": [
            {
                "place": entry.place,
                "name": entry.name,
                "modifier": entry.modifier,
                "roll": entry.check.roll,
                "total": entry.check.total,
                "rerolls": list(entry.rerolls),
            }
            for entry in ranking
        ],
        "winner": first[0].name if len(first) == 1 else None,
        "rule": RULE,
        "rolls": roll_records(dice.log),
        "summary": said(groups.ranked_checks_message(ranking)),
    }
    return _with_unused(answer, dice)


def _with_unused(answer: OpposedChecksAnswer, dice: Dice) -> OpposedChecksAnswer:
    """`answer` listing the supplied dice the checks did not use (a reroll without a tie):
    reported, never refused (docs/rules.md#supplied-and-server-dice)."""
    unused = dice.leftovers(ended=False)
    if unused:
        answer["unused"] = unused_records(unused)
    return answer


# --- odds -------------------------------------------------------------------------------------


def _fraction(value: Fraction) -> tuple[float, str]:
    return probability(value), exact(value)


def group_answer(
    competitor: str, names: Sequence[str], odds: group_odds.GroupOdds
) -> OddsGroupAnswer:
    """The answer for `competitor` against `names` (in order)."""
    pairs: list[OddsPair] = []
    for name, pair in zip(names, odds.pairs, strict=True):
        beats, beats_exact = _fraction(pair.beats)
        ties, ties_exact = _fraction(pair.ties)
        beaten_by, beaten_by_exact = _fraction(pair.beaten_by)
        pairs.append(
            {
                "opponent": name,
                "beats": beats,
                "beats_exact": beats_exact,
                "ties": ties,
                "ties_exact": ties_exact,
                "beaten_by": beaten_by,
                "beaten_by_exact": beaten_by_exact,
            }
        )
    all_beaten, all_beaten_exact = _fraction(odds.all_beaten)
    by_any, by_any_exact = _fraction(odds.beaten_by_any)
    independent, independent_exact = _fraction(odds.independent_all_beaten)
    return {
        "method": "exact",
        "mode": "versus",
        "competitor": competitor,
        "pairs": pairs,
        "beaten": {str(k): probability(p) for k, p in enumerate(odds.beaten)},
        "beaten_exact": {str(k): exact(p) for k, p in enumerate(odds.beaten)},
        "all_beaten": all_beaten,
        "all_beaten_exact": all_beaten_exact,
        "beaten_by_any": by_any,
        "beaten_by_any_exact": by_any_exact,
        "independent_all_beaten": independent,
        "independent_all_beaten_exact": independent_exact,
        "ranking": [],
        "nobody_alone_first": None,
        "nobody_alone_first_exact": None,
        "summary": f"{competitor} beats all {len(names)} {percent(all_beaten)}, is beaten by at "
        f"least one {percent(by_any)} (as if independent: beats all {percent(independent)}).",
    }


def ranked_answer(names: Sequence[str], odds: group_odds.RankedOdds) -> OddsGroupAnswer:
    nobody, nobody_exact = _fraction(odds.nobody_alone)
    ranking: list[OddsRankedEntry] = []
    for name, first, shared in zip(names, odds.first, odds.shared_first, strict=True):
        first_float, first_exact = _fraction(first)
        shared_float, shared_exact = _fraction(shared)
        ranking.append(
            {
                "name": name,
                "first": first_float,
                "first_exact": first_exact,
                "shared_first": shared_float,
                "shared_first_exact": shared_exact,
            }
        )
    best = max(ranking, key=lambda entry: entry["first"])
    return {
        "method": "exact",
        "mode": "ranked",
        "competitor": None,
        "pairs": [],
        "beaten": {},
        "beaten_exact": {},
        "all_beaten": None,
        "all_beaten_exact": None,
        "beaten_by_any": None,
        "beaten_by_any_exact": None,
        "independent_all_beaten": None,
        "independent_all_beaten_exact": None,
        "ranking": ranking,
        "nobody_alone_first": nobody,
        "nobody_alone_first_exact": nobody_exact,
        "summary": f"Most likely first alone: {best['name']} {percent(best['first'])}; first "
        f"place shared {percent(nobody)}.",
    }


def versus_answer(
    name: str, skill: int, names: tuple[str, ...], skills: tuple[int, ...]
) -> OddsGroupAnswer:
    return group_answer(name, names, group_odds.quick_contests_odds(skill, skills))


def ranked_answer_of(names: tuple[str, ...], skills: tuple[int, ...]) -> OddsGroupAnswer:
    return ranked_answer(names, group_odds.ranked_odds(skills))


def ranked_checks_answer(names: tuple[str, ...], modifiers: tuple[int, ...]) -> OddsGroupAnswer:
    return ranked_answer(names, group_odds.ranked_checks_odds(modifiers))


def opposed_answer(
    name: str, modifier: int, names: tuple[str, ...], modifiers: tuple[int, ...]
) -> OddsGroupAnswer:
    return group_answer(name, names, group_odds.opposed_checks_odds(modifier, modifiers))


async def quick_contests_odds(
    body: Annotated[QuickContestsOddsRequest, Body(openapi_examples=THREE)],
) -> OddsGroupAnswer:
    """Exact odds of one roll against many (per opponent, how many are beaten, all of them, at
    least one winning against the competitor), over the one shared roll; or, ranked, each
    competitor's chance to place first (docs/rules.md#one-against-many)."""
    if body.mode == "ranked":
        everyone = _ranked(body)
        names = tuple(c.name for c in everyone)
        return await off_loop(ranked_answer_of, names, tuple(c.skill for c in everyone))
    me, opponents = _versus(body)
    return await off_loop(
        versus_answer,
        me.name,
        me.skill,
        tuple(o.name for o in opponents),
        tuple(o.skill for o in opponents),
    )


async def opposed_checks_odds(
    body: Annotated[OpposedChecksOddsRequest, Body(openapi_examples={**OPPOSED, **OPPOSED_RANKED})],
) -> OddsGroupAnswer:
    """Exact odds of one d20 check against many opposed checks, over the one shared d20; or,
    ranked, each competitor's chance to come first, the ties' rerolls counted
    (docs/rules.md#one-against-many)."""
    if body.mode == "ranked":
        everyone = _opposed_ranked(body)
        return await off_loop(
            ranked_checks_answer,
            tuple(c.name for c in everyone),
            tuple(c.modifier for c in everyone),
        )
    me, opponents = _opposed(body)
    return await off_loop(
        opposed_answer,
        me.name,
        me.modifier,
        tuple(o.name for o in opponents),
        tuple(o.modifier for o in opponents),
    )


@cache
def routers() -> tuple[APIRouter, ...]:
    """This module's routes, built by the first `create_app` (they hold no state)."""
    odds = APIRouter(prefix="/v1/odds", tags=["Odds"], route_class=LeanRoute)
    for path, endpoint, operation_id in (
        ("/gurps/quick-contests", quick_contests_odds, "oddsGurpsQuickContests"),
        ("/d20/opposed-checks", opposed_checks_odds, "oddsD20OpposedChecks"),
    ):
        odds.add_api_route(
            path,
            endpoint,
            methods=["POST"],
            responses={422: {"description": "Invalid input (problem+json)"}},
            operation_id=operation_id,
        )
    return (
        one_shot_router(
            "/v1/gurps",
            "GURPS contests",
            ("/quick-contests", quick_contests, "resolveGurpsQuickContests"),
        ),
        one_shot_router(
            "/v1/d20", "d20 checks", ("/opposed-checks", opposed_checks, "resolveD20OpposedChecks")
        ),
        odds,
    )
