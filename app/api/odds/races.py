"""The odds of a race: a seeded Monte Carlo estimate (docs/rules.md#races)."""

from __future__ import annotations

import json

from app.api.odds.figures import in_language
from app.api.odds.worker import as_json, off_loop
from app.api.schemas.odds import OddsRaceAnswer
from app.rules import races, serial
from app.rules.messages import Message, Percent, english, ng
from app.rules.odds import races as race_odds


def race_answer(
    config_json: str, state_json: str, seed: int, trials: int | None = None
) -> OddsRaceAnswer:
    """The race answer (computed in the worker process); `trials` None: the default budget."""
    config = serial.load(races.Config, json.loads(config_json))
    state = serial.load(races.State, json.loads(state_json))
    odds = race_odds.race_odds(config, state, seed, trials=trials)
    errors = {f"wins.{name}": e.standard_error for name, e in odds.wins.items()}
    errors.update({f"forfeits.{name}": e.standard_error for name, e in odds.forfeits.items()})
    errors.update(tie=odds.tie.standard_error, nobody=odds.nobody.standard_error)
    wins = {name: e.probability for name, e in odds.wins.items()}
    answer: OddsRaceAnswer = {
        "method": "exact" if odds.exact else "monte-carlo",
        "wins": wins,
        "forfeits": {name: e.probability for name, e in odds.forfeits.items()},
        "tie": odds.tie.probability,
        "nobody": odds.nobody.probability,
        "standard_error": errors,
        "trials": odds.trials,
        "seed": odds.seed,
        "increments_played": state.increment,
        "summary": "",
    }
    answer["summary"] = english(race_said(answer))
    return answer


def race_said(answer: OddsRaceAnswer) -> Message:
    """A race's odds in one line: its likeliest winner's share, and a tie's (docs/languages.md)."""
    wins = answer["wins"]
    leader = max(wins, key=wins.__getitem__)
    return ng(
        "{leader} wins {share} of {count} race; a tie {tie}.",
        "{leader} wins {share} of {count} races; a tie {tie}.",
        answer["trials"],
        leader=leader,
        share=Percent(wins[leader]),
        tie=Percent(answer["tie"]),
    )


async def race_odds_from(
    config: races.Config, state: races.State, seed: int, trials: int | None = None
) -> OddsRaceAnswer:
    """`race_answer` for this question, in the worker; its line in the request's language."""
    answer = await off_loop(race_answer, as_json(config), as_json(state), seed, trials)
    return in_language(answer, race_said(answer))


def race_choices_answer(
    config_json: str, states_json: tuple[str, ...], seed: int, trials: int | None = None
) -> list[OddsRaceAnswer]:
    """`race_answer` for each of the states (one option each), in one worker call."""
    return [race_answer(config_json, state_json, seed, trials) for state_json in states_json]


async def race_choices_odds(
    config: races.Config, states: list[races.State], seed: int, trials: int | None = None
) -> list[OddsRaceAnswer]:
    """The race answer from each of `states`, one question to the worker (its cache keyed by
    the tuple); each played with the same seed, so the options differ by their pacing, not by
    their dice."""
    answers = await off_loop(
        race_choices_answer,
        as_json(config),
        tuple(as_json(state) for state in states),
        seed,
        trials,
    )
    return [in_language(answer, race_said(answer)) for answer in answers]
