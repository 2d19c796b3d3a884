"""Request and response schemas of the GURPS endpoints (API.md, RULES.md §1)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from app.api.schemas.common import Name, Roll3d6, RollEntry, Seed, Strict
from app.rules.gurps import DEFAULT_MAX_ROUNDS, MAX_ROUNDS_LIMIT, MAX_SKILL, MIN_SKILL

Skill = Annotated[int, Field(ge=MIN_SKILL, le=MAX_SKILL, description="effective skill")]
MaxRounds = Annotated[int, Field(ge=1, le=MAX_ROUNDS_LIMIT)]


class SuccessRollRequest(Strict):
    skill: Skill
    roll: Roll3d6 | None = None
    seed: Seed | None = None


class Competitor(Strict):
    name: Name
    skill: Skill
    roll: Roll3d6 | None = None


class QuickContestRequest(Strict):
    a: Competitor
    b: Competitor
    seed: Seed | None = None


class ResistanceRollRequest(Strict):
    attacker: Competitor
    defender: Competitor
    seed: Seed | None = None


class Contestant(Strict):
    name: Name
    skill: Skill


class SuppliedRound(Strict):
    a: Roll3d6
    b: Roll3d6


class RegularContestRequest(Strict):
    a: Contestant
    b: Contestant
    normalize: bool = True
    max_rounds: MaxRounds = DEFAULT_MAX_ROUNDS
    seconds_per_round: Annotated[int, Field(ge=0, le=86_400)] = 1
    rounds: Annotated[list[SuppliedRound], Field(max_length=MAX_ROUNDS_LIMIT)] = Field(
        default_factory=list
    )
    seed: Seed | None = None


Critical = Literal["success", "failure"] | None


class SuccessRollResult(BaseModel):
    skill: int
    roll: list[int]
    total: int
    success: bool
    critical: Critical
    margin: int
    rolls: list[RollEntry]
    summary: str


class CompetitorResult(BaseModel):
    name: str
    skill: int
    roll: list[int]
    total: int
    success: bool
    critical: Critical
    margin: int


class QuickContestResult(BaseModel):
    winner: str | None
    tie: bool
    margin_of_victory: int | None
    a: CompetitorResult
    b: CompetitorResult
    rolls: list[RollEntry]
    summary: str


class DefenderResult(BaseModel):
    name: str
    skill: int
    rolled: bool
    roll: list[int] | None = None
    total: int | None = None
    success: bool | None = None
    critical: Critical = None
    margin: int | None = None


class ResistanceRollResult(BaseModel):
    affected: bool
    winner: str
    margin_of_victory: int | None
    attacker: CompetitorResult
    defender: DefenderResult
    rolls: list[RollEntry]
    summary: str


class RoundSide(BaseModel):
    roll: list[int]
    total: int
    success: bool


class RegularRoundResult(BaseModel):
    number: int
    a: RoundSide
    b: RoundSide


class RegularContestResult(BaseModel):
    effective_skills: dict[str, int]
    status: Literal["decided", "undecided"]
    winner: str | None
    rounds_taken: int
    game_seconds: int
    rounds: list[RegularRoundResult]
    rolls: list[RollEntry]
    summary: str
