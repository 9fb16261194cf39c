"""shared/rules/durak.md §8 scenarios through the HTTP API with an exact `deck`."""

from __future__ import annotations

import json

import pytest

from tests.notation import parse_step, steps

K1 = "6H 7H 7S 8S 8C 9C 9D 10D 10S JS JC QC 10H 9S 8D 7C JD QH AC 6S 6D 6C 7D JH AS KH AH QD KC AD 10C KS KD 8H 9H QS"
K2 = "10C 7D JS 8C 9D 10S QH 8H KC QS AS 6H 6D 6S 7S 8S 9S KS 7H 9H 10H JH KH AH 8D 10D JD QD KD AD 6C 7C 9C JC QC AC"
K3 = "6S 7S 7H 8H 8D 9D 9S 10S 10H JH JD QD AC 8S JS QS KS AS 6H 9H QH KH AH 6D 7D 10D KD AD 6C 7C 8C 9C 10C JC QC KC"
K1, K2, K3 = K1.split(), K2.split(), K3.split()
SHAPE_6_4 = json.loads("""
{"trump_suit": "H", "trump_card": "10H", "trump_card_drawn_by": null, "first_attack": {"seat": 0, "card": "6H"},
 "stock_size": 12, "discard_size": 12, "bout": 2, "attacker": 1, "defender": 0, "bout_limit": 6,
 "table": [{"attack": "6S", "defense": "9S"}], "defender_took": false, "hand": ["QH", "8D", "JD", "7C", "AC"],
 "hand_sizes": [5, 5], "revealed_hands": null}
""")
"""The `state` of durak.md §6.4: seat 0's view in §8.1 after `s1 attack 6S, s0 defend 9S/6S`."""

