"""A session: an arm wrestle played round by round, as a chat bot or a VTT plays it.

Each change names the version it was decided on (`If-Match`, from the last answer's `ETag`) and
carries an `Idempotency-Key`, so a retry after a lost answer replays it instead of playing the
round twice. Errors come as typed exceptions carrying the problem+json.

    python examples/arm_wrestle.py [base URL]     # default http://127.0.0.1:8000
"""

from __future__ import annotations

import sys
import uuid

from arbiter_client import Arbiter, InvalidInput, PreconditionFailed
from arbiter_client import operations as ops

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000"
MATCH = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}


def main() -> None:
    with Arbiter(BASE_URL) as arbiter:
        created = arbiter.send(ops.arm_wrestles.create(MATCH))
        session = created.body
        assert session.tokens is not None  # shown once, in the creation's answer
        gm = session.tokens.gm  # keep it: every later call needs it
        print(f"created {created.location} at version {created.version}")

        # A round with the dice the players rolled; the key makes a retry safe.
        key = str(uuid.uuid4())
        dice = {"rolls": {"Lydia": {"strength": 17}, "Ogre": {"strength": 8}}}
        round_one = ops.arm_wrestles.play(
            session.id, dice, if_match=created.version, idempotency_key=key
        )
        played = arbiter.send(round_one, token=gm)
        print(played.body.summary)
        print(f"version {played.version}, replayed: {played.replayed}")

        # The same call again (as after a timeout): the stored answer, nothing played twice.
        again = arbiter.send(round_one, token=gm)
        print(f"retried: version {again.version}, replayed: {again.replayed}")

        # A change decided on a stale version is refused (412), and nothing changes.
        try:
            arbiter.send(ops.arm_wrestles.play(session.id, if_match=created.version), token=gm)
        except PreconditionFailed as stale:
            print(f"{stale.status_code} {stale.problem.title}: {stale.problem.detail}")

        # Invalid dice: a 422 naming each wrong field.
        try:
            wrong = {"rolls": {"Lydia": {"strength": 21}}}
            arbiter.send(ops.arm_wrestles.play(session.id, wrong), token=gm)
        except InvalidInput as invalid:
            for error in invalid.problem.errors or []:
                print(f"{invalid.status_code} at {error.loc}: {error.msg}")

        # The rest with server dice, then the session is deleted.
        resolved = arbiter.send(ops.arm_wrestles.resolve(session.id), token=gm).body
        finished = resolved.session
        print(f"{finished.status} after {finished.round} rounds: {resolved.summary}")
        deleted = arbiter.send(ops.arm_wrestles.delete(session.id), token=gm)
        print(f"deleted: {deleted.status}")


if __name__ == "__main__":
    main()
