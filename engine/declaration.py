"""`GameDeclaration`: the one place each game states what Cardroom needs of it.

A game's folder declares it as `GAME` in its `__init__.py`; every per-game registry (`engine.games.GAMES`,
engine/players.py `LEVELS`, the rematch's seat rotation, the view schemas of service/schemas/states.py) is derived
from these, so a fact a game forgets is a type error where it declares itself (mypy: a missing argument), not a
KeyError when a player first reaches it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.ai.levels import Players
from engine.cards import Card
from engine.protocol import Event, Game

MoveList = Callable[[str, Sequence[str], Sequence[Card], Any, Sequence[Sequence[Event]], Any], str]
"""A game's move list people read: `(heading, players, deck, start, moves, end) -> text`.

`heading` follows the game's name on the first line, `players` names each seat, `deck` is the deck dealt (top
first), `start` the state dealt (engine/replay.py `dealt`), `moves` each move's events, `end` the finished state.
Durak's: engine/games/durak/notation.py `move_list`.
"""


@dataclass(frozen=True, slots=True)
class GameDeclaration:
    """One game as Cardroom offers it.

    Attributes:
        rules: the rules module (`engine.protocol.Game`); `rules.ID` is the game's id.
        players: its AI levels (engine/ai/levels.py `Players`).
        rematch_rotates: whether a rematch (shared/API.md `POST /v1/games/{game_id}/rematch`) moves every player,
            and AI, one seat on: where the rules file fixes who starts by seat, that rotates the starting player;
            where the deal decides it, the seats stay.
        state_schema: the name of the schema of its view's `state` in service/schemas/states.py (e.g.
            `DurakStateSchema`), or None: the state is sent as the rules' `view` builds it, documented as any
            JSON object (a game whose view has no typed schema yet).
        move_list: its plain-text move list (`MoveList`: a finished game's export as `?format=text`), or None
            (the default): it offers none, and the service answers 406.
    """

    rules: Game[Any, Any]
    players: Players
    rematch_rotates: bool
    state_schema: str | None
    move_list: MoveList | None = None
