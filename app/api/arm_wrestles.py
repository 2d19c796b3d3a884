"""Arm wrestles as sessions, round by round (API.md "Arm wrestles", RULES.md §3.1)."""

from __future__ import annotations

from typing import Any

from app.api.schemas.arm_wrestles import ArmWrestleCreate, ArmWrestleRound
from app.api.sessions import Created, Played, SessionKind, session_router
from app.notation import validate_notation
from app.rules import arm_wrestling as rules
from app.rules.dice import Dice


def create(body: ArmWrestleCreate, dice: Dice) -> Created:
    config = rules.config_from_dict(body.model_dump(exclude={"seed"}))
    if config.loser_damage is not None:
        validate_notation(config.loser_damage, ("loser_damage",))
    return Created(rules.config_to_dict(config), rules.state_to_dict(rules.start(config, dice)))


def play(config_data: dict[str, Any], state_data: dict[str, Any], _body: Any, dice: Dice) -> Played:
    config = rules.config_from_dict(config_data)
    state, played = rules.play_round(config, rules.state_from_dict(state_data), dice)
    return Played(
        rules.state_to_dict(state),
        rules.is_finished(state),
        rules.result(config, state),
        played.to_dict(),
        rules.round_summary(config, state, played),
    )


def public_state(_config: dict[str, Any], state_data: dict[str, Any]) -> dict[str, Any]:
    return rules.public_state(rules.state_from_dict(state_data))


def describe(
    config_data: dict[str, Any], state_data: dict[str, Any], outcome: dict[str, Any] | None
) -> str:
    a, b = config_data["a"]["name"], config_data["b"]["name"]
    ds = state_data.get("ds", {})
    standing = f"{a} {ds.get(a, 0)}, {b} {ds.get(b, 0)} (target {config_data['target']})"
    if outcome is None:
        return f"Arm wrestle {a} vs {b}: DS {standing}."
    reason = outcome.get("reason")
    if outcome.get("winner") is None:
        return f"Arm wrestle {a} vs {b} ended without a winner ({reason}): {standing}."
    return f"Arm wrestle {a} vs {b}: {outcome['winner']} wins ({reason}), {standing}."


KIND = SessionKind(
    path="arm-wrestles",
    title="arm wrestle",
    create_model=ArmWrestleCreate,
    create=create,
    public_state=public_state,
    create_example={
        "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
        "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
    },
    play=play,
    round_model=ArmWrestleRound,
    round_example={"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}},
    names=lambda config: (config["a"]["name"], config["b"]["name"]),
    purposes=frozenset({"strength", "constitution", "damage"}),
    resolve_round=lambda _config, _state, _body: ArmWrestleRound(),
    describe=describe,
)

router = session_router(KIND)
