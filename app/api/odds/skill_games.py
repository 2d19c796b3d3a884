"""The token odds of one round of a skill game (docs/rules.md#skill-games)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from app.api.odds.figures import distribution, exact, probability
from app.api.schemas.odds import (
    OddsPartyTokens,
    OddsSkillGameTokensAnswer,
    OddsSkillGameTokensRequest,
)
from app.rules import serial
from app.rules import skill_games as rules
from app.rules.messages import Argument, Fixed, Listing, Message, Percent, english, m
from app.rules.odds import skill_games as skill_odds

#: Up to this many (member, skill) checks the token odds are computed inline (well under a
#: millisecond); past it, in the worker process (64 members x 64 skills: tens of ms).
INLINE_TOKEN_CHECKS: Final = 256
#: A token question's body up to this size is checked here (its checks take well under a
#: millisecond); a larger one is read, checked, answered and written in the worker process:
#: the 64-member question's checks alone take about 12 ms, and its answer is about 530 KB.
INLINE_TOKEN_BODY_BYTES: Final = 2048


def skill_game_tokens_answer(body_json: str) -> OddsSkillGameTokensAnswer:
    """The token odds of a request already checked (`_check_tokens_request`), from its JSON
    (hashable, for the cache, and cheap to send to the worker process)."""
    body = OddsSkillGameTokensRequest.model_validate_json(body_json)
    return tokens_answer(body.game.to_rules(), body.skills)


def tokens_from_json(
    config_json: str, party: str, skills: tuple[str, ...]
) -> OddsSkillGameTokensAnswer:
    """`tokens_answer` for one party of a session's game (its config as the worker is sent
    it), the choice already checked."""
    config = serial.load(rules.Config, json.loads(config_json))
    return tokens_answer(config, {party: skills})


def tokens_answer(
    config: rules.Config, skills: Mapping[str, Sequence[str]]
) -> OddsSkillGameTokensAnswer:
    """The token odds of each named party choosing its skills (checked beforehand)."""
    parties: dict[str, OddsPartyTokens] = {}
    for odds in skill_odds.token_odds(config, skills):
        tokens, tokens_exact = distribution(odds.tokens)
        parties[odds.party] = {
            "skills": list(odds.skills),
            "token": {skill: probability(p) for skill, p in odds.token.items()},
            "token_exact": {skill: exact(p) for skill, p in odds.token.items()},
            "tokens": tokens,
            "tokens_exact": tokens_exact,
            "expected_tokens": probability(odds.expected),
            "expected_tokens_exact": exact(odds.expected),
        }
    answer: OddsSkillGameTokensAnswer = {
        "method": "exact",
        "dc": config.dc,
        "token_rule": config.token_rule,
        "parties": parties,
        "summary": "",
    }
    answer["summary"] = english(tokens_said(answer))
    return answer


def tokens_said(answer: OddsSkillGameTokensAnswer) -> Message:
    """The token odds in one line, a clause a party (docs/languages.md)."""
    clauses: list[Argument] = [
        m(
            "{party}: {expected} tokens expected ({chances})",
            party=party,
            expected=Fixed(tokens["expected_tokens"]),
            chances=Listing(
                [
                    m("{skill} {share}", skill=skill, share=Percent(share))
                    for skill, share in tokens["token"].items()
                ]
            ),
        )
        for party, tokens in answer["parties"].items()
    ]
    return m("{clauses}.", clauses=Listing(clauses, "; "))


#: The token-odds example of the document (two parties of a three-skill game), which the
#: tests and the benchmark ask too.
TOKENS_EXAMPLE: Final[dict[str, Any]] = {
    "game": {
        "dc": 14,
        "skill_list": ["Climb", "Lore", "Sneak"],
        "skills_per_round": 2,
        "kind": "option",
        "actions": [{"name": "Rest", "cost": 0, "effects": [{"text": "rest"}]}],
        "goal": 5,
        "parties": [
            {
                "name": "Heroes",
                "controller": "players",
                "members": [
                    {"name": "Ann", "skills": {"Climb": 4}},
                    {"name": "Bo", "skills": {"Lore": 6}},
                ],
            },
            {
                "name": "Rivals",
                "controller": "gm",
                "members": [{"name": "Cy", "skills": {"Sneak": 5}}],
            },
        ],
    },
    "skills": {"Heroes": ["Climb", "Lore"], "Rivals": ["Sneak", "Lore"]},
}
