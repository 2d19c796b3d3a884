"""Webhooks' transactional outbox: a change's deliveries, written with the change itself.

The lifecycle's `_apply` asks `prepare` (before it writes the change) which subscriptions
are told of the session's changes; with any, one delivery per subscription that wants the
change's event is written with the change: the body signed and sent later by a delivery
worker (app/api/sessions/deliveries.py). A change acknowledged is therefore a webhook that
will be sent, on either database; a change rolled back sends none.

How it is written with the change: in PostgreSQL's optimistic mode (a change otherwise one
statement), in that statement itself (`Outbox.alongside`, the session's update then its
rounds then its deliveries, each only if the update matched: still one statement, no
transaction to begin and commit); elsewhere (SQLite, a change already in a transaction, a
deletion) the change's writes become one transaction (`Transaction.atomic`) and
`Outbox.write` adds the deliveries once the change is written.

A delivery's body is the live event's data as a stream shows it (app/api/sessions/events.py:
`event_data`, never a token, a sealed choice's `submitted` event saying who, never what),
and for a subscription with the `public` view, as any party's stream shows the other parties'
records (`shown_to` with a party that is none of them: a bidding game's losing actions
hidden). Only a subscription made with `"view": "gm"` gets the GM's view. A subscription
with a `language` gets the event's summaries in it, made from the change's answer built again
in that language (`Effects.said`), once per language for every subscription of the change.
"""

from __future__ import annotations

import base64
import hmac
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

import orjson

from app.api import i18n
from app.api.kinds import AnyKind
from app.api.sessions.events import event_data, shown_to
from app.store import webhooks
from app.store.database import Transaction
from app.store.repository import Alongside, SessionRecord, now
from app.store.webhooks import NewDelivery, Target

#: The party name through which a `public` subscription reads round records: no party's.
NO_PARTY = ""
VIEWS = ("public", "gm")
SECRET_PREFIX = "whsec_"
#: The event of a test delivery a GM (or the operator) asks for: sent whatever `events` says.
PING = "ping"


def new_message_id() -> str:
    """A delivery's `webhook-id`: the same on each of its attempts (128 random bits, in
    hex)."""
    return "msg_" + os.urandom(16).hex()


def payload(
    kind: str, session_id: str, version: int, event: str, at: datetime, data: bytes
) -> bytes:
    """A delivery's body: `{"type", "timestamp", "session": {"id", "kind", "version"},
    "data"}`, `data` the live event's data as the subscription's view shows it."""
    head = orjson.dumps(
        {
            "type": event,
            # RFC 3339 in UTC with a `Z`, microseconds when there are any.
            "timestamp": at,
            "session": {"id": session_id, "kind": kind, "version": version},
        },
        option=orjson.OPT_UTC_Z,
    )
    return head[:-1] + b',"data":' + data + b"}"


def ping_payload(
    subscription_id: str, session: dict[str, object] | None, at: datetime, summary: str
) -> bytes:
    """A ping's body (docs/webhooks.md#ping): `{"type": "ping", "timestamp", "session"}`
    (the session's `{"id", "kind", "version"}`, or null for an operator's subscription),
    `"data": {"webhook", "summary"}`: the subscription's id and a line saying what it is."""
    return orjson.dumps(
        {
            "type": PING,
            "timestamp": at,
            "session": session,
            "data": {"webhook": subscription_id, "summary": summary},
        },
        option=orjson.OPT_UTC_Z,
    )


def sign(message_id: str, timestamp: int, body: bytes, secrets: Sequence[bytes]) -> str:
    """The `webhook-signature` header (Standard Webhooks): `v1,<base64 HMAC-SHA256 of
    "id.timestamp.body">` under each secret, space-separated (the newest first)."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    return " ".join(
        "v1," + base64.b64encode(hmac.digest(secret, signed, "sha256")).decode()
        for secret in secrets
    )


def shown_secret(secret: bytes) -> str:
    """A signing secret as its receiver is given it: `whsec_<base64>` (Standard Webhooks)."""
    return SECRET_PREFIX + base64.b64encode(secret).decode()


#: Deliveries this process has written (committed or not): a worker poked after a change
#: looks for deliveries only when some were written since its last look.
_written = 0


def written() -> int:
    """How many deliveries this process's changes have written so far."""
    return _written


@dataclass(frozen=True, slots=True)
class Outbox:
    """The subscriptions told of one change of a session, in the change's transaction."""

    connection: Transaction
    kind: AnyKind
    session_id: str
    targets: Sequence[Target]
    #: Whether the deliveries go in the change's own statement (`alongside`), not after it.
    folded: bool = False

    async def write(
        self, version: int, event: str, body: bytes, said: Callable[[str], bytes] | None = None
    ) -> None:
        """The change's deliveries, written after it: `version` the session's after it,
        `event` its live event's name, `body` what the stream's event is made from (the
        change's answer, in English), `said` that answer made in another language (for a
        subscription with one: docs/webhooks.md#languages)."""
        planned, at = self.planned(version, event, body, said)
        if planned:
            await webhooks.enqueue(self.connection, planned, at)

    def alongside(
        self, version: int, event: str, body: bytes, said: Callable[[str], bytes] | None = None
    ) -> Alongside | None:
        """The change's deliveries as rows of its own statement (PostgreSQL), or None when
        no subscription wants its event."""
        planned, at = self.planned(version, event, body, said)
        return webhooks.alongside(planned, at) if planned else None

    def planned(
        self, version: int, event: str, body: bytes, said: Callable[[str], bytes] | None = None
    ) -> tuple[list[NewDelivery], datetime]:
        """The deliveries of a change (see `write`), and when they are due."""
        at = now()
        wanted = [target for target in self.targets if target.wants(event)]
        if not wanted:
            return [], at
        english = event_data(self.session_id, event, body)
        data_in: dict[str, bytes] = {i18n.DEFAULT: english}
        by_view: dict[tuple[str, str], bytes] = {}
        planned = []
        for target in wanted:
            language = target.language or i18n.DEFAULT
            if said is None or not body:
                language = i18n.DEFAULT
            shown = by_view.get((target.view, language))
            if shown is None:
                data = data_in.get(language)
                if data is None:
                    assert said is not None
                    data = data_in[language] = event_data(self.session_id, event, said(language))
                seen = data if target.view == "gm" else shown_to(self.kind, NO_PARTY, data)
                shown = payload(self.kind.path, self.session_id, version, event, at, seen)
                by_view[(target.view, language)] = shown
            planned.append(
                NewDelivery(new_message_id(), target.id, self.session_id, version, event, shown)
            )
        global _written
        _written += len(planned)
        return planned, at


async def prepare(
    connection: Transaction, kind: AnyKind, record: SessionRecord, *, foldable: bool = False
) -> Outbox | None:
    """The outbox of a change of `record` about to be written, or None when no subscription
    is told of it. Either way nothing more is asked: the session's read listed them
    (`SessionRecord.subscriptions`). With one, the deliveries go in the change's own
    statement when it is one (`foldable`: a session's update, in PostgreSQL's optimistic
    mode); otherwise the change's writes become one transaction."""
    if not record.subscriptions:
        return None
    targets = [Target(*subscription) for subscription in record.subscriptions]
    folded = foldable and connection.single_write
    if not folded:
        await connection.atomic()
    return Outbox(connection, kind, record.id, targets, folded)
