"""Arm wrestles as sessions, round by round (docs/api.md#arm-wrestles,
docs/rules.md#arm-wrestling)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.api.answers.cards import Rolls, card, change, die_message, leads_to
from app.api.kinds import Examples, OddsQuestion, RoundKind, Schemas, SessionOdds
from app.api.odds.arm_wrestles import arm_wrestle_odds
from app.api.schemas.arm_wrestles import (
    ArmWrestleCheck,
    ArmWrestleConfig,
    ArmWrestleConsequence,
    ArmWrestleCreate,
    ArmWrestleDice,
    ArmWrestleFatigueCheck,
    ArmWrestleResult,
    ArmWrestleRound,
    ArmWrestleRoundOutcome,
    ArmWrestleRoundRecord,
    ArmWrestleSession,
    ArmWrestleState,
)
from app.api.schemas.common import CardChange, RoundCard
from app.api.schemas.odds import OddsArmWrestleAnswer
from app.notation import validate_notation
from app.rules import arm_wrestling as rules
from app.rules import serial
from app.rules.dice import Dice, Key, Need
from app.rules.messages import Argument, Listing, Message, m, term


async def odds_from(
    config: rules.Config,
    state: rules.State,
    question: OddsQuestion,  # noqa: ARG001 - exact odds take no seed
) -> OddsArmWrestleAnswer:
    """The exact odds from where the match stands."""
    return await arm_wrestle_odds(config, state)


class ArmWrestles(RoundKind[rules.Config, rules.State, rules.Round]):
    """Two competitors push one DS at a time towards the target (docs/rules.md#arm-wrestling)."""

    path = "arm-wrestles"
    title = "arm wrestle"
    rule = "docs/rules.md#arm-wrestling"
    config_type = rules.Config
    state_type = rules.State
    create_model = ArmWrestleCreate
    round_model = ArmWrestleRound
    resolve_model = None
    dice_model = ArmWrestleDice
    odds = SessionOdds(OddsArmWrestleAnswer, odds_from)
    schemas = Schemas(
        config=ArmWrestleConfig,
        state=ArmWrestleState,
        result=ArmWrestleResult,
        round=ArmWrestleRoundRecord,
        session=ArmWrestleSession,
    )
    examples = Examples(
        create={
            "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
            "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
        },
        round={"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}},
    )

    def start(self, body: ArmWrestleCreate, dice: Dice) -> tuple[rules.Config, rules.State]:
        config = body.to_rules()
        rules.check_config(config)
        if config.loser_damage is not None:
            validate_notation(config.loser_damage, ("loser_damage",))
        return config, rules.start(config, dice)

    def names(self, config: rules.Config) -> tuple[str, str]:
        return (config.a.name, config.b.name)

    def play(
        self,
        config: rules.Config,
        state: rules.State,
        body: ArmWrestleRound,  # noqa: ARG002 - a round takes nothing but dice
        dice: Dice,
    ) -> tuple[rules.State, rules.Round]:
        return rules.play_round(config, state, dice)

    def needs(
        self,
        config: rules.Config,
        state: rules.State,
        body: ArmWrestleRound,  # noqa: ARG002 - a round takes nothing but dice
    ) -> dict[Key, Need]:
        return rules.dice_needs(config, state)

    def resolve_move(
        self,
        config: rules.Config,  # noqa: ARG002 - every round is the same move
        state: rules.State,  # noqa: ARG002
        body: None,  # noqa: ARG002
    ) -> ArmWrestleRound:
        return ArmWrestleRound()

    def finished(self, state: rules.State) -> bool:
        return rules.is_finished(state)

    def result(self, config: rules.Config, state: rules.State) -> ArmWrestleResult | None:  # noqa: ARG002
        if not state.finished or state.reason is None:
            return None
        outcome: ArmWrestleResult = {
            "winner": state.winner,
            "reason": state.reason,
            "consequences": [_consequence(item) for item in state.consequences],
        }
        if state.damage is not None:
            outcome["damage"] = {"name": state.damage.name, "amount": state.damage.amount}
        return outcome

    def public_config(self, config: rules.Config) -> ArmWrestleConfig:
        dumped: ArmWrestleConfig = serial.dump(config)
        return dumped

    def public_state(self, config: rules.Config, state: rules.State) -> ArmWrestleState:  # noqa: ARG002
        return {
            "ds": state.ds_by_name(),
            "leader": state.leader,
            "con_checks_made": state.con_checks_by_name(),
        }

    def round_record(
        self,
        config: rules.Config,  # noqa: ARG002 - the round carries its own names
        state: rules.State,  # noqa: ARG002
        played: rules.Round,
    ) -> ArmWrestleRoundOutcome:
        return {
            "fatigue": [_fatigue_check(check) for check in played.fatigue],
            "checks": {
                name: ArmWrestleCheck(roll=check.roll, total=check.total)
                for name, check in played.checks
            },
            "round_winner": played.round_winner,
            "difference": played.difference,
            "ds": dict(played.ds),
            "leader": played.leader,
            "finished": played.finished,
            "winner": played.winner,
            "reason": played.reason,
        }

    def round_summary(
        self, config: rules.Config, state: rules.State, played: rules.Round
    ) -> Message:
        return rules.round_message(config, state, played)

    def round_card(self, config: rules.Config, record: Mapping[str, Any]) -> RoundCard:
        return arm_wrestle_card(config, record)

    def describe(self, config: rules.Config, state: rules.State) -> Message:
        standing: dict[str, Argument] = {
            "a": config.a.name,
            "b": config.b.name,
            "ds_a": state.ds[0],
            "ds_b": state.ds[1],
            "target": config.target,
        }
        if not state.finished:
            return m(
                "Arm wrestle {a} vs {b}: DS {a} {ds_a}, {b} {ds_b} (target {target}).", **standing
            )
        reason = term(str(state.reason))
        if state.winner is None:
            return m(
                "Arm wrestle {a} vs {b} ended without a winner ({reason}): {a} {ds_a}, {b} {ds_b} "
                "(target {target}).",
                **standing,
                reason=reason,
            )
        return m(
            "Arm wrestle {a} vs {b}: {winner} wins ({reason}), {a} {ds_a}, {b} {ds_b} "
            "(target {target}).",
            **standing,
            winner=state.winner,
            reason=reason,
        )


def arm_wrestle_card(config: rules.Config, record: Mapping[str, Any]) -> RoundCard:
    """An arm wrestle's round as a card: each fatigue check against its DC, the two Strength
    checks against each other, and the DS the round moved (docs/rules.md#pushing-the-ds)."""
    rolls = Rolls(record)
    dice = [
        rolls.check(
            check["name"],
            "constitution",
            roll=check["roll"],
            total=check["total"],
            against={"dc": check["dc"]},
            margin=check["total"] - check["dc"],
            success=check["passed"],
        )
        for check in record.get("fatigue", ())
    ]
    checks: Mapping[str, Mapping[str, int]] = record.get("checks") or {}
    # In the config's order: a stored record's keys may come back in another (PostgreSQL).
    names = [competitor.name for competitor in config.competitors if competitor.name in checks]
    winner = record.get("round_winner")
    for name in names:
        other = next((item for item in names if item != name), name)
        dice.append(
            rolls.check(
                name,
                "strength",
                roll=checks[name]["roll"],
                total=checks[name]["total"],
                against={"name": other, "total": checks[other]["total"]},
                margin=checks[name]["total"] - checks[other]["total"],
                success=None if winner is None else winner == name,
            )
        )
    dice.extend(rolls.rest())
    changes: list[CardChange] = []
    ds: Mapping[str, int] = record.get("ds") or {}
    difference = int(record.get("difference") or 0)
    if isinstance(winner, str) and difference and len(ds) == 2:
        loser = next(name for name in ds if name != winner)
        # The winner's DS rose, unless she trailed: then the leader's fell (`rules.push`).
        if ds[winner] - difference >= ds[loser]:
            changes.append(change(winner, "ds", difference, ds[winner]))
        else:
            changes.append(change(loser, "ds", -difference, ds[loser]))
    opposed: list[Argument] = [
        die_message(die, opponent=False) for die in dice if die["purpose"] == "strength"
    ]
    fatigue = [die["text"] for die in dice if die["against"] and "dc" in die["against"]]
    parts: list[Argument] = []
    if fatigue:
        parts.append(Listing(fatigue, "; "))
    if len(opposed) == 2:
        parts.append(m("{a} vs {b}", a=opposed[0], b=opposed[1]))
    else:
        parts.extend(opposed)
    text: Message = Message("{parts}", {"parts": Listing(parts, "; ")})
    if changes:
        text = leads_to(text, changes[0]["text"])
    elif checks:
        text = leads_to(text, m("no change"))
    return card(
        record, dice, changes, winner=winner if isinstance(winner, str) else None, text=text
    )


def _consequence(consequence: rules.Consequence) -> ArmWrestleConsequence:
    shown: ArmWrestleConsequence = serial.dump(consequence)
    return shown


def _fatigue_check(check: rules.FatigueCheck) -> ArmWrestleFatigueCheck:
    # `passed` is worked out from the check (a property), so it is added to its fields.
    shown: ArmWrestleFatigueCheck = serial.dump_as(check, name=check.name)
    shown["passed"] = check.passed
    return shown


KIND = ArmWrestles()