POSITIONS = {
    "8.5": (
        (
            "10S KS AC 9C QC 10C 6C 6S JH QD AH 6H 8S 10H JS QH 9D 9H "
            "9S KC 7D QS 7H KD AS 7S 7C JC JD 8H 10D KH 6D 8D AD 8C"
        ),
        (
            "s1 attack 6H, s0 defend 10S/6H, s1 done, s0 attack AC, s1 defend KS/AC, s0 done, s1 attack 9C, "
            "s0 defend QC/9C, s1 done, s0 attack QH, s1 defend 6S/QH, s0 done, s1 attack 7D, s0 defend JS/7D, s1 done, "
            "s0 attack 7H, s1 defend 9H/7H, s0 done, s1 attack 10C, s0 defend KC/10C, s1 attack 10H, s0 defend JH/10H, "
            "s1 done, s0 attack JC, s1 defend 7S/JC, s0 done, s1 attack QD, s0 defend 9S/QD, s1 attack 9D, "
            "s0 defend KD/9D, s1 done, s0 attack 6C, s1 defend AS/6C, s0 attack AH, s1 defend QS/AH, s0 done, "
            "s1 attack 6D, s0 defend AD/6D, s1 done"
        ),
    ),
    "8.6": (
        (
            "KS QH KD AH KH 10C AS QS AC 9S JH JC 8S 9H 6D 7S 7C 9C "
            "7D 6C 10H QD 6S 9D 8D JS 6H 8H 10S 8C 10D 7H QC KC AD JD"
        ),
        (
            "s1 attack 10C, s0 defend AS/10C, s1 done, s0 attack JH, s1 defend AH/JH, s0 done, s1 attack QH, "
            "s0 defend 7S/QH, s1 done, s0 attack AC, s1 defend 9S/AC, s0 done, s1 attack JC, s0 defend KS/JC, s1 done, "
            "s0 attack KD, s1 defend QS/KD, s0 done, s1 attack 9H, s0 defend KH/9H, s1 done, s0 attack 6C, "
            "s1 defend 9C/6C, s0 attack 6D, s1 take, s0 attack 6H, s0 attack 6S, s0 attack 9D, s0 done, s0 attack 8H, "
            "s1 defend 10H/8H, s0 attack 10S, s1 take, s0 attack 8C, s0 attack 10D, s0 done, s0 attack JD, "
            "s1 defend QD/JD, s0 done, s1 attack 6C, s0 defend 8S/6C, s1 attack 8H, s0 take, s1 attack 6D, "
            "s1 attack 6H, s1 done, s1 attack 9D, s0 defend AD/9D, s1 done"
        ),
    ),
    "8.7": (
        (
            "6D QD 9H 9S 7H JS QS 8D 10D 8S AD QH AS JH 6S KS KC 7S "
            "10C 10S 10H KD JD QC AC 7D 8H AH 8C 6C 9D 7C 6H KH JC 9C"
        ),
        (
            "s1 attack JS, s0 defend QS/JS, s1 done, s0 attack 9H, s1 defend JH/9H, s0 done, s1 attack 9S, "
            "s0 defend KS/9S, s1 done, s0 attack 10D, s1 defend 7S/10D, s0 done, s1 attack 8S, s0 defend 10S/8S, "
            "s1 done, s0 attack 10C, s1 defend KC/10C, s0 done, s1 attack KD, s0 defend AD/KD, s1 done, s0 attack 6D, "
            "s1 defend 7D/6D, s0 done, s1 attack QH, s0 defend AH/QH, s1 done, s0 attack 8H, s1 defend 10H/8H, "
            "s0 done, s1 attack 6H, s0 defend 7H/6H, s1 attack 6C, s0 defend 7C/6C, s1 done, s0 attack JD, "
            "s1 defend QD/JD, s0 done, s1 attack KH, s0 defend 6S/KH, s1 done, s0 attack QC, s1 defend AC/QC, s0 done, "
            "s1 attack 8C, s0 defend AS/8C, s1 attack 8D, s0 defend 9D/8D, s1 done"
        ),
    ),
    "8.7 JC 7D": (
        (
            "10D 10H 7H 10C AC KC 7C QD KD 7S QH 6D KS 9S 8C 6H QC 8H "
            "AH JD 6C 10S 9D QS AD 8S JH AS KH 6S JS 9C 9H 7D JC 8D"
        ),
        (
            "s1 attack 6D, s0 defend 10D/6D, s1 done, s0 attack AC, s1 defend 9S/AC, s0 done, s1 attack 10H, "
            "s0 defend QH/10H, s1 done, s0 attack 6H, s1 defend 8H/6H, s0 done, s1 attack 6C, s0 defend 7C/6C, "
            "s1 done, s0 attack 9D, s1 defend 7S/9D, s0 attack 7H, s1 defend 10S/7H, s0 done, s1 attack QD, "
            "s0 defend KD/QD, s1 attack KC, s0 defend QS/KC, s1 done, s0 attack JD, s1 defend 8S/JD, s0 attack 8C, "
            "s1 defend QC/8C, s0 done, s1 attack KH, s0 defend JS/KH, s1 attack JH, s0 defend AH/JH, s1 done, "
            "s0 attack 9H, s1 defend AS/9H, s0 attack AD, s1 defend KS/AD, s0 done, s1 attack 10C, s0 defend 6S/10C, "
            "s1 done"
        ),
    ),
    "8.8": (
        (
            "QS AH KC 6S 9S KD 6D JD 9H JH 7S AD AS QD 8C KH 10H 10C "
            "AC QH 6C QC 7H 8D 8H KS 7D 7C 8S JS 10S 6H JC 9D 10D 9C"
        ),
        (
            "s1 attack 6S, s0 defend QS/6S, s1 done, s0 attack 9H, s1 defend AH/9H, s0 done, s1 attack 10H, "
            "s0 defend KH/10H, s1 done, s0 attack 8C, s1 defend 10C/8C, s0 done, s1 attack QD, s0 defend 7S/QD, "
            "s1 done, s0 attack 6D, s1 defend JD/6D, s0 done, s1 attack JH, s0 defend QH/JH, s1 attack QC, "
            "s0 defend AC/QC, s1 done, s0 attack 8D, s1 defend KD/8D, s0 done, s1 attack 6C, s0 defend 7C/6C, "
            "s1 attack 7D, s0 defend 9S/7D, s1 done, s0 attack 7H, s1 defend 8H/7H, s0 attack 8S, s1 defend 10S/8S, "
            "s0 done, s1 attack AD, s0 defend JS/AD, s1 done, s0 attack KC, s1 defend KS/KC, s0 done, s1 attack 6H, "
            "s0 defend AS/6H, s1 done"
        ),
    ),
    "8.9": (
        (
            "KH 6H AD 8H JH 9H AH 7D 10D 8S QD QC QH 6D AS KC 10C 10H "
            "7H 7S KS 9C JD 7C 8D 6S 9D JS 9S 10S QS JC 8C 6C AC KD"
        ),
        (
            "s1 attack 6H, s0 defend AH/6H, s1 done, s0 attack AS, s1 defend 8H/AS, s0 done, s1 attack 10C, "
            "s0 defend KC/10C, s1 done, s0 attack 7H, s1 defend 9H/7H, s0 done, s1 attack 6D, s0 defend 10D/6D, "
            "s1 done, s0 attack 7S, s1 defend 8S/7S, s0 done, s1 attack 7D, s0 defend QD/7D, s1 attack QC, "
            "s0 defend KH/QC, s1 done, s0 attack AD, s1 defend 10H/AD, s0 done, s1 attack 6S, s0 defend JH/6S, "
            "s1 done, s0 attack JD, s1 take, s0 done"
        ),
    ),
    "8.10": (
        (
            "6D JD JC JS QC 10D 6H 7D 7S 6C 7H 8D AH AC 8H 9S 6S AD "
            "KS 10S 8S KD QS 9D KC 10C KH 8C JH QH 10H 7C QD 9H AS 9C"
        ),
        (
            "s0 attack 7S, s1 defend JS/7S, s0 done, s1 attack 8D, s0 defend 7H/8D, s1 done, s0 attack JC, "
            "s1 defend 8H/JC, s0 done, s1 attack 7D, s0 defend AD/7D, s1 done, s0 attack 8S, s1 defend KS/8S, s0 done, "
            "s1 attack 6C, s0 defend AC/6C, s1 done, s0 attack 6S, s1 defend 10S/6S, s0 done, s1 attack 9S, "
            "s0 defend 6H/9S, s1 attack 9D, s0 defend KD/9D, s1 done, s0 attack 6D, s1 defend 10D/6D, s0 attack 10C, "
            "s1 defend KH/10C, s0 done, s1 attack JD, s0 defend QD/JD, s1 attack QS, s0 defend QH/QS, s1 done, "
            "s0 attack KC, s1 defend AH/KC, s0 done, s1 attack 8C, s0 defend QC/8C, s1 done"
        ),
    ),
}
"""The "Positions" of durak.md §8.5-§8.10 reached by play: a deck (top first) and a legal opening that ends at the
start of a bout with seat 0 to attack and the position's hands. Found by a search over the engine and checked by
replaying it; `reach` checks the position again over HTTP. The key names the scenario (and the variant of §8.7).
"""


