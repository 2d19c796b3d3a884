"""What a kind of long-running contest provides (`ContestKind`), and the registry of kinds.

A kind is data: its rules (pure functions over frozen dataclasses), its schemas (pydantic
request bodies that build the rules' config with `to_rules()`, and TypedDicts describing its
answers) and its presentation (the JSON record, the summary line). The shared lifecycle
(`app/api/lifecycle.py`) knows nothing else about a kind.

Stored state is `serial.dump(state)`; the stored config is `public_config(config)`, which must
load back with `serial.load(config_type, ...)` (it may add derived keys, which loading ignores).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar

from pydantic import BaseModel
from starlette.routing import BaseRoute

from app.rules import serial
from app.rules.dice import Dice

ConfigT = TypeVar("ConfigT")
StateT = TypeVar("StateT")
RoundT = TypeVar("RoundT")
ConfigT_co = TypeVar("ConfigT_co", covariant=True)


class CreateBody(Protocol[ConfigT_co]):
    """A create body: pydantic has checked its shape and bounds; `to_rules` builds the config."""

    def to_rules(self) -> ConfigT_co: ...


@dataclass(frozen=True, slots=True)
class Examples:
    """Request examples for the OpenAPI document."""

    create: Mapping[str, Any]
    round: Mapping[str, Any] | None = None
    resolve: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Schemas:
    """The TypedDicts of a kind's answers, for the OpenAPI document and conformance tests.

    `session` is the kind's session (on `presentation.SessionFields`, with this config, state
    and result); `round` a round's record.
    """

    config: Any
    state: Any
    result: Any
    round: Any
    session: Any


class ContestKind(Protocol[ConfigT, StateT, RoundT]):
    """Everything the shared lifecycle needs to know about one kind of long-running contest."""

    #: The URL segment (`/v1/{path}`) and the kind's name in stored sessions.
    path: str
    #: What one of these is called in messages: "arm wrestle".
    title: str
    #: The kind's section of the rules reference, which every session answer links (`rule`);
    #: the reference as a whole for a kind that names none.
    rule: str = "docs/rules.md"
    config_type: type[ConfigT]
    state_type: type[StateT]
    create_model: type[BaseModel]
    #: The body of `POST …/rounds`; None: the kind has no plain rounds.
    round_model: type[BaseModel] | None
    #: The body of `POST …/resolve` (None: no body); only read when `resolvable`.
    resolve_model: type[BaseModel] | None
    resolvable: bool
    #: The dice a caller may supply for one name: its fields are the dice purposes.
    dice_model: type[BaseModel]
    schemas: Schemas
    examples: Examples

    def __hash__(self) -> int:
        """Kinds are hashable (by identity): `create_app` builds each kind's routes once."""
        return object.__hash__(self)

    def start(self, body: Any, dice: Dice) -> tuple[ConfigT, StateT]:
        """The config built from a create body (`to_rules()` plus any check), and first state."""
        ...

    def parties(self, config: ConfigT) -> tuple[str, ...]:  # noqa: ARG002 - by default none
        """The parties that get a token of their own besides the GM's."""
        return ()

    def names(self, config: ConfigT) -> Iterable[str]:
        """Who dice may be supplied for in a round."""
        ...

    def play(self, config: ConfigT, state: StateT, body: Any, dice: Dice) -> tuple[StateT, RoundT]:
        """One round: the round body (a `round_model`) and dice -> new state and the round."""
        ...

    def resolve_move(self, config: ConfigT, state: StateT, body: Any) -> Any:
        """The round body each server-dice round of `resolve` plays (`body`: a resolve_model)."""
        ...

    def finished(self, state: StateT) -> bool: ...

    def result(self, config: ConfigT, state: StateT) -> Mapping[str, Any] | None:
        """The session's `result` (a `schemas.result`) once finished, else None."""
        ...

    def public_config(self, config: ConfigT) -> Mapping[str, Any]:
        """The session's `config` as shown and stored (a `schemas.config`)."""
        ...

    def public_state(self, config: ConfigT, state: StateT) -> Mapping[str, Any]:
        """The session's `state` as shown (a `schemas.state`): never a sealed secret."""
        ...

    def round_record(self, config: ConfigT, state: StateT, played: RoundT) -> Mapping[str, Any]:
        """The round's JSON record without `number`, `rolls` and `summary`."""
        ...

    def round_summary(self, config: ConfigT, state: StateT, played: RoundT) -> str: ...

    def describe(self, config: ConfigT, state: StateT) -> str | None:
        """The session's one-line `summary`, or None for none."""
        ...

    def extra_routes(self) -> Sequence[BaseRoute]:
        """Routes of this kind's own besides the shared lifecycle (a chase's `end`)."""
        return ()


def load_session(
    kind: ContestKind[ConfigT, StateT, Any],
    config: Mapping[str, Any],
    state: Mapping[str, Any],
    session_id: str | None = None,
) -> tuple[ConfigT, StateT]:
    """A stored session's config and state as the rules' dataclasses (the config through
    `load_config` when the session's id is given)."""
    if session_id is None:
        return serial.load(kind.config_type, config), serial.load(kind.state_type, state)
    return load_config(kind, config, session_id), serial.load(kind.state_type, state)


def load_config(
    kind: ContestKind[ConfigT, Any, Any], config: Mapping[str, Any], session_id: str
) -> ConfigT:
    """A stored session's config as the rules' dataclass.

    A session's config never changes after its creation: the config loaded before for this
    session is used again (about a tenth of a round's own work, measured on an arm wrestle),
    from a bounded per-process memory.
    """
    key = (kind.path, session_id)
    loaded: ConfigT | None = _configs.get(key)
    if loaded is None:
        loaded = serial.load(kind.config_type, config)
        _configs[key] = loaded
        if len(_configs) > CONFIGS_KEPT:
            _configs.popitem(last=False)
    else:
        _configs.move_to_end(key)
    return loaded


#: Configs kept by `load_config` (the sessions most recently played, per process).
CONFIGS_KEPT: Final = 4096
_configs: OrderedDict[tuple[str, str], Any] = OrderedDict()


def purposes(kind: ContestKind[Any, Any, Any]) -> frozenset[str]:
    """The dice purposes a kind takes: the fields of its dice model."""
    return frozenset(kind.dice_model.model_fields)
