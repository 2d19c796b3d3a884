"""Webhook subscriptions: `…/{id}/webhooks` for a session's GM, `/v1/webhooks` for the
operator (docs/webhooks.md).

A GM subscribes a URL to the session's live events (all of them, or those listed) and is
shown the signing secret once; lists, changes (the URL, events, view, language), removes,
rotates the secret (the one before it still signs beside the new one for
`webhook_rotation_overlap_seconds`), lists a subscription's recent deliveries (their status,
attempts, last answer), replays one and sends a test delivery (a ping). The operator, with
`Authorization: Bearer <ARBITER_OPERATOR_KEY>`, does the same for subscriptions to every
session's changes. A URL is checked when subscribed or changed: http or https, and (unless
`ARBITER_WEBHOOK_ALLOW_PRIVATE`) a host whose every address is public
(app/api/sessions/outbound.py).
"""

from __future__ import annotations

import hmac
import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import cache
from typing import Annotated, Any, Literal, NotRequired

from fastapi import APIRouter, Path, Query, Request
from pydantic import Field, model_validator, with_config
from starlette.responses import Response
from typing_extensions import TypedDict

from app.api import i18n
from app.api.common import respond
from app.api.kinds import AnyKind, RoundKind
from app.api.routing import DeferredBody, LeanRoute, answers, declare_body
from app.api.schemas.common import ANSWER, Strict
from app.api.sessions import deliveries, outbound
from app.api.sessions.lifecycle import bound, kind_router, schema_prefix
from app.api.sessions.outbox import PING, new_message_id, ping_payload, shown_secret
from app.api.sessions.security import bearer_token, role_of, seal_webhook_secret
from app.api.sessions.work import unit_of_work
from app.errors import Conflict, Forbidden, InvalidInput, NotFound, not_found
from app.rules.messages import N_, Listing, m
from app.settings import Settings
from app.store import repository
from app.store import webhooks as store
from app.store.database import Store, Transaction
from app.store.repository import SessionRecord
from app.store.webhooks import LAST_DELIVERY_ID, DeliveryRecord, NewDelivery, SubscriptionRecord

#: Subscriptions one session (or the operator) may hold.
MAX_SUBSCRIPTIONS = 10
#: Deliveries listed per page, by default and at most.
DEFAULT_DELIVERIES = 50
MAX_DELIVERIES = 200
SECRET_BYTES = 32
#: The live events of every round kind (app/api/sessions/events.py), and of every kind.
ROUND_EVENTS = ("round", "pending", "dice-in", "pending-cancelled")
EVERY_KIND_EVENTS = ("seed", "deleted")
#: The languages a subscription's payloads may be written in (app/api/i18n.py's).
Language = Literal["en", "de", "fr", "es", "pt-BR"]


class WebhookCreate(Strict):
    """A subscription: where to send the session's live events, which, and in whose view."""

    url: Annotated[
        str,
        Field(
            min_length=1,
            max_length=outbound.MAX_URL,
            description="http or https; its host must resolve to public addresses only",
        ),
    ]
    events: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=32)]] | None,
        Field(
            default=None,
            min_length=1,
            max_length=32,
            description="the live events' names to send (`round`, `pending`, `dice-in`, …); "
            "absent: every one",
        ),
    ] = None
    view: Annotated[
        Literal["public", "gm"],
        Field(
            description="`public` (default): round records as a party's stream shows the "
            "other parties' (a bidding game's losing actions hidden); `gm`: the GM's view"
        ),
    ] = "public"
    language: Annotated[
        Language | None,
        Field(
            description="the language of the payloads' summaries (`en`, `de`, `fr`, `es`, "
            "`pt-BR`); absent: the language this request is answered in (`Accept-Language`, "
            "`?lang=`)"
        ),
    ] = None


class WebhookUpdate(Strict):
    """A subscription's changes: each field given replaces its value, each left out keeps
    it (`"events": null`: every event from now on)."""

    url: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=outbound.MAX_URL,
            description="http or https; its host must resolve to public addresses only",
        ),
    ] = None
    events: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=32)]] | None,
        Field(
            min_length=1,
            max_length=32,
            description="the live events' names to send; null: every one",
        ),
    ] = None
    view: Annotated[Literal["public", "gm"] | None, Field(description="`public` or `gm`")] = None
    language: Annotated[
        Language | None,
        Field(description="the language of the payloads' summaries"),
    ] = None

    @model_validator(mode="after")
    def _no_null_but_events(self) -> WebhookUpdate:
        # Only `events` has a meaning for null (every event); for the others, leave it out.
        for name in ("url", "view", "language"):
            if name in self.model_fields_set and getattr(self, name) is None:
                raise ValueError(f"{name} may not be null (leave it out to keep it)")
        return self


