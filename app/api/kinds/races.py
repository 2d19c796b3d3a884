"""Races as sessions, increment by increment (docs/api.md#races, docs/rules.md#races).

Each competitor gets a party token of her own besides the GM's: it reads the race (GET) but may
not play it (403), so racers can follow along without being able to post dice. Before the first
increment a racer chooses her pacing for the race (`POST …/pacing`, her own token, her seat's or
the GM's), and anyone in the race may ask what each pacing would give (`POST …/odds/choices`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from fastapi import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from app.api import i18n
from app.api.answers.cards import (
    Rolls,
    card,
    change,
    increment_checks,
    leads_to,
)
from app.api.common import message_doc
from app.api.kinds import (
    ChoiceOdds,
    Examples,
    LiveEvent,
    OddsQuestion,
    RoundKind,
    Schemas,
    SessionOdds,
    best_and_summary,
    load_session,
)
from app.api.odds.races import race_choices_odds, race_odds_from
from app.api.routing import DeferredBody, declare_body
from app.api.schemas.common import CardChange, CardDie, RoundCard
from app.api.schemas.odds import (
    OddsRaceAnswer,
    OddsRaceChoice,
    OddsRaceChoicesAnswer,
    OddsRaceChoicesRequest,
)
from app.api.schemas.races import (
    RaceCheckRecord,
    RaceCompetitorLine,
    RaceConfig,
    RaceCreate,
    RaceDice,
    RacePacing,
    RacePacingChosen,
    RaceResult,
    RaceRound,
    RaceRoundOutcome,
    RaceRoundRecord,
    RaceSession,
    RaceState,
)
from app.api.sessions import pending
from app.api.sessions.lifecycle import Change, kind_router, mutate, require_active
from app.api.sessions.presentation import session_answer
from app.api.sessions.security import Role
from app.errors import Conflict, Forbidden
from app.notation import validate_notation
from app.rules import races as rules
from app.rules import serial
from app.rules.dice import Dice, Key, Need
from app.rules.errors import Loc, PhaseError, RulesError, RuleViolation
from app.rules.messages import N_, Argument, Listing, Message, Percent, m, ng
from app.rules.races import CheckRecord, CompetitorRound
from app.store.repository import SessionRecord


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
        raise RulesError.of_all(found)


async def odds_from(
    config: rules.Config, state: rules.State, question: OddsQuestion
) -> OddsRaceAnswer:
    """A seeded estimate from where the race stands."""
    return await race_odds_from(config, state, question.seed or 0, question.trials)


#: A racer's pacing chosen, and the session after it (docs/languages.md).
PACING_CHOSEN = {
    "normal": N_("{name} runs at a normal pace this race. {summary}"),
    "sprint": N_("{name} sprints this race. {summary}"),
    "pace": N_("{name} paces herself this race. {summary}"),
}


def pacing_label(move: RacePacing) -> str:
    """An option's label when the caller gives none: `Bob sprints`."""
    doing = {"normal": "runs at a normal pace", "sprint": "sprints", "pace": "paces herself"}
    return f"{move.name} {doing[move.pacing]}"


async def odds_at_choices(
    config: rules.Config, state: rules.State, body: OddsRaceChoicesRequest
) -> OddsRaceChoicesAnswer:
    """For each option (one racer's pacing, as `…/pacing` would take it now), the odds of the
    race once she races at it, every option played with the same seeded dice; one question to
    the odds worker."""
    if rules.is_finished(state):
        raise PhaseError(N_("the race is over"))
    chosen: list[rules.State] = []
    for index, option in enumerate(body.options):
        move = option.move
        try:
            chosen.append(rules.choose_pacing(config, state, move.name, move.pacing))
        except RulesError as error:
            raise error.located_under(("options", index, "move")) from None
    answers = await race_choices_odds(config, chosen, body.seed or 0, body.trials)
    options: list[OddsRaceChoice] = [
        {
            "label": option.label or pacing_label(option.move),
            "move": option.move.model_dump(mode="json", exclude_unset=True),
            "odds": odds,
        }
        for option, odds in zip(body.options, answers, strict=True)
    ]
    wins = [option["odds"]["wins"][option["move"]["name"]] for option in options]
    ranked = best_and_summary(
        options,
        wins,
        lambda option, won: m(
            "{label}: {name} wins {chance}",
            label=option["label"],
            name=option["move"]["name"],
            chance=Percent(won),
        ),
    )
    return {"options": options, "best": ranked["best"], "summary": ranked["summary"]}


