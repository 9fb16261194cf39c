"""A game's AI levels: `Players`, what each game's players.py declares, and the level any game may use.

Every game offers the same levels, weakest first: `random`, `easy` (the game's rule bot) and the search levels
`medium` and `hard` (engine/ai/search.py); `GET /v1/rules/{game}` lists them in this order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.ai import search
from engine.ai.search import SearchHooks
from engine.ai.view import SeatView
from engine.protocol import Action

Chooser = Callable[[SeatView, random.Random], Action | None]
"""A level: `(view, rng) -> action`, one of `view["legal_actions"]`, or None for a seat listed only for optional
actions (engine/players.py `choose_action`)."""


def random_action(view: SeatView, rng: random.Random) -> Action:
    """Level `random`: uniform over the legal actions other than `resign` (a baseline that always plays on).

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    return rng.choice(search.actions_to_choose_from(view))


@dataclass(frozen=True, slots=True)
class Players:
    """One game's AI players, declared once in its players.py as `PLAYERS`.

    Attributes:
        easy: level `easy`, the game's rule bot, reading only its `SeatView`.
        search: the hooks of the search levels `medium` and `hard`, their budget included (`SearchHooks`).
        easy_reads_history: whether `easy` reads `view["history"]` (Durak's solves endgames from the cards the
            history shows gone); the search levels always do. The worker loads the events only for the levels that
            read them.
        random: level `random`. Default: `random_action`.
    """

    easy: Chooser
    search: SearchHooks[Any]
    easy_reads_history: bool
    random: Chooser = random_action

    def levels(self) -> dict[str, Chooser]:
        """The levels from weakest to strongest: `random`, `easy`, then the search levels."""
        searching = {name: search.level(name, self.search) for name in search.SEARCH_LEVELS}
        return {"random": self.random, "easy": self.easy, **searching}

    def reads_history(self, level: str) -> bool:
        """Whether `level` reads `view["history"]`."""
        return level in search.SEARCH_LEVELS or (level == "easy" and self.easy_reads_history)


LEVEL_DESCRIPTIONS: Mapping[str, str] = {
    "random": "Plays a legal move chosen at random and never resigns: a baseline, not an opponent.",
    "easy": "A rule bot: it plays by a few rules of thumb of the game, at once (in Durak it also plays the last "
            "few cards exactly).",
    "medium": "Searches the game tree over the hands its seat may face (information-set Monte Carlo tree search) "
              "with a tenth of hard's work, in well under a second; in a small Durak or Svoi Koziri endgame it "
              "first tries to solve the rest exactly. In Talmut it calls when a call, played out over those "
              "hands, gives it the round's lowest points at least half the time, and matches only cards it knows.",
    "hard": "The same search with ten times the work, up to about a second per move; once a Durak or Svoi Koziri "
            "endgame is small enough to solve within its budget, it plays a won position perfectly.",
}
"""What each level does, for players choosing one (`GET /v1/rules/{game}`); engine/ai/ratings.py measures them."""