@with_config(ANSWER)
class Webhook(TypedDict):
    """A subscription (its secret is shown only when made or rotated)."""

    id: str
    url: str
    events: list[str] | None
    view: str
    #: The language of its payloads' summaries (`en`, `de`, `fr`, `es`, `pt-BR`).
    language: str
    #: `active`, or `failing` since a delivery was given up after the retry window.
    status: str
    failing_since: str | None
    created_at: str
    #: Until when the secret before the last rotation still signs, if it does.
    previous_secret_until: str | None
    secret: NotRequired[str]


@with_config(ANSWER)
class Webhooks(TypedDict):
    webhooks: list[Webhook]


@with_config(ANSWER)
class WebhookDelivery(TypedDict):
    """One delivery: the event sent, its `webhook-id`, and what came of its attempts."""

    id: int
    webhook_id: str
    session_id: str
    version: int
    event: str
    #: `pending`, `delivered` or `failed` (given up after the retry window).
    status: str
    attempts: int
    next_attempt_at: str | None
    last_status: int | None
    last_error: str | None
    delivered_at: str | None
    created_at: str


@with_config(ANSWER)
class WebhookDeliveryShown(WebhookDelivery):
    """One delivery, with its body: the JSON text exactly as signed and sent (a receiver's
    signature check can be tried on it, byte for byte)."""

    body: str


@with_config(ANSWER)
class WebhookDeliveries(TypedDict):
    deliveries: list[WebhookDelivery]


@with_config(ANSWER)
class Replayed(TypedDict):
    replayed: int
    summary: str


@with_config(ANSWER)
class Pinged(TypedDict):
    """A ping written to the subscription's queue: its `webhook-id` (the delivery's
    `webhook_id` in `…/deliveries`, where what came of it is listed)."""

    webhook_id: str
    summary: str


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def _shown(record: SubscriptionRecord, secret: bytes | None = None) -> Webhook:
    overlap = record.previous_until
    shown: Webhook = {
        "id": record.id,
        "url": record.url,
        "events": record.events,
        "view": record.view,
        "language": record.language or i18n.DEFAULT,
        "status": record.status,
        "failing_since": _time(record.failing_since),
        "created_at": _time(record.created_at) or "",
        "previous_secret_until": _time(overlap if overlap and overlap > repository.now() else None),
    }
    if secret is not None:
        shown["secret"] = shown_secret(secret)
    return shown


def _delivery(record: DeliveryRecord) -> WebhookDelivery:
    return {
        "id": record.id,
        "webhook_id": record.message_id,
        "session_id": record.session_id,
        "version": record.version,
        "event": record.event,
        "status": record.status,
        "attempts": record.attempts,
        "next_attempt_at": _time(record.next_attempt_at) if record.status == "pending" else None,
        "last_status": record.last_status,
        "last_error": record.last_error,
        "delivered_at": _time(record.delivered_at),
        "created_at": _time(record.created_at) or "",
    }


def event_names(kind: AnyKind | None, kinds: Any = None) -> set[str]:
    """The live events' names of `kind` (None: of every kind among `kinds`)."""
    if kind is None:
        return set().union(*(event_names(each) for each in kinds.values()))
    names = set(EVERY_KIND_EVENTS) | {event.name for event in kind.events}
    if isinstance(kind, RoundKind):
        names |= set(ROUND_EVENTS)
    return names


def _settings(request: Request) -> Settings:
    settings = getattr(request.app.state, "settings", None)
    return settings if isinstance(settings, Settings) else Settings()


# --- who may: a session's GM, or the operator ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Owner:
    """Whose subscriptions a call reaches: a session's (its id and kind), or the operator's."""

    session_id: str | None
    kind: AnyKind | None
    #: Checks the caller in a transaction (404/403), before anything else is read: the
    #: session as it read it (None for the operator).
    check: Callable[[Transaction], Awaitable[SessionRecord | None]]
    names: frozenset[str]


