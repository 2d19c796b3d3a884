"""What a kind of long-running contest provides, and its optional capabilities.

A kind is data: its rules (pure functions over frozen dataclasses), its schemas (pydantic
request bodies that build the rules' config with `to_rules()`, and TypedDicts describing its
answers) and its presentation (the JSON record, the summary line). The shared lifecycle
(`app/api/sessions/lifecycle.py`) knows nothing else about a kind.

Two shapes:
* `ContestKind`: what every kind has (creation, how a session is shown, its own routes); a
  phase-based kind (skill games: skills, sealed choices, a reveal) is this and its routes.
* `RoundKind`: a kind played round by round, each round one call with its dice (`POST
  …/rounds`), or to its end with server dice (`POST …/resolve`).
Optional capabilities are attributes a kind sets or leaves None: `odds` (`SessionOdds`: the
odds from a session's state, `GET`/`POST …/odds`), `choices` (`ChoiceOdds`: the odds at a
choice of the next step, one answer per option, `POST …/odds/choices`), `round_view`
(`RoundView`: what a party's token sees of a round record — its rounds, its answers and its
live events alike) and the method `round_card` (a round as a card, app/api/answers/cards.py).

Stored state is `serial.dump(state)`; the stored config is `public_config(config)`, which must
load back with `serial.load(config_type, ...)` (it may add derived keys, which loading ignores).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel
from starlette.routing import BaseRoute

from app.api import i18n
from app.api.schemas.common import RoundCard
from app.rules import serial
from app.rules.dice import Dice, Key, Need
from app.rules.messages import Listing, Message, m

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


# --- odds from a session ----------------------------------------------------------------------

TacticPolicy = Literal["none", "hide-when-possible"]


@dataclass(frozen=True, slots=True)
class OddsQuestion:
    """What `GET …/odds` asks besides the session: each kind reads what it needs."""

    #: The seed of a Monte Carlo estimate.
    seed: int | None = None
    #: A chase's terrain of the increments to come, as a round body's `terrain` in JSON.
    terrain: str | None = None
    #: When a chase's escapee hides.
    tactic_policy: TacticPolicy | None = None
    #: The trials of a Monte Carlo estimate (None: the default budget).
    trials: int | None = None


@dataclass(frozen=True, slots=True)
class OddsBody(Generic[ConfigT, StateT]):
    """The odds from a session asked with a JSON body (`POST …/odds`): the body's model, the
    operation's id and examples, and the answer from the config, state and validated body."""

    model: type[BaseModel]
    operation_id: str
    examples: Mapping[str, Any]
    ask: Callable[[ConfigT, StateT, Any], Awaitable[Mapping[str, Any]]]


@dataclass(frozen=True, slots=True)
class SessionOdds(Generic[ConfigT, StateT]):
    """A kind's odds from the state of one of its sessions (`GET …/odds`; with `body`,
    `POST …/odds` too): the answer's type and how it is worked out."""

    answer: Any
    ask: Callable[[ConfigT, StateT, OddsQuestion], Awaitable[Mapping[str, Any]]]
    body: OddsBody[ConfigT, StateT] | None = None


# --- what a party's token sees ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundView:
    """What a party's token sees of a kind's round records, when it may not see all of them
    (a bidding game's losing actions, docs/rules.md#bidding): `shown(record, party)` is the
    stored record as that party's token reads it. The GM's token reads every record whole."""

    shown: Callable[[Mapping[str, Any], str], Mapping[str, Any]]
    #: A proof's round (`{number, inputs, dice, outcome, link}`, stored) as a party's token
    #: (None: the GM's) reads it, its sealed choices sealed (docs/verifiable-dice.md); None:
    #: every proof shows the rounds as stored.
    proof: Callable[[Mapping[str, Any], str | None], dict[str, Any]] | None = None

    def of_answer(self, answer: Mapping[str, Any], party: str) -> dict[str, Any]:
        """An answer or event (`{"round": record, ...}` or `{"rounds": [record, ...], ...}`) as
        `party`'s token reads it."""
        shown = dict(answer)
        record = shown.get("round")
        if isinstance(record, Mapping):
            shown["round"] = self.shown(record, party)
        records = shown.get("rounds")
        if isinstance(records, list):
            shown["rounds"] = [
                self.shown(item, party) if isinstance(item, Mapping) else item for item in records
            ]
        return shown


@dataclass(frozen=True, slots=True)
class ChoiceOdds(Generic[ConfigT, StateT]):
    """A kind's odds at a choice (`POST …/odds/choices`): for each option the caller lists for
    the next step (a body of that step's call, its dice left unknown), the odds of the session
    whose next step is that option, as `…/odds` would answer them.

    `model` is the request body (its options validated with the kind's own model of that
    step), `answer` the answer's type; `ask` works the answer out from the config, the state
    and the validated body (raising `RulesError` for an option the step would refuse).
    """

    model: type[BaseModel]
    answer: Any
    operation_id: str
    examples: Mapping[str, Any]
    ask: Callable[[ConfigT, StateT, Any], Awaitable[Mapping[str, Any]]]


