"""Properties every game must keep, checked by random legal playouts (STYLE.md §5).

Written once over `engine.games.GAMES`: a new game gets these tests by being registered there.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import CardField, ChoiceField, Field, IntegerField
from engine.ai.search import SEARCH_LEVELS
from engine.cards import shuffled
from engine.errors import IllegalAction, NotYourTurn
from engine.games import GAMES
from engine.players import LEVELS, choose_action, seat_view
from engine.protocol import Action, Event, Game, Seat, capabilities
from engine.redaction import codes_in, event_for

GAME_IDS = sorted(GAMES)
MAX_ACTIONS = 1000
"""A bound on a game's length (durak.md §8.12 observed about 210 actions), unless `LONG_GAMES` gives another."""
LONG_GAMES = {"svoi_koziri": 20_000, "talmut": 5_000}
"""Games whose uniform random play runs longer (svoi_koziri.md §8.13: median about 700, longest about 9,000;
talmut: rounds to 50 points, 8 `easy` seats took up to about 1,100 actions in 20 games)."""
RESIGN_CHANCE = 0.002
OPTIONAL_CHANCE = 0.1
"""How often a seat listed only for optional actions acts (talmut.md §8.13: uniform choice among all listed seats
would withdraw nearly every call)."""

seeds = st.integers(0, 2**32 - 1)
SEARCH_SAMPLE = 0.05
"""How often a search level not seated in the game is asked too (it is always asked where it sits)."""


