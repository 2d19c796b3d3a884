"""Schema pieces shared by every contest type."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Final, Literal, NotRequired, TypeVar, cast

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    model_validator,
    with_config,
)
from typing_extensions import TypedDict

from app.rules.dice import MAX_SEED, DieRoll, UnusedDie
from app.rules.errors import RulesError
from app.rules.messages import N_

#: A competitor, party or member name: how results and supplied dice refer to them.
#: Unicode's White_Space characters, all that trimming drops; `NOT_BLANK` (a character that
#: is none of them) spells them out, so every regular-expression engine (the validator's, a
#: client's JSON Schema library) reads it alike, as it would not read `\\S`.
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


BLANKS = r"\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK = f"[^{BLANKS}]"
#: Control characters (Unicode's Cc: C0, DEL, C1), which C strings, terminals and chat clients
#: cut at or act on: no text a caller sends holds one (a seed included).
CONTROLS = r"\x00-\x1f\x7f-\x9f"
#: What a name, or other text a caller names things with, may not hold (docs/api.md#names):
#: controls, the line and paragraph separators, bidi embeddings, overrides and isolates (which
#: reorder the rest of a chat line) and the invisible U+200B, U+2060 and U+FEFF (which make
#: two names look alike). ZWJ and ZWNJ stay: emoji, Persian and Indic names need them.
UNSHOWN = CONTROLS + r"\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff"
#: Text that is not blank and holds none of `UNSHOWN`: a character of neither, anywhere, and
#: none of `UNSHOWN` before or after it.
TEXT = f"^[^{UNSHOWN}]*[^{UNSHOWN}{BLANKS}][^{UNSHOWN}]*$"
_UNSHOWN = re.compile(f"[{UNSHOWN}]")
_CONTROL = re.compile(f"[{CONTROLS}]")


def character(found: str) -> str:
    """A character as a 422 names it: `U+202E RIGHT-TO-LEFT OVERRIDE`, `U+000A (a control
    character)`."""
    name = unicodedata.name(found, "")
    return f"U+{ord(found):04X} {name}" if name else f"U+{ord(found):04X} (a control character)"


def _refusing(pattern: re.Pattern[str], what: str) -> Callable[[Any], Any]:
    def refuse(value: Any) -> Any:
        if isinstance(value, str) and (found := pattern.search(value)) is not None:
            raise ValueError(f"{character(found.group())} is not allowed in {what}")
        return value

    return refuse


#: Run before the pattern, so the 422 names the character refused.
_NAMED = BeforeValidator(_refusing(_UNSHOWN, "a name or text"))


def trimmed(value: str) -> str:
    """Surrounding white space dropped; what `NOT_BLANK` let through is never blank."""
    stripped = value.strip(WHITE_SPACE)
    if not stripped:
        raise ValueError("must not be blank")
    return stripped


#: Text that is not blank: 1 to 64 characters counted as sent (so the document's JSON Schema
#: says exactly what is accepted: its length before trimming, not blank by `NOT_BLANK`), then
#: trimmed. A competitor, party or member name: how results and supplied dice refer to them.
#: Stored as sent (trimmed), and compared with other names by `name_key` (app/rules/text.py).
Name = Annotated[
    str,
    StringConstraints(min_length=1, max_length=64, pattern=TEXT),
    AfterValidator(trimmed),
    _NAMED,
]
#: The same for up to 500 characters (an effect's text).
Text = Annotated[
    str,
    StringConstraints(min_length=1, max_length=500, pattern=TEXT),
    AfterValidator(trimmed),
    _NAMED,
]
Seed = Annotated[int, Field(ge=0, lt=MAX_SEED, description="0 <= seed < 2**63")]
#: A session's `seats`: whether each competitor gets a seat token of its own.
Seats = Annotated[
    bool,
    Field(
        description="give each competitor a seat token (`tokens.seats`), which reads the "
        "session and posts only that competitor's dice"
    ),
]
D6 = Annotated[int, Field(ge=1, le=6)]
D20 = Annotated[int, Field(ge=1, le=20)]
D100 = Annotated[int, Field(ge=1, le=100)]
#: Three d6 (a GURPS success roll).
Roll3d6 = Annotated[list[D6], Field(min_length=3, max_length=3)]
#: An answer's `rule`: the section of the rules reference that decided it, so a reader can
#: look up why the result is what it is.
RuleLink = Annotated[
    str,
    Field(
        description="the rule applied: a section of the repository's rules reference, "
        "e.g. docs/rules.md#quick-contest",
        examples=["docs/rules.md#quick-contest"],
    ),
]


#: The key under which a request schema lists the refusals no JSON Schema can say: a value
#: compared with another field's (two names that must differ once trimmed and normalised),
#: text that must parse (dice notation). `app/api/contract.py` moves each list to the 422 of
#: every operation whose request holds that schema, so a client reads per operation what the
#: service may still refuse of a request the schema allows.
BEYOND_SCHEMA: Final = "x-refused-beyond-schema"
#: The refusal every body naming two or more competitors, parties or members makes.
DISTINCT_NAMES: Final = (
    "two names that are the same once trimmed, in NFC and without default-ignorable "
    "characters (docs/api.md#names)"
)
DICE_NOTATION: Final = "dice notation that does not parse, or over the dice budget"


def refused_beyond_schema(*refusals: str) -> dict[str, Any]:
    """The `json_schema_extra` of a request schema whose rules across fields no JSON Schema
    can say: `refusals`, each one such rule, as the document lists them."""
    return {BEYOND_SCHEMA: list(refusals)}


def given(field: str, json_type: str) -> dict[str, Any]:
    """A schema requiring `field`, of `json_type` (so not null: a request's null is the
    field left out)."""
    return {"required": [field], "properties": {field: {"type": json_type}}}


def left_out(*fields: str) -> dict[str, Any]:
    """A schema leaving each of `fields` out (or null, which is the same)."""
    return {"properties": {field: {"type": "null"} for field in fields}}


def when(
    condition: dict[str, Any], then: dict[str, Any], otherwise: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A rule across fields: a request that matches `condition` matches `then` too, and one
    that does not matches `otherwise` (`if`/`then`/`else`, which code generators leave to the
    service, rather than `oneOf`, which they would make a union of models)."""
    return {"if": condition, "then": then, **({"else": otherwise} if otherwise else {})}


