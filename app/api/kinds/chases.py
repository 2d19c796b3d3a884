"""Chases as sessions, increment by increment (docs/api.md#chases, docs/rules.md#chases).

The GM describes each increment's terrain in the round body; `resolve` plays one terrain over
and over with server dice, the escapee hiding whenever the `tactic_policy` says so. The escapee
and the chaser each get a party token besides the GM's: it reads the chase but may not play it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import Request
from pydantic import ValidationError
from starlette.responses import Response
from starlette.routing import BaseRoute

from app.api.answers.cards import (
    Rolls,
    card,
    change,
    die_message,
    increment_checks,
    leads_to,
)
from app.api.common import message_doc
from app.api.kinds import (
    ChoiceOdds,
    Examples,
    LiveEvent,
    OddsBody,
    OddsQuestion,
    RoundKind,
    Schemas,
    SessionOdds,
    best_and_summary,
    load_session,
)
from app.api.kinds.races import check_damage_notation
from app.api.odds.chases import chase_choices_odds, chase_odds_from
from app.api.routing import DeferredBody, declare_body
from app.api.schemas.chases import (
    ChaseConfig,
    ChaseCreate,
    ChaseEnd,
    ChaseEnded,
    ChasePurposeDice,
    ChaseResolve,
    ChaseResult,
    ChaseRound,
    ChaseRoundOutcome,
    ChaseRoundRecord,
    ChaseSession,
    ChaseSideRecord,
    ChaseState,
    ChaseTacticRecord,
    ChaseTerrain,
)
from app.api.schemas.common import CardChange, CardDie, RoundCard, validate_json
from app.api.schemas.odds import (
    OddsChaseAnswer,
    OddsChaseChoice,
    OddsChaseChoicesAnswer,
    OddsChaseChoicesRequest,
    OddsChaseFromHereRequest,
)
from app.api.sessions.lifecycle import Change, gm_only, kind_router, mutate
from app.api.sessions.presentation import session_answer
from app.api.sessions.security import Role
from app.rules import chases as rules
from app.rules import serial
from app.rules.dice import Dice, Key, Need
from app.rules.errors import PhaseError, RulesError
from app.rules.messages import N_, Argument, Listing, Message, Percent, Signed, m, term
from app.rules.odds import chases as chase_odds
from app.store.repository import SessionRecord


def check_terrain(config: rules.Config, terrain: rules.Terrain) -> None:
    """A terrain asked about as a round body's would be checked: the rules' checks, mounts,
    damage notation."""
    chase_odds.check_terrain(config, terrain)
    _check_damage(terrain)


def _check_damage(terrain: rules.Terrain) -> None:
    """An obstacle's damage is rollable dice notation."""
    obstacle = terrain.increment.obstacle
    if obstacle is not None and obstacle.damage is not None:
        check_damage_notation([(("terrain", "obstacle", "damage"), obstacle.damage)])


async def odds_from(
    config: rules.Config, state: rules.State, question: OddsQuestion
) -> OddsChaseAnswer:
    """A chase's odds from here: `question.terrain` is the terrain as a round body's JSON
    (`{"check": "strength", ...}`), the tactic policy optional (`none`), the seed optional."""
    if question.terrain is None:
        raise RulesError(
            N_("the terrain of the increments to come is needed"), ("query", "terrain")
        )
    try:
        terrain = validate_json(ChaseTerrain, question.terrain.encode()).to_terrain()
    except ValidationError as error:
        raise RulesError(
            m("not a terrain: {why}", why="; ".join(str(e["msg"]) for e in error.errors())),
            ("query", "terrain"),
        ) from None
    policy = question.tactic_policy or "none"
    check_terrain(config, terrain)
    return await chase_odds_from(
        config, state, terrain, policy, question.seed or 0, question.trials
    )


