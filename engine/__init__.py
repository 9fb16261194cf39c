"""Cardroom's rules and AI: pure functions over frozen states; standard library only, no I/O."""

from engine.cards import Card, Suit
from engine.errors import GameError, GameFinished, IllegalAction, InvalidDeck, InvalidOptions, NotYourTurn
from engine.games import GAMES
from engine.protocol import Action, Event, Game, Result, Seat, View

__all__ = [
    "GAMES",
    "Action",
    "Card",
    "Event",
    "Game",
    "GameError",
    "GameFinished",
    "IllegalAction",
    "InvalidDeck",
    "InvalidOptions",
    "NotYourTurn",
    "Result",
    "Seat",
    "Suit",
    "View",
]
