"""Schemas of arm wrestles (docs/api.md#arm-wrestles, docs/rules.md#arm-wrestling).

The create body checks every field on its own and builds the rules' config (`to_rules`); the
TypedDicts describe exactly the JSON served for a session's `config`, `state`, `result` and
each round record.
"""

from __future__ import annotations

from typing import Annotated, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
    D20,
    DISTINCT_NAMES,
    NO_SEED_WITH_VERIFIABLE_DICE,
    CollectedKeys,
    Collecting,
    DiceMode,
    Name,
    RoundRecordKeys,
    Seats,
    Seed,
    Strict,
    given,
    in_schema,
    is_,
    left_out,
    when,
)
from app.api.sessions.presentation import SessionFields
from app.rules import arm_wrestling as rules
from app.rules.common import ability_modifier
from app.rules.violations import MAX_NOTATION_CHARS

Modifier = Annotated[int, Field(ge=-100, le=100)]
Score = Annotated[int, Field(ge=0, le=200)]
DamageDie = Annotated[int, Field(ge=1)]


class ArmWrestler(Strict):
    name: Name
    strength_mod: Modifier
    con_score: Score
    con_mod: Modifier
    endurance: bool = False
    off_hand: bool = False
    two_weapon_fighting: bool = False
    misc_mod: Modifier = 0
    caster_level: Annotated[int, Field(ge=0, le=100)] | None = None
    int_mod: Modifier | None = None
    wis_score: Score | None = None
    wis_mod: Modifier | None = None

    def to_rules(self, variant: rules.Variant) -> rules.Competitor:
        wis_mod = self.wis_mod
        if variant == "mental" and wis_mod is None and self.wis_score is not None:
            # Ruling (docs/rules.md#dice-and-checks): a missing modifier is the one its score gives.
            wis_mod = ability_modifier(self.wis_score)
        return rules.Competitor(
            name=self.name,
            strength_mod=self.strength_mod,
            con_score=self.con_score,
            con_mod=self.con_mod,
            endurance=self.endurance,
            off_hand=self.off_hand,
            two_weapon_fighting=self.two_weapon_fighting,
            misc_mod=self.misc_mod,
            caster_level=self.caster_level,
            int_mod=self.int_mod,
            wis_score=self.wis_score,
            wis_mod=wis_mod,
        )


#: A competitor in the `mental` variant: `int_mod` and `wis_score` given.
MENTAL_COMPETITOR = {"allOf": [given("int_mod", "integer"), given("wis_score", "integer")]}


class ArmWrestleCreate(Strict):
    """A new arm wrestle: two competitors and the match's settings (docs/rules.md#arm-wrestling).

    Rules across fields:
    - the two competitors' names differ;
    - the `psychic` variant needs `caster_level` from both competitors;
    - the `mental` variant needs `int_mod` and `wis_score` from both competitors;
    - `loser_damage` is only for the `mental` and `psychic` variants, and is valid dice
      notation;
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(
                is_("variant", "psychic"),
                {
                    "properties": {
                        "a": given("caster_level", "integer"),
                        "b": given("caster_level", "integer"),
                    }
                },
            ),
            when(
                is_("variant", "mental"),
                {"properties": {"a": MENTAL_COMPETITOR, "b": MENTAL_COMPETITOR}},
            ),
            when(
                {"not": {"anyOf": [is_("variant", "mental"), is_("variant", "psychic")]}},
                left_out("loser_damage"),
            ),
            NO_SEED_WITH_VERIFIABLE_DICE,
            beyond=(DISTINCT_NAMES, "a `loser_damage` that is not valid dice notation"),
        )
    )

    a: ArmWrestler
    b: ArmWrestler
    target: Annotated[int, Field(ge=rules.MIN_TARGET, le=rules.MAX_TARGET)] = rules.DEFAULT_TARGET
    variant: rules.Variant = "standard"
    max_rounds: Annotated[int, Field(ge=1, le=rules.MAX_ROUNDS_LIMIT)] = rules.DEFAULT_MAX_ROUNDS
    loser_damage: Annotated[str, Field(min_length=1, max_length=MAX_NOTATION_CHARS)] | None = None
    seed: Seed | None = None
    dice: DiceMode = "server"
    seats: Seats = False

    def to_rules(self) -> rules.Config:
        """The match's config, defaults applied; `rules.check_config` checks what spans fields."""
        return rules.Config(
            a=self.a.to_rules(self.variant),
            b=self.b.to_rules(self.variant),
            target=self.target,
            variant=self.variant,
            max_rounds=self.max_rounds,
            loser_damage=self.loser_damage,
        )


