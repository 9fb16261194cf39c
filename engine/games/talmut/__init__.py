"""Talmut (shared/rules/talmut.md), one folder: its rules and its AI players.

`rules/` are the rules, `players.py` the AI levels, `playout.py` their playouts' fast path. The package is the
game: its names are the rules' (`talmut.apply`, `from engine.games.talmut import ...`).
"""

from engine.games.talmut.rules import *  # noqa: F403 - the rules' names are the game's
