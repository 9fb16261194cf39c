"""Presence and claims (issue 41 point 4, docs/api-additions.md "Presence and claims") through the HTTP API.

The app runs in the test's process on the real Redis; the service's clock (`time` in service/auth.py, which
stamps `last_seen`, in service/routes/claim.py, which judges a claim, and in service/turns.py, which stamps a
game's creation) is a `FakeTime` the test moves, so every time below is the server's own arithmetic. The e2e
test (tests/e2e/test_claim.py) claims on real gunicorn and workers, in real time.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES
from service.auth import PRESENCE_SECONDS
from service.clocks import utc_iso
from service.presence import MAX_SECONDS, MIN_SECONDS
from tests.engine.talmut.notation import E1
from tests.service.test_clocks import FakeTime
from tests.service.test_durak_http import K1

AFTER = 60
SPEC = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime(1_800_000_000.0)
    for where in ("service.auth.time", "service.routes.claim.time", "service.turns.time", "service.seating.time"):
        monkeypatch.setattr(where, fake)
    return fake


def moment(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def humans(
    api, game: str = "durak", seats: int = 2, options: dict[str, Any] | None = None, deck: list[str] | None = None
) -> tuple[str, list[str]]:
    """A game of human seats, every seat taken, created with `options` (default: claims after `AFTER` s)."""
    body: dict[str, Any] = {"options": {"claim_after_seconds": AFTER} if options is None else options}
    if deck is not None:
        body["deck"] = deck
    created = api.create([{"kind": "human", "name": f"P{n}"} for n in range(seats)], game=game, **body)
    assert created.status_code == 201, created.json
    game_id, tokens = created.json["game_id"], [created.json["player_token"]]
    for number in range(1, seats):
        joined = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": f"P{number}"})
        assert joined.status_code == 201, joined.json
        tokens.append(joined.json["player_token"])
    return game_id, tokens


def claim(api, game_id: str, token: str | None):
    return api.request("POST", f"/v1/games/{game_id}/claim", token)


def refused_claim(api, game_id: str, token: str | None, status: int, error: str) -> Any:
    """Claim, expect `status` and `error`, check that nothing changed; the response."""
    before = api.view(game_id).json["version"]
    response = claim(api, game_id, token)
    assert (response.status_code, response.json["error"]) == (status, error), response.json
    assert api.view(game_id).json["version"] == before
    return response


def events(api, game_id: str) -> list[dict[str, Any]]:
    return api.request("GET", f"/v1/games/{game_id}/events").json["events"]


# --- the option ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [MIN_SECONDS - 1, MAX_SECONDS + 1, 0, -5, "60", 60.5, True, None, [60]])
def test_claim_after_seconds_out_of_range_or_not_an_integer_is_422(api, value):
    created = api.create([{"kind": "human"}, {"kind": "human"}], options={"claim_after_seconds": value})
    assert (created.status_code, created.json["error"]) == (422, "invalid_request"), created.json
    assert "claim_after_seconds" in created.json["errors"]["json"]["options"]


def test_claim_after_seconds_with_a_clock_is_422(api):
    created = api.create(
        [{"kind": "human"}, {"kind": "human"}], options={"claim_after_seconds": 60, "clock": {"turn_seconds": 30}}
    )
    assert (created.status_code, created.json["error"]) == (422, "invalid_request")
    assert created.json["errors"]["json"]["options"] == {"claim_after_seconds": ["claim needs a game without a clock"]}


@pytest.mark.parametrize("value", [MIN_SECONDS, MAX_SECONDS])
def test_the_bounds_are_accepted_and_every_game_takes_the_option(api, value):
    for game in GAMES:
        seats = [{"kind": "human"}] + [{"kind": "ai", "level": "easy"}] * (GAMES[game].SEATS.start - 1)
        created = api.create(seats, game=game, options={"claim_after_seconds": value})
        assert created.status_code == 201, (game, created.json)
        assert created.json["claim"]["after_seconds"] == value


# --- last_seen and the view's claim block --------------------------------------------------------------------------


def test_a_view_without_the_option_has_no_claim_block_and_ai_seats_are_never_seen(api, clock):
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], deck=K1).json
    game_id, token = created["game_id"], created["player_token"]
    view = api.view(game_id, token).json
    assert "claim" not in view
    assert [seat["last_seen"] for seat in view["seats"]] == [utc_iso(clock.now), None]


def test_the_claim_block_names_the_awaited_seat_and_when_it_may_be_claimed(api, clock):
    created_at = clock.now
    game_id, tokens = humans(api, deck=K1)
    # nobody has made a request with a seat's token: seat 0, to attack, counts as away since the game was created
    assert api.view(game_id).json["claim"] == {
        "after_seconds": AFTER,
        "seats": [{"seat": 0, "from": utc_iso(created_at + AFTER)}],
    }
    clock.now += 5
    view = api.view(game_id, tokens[0]).json
    assert view["seats"][0]["last_seen"] == utc_iso(clock.now)
    assert view["claim"]["seats"] == [{"seat": 0, "from": utc_iso(clock.now + AFTER)}]
    # the turn passes: now seat 1 is awaited, seen never (joining is no request with its token)
    clock.now += 5
    after = api.act(game_id, tokens[0], {"type": "attack", "card": "6H"}).json
    assert after["claim"]["seats"] == [{"seat": 1, "from": utc_iso(created_at + AFTER)}]


def test_the_etag_is_the_version_alone_presence_moves_without_one(api, clock):
    game_id, tokens = humans(api, deck=K1)
    first = api.view(game_id)
    clock.now += 20
    api.view(game_id, tokens[0])  # seat 0 is seen: its last_seen moves, the version does not
    again = api.view(game_id, **{"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304
    fresh = api.view(game_id).json
    assert fresh["version"] == first.json["version"]
    assert fresh["seats"][0]["last_seen"] == utc_iso(clock.now)
    assert first.json["seats"][0]["last_seen"] is None


def test_a_mark_another_process_wrote_first_delays_this_process_s_next_by_no_more_than_the_interval(api, clock):
    game_id, tokens = humans(api, deck=K1)
    start = clock.now
    # the seat's request served by another process (another gunicorn worker) writes its presence at `start`
    api.services.store.touch_seen(api.services.store.load(game_id), 0, start, PRESENCE_SECONDS)
    clock.now = start + PRESENCE_SECONDS - 0.1
    api.view(game_id, tokens[0])  # here: Redis refuses this mark, the other one is too recent
    clock.now = start + 2 * PRESENCE_SECONDS - 0.2
    api.view(game_id, tokens[0])  # 19.8 s after the last mark written: this one must be
    assert api.view(game_id).json["seats"][0]["last_seen"] == utc_iso(clock.now)


def test_a_mark_the_record_shows_another_process_wrote_is_not_asked_for_again(api, clock, monkeypatch):
    """The record read with a request holds every seat's mark: one written within the interval by another process
    is not asked for again (Redis would refuse it: a script call for nothing), nor until the interval ends."""
    game_id, tokens = humans(api, deck=K1)
    store = api.services.store
    start = clock.now
    store.touch_seen(store.load(game_id), 0, start, PRESENCE_SECONDS)  # another gunicorn worker's mark
    asked: list[float] = []
    touch_seen = type(store).touch_seen
    monkeypatch.setattr(type(store), "touch_seen",
                        lambda self, record, seat, now, every: (asked.append(now), touch_seen(self, record, seat, now,
                                                                                              every))[1])
    clock.now = start + PRESENCE_SECONDS - 1
    api.view(game_id, tokens[0])
    clock.now = start + PRESENCE_SECONDS - 0.5
    api.view(game_id, tokens[0])
    assert asked == []
    clock.now = start + PRESENCE_SECONDS
    api.view(game_id, tokens[0])
    assert asked == [start + PRESENCE_SECONDS]
    assert api.view(game_id).json["seats"][0]["last_seen"] == utc_iso(clock.now)


def test_a_move_records_its_players_presence_in_its_own_write(api, clock, monkeypatch):
    """A move 20 s after its seat was last seen writes the mark with the record: no presence script of its own
    (at human pace one move in two or three made one), and every view shows the move's time."""
    game_id, tokens = humans(api, deck=K1)
    api.view(game_id, tokens[0])
    store = api.services.store
    asked: list[float] = []
    touch_seen = type(store).touch_seen
    monkeypatch.setattr(type(store), "touch_seen",
                        lambda self, record, seat, now, every: (asked.append(now), touch_seen(self, record, seat, now,
                                                                                              every))[1])
    clock.now += 20
    moved = api.act(game_id, tokens[0], {"type": "attack", "card": "6H"})
    assert moved.status_code == 200 and moved.json["seats"][0]["last_seen"] == utc_iso(clock.now)
    assert asked == []
    assert api.view(game_id).json["seats"][0]["last_seen"] == utc_iso(clock.now)
    assert store.load(game_id).last_seen[0] == clock.now
    clock.now += 20
    refused = api.act(game_id, tokens[0], {"type": "attack", "card": "6H"})  # seat 1 defends now: not yours
    assert refused.status_code == 403 and asked == [clock.now]  # a refused move still shows its player here
    assert api.view(game_id).json["seats"][0]["last_seen"] == utc_iso(clock.now)


