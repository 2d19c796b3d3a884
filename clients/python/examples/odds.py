"""Odds: exact for a GURPS Quick Contest, and from an arm wrestle's state after a round.

python examples/odds.py [base URL]     # default http://127.0.0.1:8000
"""

from __future__ import annotations

import sys
from fractions import Fraction

from arbiter_client import Arbiter
from arbiter_client import operations as ops

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"


def main() -> None:
    with Arbiter(BASE_URL) as arbiter:
        contest = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}
        quick = arbiter.send(ops.odds_gurps_quick_contest(contest)).body
        print(f"Ann wins {Fraction(quick.a_wins_exact)} ({quick.a_wins:.4f})")
        print(f"Bob wins {Fraction(quick.b_wins_exact)} ({quick.b_wins:.4f})")

        match = {
            "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
            "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
        }
        session = arbiter.send(ops.arm_wrestles.create(match)).body
        assert session.tokens is not None
        gm = session.tokens.gm
        dice = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
        arbiter.send(ops.arm_wrestles.play(session.id, dice), token=gm)
        # From where the match stands, every round still to come weighed: an exact fraction,
        # or for a match too long for that, a double with its error bound.
        odds = arbiter.send(ops.arm_wrestles.odds(session.id), token=gm).body
        if odds.a_wins_exact is not None:
            chance = f"{Fraction(odds.a_wins_exact)} ({odds.a_wins:.3f}, {odds.method})"
        else:
            bound = odds.error_bound["a_wins"] if odds.error_bound else None
            chance = f"{odds.a_wins:.3f} ± {bound} ({odds.method})"
        print(f"after round {odds.rounds_played}: Lydia wins {chance}")
        arbiter.send(ops.arm_wrestles.delete(session.id), token=gm)


if __name__ == "__main__":
    main()
