"""Tadmur (shared/rules/tadmur.md), one folder: its rules and its AI players.

`rules.py` are the rules, `players.py` the AI levels, `playout.py` their playouts' fast path. The package is the
game: its names are the rules' (`tadmur.apply`, `from engine.games.tadmur import ...`).
"""

from engine.games.tadmur.rules import *  # noqa: F403 - the rules' names are the game's