def _gm_of(kind: AnyKind, request: Request, session_id: str) -> Owner:
    token = bearer_token(request)

    async def check(connection: Transaction) -> SessionRecord:
        record = await repository.get_session(connection, session_id, kind.path, lock=False)
        role = None if record is None else role_of(token, record)
        if record is None or role is None:
            raise not_found(kind.title, session_id)
        if not role.is_gm:
            raise Forbidden(N_("only the GM's token may manage the session's webhooks"))
        return record

    return Owner(session_id, kind, check, frozenset(event_names(kind)))


def _operator(request: Request) -> Owner:
    token = bearer_token(request)
    key = _settings(request).operator_key
    if key is None or not hmac.compare_digest(token.encode(), key.get_secret_value().encode()):
        raise Forbidden(N_("only the operator's key may manage the webhooks of every session"))

    async def check(_connection: Transaction) -> SessionRecord | None:
        return None

    kinds = getattr(request.app.state, "kinds", {})
    return Owner(None, None, check, frozenset(event_names(None, kinds)))


async def _in(request: Request, owner: Owner, mode: Any, work: Any) -> Any:
    """`work` in a transaction, once the caller is checked in it."""

    async def transaction(connection: Transaction) -> Any:
        await owner.check(connection)
        return await work(connection)

    return await unit_of_work(request).run(mode, transaction)


def _store(request: Request) -> Store:
    return unit_of_work(request).store


# --- the calls ----------------------------------------------------------------------------


async def _subscribe(request: Request, owner: Owner, body: DeferredBody[WebhookCreate]) -> Response:
    settings = _settings(request)
    await _in(request, owner, "read", lambda _connection: _nothing())
    asked = await body.load()
    events = _known_events(owner, asked.events)
    await _allowed_url(settings, asked.url)
    secret = secrets.token_bytes(SECRET_BYTES)
    subscription_id = uuid.uuid4().hex
    key = settings.webhook_key
    record = SubscriptionRecord(
        id=subscription_id,
        session_id=owner.session_id,
        kind=None if owner.kind is None else owner.kind.path,
        url=asked.url,
        events=events,
        view=asked.view,
        language=asked.language or i18n.current(),
        secret=seal_webhook_secret(
            subscription_id, secret, None if key is None else key.get_secret_value()
        ),
        previous_secret=None,
        previous_until=None,
        status="active",
        failing_since=None,
        created_at=repository.now(),
    )

    async def insert(connection: Transaction) -> None:
        await owner.check(connection)  # the session may have gone meanwhile
        if len(await store.list_subscriptions(connection, owner.session_id)) >= MAX_SUBSCRIPTIONS:
            raise Conflict(
                m("at most {count} webhooks each; remove one first", count=MAX_SUBSCRIPTIONS)
            )
        await store.insert_subscription(connection, record)

    # A transaction of its own: the URL's host was resolved outside any.
    await _store(request).run("write", insert)
    return respond(request, _shown(record, secret), 201)


def _known_events(owner: Owner, events: list[str] | None) -> list[str] | None:
    """`events` once each, in order, if every one is a live event's name (else a 422)."""
    if events is None:
        return None
    unknown = sorted(set(events) - owner.names)
    if unknown:
        raise InvalidInput(
            m("no such live event: {events}", events=Listing(unknown)),
            errors=[
                {"loc": ["body", "events"], "msg": f"unknown event {name!r}"} for name in unknown
            ],
        )
    return list(dict.fromkeys(events))


async def _allowed_url(settings: Settings, url: str) -> None:
    """A 422 unless `url` is one a webhook may have (http or https, its host public unless
    the operator allows private addresses)."""
    _scheme, host, port, _target = outbound.check_url(url)
    try:
        await outbound.resolve(host, port, allow_private=settings.webhook_allow_private)
    except outbound.Refused as exc:
        raise InvalidInput(
            m("the webhook's url is refused: {why}", why=str(exc)),
            errors=[{"loc": ["body", "url"], "msg": str(exc)}],
        ) from None


async def _nothing() -> None:
    return None


async def _list(request: Request, owner: Owner) -> Response:
    found: list[SubscriptionRecord] = await _in(
        request,
        owner,
        "read",
        lambda connection: store.list_subscriptions(connection, owner.session_id),
    )
    return respond(request, {"webhooks": [_shown(record) for record in found]})