def play(api, game_id, tokens, text):
    return api.play(game_id, tokens, steps(text))


def legal(api, game_id, token):
    return api.legal(game_id, token)


def actions(text):
    """`L(s)` as durak.md §8 writes it, e.g. `defend 7H/6H, take, resign`."""
    return [parse_step(f"s0 {item.strip()}")[1] for item in text.split(",")]


def refused(api, game_id, tokens, text, status=422, error="illegal_action"):
    """Post the one step `text` (e.g. `s0 done`) with that seat's token; expect it refused with nothing changed."""
    ((seat, action),) = steps(text)
    return api.refused(game_id, tokens[seat], action, status, error)


def state_of(api, game_id, token=None):
    return api.view(game_id, token).json["state"]


def hands(api, game_id, tokens):
    """Both hands in hand order, as each seat sees its own."""
    return [" ".join(state_of(api, game_id, token)["hand"]) for token in tokens]


def outcome(winner, reason):
    """The `result` of durak.md §5.1 and §5.2; `winner` None is a draw."""
    if winner is None:
        return {"winners": [], "losers": [], "draw": True, "scores": {"0": 0, "1": 0}, "reason": reason}
    scores = {str(seat): int(seat == winner) for seat in (0, 1)}
    return {"winners": [winner], "losers": [1 - winner], "draw": False, "scores": scores, "reason": reason}


def reach(api, name, hand0, hand1):
    """Play POSITIONS[name] and check the position: both hands, an empty table, seat 0 to attack.

    Returns (game_id, tokens, the `state` at the position).
    """
    deck, opening = POSITIONS[name]
    game_id, tokens = api.create_humans(deck.split())
    play(api, game_id, tokens, opening)
    assert hands(api, game_id, tokens) == [hand0, hand1]
    view = api.view(game_id).json
    assert (view["status"], view["to_act"], view["state"]["attacker"], view["state"]["table"]) == ("active", [0], 0, [])
    return game_id, tokens, view["state"]


