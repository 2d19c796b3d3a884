"""Legend skill games as sessions, with sealed choices (API.md "Skill games", RULES.md §4).

A round has no single "play" call: each party posts its skills (`/skills`), then seals a
choice (`/choices`); the submission that completes the set reveals and resolves the round in
the same locked transaction (`mutate` serialises the writers of one session), so the reveal
happens exactly once however the last submissions race.

**Stored state** is the rules' `state_to_dict` (sealed choices included) plus what the round
has gathered so far and must not show before the reveal:
- `round_rolls`: every skill-check die of the round, in the order rolled (call by call);
- `order_dice`: each party's own supplied order d20s, kept with its sealed choice;
- `grants`: the GM's grants since the last reveal.
The revealed round's record lists `rolls` = the skill-check dice, then the order d20s, so
every die of a round is in its record. Responses show only `public_state`: who has
submitted, never what.

**Seeded dice.** `round_dice` derives from (seed, round number) alone, which cannot tell apart
the skills calls of different parties in one round, so each call has its own stream of the
session's seed: `SeededRng(seed, "round:{n}:skills:{party}")` for a party's skill checks and
`SeededRng(seed, "round:{n}:reveal")` for the order d20s, where n is the round being played
(rounds played + 1). The same game with the same seed and calls rolls the same dice.

**Order dice** are supplied by each party for itself with its choice. Unused ones (no tie)
are dropped silently: refusing them would tell the last submitter, before anything is
final, whether the highest bids tied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from starlette.responses import Response

from app.api.common import body_doc, parse_body
from app.api.schemas.skill_games import (
    SkillGameChoice,
    SkillGameCreate,
    SkillGameEnd,
    SkillGameGrant,
    SkillGameSkills,
)
from app.api.security import Role
from app.api.sessions import (
    Authorize,
    Change,
    Created,
    SessionKind,
    StoredRound,
    Work,
    gm_only,
    mutate,
    session_body,
    session_router,
)
from app.errors import Conflict, Forbidden
from app.rules import skill_games as rules
from app.rules.dice import Dice, Key, Rng, SeededRng, SystemRng
from app.rules.errors import Loc, RulesError
from app.store.repository import SessionRecord

# --- what the store keeps beside the rules' state ------------------------------------------


@dataclass(frozen=True, slots=True)
class Pending:
    """What the round in progress has gathered that only its reveal may show."""

    round_rolls: list[dict[str, Any]] = field(default_factory=list)
    order_dice: dict[str, list[int]] = field(default_factory=dict)
    grants: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def read(cls, stored: Mapping[str, Any]) -> Pending:
        return cls(
            list(stored.get("round_rolls", [])),
            {party: list(values) for party, values in stored.get("order_dice", {}).items()},
            list(stored.get("grants", [])),
        )


def _stored(state: rules.State, pending: Pending) -> dict[str, Any]:
    return {
        **rules.state_to_dict(state),
        "round_rolls": pending.round_rolls,
        "order_dice": pending.order_dice,
        "grants": pending.grants,
    }


def _load(record: SessionRecord) -> tuple[rules.Config, rules.State, Pending]:
    return (
        rules.config_from_dict(record.config),
        rules.state_from_dict(record.state),
        Pending.read(record.state),
    )


def _rng(seed: int | None, stream: str) -> Rng:
    return SystemRng() if seed is None else SeededRng(seed, stream)


# --- the kind ------------------------------------------------------------------------------


def create(body: SkillGameCreate, dice: Dice) -> Created:
    config = rules.config_from_dict(body.model_dump(exclude={"seed"}, exclude_none=True))
    state = rules.start(config, dice)
    return Created(
        rules.config_to_dict(config), _stored(state, Pending()), parties=config.party_names
    )


def public_state(_config: dict[str, Any], state_data: dict[str, Any]) -> dict[str, Any]:
    return rules.public_state(rules.state_from_dict(state_data))


def _standings(party_names: Sequence[str], values: Mapping[str, int]) -> str:
    return ", ".join(f"{party} {values[party]}" for party in party_names)


def describe(
    config_data: dict[str, Any], state_data: dict[str, Any], outcome: dict[str, Any] | None
) -> str:
    """The session's one line: phase and who is awaited, never what anyone sealed."""
    names = [party["name"] for party in config_data["parties"]]
    state = rules.state_from_dict(state_data)
    head = f"Skill game ({config_data['kind']}, DC {config_data['dc']})"
    standing = (
        f"Progress: {_standings(names, state.progress)}. Tokens: {_standings(names, state.tokens)}."
    )
    if outcome is not None:
        why = {
            "goal": "goal reached",
            "max_rounds": "last round played",
            "ended": "ended by the GM",
        }
        cause = why.get(str(outcome.get("reason")), "over")
        verdict = f"{outcome['winner']} wins" if outcome.get("winner") is not None else "a tie"
        return f"{head} over after {state.rounds_played} round(s): {verdict} ({cause}). {standing}"
    waiting = ", ".join(rules.waiting_for(state))
    doing = "choosing skills" if state.phase == "skills" else "sealing choices"
    return f"{head}, round {state.round}: {doing}, waiting for {waiting}. {standing}"


