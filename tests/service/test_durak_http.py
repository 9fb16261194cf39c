"""shared/rules/durak.md §8 scenarios through the HTTP API with an exact `deck`."""

from __future__ import annotations

from tests.service.notation import steps

K1 = ("6H 7H 7S 8S 8C 9C 9D 10D 10S JS JC QC 10H 9S 8D 7C JD QH AC 6S 6D 6C 7D JH AS KH AH QD KC AD 10C KS KD 8H "
      "9H QS").split()
K2 = ("10C 7D JS 8C 9D 10S QH 8H KC QS AS 6H 6D 6S 7S 8S 9S KS 7H 9H 10H JH KH AH 8D 10D JD QD KD AD 6C 7C 9C JC "
      "QC AC").split()
K3 = ("6S 7S 7H 8H 8D 9D 9S 10S 10H JH JD QD AC 8S JS QS KS AS 6H 9H QH KH AH 6D 7D 10D KD AD 6C 7C 8C 9C 10C JC "
      "QC KC").split()


def play(api, game_id, tokens, text):
    return api.play(game_id, tokens, steps(text))


def legal(api, game_id, token):
    return api.legal(game_id, token)


def test_whole_game_k1(api):
    """durak.md §8.1: the deal, one-card-at-a-time bouts, refills, the end-of-stock refill and the durak."""
    game_id, tokens = api.create_humans(K1)
    view = api.view(game_id, tokens[0]).json
    assert view["state"]["hand"] == ["7S", "10S", "6H", "9D", "8C", "JC"]
    assert view["state"]["trump_card"] == "10H"
    assert view["state"]["stock_size"] == 24
    assert view["state"]["first_attack"] == {"seat": 0, "card": "6H"}
    assert view["to_act"] == [0]
    assert view["legal_actions"] == [
        {"type": "attack", "card": c} for c in ["7S", "10S", "6H", "9D", "8C", "JC"]
    ] + [{"type": "resign"}]
    assert legal(api, game_id, tokens[1]) == []

    play(api, game_id, tokens, "s0 attack 6H")
    assert legal(api, game_id, tokens[1]) == [
        {"type": "defend", "card": "7H", "against": "6H"}, {"type": "take"}, {"type": "resign"}]
    wrong_turn = api.act(game_id, tokens[0], {"type": "attack", "card": "7S"})
    assert (wrong_turn.status_code, wrong_turn.json["error"]) == (403, "not_your_turn")

    play(api, game_id, tokens, "s1 defend 7H/6H")
    for card in ("6H", "8C"):
        refused = api.act(game_id, tokens[0], {"type": "attack", "card": card})
        assert (refused.status_code, refused.json["error"]) == (422, "illegal_action")

    view = play(api, game_id, tokens, "s0 attack 7S, s1 defend 8S/7S, s0 attack 8C, s1 defend 9C/8C, s0 attack 9D, "
                "s1 defend 10D/9D, s0 attack 10S, s1 defend JS/10S, s0 attack JC, s1 defend QC/JC")
    assert view["state"]["hand_sizes"] == [0, 0] and view["status"] == "active"
    assert legal(api, game_id, tokens[0]) == [{"type": "done"}, {"type": "resign"}]

    view = play(api, game_id, tokens, "s0 done")
    state = view["state"]
    assert (state["discard_size"], state["stock_size"], state["bout"], state["attacker"]) == (12, 12, 2, 1)
    assert sorted(state["hand"]) == sorted(["9S", "8D", "7C", "JD", "QH", "AC"])

    play(api, game_id, tokens, "s1 attack 6S, s0 defend 9S/6S")
    assert api.view(game_id, tokens[0]).json["state"] == {
        "trump_suit": "H", "trump_card": "10H", "trump_card_drawn_by": None,
        "first_attack": {"seat": 0, "card": "6H"}, "stock_size": 12, "discard_size": 12, "bout": 2,
        "attacker": 1, "defender": 0, "bout_limit": 6, "table": [{"attack": "6S", "defense": "9S"}],
        "defender_took": False, "hand": ["QH", "8D", "JD", "7C", "AC"], "hand_sizes": [5, 5],
        "revealed_hands": None,
    }
    play(api, game_id, tokens, "s1 attack 6D, s0 defend 8D/6D, s1 attack 6C, s0 defend 7C/6C")
    assert legal(api, game_id, tokens[1]) == [{"type": "attack", "card": "7D"}, {"type": "done"}, {"type": "resign"}]
    play(api, game_id, tokens, "s1 attack 7D, s0 defend JD/7D, s1 attack JH, s0 defend QH/JH")
    assert legal(api, game_id, tokens[1]) == [{"type": "done"}, {"type": "resign"}]
    view = play(api, game_id, tokens, "s1 done")
    assert (view["state"]["discard_size"], view["state"]["stock_size"], view["state"]["attacker"]) == (22, 2, 0)
    play(api, game_id, tokens, "s0 attack 10C, s1 defend KH/10C, s0 attack KS, s1 defend AH/KS")
    view = play(api, game_id, tokens, "s0 done")
    assert (view["state"]["stock_size"], view["state"]["trump_card"], view["state"]["trump_card_drawn_by"]) == (
        0, None, 0)
    play(api, game_id, tokens, "s1 attack QD, s0 defend KD/QD, s1 attack KC, s0 defend AC/KC, s1 attack AS, "
         "s0 defend 8H/AS, s1 attack AD, s0 defend 9H/AD")
    view = play(api, game_id, tokens, "s1 done")
    assert view["status"] == "finished"
    assert view["result"] == {"winners": [1], "losers": [0], "draw": False, "scores": {"0": 0, "1": 1},
                              "reason": "durak"}
    assert view["state"]["revealed_hands"] == [["QS", "10H"], []]
    finished = api.act(game_id, tokens[0], {"type": "attack", "card": "QS"})
    assert (finished.status_code, finished.json["error"]) == (409, "game_finished")


