"""The rules' frozen dataclasses to JSON-safe values and back, for every rules type at once.

One generic serialiser instead of a `to_dict`/`from_dict` pair per class: `dump` walks a value
(dataclasses by their fields, tuples and lists as lists, mappings as objects) and `load`
rebuilds a value of a given type from its type hints. `load(T, dump(x)) == x` for every
dataclass built of the types below; anything else is refused with `TypeError` (a type the
serialiser does not know) or `ValueError` (data that does not fit the type).

Supported: `int`, `float`, `str`, `bool`, `None`, `Literal[...]`, `X | Y` (tried in order,
`None` first), `tuple[X, ...]`, `tuple[X, Y]`, `list[X]`, `dict[str, X]` and `Mapping[str, X]`,
and dataclasses of these (fields with `init=False` are dumped but not loaded).

Loaders are built once per type and cached: a round loads and dumps its session's state, so
this is on the hot path of every round.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, TypeVar, cast

T = TypeVar("T")

JSONValue = Any
Loader = Callable[[Any], Any]

_SCALARS: dict[type, str] = {int: "an integer", float: "a number", str: "a string"}


def dump(value: Any) -> JSONValue:
    """`value` as JSON-safe data: dataclasses become objects of their fields."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    dumper = _DUMPERS.get(kind)
    if dumper is not None:
        return dumper(value)
    if kind is tuple or kind is list:
        return [item if type(item) in _PLAIN else dump(item) for item in value]
    if isinstance(value, str | int | float):
        return value
    if isinstance(value, tuple | list):
        return [item if type(item) in _PLAIN else dump(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): dump(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # Dumped once the slow way: from then on by a function of its own (`_dumper`).
        _DUMPERS[kind] = _dumper(kind)
        return dump(value)
    raise TypeError(f"cannot serialise a {type(value).__name__}")


def dump_as(value: Any, *, leave_out: tuple[str, ...] = (), **first: Any) -> JSONValue:
    """`dump(value)` of a dataclass reshaped a little, for an answer that is the dataclass
    with a key more or less: the keys `first` (given as they are), then its fields but those
    it leaves out."""
    dumped: dict[str, Any] = dump(value)
    for name in leave_out:
        del dumped[name]
    if first:
        first.update(dumped)
        return first
    return dumped


def _dumper(cls: type) -> Callable[[Any], dict[str, Any]]:
    """A function dumping a `cls`: one dict display of its fields, each taken as it is when
    its type is plain (`int`, `str`, `Literal["a", "b"]`, optional or not) and dumped
    otherwise, as a hand-written `to_dict` would be; compiled from the dataclass's fields
    (their names are identifiers), as `dataclasses` builds `__init__`."""
    hints = typing.get_type_hints(cls)
    entries = [
        f"{field.name!r}: value.{field.name}"
        if _dumped_as_is(hints.get(field.name, Any))
        else f"{field.name!r}: dump(value.{field.name})"
        for field in dataclasses.fields(cls)
    ]
    source = f"def dump_{cls.__name__}(value):\n    return {{{', '.join(entries)}}}\n"
    namespace: dict[str, Any] = {"dump": dump}
    exec(source, namespace)
    made: Callable[[Any], dict[str, Any]] = namespace[f"dump_{cls.__name__}"]
    return made


def _dumped_as_is(tp: Any) -> bool:
    """Whether every value of type `tp` is plain JSON already."""
    if tp in _PLAIN or tp is None:
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return all(type(arg) in _PLAIN for arg in typing.get_args(tp))
    if origin is typing.Union or origin is types.UnionType:
        return all(_dumped_as_is(arg) for arg in typing.get_args(tp))
    return False


#: Types dumped as they are, and the dumper of every dataclass dumped so far: a round dumps
#: hundreds of dataclasses (every die it rolled), so the lookup is kept to one.
_PLAIN: frozenset[type] = frozenset({str, int, float, bool, type(None)})
_DUMPERS: dict[type, Callable[[Any], dict[str, Any]]] = {}


def load(cls: type[T], data: JSONValue) -> T:
    """Rebuild a `cls` from what `dump` made of one."""
    return cast(T, loader(cast(Any, cls))(data))


@cache
def loader(tp: Any) -> Loader:
    """A function turning JSON data into a value of type `tp` (cached per type)."""
    if tp is Any:
        return _identity
    if tp is type(None) or tp is None:
        return _none
    if tp is bool:
        return _bool
    if tp in _SCALARS:
        return _scalar(tp)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Literal:
        return _literal(args)
    if origin is typing.Union or origin is types.UnionType:
        return _union(args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence(loader(args[0]), _taken_as_is(args[0]), tuple)
        return _fixed_tuple(tuple((loader(arg), _taken_as_is(arg)) for arg in args))
    if origin is list:
        return _sequence(loader(args[0]), _taken_as_is(args[0]), list)
    if origin in (dict, Mapping, typing.Mapping):
        if args[0] is not str:
            raise TypeError(f"only str keys are supported, not {args[0]!r}")
        return _mapping(loader(args[1]))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass(tp)
    raise TypeError(f"cannot load a {tp!r}")


def _identity(data: Any) -> Any:
    return data


def _none(data: Any) -> None:
    if data is not None:
        raise ValueError(f"expected null, got {data!r}")


def _bool(data: Any) -> bool:
    if not isinstance(data, bool):
        raise ValueError(f"expected a boolean, got {data!r}")
    return data


def _scalar(tp: type) -> Loader:
    def load_scalar(data: Any) -> Any:
        if isinstance(data, bool) or not isinstance(data, tp):
            if tp is float and isinstance(data, int) and not isinstance(data, bool):
                return float(data)
            raise ValueError(f"expected {_SCALARS[tp]}, got {data!r}")
        return data

    return load_scalar


def _literal(allowed: tuple[Any, ...]) -> Loader:
    values = set(allowed)

    def load_literal(data: Any) -> Any:
        if isinstance(data, bool) != any(isinstance(value, bool) for value in values) or (
            data not in values
        ):
            raise ValueError(f"expected one of {sorted(map(repr, values))}, got {data!r}")
        return data

    return load_literal


def _union(options: tuple[Any, ...]) -> Loader:
    nullable = type(None) in options
    loaders = [loader(option) for option in options if option is not type(None)]
    if len(loaders) == 1:
        only = loaders[0]
        return lambda data: None if data is None and nullable else only(data)

    def load_union(data: Any) -> Any:
        if data is None and nullable:
            return None
        for option in loaders:
            try:
                return option(data)
            except (ValueError, TypeError, KeyError):
                continue
        raise ValueError(f"{data!r} fits none of {options!r}")

    return load_union


def _sequence(item: Loader, as_is: frozenset[type], container: type) -> Loader:
    def load_sequence(data: Any) -> Any:
        if not isinstance(data, list | tuple):
            raise ValueError(f"expected a list, got {data!r}")
        return container([value if type(value) in as_is else item(value) for value in data])

    return load_sequence


def _fixed_tuple(items: tuple[tuple[Loader, frozenset[type]], ...]) -> Loader:
    def load_tuple(data: Any) -> tuple[Any, ...]:
        if not isinstance(data, list | tuple) or len(data) != len(items):
            raise ValueError(f"expected a list of {len(items)}, got {data!r}")
        return tuple(
            [
                value if type(value) in as_is else load_item(value)
                for (load_item, as_is), value in zip(items, data, strict=True)
            ]
        )

    return load_tuple


def _mapping(item: Loader) -> Loader:
    def load_mapping(data: Any) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            raise ValueError(f"expected an object, got {data!r}")
        return {str(key): item(value) for key, value in data.items()}

    return load_mapping


def _dataclass(cls: type) -> Loader:
    hints = typing.get_type_hints(cls)
    fields = [
        (
            field.name,
            loader(hints[field.name]),
            _has_default(field),
            _taken_as_is(hints[field.name]),
        )
        for field in dataclasses.fields(cls)
        if field.init
    ]

    def load_dataclass(data: Any) -> Any:
        if not isinstance(data, Mapping):
            raise ValueError(f"expected an object for {cls.__name__}, got {data!r}")
        arguments: dict[str, Any] = {}
        for name, load_field, optional, as_is in fields:
            if name in data:
                value = data[name]
                arguments[name] = value if type(value) in as_is else load_field(value)
            elif not optional:
                raise ValueError(f"{cls.__name__} needs {name!r}")
        return cls(**arguments)

    return load_dataclass


def _taken_as_is(tp: Any) -> frozenset[type]:
    """The types of data that a field of type `tp` loads unchanged, so that its loader need
    not be called for them: `int`, `str`, `float` and `bool` fields, optional or not (an
    `int` for a `float` field is converted, so it is left to the loader)."""
    options = (
        typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    )
    plain = [option for option in options if option is not type(None)]
    if len(plain) != 1 or plain[0] not in (int, str, float, bool):
        return frozenset()
    return frozenset({plain[0], type(None)} if len(options) == 2 else {plain[0]})


def _has_default(field: dataclasses.Field[Any]) -> bool:
    return (
        field.default is not dataclasses.MISSING or field.default_factory is not dataclasses.MISSING
    )
