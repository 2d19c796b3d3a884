"""Schemas of Legend skill games (docs/api.md#skill-games, docs/rules.md#skill-games).

The request models check shapes and ranges and build the rules' config (`to_rules`); the rules
(`app.rules.skill_games.check_config`) check what depends on the game as a whole (unique names,
tiers only in bidding games, ...). The TypedDicts describe exactly the JSON served for a
session's `config`, `state`, `result` and each round record.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from app.api.schemas.common import (
    ANSWER,
    D20,
    DISTINCT_NAMES,
    NO_SEED_WITH_VERIFIABLE_DICE,
    DiceMode,
    Name,
    RollRecord,
    RoundRecordKeys,
    Seed,
    Strict,
    Text,
    given,
    in_schema,
    is_,
    left_out,
    when,
)
from app.api.sessions.presentation import SessionFields
from app.rules import skill_games as rules
from app.rules.skill_games import MAX_MEMBERS, MAX_PARTIES, MAX_ROUNDS, MIN_PARTIES

#: At most this many skills on a skill list and actions in an action set.
MAX_SKILLS = 64
MAX_ACTIONS = 64
MAX_EFFECTS = 16
#: Token and progress amounts are bounded so that no sum can grow without limit.
MAX_AMOUNT = 1_000_000
#: Grants add up, so a party's tokens (and its bid) may pass `MAX_AMOUNT`.
MAX_BID = 2**62

Modifier = Annotated[int, Field(ge=-100, le=100)]
Amount = Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]


# --- requests ---------------------------------------------------------------------------------


class SkillGameEffect(Strict):
    """An effect; in bidding games a tier used from `min_margin` (default 0) up."""

    min_margin: Annotated[int, Field(ge=0, le=MAX_AMOUNT)] | None = None
    text: Text
    progress: Amount = 0
    tokens: Amount = 0
    target: Literal["self", "opponents"] = "self"

    def to_rules(self, kind: rules.Kind) -> rules.Effect:
        # Ruling: a bidding tier without min_margin applies from a margin of 0. An option
        # game's min_margin is kept, for `check_config` to refuse.
        margin = 0 if kind == "bidding" and self.min_margin is None else self.min_margin
        return rules.Effect(self.text, self.progress, self.tokens, self.target, margin)


class SkillGameAction(Strict):
    name: Name
    #: Option games only: what buying the action costs in tokens.
    cost: Annotated[int, Field(ge=0, le=MAX_AMOUNT)] | None = None
    effects: Annotated[list[SkillGameEffect], Field(min_length=1, max_length=MAX_EFFECTS)]

    def to_rules(self, kind: rules.Kind) -> rules.Action:
        return rules.Action(
            self.name, tuple(effect.to_rules(kind) for effect in self.effects), self.cost
        )


class SkillGameMember(Strict):
    name: Name
    skills: Annotated[dict[Name, Modifier], Field(max_length=MAX_SKILLS)] = Field(
        default_factory=dict
    )

    def to_rules(self) -> rules.Member:
        return rules.Member(self.name, dict(self.skills))


class SkillGameParty(Strict):
    name: Name
    controller: Literal["gm", "players"]
    members: Annotated[list[SkillGameMember], Field(min_length=1, max_length=MAX_MEMBERS)]

    def to_rules(self) -> rules.Party:
        return rules.Party(
            self.name, self.controller, tuple(member.to_rules() for member in self.members)
        )


class SkillGameCreate(Strict):
    """A new skill game: its skills, actions, parties and end (docs/rules.md#skill-games).

    Rules across fields:
    - no skill is twice in `skill_list`;
    - 1 <= `skills_per_round` <= the number of skills in `skill_list`;
    - a bidding game takes one action per round (`max_actions_per_round` left out, or 1);
    - action names are unique;
    - an option game needs `cost` on every action; a bidding game takes none (bids pay);
    - `min_margin` only in bidding games, and distinct among one action's effects;
    - `goal`, `max_rounds` or both;
    - party and member names are unique, all of them together;
    - every skill in a member's `skills` is in `skill_list`;
    - at most 64 members in all the parties together;
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        json_schema_extra=in_schema(
            when(
                is_("kind", "option"),
                {
                    "properties": {
                        "actions": {
                            "items": {
                                **given("cost", "integer"),
                                "properties": {
                                    "cost": {"type": "integer"},
                                    "effects": {"items": left_out("min_margin")},
                                },
                            }
                        }
                    }
                },
            ),
            when(
                is_("kind", "bidding"),
                {
                    "properties": {
                        "max_actions_per_round": {"enum": [1, None]},
                        "actions": {"items": left_out("cost")},
                    }
                },
            ),
            when({"not": given("goal", "integer")}, given("max_rounds", "integer")),
            NO_SEED_WITH_VERIFIABLE_DICE,
            beyond=(
                DISTINCT_NAMES + ": skills in `skill_list`, actions, parties and members",
                "`skills_per_round` above the number of skills in `skill_list`",
                "two effects of one action with the same `min_margin`",
                "a member's skill that is not in `skill_list`",
                "more than 64 members in all the parties together",
            ),
        )
    )

    dc: Annotated[int, Field(ge=-1000, le=1000)]
    skill_list: Annotated[list[Name], Field(min_length=1, max_length=MAX_SKILLS)]
    skills_per_round: Annotated[int, Field(ge=1, le=MAX_SKILLS)]
    kind: Literal["bidding", "option"]
    max_actions_per_round: Annotated[int, Field(ge=1, le=MAX_ACTIONS)] | None = None
    actions: Annotated[list[SkillGameAction], Field(min_length=1, max_length=MAX_ACTIONS)]
    goal: Annotated[int, Field(ge=1, le=MAX_AMOUNT)] | None = None
    max_rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] | None = None
    token_rule: Literal["exceed", "meet"] = "exceed"
    parties: Annotated[list[SkillGameParty], Field(min_length=MIN_PARTIES, max_length=MAX_PARTIES)]
    seed: Seed | None = None
    dice: DiceMode = "server"

    def to_rules(self) -> rules.Config:
        """The game's config, defaults applied (`check_config` checks it as a whole)."""
        return rules.Config(
            dc=self.dc,
            skill_list=tuple(self.skill_list),
            skills_per_round=self.skills_per_round,
            kind=self.kind,
            actions=tuple(action.to_rules(self.kind) for action in self.actions),
            parties=tuple(party.to_rules() for party in self.parties),
            max_actions_per_round=(
                1 if self.max_actions_per_round is None else self.max_actions_per_round
            ),
            goal=self.goal,
            max_rounds=self.max_rounds,
            token_rule=self.token_rule,
        )


