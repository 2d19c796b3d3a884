"""What the tests share: the check of an error answer and the dice doubles.

- `assert_problem`: an answer is the problem+json error docs/api.md#errors describes, with the
  status asked for (and, for a 422, the location asked for); it returns the body.
- The dice doubles of the rules core's tests (docs/rules.md#supplied-and-server-dice): server
  dice that must not be drawn, that come from a script, that always show one face or that
  hypothesis draws; each is an `app.rules.dice.Rng` and a draw function alike. `fake_notation`
  stands in for the web layer's d20 evaluator, and `supplied` and `supplied_keys` make a `Dice`
  source holding only the dice a test supplies.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import httpx
from hypothesis import strategies as st

from app.rules.dice import Dice, Key, NotationResult

PROBLEM = "application/problem+json"
#: Supplied dice as a round body carries them: {who: {purpose: value or [values]}}.
Rolls = Mapping[str, Mapping[str, int | Sequence[int]]]


# --- errors ---------------------------------------------------------------------------------


def assert_problem(
    response: httpx.Response, status: int, loc: Sequence[str | int] | None = None
) -> dict[str, Any]:
    """Check an error answer (docs/api.md#errors) and return its body.

    The status and `application/problem+json`; RFC 9457's `type`, `title`, `status` and
    `detail`, as non-empty strings and the status; every entry of `errors` with a `loc` and a
    message, and a 422 with at least one. With `loc`, the first error is at `loc`: the answer
    names that field before any other.
    """
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM, response.headers["content-type"]
    problem: dict[str, Any] = response.json()
    assert {"type", "title", "status", "detail"} <= problem.keys(), problem
    assert problem["status"] == status, problem
    for field in ("type", "title", "detail"):
        assert isinstance(problem[field], str), problem
        assert problem[field], problem
    errors: list[dict[str, Any]] | None = problem.get("errors")
    if status == 422:
        assert errors, problem
    if errors is not None:
        assert isinstance(errors, list), problem
        for error in errors:
            assert {"loc", "msg"} <= error.keys(), error
            assert isinstance(error["loc"], list), error
            assert isinstance(error["msg"], str), error
            assert error["msg"], error
    if loc is not None:
        assert errors, problem
        assert errors[0]["loc"] == list(loc), errors
    return problem


# --- dice doubles ---------------------------------------------------------------------------


class NoServerDice:
    """Server dice that fail the test when drawn: every die the test needs is supplied."""

    def die(self, sides: int) -> int:
        raise AssertionError(f"unexpected server d{sides}")

    def __call__(self, sides: int) -> int:
        return self.die(sides)


class ScriptedRng:
    """Server dice from a script, in order, so a test knows every value drawn.

    Drawing past the script, or a value outside the die, fails the test; with `sides`, so does
    a die of another size. `drawn` and `sides_drawn` record what was drawn, `left` what was not.
    """

    def __init__(self, values: Iterable[int] = (), *, sides: int | None = None) -> None:
        self.values = list(values)
        self.only_sides = sides
        self.drawn: list[int] = []
        self.sides_drawn: list[int] = []

    def die(self, sides: int) -> int:
        if self.only_sides is not None:
            assert sides == self.only_sides, f"a d{sides} was drawn, only d{self.only_sides}"
        assert self.values, "more dice drawn than scripted"
        value = self.values.pop(0)
        assert 1 <= value <= sides, f"the scripted {value} is no face of a d{sides}"
        self.drawn.append(value)
        self.sides_drawn.append(sides)
        return value

    def __call__(self, sides: int) -> int:
        return self.die(sides)

    @property
    def left(self) -> int:
        return len(self.values)


class ConstantRng:
    """Server dice that always show the same face (1 by default), or the die's highest if
    that is lower."""

    def __init__(self, face: int = 1) -> None:
        self.face = face

    def die(self, sides: int) -> int:
        return min(self.face, sides)

    def __call__(self, sides: int) -> int:
        return self.die(sides)


class DrawnRng:
    """Server dice drawn by hypothesis, so that failing examples shrink."""

    def __init__(self, data: st.DataObject) -> None:
        self._data = data

    def die(self, sides: int) -> int:
        return self._data.draw(st.integers(1, sides))

    def __call__(self, sides: int) -> int:
        return self.die(sides)


_NOTATION = re.compile(r"(\d+)d(\d+)([+-]\d+)?")


def fake_notation(expr: str, draw: Callable[[int], int]) -> NotationResult:
    """A tiny stand-in for the web layer's d20 evaluator: `NdS`, `NdS+K`, `NdS-K`.

    The breakdown is d20's: `2d6 (4, 5) + 1`.
    """
    match = _NOTATION.fullmatch(expr.replace(" ", ""))
    assert match is not None, f"the test evaluator cannot parse {expr!r}"
    count, sides = int(match[1]), int(match[2])
    bonus = int(match[3] or 0)
    values = tuple(draw(sides) for _ in range(count))
    breakdown = f"{count}d{sides} ({', '.join(map(str, values))})" + (
        f" {match[3][0]} {abs(bonus)}" if bonus else ""
    )
    return NotationResult(sum(values) + bonus, breakdown, values, (sides,) * count)


def supplied_keys(
    values: Mapping[Key, Sequence[int]] | Mapping[tuple[str, str], Sequence[int]],
) -> Dice:
    """A `Dice` source holding exactly `values` by (who, purpose); a server die fails the test."""
    keyed: dict[Key, Sequence[int]] = dict(values.items())
    return Dice(NoServerDice(), keyed, notation=fake_notation)


def supplied(rolls: Rolls) -> Dice:
    """A `Dice` source holding exactly `rolls`, keyed as a round body keys them
    (docs/api.md#supplying-dice); a server die fails the test."""
    return supplied_keys(
        {
            (who, purpose): [values] if isinstance(values, int) else list(values)
            for who, purposes in rolls.items()
            for purpose, values in purposes.items()
        }
    )
