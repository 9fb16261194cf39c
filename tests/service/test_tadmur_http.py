"""shared/rules/tadmur.md §8 scenarios through the HTTP API with an exact `deck`, and the hidden targets."""

from __future__ import annotations

from engine.redaction import codes_in
from tests.engine.tadmur.test_scenarios import D1, D2, D3, RANKS
from tests.notation import steps

D1_CODES, D2_CODES, D3_CODES = D1.split(), D2.split(), D3.split()
D1_HANDS = (
    "2H 2D 2C 3H 3C 4D 5D 6H 6D 7H 7D 8S 8H 9H 9D 10S 10H JS JH QH QD KS KD AD".split(),
    "2S 3S 3D 4S 4H 4C 5S 5C 6S 6C 7S 7C 8C 9C 10D 10C JD JC QS QC KH AS AH AC".split(),
)
"""tadmur.md §8, deck D1: the two hands as dealt."""
D2_CLIMB = (
    "s0 place 6C, s1 place 10H, s0 place 7C, s1 place JH, s0 place 8C, s1 place QH, s0 place 9C, s1 place KH, "
    "s0 place 8D, s1 place QD, s0 place 7D"
)
"""tadmur.md §8.6 and §8.7: the placements both scenarios begin with on deck D2."""
GUESSES = [{"type": "guess", "rank": rank} for rank in RANKS]
PASS, RESIGN = {"type": "pass"}, {"type": "resign"}


def places(text):
    return [{"type": "place", "card": code} for code in text.split()]


def play(api, game_id, tokens, text):
    return api.play(game_id, tokens, steps(text))


def legal(api, game_id, token):
    return api.legal(game_id, token)


def refused(api, game_id, tokens, text, status=422, error="illegal_action"):
    """Post the one step `text` (e.g. `s0 pass`) with that seat's token; expect it refused with nothing changed."""
    ((seat, action),) = steps(text)
    return api.refused(game_id, tokens[seat], action, status, error)


def targets(view):
    return [row["target"] for row in view["state"]["rows"]]


def rows(view, key):
    """One field of both rows, e.g. `rows(view, "empty") == [1, 2]`."""
    return [row[key] for row in view["state"]["rows"]]


def outcome(winner, reason):
    """The `result` of tadmur.md §5.1 and §5.2; `winner` None is a draw."""
    if winner is None:
        return {"winners": [], "losers": [], "draw": True, "scores": {"0": 0, "1": 0}, "reason": reason}
    scores = {str(seat): int(seat == winner) for seat in (0, 1)}
    return {"winners": [winner], "losers": [1 - winner], "draw": False, "scores": scores, "reason": reason}


def test_deal_views_and_turn_order_d1(api):
    """tadmur.md §8.1, §8.10, §6.4: the exact view, hidden targets and hands, 403 out of turn, resign, 409."""
    game_id, tokens = api.create_humans(D1_CODES, game="tadmur")
    view = api.view(game_id, tokens[0]).json
    assert view["state"] == {
        "dealer": 1,
        "turn": 0,
        "guessed_this_turn": False,
        "guessing_locked": False,
        "idle_turns": 0,
        "rows": [
            {"seat": 0, "starter": "5H", "chain": [], "spaces": 7, "empty": 7, "target": "9S", "wrong_guesses": []},
            {"seat": 1, "starter": "KC", "chain": [], "spaces": 7, "empty": 7, "target": None, "wrong_guesses": []},
        ],
        "hand": D1_HANDS[0],
    }
    assert [seat["hand_size"] for seat in view["seats"]] == [24, 24]
    assert view["to_act"] == [0]
    assert view["legal_actions"] == places("4D 6H 6D") + GUESSES + [RESIGN]
    assert len(view["legal_actions"]) == 17
    seat1 = api.view(game_id, tokens[1]).json
    assert targets(seat1) == [None, "8D"] and seat1["state"]["hand"] == D1_HANDS[1]
    assert seat1["legal_actions"] == []
    spectator = api.view(game_id).json
    assert targets(spectator) == [None, None] and spectator["state"]["hand"] is None
    assert [seat["hand_size"] for seat in spectator["seats"]] == [24, 24]

    refused(api, game_id, tokens, "s1 place AS", 403, "not_your_turn")
    bad = api.act(game_id, tokens[0], {"type": "guess", "rank": "1"})
    assert (bad.status_code, bad.json["error"]) in {(400, "invalid_request"), (422, "invalid_request")}
    finished = play(api, game_id, tokens, "s1 resign")
    assert finished["result"] == outcome(0, "resign")
    assert targets(api.view(game_id).json) == ["9S", "8D"]
    for text in ("s0 place 6H", "s0 guess 8", "s1 resign"):
        refused(api, game_id, tokens, text, 409, "game_finished")


