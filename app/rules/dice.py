"""The one place randomness enters the rules (docs/rules.md#dice-and-checks).

A `Dice` source hands out die values to the rules. Each value is either *supplied* by the
caller (checked for range and count) or *rolled* by the server: from the operating system's
CSPRNG by default, or from a deterministic generator when the request carries a seed. Every
value handed out is recorded in `Dice.log`, in the order used, one `DieRoll` per
(who, purpose) roll.

Supplied values are keyed by (who, purpose) and consumed in order. A single roll is either
fully supplied or fully rolled: a key that holds some values but fewer than one roll needs is
a `DiceError`, as is a supplied value outside 1..sides. When a key's values run out the server
rolls the rest (a player may supply the first obstacle die and let the server roll retries).

Supplied dice count as thrown (docs/rules.md#supplied-and-server-dice): whether a die is needed
may depend on other dice of the round, supplied or rolled, so a supplied die the round did not
use is never an error. It is reported (`leftovers`: who, purpose, values and why, an `UnusedDie`
each) beside the round's `rolls`, never inside them. What can be refused is decided before any
die is read: each kind says, from the state and the request alone, what each (who, purpose)
may take in the round (a `Need`), and `check_supplied` refuses what no path of the round could
use (a die nobody rolls this round, more values than any path takes, a value out of range).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol, cast

from app.rules import serial
from app.rules.errors import DiceError, Loc, RulesError
from app.rules.messages import Grouped, Message, m, ng


def outside(value: int, sides: int) -> Message:
    """The refusal of a die's value outside its die."""
    return m("die value {value} is outside 1..{sides}", value=value, sides=sides)


Source = Literal["supplied", "rolled"]
Key = tuple[str | None, str]
#: Why a supplied die went unused (docs/rules.md#supplied-and-server-dice): the contest ended in
#: the round before asking for it; the round never called for it (a check passed, no tie, not
#: the loser); or the round used fewer of that (who, purpose)'s values than were supplied.
Why = Literal["ended", "not-needed", "surplus"]
WHYS: Final[tuple[Why, ...]] = ("ended", "not-needed", "surplus")

#: Seeds are 0 <= seed < 2**63 (docs/api.md#seeds).
MAX_SEED = 2**63


@dataclass(frozen=True, slots=True)
class DieRoll:
    """One (who, purpose) roll as listed in every result's `rolls`."""

    who: str | None
    purpose: str
    dice: str
    values: tuple[int, ...]
    source: Source
    #: Who supplied a supplied roll's dice (a verifiable session's: "gm", "party:<name>",
    #: "seat:<name>"); None elsewhere, and then left out of its record.
    by: str | None = None
    #: Each die's sides, for a verifiable session's roll in dice notation (whose `dice` is
    #: the expression); None elsewhere, and then left out of its record.
    sides: tuple[int, ...] | None = None

    def record(self) -> dict[str, object]:
        """The roll as an API `rolls` entry (`by` and `sides` only when set)."""
        entry = cast(dict[str, object], serial.dump(self))
        if self.by is None:
            del entry["by"]
        if self.sides is None:
            del entry["sides"]
        return entry


@dataclass(frozen=True, slots=True)
class UnusedDie:
    """Supplied values of one (who, purpose) that the round did not use, as listed in a
    record's `unused` (beside `rolls`, never in them)."""

    who: str | None
    purpose: str
    values: tuple[int, ...]
    why: Why
    #: Who supplied them, in a verifiable session (as a supplied roll's `by`); else None.
    by: str | None = None

    def record(self) -> dict[str, object]:
        """The entry as an API `unused` entry (`by` only when set)."""
        entry: dict[str, object] = {
            "who": self.who,
            "purpose": self.purpose,
            "values": list(self.values),
            "why": self.why,
        }
        if self.by is not None:
            entry["by"] = self.by
        return entry


@dataclass(frozen=True, slots=True)
class Need:
    """What one (who, purpose) may take in a round, decided by the session's state and the
    request's other fields before any die is read.

    `sides`: the die's sides (a notation's are its own); `most`: the values every path of the
    round together can use at most (None: no bound but the request's dice budget); `certain`:
    the values every path uses (what a seat owes; the rest are conditional); `per_roll`: the
    values one roll takes (a notation's are counted by the edge); `notation`: the expression
    of a roll in dice notation, whose `most` counts rolls, not values; `when`: for a
    conditional die, in the game's words, when it is rolled.
    """

    sides: int
    most: int | None = 1
    certain: int = 0
    per_roll: int = 1
    notation: str | None = None
    when: str | None = None