async def _found(connection: Transaction, owner: Owner, webhook_id: str) -> SubscriptionRecord:
    record = await store.get_subscription(connection, webhook_id, owner.session_id)
    if record is None:
        raise not_found("webhook", webhook_id)
    return record


async def _remove(request: Request, owner: Owner, webhook_id: str) -> Response:
    async def work(connection: Transaction) -> None:
        await _found(connection, owner, webhook_id)
        await store.delete_subscription(connection, webhook_id)

    await _in(request, owner, "write", work)
    return Response(status_code=204)


async def _update(
    request: Request, owner: Owner, webhook_id: str, body: DeferredBody[WebhookUpdate]
) -> Response:
    settings = _settings(request)
    await _in(request, owner, "read", lambda connection: _found(connection, owner, webhook_id))
    asked = await body.load()
    given = asked.model_fields_set
    events = _known_events(owner, asked.events)
    if asked.url is not None:
        await _allowed_url(settings, asked.url)

    async def work(connection: Transaction) -> SubscriptionRecord:
        # A transaction of its own: the URL's host was resolved outside any.
        record = await _found(connection, owner, webhook_id)
        changed = replace(
            record,
            url=asked.url or record.url,
            events=events if "events" in given else record.events,
            view=asked.view or record.view,
            language=asked.language or record.language,
        )
        if changed != record:
            await store.update_subscription(connection, changed)
        return changed

    updated: SubscriptionRecord = await _in(request, owner, "write", work)
    return respond(request, _shown(updated))


async def _rotate(request: Request, owner: Owner, webhook_id: str) -> Response:
    settings = _settings(request)
    secret = secrets.token_bytes(SECRET_BYTES)
    key = settings.webhook_key
    until = repository.now() + timedelta(seconds=settings.webhook_rotation_overlap_seconds)

    async def work(connection: Transaction) -> SubscriptionRecord:
        record = await _found(connection, owner, webhook_id)
        sealed = seal_webhook_secret(
            webhook_id, secret, None if key is None else key.get_secret_value()
        )
        await store.rotate_secret(
            connection,
            webhook_id,
            secret=sealed,
            previous_secret=record.secret,
            previous_until=until,
        )
        return await _found(connection, owner, webhook_id)

    rotated: SubscriptionRecord = await _in(request, owner, "write", work)
    return respond(request, _shown(rotated, secret))


async def _deliveries(
    request: Request, owner: Owner, webhook_id: str, before: int | None, limit: int
) -> Response:
    async def work(connection: Transaction) -> list[DeliveryRecord]:
        await _found(connection, owner, webhook_id)
        return await store.list_deliveries(connection, webhook_id, before=before, limit=limit)

    found: list[DeliveryRecord] = await _in(request, owner, "read", work)
    return respond(request, {"deliveries": [_delivery(record) for record in found]})


def _no_delivery(webhook_id: str, delivery_id: int) -> NotFound:
    return NotFound(
        f"no delivery {delivery_id} of webhook {webhook_id}",
        said=m(
            "no delivery {delivery} of webhook {webhook}",
            delivery=str(delivery_id),
            webhook=webhook_id,
        ),
    )


async def _delivery_shown(
    request: Request, owner: Owner, webhook_id: str, delivery_id: int
) -> Response:
    async def work(connection: Transaction) -> tuple[DeliveryRecord, bytes] | None:
        await _found(connection, owner, webhook_id)
        return await store.get_delivery(connection, webhook_id, delivery_id)

    found: tuple[DeliveryRecord, bytes] | None = await _in(request, owner, "read", work)
    if found is None:
        raise _no_delivery(webhook_id, delivery_id)
    record, body = found
    shown: WebhookDeliveryShown = {**_delivery(record), "body": body.decode()}
    return respond(request, shown)


async def _replay(request: Request, owner: Owner, webhook_id: str, delivery_id: int) -> Response:
    async def work(connection: Transaction) -> bool:
        await _found(connection, owner, webhook_id)
        return await store.replay(connection, webhook_id, delivery_id, repository.now())

    if not await _in(request, owner, "write", work):
        raise _no_delivery(webhook_id, delivery_id)
    deliveries.poke(request.app, written=True)
    said = m("Delivery {delivery} is sent again.", delivery=str(delivery_id))
    return respond(request, {"replayed": delivery_id, "summary": i18n.said(said)}, 202)


