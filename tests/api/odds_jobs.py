"""Questions for the odds worker's tests, importable by its process: each records that it was
computed in a list the test holds (a manager's proxy), and one waits for the test's word."""

from __future__ import annotations

from typing import Any

from app.api.odds.skill_games import TOKENS_EXAMPLE

#: A skill game of two parties, as the odds' own example has it.
TOKENS_GAME: dict[str, Any] = TOKENS_EXAMPLE["game"]


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
