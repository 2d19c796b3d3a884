"""Schemas of Legend skill games (API.md "Skill games", RULES.md §4).

The schemas check shapes and ranges; the rules (`app.rules.skill_games.config_from_dict`)
check what depends on the game as a whole (unique names, tiers only in bidding games, ...).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from app.api.schemas.common import D20, Name, Seed, Strict
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
Text = Annotated[str, StringConstraints(min_length=1, max_length=500, strip_whitespace=True)]


class SkillGameEffect(Strict):
    """An effect; in bidding games a tier used from `min_margin` (default 0) up."""

    min_margin: Annotated[int, Field(ge=0, le=MAX_AMOUNT)] | None = None
    text: Text
    progress: Amount = 0
    tokens: Amount = 0
    target: Literal["self", "opponents"] = "self"


class SkillGameAction(Strict):
    name: Name
    #: Option games only: what buying the action costs in tokens.
    cost: Annotated[int, Field(ge=0, le=MAX_AMOUNT)] | None = None
    effects: Annotated[list[SkillGameEffect], Field(min_length=1, max_length=MAX_EFFECTS)]


class SkillGameMember(Strict):
    name: Name
    skills: Annotated[dict[Name, Modifier], Field(max_length=MAX_SKILLS)] = Field(
        default_factory=dict
    )


class SkillGameParty(Strict):
    name: Name
    controller: Literal["gm", "players"]
    members: Annotated[list[SkillGameMember], Field(min_length=1, max_length=MAX_MEMBERS)]


class SkillGameCreate(Strict):
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
    """The party's own d20 (or d20s, the first and its rerolls) ordering tied bidders."""

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