def test_whole_game_k1(api):
    """durak.md §8.1: the deal, one-card-at-a-time bouts, refills, the end-of-stock refill and the durak."""
    game_id, tokens = api.create_humans(K1)
    view = api.view(game_id, tokens[0]).json
    assert hands(api, game_id, tokens) == ["7S 10S 6H 9D 8C JC", "8S JS 7H 10D 9C QC"]
    state = view["state"]
    assert (state["trump_card"], state["stock_size"], state["bout_limit"]) == ("10H", 24, 6)
    assert state["first_attack"] == {"seat": 0, "card": "6H"}
    assert view["to_act"] == [0]
    assert view["legal_actions"] == actions("attack 7S, attack 10S, attack 6H, attack 9D, attack 8C, attack JC, resign")
    assert legal(api, game_id, tokens[1]) == []

    play(api, game_id, tokens, "s0 attack 6H")
    assert legal(api, game_id, tokens[1]) == actions("defend 7H/6H, take, resign")
    refused(api, game_id, tokens, "s0 attack 7S", 403, "not_your_turn")

    play(api, game_id, tokens, "s1 defend 7H/6H")
    assert legal(api, game_id, tokens[0]) == actions("attack 7S, done, resign")
    refused(api, game_id, tokens, "s0 attack 6H")
    refused(api, game_id, tokens, "s0 attack 8C")

    view = play(
        api,
        game_id,
        tokens,
        "s0 attack 7S, s1 defend 8S/7S, s0 attack 8C, s1 defend 9C/8C, s0 attack 9D, s1 defend 10D/9D, "
        "s0 attack 10S, s1 defend JS/10S, s0 attack JC, s1 defend QC/JC",
    )
    assert view["state"]["hand_sizes"] == [0, 0] and view["status"] == "active"
    assert legal(api, game_id, tokens[0]) == actions("done, resign")

    state = play(api, game_id, tokens, "s0 done")["state"]
    assert (state["discard_size"], state["stock_size"]) == (12, 12)
    assert (state["bout"], state["attacker"], state["defender"], state["bout_limit"]) == (2, 1, 0, 6)
    assert hands(api, game_id, tokens) == ["9S QH 8D JD 7C AC", "6S AS JH 6D 7D 6C"]

    play(api, game_id, tokens, "s1 attack 6S, s0 defend 9S/6S")
    assert state_of(api, game_id, tokens[0]) == SHAPE_6_4
    view = play(api, game_id, tokens, "s1 attack 6D, s0 defend 8D/6D, s1 attack 6C, s0 defend 7C/6C")
    assert view["state"]["hand_sizes"][0] == 3
    assert legal(api, game_id, tokens[1]) == actions("attack 7D, done, resign")
    play(api, game_id, tokens, "s1 attack 7D, s0 defend JD/7D, s1 attack JH")
    assert legal(api, game_id, tokens[0]) == actions("defend QH/JH, take, resign")
    play(api, game_id, tokens, "s0 defend QH/JH")
    assert legal(api, game_id, tokens[1]) == actions("done, resign")

    state = play(api, game_id, tokens, "s1 done")["state"]
    assert (state["discard_size"], state["stock_size"], state["trump_card"]) == (22, 2, "10H")
    assert (state["bout"], state["attacker"]) == (3, 0)
    assert hands(api, game_id, tokens) == ["KS 8H 9H KD 10C AC", "AS KH AH QD AD KC"]
    play(api, game_id, tokens, "s0 attack 10C")
    assert legal(api, game_id, tokens[1]) == actions("defend KH/10C, defend AH/10C, defend KC/10C, take, resign")
    play(api, game_id, tokens, "s1 defend KH/10C, s0 attack KS, s1 defend AH/KS")
    assert legal(api, game_id, tokens[0]) == actions("attack KD, attack AC, done, resign")

    state = play(api, game_id, tokens, "s0 done")["state"]
    assert (state["stock_size"], state["trump_card"], state["trump_card_drawn_by"]) == (0, None, 0)
    assert (state["bout"], state["attacker"], state["defender"], state["bout_limit"]) == (4, 1, 0, 6)
    assert {"QS", "10H"} <= set(state["hand"]) and state["hand_sizes"][1] == 4
    play(api, game_id, tokens, "s1 attack QD")
    assert legal(api, game_id, tokens[0]) == actions(
        "defend 8H/QD, defend 9H/QD, defend 10H/QD, defend KD/QD, take, resign"
    )
    view = play(
        api,
        game_id,
        tokens,
        "s0 defend KD/QD, s1 attack KC, s0 defend AC/KC, s1 attack AS, s0 defend 8H/AS, s1 attack AD, s0 defend 9H/AD",
    )
    assert view["state"]["hand_sizes"][1] == 0 and view["status"] == "active"
    assert legal(api, game_id, tokens[1]) == actions("done, resign")
    view = play(api, game_id, tokens, "s1 done")
    assert view["status"] == "finished" and view["result"] == outcome(1, "durak")
    assert view["state"]["revealed_hands"] == [["QS", "10H"], []]
    refused(api, game_id, tokens, "s0 attack QS", 409, "game_finished")


