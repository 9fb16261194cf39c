"""The shape of each game's action bodies, declared once and used twice.

A game module declares `ACTIONS`: action type -> field name -> field kind (its rules file's §4 table). The engine
checks bodies against it (`check_shape`), and the service builds its request schemas and OpenAPI `oneOf` from the
same declaration, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.cards import Card
from engine.errors import GameFinished, IllegalAction


@dataclass(frozen=True, slots=True)
class CardField:
    """A card code of the game's deck, e.g. `10H`; parsed to a `Card`."""


@dataclass(frozen=True, slots=True)
class ChoiceField:
    """One string out of `values`, e.g. a suit letter or a rank."""

    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class IntegerField:
    """An integer from `minimum` to `maximum`, e.g. a seat or a position."""

    minimum: int
    maximum: int


@dataclass(frozen=True, slots=True)
class ObjectField:
    """A JSON object of named fields, e.g. `{"seat": 1, "position": 0}`."""

    fields: Mapping[str, Field]


Field = CardField | ChoiceField | IntegerField | ObjectField
ActionShapes = Mapping[str, Mapping[str, Field]]
"""Action type -> field name -> kind; a type with no fields maps to `{}`."""


def check_shape(action: object, shapes: ActionShapes, parse_card: Callable[[str], Card]) -> dict[str, Any]:
    """Check that `action` is a well-formed body of one of `shapes`; return it with card codes parsed to cards.

    Returns e.g. `{"type": "defend", "card": Card(10C), "against": Card(8C)}`.

    Raises:
        IllegalAction: not an object, unknown `type`, a missing or extra field, or a value of the wrong kind.

    >>> from engine.cards import french_deck, code_map
    >>> parse = code_map(french_deck(6)).__getitem__
    >>> check_shape({"type": "attack", "card": "6S"}, {"attack": {"card": CardField()}}, parse)
    {'type': 'attack', 'card': Card(6S)}
    """
    if not isinstance(action, Mapping):
        raise IllegalAction("an action must be an object with a `type`")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in shapes:
        raise IllegalAction(f"unknown action type {kind!r}; expected one of {', '.join(shapes)}")
    fields = {name: value for name, value in action.items() if name != "type"}
    return {"type": kind, **_check_object(fields, shapes[kind], parse_card, f"`{kind}`")}


def check_action(
    action: object,
    shapes: ActionShapes,
    parse_card: Callable[[str], Card],
    *,
    finished: bool,
    seat: object,
    seats: int,
) -> dict[str, Any]:
    """Run the checks every game's `apply` starts with, in the rules files' §4.3 order; return the parsed body.

    The body is parsed as by `check_shape`.

    Raises:
        GameFinished: `finished` (the game already has a result).
        IllegalAction: a malformed body (see `check_shape`), or `seat` is not one of 0..`seats` - 1.
    """
    if finished:
        raise GameFinished("the game is over")
    # The HTTP layer rejects malformed bodies first; the engine must still never crash on them.
    parsed = check_shape(action, shapes, parse_card)
    if type(seat) is not int or not 0 <= seat < seats:
        raise IllegalAction(f"there is no seat {seat!r}")
    return parsed


def _check_object(
    value: Mapping[str, Any], fields: Mapping[str, Field], parse_card: Callable[[str], Card], where: str
) -> dict[str, Any]:
    if set(value) != set(fields):
        expected = ", ".join(sorted(fields)) or "no fields"
        raise IllegalAction(f"{where} takes {expected}")
    return {name: _check_value(value[name], kind, parse_card, f"`{name}`") for name, kind in fields.items()}


def _check_value(value: Any, kind: Field, parse_card: Callable[[str], Card], where: str) -> Any:
    if isinstance(kind, CardField):
        if not isinstance(value, str):
            raise IllegalAction(f"{where} must be a card code, got {value!r}")
        try:
            return parse_card(value)
        except (KeyError, ValueError):
            raise IllegalAction(f"{where} must be a card code of this game's deck, got {value!r}") from None
    if isinstance(kind, ChoiceField):
        if value not in kind.values:
            raise IllegalAction(f"{where} must be one of {', '.join(kind.values)}, got {value!r}")
        return value
    if isinstance(kind, IntegerField):
        if type(value) is not int or not kind.minimum <= value <= kind.maximum:
            raise IllegalAction(f"{where} must be an integer from {kind.minimum} to {kind.maximum}, got {value!r}")
        return value
    if not isinstance(value, Mapping):
        raise IllegalAction(f"{where} must be an object")
    return _check_object(value, kind.fields, parse_card, where)
