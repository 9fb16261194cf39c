"""A game from outside the engine, played through the HTTP API and the worker (docs/architecture.md "Adding a
game"): tests/toy_game/ is one folder, and the one registry line is `CARDROOM_GAMES=tests.toy_game`, which both
gunicorn and the worker read when they import the engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.e2e.stack import Stack, start_stack, stop_stack
from tests.e2e.test_lifecycle import act, bearer, create, wait_until

pytestmark = pytest.mark.e2e

DECK = ["2S", "3S", "2H", "4S", "3H", "4H"]
"""Top first: seat 0 is dealt 2S 3S 2H (total 7), seat 1 4S 3H 4H (total 11), so seat 1 wins whatever is laid."""


@pytest.fixture(scope="module")
def toy_stack() -> Iterator[Stack]:
    running = start_stack(label="toy", environment={"CARDROOM_GAMES": "tests.toy_game"})
    try:
        yield running
    finally:
        stop_stack(running)


def play(stack: Stack, level: str) -> dict[str, Any]:
    """Seat 0 lays its cards in the order dealt against an AI of `level` in seat 1, to the end: the final view."""
    game = create(stack, [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": level}], game="toy", deck=DECK)
    assert (game["you"], game["status"], game["state"]["hand"]) == (0, "active", DECK[:3])
    for card in DECK[:3]:
        wait_until(stack, game["game_id"], lambda shown: shown["to_act"] == [0], "seat 0's turn")
        laid = act(stack, game["game_id"], game["player_token"], {"type": "lay", "card": card})
        assert laid.status_code == 200, laid.text
    final = wait_until(stack, game["game_id"], lambda shown: shown["status"] == "finished", "the end")
    return {**final, "player_token": game["player_token"]}


def test_the_toy_game_is_offered_with_every_level(toy_stack: Stack) -> None:
    rules = requests.get(f"{toy_stack.base_url}/v1/rules/toy", timeout=10).json()
    assert (rules["title"], rules["seats"], rules["action_types"]) == ("Toy", {"min": 2, "max": 2}, ["lay", "resign"])
    assert rules["ai_levels"] == ["random", "easy", "medium", "hard"]
    listed = requests.get(f"{toy_stack.base_url}/v1/rules", timeout=10).json()
    assert [game["id"] for game in listed] == ["durak", "svoi_koziri", "tadmur", "talmut", "toy"]


def test_a_toy_game_against_easy_ends_as_its_rules_say_and_its_rematch_rotates(toy_stack: Stack) -> None:
    view = play(toy_stack, "easy")
    # seat 0 laid its first card each turn; `easy` lays its highest, the first of equals in hand order
    assert view["state"] == {"hand": None, "hand_sizes": [0, 0], "laid": [["2S", "3S", "2H"], ["4S", "4H", "3H"]],
                             "turn": None}
    assert view["result"] == {"winners": [1], "losers": [0], "draw": False, "scores": {"0": 0, "1": 1},
                              "reason": "total"}
    again = requests.post(f"{toy_stack.base_url}/v1/games/{view['game_id']}/rematch",
                          headers=bearer(view["player_token"]), json={"seed": 3}, timeout=20)
    assert again.status_code == 201, again.text
    # the declaration's `rematch_rotates`: Ann moves to seat 1, the AI to seat 0
    assert (again.json()["you"], again.json()["seats"][0]["kind"]) == (1, "ai")


def test_a_toy_game_against_hard_is_played_by_the_worker_s_search(toy_stack: Stack) -> None:
    view = play(toy_stack, "hard")
    assert sorted(view["state"]["laid"][1]) == ["3H", "4H", "4S"]
    assert view["result"]["winners"] == [1] and view["result"]["reason"] == "total"