def test_the_next_player_of_a_freed_seat_is_seen_at_once(api, clock):
    # a waiting Talmut game: Bob takes seat 1, is seen, leaves; Cy takes the seat 5 s later and reads the game
    created = api.create([{"kind": "human"}] * 3, game="talmut", options={"claim_after_seconds": AFTER}).json
    game_id = created["game_id"]
    bob = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Bob"}).json["player_token"]
    api.view(game_id, bob)
    assert api.request("POST", f"/v1/games/{game_id}/leave", bob).json["outcome"] == "seat_freed"
    assert api.view(game_id).json["seats"][1]["last_seen"] is None
    clock.now += 5
    cy = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Cy", "seat": 1}).json["player_token"]
    api.view(game_id, cy)
    assert api.view(game_id).json["seats"][1]["last_seen"] == utc_iso(clock.now)


def test_a_stream_marks_its_seat_present(api, clock):
    game_id, tokens = humans(api, deck=K1)
    response = api.request("GET", f"/v1/games/{game_id}/stream", tokens[1])
    chunks = response.response
    assert next(chunks).startswith(b"retry:")
    assert b"event: view" in next(chunks)
    response.close()
    assert api.view(game_id).json["seats"][1]["last_seen"] == utc_iso(clock.now)


# --- claims --------------------------------------------------------------------------------------------------------