def test_ace_wrap_then_correct_guess_d1(api):
    """tadmur.md §8.2 (A is adjacent to K, J is not) and §8.5 (`s1 guess 9` right after, the refusal changed
    nothing): a correct guess wins, and the spectator then sees both targets.
    """
    game_id, tokens = api.create_humans(D1_CODES, game="tadmur")
    play(api, game_id, tokens, "s0 place 6H")
    assert legal(api, game_id, tokens[1]) == places("QS QC AS AH AC") + GUESSES + [RESIGN]
    refused(api, game_id, tokens, "s1 place JD")
    view = play(api, game_id, tokens, "s1 guess 9")
    assert view["result"] == outcome(1, "correct_guess")
    assert view["status"] == "finished" and view["to_act"] == []
    assert targets(api.view(game_id).json) == ["9S", "8D"]


def test_guessing_ban_and_chain_win_d1(api):
    """tadmur.md §8.3, §3.8: no guesses while a row has one empty space (422); the last card links to the target."""
    game_id, tokens = api.create_humans(D1_CODES, game="tadmur")
    view = play(
        api,
        game_id,
        tokens,
        "s0 place 6H, s1 place AS, s0 place 7H, s1 place 2S, s0 place 8H, s1 place 3S, s0 place 9H, s1 place 4S, "
        "s0 place 10H, s1 place 5S",
    )
    assert view["state"]["guessing_locked"] is False
    assert legal(api, game_id, tokens[0]) == places("9D JS JH") + GUESSES + [RESIGN]
    view = play(api, game_id, tokens, "s0 place JH")
    assert view["state"]["guessing_locked"] is True and rows(view, "empty") == [1, 2]
    assert legal(api, game_id, tokens[1]) == places("4H 4C 6S 6C") + [RESIGN]
    refused(api, game_id, tokens, "s1 guess 9")
    play(api, game_id, tokens, "s1 place 6S")
    assert legal(api, game_id, tokens[0]) == places("10S") + [RESIGN]
    assert "9S" not in refused(api, game_id, tokens, "s0 place QD")["message"]
    view = play(api, game_id, tokens, "s0 place 10S")
    assert view["result"] == outcome(0, "chain_complete")
    for token in (*tokens, None):
        assert targets(api.view(game_id, token).json) == ["9S", "8D"]


def test_wrong_guess_d1(api):
    """tadmur.md §8.4, §3.6, §3.7, §3.9: a wrong guess adds a space, the same seat then must place, and the rank
    can never be guessed again by that seat.
    """
    game_id, tokens = api.create_humans(D1_CODES, game="tadmur")
    view = play(api, game_id, tokens, "s0 guess Q")
    row = view["state"]["rows"][0]
    assert (row["spaces"], row["empty"], row["wrong_guesses"]) == (8, 8, ["Q"])
    assert view["to_act"] == [0] and view["state"]["guessed_this_turn"] is True
    assert legal(api, game_id, tokens[0]) == places("4D 6H 6D") + [RESIGN]
    refused(api, game_id, tokens, "s0 pass")
    refused(api, game_id, tokens, "s0 guess K")  # at most one guess a turn (§4.3)
    play(api, game_id, tokens, "s0 place 6H, s1 place AS")
    guesses = [guess for guess in GUESSES if guess["rank"] != "Q"]
    assert legal(api, game_id, tokens[0]) == places("5D 7H 7D") + guesses + [RESIGN] and len(guesses) == 12
    refused(api, game_id, tokens, "s0 guess Q")


