""" "Opponent away" and the Claim button (docs/api-additions.md "Presence and claims") in real Chromium, in real time.

A two-human Durak game with the shortest `claim_after_seconds` (service/presence.py `MIN_SECONDS`, 30 s): Ann, to
act, is seen once by the API and goes away; Bob's table shows her away once 30 s have passed, hides it when she
comes back (a request of hers, which no new version tells the stream), shows it again 30 s after that, and Bob's
click on Claim wins the game. The server's clock is not driven: the waits are the option's, checked by the page's
own reads of the view; each wait's timeout is ten times it (a hang guard).
"""

from __future__ import annotations

import time
from datetime import datetime

import requests

from service.presence import MIN_SECONDS
from tests.browser.driver import ROOT, api_view, check_result_shown, open_seat, say, seated_game, strings
from tests.service.test_durak_http import K1

AWAY = f"{ROOT} .away[data-away]"
GUARD_MS = 10 * MIN_SECONDS * 1000


def seen(base_url: str, game_id: str, token: str) -> float:
    """One request with `token` (its seat is seen); the seat's `last_seen` as the server stored it, Unix seconds."""
    view = requests.get(f"{base_url}/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert view.status_code == 200, view.text
    stamp = view.json()["seats"][view.json()["you"]]["last_seen"]
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def test_bob_sees_ann_away_and_claims_the_game(new_page, server, screenshots):
    text = strings("en")
    body = {
        "game": "durak",
        "seats": [{"kind": "human", "name": "Ann"}, {"kind": "human"}],
        "deck": K1,
        "options": {"claim_after_seconds": MIN_SECONDS},
    }
    game_id, (ann, bob_token) = seated_game(server.base_url, body, ["Ann", "Bob"])
    left = seen(server.base_url, game_id, ann)  # Ann, to attack (K1), looks once and goes away
    bob = new_page()
    open_seat(bob, game_id, 1, bob_token)
    assert bob.locator(AWAY).is_hidden()  # she was seen a moment ago
    bob.wait_for_selector(f"{AWAY}:not([hidden])", timeout=GUARD_MS)
    assert time.time() >= left + MIN_SECONDS  # not before the server would accept the claim
    before, after = say(text, "away.text", name="Ann", time="@").split("@")
    shown = bob.locator(f"{AWAY} span").inner_text()  # how long: 0:30 or a second or two more
    assert shown.startswith(before + "0:3") and shown.endswith(after), shown
    bob.screenshot(path=str(screenshots / "claim-away.png"))

    # Ann comes back without moving: no version tells Bob's stream, the page's own read of the view does
    back = seen(server.base_url, game_id, ann)
    assert back > left
    bob.wait_for_selector(f"{AWAY}[hidden]", state="attached", timeout=GUARD_MS)
    bob.wait_for_selector(f"{AWAY}:not([hidden])", timeout=GUARD_MS)
    assert time.time() >= back + MIN_SECONDS

    bob.locator(f"{AWAY} button[data-claim]").click()
    bob.wait_for_selector(f"{ROOT}[data-status=finished]")
    view = api_view(server.base_url, bob)
    assert view["result"]["winners"] == [1] and view["result"]["reason"] == "resign"
    check_result_shown(bob, view, text)
    assert bob.locator(AWAY).is_hidden()
    bob.locator(".log li", has_text=say(text, "log.claimed", by="You", who="Ann")).wait_for()