def test_a_claim_comes_only_after_the_time_and_wins_a_two_seat_game(api, clock):
    game_id, tokens = humans(api, deck=K1)
    api.view(game_id, tokens[0])  # seat 0, to act, is seen now ...
    seen = clock.now
    clock.now = seen + AFTER - 0.5  # ... and claimed against half a second too early
    too_early = refused_claim(api, game_id, tokens[1], 409, "claim_too_early")
    assert too_early.headers["Retry-After"] == "1"
    assert set(too_early.json) <= set(SPEC["components"]["schemas"]["Error"]["properties"])  # no extra key
    clock.now = seen + AFTER - 20.2
    assert refused_claim(api, game_id, tokens[1], 409, "claim_too_early").headers["Retry-After"] == "21"
    clock.now = seen + AFTER
    claimed = claim(api, game_id, tokens[1])
    assert claimed.status_code == 200, claimed.json
    view = claimed.json
    assert view["you"] == 1 and view["status"] == "finished"
    assert claimed.headers["ETag"] == f'"{view["version"]}"'
    assert view["result"]["winners"] == [1] and view["result"]["losers"] == [0]
    assert view["result"]["reason"] == "resign"
    assert view["claim"]["seats"] == []
    last = [event for event in events(api, game_id) if event["version"] == view["version"]]
    assert [event["type"] for event in last] == ["claimed", "resigned", "game_ended"]
    assert last[0] == {"version": view["version"], "type": "claimed", "seat": 0, "by": 1}
    refused_claim(api, game_id, tokens[1], 409, "game_finished")


def test_a_seat_taken_late_is_away_only_from_when_it_was_taken(api, clock):
    # Ann waits five minutes for an opponent; Bob's joining is his first sign of life, not his absence since creation
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}], deck=K1,
                         options={"claim_after_seconds": AFTER}).json
    game_id, ann = created["game_id"], created["player_token"]
    clock.now += 5 * AFTER
    joined_at = clock.now
    assert api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Bob"}).status_code == 201
    attacked = api.act(game_id, ann, api.legal(game_id, ann)[0])
    assert attacked.status_code == 200, attacked.json
    assert attacked.json["claim"]["seats"] == [{"seat": 1, "from": utc_iso(joined_at + AFTER)}]
    assert refused_claim(api, game_id, ann, 409, "claim_too_early").headers["Retry-After"] == str(AFTER)
    clock.now = joined_at + AFTER
    claimed = claim(api, game_id, ann)
    assert claimed.status_code == 200, claimed.json
    assert claimed.json["result"]["winners"] == [0]


def test_a_claim_at_the_from_the_view_shows_succeeds(api, clock):
    # a real clock is never on a whole millisecond: the seat is seen 0.4 ms past one
    clock.now = 1_800_000_000.0004
    game_id, tokens = humans(api, deck=K1)
    claimable = api.view(game_id, tokens[0]).json["claim"]["seats"]
    assert [entry["seat"] for entry in claimable] == [0]
    clock.now = moment(claimable[0]["from"])
    assert clock.now >= 1_800_000_000.0004 + AFTER  # never before the moment the judge counts
    claimed = claim(api, game_id, tokens[1])
    assert claimed.status_code == 200, claimed.json


