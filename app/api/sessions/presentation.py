"""What session answers look like: their types (per kind) and how they are built.

Every session answer shows the session the same way (`session_answer`); a round's record and
summary line come from its kind (`ContestKind.round_record`, `round_summary`).

The generic TypedDicts below type the lifecycle's code; `AnswerTypes.of(...)` makes the
concrete, named ones of one kind (`ArmWrestleSession`, `ArmWrestleRoundAnswer`, ...) that
`/openapi.json` documents and the conformance tests validate served bodies against.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import Annotated, Any, Generic, Literal, NotRequired, TypeVar

from pydantic import WithJsonSchema, with_config
from typing_extensions import TypedDict

from app.api import i18n
from app.api.kinds import AnyKind, load_config, load_session
from app.api.schemas.common import ANSWER, RollRecord, RuleLink
from app.api.sessions import pending
from app.api.sessions.pending import PendingRound
from app.api.sessions.verifiable import VERIFIABLE
from app.rules.messages import Message
from app.store.repository import SessionRecord

C = TypeVar("C")
S = TypeVar("S")
R = TypeVar("R")
Status = Literal["active", "finished"]
FORBID = ANSWER
#: A moment as the answers write it: ISO 8601, in UTC.
DateTime = Annotated[str, WithJsonSchema({"type": "string", "format": "date-time"})]


@with_config(FORBID)
class Tokens(TypedDict):
    """A new session's tokens, shown only in its creation's answer."""

    gm: str
    parties: NotRequired[dict[str, str]]
    #: A seated session's seat tokens, by competitor.
    seats: NotRequired[dict[str, str]]


@with_config(FORBID)
class SessionFields(TypedDict):
    """What every session shows besides its kind's `config`, `state` and `result`.

    A kind's schema module declares its session on it: `class ChaseSession(SessionFields)`
    with `config: ChaseConfig`, `state: ChaseState`, `result: ChaseResult | None`.
    """

    id: str
    kind: str
    status: Status
    version: int
    created_at: DateTime
    updated_at: DateTime
    round: int
    rule: RuleLink
    start_rolls: NotRequired[list[RollRecord]]
    summary: NotRequired[str]
    pending: NotRequired[PendingRound]
    #: A verifiable session (docs/verifiable-dice.md): `"verifiable"`, the commitment to its
    #: server seed (SHA-256, hex) and its chain's head (hex).
    dice: NotRequired[Literal["verifiable"]]
    commitment: NotRequired[str]
    chain_head: NotRequired[str]


@with_config(FORBID)
class Session(SessionFields, Generic[C, S, R]):
    """A session as every lifecycle answer shows it, for the code of every kind."""

    config: C
    state: S
    result: R | None


def etag(version: int) -> str:
    return f'"{version}"'


def session_answer(
    kind: AnyKind, record: SessionRecord, state: Any = None
) -> Session[Any, Any, Any]:
    """A stored session of `kind` as every answer shows it (`state`: the rules' state that
    `record.state` stores, when the caller has it at hand)."""
    if state is None:
        config, state = load_session(kind, record.config, record.state, record.id)
    else:
        config = load_config(kind, record.config, record.id)
    described = kind.describe(config, state)
    summary = i18n.said(described) if isinstance(described, Message) else described
    return session_body(record, kind.public_state(config, state), summary, kind.rule)


def session_body(
    record: SessionRecord, public_state: Mapping[str, Any], summary: str | None, rule: str
) -> Session[Any, Any, Any]:
    """A stored session as the API shows it, given its public state, summary line and its
    kind's section of the rules reference."""
    body: Session[Any, Any, Any] = {
        "id": record.id,
        "kind": record.kind,
        "status": "finished" if record.status == "finished" else "active",
        "version": record.version,
        "created_at": record.created_at.astimezone(UTC).isoformat(),
        "updated_at": record.updated_at.astimezone(UTC).isoformat(),
        "config": record.config,
        "state": public_state,
        "result": record.result,
        "round": record.rounds_played,
        "rule": rule,
    }
    start_rolls = record.state.get("start_rolls")
    if start_rolls:
        body["start_rolls"] = start_rolls
    waiting = record.state.get(pending.COLLECTING)
    if waiting:
        body["pending"] = pending.shown(waiting)
    public = record.state.get(VERIFIABLE) if record.dice_secret is not None else None
    if public is not None:
        body["dice"] = "verifiable"
        body["commitment"] = public["commitment"]
        body["chain_head"] = public["head"]
    if summary is not None:
        body["summary"] = summary
    return body


def _named(name: str, fields: dict[str, Any], doc: str) -> Any:
    """A TypedDict made at run time, closed to unknown keys (for the document and tests)."""
    factory: Any = TypedDict
    made = factory(name, fields)
    made.__doc__ = doc
    return with_config(FORBID)(made)


def _extended(name: str, base: Any, fields: dict[str, Any], doc: str) -> Any:
    """A TypedDict made at run time from `base` and more keys, closed to unknown keys."""

    def body(namespace: dict[str, Any]) -> None:
        namespace["__annotations__"] = fields
        namespace["__doc__"] = doc

    return with_config(FORBID)(types.new_class(name, (base,), exec_body=body))


@dataclass(frozen=True, slots=True)
class AnswerTypes:
    """The named answer types of one kind, around its session type."""

    session: Any
    created: Any
    changed: Any
    round: Any
    resolved: Any
    rounds: Any
    waiting: Any

    @classmethod
    def of(cls, prefix: str, session: Any, round_: Any) -> AnswerTypes:
        """`prefix` names the kind in schema names: "ArmWrestle" -> `ArmWrestleCreated`..."""
        created = _extended(
            f"{prefix}Created",
            session,
            {"tokens": NotRequired[Tokens]},
            "A new session with its tokens (omitted in a replay to a caller that did not scope "
            "its Idempotency-Key with a secret of its own).",
        )
        changed = _named(f"{prefix}Changed", {"session": session}, "The changed session.")
        round_answer = _named(
            f"{prefix}RoundAnswer",
            {"round": round_, "session": session, "summary": str},
            "The round just played and the session after it.",
        )
        resolved = _named(
            f"{prefix}Resolved",
            {"session": session, "played": int, "summary": str, "rounds": list[round_]},
            "The session after `resolve`: how many rounds it played, and the last few of them "
            "(every round is in `GET …/rounds`).",
        )
        rounds = _named(
            f"{prefix}Rounds", {"rounds": list[round_]}, "The rounds played, oldest first."
        )
        waiting = _named(
            f"{prefix}Waiting",
            {
                "pending": PendingRound,
                "name": NotRequired[str],
                "names": NotRequired[list[str]],
                "session": session,
                "summary": str,
            },
            "A round waiting for the seats' dice, and the session: who it still waits for "
            "(`name`: whose dice just came in; `names`: whom the GM rolled for), never a die.",
        )
        return cls(session, created, changed, round_answer, resolved, rounds, waiting)