class SkillGameSkills(Strict):
    """A party's skills for this round; `rolls` are its members' d20s, `{member: {skill: d20}}`."""

    party: Name
    skills: Annotated[list[Name], Field(max_length=MAX_SKILLS)]
    rolls: (
        Annotated[
            dict[Name, Annotated[dict[Name, D20], Field(max_length=MAX_SKILLS)]],
            Field(max_length=MAX_MEMBERS),
        ]
        | None
    ) = None


class SkillGameOrderDice(Strict):
    """The party's own d20 (or d20s, the first and its rerolls) ordering tied bidders.

    The kind's dice model: its one field is the one fixed dice purpose. A skill check's die
    is supplied under the skill's own name (`SkillGameSkills.rolls`), so those purposes are
    the game's skill list, not fields.
    """

    order: D20 | Annotated[list[D20], Field(min_length=1, max_length=21)]


class SkillGameChoice(Strict):
    """A sealed choice: `action` and `bid` (bidding) or `actions` (option)."""

    party: Name
    action: Name | None = None
    bid: Annotated[int, Field(ge=0, le=MAX_BID)] | None = None
    actions: Annotated[list[Name], Field(max_length=MAX_ACTIONS)] | None = None
    #: Only the submitting party's own order dice: `{party: {"order": d20 or [d20, ...]}}`.
    rolls: Annotated[dict[Name, SkillGameOrderDice], Field(max_length=1)] | None = None


class SkillGameGrant(Strict):
    party: Name
    tokens: Amount
    reason: Text


class SkillGameEnd(Strict):
    reason: Text | None = None


# --- answers ----------------------------------------------------------------------------------


@with_config(ANSWER)
class SkillGameEffectConfig(TypedDict):
    """An action's effect as created; `min_margin` only in bidding games."""

    min_margin: NotRequired[int]
    text: str
    progress: int
    tokens: int
    target: Literal["self", "opponents"]


@with_config(ANSWER)
class SkillGameActionConfig(TypedDict):
    """An action as created; `cost` only in option games."""

    name: str
    cost: NotRequired[int]
    effects: list[SkillGameEffectConfig]


@with_config(ANSWER)
class SkillGameMemberConfig(TypedDict):
    name: str
    skills: dict[str, int]


@with_config(ANSWER)
class SkillGamePartyConfig(TypedDict):
    name: str
    controller: Literal["gm", "players"]
    members: list[SkillGameMemberConfig]


