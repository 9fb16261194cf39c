"""The games Cardroom offers: each game's `GameDeclaration`, and the rules modules by game id.

A game is one folder whose `__init__.py` declares it as `GAME` (engine/declaration.py). The four below are built
in; adding a game to Cardroom is adding its folder and its `GAME` to `BUILT_IN`. `CARDROOM_GAMES`, the engine's
one setting from the environment, names further packages that declare a `GAME`, comma-separated (e.g.
`CARDROOM_GAMES=tests.toy_game`); it is read once, at import, so every process that imports the engine (the web
app, the worker, a test) offers the same games. That is how tests/e2e/test_toy_game.py offers tests/toy_game/.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from engine.declaration import GameDeclaration
from engine.games import durak, svoi_koziri, tadmur, talmut
from engine.protocol import Game

BUILT_IN = (durak.GAME, svoi_koziri.GAME, tadmur.GAME, talmut.GAME)


def declared_in(packages: str) -> tuple[GameDeclaration, ...]:
    """The `GAME` of each package of the comma-separated `packages` (blank: none).

    Raises:
        ImportError: a package cannot be imported.
        AttributeError: a package declares no `GAME`.
        TypeError: a package's `GAME` is not a `GameDeclaration`.
    """
    found = []
    for name in filter(None, (part.strip() for part in packages.split(","))):
        declared = importlib.import_module(name).GAME
        if not isinstance(declared, GameDeclaration):
            raise TypeError(f"{name}.GAME is a {type(declared).__name__}, not a GameDeclaration")
        found.append(declared)
    return tuple(found)


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


DECLARED = by_id((*BUILT_IN, *declared_in(os.environ.get("CARDROOM_GAMES", ""))))
"""Game id -> its declaration, the built-in games first."""
GAMES: dict[str, Game[Any, Any]] = {game_id: game.rules for game_id, game in DECLARED.items()}
"""Game id -> its rules module."""