def all_of(*schemas: dict[str, Any]) -> dict[str, Any]:
    """A schema matching what every one of `schemas` matches."""
    return {"allOf": list(schemas)}


def is_(field: str, value: Any) -> dict[str, Any]:
    """A schema matching a request whose `field` is given as `value`."""
    return {"required": [field], "properties": {field: {"const": value}}}


def in_schema(*rules: dict[str, Any], beyond: tuple[str, ...] = ()) -> dict[str, Any]:
    """The `json_schema_extra` of a request schema holding `rules` across its fields (each a
    schema the request matches too: `allOf`) and listing the refusals `beyond` it."""
    return {"allOf": list(rules), **(refused_beyond_schema(*beyond) if beyond else {})}


#: A session with verifiable dice takes no `seed` (docs/verifiable-dice.md).
NO_SEED_WITH_VERIFIABLE_DICE: Final[dict[str, Any]] = {
    "not": {
        "required": ["dice", "seed"],
        "properties": {"dice": {"const": "verifiable"}, "seed": {"type": "integer"}},
    }
}


class Strict(BaseModel):
    """Request bodies reject unknown fields and wrong JSON types (`"12"` or `true` for 12):
    a misspelt option or a mistyped value is a 422, never quietly reinterpreted.

    A number with no fractional part written as `13.0` is the integer 13 (JSON Schema's
    `integer` admits it, so a client generated from the document may send it). Read bodies
    with `validate_json`, which spares that conversion's walk when there is nothing to convert.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _whole_numbers(cls, data: Any, info: ValidationInfo) -> Any:
        if info.context is INTEGERS_ONLY:
            return data
        return whole_numbers(data)


#: The longest a round may wait for its players' dice (a week).
MAX_DEADLINE_SECONDS: Final = 7 * 24 * 3600


class Collecting(Strict):
    """A round body's fields that open a round waiting for the seats' dice rather than play
    one (docs/api.md#rounds-that-wait-for-the-players-dice): `deadline_seconds` with `collect`
    true, and only with it (said in the schema)."""

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(
                is_("collect", True),
                given("deadline_seconds", "integer"),
                left_out("deadline_seconds"),
            )
        )
    )

    collect: Annotated[
        bool,
        Field(description="wait for each seat's dice instead of rolling (a seated session)"),
    ] = False
    deadline_seconds: (
        Annotated[
            int,
            Field(
                ge=1,
                le=MAX_DEADLINE_SECONDS,
                description="with `collect`: after this many seconds the server rolls the dice "
                "still missing",
            ),
        ]
        | None
    ) = None

    def check_collecting(self) -> None:
        """`deadline_seconds` with `collect`, and only with it (a rule across fields: a 422
        from the call, as every such rule is)."""
        if self.collect and self.deadline_seconds is None:
            raise RulesError(N_("a round that collects dice needs deadline_seconds"), ("collect",))
        if not self.collect and self.deadline_seconds is not None:
            raise RulesError(
                N_("deadline_seconds is only for a round that collects dice"), ("deadline_seconds",)
            )


#: The validation context of a JSON text without a number that has a fraction or an exponent:
#: `Strict` models skip the walk of `whole_numbers`, which each nested model would otherwise
#: repeat over its part of the body.
INTEGERS_ONLY: Final[dict[str, bool]] = {"integers_only": True}

StrictT = TypeVar("StrictT", bound=BaseModel)

#: A JSON number with a fraction or an exponent has a digit just before its `.`, `e` or `E`.
_FRACTION: Final = re.compile(rb"[0-9][.eE]")


def validate_json(model: type[StrictT], raw: bytes) -> StrictT:
    """`raw` validated as `model` (`model.model_validate_json`), whole floats made integers
    only when the text has a number with a fraction or an exponent (a name such as "R2.D2"
    costs the walk, not a different answer)."""
    context = None if _FRACTION.search(raw) else INTEGERS_ONLY
    return model.model_validate_json(raw, context=context)


def whole_numbers(value: Any) -> Any:
    """`value` with every float that is a whole number made an int, at any depth."""
    if type(value) is float:
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        return {key: whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [whole_numbers(item) for item in value]
    return value


#: The config of every answer type (a TypedDict): closed to unknown keys, and its validator
#: built on first use rather than with each route that documents it (an app's routes are
#: built when it starts, and most answer types are never validated outside the tests).
ANSWER: Final = ConfigDict(extra="forbid", defer_build=True)


@with_config(ANSWER)
class RollRecord(TypedDict):
    """One (who, purpose) roll in an answer's `rolls`: its dice, values and where they came from."""

    who: str | None
    purpose: str
    dice: str
    values: list[int]
    source: Literal["supplied", "rolled"]
    #: A verifiable session's supplied roll: who supplied it ("gm", "party:<name>",
    #: "seat:<name>"; docs/verifiable-dice.md).
    by: NotRequired[str]
    #: A verifiable session's roll in dice notation: each die's sides, in order.
    sides: NotRequired[list[int]]


@with_config(ANSWER)
class UnusedRecord(TypedDict):
    """Supplied values of one (who, purpose) that the round did not use, in a record's
    `unused` (never in `rolls`): `why` is `ended` (the contest ended in the round before
    asking for them), `not-needed` (the round never called for them: a check passed, no tie,
    not the loser) or `surplus` (the round used fewer of them than were supplied; these are
    the ones left). docs/rules.md#supplied-and-server-dice."""

    who: str | None
    purpose: str
    values: list[int]
    why: Literal["ended", "not-needed", "surplus"]
    #: A verifiable session's: who supplied them, as a supplied roll's `by`.
    by: NotRequired[str]


#: Who gave a die on a round card: the server (on its own, at the deadline, or at the seat's
#: asking), the GM, the competitor's seat, the party, or someone at the table (entered).
CardSource = Literal["server", "deadline", "roll-for-me", "gm", "seat", "party", "entered"]


@with_config(ANSWER)
class CardAgainst(TypedDict):
    """What a check on a round card was against: an opponent's total, a DC, or a skill to
    roll under (only the keys that apply)."""

    name: NotRequired[str]
    total: NotRequired[int]
    dc: NotRequired[int]
    skill: NotRequired[int]


@with_config(ANSWER)
class CardDie(TypedDict):
    """One roll on a round card: who rolled what, for what, its modifier and total (null for
    dice that are not a check, such as damage), what it was against, its margin (positive:
    made it or won by that much), whether it succeeded, and who gave the die; `text` is the
    roll as one line and `note` its margin, result and source, both in the request's
    language."""

    name: str | None
    purpose: str
    dice: str
    values: list[int]
    modifier: int | None
    total: int | None
    against: CardAgainst | None
    margin: int | None
    success: bool | None
    source: CardSource
    text: str
    note: str


@with_config(ANSWER)
class CardChange(TypedDict):
    """What a round changed for one competitor or party: its DS, a chase's lead, a skill
    game's progress or tokens (`delta` null when the round does not say by how much); `text`
    is the change as words in the request's language."""

    name: str
    kind: Literal["ds", "lead", "progress", "tokens"]
    delta: int | None
    to: int
    text: str


@with_config(ANSWER)
class RoundCard(TypedDict):
    """A round as a card (docs/api.md#round-cards): built when the service answers, from the
    round's record (never stored or chained), as data and as words in the request's language
    (`text`: the round as one line; each die's and change's own `text`), which every surface
    shows as they are."""

    number: int
    dice: list[CardDie]
    changes: list[CardChange]
    winner: str | None
    finished: bool
    text: str


@with_config(ANSWER)
class RoundRecordKeys(TypedDict):
    """What every kind's round record adds to its round's outcome, after the outcome's keys:
    the round's number, its dice, the supplied dice it did not use (`unused`, only when
    there are any) and its summary line (`class XRoundRecord(XRoundOutcome,
    RoundRecordKeys)`)."""

    number: int
    rolls: list[RollRecord]
    unused: NotRequired[list[UnusedRecord]]
    summary: str
    #: The round as a card (one, for now), added to every answer that shows the round: rendered
    #: when served, never stored (docs/verifiable-dice.md).
    cards: NotRequired[list[RoundCard]]


@with_config(ANSWER)
class CollectedKeys(TypedDict):
    """What the round record of a kind with seats adds for a round that waited for the seats'
    dice: who answered for each name — its seat (its dice), the GM (its dice, or rolling for
    it), the server at the deadline (any dice the seat had sent are played), or the server at
    the seat's own asking (`roll-for-me`). Each die's own source is in `rolls`."""

    dice_from: NotRequired[dict[str, Literal["seat", "gm", "deadline", "roll-for-me"]]]


def unused_records(leftovers: Iterable[UnusedDie]) -> list[UnusedRecord]:
    """Unused supplied dice as typed `unused` entries (`UnusedDie.record()`, typed)."""
    return [cast(UnusedRecord, entry.record()) for entry in leftovers]


def roll_records(log: Iterable[DieRoll]) -> list[RollRecord]:
    """A dice log as typed `rolls` entries (the same keys and values as `Dice.rolls()`)."""
    records: list[RollRecord] = []
    for entry in log:
        record: RollRecord = {
            "who": entry.who,
            "purpose": entry.purpose,
            "dice": entry.dice,
            "values": list(entry.values),
            "source": entry.source,
        }
        if entry.by is not None:
            record["by"] = entry.by
        if entry.sides is not None:
            record["sides"] = list(entry.sides)
        records.append(record)
    return records


#: How a session's server dice are made: from the CSPRNG (or its `seed`), or verifiable
#: (committed, derived, chained and revealed: docs/verifiable-dice.md).
DiceMode = Annotated[
    Literal["server", "verifiable"],
    Field(
        description='`"verifiable"`: every server die derived from a committed secret seed '
        "and the seeds the token holders add, every round chained, all of it revealed once the "
        "session is over (docs/verifiable-dice.md); not with `seed`"
    ),
]


def _utf8(value: str) -> str:
    value.encode("utf-8")  # a lone surrogate has no UTF-8: a 422
    return value


#: A seed a token holder adds to a verifiable session: 1 to 256 Unicode code points (not UTF-8
#: bytes: docs/verifiable-dice.md#the-seeds-added), as sent (never normalised: its exact UTF-8
#: bytes feed the dice), and no control character (Cc: the other token holders see it, and
#: PostgreSQL's text cannot hold a NUL).
AddedSeed = Annotated[
    str,
    StringConstraints(min_length=1, max_length=256, pattern=f"^[^{CONTROLS}]*$"),
    AfterValidator(_utf8),
    BeforeValidator(_refusing(_CONTROL, "a seed")),
]


class SeedBody(Strict):
    """A seed a token holder adds to a verifiable session before its first round."""

    seed: Annotated[
        AddedSeed,
        Field(
            description="any text of 1 to 256 Unicode code points (not bytes); its exact UTF-8 "
            "bytes are hashed"
        ),
    ]


class Problem(BaseModel):
    """An error (RFC 9457 problem+json); a 422 lists at most 50 `errors` and counts the rest."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[dict[str, object]] | None = None
    errors_omitted: int | None = None