def test_seat_one_leads_takes_and_throw_in_k2(api):
    """durak.md §8.2: the lowest trump in a hand leads; a take lets the attacker add cards."""
    game_id, tokens = api.create_humans(K2)
    view = api.view(game_id, tokens[1]).json
    assert view["state"]["first_attack"] == {"seat": 1, "card": "7D"}
    assert view["to_act"] == [1]
    assert view["legal_actions"] == actions("attack 10S, attack QS, attack 6H, attack 8H, attack 7D, attack 8C, resign")
    play(api, game_id, tokens, "s1 attack 8C, s0 defend 10C/8C, s1 attack 10S")
    assert legal(api, game_id, tokens[0]) == actions("defend JS/10S, defend AS/10S, defend 9D/10S, take, resign")
    view = play(api, game_id, tokens, "s0 take")
    assert view["state"]["defender_took"] is True and view["to_act"] == [1]
    assert legal(api, game_id, tokens[1]) == actions("attack 8H, done, resign")
    refused(api, game_id, tokens, "s0 take", 403, "not_your_turn")
    refused(api, game_id, tokens, "s1 attack QS")
    view = play(api, game_id, tokens, "s1 attack 8H")
    assert view["state"]["table"] == [
        {"attack": "8C", "defense": "10C"},
        {"attack": "10S", "defense": None},
        {"attack": "8H", "defense": None},
    ]
    assert legal(api, game_id, tokens[1]) == actions("done, resign")
    state = play(api, game_id, tokens, "s1 done")["state"]
    assert hands(api, game_id, tokens) == ["10S JS AS 8H QH 9D 8C 10C KC", "6S 7S 8S QS 6H 7D"]
    assert (state["stock_size"], state["discard_size"]) == (21, 0)
    assert (state["bout"], state["attacker"], state["defender"], state["bout_limit"]) == (2, 1, 0, 6)
    refused(api, game_id, tokens, "s1 done")


def test_no_trump_in_either_hand_seat_zero_leads_k3(api):
    """durak.md §8.3."""
    game_id, tokens = api.create_humans(K3)
    view = api.view(game_id).json
    assert (view["state"]["trump_suit"], view["state"]["first_attack"], view["to_act"]) == (
        "C",
        {"seat": 0, "card": None},
        [0],
    )