#: A notation's dice, each one's sides in the order rolled, when the expression always rolls
#: the same dice (None: rerolls or explosions make the count depend on the dice).
NotationDice = Callable[[str], tuple[int, ...] | None]


def check_supplied(
    needs: Mapping[Key, Need],
    supplied: Mapping[Key, Sequence[int]],
    locs: Mapping[Key, Loc] | None = None,
    notation_dice: NotationDice | None = None,
) -> None:
    """Refuse what no path of the round could use (`DiceError`, at the first such key): a die
    of a (who, purpose) that `needs` does not list, more values than its `most`, a part of a
    roll, a value outside its die. Nothing here depends on a die's value, so whatever passes
    is either played or reported unused."""
    where = dict(locs or {})
    for key, values in supplied.items():
        loc = where.get(key, ("rolls", key[0] or "", key[1]))
        need = needs.get(key)
        if need is None:
            raise DiceError(
                m(
                    "no {purpose} die of {name}'s can be needed in this round",
                    purpose=key[1],
                    name=key[0],
                )
                if key[0] is not None
                else m("no {purpose} die can be needed in this round", purpose=key[1]),
                loc,
            )
        sides: tuple[int, ...] = (need.sides,) * need.per_roll
        most = need.most
        if need.notation is not None:
            counted = notation_dice(need.notation) if notation_dice is not None else None
            if counted is None:
                raise DiceError(
                    m(
                        "{notation} rolls as many dice as its dice decide: the server rolls them",
                        notation=need.notation,
                    ),
                    loc,
                )
            if not counted:
                raise DiceError(m("{notation} rolls no dice", notation=need.notation), loc)
            sides = counted
            most = None if most is None else most * len(counted)
        if most is not None and len(values) > most:
            raise DiceError(
                ng(
                    "{count} value for {purpose}: this round can use at most {most}",
                    "{count} values for {purpose}: this round can use at most {most}",
                    len(values),
                    purpose=repr(key[1]),
                    most=most,
                ),
                loc,
            )
        if len(values) % len(sides):
            raise DiceError(
                ng(
                    "a roll takes {count} value: supply whole rolls",
                    "a roll takes {count} values: supply whole rolls",
                    len(sides),
                ),
                loc,
            )
        for index, value in enumerate(values):
            die = sides[index % len(sides)]
            if not 1 <= value <= die:
                raise DiceError(outside(value, die), loc)


class Rng(Protocol):
    """A generator of uniform integers 1..sides."""

    def die(self, sides: int) -> int: ...


class PlacedRng(Protocol):
    """A generator whose dice are derived from their place: (who, purpose) and how many of
    theirs came before (a verifiable session's, app/rules/verifiable.py)."""

    def die_at(self, sides: int, who: str | None, purpose: str) -> int: ...