async def odds_asked(
    config: rules.Config, state: rules.State, body: OddsChaseFromHereRequest
) -> OddsChaseAnswer:
    """A chase's odds from here asked with a JSON body (`POST …/odds`): the same answer as
    `odds_from` for the same terrain, policy and seed."""
    terrain = body.terrain.to_terrain()
    check_terrain(config, terrain)
    return await chase_odds_from(
        config, state, terrain, body.tactic_policy, body.seed or 0, body.trials
    )


ODDS = SessionOdds(
    OddsChaseAnswer,
    odds_from,
    OddsBody(
        OddsChaseFromHereRequest,
        "oddsChaseFromHereWithTerrain",
        {
            "strength, hiding when it can": {
                "terrain": {"check": "strength"},
                "tactic_policy": "hide-when-possible",
            },
            "an obstacle, seeded": {
                "terrain": {
                    "check": "strength",
                    "obstacle": {"kind": "obstacle", "check": "jump", "dc": 12},
                },
                "seed": 7,
            },
        },
        odds_asked,
    ),
)


def option_label(tactic: rules.Tactic | None) -> str:
    """An option's label when the caller gives none: its tactic."""
    if isinstance(tactic, rules.Hide):
        return "hide"
    if isinstance(tactic, rules.CreateHazard):
        return f"hazard (penalty {tactic.penalty})"
    return "no tactic"


async def odds_at_choices(
    config: rules.Config, state: rules.State, body: OddsChaseChoicesRequest
) -> OddsChaseChoicesAnswer:
    """For each option of the next increment, the odds of the chase whose next increment it
    is (its dice unknown), the increments after it on the body's terrain (else the option's
    own) under its policy; an option the round would refuse is refused, located in it."""
    if rules.is_finished(state):
        raise PhaseError(N_("the chase is over"))
    asked: list[tuple[str, ChaseRound, rules.RoundInput, rules.Terrain]] = []
    for index, option in enumerate(body.options):
        where = ("options", index, "move")
        if option.move.rolls is not None:
            raise RulesError(N_("an option's dice are unknown: leave out rolls"), (*where, "rolls"))
        if option.move.collect or option.move.deadline_seconds is not None:
            raise RulesError(
                N_("an option is the next increment as played: leave out collect and its deadline"),
                (*where, "collect"),
            )
        first = option.move.to_rules()
        try:
            rules.validate_round(config, state, first)
            _check_damage(first.terrain)
        except RulesError as error:
            raise error.located_under(where) from None
        terrain = first.terrain if body.terrain is None else body.terrain.to_terrain()
        asked.append((option.label or option_label(first.tactic), option.move, first, terrain))
    if body.terrain is not None:
        check_terrain(config, body.terrain.to_terrain())
    answers = await chase_choices_odds(
        config,
        state,
        [(first, terrain) for _, _, first, terrain in asked],
        body.tactic_policy,
        body.seed or 0,
    )
    options: list[OddsChaseChoice] = [
        {"label": label, "move": move.model_dump(mode="json", exclude_unset=True), "odds": odds}
        for (label, move, _, _), odds in zip(asked, answers, strict=True)
    ]
    ranked = best_and_summary(
        options,
        [option["odds"]["escaped"] for option in options],
        lambda option, escaped: m(
            "{label}: escapes {escaped}, caught {caught}",
            label=option["label"],
            escaped=Percent(escaped),
            caught=Percent(option["odds"]["caught"]),
        ),
        lambda options: m(
            "{name}'s next increment: {options}", name=config.escapee.name, options=options
        ),
    )
    return {"options": options, "best": ranked["best"], "summary": ranked["summary"]}