async def _ping(request: Request, owner: Owner, webhook_id: str) -> Response:
    message_id = new_message_id()

    async def work(connection: Transaction) -> None:
        # The owner's check, as `_in` makes it, keeping the session it read.
        found = await owner.check(connection)
        record = await _found(connection, owner, webhook_id)
        at = repository.now()
        summary = i18n.said(
            m("A test delivery (ping) of webhook {webhook}.", webhook=webhook_id),
            record.language or i18n.DEFAULT,
        )
        # A session's ping goes after the session's deliveries already queued; an operator's
        # subscription, told of no one session, has a queue of its own for its pings.
        queue, version, session = webhook_id, 0, None
        if found is not None:
            queue, version = found.id, found.version
            session = {"id": found.id, "kind": found.kind, "version": found.version}
        body = ping_payload(webhook_id, session, at, summary)
        await store.enqueue_alone(
            connection, NewDelivery(message_id, webhook_id, queue, version, PING, body), at
        )

    await unit_of_work(request).run("write", work)
    deliveries.poke(request.app, written=True)
    said = m("A ping is on its way to webhook {webhook}.", webhook=webhook_id)
    return respond(request, {"webhook_id": message_id, "summary": i18n.said(said)}, 202)


# --- a session's GM -----------------------------------------------------------------------


async def subscribe(
    kind: AnyKind, request: Request, session_id: str, body: DeferredBody[WebhookCreate]
) -> Response:
    """Subscribe a URL to the session's live events (GM token): 201 with the signing secret,
    shown only here."""
    return await _subscribe(request, _gm_of(kind, request, session_id), body)


async def list_webhooks(kind: AnyKind, request: Request, session_id: str) -> Response:
    """The session's webhook subscriptions (GM token), each with its status."""
    return await _list(request, _gm_of(kind, request, session_id))


async def remove_webhook(
    kind: AnyKind, request: Request, session_id: str, webhook_id: str
) -> Response:
    """Remove a webhook subscription and its deliveries not yet sent (GM token)."""
    return await _remove(request, _gm_of(kind, request, session_id), webhook_id)


async def update_webhook(
    kind: AnyKind,
    request: Request,
    session_id: str,
    webhook_id: str,
    body: DeferredBody[WebhookUpdate],
) -> Response:
    """Change a subscription's url, events, view or language (GM token); its secret, status
    and deliveries stay."""
    return await _update(request, _gm_of(kind, request, session_id), webhook_id, body)


async def rotate_webhook_secret(
    kind: AnyKind, request: Request, session_id: str, webhook_id: str
) -> Response:
    """A new signing secret, shown only here (GM token); the one before it still signs
    beside it for a while."""
    return await _rotate(request, _gm_of(kind, request, session_id), webhook_id)


#: Delivery ids are 64-bit (app/store/webhooks.py): any of them is a cursor, none past them.
Before = Annotated[
    int | None,
    Query(ge=1, le=LAST_DELIVERY_ID, description="only deliveries numbered below this"),
]
DeliveryId = Annotated[int, Path(ge=1, le=LAST_DELIVERY_ID, description="the delivery's id")]
Limit = Annotated[
    int, Query(ge=1, le=MAX_DELIVERIES, description=f"at most this many (≤ {MAX_DELIVERIES})")
]


async def list_webhook_deliveries(
    kind: AnyKind,
    request: Request,
    session_id: str,
    webhook_id: str,
    before: Before = None,
    limit: Limit = DEFAULT_DELIVERIES,
) -> Response:
    """A webhook's deliveries, newest first (GM token): each one's status, attempts and last
    answer."""
    owner = _gm_of(kind, request, session_id)
    return await _deliveries(request, owner, webhook_id, before, limit)


async def show_webhook_delivery(
    kind: AnyKind, request: Request, session_id: str, webhook_id: str, delivery_id: DeliveryId
) -> Response:
    """One of a webhook's deliveries with its body, exactly as signed and sent (GM token)."""
    owner = _gm_of(kind, request, session_id)
    return await _delivery_shown(request, owner, webhook_id, delivery_id)


async def replay_webhook_delivery(
    kind: AnyKind, request: Request, session_id: str, webhook_id: str, delivery_id: DeliveryId
) -> Response:
    """Send a delivery again, with its `webhook-id` and body (GM token): 202."""
    return await _replay(request, _gm_of(kind, request, session_id), webhook_id, delivery_id)