def test_a_request_of_the_absent_seat_puts_the_claim_off(api, clock):
    game_id, tokens = humans(api, deck=K1)
    start = clock.now
    api.view(game_id, tokens[0])
    clock.now = start + AFTER - 10
    api.request("GET", f"/v1/games/{game_id}/events", tokens[0])  # any authenticated request counts
    clock.now = start + AFTER + 1
    assert refused_claim(api, game_id, tokens[1], 409, "claim_too_early").headers["Retry-After"] == str(AFTER - 11)
    clock.now = start + 2 * AFTER - 10
    assert claim(api, game_id, tokens[1]).status_code == 200


def test_only_another_seated_player_claims(api, clock):
    game_id, tokens = humans(api, deck=K1)
    clock.now += AFTER + 1
    refused_claim(api, game_id, None, 401, "unauthorized")  # a spectator
    refused_claim(api, game_id, "not-a-token-of-this-game", 401, "unauthorized")
    other_game, other_tokens = humans(api, deck=K1)
    refused_claim(api, game_id, other_tokens[1], 401, "unauthorized")  # a seat of another game
    refused_claim(api, game_id, tokens[0], 403, "not_your_claim")  # the seat the game waits for ...
    refused_claim(api, game_id, tokens[1], 409, "claim_too_early")  # ... which that request showed present
    clock.now += AFTER
    assert claim(api, game_id, tokens[1]).status_code == 200


def test_never_on_a_clocked_game_nor_without_the_option(api, clock):
    clocked, tokens = humans(api, options={"clock": {"turn_seconds": 60}}, deck=K1)
    plain, plain_tokens = humans(api, options={}, deck=K1)
    clock.now += MAX_SECONDS + 1
    for game_id, seat_tokens in ((clocked, tokens), (plain, plain_tokens)):
        refused_claim(api, game_id, seat_tokens[1], 409, "claim_not_allowed")
        assert "claim" not in api.view(game_id).json


def test_a_waiting_game_and_an_ai_turn_are_not_claimed(api, clock):
    created = api.create([{"kind": "human"}, {"kind": "human"}], options={"claim_after_seconds": AFTER}).json
    clock.now += AFTER + 1
    refused_claim(api, created["game_id"], created["player_token"], 409, "game_not_started")
    # Talmut, a human and two AI seats: while an AI seat is to act nobody is awaited
    seats = [{"kind": "ai", "level": "easy"}, {"kind": "human"}, {"kind": "ai", "level": "easy"}]
    talmut = api.create(seats, game="talmut", deck=E1.split(), options={"claim_after_seconds": AFTER}).json
    assert talmut["to_act"] == [0] and talmut["claim"]["seats"] == []
    refused_claim(api, talmut["game_id"], talmut["player_token"], 409, "claim_not_allowed")


@pytest.mark.parametrize("game", sorted(name for name in GAMES if GAMES[name].SEATS.start == 2))
def test_a_claim_in_a_two_seat_game_is_the_absent_seats_resignation(api, clock, game):
    game_id, tokens = humans(api, game=game)
    awaited = api.view(game_id).json["claim"]["seats"]
    assert len(awaited) == 1
    absent = awaited[0]["seat"]
    clock.now += AFTER
    claimed = claim(api, game_id, tokens[1 - absent])
    assert claimed.status_code == 200, claimed.json
    assert claimed.json["result"]["winners"] == [1 - absent]
    assert claimed.json["result"]["reason"] == "resign"


def test_talmut_with_three_seats_goes_on_without_the_absent_seat(api, clock):
    game_id, tokens = humans(api, game="talmut", seats=3, deck=E1.split())
    start = clock.now
    for token in tokens[1:]:
        api.view(game_id, token)
    view = api.view(game_id).json
    assert view["to_act"] == [0] and view["claim"]["seats"] == [{"seat": 0, "from": utc_iso(start + AFTER)}]
    clock.now = start + AFTER
    claimed = claim(api, game_id, tokens[2])
    assert claimed.status_code == 200, claimed.json
    view = claimed.json
    assert view["status"] == "active" and view["result"] is None  # talmut.md §3.17: the game goes on
    assert view["seats"][0]["kind"] == "ai" and view["seats"][0]["resigned"] is True
    api.run_ai()  # the AI plays seat 0's turn
    after = api.view(game_id, tokens[1]).json
    assert after["version"] > view["version"] and after["to_act"] != [0]
    # the resigned player's token claims nothing: its seat is the AI's
    refused_claim(api, game_id, tokens[0], 403, "not_your_claim")
    assert moment(after["seats"][2]["last_seen"]) == clock.now
