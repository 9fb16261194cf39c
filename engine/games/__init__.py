"""The games Cardroom offers: game id -> game module (each satisfies `engine.protocol.Game`)."""

from __future__ import annotations

from typing import Any

from engine.games import durak
from engine.protocol import Game

GAMES: dict[str, Game[Any, Any]] = {durak.ID: durak}
