"""Errors raised by the rules core.

The HTTP edge maps every `RulesError` to a 422 problem+json response whose `errors`
list comes from `RulesError.errors`; a rule never knows about HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.rules.messages import Message, english

Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class RuleViolation:
    """One reason a request breaks the rules: where (`loc`, as in the request body) and why."""

    loc: Loc
    msg: str
    #: The reason as a message naming its values, when it has some (`msg` is its English).
    said: Message | None = field(default=None, compare=False)

    @classmethod
    def of(cls, loc: Loc, reason: str | Message) -> RuleViolation:
        """A violation at `loc` for `reason`: a fixed sentence (marked `N_`) or a message."""
        if isinstance(reason, Message):
            return cls(loc, english(reason), reason)
        return cls(loc, reason)


class RulesError(ValueError):
    """Input that is well formed but breaks a rule (docs/rules.md), e.g. hiding on flat ground.

    `msg` is the reason in English, or a `Message` naming its values (docs/languages.md): the
    problem's `detail` is then in the request's language, its `errors` in English."""

    def __init__(
        self, msg: str | Message, loc: Loc = (), *, more: Sequence[RuleViolation] = ()
    ) -> None:
        said = msg if isinstance(msg, Message) else None
        text = english(msg) if isinstance(msg, Message) else msg
        super().__init__(text)
        self.said: Message | None = said
        self.violations: tuple[RuleViolation, ...] = (RuleViolation(loc, text, said), *more)

    @property
    def msg(self) -> str:
        return self.violations[0].msg

    def located_under(self, prefix: Loc) -> RulesError:
        """The same violations, each `loc` under `prefix` (a body nested in another's)."""
        first, *more = self.violations
        return RulesError(
            self.said or first.msg,
            (*prefix, *first.loc),
            more=[
                RuleViolation((*prefix, *violation.loc), violation.msg, violation.said)
                for violation in more
            ],
        )

    @classmethod
    def of_all(cls, found: Sequence[RuleViolation]) -> RulesError:
        """One error for every violation `found` (at least one), worded as the first."""
        first, *more = found
        return cls(first.said or first.msg, first.loc, more=more)


class DiceError(RulesError):
    """Supplied dice out of range or of the wrong count (docs/rules.md#dice-and-checks)."""


class PhaseError(ValueError):
    """A call that is valid in general but not now (the contest is finished or in another phase).

    The HTTP edge maps it to 409. Like a `RulesError`, its reason may be a `Message`.
    """

    def __init__(self, msg: str | Message) -> None:
        self.said: Message | None = msg if isinstance(msg, Message) else None
        super().__init__(english(msg) if isinstance(msg, Message) else msg)
