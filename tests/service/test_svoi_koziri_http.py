"""shared/rules/svoi_koziri.md §8 scenarios through the HTTP API with an exact `deck`."""

from __future__ import annotations

import pytest

from tests.notation import steps

V1 = (
    "6S 9S 7S JS 8S KS 10S 7H QS 9H AS JH 6H QH 8H KH 10H AH 7D 6D 9D 8D JD 10D KD QD 7C AD 9C 6C 10C 8C JC QC KC AC"
).split()
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
        "active",
        [0],
        "choose_trump",
        [],
    )
    assert view["legal_actions"] == [{"type": "choose_trump", "suit": s} for s in "SHDC"] + [{"type": "resign"}]
    assert legal(api, game_id, tokens[1]) == []
    refused(api, game_id, tokens[1], "s1 choose_trump D", 403, "not_your_turn")

    play(api, game_id, tokens, "s0 choose_trump S")
    assert legal(api, game_id, tokens[1]) == [{"type": "choose_trump", "suit": s} for s in "HDC"] + [{"type": "resign"}]
    refused(api, game_id, tokens[1], "s1 choose_trump S", 422, "illegal_action")
    view = play(api, game_id, tokens, "s1 choose_trump H")
    assert view["state"]["hand"] == SEAT1_V1 and view["state"]["sixes_passed"] == ["6H", None]
    assert [seat["hand_size"] for seat in view["seats"]] == [17, 19]
    seat0 = "6S 7S 8S 10S QS AS 8H 10H 7D 9D JD KD 7C 9C 10C JC KC"
    assert legal(api, game_id, tokens[0]) == [*cards("lead", seat0), {"type": "resign"}]

    play(api, game_id, tokens, "s0 lead 10C")
    assert api.view(game_id, tokens[1]).json["state"] == {
        "step": "respond",
        "trumps": ["S", "H"],
        "sixes_passed": ["6H", None],
        "pile": ["10C"],
        "hand": SEAT1_V1,
        "hand_sizes": [16, 19],
        "revealed_hands": None,
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
    events = {
        viewer: api.request("GET", f"/v1/games/{game_id}/events", token).json["events"]
        for viewer, token in ((0, tokens[0]), (1, tokens[1]), (None, None))
    }
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
        "7S 8S 10S QS AS 6H 8H 10H 6D 7D 9D JD KD 7C 9C 10C JC KC".split()
    )
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
    assert view["result"] == {
        "winners": [0],
        "losers": [1],
        "draw": False,
        "scores": {"0": 1, "1": 0},
        "reason": "resign",
    }
    assert view["state"]["revealed_hands"] == [[], []] and view["state"]["step"] is None
    for seat, action in steps("s0 choose_trump S, s1 resign"):
        response = api.act(game_id, tokens[seat], action)
        assert (response.status_code, response.json["error"]) == (409, "game_finished")


def test_rules_offer_the_game_and_the_ai_plays_its_seat(api):
    """`GET /v1/rules/svoi_koziri`; an `easy` AI in seat 1 chooses its trump and answers through the worker."""
    rules = api.request("GET", f"/v1/rules/{GAME}").json
    assert (rules["options"], rules["ai_levels"], rules["seats"]) == (
        {},
        ["random", "easy", "medium", "hard"],
        {"min": 2, "max": 2},
    )
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