class _ByteRng:
    """Uniform dice from a stream of bytes, by rejection sampling (no modulo bias)."""

    __slots__ = ("_block", "_offset")

    def __init__(self) -> None:
        self._block = b""
        self._offset = 0

    def _refill(self) -> bytes:
        raise NotImplementedError

    def _bytes(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            if self._offset >= len(self._block):
                self._block = self._refill()
                self._offset = 0
            take = min(n - len(out), len(self._block) - self._offset)
            out += self._block[self._offset : self._offset + take]
            self._offset += take
        return bytes(out)

    def die(self, sides: int) -> int:
        if sides < 1:
            raise ValueError("a die needs at least one side")
        if sides < 256:
            # The common case, one byte per draw; the same bytes as the general path below.
            limit = 256 - 256 % sides
            while True:
                if self._offset >= len(self._block):
                    self._block = self._refill()
                    self._offset = 0
                value = self._block[self._offset]
                self._offset += 1
                if value < limit:
                    return value % sides + 1
        nbytes = max(1, (sides.bit_length() + 7) // 8)
        span = 256**nbytes
        limit = span - span % sides
        while True:
            value = int.from_bytes(self._bytes(nbytes), "big")
            if value < limit:
                return value % sides + 1

    def dice(self, count: int, sides: int) -> tuple[int, ...]:
        """`count` dice of `sides` sides: the dice `count` calls of `die` would give, in one
        call (a round rolls several; a call each was a twentieth of a quick contest)."""
        if not 1 <= sides < 256:
            return tuple([self.die(sides) for _ in range(count)])
        limit = 256 - 256 % sides
        block, offset = self._block, self._offset
        taken = block[offset : offset + count]
        if len(taken) == count and max(taken, default=0) < limit:
            # The common case: the next bytes of the block, none of them rejected.
            self._offset = offset + count
            return tuple([value % sides + 1 for value in taken])
        values: list[int] = []
        while len(values) < count:
            if offset >= len(block):
                block, offset = self._refill(), 0
            value = block[offset]
            offset += 1
            if value < limit:
                values.append(value % sides + 1)
        self._block, self._offset = block, offset
        return tuple(values)

    def rolls(self, sides: int) -> Iterator[int]:
        """The dice `die(sides)` would give, one after another, without a call each (a Monte
        Carlo estimate rolls thousands). While it is in use, draw from this generator only
        through it: it holds the bytes of the current block that it has not yet used."""
        if not 1 <= sides < 256:
            while True:
                yield self.die(sides)
        limit = 256 - 256 % sides
        while True:
            block, start = self._block, self._offset
            self._block, self._offset = b"", 0
            for value in block[start:]:
                if value < limit:
                    yield value % sides + 1
            self._block = self._refill()


class SystemRng(_ByteRng):
    """Server dice from the operating system's CSPRNG (`secrets.token_bytes`, i.e. urandom).

    Bytes are handed out 64 at a time from a pool of `SYSTEM_POOL_BYTES` fetched in one system
    call: a typical request's dice take one hand-out, and many requests share a call. Each
    byte is handed out once; the pool is per thread, and a forked process starts without one
    (so two processes never share bytes).
    """

    __slots__ = ()

    def _refill(self) -> bytes:
        return system_bytes(64)


#: Bytes fetched from the operating system at a time for `SystemRng`.
SYSTEM_POOL_BYTES: Final = 4096
_system_pool = threading.local()


def system_bytes(count: int) -> bytes:
    """`count` (at most `SYSTEM_POOL_BYTES`) bytes of the CSPRNG, none handed out before."""
    pool: bytes = getattr(_system_pool, "bytes", b"")
    offset: int = getattr(_system_pool, "offset", 0)
    if offset + count > len(pool):
        pool, offset = secrets.token_bytes(SYSTEM_POOL_BYTES), 0
        _system_pool.bytes = pool
    _system_pool.offset = offset + count
    return pool[offset : offset + count]


def _forget_system_pool() -> None:
    _system_pool.__dict__.clear()


os.register_at_fork(after_in_child=_forget_system_pool)


class SeededRng(_ByteRng):
    """Deterministic dice: SHA-256 in counter mode over (seed, stream), rejection-sampled.

    Fully specified here (not `random.Random`), so the same seed gives the same dice on every
    server and every Python version. `stream` separates independent uses of one seed, e.g.
    each round of a seeded session.
    """

    __slots__ = ("_counter", "_prefix")

    def __init__(self, seed: int, stream: str = "") -> None:
        if not 0 <= seed < MAX_SEED:
            raise ValueError("seed must be 0 <= seed < 2**63")
        super().__init__()
        self._prefix = f"arbiter-dice-v1:{seed}:{stream}:".encode()
        self._counter = 0

    def _refill(self) -> bytes:
        block = hashlib.sha256(self._prefix + str(self._counter).encode()).digest()
        self._counter += 1
        return block


def session_round_rng(seed: int | None, round_number: int) -> Rng:
    """Dice for one round of a session: derived from (seed, round number) when seeded."""
    if seed is None:
        return SystemRng()
    return SeededRng(seed, f"round:{round_number}")


def request_rng(seed: int | None) -> Rng:
    """Dice for a one-shot request: seeded when the request carries a seed."""
    return SystemRng() if seed is None else SeededRng(seed)


class NotationRoller(Protocol):
    """Evaluates dice notation (docs/rules.md#dice-notation) drawing its dice from a `Dice` source.

    The rules core stays standard-library only; the edge injects the evaluator (which uses
    the d20 library) into `Dice`.
    """

    def __call__(self, expr: str, draw: Callable[[int], int]) -> NotationResult: ...


@dataclass(frozen=True, slots=True)
class NotationResult:
    total: int
    breakdown: str
    values: tuple[int, ...]
    sides: tuple[int, ...]


#: The server's own work limit: the dice one request may use, rolled or supplied (resolving
#: a session to its end included). Every contest inside the documented limits fits in it.
MAX_DICE_PER_REQUEST: Final = 100_000


class WorkLimitExceeded(RulesError):
    """A request that needs more dice than the service rolls for one request."""


class DiceBudget:
    """The dice one request may still use, shared by every `Dice` source of the request."""

    __slots__ = ("left", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.left = limit

    def spend(self, count: int) -> None:
        self.left -= count
        if self.left < 0:
            raise WorkLimitExceeded(
                m(
                    "this request needs more than {count} dice, the most the service rolls "
                    "for one request; play it in smaller steps",
                    count=Grouped(self.limit),
                )
            )


class Dice:
    """A dice source for one resolution: supplied values first, else the server's `Rng`."""

    __slots__ = (
        "_budget",
        "_by",
        "_consumed",
        "_locs",
        "_notation",
        "_placed",
        "_rng",
        "_supplied",
        "log",
    )

    def __init__(
        self,
        rng: Rng | PlacedRng | None = None,
        supplied: Mapping[Key, Sequence[int]] | None = None,
        *,
        locs: Mapping[Key, Loc] | None = None,
        notation: NotationRoller | None = None,
        budget: DiceBudget | None = None,
        by: Callable[[str | None], str] | None = None,
    ) -> None:
        """`rng` a `PlacedRng` (a verifiable session's): every server die is drawn at its
        place, each roll in notation records its dice's sides, and `by` names who supplied
        each supplied roll (given its `who`)."""
        self._placed: PlacedRng | None = None
        self._rng: Rng
        if rng is not None and hasattr(rng, "die_at"):
            self._placed = cast(PlacedRng, rng)
            self._rng = _Unplaced()
        else:
            self._rng = rng if rng is not None else SystemRng()
        self._by = by
        self._budget = budget
        self._supplied: dict[Key, tuple[int, ...]] = {
            key: tuple(values) for key, values in (supplied or {}).items()
        }
        self._consumed: dict[Key, int] = {}
        self._locs: dict[Key, Loc] = dict(locs or {})
        self._notation = notation
        self.log: list[DieRoll] = []

    def _loc(self, key: Key) -> Loc:
        return self._locs.get(key, ("rolls", key[0] or "", key[1]))

    def has_supplied(self, who: str | None, purpose: str) -> bool:
        """Whether supplied values remain for (who, purpose)."""
        key = (who, purpose)
        return self._consumed.get(key, 0) < len(self._supplied.get(key, ()))

    def roll(self, count: int, sides: int, *, who: str | None, purpose: str) -> tuple[int, ...]:
        """`count`d`sides` for (who, purpose), logged as one entry."""
        key = (who, purpose)
        if self._budget is not None:
            self._budget.spend(count)
        values = self._take(key, count, sides)
        if values is None:
            placed = self._placed
            rng = self._rng
            if placed is not None:
                values = tuple([placed.die_at(sides, who, purpose) for _ in range(count)])
            elif isinstance(rng, _ByteRng):
                values = rng.dice(count, sides)
            else:
                die = rng.die
                values = tuple([die(sides) for _ in range(count)])
            source: Source = "rolled"
        else:
            source = "supplied"
            if self._by is not None:
                self.log.append(
                    DieRoll(who, purpose, f"{count}d{sides}", values, source, self._by(who))
                )
                return values
        self.log.append(DieRoll(who, purpose, f"{count}d{sides}", values, source))
        return values

    def die(self, sides: int, *, who: str | None, purpose: str) -> int:
        """One die of `sides` sides."""
        return self.roll(1, sides, who=who, purpose=purpose)[0]

    def d20(self, *, who: str | None, purpose: str) -> int:
        return self.roll(1, 20, who=who, purpose=purpose)[0]

    def notation(self, expr: str, *, who: str | None, purpose: str) -> NotationResult:
        """Evaluate dice notation; its dice are logged together as one (who, purpose) entry."""
        if self._notation is None:
            raise RuntimeError("this dice source has no notation evaluator")
        key = (who, purpose)
        drawn: list[int] = []
        sources: set[Source] = set()
        sides_seen: list[int] = []

        def draw(sides: int) -> int:
            if self._budget is not None:
                self._budget.spend(1)
            supplied = self._take(key, 1, sides)
            if supplied is None:
                placed = self._placed
                value = (
                    self._rng.die(sides) if placed is None else placed.die_at(sides, who, purpose)
                )
                sources.add("rolled")
            else:
                (value,) = supplied
                sources.add("supplied")
            drawn.append(value)
            sides_seen.append(sides)
            return value

        result = self._notation(expr, draw)
        if sources == {"supplied", "rolled"}:
            raise DiceError(
                m(
                    "{expr} needs {count} dice; supply all of them or none",
                    expr=expr,
                    count=len(drawn),
                ),
                self._loc(key),
            )
        source: Source = "supplied" if sources == {"supplied"} else "rolled"
        by = self._by(who) if self._by is not None and source == "supplied" else None
        sides = tuple(sides_seen) if self._placed is not None else None
        self.log.append(DieRoll(who, purpose, expr, tuple(drawn), source, by, sides))
        return result

    def _take(self, key: Key, count: int, sides: int) -> tuple[int, ...] | None:
        values = self._supplied.get(key)
        if values is None:
            return None
        start = self._consumed.get(key, 0)
        if start >= len(values):
            return None
        end = start + count
        if end > len(values):
            raise DiceError(
                ng(
                    "{count} value of 1..{sides} needed, {supplied} supplied",
                    "{count} values of 1..{sides} needed, {supplied} supplied",
                    count,
                    sides=sides,
                    supplied=len(values) - start,
                ),
                self._loc(key),
            )
        taken = values[start:end]
        for value in taken:
            if not 1 <= value <= sides:
                raise DiceError(outside(value, sides), self._loc(key))
        self._consumed[key] = end
        return taken

    def leftovers(self, *, ended: bool) -> tuple[UnusedDie, ...]:
        """Every supplied value the rules did not use, by (who, purpose) in the order
        supplied: `surplus` when some of the key's values were used, else `ended` when the
        contest `ended` in this round, else `not-needed`."""
        found: list[UnusedDie] = []
        for key, values in self._supplied.items():
            used = self._consumed.get(key, 0)
            if used >= len(values):
                continue
            why: Why = "surplus" if used else ("ended" if ended else "not-needed")
            by = self._by(key[0]) if self._by is not None else None
            found.append(UnusedDie(key[0], key[1], values[used:], why, by))
        return tuple(found)

    def unused(self, ignore: Iterable[Key] = ()) -> list[Key]:
        """Keys whose supplied values were not all used (wrong count), minus `ignore`."""
        skip = set(ignore)
        return [
            key
            for key, values in self._supplied.items()
            if key not in skip and self._consumed.get(key, 0) < len(values)
        ]

    def require_all_used(self, ignore: Iterable[Key] = ()) -> None:
        """Raise `DiceError` when supplied values were left over
        (docs/rules.md#supplied-and-server-dice)."""
        leftover = self.unused(ignore)
        if leftover:
            key = leftover[0]
            extra = len(self._supplied[key]) - self._consumed.get(key, 0)
            raise DiceError(
                ng(
                    "{count} supplied value for {purpose} was not needed",
                    "{count} supplied values for {purpose} were not needed",
                    extra,
                    purpose=repr(key[1]),
                ),
                self._loc(key),
            )

    def rolled(self) -> int:
        """How many dice the server rolled (not supplied) for this source."""
        return sum(len(entry.values) for entry in self.log if entry.source == "rolled")

    def rolls(self) -> list[dict[str, object]]:
        """The log as API `rolls` entries."""
        return [entry.record() for entry in self.log]


class _Unplaced:
    """The `Rng` of a `Dice` drawing at places: never asked for a die without one."""

    __slots__ = ()

    def die(self, _sides: int) -> int:
        raise TypeError("this dice source draws every die at its place")