def test_unreachable_targets_end_in_stalemate_d2(api):
    """tadmur.md §8.6, §3.12, §3.11: targets one rank from the starters cannot be completed in 7 spaces."""
    game_id, tokens = api.create_humans(D2_CODES, game="tadmur")
    play(api, game_id, tokens, D2_CLIMB)
    assert legal(api, game_id, tokens[1]) == places("JS JD KS KC") + [RESIGN]
    view = play(api, game_id, tokens, "s1 place JD")
    assert rows(view, "empty") == [1, 1]
    assert legal(api, game_id, tokens[0]) == [PASS, RESIGN]
    view = play(api, game_id, tokens, "s0 pass")
    assert view["state"]["idle_turns"] == 1
    assert legal(api, game_id, tokens[1]) == [PASS, RESIGN]
    view = play(api, game_id, tokens, "s1 pass")
    assert view["result"] == outcome(None, "stalemate")


def test_wrong_guess_fixes_parity_d2(api):
    """tadmur.md §8.7: a wrong guess adds a space; seat 1 is stuck at its last space, seat 0 completes 8 cards."""
    game_id, tokens = api.create_humans(D2_CODES, game="tadmur")
    view = play(api, game_id, tokens, "s0 guess Q")
    assert rows(view, "spaces") == [8, 7] and rows(view, "wrong_guesses") == [["Q"], []]
    play(api, game_id, tokens, f"{D2_CLIMB}, s1 place JD, s0 place 6D")
    assert legal(api, game_id, tokens[1]) == [PASS, RESIGN]
    play(api, game_id, tokens, "s1 pass")
    assert legal(api, game_id, tokens[0]) == places("5S 5C 7S 7H") + [RESIGN]
    view = play(api, game_id, tokens, "s0 place 7H")
    assert view["result"] == outcome(0, "chain_complete")
    assert view["state"]["rows"][0]["chain"] == "6C 7C 8C 9C 8D 7D 6D 7H".split()


def test_idle_turns_and_a_guess_in_a_passing_turn_d3(api):
    """tadmur.md §8.8, §3.11, §7.11: a turn with a wrong guess and a pass is not idle; two idle turns draw.
    On the way no event shows a target to a viewer who may not see it; `game_ended` reveals both (§6.1-§6.3).
    """
    game_id, tokens = api.create_humans(D3_CODES, game="tadmur")
    assert legal(api, game_id, tokens[0]) == GUESSES + [PASS, RESIGN]
    assert play(api, game_id, tokens, "s0 pass")["state"]["idle_turns"] == 1
    assert legal(api, game_id, tokens[1]) == GUESSES + [PASS, RESIGN]
    view = play(api, game_id, tokens, "s1 guess 5")
    assert rows(view, "spaces") == [7, 8] and view["to_act"] == [1]
    assert legal(api, game_id, tokens[1]) == [PASS, RESIGN]
    for viewer, hidden in ((tokens[0], "4H"), (tokens[1], "KD"), (None, "KD")):
        events = api.request("GET", f"/v1/games/{game_id}/events", viewer).json["events"]
        assert hidden not in set(codes_in(events))
    assert {"type": "guessed", "seat": 1, "rank": "5", "correct": False, "spaces": 8}.items() <= events[-1].items()
    for text, idle_turns in (("s1 pass", 0), ("s0 pass", 1)):
        assert play(api, game_id, tokens, text)["state"]["idle_turns"] == idle_turns
    view = play(api, game_id, tokens, "s1 pass")
    assert view["result"] == outcome(None, "stalemate")
    ended = api.request("GET", f"/v1/games/{game_id}/events").json["events"][-1]
    assert (ended["type"], ended["targets"]) == ("game_ended", ["KD", "4H"])


def test_guess_with_no_placement_wins_d3(api):
    """tadmur.md §8.9, §7.11: seat 0 cannot place at all, and wins at once by naming seat 1's target rank."""
    game_id, tokens = api.create_humans(D3_CODES, game="tadmur")
    view = play(api, game_id, tokens, "s0 guess 4")
    assert view["result"] == outcome(0, "correct_guess")
    assert targets(api.view(game_id).json) == ["KD", "4H"]


def test_invalid_decks_and_options(api):
    """tadmur.md §8.11: 51 cards, a duplicate, `10h` -> 422 invalid_deck; any option -> invalid_request."""
    humans = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
    for deck in (D1_CODES[:-1], D1_CODES[:-1] + ["AD"], ["10h" if code == "10H" else code for code in D1_CODES]):
        response = api.create(humans, game="tadmur", deck=deck)
        assert (response.status_code, response.json["error"]) == (422, "invalid_deck")
    response = api.create(humans, game="tadmur", options={"spaces": 5})
    assert response.status_code in (400, 422) and response.json["error"] == "invalid_request"