# --- §8.4-§8.11: the positions, reached by play ------------------------------------------------------------------
# Over HTTP a position is reached from a crafted deck (top first) and an opening played after
# `s0 choose_trump S, s1 choose_trump H`. Each pair was found by a throwaway backward search over the rules and
# replayed through the engine. Keys name the scenario (in §8.10 the variant: seat 1's hand). The pile bottom (`…`) is in
# canonical order, as the rules write it, except in CANONICAL_BOTTOM_NOT_FOUND: there the search found no opening for
# it, and the bottom is in another order that nothing the scenario checks depends on.
POSITIONS = {
    "8.4": (
        "6S 10S 7S JS 8S QS 9S 7H KS 10H AS JH 6H 6D 8H 8D 9H 9D "
        "QH JD KH KD AH AD 7D 6C 10D 7C QD 9C 8C 10C KC JC AC QC",
        "s0 lead 8S, s1 beat QS, s1 play 9C, s0 beat 6S, s0 play 7S, s1 beat 6H, s1 play 10C, s0 beat AC, "
        "s0 play AH, s1 take, s0 lead 9S, s1 beat 10S, s1 play JS, s0 beat KS, s0 play AS, s1 beat 6H, s1 play 7H, "
        "s0 beat 8H, s0 play 9H, s1 beat 10H, s1 play JH, s0 beat QH, s0 play KH, s1 beat AH, s1 play 6D, "
        "s0 beat 10D, s0 play QD, s1 beat KD, s1 play 7C, s0 beat KC, s0 play 8C, s1 beat AC, s1 play 8S, s0 take, "
        "s1 beat AD, s1 play 6C, s0 beat 7C, s0 play 8C, s1 beat 9C, s1 play 10C, s0 beat KC, s0 play 7D, "
        "s1 beat JD, s1 play QS, s0 take, s1 beat JC, s1 play QC, s0 beat KC, s0 play 7D, s1 beat 9D, s1 play 6S, "
        "s0 beat 8S, s0 play 10C",
    ),
    "8.5": (
        "6S 8S 7S KS 9S 6H 10S 7H JS 9H QS 10H AS JH 8H AH QH 7D "
        "KH 8D 6D 10D 9D QD JD KD AD 7C 6C 8C 9C 10C QC JC KC AC",
        "s0 lead 7S, s1 beat AH, s1 play 7H, s0 beat QH, s0 play KH, s1 take, s0 lead 6D, s1 beat 10D, s1 play AC, "
        "s0 beat 9S, s0 play AS, s1 beat JH, s1 play KS, s0 take, s1 beat QH, s1 play 7C, s0 beat KC, s0 play 6C, "
        "s1 beat 10H, s1 play 8C, s0 beat JS, s0 play AD, s1 beat 7H, s1 play KD, s0 beat AS, s0 play JH, "
        "s1 beat KH, s1 play QD, s0 beat 9S, s0 play 9C, s1 beat AH, s1 play JC, s0 beat QC, s0 play 10S, "
        "s1 beat 9H, s1 play 7D, s0 beat 9D, s0 play 6S, s1 beat 8S, s1 play 10C, s0 beat KS, s0 play 8H",
    ),
    "8.6": (
        "8S 6S 9S 7S 10S QS JS 6H KS 7H AS 8H 9H 10H JH QH AH KH "
        "9D 6D JD 7D KD 8D AD 10D 6C QD 7C 8C QC 9C KC 10C AC JC",
        "s0 lead KS, s1 beat QH, s1 play KH, s0 beat AS, s0 play JH, s1 take, s0 lead AH, s1 take, s0 lead 7C, "
        "s1 beat JH, s1 play 6D, s0 beat 9D, s0 play KC, s1 beat AH, s1 play QS, s0 take, s1 beat QH, s1 play QD, "
        "s0 beat JS, s0 play AD, s1 beat 7H, s1 play 9C, s0 beat KC, s0 play 9S, s1 beat AS, s1 play 10C, "
        "s0 beat QC, s0 play 8S, s1 beat KS, s1 play JC, s0 beat 6S, s0 play 6D, s1 beat 10D, s1 play 8C, "
        "s0 beat 10S, s0 play KD, s1 beat KH, s1 play 8H, s0 beat 9H, s0 play 6C, s1 beat 10H, s1 play 7D, "
        "s0 beat 9D, s0 play AH",
    ),
    "8.7": (
        "6S 7S 8S 9S JS 10S KS QS AS 6D 6H 8D 7H 9D 8H 10D 9H QD "
        "10H KD JH AD QH 7C KH 8C AH 9C 7D 10C JD JC 6C QC AC KC",
        "s0 lead 6C, s1 beat 9C, s1 play KD, s0 beat JS, s0 play 10H, s1 take, s0 lead 7D, s1 beat 6H, "
        "s1 play 10H, s0 beat AS, s0 play 8S, s1 beat QS, s1 play 10C, s0 beat 6S, s0 play KS, s1 take, s0 take, "
        "s1 beat 9D, s1 play 6S, s0 beat 8S, s0 play AS",
    ),
    "8.8": (
        "10S 6S KS 7S AS 8S 7H 9S 8H JS 9H QS 10H 6H JH KH QH 7D "
        "AH 8D 6D 9D 10D JD 6C QD 10C KD JC AD QC 7C KC 8C AC 9C",
        "s0 lead 6D, s1 beat AD, s1 play 7C, s0 beat KC, s0 play 10D, s1 beat QD, s1 play JS, s0 beat KS, "
        "s0 play 6C, s1 beat 8C, s1 play JD, s0 beat 10S, s0 play 6S, s1 beat 7S, s1 play 9S, s0 beat AS, "
        "s0 play AH, s1 take, s0 lead AC, s1 beat 6H, s1 play KC, s0 take, s1 lead 9C, s0 beat 10C, s0 play 7H, "
        "s1 beat KH, s1 play AH, s0 take",
    ),
    "8.9 beat": (
        "6S 7S 8S 9S 10S JS KS QS 6H AS 8H 7H 9H 10H QH JH KH 6D "
        "AH 10D 7D JD 8D AD 9D 9C QD 10C KD JC 6C QC 7C KC 8C AC",
        "s0 lead 8D, s1 beat 7H, s1 play 9C, s0 beat 8S, s0 play 6C, s1 beat 10C, s1 play 10D, s0 beat KD, "
        "s0 play AH, s1 take, s0 lead 6S, s1 beat 8S, s1 play 9S, s0 beat 10S, s0 play KS, s1 beat AS, s1 play JC, "
        "s0 take, s1 beat JS, s1 play QS, s0 beat KS, s0 play AS, s1 beat 6H, s1 play 7H, s0 beat 8H, s0 play 9H, "
        "s1 beat 10H, s1 play JH, s0 beat QH, s0 play KH, s1 beat AH, s1 play 6D, s0 beat 7D, s0 play 9D, "
        "s1 beat KD, s1 play QC, s0 take, s1 beat 10D, s1 play JD, s0 beat QD, s0 play KD, s1 beat AD, s1 play 6C, "
        "s0 beat 7C, s0 play 8C, s1 beat 9C, s1 play 10C, s0 beat JC, s0 play QC, s1 beat AC, s1 play 8D",
    ),
    "8.9 lead": (
        "6S 9S 7S JS 8S KS 10S 6H QS 7H AS 9H 8H KH 10H JD JH QD "
        "QH KD AH AD 6D 6C 7D 7C 8D 8C 9D 9C 10D 10C QC JC AC KC",
        "s0 lead 6D, s1 beat 9H, s1 play KH, s0 beat 10S, s0 play 10D, s1 beat JD, s1 play 7C, s0 beat AC, "
        "s0 play 8H, s1 take, s0 beat AS, s0 play 10H, s1 take, s0 beat 8S, s0 play 7D, s1 beat AD, s1 play 6C, "
        "s0 beat QC, s0 play JH, s1 beat KH, s1 play 10D, s0 beat 6S, s0 play 8D, s1 beat KD, s1 play 8H, "
        "s0 beat QH, s0 play QS, s1 beat 6H, s1 play 7C, s0 beat 7S, s0 play AH, s1 take",
    ),
    "8.10 9D": (
        "6S 7S 9S 8S 10S JS KS QS AS 6H 8H 7H 9H 10H QH JH KH AH "
        "7D 6D 8D 9D 10D JD QD AD KD 6C 7C 8C JC 9C KC 10C AC QC",
        "s0 lead 6S, s1 beat 7S, s1 play 8S, s0 beat 9S, s0 play 10S, s1 beat JS, s1 play QS, s0 beat KS, "
        "s0 play AS, s1 beat 6H, s1 play 7H, s0 beat 8H, s0 play 9H, s1 beat 10H, s1 play JH, s0 beat QH, "
        "s0 play KH, s1 beat AH, s1 play 6D, s0 beat 8D, s0 play 10D, s1 beat JD, s1 play 6C, s0 beat KC, "
        "s0 play AC, s1 take, s0 beat QD, s0 play KD, s1 beat AD, s1 play 6C, s0 beat 7C, s0 play JC, s1 beat KC, "
        "s1 play QC, s0 take, s1 beat 8C, s1 play 9C, s0 beat JC, s0 play QC, s1 beat AC, s1 play 10C",
    ),
    "8.10 AH": (
        "6S 7S 9S 8S 10S JS QS 6H KS 7H AS 9H 8H 10H AH JH 7D QH "
        "8D KH 9D 6D JD 10D QD AD KD 6C 7C 9C 8C 10C JC QC KC AC",
        "s0 lead 8C, s1 beat 9C, s1 play 10C, s0 beat KC, s0 play JD, s1 beat JH, s1 play 6C, s0 beat QS, "
        "s0 play AH, s1 take, s0 lead 6S, s1 beat 7S, s1 play 8S, s0 beat 9S, s0 play 10S, s1 beat JS, s1 play QS, "
        "s0 beat KS, s0 play AS, s1 beat 6H, s1 play 7H, s0 beat 8H, s0 play 7D, s1 beat JH, s1 play QH, s0 take, "
        "s1 beat 9H, s1 play 10H, s0 beat JH, s0 play QH, s1 beat KH, s1 play 6D, s0 beat 8D, s0 play 9D, "
        "s1 beat 10D, s1 play JD, s0 beat QD, s0 play KD, s1 beat AD, s1 play 6C, s0 beat 7C, s0 play JC, "
        "s1 beat KC, s1 play QC, s0 take, s1 beat 8C, s1 play 9C, s0 beat JC, s0 play QC, s1 beat AC, s1 play 10C",
    ),
    "8.10 6D": (
        "6S 7S 9S 8S 10S JS KS QS AS 6H 8H 7H 9H 10H QH JH KH AH "
        "7D 6D 9D 8D 10D JD QD AD KD 6C 7C 8C 10C 9C JC QC AC KC",
        "s0 lead 6S, s1 beat 7S, s1 play 8S, s0 beat 9S, s0 play 10S, s1 beat JS, s1 play QS, s0 beat KS, "
        "s0 play AS, s1 beat 6H, s1 play 7H, s0 beat 8H, s0 play 9H, s1 beat 10H, s1 play JH, s0 beat QH, "
        "s0 play KH, s1 beat AH, s1 play 8D, s0 beat 9D, s0 play 10D, s1 beat JD, s1 play 9C, s0 beat 10C, "
        "s0 play AC, s1 take, s0 beat QD, s0 play KD, s1 beat AD, s1 play 6C, s0 beat 7C, s0 play JC, s1 beat QC, "
        "s1 play KC, s0 take, s1 beat 8C, s1 play 9C, s0 beat JC, s0 play QC, s1 beat AC, s1 play 10C",
    ),
    "8.10 7S": (
        "6S 8S 7S 9S 10S QS JS 6H KS 7H AS 10H 8H JH 9H QH KH 6D "
        "AH 7D 8D 10D 9D JD QD 6C KD 8C AD 9C 7C 10C JC QC KC AC",
        "s0 lead AD, s1 beat 7H, s1 play JD, s0 beat KS, s0 play KC, s1 beat 6H, s1 play 9C, s0 beat 7S, "
        "s0 play AH, s1 take, s0 lead 6S, s1 beat 8S, s1 play 9S, s0 beat 10S, s0 play JS, s1 beat QS, s1 play KS, "
        "s0 beat AS, s0 play 8H, s1 beat QH, s1 play KC, s0 take, s1 beat 6H, s1 play 7H, s0 beat 8H, s0 play 9H, "
        "s1 beat 10H, s1 play JH, s0 beat QH, s0 play KH, s1 beat AH, s1 play 6D, s0 beat 8D, s0 play 9D, "
        "s1 beat 10D, s1 play JD, s0 beat QD, s0 play KD, s1 beat AD, s1 play 6C, s0 beat 7C, s0 play JC, "
        "s1 beat QC, s1 play 7D, s0 take, s1 beat 8C, s1 play 9C, s0 beat JC, s0 play QC, s1 beat AC, s1 play 10C",
    ),
    "8.10 9D 6C": (
        "6S JS 7S QS 8S KS 9S 7H 10S 9H AS 10H 6H JH 8H QH KH 8D "
        "AH 9D 6D 10D 7D QD JD KD AD 6C 9C 7C JC 8C QC 10C KC AC",
        "s0 lead 8H, s1 beat QH, s1 play 9H, s0 beat AH, s0 play KH, s1 take, s0 lead 6D, s1 beat QD, s1 play KS, "
        "s0 beat AS, s0 play 8S, s1 beat QS, s1 play JS, s0 take, s1 beat 6H, s1 play 8C, s0 beat JS, s0 play JC, "
        "s1 beat AC, s1 play KD, s0 beat 8S, s0 play QC, s1 beat 9H, s1 play 10D, s0 beat 9S, s0 play AD, "
        "s1 beat QH, s1 play 8D, s0 beat JD, s0 play 7S, s1 beat AH, s1 play 7H, s0 beat AS, s0 play QS, "
        "s1 beat 10H, s1 play JH, s0 beat 10S, s0 play KS, s1 beat KH, s1 play 7C, s0 beat 9C, s0 play 6S, "
        "s1 beat 8H, s1 play 10C",
    ),
    "8.11": (
        "AS 6S 7H 7S 8H 8S 9H 9S 10H 10S AH JS 6D QS 7D KS 8D 6H "
        "9D JH JD QH AD KH 7C 10D 8C QD 9C KD 10C 6C JC KC QC AC",
        "s0 lead 7C, s1 beat KC, s1 play 6C, s0 beat QC, s0 play JD, s1 beat JH, s1 play JS, s0 beat AS, "
        "s0 play 6S, s1 beat 10S, s1 play KH, s0 beat AH, s0 play 9D, s1 beat 6H, s1 play QH, s0 take, s1 take, "
        "s0 lead JC, s1 beat JH, s1 play KH, s0 take, s1 lead 7C, s0 beat 9C, s0 play 6D, s1 beat AH, s1 play 6C, "
        "s0 beat 8C, s0 play AD, s1 take, s0 take",
    ),
}
RANKS = "6 7 8 9 10 J Q K A".split()
CANONICAL = [rank + suit for suit in "SHDC" for rank in RANKS]
CANONICAL_BOTTOM_NOT_FOUND = {"8.5", "8.6", "8.10 9D 6C"}
SEAT_0_WINS = {"winners": [0], "losers": [1], "draw": False, "scores": {"0": 1, "1": 0}, "reason": "out_of_cards"}
DRAWN = {"winners": [], "losers": [], "draw": True, "scores": {"0": 0, "1": 0}}