async def ping_webhook(
    kind: AnyKind, request: Request, session_id: str, webhook_id: str
) -> Response:
    """Send the subscription a test delivery, `"type": "ping"`, signed as any other (GM
    token): 202 with its `webhook-id`."""
    return await _ping(request, _gm_of(kind, request, session_id), webhook_id)


EXAMPLES = {"subscribe": {"url": "https://example.com/arbiter-hook", "events": ["round"]}}
UPDATE_EXAMPLES = {
    "move": {"url": "https://example.com/arbiter-hook-v2"},
    "every event": {"events": None},
}


@cache
def router(kind: AnyKind) -> APIRouter:
    """A kind's webhook routes."""
    routes = kind_router(kind)
    prefix = schema_prefix(kind)

    def add(path: str, endpoint: Any, operation_id: str, **options: Any) -> None:
        routes.add_api_route(
            path, endpoint, operation_id=operation_id, name=operation_id, **options
        )

    add(
        "/{session_id}/webhooks",
        declare_body(bound(subscribe, kind), WebhookCreate, EXAMPLES),
        f"subscribe{prefix}Webhook",
        methods=["POST"],
        status_code=201,
        responses=answers(201, Webhook),
        summary="Subscribe a URL to the session's live events",
    )
    add(
        "/{session_id}/webhooks",
        bound(list_webhooks, kind),
        f"list{prefix}Webhooks",
        methods=["GET"],
        responses=answers(200, Webhooks),
        summary="The session's webhook subscriptions",
    )
    add(
        "/{session_id}/webhooks/{webhook_id}",
        bound(remove_webhook, kind),
        f"remove{prefix}Webhook",
        methods=["DELETE"],
        status_code=204,
        response_class=Response,
        summary="Remove a webhook subscription",
    )
    add(
        "/{session_id}/webhooks/{webhook_id}",
        declare_body(bound(update_webhook, kind), WebhookUpdate, UPDATE_EXAMPLES),
        f"update{prefix}Webhook",
        methods=["PATCH"],
        responses=answers(200, Webhook),
        summary="Change a webhook subscription",
    )
    add(
        "/{session_id}/webhooks/{webhook_id}/secret",
        bound(rotate_webhook_secret, kind),
        f"rotate{prefix}WebhookSecret",
        methods=["POST"],
        responses=answers(200, Webhook),
        summary="Rotate a webhook's signing secret",
    )
    add(
        "/{session_id}/webhooks/{webhook_id}/deliveries",
        bound(list_webhook_deliveries, kind),
        f"list{prefix}WebhookDeliveries",
        methods=["GET"],
        responses=answers(200, WebhookDeliveries),
        summary="A webhook's deliveries",
    )
    add(
        "/{session_id}/webhooks/{webhook_id}/deliveries/{delivery_id}",
        bound(show_webhook_delivery, kind),
        f"show{prefix}WebhookDelivery",
        methods=["GET"],
        responses=answers(200, WebhookDeliveryShown),
        summary="One of a webhook's deliveries, with its body",
    )
    add(
        "/{session_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/replay",
        bound(replay_webhook_delivery, kind),
        f"replay{prefix}WebhookDelivery",
        methods=["POST"],
        status_code=202,
        responses=answers(202, Replayed),
        summary="Send a webhook's delivery again",
    )
    add(
        "/{session_id}/webhooks/{webhook_id}/ping",
        bound(ping_webhook, kind),
        f"ping{prefix}Webhook",
        methods=["POST"],
        status_code=202,
        responses=answers(202, Pinged),
        summary="Send a webhook a test delivery (ping)",
    )
    return routes


# --- the operator -------------------------------------------------------------------------


async def subscribe_everything(request: Request, body: DeferredBody[WebhookCreate]) -> Response:
    """Subscribe a URL to every session's live events (the operator's key): 201 with the
    signing secret, shown only here."""
    return await _subscribe(request, _operator(request), body)


async def list_operator_webhooks(request: Request) -> Response:
    """The subscriptions to every session's live events (the operator's key)."""
    return await _list(request, _operator(request))


async def remove_operator_webhook(request: Request, webhook_id: str) -> Response:
    """Remove a subscription to every session's live events (the operator's key)."""
    return await _remove(request, _operator(request), webhook_id)


