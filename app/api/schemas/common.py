"""Schema pieces shared by every contest type."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, with_config
from typing_extensions import TypedDict

from app.rules.dice import MAX_SEED, DieRoll

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


@with_config(ConfigDict(extra="forbid"))
class RollRecord(TypedDict):
    """One (who, purpose) roll in an answer's `rolls`: its dice, values and where they came from."""

    who: str | None
    purpose: str
    dice: str
    values: list[int]
    source: Literal["supplied", "rolled"]


@with_config(ConfigDict(extra="forbid"))
class RoundRecordKeys(TypedDict):
    """What every kind's round record adds to its round's outcome, after the outcome's keys:
    the round's number, its dice and its summary line (`class XRoundRecord(XRoundOutcome,
    RoundRecordKeys)`)."""

    number: int
    rolls: list[RollRecord]
    summary: str


def roll_records(log: Iterable[DieRoll]) -> list[RollRecord]:
    """A dice log as typed `rolls` entries (the same keys and values as `Dice.rolls()`)."""
    return [
        {
            "who": entry.who,
            "purpose": entry.purpose,
            "dice": entry.dice,
            "values": list(entry.values),
            "source": entry.source,
        }
        for entry in log
    ]


class Problem(BaseModel):
    """An error (RFC 9457 problem+json); a 422 lists at most 50 `errors` and counts the rest."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[dict[str, object]] | None = None
    errors_omitted: int | None = None