CHOICES: ChoiceOdds[rules.Config, rules.State] = ChoiceOdds(
    OddsRaceChoicesRequest,
    OddsRaceChoicesAnswer,
    "oddsRaceChoices",
    {
        "sprint, pace or neither": {
            "options": [
                {"move": {"name": "Ann", "pacing": "sprint"}},
                {"move": {"name": "Ann", "pacing": "pace"}},
                {"label": "as she is", "move": {"name": "Ann", "pacing": "normal"}},
            ],
            "seed": 7,
        }
    },
    odds_at_choices,
)


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
    choices = CHOICES
    events = (LiveEvent("pacing", "RacePacingChosen", "`POST …/pacing`"),)
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

    def needs(
        self,
        config: rules.Config,
        state: rules.State,
        body: RaceRound,  # noqa: ARG002 - an increment takes nothing but dice
    ) -> dict[Key, Need]:
        return rules.dice_needs(config, state)

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

    def public_state(self, config: rules.Config, state: rules.State) -> RaceState:
        return {
            "increment": state.increment,
            "of": state.of,
            "ds": dict(state.ds),
            "standing": dict(state.standing),
            "damage": dict(state.damage),
            "flags": {name: list(flags) for name, flags in state.flags.items()},
            "pacing": rules.pacing_of(config, state),
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

    def round_summary(
        self, config: rules.Config, state: rules.State, played: rules.Round
    ) -> Message:
        return rules.round_message(config, state, played)

    def extra_routes(self) -> Sequence[BaseRoute]:
        router = kind_router(self)
        router.add_api_route(
            "/{session_id}/pacing",
            declare_body(
                choose_pacing,
                RacePacing,
                {"sprint": {"name": "Ann", "pacing": "sprint"}},
            ),
            methods=["POST"],
            responses=message_doc(model=RacePacingChosen),
            summary="Choose a racer's pacing before the first increment (the racer or the GM)",
            operation_id="chooseRacePacing",
        )
        return router.routes

    def round_card(self, config: rules.Config, record: Mapping[str, Any]) -> RoundCard:
        return race_card(config, record)

    def describe(self, config: rules.Config, state: rules.State) -> Message:
        """`Race (dash): increment 1 of 2 done; Ann 18, Bob 15.` or who won."""
        return rules.session_message(config, state)


def check_record(check: CheckRecord) -> RaceCheckRecord:
    """One check of an increment, as round records (races' and chases') show it."""
    shown: RaceCheckRecord = serial.dump(check)
    return shown


def competitor_line(line: CompetitorRound) -> RaceCompetitorLine:
    """A competitor's line of a round, under the competitor's name."""
    shown: RaceCompetitorLine = serial.dump_as(line, leave_out=("name",))
    return shown


def _racer_or_gm(body: DeferredBody[RacePacing]) -> Callable[[Role, SessionRecord], None]:
    def authorize(role: Role, _record: SessionRecord) -> None:
        name = body.value.name
        if role.is_gm or role.party == name or role.seat == name:
            return
        raise Forbidden(N_("this token races for another competitor: her pacing is hers to choose"))

    return authorize


async def choose_pacing(
    request: Request, session_id: str, body: DeferredBody[RacePacing]
) -> Response:
    """A racer's pacing for the whole race, before its first increment
    (docs/rules.md#races, "Pacing"); 409 once an increment is played or while one waits for
    dice."""

    def mutation(record: SessionRecord, _role: Role) -> Change[rules.State]:
        require_active(record, "the race")
        if pending.collecting(record) is not None:
            raise Conflict(N_("an increment is waiting for dice: pacing is chosen before it"))
        config, state = load_session(KIND, record.config, record.state, record.id)
        move = body.value
        chosen = rules.choose_pacing(config, state, move.name, move.pacing)

        def answer(updated: SessionRecord) -> tuple[int, RacePacingChosen]:
            session = session_answer(KIND, updated, chosen)
            said = PACING_CHOSEN[move.pacing]
            summary = m(said, name=move.name, summary=session["summary"])
            return 200, {"session": session, "summary": i18n.said(summary)}

        return Change(chosen, "active", None, answer=answer, event="pacing")

    return await mutate(
        request, KIND, session_id, mutation, authorize=_racer_or_gm(body), body=body
    )


KIND = Races()


def race_card(config: rules.Config, record: Mapping[str, Any]) -> RoundCard:
    """A race's increment as a card: each racer's checks (against a DC where one applies)
    and the DS each gained."""
    rolls = Rolls(record)
    dice: list[CardDie] = []
    changes: list[CardChange] = []
    competitors: Mapping[str, Mapping[str, Any]] = record.get("competitors") or {}
    parts: list[Argument] = []
    # In the config's order: a stored record's keys may come back in another (PostgreSQL).
    for name in [racer.name for racer in config.competitors if racer.name in competitors]:
        line = competitors[name]
        mine = increment_checks(rolls, name, line.get("checks") or ())
        dice.extend(mine)
        gained = change(name, "ds", line["gained"], line["ds"])
        changes.append(gained)
        checks: Argument = Listing([die["text"] for die in mine]) if mine else name
        moved: Argument = gained["text"]
        if line.get("standing") == "forfeited":
            moved = m("{change}, forfeited", change=moved)
        parts.append(leads_to(checks, moved))
    dice.extend(rolls.rest())
    winners = record.get("winners") or []
    text: Message = Message("{parts}", {"parts": Listing(parts, "; ")})
    if winners:
        text = ng(
            "{line}. {winners} wins",
            "{line}. {winners} tie",
            len(winners),
            line=text,
            winners=Listing(list(winners), "and-each"),
        )
    return card(record, dice, changes, winner=winners[0] if len(winners) == 1 else None, text=text)