def best_and_summary(
    options: Sequence[Mapping[str, Any]],
    scores: Sequence[float],
    line: Callable[[Mapping[str, Any], float], Message],
    head: Callable[[Message], Message] | None = None,
) -> dict[str, str]:
    """An odds-at-a-choice answer's `best` (the label of the option of highest score, the
    first of equals) and its one-line `summary` in the request's language: each option's
    `line`, then the best (within `head`'s sentence, when given)."""
    best = options[scores.index(max(scores))]["label"]
    lines = [line(option, score) for option, score in zip(options, scores, strict=True)]
    said = m("{options}. Best: {best}.", options=Listing(lines, "; "), best=best)
    return {"best": best, "summary": i18n.said(said if head is None else head(said))}


# --- the kinds --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """One live event of a kind's own routes (app/api/sessions/events.py): its `event:` name,
    the schema of its `data:` (the answer of the call that makes it) and that call, in
    markdown."""

    name: str
    schema: str
    made_by: str


@runtime_checkable
class ContestKind(Protocol[ConfigT, StateT]):
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
    #: The dice a caller may supply for one name: its fields are the dice purposes.
    dice_model: type[BaseModel]
    schemas: Schemas
    examples: Examples
    #: The odds from a session's state, when the kind has them.
    odds: SessionOdds[ConfigT, StateT] | None = None
    #: What a party's token sees of a round record, when not all of it (None: all of it).
    round_view: RoundView | None = None
    #: The live events its own routes make (`extra_routes`), as the stream documents them.
    events: tuple[LiveEvent, ...] = ()
    #: The odds at a choice of the next step, when the kind's rules give it one.
    choices: ChoiceOdds[ConfigT, StateT] | None = None

    def __hash__(self) -> int:
        """Kinds are hashable (by identity): `create_app` builds each kind's routes once."""
        return object.__hash__(self)

    def start(self, body: Any, dice: Dice) -> tuple[ConfigT, StateT]:
        """The config built from a create body (`to_rules()` plus any check), and first state."""
        ...

    def parties(self, config: ConfigT) -> tuple[str, ...]:  # noqa: ARG002 - by default none
        """The parties that get a token of their own besides the GM's."""
        return ()

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

    def describe(self, config: ConfigT, state: StateT) -> str | Message | None:
        """The session's one-line `summary`, or None for none."""
        ...

    def round_card(self, config: ConfigT, record: Mapping[str, Any]) -> RoundCard | None:  # noqa: ARG002
        """A round record as a card (app/api/answers/cards.py), made when the service answers
        and never stored; None: the kind shows no card for it."""
        return None

    def extra_routes(self) -> Sequence[BaseRoute]:
        """Routes of this kind's own besides the shared lifecycle (a chase's `end`)."""
        return ()


@runtime_checkable
class RoundKind(ContestKind[ConfigT, StateT], Protocol[ConfigT, StateT, RoundT]):
    """A kind played round by round (`POST …/rounds`), or to its end (`POST …/resolve`)."""

    #: The body of `POST …/rounds`.
    round_model: type[BaseModel]
    #: The body of `POST …/resolve` (None: it takes none).
    resolve_model: type[BaseModel] | None

    def names(self, config: ConfigT) -> Iterable[str]:
        """Who dice may be supplied for in a round."""
        ...

    def rolling(self, config: ConfigT, state: StateT) -> Iterable[str]:  # noqa: ARG002
        """Who rolls in the next round: whose dice a round waiting for the seats' dice waits
        for (by default every name)."""
        return self.names(config)

    def play(self, config: ConfigT, state: StateT, body: Any, dice: Dice) -> tuple[StateT, RoundT]:
        """One round: the round body (a `round_model`) and dice -> new state and the round."""
        ...

    def needs(self, config: ConfigT, state: StateT, body: Any) -> Mapping[Key, Need] | None:  # noqa: ARG002
        """The dice the next round (with `body`, a `round_model`) may take, decided before any
        die is read (docs/rules.md#supplied-and-server-dice): what a supplied die is checked
        against, and what a seat owes. None: every purpose for every name, unbounded."""
        return None

    def resolve_move(self, config: ConfigT, state: StateT, body: Any) -> Any:
        """The round body each server-dice round of `resolve` plays (`body`: a resolve_model)."""
        ...

    def round_record(self, config: ConfigT, state: StateT, played: RoundT) -> Mapping[str, Any]:
        """The round's JSON record without `number`, `rolls` and `summary`."""
        ...

    def round_summary(self, config: ConfigT, state: StateT, played: RoundT) -> Message:
        """The round's one-line summary (without "Round N: "), as the rules build it."""
        ...


AnyKind = ContestKind[Any, Any]


def load_session(
    kind: ContestKind[ConfigT, StateT],
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
    kind: ContestKind[ConfigT, Any], config: Mapping[str, Any], session_id: str
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


def purposes(kind: AnyKind) -> frozenset[str]:
    """The dice purposes a kind takes: the fields of its dice model."""
    return frozenset(kind.dice_model.model_fields)