def reach(api, scenario):
    """A game at the position of `scenario` (a key of POSITIONS); returns (game_id, tokens)."""
    deck, opening = POSITIONS[scenario]
    game_id, tokens = api.create_humans(deck.split(), game=GAME)
    play(api, game_id, tokens, f"s0 choose_trump S, s1 choose_trump H, {opening}")
    return game_id, tokens


def hand(text, *others):
    """Codes in hand order; `…` is every card not in `others` (the other hand and the pile)."""
    listed = set(" ".join(others).split())
    codes = [code for code in CANONICAL if code not in listed] if text == "…" else text.split()
    return sorted(codes, key=CANONICAL.index)


def position(api, game_id, tokens):
    """(seat 0's hand, seat 1's hand, pile, step, to_act) as each seat sees the game."""
    views = [api.view(game_id, token).json for token in tokens]
    state = views[0]["state"]
    return state["hand"], views[1]["state"]["hand"], state["pile"], state["step"], views[0]["to_act"]


def check_position(api, game_id, tokens, scenario, seat0, seat1, pile, to_act):
    """The §8 position: both hands, the pile as the rules write it (bottom first), the seat to act and the step.

    `…` in the pile is every card not listed elsewhere, in canonical order; for the scenarios in
    CANONICAL_BOTTOM_NOT_FOUND only the pile's size and its listed top cards are compared.
    """
    listed = pile.replace("…", "")
    expected = [*(hand("…", seat0, seat1, listed) if "…" in pile else []), *listed.split()]
    hand0, hand1, shown, step, acting = position(api, game_id, tokens)
    assert (hand0, hand1) == (hand(seat0, seat1, listed), hand(seat1, seat0, listed))
    if scenario in CANONICAL_BOTTOM_NOT_FOUND:
        top = len(listed.split())
        expected, shown = (len(expected), expected[len(expected) - top :]), (len(shown), shown[len(shown) - top :])
    assert (shown, step, acting) == (expected, "respond" if pile else "lead", [to_act])