def seat_counts(game: Game[Any, Any]) -> list[int]:
    """The smallest, a middle and the largest table `game.SEATS` allows (Durak: 2; Talmut: 3, 5, 8)."""
    return sorted({game.SEATS.start, (game.SEATS.start + game.SEATS.stop - 1) // 2, game.SEATS.stop - 1})


TABLES = [(game_id, seats) for game_id in GAME_IDS for seats in seat_counts(GAMES[game_id])]


def start(game_id: str, seed: int, seats: int) -> tuple[Game[Any, Any], Any, int, random.Random]:
    """A game of `game_id` for `seats` dealt from the deck shuffled by `seed`, with a playout rng."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    options = game.parse_options({})
    state = game.new_game(seats, options, seed=seed)
    return game, state, seats, rng


def optional_only(game: Game[Any, Any], state: Any, seat: Seat) -> bool:
    """Whether `seat` is listed only for actions nobody waits for (a game's `OPTIONAL_ACTIONS`, e.g. a match)."""
    optional = {"resign", *capabilities(game).optional_actions}
    return all(action["type"] in optional for action in game.legal_actions(state, seat))


def pick_actor(game: Game[Any, Any], state: Any, rng: random.Random) -> Seat:
    """A seat of `to_act` that must act, or now and then one listed only for optional actions."""
    listed = sorted(game.to_act(state))
    required = [seat for seat in listed if not optional_only(game, state, seat)]
    if not required or (len(required) < len(listed) and rng.random() < OPTIONAL_CHANCE):
        return rng.choice([seat for seat in listed if seat not in required])
    return rng.choice(required)


def check_step(game: Game[Any, Any], before: Any, after: Any, events: list[Event], seats: int) -> None:
    """The invariants of STYLE.md §5 after one action (or the deal, with `before` None)."""
    options = game.parse_options({})
    assert Counter(card.code for card in game.cards_in_play(after)) == Counter(
        card.code for card in game.full_deck(options)
    ), "cards are not conserved"

    to_act = game.to_act(after)
    if game.result(after) is None:
        assert to_act, "nobody to act in an active game"
        for seat in to_act:
            assert any(action["type"] != "resign" for action in game.legal_actions(after, seat))
    else:
        assert not to_act
        assert all(game.legal_actions(after, seat) == [] for seat in range(seats))

    for viewer in [*range(seats), None]:
        hidden_now = {card.code for card in game.hidden_from(after, viewer)}
        shown = game.view(after, viewer)
        json.dumps([shown.state, list(shown.seats)])  # JSON-safe
        leaked = hidden_now.intersection(codes_in([shown.state, [dict(seat) for seat in shown.seats]]))
        assert not leaked, f"view for {viewer} shows hidden {leaked}"
        # A card hidden from the viewer before and after the step must not show in the step's events; a card
        # that became visible (played, revealed) may.
        hidden_throughout = hidden_now
        if before is not None:
            hidden_throughout = hidden_now & {card.code for card in game.hidden_from(before, viewer)}
        for event in events:
            shown_event = event_for(event, viewer)
            json.dumps(shown_event)
            leaked = hidden_throughout.intersection(codes_in(shown_event))
            assert not leaked, f"event {event.type} for {viewer} shows hidden {leaked}"

    dumped = json.loads(json.dumps(game.dump_state(after)))
    assert game.load_state(dumped) == after, "dump/load round trip changed the state"


@pytest.mark.parametrize(("game_id", "seats"), TABLES)
@settings(deadline=None)
@given(seed=seeds)
def test_random_playout_keeps_invariants(game_id: str, seats: int, seed: int) -> None:
    """STYLE.md §5 (durak.md §8.12): conservation, someone to act, no leaks, round trip, bounded length."""
    game, state, seats, rng = start(game_id, seed, seats)
    check_step(game, None, state, [], seats)
    for _ in range(LONG_GAMES.get(game_id, MAX_ACTIONS)):
        if game.result(state) is not None:
            return
        action: Action
        if rng.random() < RESIGN_CHANCE:
            seat, action = rng.randrange(seats), {"type": "resign"}  # any seat, in or out of turn
        else:
            seat = pick_actor(game, state, rng)
            action = rng.choice([a for a in game.legal_actions(state, seat) if a["type"] != "resign"])
        frozen = game.dump_state(state)
        try:
            after, events = game.apply(state, seat, action)
        except IllegalAction:
            assert action["type"] == "resign", "a listed action was refused"
            continue  # a seat that may not resign now (talmut.md §3.17: once, and only a human seat)
        assert game.dump_state(state) == frozen, "apply mutated its input"
        check_step(game, state, after, events, seats)
        state = after
    pytest.fail(f"no result after {LONG_GAMES.get(game_id, MAX_ACTIONS)} actions")


@pytest.mark.parametrize(("game_id", "seats"), TABLES)
@settings(deadline=None)
@given(seed=seeds)
def test_ai_levels_choose_legal_actions(game_id: str, seats: int, seed: int) -> None:
    """Every AI level returns one of the seat's legal actions (or nothing, for a seat listed only for optional
    actions), read from the JSON view only; AI games end."""
    game, state, seats, rng = start(game_id, seed, seats)
    levels = sorted(LEVELS[game_id])
    players = [rng.choice(levels) for _ in range(seats)]
    for _ in range(LONG_GAMES.get(game_id, MAX_ACTIONS)):
        if game.result(state) is not None:
            return
        seat = pick_actor(game, state, rng)
        view = seat_view(game_id, state, seat)
        chosen: dict[str, Action | None] = {}
        for level in levels:
            if level in SEARCH_LEVELS and level != players[seat] and rng.random() > SEARCH_SAMPLE:
                continue  # a search per move of a thousand-move game is slow; tests/engine/test_search.py has more
            chosen[level] = choose_action(view, level, random.Random(rng.random()))
            if chosen[level] is None:
                assert optional_only(game, state, seat), f"{level} passed while it must act"
            else:
                assert chosen[level] in view["legal_actions"], f"{level} chose {chosen[level]}"
        played = chosen[players[seat]]
        if played is not None:
            state, _ = game.apply(state, seat, played)
    pytest.fail(f"no result after {LONG_GAMES.get(game_id, MAX_ACTIONS)} actions")


CANDIDATE_STATES = 150
"""States of one random game whose candidate actions are tried (Svoi Koziri's random games run much longer)."""
RANDOM_CANDIDATES = 12
"""Fully random well-formed actions tried per state, besides every listed action and a variant of each."""


def random_value(kind: Field, cards: list[str], rng: random.Random) -> Any:
    """A well-formed value of `kind`: a card code from `cards`, a choice, a small integer in range, an object."""
    if isinstance(kind, CardField):
        return rng.choice(cards)
    if isinstance(kind, ChoiceField):
        return rng.choice(kind.values)
    if isinstance(kind, IntegerField):  # positions and seats of a real table are small: mostly near them
        return rng.randint(kind.minimum, min(kind.maximum, kind.minimum + 9))
    return {name: random_value(inner, cards, rng) for name, inner in kind.fields.items()}


def candidate_actions(game: Game[Any, Any], state: Any, seats: int, rng: random.Random) -> list[Action]:
    """Well-formed actions built from `game.ACTIONS` (engine/actions.py) worth trying in `state`, no `resign`.

    Every action listed for any seat; each again with one field drawn anew (a near miss: another card, position
    or rank); and `RANDOM_CANDIDATES` actions drawn whole. Card codes come from what the seats' views show (hands,
    table, pile) and from the whole deck.
    """
    shown = set(codes_in([game.view(state, seat).state for seat in range(seats)]))
    deck = [card.code for card in game.full_deck(game.parse_options({}))]
    cards = sorted(shown & set(deck)) + rng.sample(deck, 4)
    listed = [action for seat in range(seats) for action in game.legal_actions(state, seat)]
    actions = [dict(action) for action in listed]
    for action in rng.sample(listed, min(len(listed), 40)):
        fields = game.ACTIONS[action["type"]]
        if fields:
            name = rng.choice(sorted(fields))
            actions.append({**action, name: random_value(fields[name], cards, rng)})
    kinds = sorted(kind for kind in game.ACTIONS if kind != "resign")
    for _ in range(RANDOM_CANDIDATES):
        kind = rng.choice(kinds)
        fields = {name: random_value(field, cards, rng) for name, field in game.ACTIONS[kind].items()}
        actions.append({"type": kind, **fields})
    unique = {json.dumps(action, sort_keys=True): action for action in actions if action["type"] != "resign"}
    return list(unique.values())


@pytest.mark.parametrize(("game_id", "seats"), TABLES)
@settings(deadline=None, max_examples=15)
@given(seed=seeds)
def test_apply_accepts_exactly_the_listed_actions(game_id: str, seats: int, seed: int) -> None:
    """Legality is decided once (issue 16): a well-formed action (built from the game's `ACTIONS`) is applied iff it
    is in the seat's `legal_actions`; otherwise `NotYourTurn` for a seat not to act, else `IllegalAction`, and the
    state is unchanged. `resign` is left out: every rules file accepts it from a seat that is not to act (e.g.
    durak.md §7.17), so it is the one action accepted without being listed.
    """
    game, state, seats, rng = start(game_id, seed, seats)
    for _ in range(CANDIDATE_STATES):
        if game.result(state) is not None:
            return
        frozen = game.dump_state(state)
        to_act = game.to_act(state)
        legal = [game.legal_actions(state, seat) for seat in range(seats)]
        for action in candidate_actions(game, state, seats, rng):
            for seat in range(seats):
                if action in legal[seat]:
                    game.apply(state, seat, action)
                    continue
                with pytest.raises(NotYourTurn if seat not in to_act else IllegalAction):
                    game.apply(state, seat, action)
        assert game.dump_state(state) == frozen, "a refused action changed the state"
        seat = pick_actor(game, state, rng)
        state, _ = game.apply(state, seat, rng.choice([a for a in legal[seat] if a["type"] != "resign"]))


@pytest.mark.parametrize(("game_id", "seats"), TABLES)
@settings(deadline=None, max_examples=10)
@given(seed=seeds)
def test_a_game_without_a_deck_deals_the_seeds_shuffle(game_id: str, seats: int, seed: int) -> None:
    """STYLE.md §2 "Chance": `new_game(..., deck=None)` deals the full deck shuffled by `random.Random(seed)`, so
    every seat sees what the same deck sent by a client shows."""
    game = GAMES[game_id]
    options = game.parse_options({})
    seeded = game.new_game(seats, options, seed=seed)
    sent = game.new_game(seats, options, shuffled(game.full_deck(options), seed), seed=seed)
    for viewer in [*range(seats), None]:
        assert game.view(seeded, viewer) == game.view(sent, viewer)
    assert game.cards_in_play(seeded) == game.cards_in_play(sent)


def test_only_talmut_hands_a_seat_to_an_ai_during_play() -> None:
    """`Capabilities.hands_seats_to_ai`: a resigned Talmut seat is the AI's (talmut.md §3.17); resigning ends the
    other games (durak.md, svoi_koziri.md, tadmur.md), so their rules hand no seat on."""
    assert {game_id for game_id, game in GAMES.items() if capabilities(game).hands_seats_to_ai} == {"talmut"}
