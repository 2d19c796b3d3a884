"""Regular contests as sessions, round by round (API.md "Regular contests", RULES.md §1.4)."""

from __future__ import annotations

from typing import Any, Literal

from app.api.schemas.regular_contests import RegularContestCreate, RegularContestRound
from app.api.sessions import Created, Played, SessionKind, session_router
from app.rules import gurps
from app.rules.dice import Dice


def _config(config: dict[str, Any]) -> gurps.RegularConfig:
    return gurps.regular_config_from_dict(config)


def _state(state: dict[str, Any]) -> gurps.RegularState:
    return gurps.RegularState(state["rounds"], state["winner"], state["finished"])


def _state_dict(state: gurps.RegularState) -> dict[str, Any]:
    return {"rounds": state.rounds, "winner": state.winner, "finished": state.finished}


def _name(config: gurps.RegularConfig, side: Literal["a", "b"] | None) -> str | None:
    return {"a": config.a.name, "b": config.b.name, None: None}[side]


def create(body: RegularContestCreate, _dice: Dice) -> Created:
    config = _config(body.model_dump())
    skill_a, skill_b = config.effective
    stored = {
        "a": {"name": config.a.name, "skill": config.a.skill},
        "b": {"name": config.b.name, "skill": config.b.skill},
        "normalize": config.normalize,
        "max_rounds": config.max_rounds,
        "seconds_per_round": config.seconds_per_round,
        "effective_skills": {config.a.name: skill_a, config.b.name: skill_b},
    }
    return Created(stored, _state_dict(gurps.RegularState()))


def result(config: gurps.RegularConfig, state: gurps.RegularState) -> dict[str, Any] | None:
    if not state.finished:
        return None
    skill_a, skill_b = config.effective
    return {
        "winner": _name(config, state.winner),
        "status": "decided" if state.winner else "undecided",
        "rounds_taken": state.rounds,
        "game_seconds": state.rounds * config.seconds_per_round,
        "effective_skills": {config.a.name: skill_a, config.b.name: skill_b},
    }


def play(config_data: dict[str, Any], state_data: dict[str, Any], _body: Any, dice: Dice) -> Played:
    config = _config(config_data)
    state, played = gurps.regular_round(config, _state(state_data), dice)

    def side(roll: gurps.SuccessRoll) -> dict[str, Any]:
        return {
            "roll": list(roll.roll),
            "total": roll.total,
            "success": roll.success,
            "skill": roll.skill,
            "margin": roll.margin,
            "critical": roll.critical,
        }

    record = {
        "a": {"name": config.a.name, **side(played.a)},
        "b": {"name": config.b.name, **side(played.b)},
        "finished": played.finished,
        "winner": _name(config, played.winner),
    }
    summary = gurps.regular_round_summary(config, state.rounds, played)
    return Played(_state_dict(state), state.finished, result(config, state), record, summary)


def public_state(config_data: dict[str, Any], state_data: dict[str, Any]) -> dict[str, Any]:
    config = _config(config_data)
    state = _state(state_data)
    return {
        "rounds": state.rounds,
        "winner": _name(config, state.winner),
        "effective_skills": config_data["effective_skills"],
    }


def describe(
    config_data: dict[str, Any], state_data: dict[str, Any], outcome: dict[str, Any] | None
) -> str:
    config = _config(config_data)
    skill_a, skill_b = config.effective
    head = f"{config.a.name} (effective {skill_a}) vs {config.b.name} (effective {skill_b})"
    if outcome is None:
        return f"{head}: {state_data['rounds']} round(s) played, no winner yet."
    if outcome["winner"] is None:
        return f"{head}: undecided after {outcome['rounds_taken']} rounds."
    return f"{head}: {outcome['winner']} wins after {outcome['rounds_taken']} rounds."


KIND = SessionKind(
    path="regular-contests",
    title="regular contest",
    create_model=RegularContestCreate,
    create=create,
    public_state=public_state,
    create_example={"a": {"name": "Giant", "skill": 600}, "b": {"name": "Ogre", "skill": 500}},
    play=play,
    round_model=RegularContestRound,
    round_example={"rolls": {"Giant": {"success": [3, 4, 5]}}},
    names=lambda config: (config["a"]["name"], config["b"]["name"]),
    purposes=frozenset({gurps.SUCCESS}),
    resolve_round=lambda _config, _state, _body: RegularContestRound(),
    describe=describe,
)

router = session_router(KIND)
