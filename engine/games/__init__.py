"""The games Cardroom offers: game id -> game module (each satisfies `engine.protocol.Game`)."""

from __future__ import annotations

from typing import Any

from engine.games import durak, svoi_koziri, tadmur, talmut
from engine.protocol import Game

GAMES: dict[str, Game[Any, Any]] = {
    durak.ID: durak, svoi_koziri.ID: svoi_koziri, tadmur.ID: tadmur, talmut.ID: talmut
}
