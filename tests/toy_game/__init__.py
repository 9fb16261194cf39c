"""A toy game offered from outside the engine: tests/e2e/test_toy_game.py plays it through the HTTP API and the
worker, as docs/architecture.md "Adding a game" walks through. One folder: `rules.py`, `players.py` and this
declaration; the test names the package in `CARDROOM_GAMES`.
"""

from engine.declaration import GameDeclaration
from tests.toy_game import players, rules

GAME = GameDeclaration(
    rules=rules,
    players=players.PLAYERS,
    rematch_rotates=True,  # seat 0 lays first: a rematch moves the players one seat on
    state_schema=None,  # no typed schema in service/schemas/states.py: the view's state is sent as built
)
