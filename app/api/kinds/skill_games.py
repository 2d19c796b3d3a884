"""Legend skill games as sessions, with sealed choices (docs/api.md#skill-games,
docs/rules.md#skill-games).

A round has no single "play" call: each party posts its skills (`/skills`), then seals a
choice (`/choices`); the submission that completes the set reveals and resolves the round in
the same locked transaction (`mutate` serialises the writers of one session), so the reveal
happens exactly once however the last submissions race.

**Stored state** is a `StoredGame`: the rules' `State` (sealed choices included) and the round's
`Pending` part, what it has gathered so far and must not show before the reveal:
- `round_rolls`: every skill-check die of the round, in the order rolled (call by call);
- `order_dice`: each party's own supplied order d20s, kept with its sealed choice;
- `grants`: the GM's grants since the last reveal.
The revealed round's record lists `rolls` = the skill-check dice, then the order d20s, so
every die of a round is in its record. Responses show only the public state: who has
submitted, never what.

**Seeded dice.** `round_dice` derives from (seed, round number) alone, which cannot tell apart
the skills calls of different parties in one round, so each call has its own stream of the
session's seed: `SeededRng(seed, "round:{n}:skills:{party}")` for a party's skill checks and
`SeededRng(seed, "round:{n}:reveal")` for the order d20s, where n is the round being played
(rounds played + 1). The same game with the same seed and calls rolls the same dice.

**What a party reads of a round.** The store keeps the round whole, every choice in it; a
party's token reads it through `round_shown_to` (the kind's `round_view`): every bid, the
actions taken, and of the actions not taken only its own (docs/rules.md#bidding) — in
`GET …/rounds`, the revealing answer and the live events; the GM's token reads it whole.

**Order dice** are supplied by each party for itself with its choice. Unused ones (no tie)
are never refused — that would tell the last submitter, before anything is final, whether
the highest bids tied — and are listed in the revealed round's `unused`
(docs/rules.md#supplied-and-server-dice).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from fastapi import Request
from pydantic import BaseModel
from starlette.responses import Response
from starlette.routing import BaseRoute
from typing_extensions import TypedDict

from app.api import i18n
from app.api.answers.cards import Rolls, card, change
from app.api.common import message_doc, respond
from app.api.kinds import (
    ChoiceOdds,
    ContestKind,
    Examples,
    LiveEvent,
    RoundView,
    Schemas,
    SessionOdds,
    best_and_summary,
    load_session,
)
from app.api.odds.figures import in_language as odds_in_language
from app.api.odds.skill_games import INLINE_TOKEN_CHECKS, tokens_from_json, tokens_said
from app.api.odds.worker import as_json, inline_cached, off_loop
from app.api.routing import DeferredBody, declare_body
from app.api.schemas.common import (
    CardChange,
    CardDie,
    RoundCard,
    roll_records,
    unused_records,
)
from app.api.schemas.odds import (
    OddsSkillGameChoice,
    OddsSkillGameChoicesAnswer,
    OddsSkillGameChoicesRequest,
    OddsSkillGameTokensAnswer,
)
from app.api.schemas.skill_games import (
    SkillGameActionConfig,
    SkillGameBid,
    SkillGameCheck,
    SkillGameChoice,
    SkillGameConfig,
    SkillGameCreate,
    SkillGameEffectConfig,
    SkillGameEnd,
    SkillGameEnded,
    SkillGameGrant,
    SkillGameGranted,
    SkillGameGrantRecord,
    SkillGameOrderDice,
    SkillGamePartyConfig,
    SkillGamePurchase,
    SkillGameResult,
    SkillGameRevealed,
    SkillGameRound,
    SkillGameRoundOutcome,
    SkillGameSealed,
    SkillGameSession,
    SkillGameSkills,
    SkillGameSkillsAnswer,
    SkillGameState,
    SkillGameTakenEffect,
)
from app.api.sessions import verifiable
from app.api.sessions.lifecycle import (
    Authorize,
    Change,
    StoredRound,
    gm_only,
    kind_router,
    mutate,
    require_active,
    settled_read,
)
from app.api.sessions.presentation import session_answer
from app.api.sessions.security import Role, bearer_token, role_of
from app.errors import Forbidden, NotFound, not_found
from app.rules import serial
from app.rules import skill_games as rules
from app.rules.dice import Dice, DieRoll, Key, Rng, SeededRng, SystemRng
from app.rules.errors import Loc, RulesError
from app.rules.messages import N_, Argument, Fixed, Listing, Message, Signed, english, m, ng
from app.rules.odds import skill_games as skill_odds
from app.rules.verifiable import new_salt, seal
from app.store import repository
from app.store.database import Transaction
from app.store.repository import SessionRecord

# --- what the store keeps ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Grant:
    """A grant of the GM's (docs/rules.md#skills-and-tokens), kept until the next reveal lists
    it."""

    party: str
    tokens: int
    reason: str


@dataclass(frozen=True, slots=True)
class Pending:
    """What the round in progress has gathered that only its reveal may show."""

    round_rolls: tuple[DieRoll, ...] = ()
    order_dice: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    grants: tuple[Grant, ...] = ()


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A skill game's stored state: the rules' state and the pending part of the round.

    Both hold secrets until the reveal (sealed choices, order dice): never show either as is.
    """

    game: rules.State
    pending: Pending = field(default_factory=Pending)


