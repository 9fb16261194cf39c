"""The toy game's AI players: `easy` lays its highest card; the search guesses the opponent's hand uniformly."""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.ai.levels import Players
from engine.ai.search import SearchHooks
from engine.ai.view import SeatView
from engine.protocol import JSON, Action
from tests.toy_game import rules


def easy(view: SeatView, rng: random.Random) -> Action:
    """Lay the highest card of the hand (a resign is never chosen)."""
    lays = [action for action in view["legal_actions"] if action["type"] == "lay"]
    return max(lays, key=lambda action: rules.parse_card(action["card"]).rank)


def sample_state(view: SeatView, history: Sequence[JSON], rng: random.Random) -> rules.ToyState:
    """A state the seat cannot tell from the real one: the cards it has not seen, dealt to the opponent at random."""
    table, me = view["state"], view["you"]
    seen = {*table["hand"], *(code for cards in table["laid"] for code in cards)}
    unseen = [card for card in rules.DECK if card.code not in seen]
    rng.shuffle(unseen)
    hands = [tuple(rules.parse_card(code) for code in table["hand"]), tuple(unseen)]
    laid = tuple(tuple(rules.parse_card(code) for code in cards) for cards in table["laid"])
    return rules.ToyState(hands=(hands[0], hands[1]) if me == 0 else (hands[1], hands[0]), laid=laid,
                          turn=table["turn"])


SEARCH: SearchHooks[rules.ToyState] = SearchHooks(rules, sample_state, hard_moves=2_000)
PLAYERS = Players(easy=easy, search=SEARCH, easy_reads_history=False)
