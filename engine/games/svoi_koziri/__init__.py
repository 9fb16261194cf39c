"""Svoi Koziri (shared/rules/svoi_koziri.md), one folder: its rules and its AI players.

`rules.py` are the rules, `players.py` the AI levels, `playout.py` their playouts' fast path. The package is the
game: its names are the rules' (`svoi_koziri.apply`, `from engine.games.svoi_koziri import ...`).
"""

from engine.games.svoi_koziri.rules import *  # noqa: F403 - the rules' names are the game's