def _load(record: SessionRecord) -> tuple[rules.Config, StoredGame]:
    return load_session(KIND, record.config, record.state, record.id)


def _dice(
    record: SessionRecord,
    stream: str,
    number: int,
    supplied: Mapping[Key, Sequence[int]],
    *,
    locs: Mapping[Key, Loc] | None = None,
    prior: Iterable[DieRoll] = (),
    by: Callable[[str | None], str],
) -> Dice:
    """A call's dice: its own stream of the session's seed (or the CSPRNG); a verifiable
    session's derived at their place in round `number` (after `prior`, the round's dice rolled
    by earlier calls), each supplied roll marked with who supplied it (`by`)."""
    seeding = verifiable.seeding(record)
    if isinstance(seeding, verifiable.Derivation):
        return Dice(seeding.rng(number, prior), supplied, locs=locs, by=by)
    rng: Rng = SystemRng() if seeding is None else SeededRng(seeding, stream)
    return Dice(rng, supplied, locs=locs)


# --- presentation ----------------------------------------------------------------------------
# The JSON of a config, state, result and round record is built here from the dataclasses;
# the summary lines are the rules' (`round_summary`, `skill_checks_summary`) plus `describe`.


class _Ending(TypedDict, total=False):
    """A config's end conditions, each shown only when set."""

    goal: int
    max_rounds: int


class _Cost(TypedDict, total=False):
    cost: int


class _Tier(TypedDict, total=False):
    min_margin: int


class _Margin(TypedDict, total=False):
    margin: int
    tier: int


class _RoundOptions(TypedDict, total=False):
    """The keys of a round record shown only sometimes (`grants`: the reveal adds them)."""

    bids: dict[str, int]
    order: list[str]
    winner: str | None
    grants: list[SkillGameGrantRecord]


def public_config(config: rules.Config) -> SkillGameConfig:
    """The config as served and stored: the create body normalised (docs/api.md#skill-games).

    `serial.load(rules.Config, public_config(config)) == config`.
    """
    ending: _Ending = {}
    if config.goal is not None:
        ending["goal"] = config.goal
    if config.max_rounds is not None:
        ending["max_rounds"] = config.max_rounds
    return {
        "dc": config.dc,
        "skill_list": list(config.skill_list),
        "skills_per_round": config.skills_per_round,
        "kind": config.kind,
        "max_actions_per_round": config.max_actions_per_round,
        "actions": [_action_config(action) for action in config.actions],
        **ending,
        "token_rule": config.token_rule,
        "parties": [_party_config(party) for party in config.parties],
    }


def _action_config(action: rules.Action) -> SkillGameActionConfig:
    cost: _Cost = {} if action.cost is None else {"cost": action.cost}
    return {
        "name": action.name,
        **cost,
        "effects": [_effect_config(effect) for effect in action.effects],
    }


def _effect_config(effect: rules.Effect) -> SkillGameEffectConfig:
    tier: _Tier = {} if effect.min_margin is None else {"min_margin": effect.min_margin}
    return {
        **tier,
        "text": effect.text,
        "progress": effect.progress,
        "tokens": effect.tokens,
        "target": effect.target,
    }


def _party_config(party: rules.Party) -> SkillGamePartyConfig:
    shown: SkillGamePartyConfig = serial.dump(party)
    return shown


def public_state(state: rules.State) -> SkillGameState:
    """docs/api.md#skill-games state: which parties submitted, never what
    (docs/rules.md#sealed-choices)."""
    return {
        "phase": state.phase,
        "tokens": {party: state.tokens[party] for party in state.parties},
        "progress": {party: state.progress[party] for party in state.parties},
        "skills_done": list(state.skills_done),
        "submitted": list(state.submitted),
        "round": state.round,
        "finished": state.finished,
        "winner": state.winner,
    }


def result(config: rules.Config, state: rules.State) -> SkillGameResult | None:
    """The finished game's result (docs/api.md#skill-games), else None."""
    if not state.finished:
        return None
    return {
        "winner": state.winner,
        "tie": state.tie,
        "progress": {party: state.progress[party] for party in config.party_names},
        "tokens": {party: state.tokens[party] for party in config.party_names},
        "reason": state.reason,
    }


def checks_record(checks: Iterable[rules.SkillCheck]) -> dict[str, SkillGameCheck]:
    """A party's checks by skill: `{skill: {"best", "by", "token"}}`."""
    return {
        check.skill: {"best": check.best, "by": check.by, "token": check.token} for check in checks
    }


def choice_record(choice: rules.Choice) -> SkillGameBid | SkillGamePurchase:
    """A choice as the round record reveals it (docs/api.md#skill-games)."""
    if choice.bid is None:
        return {"actions": list(choice.actions)}
    return {"action": choice.actions[0], "bid": choice.bid}


