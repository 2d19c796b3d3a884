"""The generic serialiser: every supported shape round-trips, and bad data is refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules import serial
from app.rules.races import CheckRecord


@dataclass(frozen=True, slots=True)
class Inner:
    name: str
    amount: int


@dataclass(frozen=True, slots=True)
class Outer:
    names: tuple[str, str]
    ds: tuple[int, ...]
    mode: Literal["lead", "spot"]
    inner: Inner | None
    items: tuple[Inner, ...] = ()
    by_name: dict[str, int] = field(default_factory=dict)
    ratio: float = 0.5
    flag: bool = False
    either: int | str = 0
    listed: list[int] = field(default_factory=list)


names = st.text(max_size=8)
inners = st.builds(Inner, names, st.integers())
outers = st.builds(
    Outer,
    st.tuples(names, names),
    st.tuples(st.integers(), st.integers()) | st.tuples(),
    st.sampled_from(["lead", "spot"]),
    st.none() | inners,
    st.lists(inners, max_size=3).map(tuple),
    st.dictionaries(names, st.integers(), max_size=3),
    st.floats(allow_nan=False),
    st.booleans(),
    st.integers() | names,
    st.lists(st.integers(), max_size=3),
)


@given(outers)
def test_every_value_round_trips(value: Outer) -> None:
    assert serial.load(Outer, serial.dump(value)) == value


def test_dump_shape() -> None:
    value = Outer(("a", "b"), (1, 2), "lead", Inner("x", 3), by_name={"a": 1})
    assert serial.dump(value) == {
        "names": ["a", "b"],
        "ds": [1, 2],
        "mode": "lead",
        "inner": {"name": "x", "amount": 3},
        "items": [],
        "by_name": {"a": 1},
        "ratio": 0.5,
        "flag": False,
        "either": 0,
        "listed": [],
    }


def test_defaults_fill_missing_fields() -> None:
    loaded = serial.load(Outer, {"names": ["a", "b"], "ds": [], "mode": "spot", "inner": None})
    assert loaded == Outer(("a", "b"), (), "spot", None)


@pytest.mark.parametrize(
    "data",
    [
        {"names": ["a"], "ds": [], "mode": "spot", "inner": None},
        {"names": ["a", "b"], "ds": [], "mode": "nope", "inner": None},
        {"names": ["a", "b"], "ds": [True], "mode": "spot", "inner": None},
        {"names": ["a", "b"], "ds": [], "mode": "spot"},
        {"names": ["a", "b"], "ds": [], "mode": "spot", "inner": {"name": "x"}},
        {"names": ["a", "b"], "ds": [], "mode": "spot", "inner": None, "flag": 1},
        {"names": ["a", 1], "ds": [], "mode": "spot", "inner": None},
        {"names": ["a", "b"], "ds": [1.5], "mode": "spot", "inner": None},
        {"names": ["a", "b"], "ds": [], "mode": "spot", "inner": {"name": "x", "amount": True}},
        {"names": ["a", "b"], "ds": [], "mode": "spot", "inner": None, "ratio": "1"},
        {"names": ["a", "b"], "ds": [], "mode": "spot", "inner": None, "listed": [None]},
        [],
    ],
)
def test_bad_data_is_refused(data: object) -> None:
    with pytest.raises(ValueError, match=r"."):
        serial.load(Outer, data)


def test_an_integer_for_a_float_field_loads_as_a_float() -> None:
    loaded = serial.load(
        Outer, {"names": ["a", "b"], "ds": [], "mode": "spot", "inner": None, "ratio": 2}
    )
    assert loaded.ratio == 2.0
    assert type(loaded.ratio) is float


def test_unknown_types_are_refused() -> None:
    with pytest.raises(TypeError, match="cannot serialise"):
        serial.dump(object())
    with pytest.raises(TypeError, match="cannot load"):
        serial.load(set[int], [])


def test_dump_as_reshapes_a_dataclass_by_a_key() -> None:
    check = CheckRecord("increment", "strength", 12, 14, dc=10, success=True)
    assert serial.dump_as(check, leave_out=("kind", "dc")) == {
        "check": "strength",
        "roll": 12,
        "total": 14,
        "success": True,
    }
    named = serial.dump_as(check, name="Ann")
    assert list(named) == ["name", "kind", "check", "roll", "total", "dc", "success"]
    assert serial.dump_as(check) == serial.dump(check)
