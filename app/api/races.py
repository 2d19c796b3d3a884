"""Races as sessions, increment by increment (docs/api.md#races, docs/rules.md#races).

Each competitor gets a party token of her own besides the GM's: it reads the race (GET) but may
not play it (403), so racers can follow along without being able to post dice.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.api.kinds import Examples, OddsQuestion, RoundKind, Schemas, SessionOdds
from app.api.odds.races import race_odds_from
from app.api.schemas.odds import OddsRaceAnswer
from app.api.schemas.races import (
    RaceCheckRecord,
    RaceCompetitorLine,
    RaceConfig,
    RaceCreate,
    RaceDice,
    RaceResult,
    RaceRound,
    RaceRoundOutcome,
    RaceRoundRecord,
    RaceSession,
    RaceState,
)
from app.notation import validate_notation
from app.rules import races as rules
from app.rules import serial
from app.rules.dice import Dice
from app.rules.errors import Loc, RulesError, RuleViolation
from app.rules.races import CheckRecord, CompetitorRound


def check_damage_notation(increments: Iterable[tuple[Loc, str]]) -> None:
    """Every obstacle's and hazard's `damage` must be rollable dice notation
    (docs/rules.md#dice-notation)."""
    found: list[RuleViolation] = []
    for loc, expr in increments:
        try:
            validate_notation(expr, loc)
        except RulesError as exc:
            found.extend(exc.violations)
    if found:
        first, *rest = found
        raise RulesError(first.msg, first.loc, more=rest)


async def odds_from(
    config: rules.Config, state: rules.State, question: OddsQuestion
) -> OddsRaceAnswer:
    """A seeded estimate from where the race stands."""
    return await race_odds_from(config, state, question.seed or 0, question.trials)


class Races(RoundKind[rules.Config, rules.State, rules.Round]):
    """Every competitor races the course's increments; the highest DS wins (docs/rules.md#races)."""

    path = "races"
    title = "race"
    rule = "docs/rules.md#races"
    config_type = rules.Config
    state_type = rules.State
    create_model = RaceCreate
    round_model = RaceRound
    resolve_model = None
    dice_model = RaceDice
    odds = SessionOdds(OddsRaceAnswer, odds_from)
    schemas = Schemas(
        config=RaceConfig,
        state=RaceState,
        result=RaceResult,
        round=RaceRoundRecord,
        session=RaceSession,
    )
    examples = Examples(
        create={
            "course": "dash",
            "competitors": [
                {"name": "Ann", "speed": 30, "mods": {"strength": 2}, "feats": ["run"]},
                {"name": "Bob", "speed": 40, "mods": {"strength": 1}, "pacing": "sprint"},
            ],
        },
        round={"rolls": {"Ann": {"check": 14}, "Bob": {"check": 9}}},
    )

    def start(self, body: RaceCreate, dice: Dice) -> tuple[rules.Config, rules.State]:
        """A race at its start: everyone racing at DS 0 (docs/rules.md#races)."""
        config = body.to_rules()
        rules.check_config(config)
        if config.preset is None:
            check_damage_notation(
                (("course", "increments", index, "obstacle", "damage"), increment.obstacle.damage)
                for index, increment in enumerate(config.increments)
                if increment.obstacle is not None and increment.obstacle.damage is not None
            )
        return config, rules.start(config, dice)

    def parties(self, config: rules.Config) -> tuple[str, ...]:
        return tuple(competitor.name for competitor in config.competitors)

    def names(self, config: rules.Config) -> tuple[str, ...]:
        return tuple(competitor.name for competitor in config.competitors)

    def rolling(self, config: rules.Config, state: rules.State) -> tuple[str, ...]:
        """The racers still racing: the others roll nothing."""
        return tuple(
            competitor.name
            for competitor in config.competitors
            if state.standing[competitor.name] == "racing"
        )

    def play(
        self,
        config: rules.Config,
        state: rules.State,
        body: RaceRound,  # noqa: ARG002 - an increment takes nothing but dice
        dice: Dice,
    ) -> tuple[rules.State, rules.Round]:
        """The next increment for every competitor still racing."""
        return rules.play_round(config, state, dice)

    def resolve_move(
        self,
        config: rules.Config,  # noqa: ARG002 - every increment is played the same way
        state: rules.State,  # noqa: ARG002
        body: None,  # noqa: ARG002
    ) -> RaceRound:
        return RaceRound()

    def finished(self, state: rules.State) -> bool:
        return rules.is_finished(state)

    def result(self, config: rules.Config, state: rules.State) -> RaceResult | None:  # noqa: ARG002
        if not rules.is_finished(state):
            return None
        won = rules.winners(state)
        return {
            "winners": list(won),
            "tie": len(won) > 1,
            "ds": dict(state.ds),
            "standing": dict(state.standing),
            "damage": dict(state.damage),
            "flags": {name: list(flags) for name, flags in state.flags.items()},
        }

    def public_config(self, config: rules.Config) -> RaceConfig:
        dumped: RaceConfig = serial.dump(config)
        return dumped

    def public_state(self, config: rules.Config, state: rules.State) -> RaceState:  # noqa: ARG002
        return {
            "increment": state.increment,
            "of": state.of,
            "ds": dict(state.ds),
            "standing": dict(state.standing),
            "damage": dict(state.damage),
            "flags": {name: list(flags) for name, flags in state.flags.items()},
        }

    def round_record(
        self,
        config: rules.Config,  # noqa: ARG002 - the round carries its own names
        state: rules.State,  # noqa: ARG002
        played: rules.Round,
    ) -> RaceRoundOutcome:
        return {
            "increment": played.increment,
            "competitors": {line.name: competitor_line(line) for line in played.competitors},
            "finished": played.finished,
            "winners": list(played.winners),
        }

    def round_summary(self, config: rules.Config, state: rules.State, played: rules.Round) -> str:
        return rules.round_summary(config, state, played)

    def describe(self, config: rules.Config, state: rules.State) -> str:
        """`Race (dash): increment 1 of 2 done; Ann 18, Bob 15.` or who won."""
        name = config.preset or "custom course"
        board = ", ".join(
            f"{racer} {score}" + (" (forfeited)" if state.standing[racer] == "forfeited" else "")
            for racer, score in sorted(state.ds.items(), key=lambda item: -item[1])
        )
        head = f"Race ({name})"
        if not rules.is_finished(state):
            return f"{head}: increment {state.increment} of {state.of} done; {board}."
        winners = rules.winners(state)
        if not winners:
            return f"{head} over: nobody finished; {board}."
        if len(winners) == 1:
            return f"{head} over: {winners[0]} wins; {board}."
        return f"{head} over: tie between {', '.join(winners)}; {board}."


def check_record(check: CheckRecord) -> RaceCheckRecord:
    """One check of an increment, as round records (races' and chases') show it."""
    shown: RaceCheckRecord = serial.dump(check)
    return shown


def competitor_line(line: CompetitorRound) -> RaceCompetitorLine:
    """A competitor's line of a round, under the competitor's name."""
    shown: RaceCompetitorLine = serial.dump_as(line, leave_out=("name",))
    return shown


KIND = Races()