class ArmWrestleDice(Strict):
    """One competitor's dice in a round body: its fields are the dice purposes."""

    strength: D20 | None = None
    constitution: D20 | None = None
    #: The loser's damage dice (the spikes 1d4, or every die of `loser_damage`), in order; one
    #: die may be given alone (docs/api.md#supplying-dice: value or [values]).
    damage: DamageDie | Annotated[list[DamageDie], Field(max_length=1000)] | None = None


class ArmWrestleRound(Collecting):
    rolls: dict[Name, ArmWrestleDice] | None = None


# --- answers --------------------------------------------------------------------------------


@with_config(ANSWER)
class ArmWrestlerConfig(TypedDict):
    """One competitor in an arm wrestle's `config`, every field given."""

    name: str
    strength_mod: int
    con_score: int
    con_mod: int
    endurance: bool
    off_hand: bool
    two_weapon_fighting: bool
    misc_mod: int
    caster_level: int | None
    int_mod: int | None
    wis_score: int | None
    wis_mod: int | None


@with_config(ANSWER)
class ArmWrestleConfig(TypedDict):
    """An arm wrestle's `config`: the create body with its defaults applied."""

    a: ArmWrestlerConfig
    b: ArmWrestlerConfig
    target: int
    variant: rules.Variant
    max_rounds: int
    loser_damage: str | None


@with_config(ANSWER)
class ArmWrestleState(TypedDict):
    """An arm wrestle's `state`: each DS, the leader and the fatigue checks made, by name."""

    ds: dict[str, int]
    leader: str | None
    con_checks_made: dict[str, int]


@with_config(ANSWER)
class ArmWrestleConsequence(TypedDict):
    """What the match did to someone: a strained arm, an injured hand, damage."""

    name: str
    effect: rules.Effect
    detail: str


@with_config(ANSWER)
class ArmWrestleDamage(TypedDict):
    """Damage the loser takes (spikes, or `loser_damage` in `mental` and `psychic`)."""

    name: str
    amount: int


@with_config(ANSWER)
class ArmWrestleResult(TypedDict):
    """A finished arm wrestle's `result`; `damage` only when the loser takes some."""

    winner: str | None
    reason: rules.Reason
    consequences: list[ArmWrestleConsequence]
    damage: NotRequired[ArmWrestleDamage]


@with_config(ANSWER)
class ArmWrestleFatigueCheck(TypedDict):
    """One fatigue check (Constitution; Wisdom in `mental`) made before a round."""

    name: str
    dc: int
    roll: int
    total: int
    passed: bool


@with_config(ANSWER)
class ArmWrestleCheck(TypedDict):
    """One competitor's opposed check in a round: the d20 and the total."""

    roll: int
    total: int


@with_config(ANSWER)
class ArmWrestleRoundOutcome(TypedDict):
    """What one round of an arm wrestle did (the round record without number, rolls, summary)."""

    fatigue: list[ArmWrestleFatigueCheck]
    checks: dict[str, ArmWrestleCheck]
    round_winner: str | None
    difference: int
    ds: dict[str, int]
    leader: str | None
    finished: bool
    winner: str | None
    reason: rules.Reason | None


@with_config(ANSWER)
class ArmWrestleRoundRecord(ArmWrestleRoundOutcome, RoundRecordKeys, CollectedKeys):
    """One round of an arm wrestle as served: its number, outcome, dice and summary line."""


@with_config(ANSWER)
class ArmWrestleSession(SessionFields):
    """An arm wrestle as every answer shows it."""

    config: ArmWrestleConfig
    state: ArmWrestleState
    result: ArmWrestleResult | None
