"""Regular contests as sessions, round by round (docs/api.md#regular-contests,
docs/rules.md#regular-contest)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from app.api.answers.cards import Rolls, card, leads_to
from app.api.kinds import Examples, OddsQuestion, RoundKind, Schemas, SessionOdds
from app.api.odds.gurps import regular_contest_answer
from app.api.schemas.common import RoundCard
from app.api.schemas.odds import OddsRegularContestAnswer
from app.api.schemas.regular_contests import (
    RegularContestConfig,
    RegularContestCreate,
    RegularContestResult,
    RegularContestRound,
    RegularContestRoundOutcome,
    RegularContestRoundRecord,
    RegularContestSession,
    RegularContestSide,
    RegularContestState,
    RegularRollSupply,
)
from app.rules import gurps, serial
from app.rules.dice import Dice, Key, Need
from app.rules.messages import Argument, Listing, Message, m, ng


async def odds_from(
    config: gurps.RegularConfig,
    state: gurps.RegularState,
    question: OddsQuestion,  # noqa: ARG001 - exact: nothing to ask
) -> OddsRegularContestAnswer:
    """The exact odds from the rounds played so far."""
    return regular_contest_answer(config, state)


class RegularContests(RoundKind[gurps.RegularConfig, gurps.RegularState, gurps.RegularRound]):
    """Both roll each round until exactly one succeeds (docs/rules.md#regular-contest)."""

    path = "regular-contests"
    title = "regular contest"
    rule = "docs/rules.md#regular-contest"
    config_type = gurps.RegularConfig
    state_type = gurps.RegularState
    create_model = RegularContestCreate
    round_model = RegularContestRound
    resolve_model = None
    dice_model = RegularRollSupply
    odds = SessionOdds(OddsRegularContestAnswer, odds_from)
    schemas = Schemas(
        config=RegularContestConfig,
        state=RegularContestState,
        result=RegularContestResult,
        round=RegularContestRoundRecord,
        session=RegularContestSession,
    )
    examples = Examples(
        create={"a": {"name": "Giant", "skill": 600}, "b": {"name": "Ogre", "skill": 500}},
        round={"rolls": {"Giant": {"success": [3, 4, 5]}}},
    )

    def start(
        self,
        body: RegularContestCreate,
        dice: Dice,  # noqa: ARG002 - no die is rolled at the start
    ) -> tuple[gurps.RegularConfig, gurps.RegularState]:
        config = body.to_rules()
        gurps.check_regular_config(config)
        return config, gurps.RegularState()

    def names(self, config: gurps.RegularConfig) -> tuple[str, str]:
        return (config.a.name, config.b.name)

    def play(
        self,
        config: gurps.RegularConfig,
        state: gurps.RegularState,
        body: RegularContestRound,  # noqa: ARG002 - a round takes nothing but dice
        dice: Dice,
    ) -> tuple[gurps.RegularState, gurps.RegularRound]:
        return gurps.regular_round(config, state, dice)

    def needs(
        self,
        config: gurps.RegularConfig,
        state: gurps.RegularState,
        body: RegularContestRound,  # noqa: ARG002 - a round takes nothing but dice
    ) -> dict[Key, Need]:
        return gurps.regular_dice_needs(config, state)

    def resolve_move(
        self,
        config: gurps.RegularConfig,  # noqa: ARG002 - every round is the same move
        state: gurps.RegularState,  # noqa: ARG002
        body: None,  # noqa: ARG002
    ) -> RegularContestRound:
        return RegularContestRound()

    def finished(self, state: gurps.RegularState) -> bool:
        return state.finished

    def result(
        self, config: gurps.RegularConfig, state: gurps.RegularState
    ) -> RegularContestResult | None:
        if not state.finished:
            return None
        return {
            "winner": _name(config, state.winner),
            "status": "decided" if state.winner else "undecided",
            "rounds_taken": state.rounds,
            "game_seconds": state.rounds * config.seconds_per_round,
            "effective_skills": _effective_skills(config),
        }

    def public_config(self, config: gurps.RegularConfig) -> RegularContestConfig:
        # Stored as served: loading it back ignores the derived `effective_skills`.
        return {
            "a": {"name": config.a.name, "skill": config.a.skill},
            "b": {"name": config.b.name, "skill": config.b.skill},
            "normalize": config.normalize,
            "max_rounds": config.max_rounds,
            "seconds_per_round": config.seconds_per_round,
            "effective_skills": _effective_skills(config),
        }

    def public_state(
        self, config: gurps.RegularConfig, state: gurps.RegularState
    ) -> RegularContestState:
        return {
            "rounds": state.rounds,
            "winner": _name(config, state.winner),
            "effective_skills": _effective_skills(config),
        }

    def round_record(
        self,
        config: gurps.RegularConfig,
        state: gurps.RegularState,  # noqa: ARG002 - the round carries its outcome
        played: gurps.RegularRound,
    ) -> RegularContestRoundOutcome:
        return {
            "a": _side(config.a.name, played.a),
            "b": _side(config.b.name, played.b),
            "finished": played.finished,
            "winner": _name(config, played.winner),
        }

    def round_summary(
        self, config: gurps.RegularConfig, state: gurps.RegularState, played: gurps.RegularRound
    ) -> Message:
        return gurps.regular_round_message(config, state.rounds, played)

    def round_card(
        self,
        config: gurps.RegularConfig,  # noqa: ARG002 - the record names everything shown
        record: Mapping[str, Any],
    ) -> RoundCard:
        """Each side's 3d6 against its effective skill, made or missed by its margin."""
        rolls = Rolls(record)
        dice = []
        for side in ("a", "b"):
            roll: Mapping[str, Any] = record[side]
            dice.append(
                rolls.check(
                    roll["name"],
                    "success",
                    roll=roll["roll"],
                    total=roll["total"],
                    modifier=0,
                    dice="3d6",
                    against={"skill": roll["skill"]},
                    margin=roll["margin"],
                    success=roll["success"],
                )
            )
        dice.extend(rolls.rest())
        winner = record.get("winner")
        checks: list[Argument] = [
            (
                m("{check}, made it by {margin}", check=die["text"], margin=margin)
                if die["success"]
                else m("{check}, missed by {margin}", check=die["text"], margin=margin)
            )
            for die in dice
            if die["total"] is not None
            for margin in (abs(die["margin"] or 0),)
        ]
        outcome = m("{winner} wins", winner=winner) if winner else m("no winner yet")
        text = leads_to(Listing(checks, "; "), outcome)
        return card(record, dice, [], winner=winner, text=text)

    def describe(self, config: gurps.RegularConfig, state: gurps.RegularState) -> Message:
        skill_a, skill_b = config.effective
        sides: dict[str, Argument] = {
            "a": config.a.name,
            "skill_a": skill_a,
            "b": config.b.name,
            "skill_b": skill_b,
        }
        if not state.finished:
            return ng(
                "{a} (effective {skill_a}) vs {b} (effective {skill_b}): {count} round played, "
                "no winner yet.",
                "{a} (effective {skill_a}) vs {b} (effective {skill_b}): {count} rounds played, "
                "no winner yet.",
                state.rounds,
                **sides,
            )
        if state.winner is None:
            return ng(
                "{a} (effective {skill_a}) vs {b} (effective {skill_b}): undecided after {count} "
                "round.",
                "{a} (effective {skill_a}) vs {b} (effective {skill_b}): undecided after {count} "
                "rounds.",
                state.rounds,
                **sides,
            )
        return ng(
            "{a} (effective {skill_a}) vs {b} (effective {skill_b}): {winner} wins after {count} "
            "round.",
            "{a} (effective {skill_a}) vs {b} (effective {skill_b}): {winner} wins after {count} "
            "rounds.",
            state.rounds,
            **sides,
            winner=str(_name(config, state.winner)),
        )


def _name(config: gurps.RegularConfig, side: Literal["a", "b"] | None) -> str | None:
    return {"a": config.a.name, "b": config.b.name, None: None}[side]


def _effective_skills(config: gurps.RegularConfig) -> dict[str, int]:
    skill_a, skill_b = config.effective
    return {config.a.name: skill_a, config.b.name: skill_b}


def _side(name: str, roll: gurps.SuccessRoll) -> RegularContestSide:
    shown: RegularContestSide = serial.dump_as(roll, name=name)
    return shown


KIND = RegularContests()