KIND = SessionKind(
    path="skill-games",
    title="skill game",
    create_model=SkillGameCreate,
    create=create,
    public_state=public_state,
    create_example={
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
    },
    describe=describe,
)

router = session_router(KIND)


# --- who may act -----------------------------------------------------------------------------


def _controller(record: SessionRecord, party: str) -> str:
    for side in record.config["parties"]:
        if side["name"] == party:
            return str(side["controller"])
    raise RulesError("not a party of this skill game", ("party",))


def _acting_for(party: str, *, sealing: bool) -> Authorize:
    """A party's own token, or the GM's; sealing a choice the GM does only for its parties."""

    def authorize(role: Role, record: SessionRecord) -> None:
        if not role.is_gm and role.party != party:
            raise Forbidden("this token acts for another party")
        controller = _controller(record, party)
        if sealing and role.is_gm and controller != "gm":
            raise Forbidden("a players' party seals its choice with its own token")

    return authorize


def _require_active(record: SessionRecord) -> None:
    if record.status != "active":
        raise Conflict("the skill game is finished")


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
            raise RulesError(f"{member!r} is not a member of {body.party}", ("rolls", member))
        for skill, value in by_skill.items():
            if skill not in body.skills:
                raise RulesError(
                    f"{skill!r} is not one of the skills chosen", ("rolls", member, skill)
                )
            supplied[(member, skill)] = [value]
            locs[(member, skill)] = ("rolls", member, skill)
    return supplied, locs


@router.post(
    "/{session_id}/skills",
    openapi_extra=body_doc(
        SkillGameSkills,
        {
            "skills": {
                "party": "Heroes",
                "skills": ["Athletics", "Stealth"],
                "rolls": {"Ann": {"Athletics": 14}},
            }
        },
    ),
    summary="Choose a party's skills and roll its checks",
)
async def choose_skills(request: Request, session_id: str, work: Work) -> Response:
    """A party's skills for this round and its members' checks (that party's token or GM)."""
    body = await parse_body(request, SkillGameSkills)

    def mutation(record: SessionRecord, _role: Role) -> Change:
        _require_active(record)
        config, state, pending = _load(record)
        number = record.rounds_played + 1
        supplied, locs = _skill_dice(config, body)
        dice = Dice(
            _rng(record.seed, f"round:{number}:skills:{body.party}"),
            supplied,
            locs=locs,
        )
        after, outcome = rules.choose_skills(config, state, body.party, body.skills, dice)
        dice.require_all_used()
        rolled = dice.rolls()
        kept = Pending([*pending.round_rolls, *rolled], pending.order_dice, pending.grants)
        summary = f"Round {number}: {rules.skill_checks_summary(config, outcome)}"
        if after.phase == "choices":
            summary += " Every party has its checks; sealed choices are due."
        return Change(
            _stored(after, kept),
            "active",
            None,
            answer=lambda updated: (
                200,
                {
                    "party": body.party,
                    **outcome.to_dict(),
                    "rolls": rolled,
                    "session": session_body(KIND, updated),
                    "summary": summary,
                },
            ),
        )

    return await mutate(
        request, work, KIND, session_id, mutation, authorize=_acting_for(body.party, sealing=False)
    )


# --- sealed choices and the reveal ----------------------------------------------------------


def _order_dice(body: SkillGameChoice) -> list[int] | None:
    """The submitting party's own order d20s; naming another party is a rules error."""
    if not body.rolls:
        return None
    values: list[int] | None = None
    for party, dice in body.rolls.items():
        if party != body.party:
            raise RulesError("a party supplies only its own order die", ("rolls", party))
        values = [dice.order] if isinstance(dice.order, int) else list(dice.order)
    return values


def _reveal(
    record: SessionRecord, config: rules.Config, sealed: rules.State, pending: Pending
) -> Change:
    """Reveal and resolve the round; the record lists every die of the round (see module)."""
    number = record.rounds_played + 1
    supplied: dict[Key, list[int]] = {
        (party, rules.ORDER_PURPOSE): values for party, values in pending.order_dice.items()
    }
    dice = Dice(_rng(record.seed, f"round:{number}:reveal"), supplied)
    after, revealed = rules.reveal(config, sealed, dice)
    # No `require_all_used`: unused order dice are dropped (see the module docstring).
    rolls = [*pending.round_rolls, *dice.rolls()]
    summary = f"Round {number}: {rules.round_summary(config, after, revealed)}"
    grants = {"grants": pending.grants} if pending.grants else {}
    outcome = {
        "number": number,
        **revealed.to_dict(),
        **grants,
        "rolls": rolls,
        "summary": summary,
    }
    inputs = {
        "skills": {
            party: [check.skill for check in checks] for party, checks in revealed.checks.items()
        },
        "choices": {party: choice.to_dict() for party, choice in revealed.choices.items()},
        "order_dice": pending.order_dice,
    }
    return Change(
        _stored(after, Pending()),
        "finished" if after.finished else "active",
        rules.result(config, after),
        [StoredRound(number, inputs, rolls, outcome)],
        answer=lambda updated: (
            200,
            {"round": outcome, "session": session_body(KIND, updated), "summary": summary},
        ),
    )


