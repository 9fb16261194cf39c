"""The search's fast path for Talmut playouts (engine/games/talmut/playout.py) against the public rules.

Differential tests: thousands of random games played through both, move by move, must list the same seats to act,
the same moves in the same order for each of them, and reach the same states; a whole playout must return what
the search's loop over the public rules returns with the same policy (written out here on public states) and the
same random numbers.
"""

from __future__ import annotations

import random
from dataclasses import replace

from engine.cards import shuffled
from engine.games import talmut
from engine.games.talmut import Phase, PowerKind, TalmutState
from engine.games.talmut import players as talmut_ai
from engine.games.talmut import playout as talmut_playout
from engine.games.talmut.playout import Position
from engine.protocol import Action
from tests.engine.talmut.notation import E2, deal, play

GAMES = 1_000
OPTIONAL_CHANCE = 0.2
"""How often the random games let a seat other than the turn seat act (a match, a withdrawal) when one may: a
uniform choice among every seat listed would withdraw nearly every call (talmut.md §8.13)."""


def listed(state: TalmutState, seat: int) -> list[Action]:
    """The public legal actions of `seat`, without `resign` (always last, talmut.md §4.2)."""
    return [action for action in talmut.legal_actions(state, seat) if action["type"] != "resign"]


def random_game(seed: int) -> TalmutState:
    """A new game of 3-8 seats with random options; one in four dealt from a client's deck (no shuffles, §2.7)."""
    rng = random.Random(seed)
    seats = rng.choice((3, 3, 3, 4, 4, 5, 6, 7, 8))
    options = talmut.parse_options({
        "deck_size": rng.choice((40, 48)),
        "target": rng.choice((1, 1, 1, 20, 50)),
        "call_penalty": rng.choice((0, 5, 30)),
    })
    deck = shuffled(talmut.full_deck(options), seed) if rng.random() < 0.25 else None
    state = talmut.new_game(seats, options, deck, seed=seed)
    if rng.random() < 0.25:
        state = talmut.with_ai_seats(state, [seat for seat in range(seats) if rng.random() < 0.5])
    return state


def random_move(state: TalmutState, rng: random.Random) -> tuple[int, int]:
    """(seat, index into its listed actions): mostly the turn seat, now and then any seat listed."""
    seats = sorted(talmut.to_act(state))
    seat = state.turn
    if len(seats) > 1 and rng.random() < OPTIONAL_CHANCE:
        seat = rng.choice(seats)
    assert seat is not None
    return seat, rng.randrange(len(listed(state, seat)))


def test_position_plays_every_random_game_as_the_public_rules_do() -> None:
    """1,000 random games of 3-8 seats, both decks, three targets, seeded and client decks: at every move the same
    seats to act, every seat with the same moves in the same order, and after the same move the same state,
    through matches right and wrong, the one wrong match per seat and window (talmut.md §3.11), penalty cards,
    stock rebuilds (§3.12), powers, calls and withdrawals, round ends and new deals (§5.4) to the game's end. One
    move in five the position is built anew from the public state, so every kind of state is also a starting
    point, as the search's playouts start anywhere."""
    seen: set[str] = set()
    for seed in range(GAMES):
        rng = random.Random(seed)
        state = random_game(seed)
        position = Position(state)
        while talmut.result(state) is None:
            assert not position.over
            seats = sorted(talmut.to_act(state))
            assert position.to_act() == seats
            assert position.mover() == state.turn
            actions = {seat: listed(state, seat) for seat in range(state.seats)}
            for seat in actions:  # the seats not to act too: none listed, a wrong matcher's none included
                assert [talmut_playout.action(move) for move in position.moves(seat)] == actions[seat]
            seat = state.turn
            if len(seats) > 1 and rng.random() < OPTIONAL_CHANCE:
                seat = rng.choice(seats)
            index = rng.randrange(len(actions[seat]))
            action = actions[seat][index]
            before = state
            state, events = talmut.apply(state, seat, action)
            position.play(seat, position.moves(seat)[index])
            assert position.state() == state
            seen.update(event.type for event in events)
            seen.add(action["type"])
            if action["type"] == "match" and state.stock and not before.stock:
                seen.add("penalty after a rebuild")
            if state.window is not None and state.window.wrong_matchers:
                seen.add("a window with a wrong matcher")
            if rng.random() < 0.2:
                position = Position(state)
        assert position.over
        assert position.to_act() == [] and all(position.moves(seat) == [] for seat in range(state.seats))
    assert seen >= {"peek", "blind_swap", "exchange", "skip_power", "withdraw", "call", "swap", "discard",
                    "stock_rebuilt", "round_started", "game_ended", "penalty after a rebuild",
                    "a window with a wrong matcher"}


