"""Talmut (shared/rules/talmut.md), one folder: its rules and its AI players.

`rules/` are the rules, `players.py` the AI levels, `playout.py` their playouts' fast path. The package is the
game: `GAME` declares it, and its other names are the rules' (`talmut.apply`, `from engine.games.talmut import ...`).
"""

from engine.declaration import GameDeclaration
from engine.games.talmut import players, rules
from engine.games.talmut.rules import *  # noqa: F403 - the rules' names are the game's

# rematch_rotates: talmut.md §2.5: round 1 is led by seat 0 and dealt by the last seat: everyone moves one seat on, so
# the next player leads the first round
GAME = GameDeclaration(rules, players.PLAYERS, rematch_rotates=True, state_schema="TalmutStateSchema")
