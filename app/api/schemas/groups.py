"""Request and response schemas of one against many and rankings (docs/api.md#one-against-many,
docs/rules.md#one-against-many)."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
    D20,
    DISTINCT_NAMES,
    Name,
    RollRecord,
    RuleLink,
    Seed,
    Strict,
    UnusedRecord,
    all_of,
    given,
    in_schema,
    is_,
    left_out,
    when,
)
from app.api.schemas.gurps import GurpsCompetitor, GurpsCompetitorRoll
from app.rules.checks import MAX_MODIFIER, MIN_MODIFIER
from app.rules.common import MAX_OPPOSED_REROLLS
from app.rules.groups import MAX_OPPONENTS, MAX_RANKED

Opponents = Annotated[list[GurpsCompetitor], Field(min_length=1, max_length=MAX_OPPONENTS)]
Ranked = Annotated[list[GurpsCompetitor], Field(min_length=2, max_length=MAX_RANKED)]
Modifier = Annotated[int, Field(ge=MIN_MODIFIER, le=MAX_MODIFIER)]
Rerolls = Annotated[list[D20], Field(max_length=MAX_OPPOSED_REROLLS)]
#: "versus" (`mode` left out, or "versus") takes `competitor` and `opponents`; "ranked" takes
#: `competitors`; each leaves the other's out.
VERSUS_OR_RANKED = when(
    is_("mode", "ranked"),
    all_of(given("competitors", "array"), left_out("competitor", "opponents")),
    all_of(given("competitor", "object"), given("opponents", "array"), left_out("competitors")),
)


class QuickContestsRequest(Strict):
    """One competitor's single roll against each opponent's own (`mode` "versus", the
    default: `competitor` and `opponents`), or everyone ranked by one roll each (`mode`
    "ranked": `competitors`). docs/rules.md#one-against-many.

    Rules across fields:
    - "versus" takes `competitor` and `opponents` and no `competitors`; "ranked" takes
      `competitors` and neither of the others;
    - every name differs from every other.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(VERSUS_OR_RANKED, beyond=(DISTINCT_NAMES,))
    )

    mode: Literal["versus", "ranked"] = "versus"
    competitor: GurpsCompetitor | None = None
    opponents: Opponents | None = None
    competitors: Ranked | None = None
    seed: Seed | None = None


class QuickContestsOddsRequest(QuickContestsRequest):
    """The same body as `POST /v1/gurps/quick-contests`; supplied rolls are not read."""


class OpposedCompetitor(Strict):
    name: Name
    modifier: Modifier
    roll: Annotated[D20 | None, Field(description="the natural d20, if already rolled")] = None
    rerolls: Annotated[
        dict[Name, Rerolls] | None,
        Field(
            description="the competitor's own rerolls of a tie, by opponent: a pair that ties "
            "with equal modifiers rolls again, the competitor's reroll that pair's own"
        ),
    ] = None


class OpposedOpponent(Strict):
    name: Name
    modifier: Modifier
    roll: Annotated[D20 | None, Field(description="the natural d20, if already rolled")] = None
    rerolls: Annotated[
        Rerolls | None, Field(description="the opponent's rerolls of a tie, in order")
    ] = None


class RankedChecker(Strict):
    name: Name
    modifier: Modifier
    roll: Annotated[D20 | None, Field(description="the natural d20, if already rolled")] = None
    rerolls: Annotated[
        Rerolls | None,
        Field(
            description="the competitor's rerolls of a tie with those equal to it in total and "
            "modifier, in order"
        ),
    ] = None


class OpposedChecksRequest(Strict):
    """One d20 check against each opponent's opposed check (`mode` "versus", the default:
    `competitor` and `opponents`), or everyone ranked by one d20 check each (`mode` "ranked":
    `competitors`). docs/rules.md#one-against-many.

    Rules across fields:
    - "versus" takes `competitor` and `opponents` and no `competitors`; "ranked" takes
      `competitors` and neither of the others;
    - every name differs from every other;
    - `competitor.rerolls` names opponents of this call.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            VERSUS_OR_RANKED,
            beyond=(DISTINCT_NAMES, "`competitor.rerolls` naming someone who is not an opponent"),
        )
    )

    mode: Literal["versus", "ranked"] = "versus"
    competitor: OpposedCompetitor | None = None
    opponents: (
        Annotated[list[OpposedOpponent], Field(min_length=1, max_length=MAX_OPPONENTS)] | None
    ) = None
    competitors: (
        Annotated[list[RankedChecker], Field(min_length=2, max_length=MAX_RANKED)] | None
    ) = None
    seed: Seed | None = None


class OpposedChecksOddsRequest(OpposedChecksRequest):
    """The same body as `POST /v1/d20/opposed-checks`; supplied rolls are not read."""


# --- answers ----------------------------------------------------------------------------------


@with_config(ANSWER)
class QuickContestPair(TypedDict):
    """One opponent's roll and its quick contest with the competitor."""

    opponent: GurpsCompetitorRoll
    winner: str | None
    tie: bool
    margin_of_victory: int | None


