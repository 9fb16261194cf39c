"""What an AI may know: `SeatView`, the API view of one seat, and `history_entry`, one event as it sees it.

An AI sees exactly what its seat's player would see over HTTP: the seat's view and its legal actions, never the
game state. That is the type-level guarantee that no level can peek at hidden cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict

from engine.protocol import JSON, Action, Event, Seat
from engine.redaction import event_for


class SeatView(TypedDict):
    """The API view of one seat, as JSON: `state` is the game's view for `you`, `legal_actions` its moves.

    `history` (optional) is the game's event list as `you` may see it over `GET /events` (`{"version": v,
    "type": ..., fields}`, oldest first); the search levels read it, the rule bots do not.
    """

    game: str
    you: Seat
    state: Any
    legal_actions: Sequence[Action]
    history: NotRequired[Sequence[JSON]]


def history_entry(version: int, event: Event, seat: Seat) -> dict[str, JSON]:
    """One event as `seat` sees it in `GET /events`: what `service.views.event_view` returns for it."""
    return {"version": version, **event_for(event, seat)}
