"""The games Cardroom offers: each game's `GameDeclaration`, and the rules modules by game id.

A game is one folder whose `__init__.py` declares it as `GAME` (engine/declaration.py); adding a game to Cardroom is
adding its folder and its `GAME` to `BUILT_IN`.
"""

from __future__ import annotations

from typing import Any

from engine.declaration import GameDeclaration
from engine.games import durak, svoi_koziri, tadmur, talmut
from engine.protocol import Game

BUILT_IN = (durak.GAME, svoi_koziri.GAME, tadmur.GAME, talmut.GAME)


def by_id(games: tuple[GameDeclaration, ...]) -> dict[str, GameDeclaration]:
    """Game id -> declaration, in the order given.

    Raises:
        ValueError: two declarations share a game id.
    """
    declared: dict[str, GameDeclaration] = {}
    for game in games:
        if game.rules.ID in declared:
            raise ValueError(f"two games are declared as {game.rules.ID!r}")
        declared[game.rules.ID] = game
    return declared


DECLARED = by_id(BUILT_IN)
"""Game id -> its declaration, the built-in games first."""
GAMES: dict[str, Game[Any, Any]] = {game_id: game.rules for game_id, game in DECLARED.items()}
"""Game id -> its rules module."""
