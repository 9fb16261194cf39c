"""A game's life around the moves (shared/API.md): leaving, rematches, private games with invitations, presence."""

from __future__ import annotations

import time

import pytest

from service.rematch import rematch_seat
from tests.engine.talmut.notation import E1
from tests.service.test_durak_http import K1

TWO_HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human"}]


def lobby(api, **query: str) -> list[str]:
    listed = api.request("GET", "/v1/games?" + "&".join(f"{key}={value}" for key, value in query.items())).json
    return [game["game_id"] for game in listed["games"]]


def join(api, game_id: str, **body):
    return api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Bob", **body})


def leave(api, game_id: str, token: str | None):
    return api.request("POST", f"/v1/games/{game_id}/leave", token)


def rematch(api, game_id: str, token: str | None, **body):
    return api.request("POST", f"/v1/games/{game_id}/rematch", token, json=body or None)


def finished_durak(api) -> tuple[str, list[str]]:
    game_id, tokens = api.create_humans(K1)
    assert api.act(game_id, tokens[1], {"type": "resign"}).json["status"] == "finished"
    return game_id, tokens


# --- private games and invitations -------------------------------------------------------------------------------


def test_a_private_game_is_never_listed_and_each_code_seats_one_player_once(api):
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}, {"kind": "human"}], game="talmut",
                         visibility="private")
    assert created.status_code == 201, created.json
    game_id, codes = created.json["game_id"], created.json["invites"]
    assert len(codes) == 2 and len(set(codes)) == 2 and created.json["invite"] == codes[0]
    assert created.json["visibility"] == "private" and all(len(code) >= 32 for code in codes)
    public = api.create(TWO_HUMANS, visibility="public").json
    assert "invites" not in public and "invite" not in public and public["visibility"] == "public"
    assert lobby(api) == [public["game_id"]]

    for body in ({}, {"invite": "not-a-code"}, {"invite": public["player_token"]}):
        refused = join(api, game_id, **body)
        assert (refused.status_code, refused.json["error"]) == (403, "invite_required"), body
    assert api.view(game_id).json["version"] == 1

    first = join(api, game_id, invite=codes[0])
    assert first.status_code == 201 and first.json["you"] == 1
    again = join(api, game_id, invite=codes[0], name="Eve")
    assert (again.status_code, again.json["error"]) == (403, "invite_required")
    second = join(api, game_id, invite=codes[1], name="Cid", seat=2)
    assert (second.status_code, second.json["status"], second.json["you"]) == (201, "active", 2)
    for status in ("waiting", "active", "finished"):
        assert game_id not in lobby(api, status=status)
        assert game_id not in lobby(api, status=status, game="talmut")
    assert api.view(game_id).json["visibility"] == "private"  # its id is the only way in, e.g. to watch


def test_one_code_seats_one_of_two_players_racing_for_it(api):
    created = api.create(TWO_HUMANS, visibility="private").json
    first, second = join(api, created["game_id"], invite=created["invite"]), join(
        api, created["game_id"], invite=created["invite"], name="Eve")
    assert [first.status_code, second.status_code] == [201, 403]


def test_a_public_game_ignores_no_invite_and_needs_none(api):
    created = api.create(TWO_HUMANS).json
    assert join(api, created["game_id"], invite="whatever").status_code == 201


# --- leaving ------------------------------------------------------------------------------------------------------


def test_leaving_a_waiting_game_frees_the_seat_and_the_last_player_deletes_it(api):
    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "human"}, {"kind": "human"}], game="talmut").json
    game_id, ann = created["game_id"], created["player_token"]
    bob = join(api, game_id).json["player_token"]
    left = leave(api, game_id, bob)
    assert left.status_code == 200
    assert left.json == {"game_id": game_id, "seat": 1, "outcome": "seat_freed", "version": 3}
    view = api.view(game_id).json
    assert view["seats"][1] == {"seat": 1, "kind": "human", "name": None, "open": True, "last_seen": None}
    assert api.view(game_id, bob).status_code == 401  # the token no longer holds a seat
    assert [event["type"] for event in api.request("GET", f"/v1/games/{game_id}/events?after=2").json["events"]] == [
        "left"
    ]
    assert game_id in lobby(api)
    assert join(api, game_id, name="Cid").json["you"] == 1

    lone = api.create(TWO_HUMANS).json
    deleted = leave(api, lone["game_id"], lone["player_token"])
    assert deleted.json == {"game_id": lone["game_id"], "seat": 0, "outcome": "game_deleted", "version": None}
    assert api.view(lone["game_id"]).status_code == 404 and lone["game_id"] not in lobby(api)
    assert leave(api, game_id, ann).json["outcome"] == "seat_freed"  # Cid stays: the creator may leave too