CHOICES = ChoiceOdds(
    OddsChaseChoicesRequest,
    OddsChaseChoicesAnswer,
    "oddsChaseChoices",
    {
        "hide, a hazard or nothing": {
            "options": [
                {"move": {"terrain": {"check": "strength"}, "tactic": {"kind": "hide"}}},
                {
                    "move": {
                        "terrain": {"check": "strength"},
                        "tactic": {"kind": "hazard", "penalty": 4},
                    }
                },
                {"label": "just run", "move": {"terrain": {"check": "strength"}}},
            ],
            "tactic_policy": "hide-when-possible",
        },
        "an obstacle next, open street after": {
            "options": [
                {
                    "move": {
                        "terrain": {
                            "check": "strength",
                            "obstacle": {"kind": "obstacle", "check": "jump", "dc": 12},
                        }
                    }
                }
            ],
            "terrain": {"check": "strength"},
            "seed": 7,
        },
    },
    odds_at_choices,
)


class Chases(RoundKind[rules.Config, rules.State, rules.Round]):
    """An escapee, a chaser and the lead between them, increment by increment
    (docs/rules.md#chases)."""

    path = "chases"
    title = "chase"
    rule = "docs/rules.md#chases"
    config_type = rules.Config
    state_type = rules.State
    create_model = ChaseCreate
    round_model = ChaseRound
    resolve_model = ChaseResolve
    dice_model = ChasePurposeDice
    events = (LiveEvent("ended", "ChaseEnded", "`POST …/end`"),)
    odds = ODDS
    choices = CHOICES
    schemas = Schemas(
        config=ChaseConfig,
        state=ChaseState,
        result=ChaseResult,
        round=ChaseRoundRecord,
        session=ChaseSession,
    )
    examples = Examples(
        create={
            "escapee": {"name": "Ralf", "speed": 30, "mods": {"dexterity": 3, "hide": 8}},
            "chaser": {"name": "the guard", "speed": 30, "mods": {"spot": 2, "balance": 1}},
            "start": {"mode": "lead", "lead": 12},
            "hazard_base_cost": 0,
        },
        round={
            "terrain": {"check": "strength"},
            "tactic": {"kind": "hazard", "penalty": 4},
            "rolls": {"Ralf": {"dexterity": 16, "check": 6}, "the guard": {"hazard": 9}},
        },
        resolve={"terrain": {"check": "strength"}, "tactic_policy": "hide-when-possible"},
    )

    def start(self, body: ChaseCreate, dice: Dice) -> tuple[rules.Config, rules.State]:
        """A chase at its start lead (docs/rules.md#starting-lead); the initiative die is rolled
        here."""
        config = self.configure(body)
        return config, rules.start(config, dice)

    def configure(self, body: ChaseCreate) -> rules.Config:
        """The chase's config, with the creation's checks (the odds of a chase ask the same)."""
        config = body.to_rules()
        rules.check_config(config)
        return config

    def parties(self, config: rules.Config) -> tuple[str, str]:
        return (config.escapee.name, config.chaser.name)

    def names(self, config: rules.Config) -> tuple[str, str]:
        return (config.escapee.name, config.chaser.name)

    def play(
        self, config: rules.Config, state: rules.State, body: ChaseRound, dice: Dice
    ) -> tuple[rules.State, rules.Round]:
        """One increment: the tactic, then both sides' increment checks (docs/rules.md#chases)."""
        round_input = body.to_rules()
        rules.check_round_input(round_input)
        _check_damage(round_input.terrain)
        return rules.play_round(config, state, round_input, dice)

    def needs(self, config: rules.Config, state: rules.State, body: ChaseRound) -> dict[Key, Need]:
        return rules.dice_needs(config, state, body.to_rules())

    def resolve_move(
        self, config: rules.Config, state: rules.State, body: ChaseResolve
    ) -> ChaseRound:
        """The next increment `resolve` plays: its terrain, and a hide when the policy says so."""
        tactic = rules.choose_tactic(config, state, body.terrain.to_terrain(), body.tactic_policy)
        return ChaseRound.model_validate(
            {
                "terrain": body.terrain.model_dump(),
                "tactic": None if tactic is None else serial.dump(tactic),
            }
        )

    def finished(self, state: rules.State) -> bool:
        return rules.is_finished(state)

    def result(self, config: rules.Config, state: rules.State) -> ChaseResult | None:
        winner = rules.winner(config, state)
        if state.status_detail is None or winner is None:
            return None
        return {
            "status_detail": state.status_detail,
            "winner": winner,
            "lead": state.lead,
            "ds": dict(state.ds),
            "increments": state.increments,
        }

    def public_config(self, config: rules.Config) -> ChaseConfig:
        dumped: ChaseConfig = serial.dump(config)
        return dumped

    def public_state(self, config: rules.Config, state: rules.State) -> ChaseState:  # noqa: ARG002
        return {"lead": state.lead, "ds": dict(state.ds), "status_detail": state.status_detail}

    def round_record(
        self,
        config: rules.Config,  # noqa: ARG002 - the round carries its own names
        state: rules.State,  # noqa: ARG002
        played: rules.Round,
    ) -> ChaseRoundOutcome:
        # The terrain as the round body gave it: the increment's fields beside `flat`.
        terrain = {**serial.dump(played.terrain.increment), "flat": played.terrain.flat}
        return {
            "increment": played.increment,
            "terrain": terrain,  # type: ignore[typeddict-item]
            "lead_before": played.lead_before,
            "tactic": None if played.tactic is None else tactic_record(played.tactic),
            "gains": played.gains,
            "lead": played.lead,
            "finished": played.finished,
            "outcome": played.outcome,
            "status_detail": played.status_detail,
            "sides": {side.name: side_record(side) for side in (played.escapee, played.chaser)},
        }

    def round_summary(
        self, config: rules.Config, state: rules.State, played: rules.Round
    ) -> Message:
        return rules.round_message(config, state, played)

    def extra_routes(self) -> Sequence[BaseRoute]:
        router = kind_router(self)
        router.add_api_route(
            "/{session_id}/end",
            declare_body(
                end_chase,
                ChaseEnd,
                {"end": {"reason": "gave-up"}, "no body": {}},
                default=NO_REASON,
            ),
            methods=["POST"],
            responses=message_doc(model=ChaseEnded),
            summary="End a chase (GM)",
            operation_id="endChase",
        )
        return router.routes

    def round_card(self, config: rules.Config, record: Mapping[str, Any]) -> RoundCard:
        return chase_card(config, record)

    def describe(self, config: rules.Config, state: rules.State) -> Message:
        """`Chase: Ralf leads the guard by 12 after 0 increments.` or how the chase ended."""
        return rules.session_message(config, state)


