"""Schema pieces shared by every contest type."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from app.rules.dice import MAX_SEED

#: A competitor, party or member name: how results and supplied dice refer to them.
Name = Annotated[str, StringConstraints(min_length=1, max_length=64, strip_whitespace=True)]
Seed = Annotated[int, Field(ge=0, lt=MAX_SEED, description="0 <= seed < 2**63")]
D6 = Annotated[int, Field(ge=1, le=6)]
D20 = Annotated[int, Field(ge=1, le=20)]
D100 = Annotated[int, Field(ge=1, le=100)]
#: Three d6 (a GURPS success roll).
Roll3d6 = Annotated[list[D6], Field(min_length=3, max_length=3)]


class Strict(BaseModel):
    """Request bodies reject unknown fields and wrong JSON types (`"12"` or `true` for 12):
    a misspelt option or a mistyped value is a 422, never quietly reinterpreted."""

    model_config = ConfigDict(extra="forbid", strict=True)


class RollEntry(BaseModel):
    who: str | None
    purpose: str
    dice: str
    values: list[int]
    source: Literal["supplied", "rolled"]


class Problem(BaseModel):
    type: str
    title: str
    status: int
    detail: str
    errors: list[dict[str, object]] | None = None
