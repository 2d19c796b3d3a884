"""The odds of a chase over known terrain (docs/rules.md#chases)."""

from __future__ import annotations

import json
from fractions import Fraction

from app.api.odds.figures import in_language, probability
from app.api.odds.worker import as_json, off_loop
from app.api.schemas.odds import OddsChaseAnswer
from app.rules import chases, serial
from app.rules.messages import N_, Fixed, Message, Percent, english, m, term
from app.rules.odds import chases as chase_odds
from app.rules.odds import fraction_text


def chase_answer(
    config_json: str,
    state_json: str | None,
    terrain_json: str,
    policy: chase_odds.Policy,
    seed: int,
    trials: int | None = None,
) -> OddsChaseAnswer:
    """The chase answer (computed in the worker process); `state_json` None: from the start;
    `trials` None: an estimate's default budget."""
    config = serial.load(chases.Config, json.loads(config_json))
    state = None if state_json is None else serial.load(chases.State, json.loads(state_json))
    terrain = serial.load(chases.Terrain, json.loads(terrain_json))
    odds = chase_odds.chase_odds(config, state, terrain, policy, seed, trials)
    return _answer(config, 0 if state is None else state.increments, policy, odds)


def chase_choices_answer(
    config_json: str,
    state_json: str,
    options_json: str,
    policy: chase_odds.Policy,
    seed: int,
) -> list[OddsChaseAnswer]:
    """The odds of the chase whose next increment is each option's (computed in the worker
    process, the options walked together: `chase_odds.choices_odds`); `options_json`: a list
    of [first, terrain], the increments after the first on `terrain` under `policy`."""
    config = serial.load(chases.Config, json.loads(config_json))
    state = serial.load(chases.State, json.loads(state_json))
    options = [
        (serial.load(chases.RoundInput, first), serial.load(chases.Terrain, terrain))
        for first, terrain in json.loads(options_json)
    ]
    return [
        _answer(config, state.increments, policy, odds)
        for odds in chase_odds.choices_odds(config, state, options, policy, seed)
    ]


def _answer(
    config: chases.Config,
    increments_played: int,
    policy: chase_odds.Policy,
    odds: chase_odds.ChaseOdds | chase_odds.ChaseEstimate,
) -> OddsChaseAnswer:
    names = ("caught", "escaped", "hid", "gave_up")
    answer: OddsChaseAnswer = {
        "method": "exact",
        "escapee": config.escapee.name,
        "chaser": config.chaser.name,
        "tactic_policy": policy,
        "caught": 0.0,
        "caught_exact": None,
        "escaped": 0.0,
        "escaped_exact": None,
        "hid": 0.0,
        "hid_exact": None,
        "gave_up": 0.0,
        "gave_up_exact": None,
        "expected_increments": 0.0,
        "expected_increments_exact": None,
        "standard_error": None,
        "trials": None,
        "seed": None,
        "increments_played": increments_played,
        "summary": "",
    }
    if isinstance(odds, chase_odds.ChaseOdds):
        for name in names:
            chance: Fraction = getattr(odds, name)
            answer[name] = probability(chance)  # type: ignore[literal-required]
            answer[f"{name}_exact"] = fraction_text(chance)  # type: ignore[literal-required]
        answer["expected_increments"] = probability(odds.expected_increments)
        answer["expected_increments_exact"] = fraction_text(odds.expected_increments)
    else:
        answer["method"] = "monte-carlo"
        for name in names:
            answer[name] = getattr(odds, name).probability  # type: ignore[literal-required]
        answer["standard_error"] = {name: getattr(odds, name).standard_error for name in names}
        answer["expected_increments"] = odds.expected_increments
        answer["trials"], answer["seed"] = odds.trials, odds.seed
    answer["summary"] = english(chase_said(config, answer))
    return answer


#: How a chase's odds were found, as its line names it.
METHODS = {"exact": N_("exact"), "monte-carlo": N_("monte-carlo")}


def chase_said(config: chases.Config, answer: OddsChaseAnswer) -> Message:
    """A chase's odds in one line (docs/languages.md)."""
    method = answer["method"]
    return m(
        "{chaser} catches {escapee} {caught}, {escapee} escapes {escaped} (hiding {hid}), "
        "still on after {rounds} increments {gave_up}; {expected} increments expected "
        "({method}).",
        chaser=config.chaser.name,
        escapee=config.escapee.name,
        caught=Percent(answer["caught"]),
        escaped=Percent(answer["escaped"]),
        hid=Percent(answer["hid"]),
        rounds=config.max_rounds,
        gave_up=Percent(answer["gave_up"]),
        expected=Fixed(answer["expected_increments"]),
        method=term(METHODS.get(method, method)),
    )


async def chase_odds_from(
    config: chases.Config,
    state: chases.State | None,
    terrain: chases.Terrain,
    policy: chase_odds.Policy,
    seed: int,
    trials: int | None = None,
) -> OddsChaseAnswer:
    """`chase_answer` for this question, in the worker (`state` None: from the start); its
    line in the request's language."""
    answer = await off_loop(
        chase_answer,
        as_json(config),
        None if state is None else as_json(state),
        as_json(terrain),
        policy,
        seed,
        trials,
    )
    return in_language(answer, chase_said(config, answer))


async def chase_choices_odds(
    config: chases.Config,
    state: chases.State,
    options: list[tuple[chases.RoundInput, chases.Terrain]],
    policy: chase_odds.Policy,
    seed: int,
) -> list[OddsChaseAnswer]:
    """`chase_choices_answer` for these options, in the worker: one question for all of
    them."""
    answers = await off_loop(
        chase_choices_answer,
        as_json(config),
        as_json(state),
        json.dumps([[serial.dump(first), serial.dump(terrain)] for first, terrain in options]),
        policy,
        seed,
    )
    return [in_language(answer, chase_said(config, answer)) for answer in answers]
