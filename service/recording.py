"""What the one write path records of each game so that a finished game can be exported (service/export.py).

It is kept in the events a game stores anyway, as fields no reader of events shows (`service.views.event_view`
reads only `version`, `type`, `public` and `private`), so a move costs no Redis command more than before:

- the `created` event of version 1 holds `deal`: `{"seed": <the engine's seed>, "deck": <the deck given, or null:
  shuffled by the seed>}` (`created_event`, of a create and a replay alike);
- the first event a move stores holds `move`: `{"seat": <seat>, "action": <the body applied>}` (`move_events`, of a
  move and of a replay's moves alike). Every move goes through `service.turns.play` and stores at least one event (its
  own): a human's, an AI's, a clock's (a timeout's `autoplay` move or its resignation), a `leave` (a resignation), a
  Talmut match out of turn.

What it costs (bench/move_cost.py, 10 two-human Durak games of 40 moves, before and after): the same game-Redis
commands per move (one EVALSHA whose script makes one RPUSH of the move's events either way) and about 60 bytes
more per move (140 -> 201 B of `MEMORY USAGE` per move; the `move` field alone is 58-62 B of JSON in every game),
kept as long as the game's events (its idle time, then its retention time once finished).

Flask-free: the worker imports service/turns.py, which imports this.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.protocol import Event
from service.views import stored_event

DEAL = "deal"
"""The stored-only field of the `created` event that records the deal."""
MOVE = "move"
"""The stored-only field of a move's first stored event that records the move."""


def created_event(game: str, seats: int, status: str, seed: int, deck: Sequence[str] | None) -> dict[str, Any]:
    """The stored `created` event of version 1 of a `game` of `seats` seats, `status` at creation, with its deal.

    The deal is the engine's `seed`, and `deck` as given (None: shuffled by the seed). Every game's first event,
    of a create (service/turns.py `create_game`) and of a replay (service/export.py) alike.
    """
    stored = stored_event(1, Event("created", {"game": game, "seats": seats, "status": status}))
    return {**stored, DEAL: {"seed": seed, "deck": None if deck is None else list(deck)}}


def move_events(version: int, seat: int, action: Mapping[str, Any], events: Iterable[Event]) -> list[dict[str, Any]]:
    """The stored `events` of the write at `version` in which `seat` played `action`, the move on the first.

    `events` are the service's notes before the rules' own; never empty: every game's `apply` returns the
    action's own event (tests/e2e/test_export_replay.py replays games of every game from these records alone).
    """
    stored = [stored_event(version, event) for event in events]
    stored[0][MOVE] = {"seat": seat, "action": dict(action)}
    return stored
