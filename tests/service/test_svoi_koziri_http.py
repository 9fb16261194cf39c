"""shared/rules/svoi_koziri.md §8 scenarios through the HTTP API with an exact `deck`."""

from __future__ import annotations

from tests.service.notation import steps

V1 = ("6S 9S 7S JS 8S KS 10S 7H QS 9H AS JH 6H QH 8H KH 10H AH 7D 6D 9D 8D JD 10D KD QD 7C AD 9C 6C 10C 8C JC QC "
      "KC AC").split()
SEAT1_V1 = "9S JS KS 6H 7H 9H JH QH KH AH 6D 8D 10D QD AD 6C 8C QC AC".split()
GAME = "svoi_koziri"


def play(api, game_id, tokens, text):
    return api.play(game_id, tokens, steps(text))


def refused(api, game_id, token, text, status, error):
    ((_, action),) = steps(text)
    api.refused(game_id, token, action, status, error)


def legal(api, game_id, token):
    return api.legal(game_id, token)


def cards(kind, codes):
    return [{"type": kind, "card": code} for code in codes.split()]


def test_trump_choice_deal_and_beating_v1(api):
    """svoi_koziri.md §8.1 and §8.3, with the §6.4 view and redacted events."""
    game_id, tokens = api.create_humans(V1, game=GAME)
    view = api.view(game_id, tokens[0]).json
    assert (view["status"], view["to_act"], view["state"]["step"], view["state"]["hand"]) == (
        "active", [0], "choose_trump", [])
    assert view["legal_actions"] == [{"type": "choose_trump", "suit": s} for s in "SHDC"] + [{"type": "resign"}]
    assert legal(api, game_id, tokens[1]) == []
    refused(api, game_id, tokens[1], "s1 choose_trump D", 403, "not_your_turn")

    play(api, game_id, tokens, "s0 choose_trump S")
    assert legal(api, game_id, tokens[1]) == [{"type": "choose_trump", "suit": s} for s in "HDC"] + [
        {"type": "resign"}]
    refused(api, game_id, tokens[1], "s1 choose_trump S", 422, "illegal_action")
    view = play(api, game_id, tokens, "s1 choose_trump H")
    assert view["state"]["hand"] == SEAT1_V1 and view["state"]["sixes_passed"] == ["6H", None]
    assert [seat["hand_size"] for seat in view["seats"]] == [17, 19]
    seat0 = "6S 7S 8S 10S QS AS 8H 10H 7D 9D JD KD 7C 9C 10C JC KC"
    assert legal(api, game_id, tokens[0]) == [*cards("lead", seat0), {"type": "resign"}]

    play(api, game_id, tokens, "s0 lead 10C")
    assert api.view(game_id, tokens[1]).json["state"] == {
        "step": "respond", "trumps": ["S", "H"], "sixes_passed": ["6H", None], "pile": ["10C"],
        "hand": SEAT1_V1, "hand_sizes": [16, 19], "revealed_hands": None,
    }
    assert legal(api, game_id, tokens[1]) == [*cards("beat", "6H 7H 9H JH QH KH AH QC AC"), {"type": "resign"}]
    for text in ("s1 take", "s1 beat 8C", "s1 beat KS"):
        refused(api, game_id, tokens[1], text, 422, "illegal_action")
    play(api, game_id, tokens, "s1 beat 6H")
    refused(api, game_id, tokens[1], "s1 take", 422, "illegal_action")
    refused(api, game_id, tokens[1], "s1 beat AH", 422, "illegal_action")
    refused(api, game_id, tokens[0], "s0 lead 7S", 403, "not_your_turn")
    play(api, game_id, tokens, "s1 play 9S")
    assert legal(api, game_id, tokens[0]) == [*cards("beat", "10S QS AS"), {"type": "resign"}]
    view = play(api, game_id, tokens, "s0 beat 10S, s0 play KD")
    assert view["state"]["pile"] == ["10C", "6H", "9S", "10S", "KD"]
    assert legal(api, game_id, tokens[1]) == [*cards("beat", "7H 9H JH QH KH AH AD"), {"type": "resign"}]

    # The deal event shows each seat only its own 18 cards; spectators see none (§6.2).
    events = {viewer: api.request("GET", f"/v1/games/{game_id}/events", token).json["events"]
              for viewer, token in ((0, tokens[0]), (1, tokens[1]), (None, None))}
    dealt = {viewer: next(event for event in shown if event["type"] == "dealt") for viewer, shown in events.items()}
    assert dealt[0]["cards"] == "6S 7S 8S 10S QS AS 6H 8H 10H 7D 9D JD KD 7C 9C 10C JC KC".split()
    assert dealt[1]["cards"] == "9S JS KS 7H 9H JH QH KH AH 6D 8D 10D QD AD 6C 8C QC AC".split()
    assert "cards" not in dealt[None] and dealt[None]["hand_sizes"] == [18, 18]


