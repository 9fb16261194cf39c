"""The shape of each game's action bodies, declared once and used twice.

A game module declares `ACTIONS`: action type -> field name -> field kind (its rules file's §4 table). The engine
checks bodies against it (`check_shape`), and the service builds its request schemas and OpenAPI `oneOf` from the
same declaration, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from engine.cards import Card
from engine.errors import GameFinished, IllegalAction, NotYourTurn

if TYPE_CHECKING:  # engine.protocol imports this module
    from engine.protocol import Action, Seat

StateT = TypeVar("StateT")


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


def _resign_any_time(state: object, seat: Seat) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class ActionCheck(Generic[StateT]):
    """One game's check of the bodies its `apply` gets, in the order every rules file's §4.3 gives.

    `legal_actions` alone decides what is legal (issue 16): a listed body is well formed by construction, so only
    its card codes are parsed, and that membership test is all an action of the rules' list costs. Any other body
    is checked by `check_action`, then accepted only if it is a `resign` the rules allow from a seat that is not
    to act (`may_resign`), else refused with `why_illegal`'s message.

    Attributes:
        shapes: the game's `ACTIONS`.
        parse_card: the game's card parser.
        legal_actions: `(state, seat) -> actions`, the game's `legal_actions`.
        to_act: `state -> seats`, the game's `to_act`.
        why_illegal: `(state, seat, parsed body) -> message`, why a well-formed body of a seat to act (or a
            `resign` that `may_resign` refuses) is not allowed, naming only what that seat may see.
        not_your_turn: the message of `NotYourTurn`.
        may_resign: `(state, seat) -> bool`, whether an unlisted `resign` is accepted. Default: always (a resign
            is allowed at any time, e.g. durak.md §3.12).
    """

    shapes: ActionShapes
    parse_card: Callable[[str], Card]
    legal_actions: Callable[[StateT, Seat], Sequence[Action]]
    to_act: Callable[[StateT], frozenset[Seat]]
    why_illegal: Callable[[StateT, Seat, dict[str, Any]], str]
    not_your_turn: str = "it is your opponent's turn"
    may_resign: Callable[[StateT, Seat], bool] = _resign_any_time

    def __call__(self, state: StateT, seat: object, action: object, *, finished: bool, seats: int) -> dict[str, Any]:
        """The body of an action `seat` may play now, parsed (card codes to cards): listed, or an allowed resign.

        Raises:
            GameFinished: `finished`.
            IllegalAction: a malformed body, no seat `seat` among `seats`, or a body the rules refuse now.
            NotYourTurn: `seat` is not to act and the body is not a `resign`.
        """
        listed = self.legal_actions(state, seat) if type(seat) is int else []
        if action in listed:
            assert isinstance(action, Mapping)
            fields = self.shapes[action["type"]]
            return {name: _parse_listed(value, fields.get(name), self.parse_card) for name, value in action.items()}
        parsed = check_action(action, self.shapes, self.parse_card, finished=finished, seat=seat, seats=seats)
        assert type(seat) is int
        if parsed["type"] == "resign":
            if self.may_resign(state, seat):
                return parsed
        elif seat not in self.to_act(state):
            raise NotYourTurn(self.not_your_turn)
        raise IllegalAction(self.why_illegal(state, seat, parsed))


def _parse_listed(value: Any, kind: Field | None, parse_card: Callable[[str], Card]) -> Any:
    if isinstance(kind, CardField):
        return parse_card(value)
    return dict(value) if isinstance(kind, ObjectField) else value  # a copy: events keep it


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
