"""Downgrades that would drop data refuse unless the caller allows it.

A downgrade step that drops a table or a column holding data calls `refuse_data_loss` first,
naming what it drops. Where any of it holds a row (a value, for a column), the step raises a
`CommandError` naming what would be lost and how to allow it, and since every step of a run
is one transaction (migrations/env.py), nothing is changed; alembic's command line prints it
as one line, `FAILED: ...`. The caller allows it with `alembic -x allow-data-loss=true
downgrade <revision>` (programmatically: a `Config` whose `cmd_opts` carries
`x=["allow-data-loss=true"]`). Empty tables and columns are dropped without asking.

Offline (`--sql`) nothing can be counted, so such a step refuses there unless allowed.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op
from alembic.util import CommandError

#: The `-x` argument that allows a downgrade to drop data.
ALLOW = "allow-data-loss"
TRUE, FALSE = ("true", "1", "yes"), ("false", "0", "no")


def allowed() -> bool:
    """Whether the caller passed `-x allow-data-loss=true`."""
    given = context.get_x_argument(as_dictionary=True).get(ALLOW, "false")
    if given.lower() in TRUE:
        return True
    if given.lower() in FALSE:
        return False
    raise CommandError(f"-x {ALLOW}={given}: say true or false")


def refuse_data_loss(
    step: str, *, tables: Sequence[str] = (), columns: Sequence[tuple[str, str]] = ()
) -> None:
    """Refuse the downgrade `step` (e.g. "0001 -> base") if any of `tables` holds a row or
    any of `columns` ((table, column) pairs) a value, unless the caller allows it."""
    if allowed():
        return
    destination = context.get_revision_argument() or "base"  # base is None
    how = f"to allow it: alembic -x {ALLOW}=true downgrade {destination}"
    if context.is_offline_mode():
        dropped = [*tables, *(f"{table}.{column}" for table, column in columns)]
        raise CommandError(
            f"downgrade {step} drops {', '.join(dropped)}, and offline it cannot tell whether "
            f"they hold data; {how}"
        )
    connection = op.get_bind()
    lost: list[str] = []
    for table in tables:
        held = connection.execute(sa.select(sa.func.count()).select_from(sa.table(table)))
        if rows := held.scalar_one():
            lost.append(f"{rows} row{'s' if rows != 1 else ''} of {table}")
    for table, column in columns:
        held = connection.execute(
            sa.select(sa.func.count())
            .select_from(sa.table(table, sa.column(column)))
            .where(sa.column(column).is_not(None))
        )
        if values := held.scalar_one():
            lost.append(f"{values} value{'s' if values != 1 else ''} of {table}.{column}")
    if lost:
        raise CommandError(
            f"downgrade {step} would lose {', '.join(lost)} (nothing was changed); {how}"
        )
