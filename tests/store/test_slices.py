"""A long resolve gives the worker's other requests their turn: it plays in slices of
`SLICE_SECONDS` and writes its rounds `ROUNDS_PER_SLICE` at a time, yielding to the event loop
between them. Counted, not timed: the clock is a counter, and every yield is recorded."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest

from app.api.kinds.arm_wrestles import KIND as ARM_WRESTLES
from app.api.sessions import lifecycle
from app.rules import arm_wrestling
from app.store import repository
from app.store.repository import SessionRecord

#: How far the fake clock moves at each reading.
TICK = 0.001


class Yields:
    """`asyncio.sleep` counting the turns given to the event loop."""

    def __init__(self) -> None:
        self.count = 0
        self.real = asyncio.sleep

    async def __call__(self, delay: float, result: Any = None) -> Any:
        if delay == 0:
            self.count += 1
        return await self.real(delay, result)


@pytest.fixture
def yields(monkeypatch: pytest.MonkeyPatch) -> Yields:
    counter = Yields()
    monkeypatch.setattr(asyncio, "sleep", counter)
    return counter


def _ticking_clock() -> types.SimpleNamespace:
    readings = iter(range(1, 10**9))
    return types.SimpleNamespace(perf_counter=lambda: next(readings) * TICK)


def test_a_resolve_yields_once_per_slice(monkeypatch: pytest.MonkeyPatch, yields: Yields) -> None:
    monkeypatch.setattr(lifecycle, "time", _ticking_clock())
    # Two equal wrestlers to a far target: many rounds, each one reading of the clock.
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("A", 0, 18, 4),
        arm_wrestling.Competitor("B", 0, 18, 4),
        target=400,
        max_rounds=60,
    )
    state = arm_wrestling.State(names=("A", "B"))
    record = _record(seed=11)
    after, played, recent = asyncio.run(
        lifecycle.play_to_the_end(ARM_WRESTLES, config, state, record, None)
    )
    assert ARM_WRESTLES.finished(after)
    assert len(played) > 3 * round(lifecycle.SLICE_SECONDS / TICK)
    # The clock is read once a round and once more at each yield: a slice of SLICE_SECONDS
    # holds that many readings.
    per_slice = round(lifecycle.SLICE_SECONDS / TICK)
    expected, reading, slice_ends = 0, 1, 1 + per_slice
    for _ in played:
        reading += 1
        if reading >= slice_ends:
            expected += 1
            reading += 1
            slice_ends = reading + per_slice
    assert yields.count == expected
    assert expected >= len(played) // (per_slice + 1)
    assert [entry.number for entry in recent] == list(
        range(len(played) - lifecycle.RESOLVE_RECENT_ROUNDS + 1, len(played) + 1)
    )


class CountingInsert:
    """The round insert statement, recording what it is given instead of running."""

    def __init__(self) -> None:
        self.numbers: list[int] = []

    async def execute(self, _connection: Any, parameters: dict[str, Any]) -> None:
        self.numbers.append(parameters["number"])


@pytest.mark.parametrize("count", [1, 8, 9, 20, 64])
def test_rounds_are_written_a_batch_at_a_time(
    monkeypatch: pytest.MonkeyPatch, yields: Yields, count: int
) -> None:
    insert = CountingInsert()
    monkeypatch.setattr(repository, "_INSERT_ROUND", insert)
    played = [
        {"number": n, "inputs": {}, "dice": [], "outcome": {"n": n}} for n in range(1, count + 1)
    ]
    asyncio.run(repository._insert_rounds(None, "session", played, None))  # type: ignore[arg-type]
    assert insert.numbers == list(range(1, count + 1))
    # A turn for the other requests between every batch of ROUNDS_PER_SLICE rounds.
    assert yields.count == (count - 1) // repository.ROUNDS_PER_SLICE


def _record(seed: int) -> SessionRecord:
    stamp = repository.now()
    return SessionRecord(
        id="s",
        kind=ARM_WRESTLES.path,
        status="active",
        version=1,
        rounds_played=0,
        config={},
        state={},
        result=None,
        seed=seed,
        gm_token_hash="",
        party_token_hashes={},
        created_at=stamp,
        updated_at=stamp,
    )