def tactic_record(tactic: rules.TacticRecord) -> ChaseTacticRecord:
    """The tactic as docs/api.md#chases records it: only the fields it has."""
    record: ChaseTacticRecord = {"kind": tactic.kind, "success": tactic.success}
    if not tactic.attempted:
        record["attempted"] = False
    if tactic.cost is not None:
        record["cost"] = tactic.cost
    if tactic.penalty is not None:
        record["penalty"] = tactic.penalty
    if tactic.created is not None:
        record["created"] = tactic.created
    if tactic.escapee_total is not None:
        record["escapee_total"] = tactic.escapee_total
    if tactic.chaser_total is not None:
        record["chaser_total"] = tactic.chaser_total
    if tactic.chaser_check is not None:
        record["chaser_check"] = tactic.chaser_check
    if tactic.dc is not None:
        record["dc"] = tactic.dc
    return record


def side_record(side: rules.SideRound) -> ChaseSideRecord:
    """A side's increment, under the side's name."""
    shown: ChaseSideRecord = serial.dump_as(side, leave_out=("name",))
    return shown


#: `…/end` with no body: the chaser gives up.
NO_REASON = ChaseEnd()


async def end_chase(request: Request, session_id: str, body: DeferredBody[ChaseEnd]) -> Response:
    """The GM ends the chase: the chaser gives up (docs/rules.md#the-lead-and-the-end)."""

    def mutation(record: SessionRecord, _role: Role) -> Change[rules.State]:
        config, state = load_session(KIND, record.config, record.state, record.id)
        ended = rules.end(config, state, body.value.reason)

        def answer(updated: SessionRecord) -> tuple[int, ChaseEnded]:
            session = session_answer(KIND, updated)
            return 200, {"session": session, "summary": session["summary"]}

        return Change(ended, "finished", KIND.result(config, ended), answer=answer, event="ended")

    return await mutate(request, KIND, session_id, mutation, authorize=gm_only, body=body)


