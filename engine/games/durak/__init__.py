"""Durak (shared/rules/durak.md), one folder: its rules and its AI players.

`rules.py` are the rules, `notation.py` its move list people read, `players.py` the AI levels, `playout.py`
their playouts' fast path, `reading.py` what the opponent's moves tell of its hand. The package is the game:
`GAME` declares it, and its other names are the rules' (`durak.apply`, `from engine.games.durak import ...`).
"""

from engine.declaration import GameDeclaration
from engine.games.durak import notation, players, rules
from engine.games.durak.rules import *  # noqa: F403 - the rules' names are the game's

# rematch_rotates: durak.md §2.6: the seat holding the lowest trump attacks first, so the rules, not the seats, decide
# who starts: the players keep their seats
GAME = GameDeclaration(
    rules, players.PLAYERS, rematch_rotates=False, state_schema="DurakStateSchema", move_list=notation.move_list
)
