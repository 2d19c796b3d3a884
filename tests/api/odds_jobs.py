"""Questions for the odds worker's tests, importable by its process: each records that it was
computed in a list the test holds (a manager's proxy), and one waits for the test's word."""

from __future__ import annotations

from typing import Any

import orjson

from app.api.odds.skill_games import INLINE_TOKEN_BODY_BYTES, TOKENS_EXAMPLE

#: A skill game of two parties, as the odds' own example has it.
TOKENS_GAME: dict[str, Any] = TOKENS_EXAMPLE["game"]


def large_token_question() -> dict[str, Any]:
    """A token question over `INLINE_TOKEN_BODY_BYTES` (a party of 60 members, 16 skills),
    which the worker answers whole: the party is "Horde", its skills `question["skills"]`."""
    skills = ["Sneak", *(f"Skill {n}" for n in range(15))]
    members = [{"name": f"Member {n}", "skills": {skills[n % 16]: n % 10}} for n in range(60)]
    game = {
        **TOKENS_GAME,
        "skill_list": skills,
        "skills_per_round": 16,
        "parties": [
            {"name": "Horde", "controller": "gm", "members": members},
            TOKENS_GAME["parties"][1],
        ],
    }
    question = {"game": game, "skills": {"Horde": skills}}
    assert len(orjson.dumps(question)) > INLINE_TOKEN_BODY_BYTES
    return question


def gated(name: str, started: Any, gate: Any, computed: Any) -> dict[str, str]:
    """Computed: say so, then wait until the test opens the gate."""
    computed.append(name)
    started.set()
    gate.wait()
    return {"name": name}


def counted(name: str, computed: Any) -> dict[str, str]:
    """Computed: say so."""
    computed.append(name)
    return {"name": name}