def reference_policy(state: TalmutState) -> tuple[int, Action]:
    """The search's playout policy on a public state, as engine/games/talmut/players.py's `rollout_action` wrote it
    before the fast path (talmut_playout.policy states it on the position): a seat other than the turn seat and the last
    thrower that knows one of its cards has the window's rank matches it (not after its wrong match in this
    window, talmut.md §3.11); the turn seat calls once it knows its whole layout and it is worth at most 5, draws
    the discard when it beats its worst card by more than 1 (an unknown card counts the deck's mean), swaps a drawn
    card for its worst card, peeks at its own unknown cards, and skips the rest."""
    window = state.window
    if window is not None:
        for matcher in range(state.seats):
            if matcher in (window.last_thrower, state.turn, *window.wrong_matchers):
                continue
            for position, slot in enumerate(state.layouts[matcher]):
                if slot.card is not None and slot.card.rank == window.rank and matcher in slot.seen_by:
                    return matcher, {"type": "match", "position": position}
    seat = state.turn
    assert seat is not None
    legal = talmut.legal_actions(state, seat)
    layout = state.layouts[seat]
    unknown = sum(map(talmut.value, talmut.full_deck(state.options))) / len(talmut.full_deck(state.options))

    def worth(slot: talmut.Slot) -> float:
        return float(slot.card.rank) if slot.card is not None and seat in slot.seen_by else unknown

    filled = [(worth(slot), position) for position, slot in enumerate(layout) if slot.card is not None]
    worst = max(filled) if filled else None
    if state.phase == Phase.DRAW:
        known = all(seat in slot.seen_by for slot in layout if slot.card is not None)
        if known and sum(w for w, _ in filled) <= talmut.CALL_LIMIT and {"type": "call"} in legal:
            return seat, {"type": "call"}
        top = state.discard[-1].rank if state.discard else 99
        if worst is not None and top < worst[0] - 1:
            return seat, {"type": "draw", "source": "discard"}
        source = "stock" if {"type": "draw", "source": "stock"} in legal else "discard"
        return seat, {"type": "draw", "source": source}
    if state.phase == Phase.DECIDE:
        assert state.drawn is not None
        if worst is not None and state.drawn.card.rank < worst[0]:
            return seat, {"type": "swap", "position": worst[1]}
        return seat, {"type": "discard"}
    if state.phase == Phase.POWER and state.power is not None and state.power.kind != PowerKind.CABALLO:
        for position, slot in enumerate(layout):
            if slot.card is not None and seat not in slot.seen_by:
                return seat, {"type": "peek", "seat": seat, "position": position}
    return seat, {"type": "skip_power"}


def cut_off(state: TalmutState) -> list[float]:
    """A cut-off playout's rewards written out on a public state: each layout's points as they lie (talmut.md §5.3,
    without a false caller's penalty) against the others' mean, as a finished round is rewarded."""
    return talmut_playout.round_rewards([talmut.layout_total(layout) for layout in state.layouts])


def reference_playout(state: TalmutState, start: TalmutState, limit: int) -> tuple[list[float], int]:
    """The search's loop over the public rules (engine/ai/search.py `_playout`) with Talmut's hooks: `evaluate`
    stops it, `estimate` scores it after `limit` moves; the policy draws no random numbers."""
    for played in range(limit + 1):
        rewards = talmut_ai.evaluate(state, start)
        if rewards is not None:
            return rewards, played
        if played == limit:
            break
        state, _ = talmut.apply(state, *reference_policy(state))
    return cut_off(state), limit


def test_playout_returns_what_the_loop_over_the_public_rules_returns() -> None:
    """From over 1,000 positions of random games (every 3rd move of 100 games, and their ends), the fast playout
    and the reference loop give the same rewards after the same number of moves, with the search's limit of 12, a
    limit of 3 and one of 60 that plays many rounds to their end; `start` is the round's first state (a playout ends
    with the round, rewarded by its points, talmut.md §5.3) or, one time in four, one of an earlier round (it
    ends at once). Neither draws from the search's `rng`."""
    ends = {"at once": 0, "cut off": 0, "ended": 0}
    checked = 0
    for seed in range(100):
        rng = random.Random(seed)
        state = random_game(seed)
        round_start = earlier = state
        moves = 0
        while True:
            if state.round != round_start.round:
                earlier, round_start = round_start, state
            if moves % 3 == 0 or talmut.result(state) is not None:
                start = earlier if rng.random() < 0.25 else round_start
                for limit in (talmut_ai.ROLLOUT_LIMIT, 3, 60):
                    search_rng = random.Random(moves)
                    drawn = search_rng.getstate()
                    fast = talmut_playout.playout(state, start, search_rng, limit)
                    assert fast == reference_playout(state, start, limit)
                    assert search_rng.getstate() == drawn
                    checked += 1
                    ends["at once" if fast[1] == 0 else "cut off" if fast[1] == limit else "ended"] += 1
            if talmut.result(state) is not None:
                break
            seat, index = random_move(state, rng)
            state, _ = talmut.apply(state, seat, listed(state, seat)[index])
            moves += 1
    assert checked >= 3_000
    assert min(ends.values()) > 20


def test_playout_counts_the_moves_to_a_known_end() -> None:
    """E2 after `s0 call` (talmut.md §8.6): seat 1 draws 11O from the stock, discards it (worse than its unknown
    cards) and skips the caballo; seat 2 draws 4O and swaps it for its last unknown card (2B), and the round ends
    after 5 moves: points 5, 27, 24 (the call was true), rewarded ½ + (others' mean − own) / 48."""
    called = play(deal(E2), "s0 call")
    rewards, played = talmut_playout.playout(called, called, random.Random(0), talmut_ai.ROLLOUT_LIMIT)
    assert played == 5
    assert rewards == [0.5 + 20.5 / 48, 0.5 - 12.5 / 48, 0.5 - 8 / 48]
    assert talmut_playout.playout(called, called, random.Random(0), 3) == (cut_off(
        play(called, "s1 draw stock, s1 discard, s1 skip_power")), 3)
    finished = replace(called, reason=talmut.Reason.TARGET_REACHED, totals=(60, 20, 20))
    assert talmut_playout.playout(finished, called, random.Random(0), 12) == ([0.0, 0.75, 0.75], 0)
