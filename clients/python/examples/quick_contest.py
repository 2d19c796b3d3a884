"""A one-shot contest: a GURPS Quick Contest, Ann's dice supplied, Bob's rolled by the server.

python examples/quick_contest.py [base URL]     # default http://127.0.0.1:8000
"""

from __future__ import annotations

import sys

from arbiter_client import Arbiter, models
from arbiter_client import operations as ops

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"


def main() -> None:
    contest = models.QuickContestRequest.model_validate(
        {
            "a": {"name": "Ann", "skill": 12, "roll": [2, 3, 4]},  # dice rolled at the table
            "b": {"name": "Bob", "skill": 10},  # the server rolls these
            "seed": 20,  # the server's dice, repeatable (leave it out for fresh ones)
        }
    )
    with Arbiter(BASE_URL) as arbiter:
        answer = arbiter.send(ops.gurps_quick_contest(contest)).body
    print(answer.summary)
    for roll in answer.rolls:
        print(f"{roll.who}: {roll.values} ({roll.source})")
    print(f"winner: {answer.winner}, by {answer.margin_of_victory}")


if __name__ == "__main__":
    main()
