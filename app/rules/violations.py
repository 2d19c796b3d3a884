"""Collecting rule violations in a create body, so one 422 lists them all
(docs/rules.md#dice-and-checks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.rules.errors import Loc, RulesError, RuleViolation
from app.rules.messages import N_, Message, m

#: docs/rules.md#limits
MAX_NOTATION_CHARS = 1000


class Violations:
    """Collects every rule violation in a create body so one 422 lists them all."""

    def __init__(self) -> None:
        self.found: list[RuleViolation] = []

    def add(self, loc: Loc, msg: str | Message) -> None:
        """A violation at `loc`: a fixed sentence (marked `N_`) or a message naming values."""
        self.found.append(RuleViolation.of(loc, msg))

    def raise_if_any(self) -> None:
        if self.found:
            raise RulesError.of_all(self.found)

    def mapping(self, value: object, loc: Loc) -> Mapping[str, Any]:
        if isinstance(value, Mapping):
            return value
        self.add(loc, N_("must be an object"))
        return {}

    def integer(
        self,
        data: Mapping[str, Any],
        key: str,
        loc: Loc,
        default: int | None = None,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        """`data[key]` as an int within bounds; `default` when missing (None: required)."""
        value = data.get(key)
        if value is None:
            if default is None:
                self.add((*loc, key), m("{key} is required", key=key))
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            self.add((*loc, key), m("{key} must be an integer", key=key))
            return default
        if minimum is not None and value < minimum:
            self.add((*loc, key), m("{key} must be at least {minimum}", key=key, minimum=minimum))
            return default
        if maximum is not None and value > maximum:
            self.add((*loc, key), m("{key} must be at most {maximum}", key=key, maximum=maximum))
            return default
        return value

    def optional_integer(
        self, data: Mapping[str, Any], key: str, loc: Loc, *, minimum: int | None = None
    ) -> int | None:
        if data.get(key) is None:
            return None
        return self.integer(data, key, loc, minimum=minimum)

    def flag(self, data: Mapping[str, Any], key: str, loc: Loc, default: bool) -> bool:
        value = data.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add((*loc, key), m("{key} must be true or false", key=key))
            return default
        return value

    def text(self, data: Mapping[str, Any], key: str, loc: Loc, default: str | None = None) -> str:
        """A non-blank string; `default` when missing (None: required)."""
        value = data.get(key)
        if value is None and default is not None:
            return default
        if not isinstance(value, str) or not value.strip():
            self.add((*loc, key), m("{key} must be a non-blank string", key=key))
            return default or ""
        return value

    def check_name(self, data: Mapping[str, Any], key: str, loc: Loc) -> str:
        # Ruling: check names are case-insensitive (stored lower-case).
        return self.text(data, key, loc).strip().lower()

    def choice(
        self, data: Mapping[str, Any], key: str, loc: Loc, choices: Sequence[str], default: str
    ) -> str:
        value = data.get(key)
        if value is None:
            return default
        if value not in choices:
            self.add(
                (*loc, key),
                m("{key} must be one of {choices}", key=key, choices=", ".join(choices)),
            )
            return default
        return str(value)

    def required_choice(
        self, data: Mapping[str, Any], key: str, loc: Loc, choices: Sequence[str]
    ) -> str | None:
        value = data.get(key)
        if value is None:
            self.add(
                (*loc, key),
                m("{key} is required: one of {choices}", key=key, choices=", ".join(choices)),
            )
            return None
        if value not in choices:
            self.add(
                (*loc, key),
                m("{key} must be one of {choices}", key=key, choices=", ".join(choices)),
            )
            return None
        return str(value)

    def notation(self, data: Mapping[str, Any], key: str, loc: Loc) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.add((*loc, key), m("{key} must be dice notation", key=key))
            return None
        if len(value) > MAX_NOTATION_CHARS:
            self.add(
                (*loc, key),
                m("{key} is longer than {limit} characters", key=key, limit=MAX_NOTATION_CHARS),
            )
            return None
        return value.strip()