def took(api, game_id):
    """The cards of the last `took` event, bottom first (public, svoi_koziri.md §6.1)."""
    events = api.request("GET", f"/v1/games/{game_id}/events").json["events"]
    return [event for event in events if event["type"] == "took"][-1]["cards"]


def actions(text):
    """`take, resign` or `beat QS, beat JD, resign` -> the listed action bodies."""
    return [action for _, action in steps(", ".join(f"s0 {item}" for item in text.split(", ")))]


def test_take_three(api):
    """svoi_koziri.md §8.4 (§3.6, §3.7)."""
    game_id, tokens = reach(api, "8.4")
    check_position(api, game_id, tokens, "8.4", "QS JD AC", "7S 8D", "… 7D 9D 6S 8S 10C", to_act=1)
    assert legal(api, game_id, tokens[1]) == actions("take, resign")
    play(api, game_id, tokens, "s1 take")
    assert took(api, game_id) == ["6S", "8S", "10C"]
    check_position(api, game_id, tokens, "8.4", "QS JD AC", "6S 7S 8S 8D 10C", "… 7D 9D", to_act=0)
    assert legal(api, game_id, tokens[0]) == actions("beat QS, beat JD, resign")


def test_take_five_when_the_own_trump_is_on_top(api):
    """svoi_koziri.md §8.5 (§3.6), with the five taken cards in a reachable order.

    The rules list the pile as `… 7D 9D KS 6S 8S 10C 8H`, which play cannot leave with seat 1 to face 8H: seat 0
    cannot have played 8H on 10C (10C does not beat 8S, so it was no beat of seat 0), and a take by seat 0 uncovering
    8H would put the taken cards into its final hand `QS JD AC`, emptying it before the take. The test uses
    `… 7D 9D 6S 8S 10C KS 8H`: the same five cards taken, 8H on top, 9D the new top, 25 cards left.
    """
    game_id, tokens = reach(api, "8.5")
    check_position(api, game_id, tokens, "8.5", "QS JD AC", "7S 6H 8D", "… 7D 9D 6S 8S 10C KS 8H", to_act=1)
    assert legal(api, game_id, tokens[1]) == actions("take, resign")
    play(api, game_id, tokens, "s1 take")
    assert took(api, game_id) == ["6S", "8S", "10C", "KS", "8H"]
    check_position(api, game_id, tokens, "8.5", "QS JD AC", "6S 7S 8S KS 6H 8H 8D 10C", "… 7D 9D", to_act=0)