def test_leaving_a_private_waiting_game_gives_its_code_back(api):
    created = api.create([*TWO_HUMANS, {"kind": "human"}], game="talmut", visibility="private").json
    game_id, code = created["game_id"], created["invite"]
    bob = join(api, game_id, invite=code).json["player_token"]
    assert leave(api, game_id, bob).json["outcome"] == "seat_freed"
    again = join(api, game_id, invite=code, name="Eve")  # the same link works for whoever takes the seat now
    assert (again.status_code, again.json["you"], again.json["status"]) == (201, 1, "waiting")


def test_leaving_an_active_game_resigns(api):
    game_id, tokens = api.create_humans(K1)
    left = leave(api, game_id, tokens[1])
    assert left.json == {"game_id": game_id, "seat": 1, "outcome": "resigned", "version": 3}
    view = api.view(game_id).json
    assert (view["status"], view["result"]["winners"], view["result"]["reason"]) == ("finished", [0], "resign")
    events = api.request("GET", f"/v1/games/{game_id}/events?after=2").json["events"]
    assert [event["type"] for event in events][:1] == ["left"] and events[0]["seat"] == 1
    finished = leave(api, game_id, tokens[0])
    assert (finished.status_code, finished.json["error"]) == (409, "game_finished")
    assert leave(api, game_id, None).status_code == 401


def test_leaving_talmut_hands_the_seat_to_the_ai_and_leaving_again_changes_nothing(api):
    game_id, tokens = api.create_humans(E1.split(), game="talmut", seats=3)
    assert leave(api, game_id, tokens[2]).json["outcome"] == "resigned"
    view = api.view(game_id).json
    assert (view["status"], view["seats"][2]["kind"], view["seats"][2]["resigned"]) == ("active", "ai", True)
    again = leave(api, game_id, tokens[2])
    assert again.json == {"game_id": game_id, "seat": 2, "outcome": "resigned", "version": view["version"]}
    assert api.view(game_id).json["version"] == view["version"]


# --- rematch ------------------------------------------------------------------------------------------------------


ROTATES = {"durak": False, "svoi_koziri": True, "tadmur": True, "talmut": True}
"""Whether a rematch moves the players one seat on: where the rules fix who starts by seat (svoi_koziri.md §2.8,
tadmur.md §2.1, talmut.md §2.5), not where the deal decides it (durak.md §2.6)."""


@pytest.mark.parametrize("game", sorted(ROTATES))
def test_a_rematch_keeps_the_setup_and_rotates_the_seats_where_the_rules_let_seat_0_start(api, game):
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}, {"kind": "human"}]
    seats = seats if game == "talmut" else [seats[0], seats[2]]
    options = {"clock": {"turn_seconds": 60}}
    created = api.create(seats, game=game, options=options).json
    game_id, tokens = created["game_id"], [created["player_token"]]
    tokens.append(join(api, game_id).json["player_token"])
    humans = [number for number, seat in enumerate(seats) if seat["kind"] == "human"]
    api.act(game_id, tokens[0], {"type": "resign"})
    if game == "talmut":
        api.act(game_id, tokens[1], {"type": "resign"})
        api.run_ai()
    assert api.view(game_id).json["status"] == "finished"

    first = rematch(api, game_id, tokens[1], seed=7)
    assert first.status_code == 201, first.json
    new_id = first.json["game_id"]
    shift = 1 if ROTATES[game] else 0
    assert first.json["you"] == (humans[1] + shift) % len(seats)
    assert (first.json["game"], first.json["status"], first.json["visibility"]) == (game, "waiting", "private")
    assert first.json["clock"]["turn_seconds"] == 60
    for number, seat in enumerate(seats):
        entry = first.json["seats"][(number + shift) % len(seats)]
        assert entry["kind"] == seat["kind"] and entry.get("level") == seat.get("level")
    old = api.view(game_id).json
    assert old["rematch"] == {"game_id": new_id}
    assert [(e["type"], e["game_id"], e["seat"]) for e in api.request(
        "GET", f"/v1/games/{game_id}/events?after={old['version'] - 1}").json["events"]] == [
        ("rematch", new_id, humans[1])
    ]
    refused = join(api, new_id)
    assert (refused.status_code, refused.json["error"]) == (403, "invite_required")  # the seats are theirs

    repeated = rematch(api, game_id, tokens[1], seed=8)
    assert (repeated.status_code, repeated.json["game_id"], repeated.json["you"]) == (200, new_id, first.json["you"])
    assert repeated.json["player_token"] == first.json["player_token"] != tokens[1]
    second = rematch(api, game_id, tokens[0])
    assert second.status_code == 201 and second.json["game_id"] == new_id
    assert second.json["you"] == (humans[0] + shift) % len(seats) and second.json["status"] == "active"
    assert api.view(new_id, second.json["player_token"]).json["you"] == second.json["you"]


