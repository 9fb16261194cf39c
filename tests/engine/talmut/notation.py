"""The notation of talmut.md §8 for engine tests: decks E1-E4, `L(s)` lists with ranges (steps: tests/notation.py)."""

from __future__ import annotations

from typing import Any

from engine.games import talmut
from engine.games.talmut import TalmutState
from engine.protocol import Action, Event
from tests.decks import cards
from tests.notation import action, parse_step

E1 = (
    "7C 2C 11C 3O 5B 7E 12B 6O 4E 7O 1B 12O 3C 10O 11O 12C 4O 2B 6E 5O 1C 1O 2O 4C 5C 6C 10C 1E 2E 3E 5E 10E 11E "
    "12E 3B 4B 6B 7B 10B 11B"
)
E2 = (
    "1O 4C 7B 2O 12E 10B 1C 6C 3E 1E 5C 2B 6B 11O 4O 2E 3C 5E 6E 7E 3O 5O 6O 7O 10O 12O 2C 7C 10C 11C 12C 4E 10E "
    "11E 1B 3B 4B 5B 11B 12B"
)
E3 = (
    "10O 11O 12O 10C 11C 12C 10E 10B 1O 2O 3O 4O 5O 6O 11E 11B 1C 2C 3C 4C 5C 6C 12E 12B 1E 2E 3E 4E 5E 6E 7O 7C 1B "
    "2B 3B 4B 5B 6B 7B 7E"
)
E4 = (
    "12O 1O 11O 12C 1C 11C 12E 1E 11E 12B 1B 11B 2O 3O 4O 5O 6O 7O 10O 2C 3C 4C 5C 6C 7C 10C 2E 3E 4E 5E 6E 7E 10E "
    "2B 3B 4B 5B 6B 7B 10B"
)


def deal(deck: str, seats: int = 3, **options: Any) -> TalmutState:
    return talmut.new_game(seats, talmut.parse_options(options), cards(deck, "talmut"), seed=0)


def step(state: TalmutState, move: str) -> tuple[TalmutState, list[Event]]:
    """`s0 draw stock` -> apply it."""
    return talmut.apply(state, *parse_step(move))


def play(state: TalmutState, moves: str) -> TalmutState:
    """Comma-separated moves, e.g. `s0 draw stock, s0 discard`."""
    for move in moves.split(","):
        state, _ = step(state, move)
    return state


def legal(text: str) -> list[Action]:
    """`L(s)` as in talmut.md §8: comma-separated, with ranges `match 0-3`, `swap 0-3`, `exchange 0.0-0.3`."""
    actions: list[Action] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        kind, _, argument = item.partition(" ")
        if "-" in argument:
            low, high = argument.split("-")
            if "." in low:
                seat = low.split(".")[0]
                for position in range(int(low.split(".")[1]), int(high.split(".")[1]) + 1):
                    actions.append(action(f"{kind} {seat}.{position}"))
            else:
                actions.extend(action(f"{kind} {position}") for position in range(int(low), int(high) + 1))
        else:
            actions.append(action(item))
    return actions


def slots(state: TalmutState, viewer: int | None, owner: int) -> list[dict[str, Any]]:
    return talmut.view(state, viewer).state["layouts"][owner]["slots"]


def slot(state: TalmutState, viewer: int | None, where: str) -> dict[str, Any]:
    owner, position = where.split(".")
    return slots(state, viewer, int(owner))[int(position)]


def layout_codes(state: TalmutState, owner: int) -> list[str | None]:
    return [None if entry.card is None else entry.card.code for entry in state.layouts[owner]]
