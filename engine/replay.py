"""Playing a recorded game again, move for move: the rules' half of a finished game's export and replay.

A game is fixed by its deal (the deck dealt, the seed, and whether the deck was given or shuffled by the seed)
and the seats' moves in the order they were applied; this module deals it again and applies them with the game's
own `apply`, nothing else (no AI chooses, no clock runs). The service's side (reading and writing exports, storing
the replayed game) is service/export.py; the format is docs/api-additions.md "Finished-game export and replay".
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, shuffled
from engine.errors import GameError
from engine.protocol import JSON, Action, Event, Game, Seat, capabilities


@dataclass(frozen=True)
class Move:
    """One applied move: `seat` played `action` (a body of the game's `ACTIONS`, as it was applied)."""

    seat: Seat
    action: Action


class MoveDoesNotApply(Exception):
    """The recorded move at `index` (0-based into the moves) is refused by the rules, or the game ended before it.

    `str(error)` says why, in the rules' words (e.g. "6H does not beat 9H", "the game is finished").
    """

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"action {index} does not apply: {reason}")
        self.index = index
        self.reason = reason


def dealt_deck(game: Game[Any, Any], options: Any, seed: int) -> tuple[Card, ...]:
    """The deck a game of `options` created from `seed` alone deals, top first (engine/options.py `check_table`)."""
    return shuffled(game.full_deck(options), seed)


def dealt(
    game: Game[Any, Any], seats: int, options: Any, deck: Sequence[Card] | None, seed: int, ai_seats: Iterable[Seat]
) -> Any:
    """`game` dealt for `seats` as `new_game(seats, options, deck, seed=seed)` did, before any move.

    `deck` None: the game was dealt from `seed` (a Talmut game then shuffles its later rounds by it too); else the
    deck it was given. `ai_seats` are the seats an AI played from the start (the `with_ai_seats` capability).

    Raises:
        InvalidDeck, InvalidOptions: the deal itself is refused (engine/errors.py).
    """
    state = game.new_game(seats, options, deck, seed=seed)
    return capabilities(game).with_ai_seats(state, list(ai_seats))


def replaying(game: Game[Any, Any], state: Any, moves: Iterable[Move]) -> Iterator[tuple[Any, list[Event]]]:
    """Apply `moves` in order from `state` (`dealt`), one at a time: after each, the new state and its events.

    A generator, so that a caller which must not hold its thread for a whole game (a web process's event loop)
    can let others run between moves; the rules alone decide (no AI chooses, no clock runs).

    Raises:
        MoveDoesNotApply: a move is refused by the rules (any `GameError`: not the seat's turn, illegal, the game
            finished before it), when the step that meets it is taken.
    """
    for index, move in enumerate(moves):
        try:
            state, events = game.apply(state, move.seat, move.action)
        except GameError as error:
            raise MoveDoesNotApply(index, str(error)) from error
        yield state, events


def moves_of(recorded: Sequence[Mapping[str, JSON]]) -> list[Move]:
    """`[{"seat": 0, "action": {...}}, ...]` (an export's `actions`, shape already checked) as `Move`s."""
    return [Move(int(entry["seat"]), dict(entry["action"])) for entry in recorded]  # type: ignore[arg-type, call-overload]
