"""Tadmur (shared/rules/tadmur.md), one folder: its rules and its AI players.

`rules.py` are the rules, `players.py` the AI levels, `playout.py` their playouts' fast path. The package is the
game: `GAME` declares it, and its other names are the rules' (`tadmur.apply`, `from engine.games.tadmur import ...`).
"""

from engine.declaration import GameDeclaration
from engine.games.tadmur import players, rules
from engine.games.tadmur.rules import *  # noqa: F403 - the rules' names are the game's

# rematch_rotates: tadmur.md §2.1, §3.3: seat 0, the non-dealer, moves first: the players move one seat on
GAME = GameDeclaration(rules, players.PLAYERS, rematch_rotates=True, state_schema="TadmurStateSchema")