def test_own_trump_ace_takes_the_whole_pile(api):
    """svoi_koziri.md §8.6 (§3.6, §3.7: an emptied pile means the other seat leads)."""
    game_id, tokens = reach(api, "8.6")
    check_position(api, game_id, tokens, "8.6", "QS JD AC", "7S 6H 8D", "… 7D 9D AH", to_act=1)
    assert legal(api, game_id, tokens[1]) == actions("take, resign")
    play(api, game_id, tokens, "s1 take")
    assert len(took(api, game_id)) == 30
    check_position(api, game_id, tokens, "8.6", "QS JD AC", "…", "", to_act=0)
    assert legal(api, game_id, tokens[0]) == actions("lead QS, lead JD, lead AC, resign")


def test_the_opponents_trump_ace_is_plain(api):
    """svoi_koziri.md §8.7 (§3.6, §7.8)."""
    game_id, tokens = reach(api, "8.7")
    seat0 = "QS 6H 7H 8H 9H 10H JH QH KH AH JD AC"
    check_position(api, game_id, tokens, "8.7", seat0, "…", "7D 9D 6S 8S AS", to_act=1)
    assert legal(api, game_id, tokens[1]) == actions("take, resign")
    play(api, game_id, tokens, "s1 take")
    assert took(api, game_id) == ["6S", "8S", "AS"]
    check_position(api, game_id, tokens, "8.7", seat0, "…", "7D 9D", to_act=0)
    assert legal(api, game_id, tokens[0]) == actions("beat QS, beat JD, resign")