@with_config(ANSWER)
class SkillGameConfig(TypedDict):
    """A skill game's `config`: the create body normalised (defaults filled in, no seed)."""

    dc: int
    skill_list: list[str]
    skills_per_round: int
    kind: Literal["bidding", "option"]
    max_actions_per_round: int
    actions: list[SkillGameActionConfig]
    goal: NotRequired[int]
    max_rounds: NotRequired[int]
    token_rule: Literal["exceed", "meet"]
    parties: list[SkillGamePartyConfig]


@with_config(ANSWER)
class SkillGameState(TypedDict):
    """A skill game's `state`: who has chosen and sealed, never what."""

    phase: Literal["skills", "choices"]
    tokens: dict[str, int]
    progress: dict[str, int]
    skills_done: list[str]
    submitted: list[str]
    round: int
    finished: bool
    winner: str | None


@with_config(ANSWER)
class SkillGameResult(TypedDict):
    """A finished skill game's `result`."""

    winner: str | None
    tie: bool
    progress: dict[str, int]
    tokens: dict[str, int]
    reason: Literal["goal", "max_rounds", "ended"] | None


@with_config(ANSWER)
class SkillGameCheck(TypedDict):
    """A party's best result for one chosen skill."""

    best: int
    by: str
    token: bool


@with_config(ANSWER)
class SkillGameBid(TypedDict):
    """A revealed bidding choice: its bid, and its action when the reader may see it — the
    action of a party that took it, or the reader's own (a party's token), or any (the GM's)
    (docs/rules.md#bidding)."""

    action: NotRequired[str]
    bid: int


@with_config(ANSWER)
class SkillGamePurchase(TypedDict):
    """A revealed option choice: the actions bought (maybe none)."""

    actions: list[str]


@with_config(ANSWER)
class SkillGameTakenEffect(TypedDict):
    """An effect that took place; `margin` and `tier` only in bidding games."""

    party: str
    action: str
    margin: NotRequired[int]
    tier: NotRequired[int]
    text: str


@with_config(ANSWER)
class SkillGameGrantRecord(TypedDict):
    """A grant of the GM's, as answered and as listed in the next revealed round."""

    party: str
    tokens: int
    reason: str


@with_config(ANSWER)
class SkillGameRoundOutcome(TypedDict):
    """A revealed round without `number`, `rolls` and `summary`."""

    checks: dict[str, dict[str, SkillGameCheck]]
    bids: NotRequired[dict[str, int]]
    choices: dict[str, SkillGameBid | SkillGamePurchase]
    order: NotRequired[list[str]]
    effects: list[SkillGameTakenEffect]
    tokens: dict[str, int]
    progress: dict[str, int]
    finished: bool
    winner: NotRequired[str | None]
    #: The GM's grants since the previous reveal, when there were any.
    grants: NotRequired[list[SkillGameGrantRecord]]


@with_config(ANSWER)
class SkillGameRound(SkillGameRoundOutcome, RoundRecordKeys):
    """A revealed round as served: every die of the round (skill checks, then order d20s)."""


# --- the answers of the skill game's own calls -----------------------------------------------


#: A skill game session as every answer shows it.
@with_config(ANSWER)
class SkillGameSession(SessionFields):
    """A skill game as every answer shows it."""

    config: SkillGameConfig
    state: SkillGameState
    result: SkillGameResult | None


@with_config(ANSWER)
class SkillGameSkillsAnswer(TypedDict):
    """A party's checks for the round, its dice and the session after them."""

    party: str
    checks: dict[str, SkillGameCheck]
    tokens_earned: int
    rolls: list[RollRecord]
    session: SkillGameSession
    summary: str


@with_config(ANSWER)
class SkillGameSealed(TypedDict):
    """202: the choice is sealed; who is still awaited (never what anyone sealed)."""

    submitted: Literal[True]
    party: str
    waiting_for: list[str]
    session: SkillGameSession
    summary: str


@with_config(ANSWER)
class SkillGameRevealed(TypedDict):
    """200: the last choice revealed and resolved the round."""

    round: SkillGameRound
    session: SkillGameSession
    summary: str


@with_config(ANSWER)
class SkillGameGranted(TypedDict):
    """The GM's grant and the session after it."""

    grant: SkillGameGrantRecord
    session: SkillGameSession
    summary: str


@with_config(ANSWER)
class SkillGameEnded(TypedDict):
    """The ended game: its session and one line."""

    session: SkillGameSession
    summary: str