async def update_operator_webhook(
    request: Request, webhook_id: str, body: DeferredBody[WebhookUpdate]
) -> Response:
    """Change a subscription to every session's live events (the operator's key)."""
    return await _update(request, _operator(request), webhook_id, body)


async def rotate_operator_webhook_secret(request: Request, webhook_id: str) -> Response:
    """A new signing secret, shown only here (the operator's key)."""
    return await _rotate(request, _operator(request), webhook_id)


async def list_operator_webhook_deliveries(
    request: Request, webhook_id: str, before: Before = None, limit: Limit = DEFAULT_DELIVERIES
) -> Response:
    """A subscription's deliveries, newest first (the operator's key)."""
    return await _deliveries(request, _operator(request), webhook_id, before, limit)


async def show_operator_webhook_delivery(
    request: Request, webhook_id: str, delivery_id: DeliveryId
) -> Response:
    """One of a subscription's deliveries with its body (the operator's key)."""
    return await _delivery_shown(request, _operator(request), webhook_id, delivery_id)


async def replay_operator_webhook_delivery(
    request: Request, webhook_id: str, delivery_id: DeliveryId
) -> Response:
    """Send a delivery again, with its `webhook-id` and body (the operator's key): 202."""
    return await _replay(request, _operator(request), webhook_id, delivery_id)


async def ping_operator_webhook(request: Request, webhook_id: str) -> Response:
    """Send the subscription a test delivery, `"type": "ping"` (the operator's key): 202."""
    return await _ping(request, _operator(request), webhook_id)


@cache
def operator_router() -> APIRouter:
    """The operator's webhook routes, `/v1/webhooks`."""
    routes = APIRouter(prefix="/v1/webhooks", tags=["Webhooks"], route_class=LeanRoute)

    def add(path: str, endpoint: Any, operation_id: str, **options: Any) -> None:
        routes.add_api_route(
            path, endpoint, operation_id=operation_id, name=operation_id, **options
        )

    add(
        "",
        declare_body(subscribe_everything, WebhookCreate, EXAMPLES),
        "subscribeWebhook",
        methods=["POST"],
        status_code=201,
        responses=answers(201, Webhook),
        summary="Subscribe a URL to every session's live events",
    )
    add(
        "",
        list_operator_webhooks,
        "listWebhooks",
        methods=["GET"],
        responses=answers(200, Webhooks),
        summary="Subscriptions to every session's live events",
    )
    add(
        "/{webhook_id}",
        remove_operator_webhook,
        "removeWebhook",
        methods=["DELETE"],
        status_code=204,
        response_class=Response,
        summary="Remove a subscription to every session's live events",
    )
    add(
        "/{webhook_id}",
        declare_body(update_operator_webhook, WebhookUpdate, UPDATE_EXAMPLES),
        "updateWebhook",
        methods=["PATCH"],
        responses=answers(200, Webhook),
        summary="Change a subscription to every session's live events",
    )
    add(
        "/{webhook_id}/secret",
        rotate_operator_webhook_secret,
        "rotateWebhookSecret",
        methods=["POST"],
        responses=answers(200, Webhook),
        summary="Rotate a subscription's signing secret",
    )
    add(
        "/{webhook_id}/deliveries",
        list_operator_webhook_deliveries,
        "listWebhookDeliveries",
        methods=["GET"],
        responses=answers(200, WebhookDeliveries),
        summary="A subscription's deliveries",
    )
    add(
        "/{webhook_id}/deliveries/{delivery_id}",
        show_operator_webhook_delivery,
        "showWebhookDelivery",
        methods=["GET"],
        responses=answers(200, WebhookDeliveryShown),
        summary="One of a subscription's deliveries, with its body",
    )
    add(
        "/{webhook_id}/deliveries/{delivery_id}/replay",
        replay_operator_webhook_delivery,
        "replayWebhookDelivery",
        methods=["POST"],
        status_code=202,
        responses=answers(202, Replayed),
        summary="Send a delivery again",
    )
    add(
        "/{webhook_id}/ping",
        ping_operator_webhook,
        "pingWebhook",
        methods=["POST"],
        status_code=202,
        responses=answers(202, Pinged),
        summary="Send a subscription a test delivery (ping)",
    )
    return routes


def routers(kinds: Any) -> list[APIRouter]:
    """The webhook routers: every kind's among `kinds`, and the operator's."""
    return [*(router(kind) for kind in kinds.values()), operator_router()]