def test_fewer_cards_than_the_count(api):
    """svoi_koziri.md §8.8 (§3.6: the whole pile when it is smaller), with the pile `9C 10C` for `9D 10C`.

    No play leaves 10C directly on 9D: a card laid on the bottom card beats it, and 10C beats 9D for neither seat.
    9C takes 9D's place (seat 1 holds 9D instead); after the take seat 1 holds the same 23 cards as in the rules.
    """
    game_id, tokens = reach(api, "8.8")
    seat0 = "6H 7H 8H 9H 10H JH QH KH AH JC QC KC AC"
    check_position(api, game_id, tokens, "8.8", seat0, "…", "9C 10C", to_act=1)
    assert len(hand("…", seat0, "9C 10C")) == 21
    assert legal(api, game_id, tokens[1]) == actions("take, resign")
    play(api, game_id, tokens, "s1 take")
    assert took(api, game_id) == ["9C", "10C"]
    check_position(api, game_id, tokens, "8.8", seat0, "…", "", to_act=0)
    assert legal(api, game_id, tokens[0]) == [*cards("lead", seat0), {"type": "resign"}]


def test_going_out_by_a_beat_or_a_lead(api):
    """svoi_koziri.md §8.9 (§3.5: no `play` after the last card, §3.8, §7.11)."""
    game_id, tokens = reach(api, "8.9 beat")
    check_position(api, game_id, tokens, "8.9 beat", "9D", "7S KC", "… 8D", to_act=0)
    assert legal(api, game_id, tokens[0]) == actions("beat 9D, resign")
    view = play(api, game_id, tokens, "s0 beat 9D")
    assert (view["status"], view["to_act"], view["state"]["step"]) == ("finished", [], None)
    assert view["result"] == SEAT_0_WINS
    assert api.view(game_id).json["state"]["revealed_hands"] == [[], ["7S", "KC"]]
    assert legal(api, game_id, tokens[0]) == [] and legal(api, game_id, tokens[1]) == []

    game_id, tokens = reach(api, "8.9 lead")
    check_position(api, game_id, tokens, "8.9 lead", "9D", "…", "", to_act=0)
    assert legal(api, game_id, tokens[0]) == actions("lead 9D, resign")
    assert play(api, game_id, tokens, "s0 lead 9D")["result"] == SEAT_0_WINS