KIND = Chases()


#: How a chase ended, as its card says it.
OUTCOME_WORDS: dict[str, str] = {
    "caught": N_("caught"),
    "escaped": N_("escaped"),
    "hid": N_("hid"),
}


def chase_card(config: rules.Config, record: Mapping[str, Any]) -> RoundCard:
    """A chase's increment as a card: the escapee's tactic (hide against spot, a hazard
    against its DC), each side's checks, and the lead it made."""
    rolls = Rolls(record)
    sides: Mapping[str, Mapping[str, Any]] = record.get("sides") or {}
    escapee, chaser = config.escapee.name, config.chaser.name
    names = [name for name in (escapee, chaser) if name in sides]
    dice: list[CardDie] = []
    tactic: Mapping[str, Any] | None = record.get("tactic")
    if tactic and tactic.get("attempted", True) and "escapee_total" in tactic:
        if tactic.get("kind") == "hide":
            escapee_total, chaser_total = int(tactic["escapee_total"]), int(tactic["chaser_total"])
            dice.append(
                rolls.check(
                    escapee,
                    "hide",
                    roll=None,
                    total=escapee_total,
                    against={"name": chaser, "total": chaser_total},
                    margin=escapee_total - chaser_total,
                    success=bool(tactic.get("success")),
                )
            )
            dice.append(
                rolls.check(
                    chaser,
                    "spot",
                    roll=None,
                    total=chaser_total,
                    against={"name": escapee, "total": escapee_total},
                    margin=chaser_total - escapee_total,
                    success=not tactic.get("success"),
                )
            )
        else:
            dice.append(
                rolls.check(
                    escapee,
                    "dexterity",
                    roll=None,
                    total=int(tactic["escapee_total"]),
                    against=None,
                    success=tactic.get("created"),
                )
            )
            if "chaser_total" in tactic and "dc" in tactic:
                total, dc = int(tactic["chaser_total"]), int(tactic["dc"])
                dice.append(
                    rolls.check(
                        chaser,
                        "hazard",
                        roll=None,
                        total=total,
                        against={"dc": dc},
                        margin=total - dc,
                        success=total >= dc,
                    )
                )
    parts: list[Argument] = []
    for name in names:
        mine = increment_checks(rolls, name, sides[name].get("checks") or ())
        dice.extend(mine)
        gained = Signed(int(sides[name].get("gained", 0)))
        checks: Argument = (
            Listing([die_message(die, opponent=False) for die in mine]) if mine else name
        )
        parts.append(m("{checks} ({gained})", checks=checks, gained=gained))
    dice.extend(rolls.rest())
    lead, before = int(record.get("lead", 0)), int(record.get("lead_before", 0))
    changes: list[CardChange] = [change(escapee, "lead", lead - before, lead)]
    both: Argument = m("{a} vs {b}", a=parts[0], b=parts[1]) if len(parts) == 2 else Listing(parts)
    text: Message = leads_to(both, Listing([item["text"] for item in changes]))
    outcome = record.get("outcome")
    if outcome in OUTCOME_WORDS:
        text = m("{line}; {outcome}", line=text, outcome=term(OUTCOME_WORDS[outcome]))
    winner = chaser if outcome == "caught" else escapee if outcome in ("escaped", "hid") else None
    return card(record, dice, changes, winner=winner, text=text)
