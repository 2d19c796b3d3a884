"""What session answers look like: their types (per kind) and how they are built.

The generic TypedDicts below type the lifecycle's code; `AnswerTypes.of(...)` makes the
concrete, named ones of one kind (`ArmWrestleSession`, `ArmWrestleRoundAnswer`, ...) that
`/openapi.json` documents and the conformance tests validate served bodies against.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import Any, Generic, Literal, NotRequired, TypeVar

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from app.store.repository import SessionRecord

C = TypeVar("C")
S = TypeVar("S")
R = TypeVar("R")
Status = Literal["active", "finished"]
FORBID = ConfigDict(extra="forbid")


@with_config(FORBID)
class Tokens(TypedDict):
    """A new session's tokens, shown only in its creation's answer."""

    gm: str
    parties: NotRequired[dict[str, str]]


@with_config(FORBID)
class Session(TypedDict, Generic[C, S, R]):
    """A session as every lifecycle answer shows it."""

    id: str
    kind: str
    status: Status
    version: int
    created_at: str
    updated_at: str
    config: C
    state: S
    result: R | None
    round: int
    start_rolls: NotRequired[list[Any]]
    summary: NotRequired[str]


def etag(version: int) -> str:
    return f'"{version}"'


def session_body(
    record: SessionRecord, public_state: Mapping[str, Any], summary: str | None
) -> Session[Any, Any, Any]:
    """A stored session as the API shows it."""
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
    }
    start_rolls = record.state.get("start_rolls")
    if start_rolls:
        body["start_rolls"] = start_rolls
    if summary is not None:
        body["summary"] = summary
    return body


def _named(name: str, fields: dict[str, Any], doc: str) -> Any:
    """A TypedDict made at run time, closed to unknown keys (for the document and tests)."""
    factory: Any = TypedDict
    made = factory(name, fields)
    made.__doc__ = doc
    return with_config(FORBID)(made)


@dataclass(frozen=True, slots=True)
class AnswerTypes:
    """The named answer types of one kind."""

    session: Any
    created: Any
    changed: Any
    round: Any
    resolved: Any
    rounds: Any

    @classmethod
    def of(cls, prefix: str, config: Any, state: Any, result: Any, round_: Any) -> AnswerTypes:
        """`prefix` names the kind in schema names: "ArmWrestle" -> `ArmWrestleSession`..."""
        base = {
            "id": str,
            "kind": str,
            "status": Status,
            "version": int,
            "created_at": str,
            "updated_at": str,
            "config": config,
            "state": state,
            "result": result | None,
            "round": int,
            "start_rolls": NotRequired[list[Any]],
            "summary": NotRequired[str],
        }
        session = _named(f"{prefix}Session", base, "A session as every answer shows it.")
        created = _named(
            f"{prefix}Created",
            {**base, "tokens": NotRequired[Tokens]},
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
            {"session": session, "rounds": list[round_], "summary": str},
            "The rounds `resolve` played and the session after them.",
        )
        rounds = _named(
            f"{prefix}Rounds", {"rounds": list[round_]}, "The rounds played, oldest first."
        )
        return cls(session, created, changed, round_answer, resolved, rounds)