@with_config(ANSWER)
class RankedEntry(GurpsCompetitorRoll):
    """A competitor's place (1 is first; equal results share a place, the next skipped)."""

    place: int


@with_config(ANSWER)
class QuickContestsAnswer(TypedDict):
    """The answer of `POST /v1/gurps/quick-contests`. In "versus" mode `competitor`, `results`
    (one per opponent, in their order) and the counts; in "ranked" mode `ranking` (best first)
    and `winner` (null when first place is shared). What does not apply to the mode is null
    (or empty)."""

    mode: Literal["versus", "ranked"]
    competitor: GurpsCompetitorRoll | None
    results: list[QuickContestPair]
    beaten: int | None
    beaten_by: int | None
    ties: int | None
    ranking: list[RankedEntry]
    winner: str | None
    rule: RuleLink
    rolls: list[RollRecord]
    summary: str


@with_config(ANSWER)
class OpposedAttempt(TypedDict):
    """One pair of checks: each side's natural d20 and total."""

    competitor_roll: int
    competitor_total: int
    opponent_roll: int
    opponent_total: int


@with_config(ANSWER)
class OpposedPairResult(TypedDict):
    """One opponent's opposed check against the competitor: every attempt (the first holds
    the competitor's one d20; the last decided it)."""

    opponent: str
    modifier: int
    winner: str
    attempts: list[OpposedAttempt]


@with_config(ANSWER)
class RankedCheckEntry(TypedDict):
    """A competitor's place (1 is first; those still tied after every reroll share a place,
    the next skipped), its check, and the natural d20s of its rerolls of a tie."""

    place: int
    name: str
    modifier: int
    roll: int
    total: int
    rerolls: list[int]


@with_config(ANSWER)
class OpposedChecksAnswer(TypedDict):
    """The answer of `POST /v1/d20/opposed-checks`. In "versus" mode `competitor`, its
    `modifier`, `roll` and `total`, `results` (one per opponent, in their order) and the
    counts; in "ranked" mode `ranking` (best first) and `winner` (null when first place is
    shared). What does not apply to the mode is null (or empty)."""

    mode: Literal["versus", "ranked"]
    competitor: str | None
    modifier: int | None
    roll: int | None
    total: int | None
    results: list[OpposedPairResult]
    beaten: int | None
    beaten_by: int | None
    ranking: list[RankedCheckEntry]
    winner: str | None
    rule: RuleLink
    rolls: list[RollRecord]
    #: Supplied dice the rules did not use (only when there are any).
    unused: NotRequired[list[UnusedRecord]]
    summary: str


@with_config(ANSWER)
class OddsPair(TypedDict):
    """One opponent's own figures: the chance that the competitor beats it, ties with it (a
    GURPS quick contest only), or is beaten by it."""

    opponent: str
    beats: float
    beats_exact: str
    ties: float
    ties_exact: str
    beaten_by: float
    beaten_by_exact: str


@with_config(ANSWER)
class OddsRankedEntry(TypedDict):
    """A competitor's chance to place first alone, and to share first place."""

    name: str
    first: float
    first_exact: str
    shared_first: float
    shared_first_exact: str


@with_config(ANSWER)
class OddsGroupAnswer(TypedDict):
    """The answer of `POST /v1/odds/gurps/quick-contests` and `POST /v1/odds/d20/opposed-checks`
    (docs/rules.md#one-against-many), exact, over the competitor's one shared roll.

    `pairs` per opponent; `beaten` the distribution of how many opponents are beaten (keys
    "0" to "n"); `all_beaten` its last; `beaten_by_any` the chance that at least one opponent
    wins its pair; `independent_all_beaten` the product of the pairs' `beats`, which is what
    treating the pairs as independent would claim (wrong: they share the competitor's roll),
    for comparison. In "ranked" mode only `ranking` and `nobody_alone_first` apply (the others
    are empty or null)."""

    method: Literal["exact"]
    mode: Literal["versus", "ranked"]
    competitor: str | None
    pairs: list[OddsPair]
    beaten: dict[str, float]
    beaten_exact: dict[str, str]
    all_beaten: float | None
    all_beaten_exact: str | None
    beaten_by_any: float | None
    beaten_by_any_exact: str | None
    independent_all_beaten: float | None
    independent_all_beaten_exact: str | None
    ranking: list[OddsRankedEntry]
    nobody_alone_first: float | None
    nobody_alone_first_exact: str | None
    summary: str
