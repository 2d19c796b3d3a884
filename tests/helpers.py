"""What the tests share: the check of an error answer, a session client and the dice doubles.

- `assert_problem`: an answer is the problem+json error docs/api.md#errors describes, with the
  status asked for (and, for a 422, the location asked for); it returns the body.
- `bearer` and `Session`: a session created through the API (docs/api.md#creating-a-session),
  its id, path and tokens, and calls made with one of its tokens.
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


# --- sessions -------------------------------------------------------------------------------


def bearer(token: str, **headers: str) -> dict[str, str]:
    """`Authorization: Bearer <token>`, with any other headers given."""
    return {"Authorization": f"Bearer {token}", **headers}


class Session:
    """A session created through the API (docs/api.md#creating-a-session), and calls on it.

    Creating checks the 201, its `Location` and its `ETag: "1"`. A call is made as one of the
    session's roles, `who`: the GM (`"gm"`, the default) or a party, racer or side by name
    (docs/api.md#tokens-and-roles), or with any other `token` (a stranger's, another session's).
    """

    def __init__(
        self,
        client: httpx.Client,
        kind: str,
        body: Any,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        response = client.post(f"/v1/{kind}", json=body, headers=dict(headers or {}))
        assert response.status_code == 201, response.text
        self.client = client
        self.response = response
        self.created: dict[str, Any] = response.json()
        self.id: str = self.created["id"]
        self.url = f"/v1/{kind}/{self.id}"
        assert response.headers["location"] == self.url
        assert response.headers["etag"] == '"1"'
        self.tokens: dict[str, Any] = self.created["tokens"]
        #: The GM's token, and the headers that send it.
        self.gm: str = self.tokens["gm"]
        self.headers = bearer(self.gm)

    def token(self, who: str = "gm") -> str:
        """The token of a role: the GM's, or a party's (a racer's, a side's) by name."""
        if who == "gm":
            return self.gm
        parties: dict[str, str] = self.tokens["parties"]
        return parties[who]

    def _headers(
        self, who: str, token: str | None, headers: Mapping[str, str] | None
    ) -> dict[str, str]:
        return {**bearer(token if token is not None else self.token(who)), **(headers or {})}

    def _path(self, path: str) -> str:
        return f"{self.url}/{path}" if path else self.url

    def get(
        self,
        path: str = "",
        who: str = "gm",
        headers: Mapping[str, str] | None = None,
        *,
        token: str | None = None,
    ) -> httpx.Response:
        """GET the session (or `path` under it) as `who`, or with `token`."""
        return self.client.get(self._path(path), headers=self._headers(who, token, headers))

    def post(
        self,
        path: str,
        body: Any = None,
        who: str = "gm",
        headers: Mapping[str, str] | None = None,
        *,
        token: str | None = None,
    ) -> httpx.Response:
        """POST `body` (none when None) to `path` under the session as `who`, or with `token`."""
        return self.client.post(
            self._path(path), json=body, headers=self._headers(who, token, headers)
        )

    def patch(
        self,
        path: str,
        body: Any,
        who: str = "gm",
        *,
        token: str | None = None,
    ) -> httpx.Response:
        """PATCH `body` to `path` under the session as `who`, or with `token`."""
        return self.client.patch(
            self._path(path), json=body, headers=self._headers(who, token, None)
        )

    def post_round(
        self,
        rolls: Rolls | None = None,
        who: str = "gm",
        headers: Mapping[str, str] | None = None,
        *,
        token: str | None = None,
    ) -> httpx.Response:
        """A round whose body is only its supplied dice: `{"rolls": rolls}`, or `{}`."""
        body = {} if rolls is None else {"rolls": rolls}
        return self.post("rounds", body, who, headers, token=token)

    def play_round(
        self, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> httpx.Response:
        """Play a round as the GM (`body`, `{}` when None) that must succeed: its answer."""
        response = self.post("rounds", {} if body is None else body, headers=headers)
        assert response.status_code == 200, response.text
        return response

    def resolve(self, body: Any = None, headers: Mapping[str, str] | None = None) -> httpx.Response:
        """`POST …/resolve` as the GM (with `body`, none when None)."""
        return self.post("resolve", body, headers=headers)

    def session(self, who: str = "gm") -> dict[str, Any]:
        """The session as `who` reads it; its `ETag` is its version."""
        response = self.get(who=who)
        assert response.status_code == 200, response.text
        session: dict[str, Any] = response.json()
        assert response.headers["etag"] == f'"{session["version"]}"'
        return session

    def rounds(self, who: str = "gm") -> list[dict[str, Any]]:
        """The rounds played (the first page), as `who` reads them."""
        response = self.get("rounds", who)
        assert response.status_code == 200, response.text
        played: list[dict[str, Any]] = response.json()["rounds"]
        return played


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
