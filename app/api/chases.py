"""Chases as sessions, increment by increment (API.md "Chases", RULES.md §3.4).

The GM describes each increment's terrain in the round body; `resolve` plays one terrain over
and over with server dice, the escapee hiding whenever the `tactic_policy` says so. The escapee
and the chaser each get a party token besides the GM's: it reads the chase but may not play it.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from starlette.responses import Response

from app.api.common import body_doc, parse_body
from app.api.races import check_damage_notation
from app.api.schemas.chases import ChaseCreate, ChaseEnd, ChaseResolve, ChaseRound, ChaseTerrain
from app.api.security import Role
from app.api.sessions import (
    Change,
    Created,
    Played,
    SessionKind,
    Work,
    gm_only,
    mutate,
    session_body,
    session_router,
)
from app.rules import chases as rules
from app.rules import races
from app.rules.dice import Dice
from app.store.repository import SessionRecord

#: Kept from the stored state across rounds: the dice rolled at creation (the initiative).
START_ROLLS = "start_rolls"


def stored_state(state: rules.State, before: dict[str, Any]) -> dict[str, Any]:
    """The state to store: the rules' state, keeping the creation's `start_rolls`."""
    stored = rules.state_to_dict(state)
    if START_ROLLS in before:
        stored[START_ROLLS] = before[START_ROLLS]
    return stored


def create(body: ChaseCreate, dice: Dice) -> Created:
    """A chase at its start lead (RULES.md §3.4 "Start"); the initiative die is rolled here."""
    config = rules.config_from_dict(body.model_dump(exclude={"seed", "rolls"}, exclude_none=True))
    state = rules.start(config, dice)
    finished = rules.is_finished(state)
    return Created(
        rules.config_to_dict(config),
        rules.state_to_dict(state),
        parties=(config.escapee.name, config.chaser.name),
        status="finished" if finished else "active",
        result=rules.result(config, state),
    )


def _terrain_notation(terrain: ChaseTerrain) -> None:
    if terrain.obstacle is not None and terrain.obstacle.damage is not None:
        check_damage_notation([(("terrain", "obstacle", "damage"), terrain.obstacle.damage)])


def play(
    config_data: dict[str, Any], state_data: dict[str, Any], body: ChaseRound, dice: Dice
) -> Played:
    """One increment: the tactic, then both sides' increment checks (RULES.md §3.4)."""
    config = rules.config_from_dict(config_data)
    round_input = rules.round_input_from_dict(body.model_dump(exclude={"rolls"}, exclude_none=True))
    _terrain_notation(body.terrain)
    state, played = rules.play_round(config, rules.state_from_dict(state_data), round_input, dice)
    return Played(
        stored_state(state, state_data),
        rules.is_finished(state),
        rules.result(config, state),
        played.to_dict(),
        rules.round_summary(config, state, played),
    )


def resolve_round(
    config_data: dict[str, Any], state_data: dict[str, Any], body: ChaseResolve
) -> ChaseRound:
    """The next increment `resolve` plays: its terrain, and a hide when the policy says so."""
    terrain = rules.terrain_from_dict(body.terrain.model_dump(exclude_none=True))
    tactic = rules.choose_tactic(
        rules.config_from_dict(config_data),
        rules.state_from_dict(state_data),
        terrain,
        body.tactic_policy,
    )
    return ChaseRound.model_validate(
        {"terrain": body.terrain.model_dump(), "tactic": rules.tactic_to_dict(tactic)}
    )


def public_state(_config: dict[str, Any], state_data: dict[str, Any]) -> dict[str, Any]:
    return rules.public_state(rules.state_from_dict(state_data))


def describe(
    config_data: dict[str, Any], state_data: dict[str, Any], outcome: dict[str, Any] | None
) -> str:
    """`Ralf leads the guard by 12 after 0 increments.` or how the chase ended."""
    escapee, chaser = config_data["escapee"]["name"], config_data["chaser"]["name"]
    lead, increments = state_data["lead"], state_data.get("increments", 0)
    after = f"after {increments} increment{'' if increments == 1 else 's'}"
    if outcome is None:
        return f"Chase: {escapee} leads {chaser} by {lead} {after}."
    ending = {
        "caught": f"{chaser} caught {escapee}",
        "escaped": f"{escapee} escaped {chaser} with a lead of {lead}",
        "hid": f"{escapee} escaped {chaser} by hiding",
        "gave-up": f"{chaser} gave up; {escapee} got away with a lead of {lead}",
    }
    return f"Chase over: {ending[outcome['status_detail']]} {after}."


KIND = SessionKind(
    path="chases",
    title="chase",
    create_model=ChaseCreate,
    create=create,
    public_state=public_state,
    create_example={
        "escapee": {"name": "Ralf", "speed": 30, "mods": {"dexterity": 3, "hide": 8}},
        "chaser": {"name": "the guard", "speed": 30, "mods": {"spot": 2, "balance": 1}},
        "start": {"mode": "lead", "lead": 12},
        "hazard_base_cost": 0,
    },
    play=play,
    round_model=ChaseRound,
    round_example={
        "terrain": {"check": "strength"},
        "tactic": {"kind": "hazard", "penalty": 4},
        "rolls": {"Ralf": {"dexterity": 16, "check": 6}, "the guard": {"hazard": 9}},
    },
    names=lambda config: (config["escapee"]["name"], config["chaser"]["name"]),
    purposes=frozenset(
        {
            rules.INITIATIVE,
            rules.HIDE,
            rules.SPOT,
            rules.DEXTERITY,
            rules.HAZARD,
            races.CHECK,
            races.OBSTACLE,
            races.CONSTITUTION,
            races.RIDE,
            races.DAMAGE,
        }
    ),
    resolve_model=ChaseResolve,
    resolve_round=resolve_round,
    resolve_example={"terrain": {"check": "strength"}, "tactic_policy": "hide-when-possible"},
    describe=describe,
)

router = session_router(KIND)


@router.post(
    "/{session_id}/end",
    openapi_extra=body_doc(ChaseEnd, {"end": {"reason": "gave-up"}}),
    summary="End a chase (GM)",
)
async def end_chase(request: Request, session_id: str, work: Work) -> Response:
    """The GM ends the chase: the chaser gives up (RULES.md §3.4 "End")."""
    raw = await request.body()
    body = await parse_body(request, ChaseEnd) if raw.strip() else ChaseEnd()

    def mutation(record: SessionRecord, _role: Role) -> Change:
        config = rules.config_from_dict(record.config)
        state = rules.end(config, rules.state_from_dict(record.state), body.reason)

        def answer(updated: SessionRecord) -> tuple[int, dict[str, Any]]:
            session = session_body(KIND, updated)
            return 200, {"session": session, "summary": session["summary"]}

        return Change(
            stored_state(state, record.state),
            "finished",
            rules.result(config, state),
            answer=answer,
        )

    return await mutate(request, work, KIND, session_id, mutation, authorize=gm_only)
