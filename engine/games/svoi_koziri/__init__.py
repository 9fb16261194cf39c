"""Svoi Koziri (shared/rules/svoi_koziri.md), one folder: its rules and its AI players.

`rules.py` are the rules, `players.py` the AI levels, `playout.py` their playouts' fast path. The package is the
game: `GAME` declares it, and its other names are the rules' (`svoi_koziri.apply`, `from engine.games.svoi_koziri import
...`).
"""

from engine.declaration import GameDeclaration
from engine.games.svoi_koziri import players, rules
from engine.games.svoi_koziri.rules import *  # noqa: F403 - the rules' names are the game's

# rematch_rotates: svoi_koziri.md §2.8 (§7.4): seat 0 leads first (and chooses its trump first, §2.5), seat 1 deals: the
# players move one seat on, so the other player leads
GAME = GameDeclaration(rules, players.PLAYERS, rematch_rotates=True, state_schema="SvoiKoziriStateSchema")