def _taken(effect: rules.TakenEffect) -> SkillGameTakenEffect:
    bidding: _Margin = {}
    if effect.margin is not None:
        bidding["margin"] = effect.margin
    if effect.tier is not None:
        bidding["tier"] = effect.tier
    return {"party": effect.party, "action": effect.action, **bidding, "text": effect.text}


def round_outcome(played: rules.Round) -> SkillGameRoundOutcome:
    """A revealed round's record without `number`, `grants`, `rolls` and `summary`."""
    bids: _RoundOptions = {} if played.bids is None else {"bids": dict(played.bids)}
    order: _RoundOptions = {} if played.order is None else {"order": list(played.order)}
    winner: _RoundOptions = {"winner": played.winner} if played.finished else {}
    return {
        "checks": {party: checks_record(checks) for party, checks in played.checks.items()},
        **bids,
        "choices": {party: choice_record(choice) for party, choice in played.choices.items()},
        **order,
        "effects": [_taken(effect) for effect in played.effects],
        "tokens": dict(played.tokens),
        "progress": dict(played.progress),
        "finished": played.finished,
        **winner,
    }


def acting_parties(record: Mapping[str, Any]) -> frozenset[str]:
    """The parties of a revealed bidding round that took their action (docs/rules.md#bidding):
    the single highest bidder, or the tied highest bidders in `order` (those with a margin-0
    tier). Everyone sees their actions; every other party's action is its own and the GM's."""
    bids: Mapping[str, int] = record["bids"]
    top = max(bids.values())
    leaders = [party for party, bid in bids.items() if bid == top]
    if len(leaders) == 1:
        return frozenset(leaders)
    return frozenset(record.get("order") or ())


def round_shown_to(record: Mapping[str, Any], party: str) -> Mapping[str, Any]:
    """A revealed round's record as `party`'s token reads it (docs/rules.md#bidding).

    The parties "reveal the number of tokens they bid, but not the actions they chose": in a
    bidding game every bid shows, and the action of each party that took it; another party's
    action that was not taken (a losing bid, or a tied bid without a margin-0 tier) is left out
    of its choice, which shows its `bid` alone. An option game reveals every action.
    """
    hidden = hidden_parties(record)
    if not hidden:
        return record
    choices: Mapping[str, Mapping[str, Any]] = record["choices"]
    shown = {
        name: {"bid": choice["bid"]} if name in hidden and name != party else choice
        for name, choice in choices.items()
    }
    return {**record, "choices": shown}


#: In a verifiable bidding game's stored round inputs: each losing party's salt, which seals
#: its action in the chain and in every proof (docs/verifiable-dice.md#sealed-choices).
SEALS = "seals"


def hidden_parties(record: Mapping[str, Any]) -> list[str]:
    """The parties whose action a revealed round shows to themselves and the GM alone (a
    bidding game's losing bids, `round_shown_to`)."""
    if record.get("bids") is None:
        return []
    acting = acting_parties(record)
    return [name for name in record["choices"] if name not in acting]