@pytest.mark.parametrize("seat1", ["9D", "AH", "6D", "7S", "9D 6C"])
def test_the_single_last_card(api, seat1):
    """svoi_koziri.md §8.10 (§3.8, §7.10): 9D or AH must answer and the game is drawn; 6D, 7S (spades are plain for
    seat 1) or two cards cannot, and seat 0 wins at once."""
    game_id, tokens = reach(api, f"8.10 {seat1}")
    check_position(api, game_id, tokens, f"8.10 {seat1}", "KC 7D", seat1, "… 10C", to_act=0)
    assert legal(api, game_id, tokens[0]) == actions("beat KC, resign")
    view = play(api, game_id, tokens, "s0 beat KC")
    assert view["state"]["step"] == "play" and legal(api, game_id, tokens[0]) == actions("play 7D, resign")
    view = play(api, game_id, tokens, "s0 play 7D")
    if seat1 in ("6D", "7S", "9D 6C"):
        assert (view["status"], view["result"]) == ("finished", SEAT_0_WINS)
        return
    assert (view["status"], view["state"]["step"], view["to_act"]) == ("active", "respond", [1])
    assert legal(api, game_id, tokens[1]) == actions(f"beat {seat1}, resign")
    view = play(api, game_id, tokens, f"s1 beat {seat1}")
    assert view["result"] == {**DRAWN, "reason": "draw"}


def test_repetition(api):
    """svoi_koziri.md §8.11 (§3.9): the third recording of a post-take position draws, at the 20th action.

    The position at the start of C can only arise from a take, which would record it once before the cycle. So the
    opening instead ends one action into the first C, at the position after `s0 lead 7C` (reached by a take of seat 0
    that leaves 7C, a position C never records); the opening's earlier takes record nothing C repeats.
    """
    seat0 = "6H 7H 8H 9H 10H JH QH KH AH 7C 9C 10C JC 6D 7D 8D 9D"
    seat1 = "6S 7S 8S 9S 10S JS QS KS AS 6C 8C QC KC AC 10D JD QD KD AD"
    game_id, tokens = reach(api, "8.11")
    check_position(api, game_id, tokens, "8.11", seat0.replace("7C ", ""), seat1, "7C", to_act=1)
    assert legal(api, game_id, tokens[1]) == actions("beat 8C, beat QC, beat KC, beat AC, resign")
    play(api, game_id, tokens, "s1 beat 8C, s1 play AD")
    assert legal(api, game_id, tokens[0]) == actions("take, resign")
    play(api, game_id, tokens, "s0 take, s1 lead 6C")
    assert legal(api, game_id, tokens[0]) == actions("beat 7C, beat 8C, beat 9C, beat 10C, beat JC, resign")
    play(api, game_id, tokens, "s0 beat 8C, s0 play AD, s1 take")
    check_position(api, game_id, tokens, "8.11", seat0, seat1, "", to_act=0)  # the position, after the first C
    view = play(
        api, game_id, tokens, "s0 lead 7C, s1 beat 8C, s1 play AD, s0 take, s1 lead 6C, s0 beat 8C, s0 play AD, s1 take"
    )
    assert (view["status"], view["result"]) == ("active", None)
    view = play(api, game_id, tokens, "s0 lead 7C, s1 beat 8C, s1 play AD, s0 take")
    assert view["result"] == {**DRAWN, "reason": "repetition"}
