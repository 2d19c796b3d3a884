"""Arm wrestles for the walks' property tests: small matches from any state of a session."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from app.rules import arm_wrestling as rules


def competitor(name: str, strength: int, con: int, con_mod: int, **fields: Any) -> rules.Competitor:
    return rules.Competitor(name, strength, con, con_mod, **fields)


@st.composite
def small_matches(
    draw: st.DrawFn, most_target: int = 30, most_con: int = 8
) -> tuple[rules.Config, rules.State]:
    """A match to a target of at most `most_target` with Constitution scores of at most
    `most_con` (so that fatigue ends it within a few dozen rounds), from a state one round
    in: any DS under the target (often one short of it), a few fatigue checks made."""
    target = draw(st.integers(1, most_target))
    strength = draw(st.tuples(st.integers(-5, 25), st.integers(-5, 5)))
    con = draw(st.tuples(st.integers(1, most_con), st.integers(1, most_con)))
    con_mod = draw(st.tuples(st.integers(-3, 6), st.integers(-3, 6)))
    max_rounds = draw(st.integers(1, 40))
    drawn = draw(st.tuples(st.integers(-20, most_target - 1), st.integers(-20, most_target - 1)))
    ds = (min(drawn[0], target - 1), min(drawn[1], target - 1))  # often just short of it
    checks = draw(st.tuples(st.integers(0, 3), st.integers(0, 3)))
    config = rules.Config(
        competitor("A", strength[0], con[0], con_mod[0]),
        competitor("B", strength[1], con[1], con_mod[1]),
        target=target,
        max_rounds=max_rounds + 1,
    )
    return config, rules.State(names=("A", "B"), ds=ds, con_checks_made=checks, rounds_played=1)
