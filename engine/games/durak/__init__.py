"""Durak (shared/rules/durak.md), one folder: its rules and its AI players.

`rules.py` are the rules, `players.py` the AI levels, `playout.py` their playouts' fast path, `reading.py` what the
opponent's moves tell of its hand. The package is the game: its names are the rules' (`durak.apply`, `from
engine.games.durak import ...`).
"""

from engine.games.durak.rules import *  # noqa: F403 - the rules' names are the game's
