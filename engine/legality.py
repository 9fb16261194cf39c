"""Legality decided once: `ActionCheck`, the check every game's `apply` starts with (issue 16).

A game's `legal_actions` is the one statement of what is legal now; `apply` accepts exactly what it lists (and a
`resign` where the rules allow one at any time), and a game's `_why_illegal` only words the refusal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from engine.actions import ActionShapes, CardField, Field, ObjectField, check_action
from engine.cards import Card
from engine.errors import IllegalAction, NotYourTurn
from engine.protocol import Action, Seat

StateT = TypeVar("StateT")


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
