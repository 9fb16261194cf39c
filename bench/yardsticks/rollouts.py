"""The yardstick's uniform random rollout, played on the engine's fast-path positions where a game has one.

A rollout of the public rules (`engine.games.GAMES[game]`: `to_act`, `legal_actions`, `apply`, `result`) builds a
frozen state, its events and a legality check per move. Svoi Koziri's random games run about 700 moves
(svoi_koziri.md §8.13), so one decision of `yardstick:1000` took about 32 CPU-s that way (docs/benchmarks.md). The
two-seat games' playout positions (`engine.games.<game>.playout.Position`: Durak, Svoi Koziri, Tadmur) play the same
rules on mutable lists, list the mover's legal moves but `resign` in `legal_actions`' order (each game's
tests/engine/<game>/test_playout.py checks this move by move against the public rules) and have one seat to act.
So `rng.choice` over `Position.moves()` draws the very move the public rollout's `rng.choice` draws from the same
generator: the rollout is the same game to its end, only faster (tests/test_yardsticks.py plays both from the same
seeds). Talmut, where several seats may act at once and matches are optional (talmut.md §4.1), rolls out on the
public rules: its random rounds are short.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.ai.heads_up_playout import play_out
from engine.games.durak.playout import Position as DurakPosition
from engine.games.svoi_koziri.playout import Position as SvoiKoziriPosition
from engine.games.tadmur.playout import Position as TadmurPosition

Rollout = Callable[[Any, random.Random, int], list[float]]
"""`(state, rng, limit) -> rewards per seat`: a uniform random rollout from `state` to the game's end, each seat's
reward 1 for a win and 0 for a loss (½ each in a draw, and after `limit` moves)."""


def _on(position_of: Callable[[Any], Any]) -> Rollout:
    def rollout(state: Any, rng: random.Random, limit: int) -> list[float]:
        position = position_of(state)
        return play_out(position, lambda: position.play(rng.choice(position.moves())), limit)[0]

    return rollout


FAST_ROLLOUTS: Mapping[str, Rollout] = {
    "durak": _on(DurakPosition),
    "svoi_koziri": _on(SvoiKoziriPosition),
    "tadmur": _on(TadmurPosition),
}
"""Per game id with a fast-path position, its uniform random rollout (module docstring)."""
