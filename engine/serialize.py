"""Frozen dataclass states <-> JSON-safe dicts, so the store can keep any game's state.

Supported field types: int, str, bool, None, `Card` (stored as its code), `Enum` (by value), nested frozen
dataclasses, `tuple[T, ...]`, `tuple[A, B]`, `X | None`. The format is versioned by `FORMAT`.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, TypeVar

from engine.cards import Card

FORMAT = 1
StateT = TypeVar("StateT")


def dump(value: Any) -> Any:
    """A JSON-safe form of `value` (a state dataclass or anything inside one).

    >>> from engine.cards import Suit
    >>> dump((Card(10, Suit.HEARTS), None, 3))
    ['10H', None, 3]
    """
    kind = type(value)
    if kind in _AS_THEY_ARE:  # most of a state's leaves: a move's write dumps thousands of them
        return value
    if kind is tuple or kind is list:
        return [dump(item) for item in value]
    if isinstance(value, Card):
        return value.code
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _FIELD_NAMES.get(kind)
        if names is None:
            names = _FIELD_NAMES[kind] = tuple(field.name for field in dataclasses.fields(value))
        return {name: dump(getattr(value, name)) for name in names}
    if isinstance(value, tuple | list):
        return [dump(item) for item in value]
    return value


_AS_THEY_ARE = frozenset({str, int, bool, float, type(None)})
"""Types `dump` returns unchanged, checked exactly: a `Card`, an `Enum` (an IntEnum is an int) never is one."""

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""A dataclass's field names in order, by class, as `dump` walks them (`dataclasses.fields` builds a tuple anew)."""


def load(cls: type, data: Mapping[str, Any], parse_card: Callable[[str], Card]) -> Any:
    """Rebuild a `cls` instance from `dump`'s output; `parse_card` reads the game's card codes.

    A dataclass field with a default may be absent (a record stored before the field was added): it takes the
    default.

    Raises:
        KeyError, TypeError, ValueError: `data` does not have the shape of `cls` (a stored state from another
            format version, or a bug).
    """
    return _load(cls, data, parse_card)


def dump_state(state: Any) -> dict[str, Any]:
    """A game state as a JSON-safe dict (cards as codes), tagged with `FORMAT`: a game's `dump_state`."""
    return {"format": FORMAT, **dump(state)}


def load_state(cls: type[StateT], data: Mapping[str, Any], parse_card: Callable[[str], Card]) -> StateT:
    """Inverse of `dump_state`: a game's `load_state`, given its state class and card parser.

    Raises:
        ValueError: `data` was written in another format version.
        KeyError, TypeError: `data` does not have the shape of `cls`.
    """
    if data.get("format") != FORMAT:
        raise ValueError(f"unsupported state format {data.get('format')!r}")
    state: StateT = load(cls, data, parse_card)
    return state


def state_loader(cls: type[StateT], parse_card: Callable[[str], Card]) -> Callable[[Mapping[str, Any]], StateT]:
    """A game's `load_state`: `load_state(cls, ..., parse_card)` for one state class and card parser.

    The loader raises what `load_state` raises.
    """

    def load_game_state(data: Mapping[str, Any]) -> StateT:
        return load_state(cls, data, parse_card)

    load_game_state.__doc__ = f"Inverse of `dump_state`: a `{cls.__name__}` (see `engine.serialize.load_state`)."
    return load_game_state


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _load(hint: Any, data: Any, parse_card: Callable[[str], Card]) -> Any:
    if hint is Card:
        return parse_card(data)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        if data is None:
            return None
        (inner,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return _load(inner, data, parse_card)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_load(args[0], item, parse_card) for item in data)
        return tuple(_load(arg, item, parse_card) for arg, item in zip(args, data, strict=True))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(data)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        # a field added later with a default is absent from records stored before it: the default fills it in
        return hint(**{
            f.name: _load(hints[f.name], data[f.name], parse_card)
            for f in dataclasses.fields(hint)
            if f.name in data or (f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
        })
    if hint in (int, str, bool):
        if not isinstance(data, hint):
            raise TypeError(f"expected {hint.__name__}, got {data!r}")
        return data
    raise TypeError(f"cannot load a field of type {hint!r}")