def test_sixes_both_ways_v1(api):
    """svoi_koziri.md §8.2."""
    game_id, tokens = api.create_humans(V1, game=GAME)
    view = play(api, game_id, tokens, "s0 choose_trump D, s1 choose_trump S")
    assert view["state"]["sixes_passed"] == ["6S", "6D"]
    assert view["state"]["hand"] == "6S 9S JS KS 7H 9H JH QH KH AH 8D 10D QD AD 6C 8C QC AC".split()
    assert api.view(game_id, tokens[0]).json["state"]["hand"] == (
        "7S 8S 10S QS AS 6H 8H 10H 6D 7D 9D JD KD 7C 9C 10C JC KC".split())
    spectator = api.view(game_id).json
    assert (spectator["state"]["hand"], spectator["state"]["hand_sizes"]) == (None, [18, 18])


def test_invalid_decks_options_and_resign(api, redis_connection):
    """svoi_koziri.md §8.12 (§2.3, §2.4, §3.10, §4.3, §5.3)."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}]
    for deck in (V1[:-1], [*V1[:-1], "KC"], ["6s", *V1[1:]]):
        response = api.create(seats, game=GAME, deck=deck)
        assert (response.status_code, response.json["error"]) == (422, "invalid_deck"), deck
    response = api.create(seats, game=GAME, options={"trumps": ["S", "H"]})
    assert (response.status_code, response.json["error"]) == (422, "invalid_request")
    stored = redis_connection.scan_iter(match=f"{api.services.store.prefix}:*")
    assert [key for key in stored if b":ratelimit:" not in key] == []  # rate-limit counters aside, nothing

    game_id, tokens = api.create_humans(V1, game=GAME)
    response = api.act(game_id, tokens[0], {"type": "choose_trump", "suit": "X"})
    assert (response.status_code, response.json["error"]) == (422, "invalid_request")
    view = play(api, game_id, tokens, "s1 resign")
    assert view["result"] == {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0},
                              "reason": "resign"}
    assert view["state"]["revealed_hands"] == [[], []] and view["state"]["step"] is None
    for seat, action in steps("s0 choose_trump S, s1 resign"):
        response = api.act(game_id, tokens[seat], action)
        assert (response.status_code, response.json["error"]) == (409, "game_finished")


def test_rules_offer_the_game_and_the_ai_plays_its_seat(api):
    """`GET /v1/rules/svoi_koziri`; an `easy` AI in seat 1 chooses its trump and answers through the worker."""
    rules = api.request("GET", f"/v1/rules/{GAME}").json
    assert (rules["options"], rules["ai_levels"], rules["seats"]) == ({}, ["random", "easy", "medium", "hard"], {"min": 2, "max": 2})
    assert rules["action_types"] == ["choose_trump", "lead", "beat", "play", "take", "resign"]
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], game=GAME, deck=V1)
    game_id, token = created.json["game_id"], created.json["player_token"]
    play(api, game_id, [token], "s0 choose_trump S")
    api.run_ai()
    view = api.view(game_id, token).json
    assert view["state"]["trumps"][0] == "S" and view["state"]["trumps"][1] in ("H", "D", "C")
    # Seat 0 was dealt 6H and hands it over only if the AI chose hearts (§2.7).
    expected_hand = 17 if view["state"]["trumps"][1] == "H" else 18
    assert (view["state"]["step"], view["to_act"], len(view["state"]["hand"])) == ("lead", [0], expected_hand)