@router.post(
    "/{session_id}/choices",
    openapi_extra=body_doc(
        SkillGameChoice,
        {
            "bidding": {"party": "Heroes", "action": "Charge", "bid": 2},
            "option": {"party": "Heroes", "actions": ["Charge"]},
        },
    ),
    status_code=202,
    responses={200: {"description": "The last choice: the round is revealed and resolved"}},
    summary="Seal a party's choice; the last one reveals the round",
)
async def seal_choice(request: Request, session_id: str, work: Work) -> Response:
    """Seal a party's choice (its token; GM for GM parties); the last one reveals the round."""
    body = await parse_body(request, SkillGameChoice)

    def mutation(record: SessionRecord, _role: Role) -> Change:
        _require_active(record)
        config, state, pending = _load(record)
        order = _order_dice(body)
        choice = body.model_dump(include={"action", "bid", "actions"}, exclude_none=True)
        sealed = rules.submit_choice(config, state, body.party, choice)
        order_dice = {
            party: dice for party, dice in pending.order_dice.items() if party != body.party
        }
        if order is not None:
            order_dice[body.party] = order
        kept = Pending(pending.round_rolls, order_dice, pending.grants)
        # "Am I the last?" is decided on the version this change applies to; the store
        # serialises writers of one session, so only one submission can reveal.
        if rules.all_submitted(sealed):
            return _reveal(record, config, sealed, kept)
        waiting = rules.waiting_for(sealed)
        summary = f"{body.party} has sealed its choice; waiting for {', '.join(waiting)}."
        return Change(
            _stored(sealed, kept),
            "active",
            None,
            answer=lambda updated: (
                202,
                {
                    "submitted": True,
                    "party": body.party,
                    "waiting_for": waiting,
                    "session": session_body(KIND, updated),
                    "summary": summary,
                },
            ),
        )

    return await mutate(
        request, work, KIND, session_id, mutation, authorize=_acting_for(body.party, sealing=True)
    )


# --- the GM --------------------------------------------------------------------------------


@router.post(
    "/{session_id}/grants",
    openapi_extra=body_doc(
        SkillGameGrant, {"grant": {"party": "Heroes", "tokens": 2, "reason": "A rousing speech"}}
    ),
    summary="Grant a party tokens (GM)",
)
async def grant_tokens(request: Request, session_id: str, work: Work) -> Response:
    """The GM grants a party tokens (or takes some with a negative grant)."""
    body = await parse_body(request, SkillGameGrant)

    def mutation(record: SessionRecord, _role: Role) -> Change:
        _require_active(record)
        config, state, pending = _load(record)
        after = rules.grant(config, state, body.party, body.tokens)
        grant = {"party": body.party, "tokens": body.tokens, "reason": body.reason}
        kept = Pending(pending.round_rolls, pending.order_dice, [*pending.grants, grant])
        verb = "grants" if body.tokens >= 0 else "takes from"
        summary = (
            f"The GM {verb} {body.party} {abs(body.tokens)} token(s): {body.reason}. "
            f"Tokens: {_standings(config.party_names, after.tokens)}."
        )
        return Change(
            _stored(after, kept),
            "active",
            None,
            answer=lambda updated: (
                200,
                {"grant": grant, "session": session_body(KIND, updated), "summary": summary},
            ),
        )

    return await mutate(request, work, KIND, session_id, mutation, authorize=gm_only)


@router.post(
    "/{session_id}/end",
    openapi_extra=body_doc(SkillGameEnd, {"end": {}, "with a reason": {"reason": "Dawn breaks"}}),
    summary="End a skill game (GM)",
)
async def end_game(request: Request, session_id: str, work: Work) -> Response:
    """The GM ends the game: highest progress wins; sealed choices are discarded unrevealed."""
    raw = await request.body()
    body = await parse_body(request, SkillGameEnd) if raw.strip() else SkillGameEnd()

    def mutation(record: SessionRecord, _role: Role) -> Change:
        _require_active(record)
        config, state, pending = _load(record)
        after = rules.end(config, state)
        outcome = rules.result(config, after)
        # The unrevealed round's skill dice stay stored; its sealed content does not.
        kept = Pending(pending.round_rolls, {}, pending.grants)
        note = f" ({body.reason})" if body.reason else ""

        def answer(updated: SessionRecord) -> tuple[int, dict[str, Any]]:
            session = session_body(KIND, updated)
            return 200, {"session": session, "summary": f"{session['summary']}{note}"}

        return Change(_stored(after, kept), "finished", outcome, answer=answer)

    return await mutate(request, work, KIND, session_id, mutation, authorize=gm_only)
