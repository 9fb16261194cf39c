"""The one piece of the yardstick that differs per game: how to draw a deal of the hidden cards from a seat's view.

Each entry is `(view, history) -> (rng -> state)`: the work the deals share done once per decision, then one full
state per call, whose hidden cards are a uniform guess among the cards the seat has not seen, consistent with its
view and with the public history it was shown (the seat's own `GET /events`). These are the engine's determinizers
(`engine.games.<game>.players.prepare_sampler` / `sample_state`, the seat's public knowledge only), with every opponent
model switched off so that the deal is the textbook's uniform one:

- Durak: the opponent holds the cards the seat saw it take plus unseen cards drawn uniformly, the stock the rest
  below the shown indicator (durak.md §2.6, §3.7); `read=False` leaves out the reading of an `easy`-like opponent.
- Svoi Koziri: all 36 cards are dealt (svoi_koziri.md §2.6), so after the deal the opponent's hand is exactly the
  cards neither in the seat's hand nor on the pile; before it, the deck is a uniform shuffle.
- Tadmur: the opponent's target uniformly among the cards its wrong guesses and passes leave possible (tadmur.md
  §3.6), its hand the rest; `prior=False` leaves out the weight on targets its row can reach.
- Talmut: every layout, stock or drawn card the seat does not know is dealt uniformly from the cards it has not
  seen (talmut.md §6.1).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from engine.ai.view import SeatView
from engine.games.durak import players as durak
from engine.games.svoi_koziri import players as svoi_koziri
from engine.games.tadmur import players as tadmur
from engine.games.talmut import players as talmut
from engine.protocol import JSON

Deal = Callable[[random.Random], Any]
"""One determinization: `rng -> state`, a full game state consistent with the seat's view."""


def _talmut(view: SeatView, history: Sequence[JSON]) -> Deal:
    return partial(talmut.sample_state, view, history)


DEALS: Mapping[str, Callable[[SeatView, Sequence[JSON]], Deal]] = {
    "durak": partial(durak.prepare_sampler, read=False),
    "svoi_koziri": svoi_koziri.prepare_sampler,
    "tadmur": partial(tadmur.prepare_sampler, prior=False),
    "talmut": _talmut,
}
"""Per game id, `(view, history) -> Deal`: the deals one decision draws its determinizations from."""
