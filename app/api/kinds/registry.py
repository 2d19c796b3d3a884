"""Every kind of long-running contest, by the path it is served under (`/v1/{path}`)."""

from __future__ import annotations

from collections.abc import Mapping

from app.api.kinds import AnyKind, arm_wrestles, chases, races, regular_contests, skill_games

KINDS: Mapping[str, AnyKind] = {
    kind.path: kind
    for kind in (
        arm_wrestles.KIND,
        regular_contests.KIND,
        races.KIND,
        chases.KIND,
        skill_games.KIND,
    )
}
