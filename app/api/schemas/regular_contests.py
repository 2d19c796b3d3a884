"""Schemas of regular contests as sessions (API.md "Regular contests", RULES.md §1.4)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from app.api.schemas.common import Name, Roll3d6, Seed, Strict
from app.api.schemas.gurps import Contestant, MaxRounds
from app.rules.gurps import DEFAULT_MAX_ROUNDS


class RegularContestCreate(Strict):
    a: Contestant
    b: Contestant
    normalize: bool = True
    max_rounds: MaxRounds = DEFAULT_MAX_ROUNDS
    seconds_per_round: Annotated[int, Field(ge=0, le=86_400)] = 1
    seed: Seed | None = None


class RegularRollSupply(Strict):
    success: Roll3d6 | None = None


class RegularContestRound(Strict):
    rolls: dict[Name, RegularRollSupply] | None = None
