"""Schemas of arm wrestles (API.md "Arm wrestles", RULES.md §3.1)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from app.api.schemas.common import D20, Name, Seed, Strict

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


class ArmWrestleCreate(Strict):
    a: ArmWrestler
    b: ArmWrestler
    target: Annotated[int, Field(ge=1, le=100)] = 20
    variant: Literal["standard", "spikes", "psychic", "mental"] = "standard"
    max_rounds: Annotated[int, Field(ge=1, le=10_000)] = 200
    loser_damage: Annotated[str, Field(min_length=1, max_length=1000)] | None = None
    seed: Seed | None = None


class ArmWrestleDice(Strict):
    strength: D20 | None = None
    constitution: D20 | None = None
    #: The loser's damage dice (the spikes 1d4, or every die of `loser_damage`), in order; one
    #: die may be given alone (API.md "Supplying dice": value or [values]).
    damage: DamageDie | Annotated[list[DamageDie], Field(max_length=1000)] | None = None


class ArmWrestleRound(Strict):
    rolls: dict[Name, ArmWrestleDice] | None = None