def test_a_freed_seat_of_a_rematch_gets_no_code_and_stays_its_players(api):
    """A rematch's seats are kept for the old game's players (service/rematch.py): unlike an invitation game's
    creator seat (tests/e2e/test_lifecycle.py), a seat freed there gets no code, and its player takes it again by
    asking for the rematch again."""
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "human"}, {"kind": "human"}, {"kind": "ai", "level": "easy"}]
    created = api.create(seats, game="talmut").json
    game_id, tokens = created["game_id"], [created["player_token"]]
    tokens += [join(api, game_id, name=name).json["player_token"] for name in ("Bob", "Cid")]
    for token in tokens:
        api.act(game_id, token, {"type": "resign"})
    api.run_ai()
    assert api.view(game_id).json["status"] == "finished"
    ann, bob = (rematch(api, game_id, token).json for token in tokens[:2])
    assert ann["status"] == "waiting" and "invites" not in ann
    assert leave(api, ann["game_id"], ann["player_token"]).json["outcome"] == "seat_freed"
    assert "invites" not in api.view(ann["game_id"], bob["player_token"]).json
    assert api.services.store.load(ann["game_id"]).invites == []
    again = rematch(api, game_id, tokens[0])
    assert (again.status_code, again.json["you"], again.json["game_id"]) == (201, ann["you"], ann["game_id"])


def test_a_rematch_deal_follows_its_seed(api):
    game_id, tokens = finished_durak(api)
    first = rematch(api, game_id, tokens[0], seed=42).json
    rematch(api, game_id, tokens[1])
    fresh = api.create(TWO_HUMANS, seed=42).json
    join(api, fresh["game_id"])
    hands = [api.view(view["game_id"], view["player_token"]).json["state"]["hand"] for view in (first, fresh)]
    assert hands[0] == hands[1]


def test_rematch_errors(api):
    game_id, tokens = api.create_humans(K1)
    refused = rematch(api, game_id, tokens[0])
    assert (refused.status_code, refused.json["error"]) == (409, "not_finished")
    waiting = api.create(TWO_HUMANS).json
    refused = rematch(api, waiting["game_id"], waiting["player_token"])
    assert (refused.status_code, refused.json["error"]) == (409, "not_finished")
    api.act(game_id, tokens[0], {"type": "resign"})
    assert rematch(api, game_id, None).status_code == 401
    assert rematch(api, game_id, "nobody").status_code == 401
    bad = rematch(api, game_id, tokens[0], seed=-1)
    assert (bad.status_code, bad.json["error"]) == (422, "invalid_request")
    assert api.view(game_id).json["rematch"] is None


def test_rotation_per_game():
    """durak.md §2.6 (the lowest trump starts: seats kept); svoi_koziri.md §2.8, tadmur.md §2.1, talmut.md §2.5
    (seat 0 starts: everyone moves one seat on)."""
    from service.records import GameRecord, SeatRecord

    def record(game: str, seats: int) -> GameRecord:
        return GameRecord("g", game, 1, "finished", 0.0, [SeatRecord("human")] * seats, {}, {})

    assert [rematch_seat(record("durak", 2), seat) for seat in (0, 1)] == [0, 1]
    assert [rematch_seat(record("svoi_koziri", 2), seat) for seat in (0, 1)] == [1, 0]
    assert [rematch_seat(record("tadmur", 2), seat) for seat in (0, 1)] == [1, 0]
    assert [rematch_seat(record("talmut", 4), seat) for seat in range(4)] == [1, 2, 3, 0]


# --- presence -----------------------------------------------------------------------------------------------------


def test_last_seen_is_each_seats_last_request_written_at_most_every_10_seconds(api, monkeypatch):
    from datetime import datetime

    created = api.create([{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], deck=K1).json
    game_id, token = created["game_id"], created["player_token"]
    assert [seat["last_seen"] for seat in created["seats"]] == [None, None]  # creating is no request of a seat

    class Clock:
        now = time.time()

        def time(self) -> float:
            return self.now

    clock = Clock()
    monkeypatch.setattr("service.auth.time", clock)
    start = clock.now
    api.view(game_id, token)
    seen = api.view(game_id).json["seats"]
    assert seen[1]["last_seen"] is None

    def last_seen() -> float:
        text = api.view(game_id).json["seats"][0]["last_seen"]
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()

    assert last_seen() == pytest.approx(start, abs=0.002)
    clock.now = start + 9
    api.view(game_id, token)
    assert last_seen() == pytest.approx(start, abs=0.002)  # within 10 s of the last write: none
    clock.now = start + 10.5
    api.act(game_id, token, {"type": "attack", "card": "6H"})
    assert last_seen() == pytest.approx(start + 10.5, abs=0.002)
    assert api.services.store.touch_seen(api.services.store.load(game_id), 0, start + 12, 10) is False
