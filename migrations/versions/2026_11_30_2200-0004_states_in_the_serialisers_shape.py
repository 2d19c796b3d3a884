"""Sessions stored before the generic serialiser: their state in the shape it now reads.

Two kinds stored their state in another shape before `app.rules.serial` wrote every kind's:
- an arm wrestle kept its DS and its Constitution checks made by name (`{"Lydia": 3, ...}`)
  and its leader; now they are pairs in (a, b) order (`names`' order) and the leader is
  worked out from the DS;
- a skill game kept the pending part of its round (`round_rolls`, `order_dice`, `grants`)
  beside the rules' state; now the state is `{"game": <the rules' state>, "pending": {...}}`.
The other kinds' states already have the shape. Without this, such a session answered 500.

Configs: a race's and a chase's stored config (shown as the session's `config`) gains the
rule options added since, with their defaults, which are how those sessions were played
(`speed_bonus: "increment"`, and a race's `pacing_rule: "safe-increments"`); without them its
answer lacked fields the API document requires. The downgrade leaves configs as they are (the
code before ignores keys it does not know).

Rows are read and rewritten a batch at a time, by id; a state already in the new shape is
left alone, so running it again changes nothing. The downgrade writes the old shape back.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 22:00:00
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 500
PENDING = ("round_rolls", "order_dice", "grants")
#: Kept at the top of every kind's stored state, beside its rules' state.
START_ROLLS = "start_rolls"

#: The rule options a kind's config gained since, with the defaults it was played by.
OPTIONS: dict[str, dict[str, str]] = {
    "races": {"speed_bonus": "increment", "pacing_rule": "safe-increments"},
    "chases": {"speed_bonus": "increment"},
}

Document = sa.JSON().with_variant(JSONB(), "postgresql")
sessions = sa.table(
    "sessions",
    sa.column("id", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("config", Document),
    sa.column("state", Document),
)

State = dict[str, Any]


def arm_wrestle_up(state: State) -> State | None:
    if not isinstance(state.get("ds"), dict):
        return None
    names = state["names"]
    moved = {key: value for key, value in state.items() if key != "leader"}
    moved["ds"] = [state["ds"][name] for name in names]
    moved["con_checks_made"] = [state["con_checks_made"][name] for name in names]
    return moved


def arm_wrestle_down(state: State) -> State | None:
    if not isinstance(state.get("ds"), list):
        return None
    names = state["names"]
    ds = state["ds"]
    moved = dict(state)
    moved["ds"] = dict(zip(names, ds, strict=True))
    moved["con_checks_made"] = dict(zip(names, state["con_checks_made"], strict=True))
    moved["leader"] = None if ds[0] == ds[1] else names[0] if ds[0] > ds[1] else names[1]
    return moved


def skill_game_up(state: State) -> State | None:
    if "game" in state:
        return None
    # `round` and `submitted` were kept too; the rules' state works them out.
    dropped = (*PENDING, START_ROLLS, "round", "submitted")
    game = {key: value for key, value in state.items() if key not in dropped}
    moved: State = {
        "game": game,
        "pending": {key: state[key] for key in PENDING if key in state},
    }
    if START_ROLLS in state:
        moved[START_ROLLS] = state[START_ROLLS]
    return moved


def skill_game_down(state: State) -> State | None:
    if "game" not in state:
        return None
    game = state["game"]
    pending = state.get("pending", {})
    moved: State = {
        **game,
        # What the old shape also kept: the round in play and the parties that sealed.
        "round": game.get("rounds_played", 0) + 1,
        "submitted": [party for party in game["parties"] if party in game.get("choices", {})],
        "round_rolls": pending.get("round_rolls", []),
        "order_dice": pending.get("order_dice", {}),
        "grants": pending.get("grants", []),
    }
    if START_ROLLS in state:
        moved[START_ROLLS] = state[START_ROLLS]
    return moved


def with_options(kind: str) -> Callable[[State], State | None]:
    """A config of `kind` with the options it lacks, at their defaults (None: it has them)."""

    def change(config: State) -> State | None:
        missing = {key: value for key, value in OPTIONS[kind].items() if key not in config}
        return {**config, **missing} if missing else None

    return change


def rewrite(kind: str, column: str, change: Callable[[State], State | None]) -> None:
    """Every session of `kind`, a batch at a time by id: its `column` through `change`
    (None: already in that shape, left alone)."""
    connection = op.get_bind()
    stored = sessions.c[column]
    after = ""
    while True:
        rows = connection.execute(
            sa.select(sessions.c.id, stored)
            .where(sessions.c.kind == kind, sessions.c.id > after)
            .order_by(sessions.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        for session_id, value in rows:
            changed = change(value)
            if changed is not None:
                connection.execute(
                    sa.update(sessions).where(sessions.c.id == session_id).values({column: changed})
                )
        after = rows[-1][0]


def upgrade() -> None:
    rewrite("arm-wrestles", "state", arm_wrestle_up)
    rewrite("skill-games", "state", skill_game_up)
    for kind in OPTIONS:
        rewrite(kind, "config", with_options(kind))


def downgrade() -> None:
    rewrite("arm-wrestles", "state", arm_wrestle_down)
    rewrite("skill-games", "state", skill_game_down)