def chained_round(inputs: Mapping[str, Any], outcome: Mapping[str, Any]) -> tuple[Any, Any]:
    """A sealed round's inputs and outcome as the chain covers them: each hidden choice
    `{"bid", "seal"}`, its action sealed with its salt (`verifiable.seal`), the salts left out."""
    seals: Mapping[str, str] = inputs[SEALS]

    def sealing(choices: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        return {
            name: (
                {"bid": choice["bid"], "seal": seal_of(choice["action"], seals[name])}
                if name in seals
                else dict(choice)
            )
            for name, choice in choices.items()
        }

    chained_inputs = {key: value for key, value in inputs.items() if key != SEALS}
    chained_inputs["choices"] = sealing(inputs["choices"])
    return chained_inputs, {**outcome, "choices": sealing(outcome["choices"])}


def seal_of(action: str, salt: str) -> str:
    """The seal of a hidden action (docs/verifiable-dice.md#sealed-choices)."""
    return seal({"action": action, "salt": salt})


def proof_round_shown_to(stored: Mapping[str, Any], party: str | None) -> dict[str, Any]:
    """A proof's round as `party`'s token (None: the GM's) reads it: a sealed round in its
    chained form, with the openings (`{party: {"action", "salt"}}`) of the hidden choices that
    reader may see: every one for the GM, its own for a party, none for another. A round
    stored before choices were sealed is shown as it was chained, whole."""
    inputs = stored["inputs"]
    seals = inputs.get(SEALS) if isinstance(inputs, Mapping) else None
    if not seals:
        return dict(stored)
    chained_inputs, chained_outcome = chained_round(inputs, stored["outcome"])
    choices = stored["outcome"]["choices"]
    openings = {
        name: {"action": choices[name]["action"], "salt": salt}
        for name, salt in seals.items()
        if party is None or name == party
    }
    shown = {**stored, "inputs": chained_inputs, "outcome": chained_outcome}
    if openings:
        shown["openings"] = openings
    return shown


def _standings(party_names: Sequence[str], values: Mapping[str, int]) -> Listing:
    return Listing([m("{name} {score}", name=party, score=values[party]) for party in party_names])


def describe(config: rules.Config, state: rules.State) -> Message:
    """The session's one line: phase and who is awaited, never what anyone sealed."""
    return rules.session_message(config, state)


# --- the kind ------------------------------------------------------------------------------

CREATE_EXAMPLE: dict[str, Any] = {
    "dc": 15,
    "skill_list": ["Athletics", "Stealth", "Persuasion"],
    "skills_per_round": 2,
    "kind": "bidding",
    "actions": [
        {
            "name": "Charge",
            "effects": [
                {"min_margin": 0, "text": "A scramble forward.", "progress": 1},
                {"min_margin": 2, "text": "A clean break.", "progress": 2},
            ],
        },
        {"name": "Rally", "effects": [{"text": "Second wind.", "tokens": 2}]},
    ],
    "goal": 6,
    "max_rounds": 10,
    "parties": [
        {
            "name": "Heroes",
            "controller": "players",
            "members": [{"name": "Ann", "skills": {"Athletics": 5, "Stealth": 2}}],
        },
        {
            "name": "Bandits",
            "controller": "gm",
            "members": [{"name": "Rook", "skills": {"Stealth": 6}}],
        },
    ],
}


async def odds_at_choices(
    config: rules.Config, stored: StoredGame, body: OddsSkillGameChoicesRequest
) -> OddsSkillGameChoicesAnswer:
    """For each option (a party's skills for this round, checked as the skills call checks
    them now), the exact token odds of that choice; the large ones in the odds worker."""
    config_json = as_json(config)
    answers: list[OddsSkillGameTokensAnswer] = []
    for index, option in enumerate(body.options):
        move = option.move
        where = ("options", index, "move")
        if move.rolls is not None:
            raise RulesError(N_("an option's dice are unknown: leave out rolls"), (*where, "rolls"))
        try:
            skill_odds.check_choice(config, stored.game, move.party, move.skills)
        except RulesError as error:
            raise error.located_under(where) from None
        side = config.party(move.party)
        assert side is not None  # checked
        question = (config_json, move.party, tuple(move.skills))
        if len(side.members) * len(move.skills) <= INLINE_TOKEN_CHECKS:
            found = inline_cached(tokens_from_json, *question)
        else:
            found = await off_loop(tokens_from_json, *question)
        answers.append(odds_in_language(found, tokens_said(found)))
    options: list[OddsSkillGameChoice] = [
        {
            "label": option.label or f"{option.move.party}: {', '.join(option.move.skills)}",
            "move": option.move.model_dump(mode="json", exclude_unset=True),
            "odds": odds,
        }
        for option, odds in zip(body.options, answers, strict=True)
    ]
    expected = [
        option["odds"]["parties"][option["move"]["party"]]["expected_tokens"] for option in options
    ]
    ranked = best_and_summary(
        options,
        expected,
        lambda option, tokens: m(
            "{label}: {tokens} tokens expected", label=option["label"], tokens=Fixed(tokens)
        ),
    )
    return {"options": options, "best": ranked["best"], "summary": ranked["summary"]}


CHOICES: ChoiceOdds[rules.Config, StoredGame] = ChoiceOdds(
    OddsSkillGameChoicesRequest,
    OddsSkillGameChoicesAnswer,
    "oddsSkillGameChoices",
    {
        "which two skills": {
            "options": [
                {"move": {"party": "Heroes", "skills": ["Athletics", "Stealth"]}},
                {"label": "talk", "move": {"party": "Heroes", "skills": ["Stealth", "Persuasion"]}},
            ]
        }
    },
    odds_at_choices,
)


class SkillGames(ContestKind[rules.Config, "StoredGame"]):
    """Legend skill games, played in phases: no plain rounds; skills, sealed choices, grants
    and end instead (its own routes)."""

    path: str = "skill-games"
    title: str = "skill game"
    rule: str = "docs/rules.md#skill-games"
    config_type: type[rules.Config] = rules.Config
    state_type: type[StoredGame] = StoredGame
    create_model: type[BaseModel] = SkillGameCreate
    dice_model: type[BaseModel] = SkillGameOrderDice
    events: tuple[LiveEvent, ...] = (
        LiveEvent("skills", "SkillGameSkillsAnswer", "`POST …/skills`"),
        LiveEvent("submitted", "SkillGameSealed", "`POST …/choices` answering 202"),
        LiveEvent("revealed", "SkillGameRevealed", "`POST …/choices` answering 200"),
        LiveEvent("granted", "SkillGameGranted", "`POST …/grants`"),
        LiveEvent("ended", "SkillGameEnded", "`POST …/end`"),
    )
    schemas: Schemas = Schemas(
        config=SkillGameConfig,
        state=SkillGameState,
        result=SkillGameResult,
        round=SkillGameRound,
        session=SkillGameSession,
    )
    examples: Examples = Examples(create=CREATE_EXAMPLE)
    odds: SessionOdds[rules.Config, StoredGame] | None = None
    round_view: RoundView | None = RoundView(round_shown_to, proof_round_shown_to)
    choices: ChoiceOdds[rules.Config, StoredGame] | None = CHOICES

    def start(self, body: SkillGameCreate, dice: Dice) -> tuple[rules.Config, StoredGame]:
        config = body.to_rules()
        rules.check_config(config)
        return config, StoredGame(rules.start(config, dice))

    def parties(self, config: rules.Config) -> tuple[str, ...]:
        return config.party_names

    def finished(self, state: StoredGame) -> bool:
        return state.game.finished

    def result(self, config: rules.Config, state: StoredGame) -> SkillGameResult | None:
        return result(config, state.game)

    def public_config(self, config: rules.Config) -> SkillGameConfig:
        return public_config(config)

    def public_state(self, _config: rules.Config, state: StoredGame) -> SkillGameState:
        return public_state(state.game)

    def extra_routes(self) -> Sequence[BaseRoute]:
        router = kind_router(self)
        router.add_api_route(
            "/{session_id}/skills",
            declare_body(
                choose_skills,
                SkillGameSkills,
                {
                    "skills": {
                        "party": "Heroes",
                        "skills": ["Athletics", "Stealth"],
                        "rolls": {"Ann": {"Athletics": 14}},
                    }
                },
            ),
            methods=["POST"],
            responses=message_doc(model=SkillGameSkillsAnswer),
            summary="Choose a party's skills and roll its checks",
            operation_id="chooseSkillGameSkills",
        )
        router.add_api_route(
            "/{session_id}/choices",
            declare_body(
                seal_choice,
                SkillGameChoice,
                {
                    "bidding": {"party": "Heroes", "action": "Charge", "bid": 2},
                    "option": {"party": "Heroes", "actions": ["Charge"]},
                },
            ),
            methods=["POST"],
            status_code=202,
            responses={
                **message_doc(202, model=SkillGameSealed),
                200: {
                    **message_doc(model=SkillGameRevealed)[200],
                    "description": "The last choice: the round is revealed and resolved",
                },
            },
            summary="Seal a party's choice; the last one reveals the round",
            operation_id="sealSkillGameChoice",
        )
        router.add_api_route(
            "/{session_id}/choices/{party}",
            own_choice,
            methods=["GET"],
            responses=message_doc(model=SkillGameOwnChoice),
            summary="A party's own sealed choice, read back (its token; GM for GM parties)",
            operation_id="readSkillGameOwnChoice",
        )
        router.add_api_route(
            "/{session_id}/grants",
            declare_body(
                grant_tokens,
                SkillGameGrant,
                {"grant": {"party": "Heroes", "tokens": 2, "reason": "A rousing speech"}},
            ),
            methods=["POST"],
            responses=message_doc(model=SkillGameGranted),
            summary="Grant a party tokens (GM)",
            operation_id="grantSkillGameTokens",
        )
        router.add_api_route(
            "/{session_id}/end",
            declare_body(
                end_game,
                SkillGameEnd,
                {"end": {}, "with a reason": {"reason": "Dawn breaks"}},
                default=NO_REASON,
            ),
            methods=["POST"],
            responses=message_doc(model=SkillGameEnded),
            summary="End a skill game (GM)",
            operation_id="endSkillGame",
        )
        return router.routes

    def round_card(self, config: rules.Config, record: Mapping[str, Any]) -> RoundCard | None:
        if "checks" not in record:
            return None
        return skill_game_card(config, record)

    def describe(self, config: rules.Config, state: StoredGame) -> Message:
        return describe(config, state.game)


KIND = SkillGames()


# --- who may act -----------------------------------------------------------------------------


def _acting_for(
    body: DeferredBody[SkillGameSkills] | DeferredBody[SkillGameChoice], *, sealing: bool
) -> Authorize:
    """A party's own token, or the GM's; sealing a choice the GM does only for its parties.

    The party is the one the (by then validated) body names.
    """

    def authorize(role: Role, record: SessionRecord) -> None:
        party = body.value.party
        if not role.is_gm and role.party != party:
            raise Forbidden(N_("this token acts for another party"))
        side = serial.load(rules.Config, record.config).party(party)
        if side is None:
            raise RulesError(N_("not a party of this skill game"), ("party",))
        if sealing and role.is_gm and side.controller != "gm":
            raise Forbidden(N_("a players' party seals its choice with its own token"))

    return authorize


# --- skills --------------------------------------------------------------------------------


def _skill_dice(
    config: rules.Config, body: SkillGameSkills
) -> tuple[dict[Key, list[int]], dict[Key, Loc]]:
    """Supplied `{member: {skill: d20}}`: members of this party, skills it chose."""
    party = config.party(body.party)
    members = {member.name for member in party.members} if party is not None else set()
    supplied: dict[Key, list[int]] = {}
    locs: dict[Key, Loc] = {}
    for member, by_skill in (body.rolls or {}).items():
        if member not in members:
            raise RulesError(
                m("{member} is not a member of {party}", member=repr(member), party=body.party),
                ("rolls", member),
            )
        for skill, value in by_skill.items():
            if skill not in body.skills:
                raise RulesError(
                    m("{skill} is not one of the skills chosen", skill=repr(skill)),
                    ("rolls", member, skill),
                )
            supplied[(member, skill)] = [value]
            locs[(member, skill)] = ("rolls", member, skill)
    return supplied, locs


async def choose_skills(
    request: Request, session_id: str, body: DeferredBody[SkillGameSkills]
) -> Response:
    """A party's skills for this round and its members' checks (that party's token or GM)."""

    def mutation(record: SessionRecord, role: Role) -> Change[StoredGame]:
        sent = body.value
        require_active(record, "the skill game")
        config, stored = _load(record)
        pending = stored.pending
        number = record.rounds_played + 1
        supplied, locs = _skill_dice(config, sent)
        by = verifiable.supplier(role)
        dice = _dice(
            record,
            f"round:{number}:skills:{sent.party}",
            number,
            supplied,
            locs=locs,
            prior=pending.round_rolls,
            by=lambda _who: by,
        )
        after, outcome = rules.choose_skills(config, stored.game, sent.party, sent.skills, dice)
        dice.require_all_used()
        kept = Pending((*pending.round_rolls, *dice.log), pending.order_dice, pending.grants)
        said = m(
            "Round {number}: {line}",
            number=number,
            line=rules.skill_checks_message(config, outcome),
        )
        if after.phase == "choices":
            said = m("{line} Every party has its checks; sealed choices are due.", line=said)
        return Change(
            StoredGame(after, kept),
            "active",
            None,
            answer=lambda updated: (
                200,
                {
                    "party": sent.party,
                    "checks": checks_record(outcome.checks),
                    "tokens_earned": outcome.tokens_earned,
                    "rolls": roll_records(dice.log),
                    "session": session_answer(KIND, updated),
                    "summary": i18n.said(said),
                },
            ),
            event="skills",
        )

    return await mutate(
        request,
        KIND,
        session_id,
        mutation,
        authorize=_acting_for(body, sealing=False),
        body=body,
    )


# --- sealed choices and the reveal ----------------------------------------------------------


def _order_dice(body: SkillGameChoice) -> tuple[int, ...] | None:
    """The submitting party's own order d20s; naming another party is a rules error."""
    if not body.rolls:
        return None
    values: tuple[int, ...] | None = None
    for party, dice in body.rolls.items():
        if party != body.party:
            raise RulesError(N_("a party supplies only its own order die"), ("rolls", party))
        values = (dice.order,) if isinstance(dice.order, int) else tuple(dice.order)
    return values


def _reveal(
    record: SessionRecord,
    config: rules.Config,
    sealed: rules.State,
    pending: Pending,
    role: Role,
) -> Change[StoredGame]:
    """Reveal and resolve the round; the record lists every die of the round (see module).

    The answer shows the round as the submitting token reads it (`round_shown_to`); the live
    event carries it whole, for each stream to show as its own token reads it."""
    number = record.rounds_played + 1
    supplied: dict[Key, list[int]] = {
        (party, rules.ORDER_PURPOSE): list(values) for party, values in pending.order_dice.items()
    }
    dice = _dice(
        record,
        f"round:{number}:reveal",
        number,
        supplied,
        prior=pending.round_rolls,
        by=lambda party: _order_supplier(config, party),
    )
    after, revealed = rules.reveal(config, sealed, dice)
    # Order dice without a tie to break are reported with the revealed round (`unused`),
    # never refused (see the module docstring).
    said = m(
        "Round {number}: {line}", number=number, line=rules.round_message(config, after, revealed)
    )
    summary = english(said)
    shown = round_outcome(revealed)
    if pending.grants:
        shown["grants"] = [_grant_record(grant) for grant in pending.grants]
    built: dict[str, Any] = {
        "number": number,
        **shown,
        "rolls": roll_records((*pending.round_rolls, *dice.log)),
    }
    unused = dice.leftovers(ended=False)  # an order die is never reached for want of a tie
    if unused:
        built["unused"] = unused_records(unused)
    built["summary"] = summary
    outcome = cast(SkillGameRound, built)
    inputs = {
        "skills": {
            party: [check.skill for check in checks] for party, checks in revealed.checks.items()
        },
        "choices": {party: choice_record(choice) for party, choice in revealed.choices.items()},
        "order_dice": {party: list(values) for party, values in pending.order_dice.items()},
    }
    stored_outcome: dict[str, Any] = dict(outcome)
    hidden = hidden_parties(stored_outcome) if verifiable.block(record) is not None else []
    if hidden:
        inputs[SEALS] = {party: new_salt() for party in hidden}
    shown_outcome = (
        stored_outcome
        if role.is_gm or role.party is None
        else round_shown_to(stored_outcome, role.party)
    )

    def whole(updated: SessionRecord) -> dict[str, Any]:
        return {"round": outcome, "session": session_answer(KIND, updated), "summary": summary}

    return Change(
        StoredGame(after, Pending()),
        "finished" if after.finished else "active",
        result(config, after),
        [
            StoredRound(
                number,
                inputs,
                stored_outcome["rolls"],
                stored_outcome,
                chained=chained_round(inputs, stored_outcome) if hidden else None,
                said=said,
            )
        ],
        answer=lambda updated: (200, in_language(whole(updated), shown_outcome, i18n.said(said))),
        event="revealed",
        event_answer=whole,
    )


def in_language(whole: dict[str, Any], shown: Mapping[str, Any], summary: str) -> dict[str, Any]:
    """A revealed round's answer as the token reads it, its summaries in the request's
    language (the stored round and its live event keep the English line)."""
    return {**whole, "round": {**shown, "summary": summary}, "summary": summary}


def _order_supplier(config: rules.Config, party: str | None) -> str:
    """Who supplied a party's order dice: the party's own token seals its choice, the GM's
    only a GM party's."""
    side = config.party(party) if party is not None else None
    return "gm" if side is None or side.controller == "gm" else f"party:{party}"


def _grant_record(grant: Grant) -> SkillGameGrantRecord:
    return {"party": grant.party, "tokens": grant.tokens, "reason": grant.reason}


async def seal_choice(
    request: Request, session_id: str, body: DeferredBody[SkillGameChoice]
) -> Response:
    """Seal a party's choice (its token; GM for GM parties); the last one reveals the round."""

    def mutation(record: SessionRecord, role: Role) -> Change[StoredGame]:
        sent = body.value
        require_active(record, "the skill game")
        config, stored = _load(record)
        pending = stored.pending
        order = _order_dice(sent)
        choice = sent.model_dump(include={"action", "bid", "actions"}, exclude_none=True)
        sealed = rules.submit_choice(config, stored.game, sent.party, choice)
        order_dice = {
            party: dice for party, dice in pending.order_dice.items() if party != sent.party
        }
        if order is not None:
            order_dice[sent.party] = order
        kept = Pending(pending.round_rolls, order_dice, pending.grants)
        # "Am I the last?" is decided on the version this change applies to; the store
        # serialises writers of one session, so only one submission can reveal.
        if rules.all_submitted(sealed):
            return _reveal(record, config, sealed, kept, role)
        waiting = rules.waiting_for(sealed)
        said = m(
            "{party} has sealed its choice; waiting for {waiting}.",
            party=sent.party,
            waiting=Listing(waiting),
        )
        return Change(
            StoredGame(sealed, kept),
            "active",
            None,
            answer=lambda updated: (
                202,
                {
                    "submitted": True,
                    "party": sent.party,
                    "waiting_for": waiting,
                    "session": session_answer(KIND, updated),
                    "summary": i18n.said(said),
                },
            ),
            event="submitted",
        )

    return await mutate(
        request,
        KIND,
        session_id,
        mutation,
        authorize=_acting_for(body, sealing=True),
        body=body,
    )


class SkillGameOwnChoice(TypedDict):
    """A party's own sealed choice of the round in progress (null: none sealed yet)."""

    party: str
    round: int
    choice: dict[str, Any] | None


async def own_choice(request: Request, session_id: str, party: str) -> Response:
    """A party's sealed choice read back by that party's token (a page reloaded before the
    reveal); the GM's token reads it only for a GM-run party. Another token: 404 for a
    stranger, 403 for another party."""
    token = bearer_token(request)

    async def transaction(
        connection: Transaction,
        now: datetime | None,  # noqa: ARG001 - a skill game has no deadline to settle
    ) -> SkillGameOwnChoice:
        record = await repository.get_session(connection, session_id, KIND.path, lock=False)
        role = None if record is None else role_of(token, record)
        if record is None or role is None:
            raise not_found(KIND.title, session_id)
        config, stored = _load(record)
        side = config.party(party)
        if side is None:
            raise NotFound(m("no party {party} in this skill game", party=repr(party)))
        if role.is_gm and side.controller != "gm":
            raise Forbidden(N_("a players' party's sealed choice is its own to read"))
        if not role.is_gm and role.party != party:
            raise Forbidden(N_("this token reads another party's choice"))
        sealed = stored.game.choices.get(party)
        shown: dict[str, Any] | None = None
        if sealed is not None:
            shown = (
                {"actions": list(sealed.actions)}
                if sealed.bid is None
                else {"action": sealed.actions[0], "bid": sealed.bid}
            )
        return {"party": party, "round": stored.game.round, "choice": shown}

    answer = await settled_read(request, KIND, session_id, transaction)
    return respond(request, answer, 200, {"Cache-Control": "no-store"})


# --- the GM --------------------------------------------------------------------------------


async def grant_tokens(
    request: Request, session_id: str, body: DeferredBody[SkillGameGrant]
) -> Response:
    """The GM grants a party tokens (or takes some with a negative grant)."""

    def mutation(record: SessionRecord, _role: Role) -> Change[StoredGame]:
        sent = body.value
        require_active(record, "the skill game")
        config, stored = _load(record)
        pending = stored.pending
        after = rules.grant(config, stored.game, sent.party, sent.tokens)
        grant = Grant(sent.party, sent.tokens, sent.reason)
        kept = Pending(pending.round_rolls, pending.order_dice, (*pending.grants, grant))
        standings = _standings(config.party_names, after.tokens)
        said = (
            ng(
                "The GM grants {party} {count} token: {reason}. Tokens: {tokens}.",
                "The GM grants {party} {count} tokens: {reason}. Tokens: {tokens}.",
                sent.tokens,
                party=sent.party,
                reason=sent.reason,
                tokens=standings,
            )
            if sent.tokens >= 0
            else ng(
                "The GM takes from {party} {count} token: {reason}. Tokens: {tokens}.",
                "The GM takes from {party} {count} tokens: {reason}. Tokens: {tokens}.",
                -sent.tokens,
                party=sent.party,
                reason=sent.reason,
                tokens=standings,
            )
        )
        return Change(
            StoredGame(after, kept),
            "active",
            None,
            answer=lambda updated: (
                200,
                {
                    "grant": _grant_record(grant),
                    "session": session_answer(KIND, updated),
                    "summary": i18n.said(said),
                },
            ),
            event="granted",
        )

    return await mutate(request, KIND, session_id, mutation, authorize=gm_only, body=body)


#: `…/end` with no body: no reason given.
NO_REASON = SkillGameEnd()


async def end_game(request: Request, session_id: str, body: DeferredBody[SkillGameEnd]) -> Response:
    """The GM ends the game: highest progress wins; sealed choices are discarded unrevealed."""

    def mutation(record: SessionRecord, _role: Role) -> Change[StoredGame]:
        sent = body.value
        require_active(record, "the skill game")
        config, stored = _load(record)
        pending = stored.pending
        after = rules.end(config, stored.game)
        # The unrevealed round's skill dice stay stored; its sealed content does not.
        kept = Pending(pending.round_rolls, {}, pending.grants)
        reason = sent.reason

        def answer(updated: SessionRecord) -> tuple[int, dict[str, Any]]:
            session = session_answer(KIND, updated)
            if not reason:
                return 200, {"session": session, "summary": session["summary"]}
            # The reason is the GM's own words, in no language of ours.
            said = m("{summary} ({reason})", summary=session["summary"], reason=reason)
            return 200, {"session": session, "summary": i18n.said(said)}

        return Change(
            StoredGame(after, kept), "finished", result(config, after), answer=answer, event="ended"
        )

    return await mutate(request, KIND, session_id, mutation, authorize=gm_only, body=body)


def skill_game_card(config: rules.Config, record: Mapping[str, Any]) -> RoundCard:
    """A skill game's revealed round as a card: each party's best check for each skill it
    chose against the DC (a token when it beat it), the tokens its checks earned and what it
    holds after the reveal, and how far the round's effects moved its progress. Never a
    sealed choice: only the effects that took place, which every party sees
    (docs/rules.md#bidding)."""
    rolls = Rolls(record)
    dice: list[CardDie] = []
    changes: list[CardChange] = []
    checks: Mapping[str, Mapping[str, Mapping[str, Any]]] = record.get("checks") or {}
    tokens: Mapping[str, int] = record.get("tokens") or {}
    progress: Mapping[str, int] = record.get("progress") or {}
    taken = [
        rules.TakenEffect(
            str(effect["party"]),
            str(effect["action"]),
            str(effect.get("text", "")),
            effect.get("margin"),
            effect.get("tier"),
        )
        for effect in record.get("effects") or ()
    ]
    moved = rules.progress_moved(config, taken)
    parts: list[Argument] = []
    # In the config's order: a stored record's keys may come back in another (PostgreSQL).
    for party in [item.name for item in config.parties if item.name in checks]:
        by_skill = checks[party]
        mine = []
        for skill in [skill for skill in config.skill_list if skill in by_skill]:
            check = by_skill[skill]
            best = int(check["best"])
            mine.append(
                rolls.check(
                    str(check["by"]),
                    skill,
                    roll=None,
                    total=best,
                    against={"dc": config.dc},
                    margin=best - config.dc,
                    success=bool(check["token"]),
                )
            )
        dice.extend(mine)
        earned = sum(1 for check in by_skill.values() if check["token"])
        if party in tokens:
            changes.append(change(party, "tokens", earned, tokens[party]))
        if party in progress:
            changes.append(change(party, "progress", moved.get(party, 0), progress[party]))
        parts.append(
            ng(
                "{party}: {checks} → {count} token (progress {progress})",
                "{party}: {checks} → {count} tokens (progress {progress})",
                earned,
                party=party,
                checks=Listing([die["text"] for die in mine]),
                progress=Signed(moved.get(party, 0)),
            )
        )
    dice.extend(rolls.rest())
    text: Message = Message("{parts}", {"parts": Listing(parts, "; ")})
    if taken:
        # Each effect's words apart from the line's: the catalogs' extraction reads a
        # message's template, not one written among another's arguments.
        effects = [m("{party}: {action}", party=item.party, action=item.action) for item in taken]
        text = m("{line}. Taken: {effects}", line=text, effects=Listing(effects))
    winner = record.get("winner")
    return card(
        record, dice, changes, winner=winner if isinstance(winner, str) else None, text=text
    )