def test_seat_one_leads_takes_and_throw_in_k2(api):
    """durak.md §8.2: the lowest trump in a hand leads; a take lets the attacker add cards."""
    game_id, tokens = api.create_humans(K2)
    view = api.view(game_id, tokens[1]).json
    assert view["state"]["first_attack"] == {"seat": 1, "card": "7D"}
    assert view["to_act"] == [1]
    play(api, game_id, tokens, "s1 attack 8C, s0 defend 10C/8C, s1 attack 10S")
    assert legal(api, game_id, tokens[0]) == [
        {"type": "defend", "card": c, "against": "10S"} for c in ["JS", "AS", "9D"]] + [
        {"type": "take"}, {"type": "resign"}]
    view = play(api, game_id, tokens, "s0 take")
    assert view["state"]["defender_took"] is True and view["to_act"] == [1]
    assert api.act(game_id, tokens[0], {"type": "take"}).status_code == 403
    assert api.act(game_id, tokens[1], {"type": "attack", "card": "QS"}).json["error"] == "illegal_action"
    view = play(api, game_id, tokens, "s1 attack 8H")
    assert view["state"]["table"] == [
        {"attack": "8C", "defense": "10C"}, {"attack": "10S", "defense": None}, {"attack": "8H", "defense": None}]
    view = play(api, game_id, tokens, "s1 done")
    assert view["state"]["hand"] == ["6S", "7S", "8S", "QS", "6H", "7D"]
    assert api.view(game_id, tokens[0]).json["state"]["hand"] == ["10S", "JS", "AS", "8H", "QH", "9D", "8C", "10C",
                                                                  "KC"]
    assert (view["state"]["stock_size"], view["state"]["bout"], view["state"]["attacker"],
            view["state"]["bout_limit"]) == (21, 2, 1, 6)
    empty_table = api.act(game_id, tokens[1], {"type": "done"})
    assert (empty_table.status_code, empty_table.json["error"]) == (422, "illegal_action")


def test_no_trump_in_either_hand_seat_zero_leads_k3(api):
    """durak.md §8.3."""
    game_id, tokens = api.create_humans(K3)
    view = api.view(game_id).json
    assert (view["state"]["trump_suit"], view["state"]["first_attack"], view["to_act"]) == (
        "C", {"seat": 0, "card": None}, [0])


def test_invalid_decks_and_options_create_nothing(api, redis_connection):
    """durak.md §8.4 and §2.3."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "random"}]
    bad_decks = [K1[:-1], [*K1[:-1], "10H"], [c if c != "6H" else "6h" for c in K1],
                 [c if c != "AC" else "5C" for c in K1], [*K1[:-1], 7], "6H 7H"]
    for deck in bad_decks:
        response = api.create(seats, deck=deck)
        assert (response.status_code, response.json["error"]) == (422, "invalid_deck"), deck
    response = api.create(seats, options={"first_bout_limit": 5})
    assert (response.status_code, response.json["error"]) == (422, "invalid_request")
    stored = redis_connection.scan_iter(match=f"{api.services.store.prefix}:*")
    assert [key for key in stored if b":ratelimit:" not in key] == []  # rate-limit counters aside, nothing


def test_resign_out_of_turn_k1(api):
    """durak.md §8.11: seat 1 resigns while seat 0 is to act; both hands are revealed."""
    game_id, tokens = api.create_humans(K1)
    view = play(api, game_id, tokens, "s1 resign")
    assert view["result"] == {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0},
                              "reason": "resign"}
    spectator = api.view(game_id).json
    assert spectator["state"]["revealed_hands"] == [["7S", "10S", "6H", "9D", "8C", "JC"],
                                                    ["8S", "JS", "7H", "10D", "9C", "QC"]]