def test_invalid_decks_and_options_create_nothing(api, redis_connection):
    """durak.md §8.4 and §2.3."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "random"}]
    bad_decks = [
        K1[:-1],
        [*K1[:-1], "10H"],
        [c if c != "6H" else "6h" for c in K1],
        [c if c != "AC" else "5C" for c in K1],
        [*K1[:-1], 7],
        "6H 7H",
    ]
    for deck in bad_decks:
        response = api.create(seats, deck=deck)
        assert (response.status_code, response.json["error"]) == (422, "invalid_deck"), deck
    response = api.create(seats, options={"first_bout_limit": 5})
    assert (response.status_code, response.json["error"]) == (422, "invalid_request")
    stored = redis_connection.scan_iter(match=f"{api.services.store.prefix}:*")
    assert [key for key in stored if b":ratelimit:" not in key] == []  # rate-limit counters aside, nothing


def test_limit_below_six_after_a_take(api):
    """durak.md §8.5 (OpenFool #17/#24), §3.5: L = min(6, H0) = 3 also caps the cards added after a take.

    The position is exact; reached by play, its bout is not the first, so "bout 2" is checked as the next bout.
    """
    game_id, tokens, state = reach(api, "8.5", "8S 8H 8D JD 8C", "KH 10D 7C")
    assert (state["trump_suit"], state["stock_size"], state["bout_limit"]) == ("S", 0, 3)
    refused(api, game_id, tokens, "s0 done")
    play(api, game_id, tokens, "s0 attack 8C")
    assert legal(api, game_id, tokens[1]) == actions("take, resign")
    refused(api, game_id, tokens, "s0 attack 8D", 403, "not_your_turn")
    play(api, game_id, tokens, "s1 take")
    assert legal(api, game_id, tokens[0]) == actions("attack 8S, attack 8H, attack 8D, done, resign")
    play(api, game_id, tokens, "s0 attack 8D, s0 attack 8H")
    assert legal(api, game_id, tokens[0]) == actions("done, resign")
    refused(api, game_id, tokens, "s0 attack 8S")
    after = play(api, game_id, tokens, "s0 done")["state"]
    assert hands(api, game_id, tokens)[1] == "8H KH 8D 10D 7C 8C"
    assert (after["bout"], after["attacker"], after["bout_limit"]) == (state["bout"] + 1, 0, 6)


def test_six_card_cap(api):
    """durak.md §8.6, §3.5: six attack cards at most, counting those added after a take (H0 = 9).

    Not reachable as written: with the stock empty and the table clear, the 17 cards in hands would leave an odd
    number in the discard pile, which only ever receives pairs. Seat 0 also holds `KC` (a rank it can never add
    here, like `QC`), and seat 1's cards other than `7C 8D` differ (the scenario checks only their number). So seat
    0 ends with `8S QC KC`; every other value is as stated, the next bout is "bout 2".
    """
    game_id, tokens, state = reach(api, "8.6", "8S 6H 7H 8H 6D 7D 6C QC KC", "6S 10S JS 10H 8D 10D 7C 8C 9C")
    assert (state["trump_suit"], state["stock_size"], state["bout_limit"]) == ("S", 0, 6)
    play(api, game_id, tokens, "s0 attack 6C, s1 defend 7C/6C, s0 attack 6D, s1 defend 8D/6D, s0 attack 6H, s1 take")
    assert legal(api, game_id, tokens[0]) == actions("attack 8S, attack 7H, attack 8H, attack 7D, done, resign")
    view = play(api, game_id, tokens, "s0 attack 7D, s0 attack 7H, s0 attack 8H")
    assert len(view["state"]["table"]) == 6
    assert legal(api, game_id, tokens[0]) == actions("done, resign")
    refused(api, game_id, tokens, "s0 attack 8S")
    after = play(api, game_id, tokens, "s0 done")["state"]
    assert after["hand_sizes"] == [3, 15] and after["hand"] == ["8S", "QC", "KC"]
    assert (after["bout"], after["attacker"]) == (state["bout"] + 1, 0)


@pytest.mark.parametrize(
    ("name", "seat1", "moves", "sizes", "winner", "revealed"),
    [
        ("8.7", "JC", "s0 attack 9C, s1 defend JC/9C", [0, 0], None, [[], []]),
        ("8.7 JC 7D", "7D 8D JC", "s0 attack 9C, s1 defend JC/9C", [0, 2], 0, [[], ["7D", "8D"]]),
        ("8.7", "JC", "s0 attack 9C, s1 take", [0, 1], 0, [[], ["9C", "JC"]]),
    ],
    ids=["draw", "durak_holds_7D", "durak_took"],
)
def test_draw_and_the_durak_at_the_last_bout(api, name, seat1, moves, sizes, winner, revealed):
    """durak.md §8.7, §5.1, §7.11, §7.12: trump S, stock empty, seat 0 `9C` attacks seat 1.

    The second position as written (`JC 7D` against `9C`, 3 cards) is not reachable: the discard pile only ever
    receives pairs, so an odd number of cards cannot be left in hands. Seat 1 also holds `8D`, so the durak keeps
    `7D 8D`; everything else is as stated.
    """
    game_id, tokens, state = reach(api, name, "9C", seat1)
    assert (state["trump_suit"], state["stock_size"]) == ("S", 0)
    view = play(api, game_id, tokens, moves)
    assert (view["status"], view["state"]["hand_sizes"]) == ("active", sizes)
    assert legal(api, game_id, tokens[0]) == actions("done, resign")
    view = play(api, game_id, tokens, "s0 done")
    assert view["result"] == outcome(winner, "draw" if winner is None else "durak")
    assert view["state"]["revealed_hands"] == revealed


def test_defender_goes_out_first(api):
    """durak.md §8.8, §3.11: D beats with his last card, the limit of 1 stops A, D wins.

    The position as written (`9C 9D` against `JC`, 3 cards) is not reachable: the discard pile only ever receives
    pairs. Seat 0 also holds `10D`, which the limit keeps in hand like `9D`; every value checked is as stated.
    """
    game_id, tokens, state = reach(api, "8.8", "9D 10D 9C", "JC")
    assert (state["trump_suit"], state["stock_size"], state["bout_limit"]) == ("S", 0, 1)
    play(api, game_id, tokens, "s0 attack 9C, s1 defend JC/9C")
    assert legal(api, game_id, tokens[0]) == actions("done, resign")
    refused(api, game_id, tokens, "s0 attack 9D")
    assert play(api, game_id, tokens, "s0 done")["result"] == outcome(1, "durak")


def test_short_stock_defender_gets_the_indicator(api):
    """durak.md §8.9, §3.8, §7.9 (cajax #24): A draws `AC KD` first, D gets what is left, the indicator `QH`.

    Not reachable as written: 3 stock cards and 12 in hands would leave an odd number in the discard pile, which
    only ever receives pairs. Seat 1 also holds `JD` (it took it in the bout before), so it ends with
    `KS QH 8D 9D JD JC`; every other value is as stated, the next bout is "bout 2".
    """
    game_id, tokens, state = reach(api, "8.9", "9S 10S JS 6C 7C 8C", "QS KS 8D 9D JD 9C JC")
    assert (state["trump_suit"], state["stock_size"], state["trump_card"]) == ("H", 3, "QH")
    view = play(api, game_id, tokens, "s0 attack 7C, s1 defend 9C/7C, s0 attack 9S, s1 defend QS/9S, s0 done")
    assert hands(api, game_id, tokens) == ["10S JS KD 6C 8C AC", "KS QH 8D 9D JD JC"]
    after = view["state"]
    assert (after["stock_size"], after["trump_card"], after["trump_card_drawn_by"]) == (0, None, 1)
    assert (view["status"], after["bout"], after["attacker"]) == ("active", state["bout"] + 1, 1)


def test_trump_rank_and_free_choice_of_suit(api):
    """durak.md §8.10, §3.1, §7.13, §7.14: only a higher trump beats a trump; a trump may beat a non-trump while
    the defender holds the suit. The position is exact; each opening card is played in its own game.
    """
    game_id, tokens, state = reach(api, "8.10", "10H 7C", "AS 9H JH 9C")
    assert (state["trump_suit"], state["stock_size"]) == ("H", 0)
    play(api, game_id, tokens, "s0 attack 10H")
    assert legal(api, game_id, tokens[1]) == actions("defend JH/10H, take, resign")
    for text in ("s1 defend 9H/10H", "s1 defend AS/10H", "s1 defend JH/7C"):
        refused(api, game_id, tokens, text)
    game_id, tokens, _ = reach(api, "8.10", "10H 7C", "AS 9H JH 9C")
    play(api, game_id, tokens, "s0 attack 7C")
    assert legal(api, game_id, tokens[1]) == actions("defend 9H/7C, defend JH/7C, defend 9C/7C, take, resign")


def test_resign_out_of_turn_k1(api):
    """durak.md §8.11: seat 1 resigns while seat 0 is to act; both hands are revealed."""
    game_id, tokens = api.create_humans(K1)
    view = play(api, game_id, tokens, "s1 resign")
    assert view["result"] == outcome(0, "resign")
    spectator = api.view(game_id).json
    assert spectator["state"]["revealed_hands"] == [
        ["7S", "10S", "6H", "9D", "8C", "JC"],
        ["8S", "JS", "7H", "10D", "9C", "QC"],
    ]
