"""Each game against the `easy` AI, created through the lobby and played to the end by clicking legal actions only
(the `data-action` hooks); the result shown is the API's. Screenshots at 360 and 1440 px; axe on every table."""

from __future__ import annotations

import json
from functools import partial

import pytest

from tests.browser.driver import (
    ROOT,
    api_view,
    axe_check,
    check_result_shown,
    create,
    offered,
    play_one,
    play_to_end,
    strings,
)

SETUPS = {
    "durak": ([], {}),
    "svoi_koziri": ([], {}),
    "tadmur": ([], {}),
    # three seats; a low target ends the game after the first round (every round ends at the call), no AI pause
    "talmut": (["easy"], {"target": 1, "match_pause_ms": 0}),
}


def test_the_lobby_offers_every_game_with_its_hooks(new_page):
    page = new_page()
    page.goto("/?lang=en")
    form = page.locator("form[data-create]")
    form.wait_for()
    options = form.locator("select[name=game] option")
    assert [options.nth(index).get_attribute("value") for index in range(options.count())] == [
        "durak", "svoi_koziri", "tadmur", "talmut"]
    assert form.locator("select[name=level]").count() == 1
    levels = form.locator("select[name=level] option")
    assert [levels.nth(index).get_attribute("value") for index in range(levels.count())] == [
        "random", "easy", "medium", "hard", "human"]
    form.locator("select[name=game]").select_option("talmut")
    form.locator("select[name=seats]").select_option("5")
    assert form.locator("select[name=level]").count() == 4
    assert form.locator("[name=option-deck_size] option").all_inner_texts() == ["40", "48"]
    assert form.locator("[name=option-target]").input_value() == "50"
    axe_check(page, "lobby")


@pytest.mark.parametrize("game", sorted(SETUPS))
def test_a_whole_game_against_easy_by_clicking_legal_actions(new_page, server, screenshots, game):
    text = strings("en")
    others, options = SETUPS[game]
    page = new_page()
    create(page, game, ["easy", *others], options)
    root = page.locator(ROOT)
    assert root.get_attribute("data-game") == game and root.get_attribute("data-you") == "0"
    page.wait_for_function("() => document.querySelector('section[data-game]').dataset.status === 'active'")
    # the table in play, at our first turn: everything offered is legal, and every legal action is offered (no game
    # ends before each player has moved once, so this is always checked and pictured)
    while not offered(page) and root.get_attribute("data-status") == "active":
        play_one(page, game)
    view = api_view(server.base_url, page)
    assert view["status"] == "active", f"the {game} game ended before our first move"
    canonical = partial(json.dumps, sort_keys=True)  # the stream's JSON and the GET's order keys differently
    shown = sorted(map(canonical, (body for _, body in offered(page))))
    assert shown == sorted(map(canonical, view["legal_actions"]))
    axe_check(page, f"{game} table")
    for width in (360, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, "no sideways scrolling"
        page.screenshot(path=screenshots / f"{game}-{width}.png", full_page=True)
    play_to_end(page, game)
    final = api_view(server.base_url, page)
    assert final["status"] == "finished" and root.get_attribute("data-version") == str(final["version"])
    check_result_shown(page, final, text)
    if game == "durak":  # the last bout's cards are in a hand by now: no bout is drawn as if it went on
        assert page.locator(f"{ROOT} .bout").count() == 0
    page.screenshot(path=screenshots / f"{game}-finished-1440.png", full_page=True)
    axe_check(page, f"{game} result")


def test_play_again_starts_the_same_setup(new_page, server):
    page = new_page()
    create(page, "talmut", ["easy", "random"], {"target": 1, "match_pause_ms": 0})
    first = page.url
    play_to_end(page, "talmut")
    page.locator("[data-result] button.again").click()
    page.wait_for_url(lambda url: "game=" in url and url != first)
    page.wait_for_selector(f"{ROOT}[data-status=active]")
    view = api_view(server.base_url, page)
    assert [(seat["kind"], seat.get("level")) for seat in view["seats"]] == [
        ("human", None), ("ai", "easy"), ("ai", "random")]


def test_a_whole_game_with_the_keyboard_only(new_page, server):
    """Tab to a legal action and press Enter, nothing else: the focus stays on the table between moves."""
    page = new_page()
    create(page, "durak", ["easy"])
    root = page.locator(ROOT)
    for _ in range(2000):
        # a move in flight (aria-busy) can end after the stream has already shown the AI's answer to it: the loop
        # waits for it to end, or it would skip its turn and wait for a version only its own move can bring
        page.locator(f"{ROOT}:not([aria-busy])").wait_for()
        if root.get_attribute("data-status") == "finished":
            break
        seen = int(root.get_attribute("data-version"))
        if page.query_selector(f"{ROOT} .felt [data-action]"):
            for _ in range(80):
                focused = page.evaluate("document.activeElement.dataset.action || ''")
                if focused and '"resign"' not in focused:
                    break
                page.keyboard.press("Tab")
            else:
                raise AssertionError("no legal action reachable with Tab")
            page.keyboard.press("Enter")
        page.wait_for_function(
            "seen => { const root = document.querySelector('section[data-game]');"
            " return root.dataset.status === 'finished' || Number(root.dataset.version) > seen; }", arg=seen)
    assert api_view(server.base_url, page)["status"] == "finished"
    assert page.locator("[data-result] h2").inner_text()


def test_cards_are_named_in_the_language_of_the_page(new_page, server):
    ru = strings("ru")
    page = new_page(locale="ru-RU")  # the browser's language picks Russian; no ?lang needed
    page.goto("/")
    # the page sets its language once the strings are loaded, after the load event; the settings panel comes next
    page.locator(".site-header details.settings").wait_for()
    assert page.get_attribute("html", "lang") == "ru"
    create(page, "durak", ["easy"], lang="ru")
    page.wait_for_selector(f"{ROOT}[data-status=active]")
    hand = api_view(server.base_url, page)["state"]["hand"]
    labels = page.locator(f"{ROOT} .seat.bottom .hand [data-card]")
    shown = {labels.nth(index).get_attribute("data-card"): labels.nth(index).get_attribute("aria-label")
             for index in range(labels.count())}
    assert sorted(shown) == sorted(hand)
    for code, label in shown.items():
        name = ru["card.french.name"].replace("{rank}", ru[f"card.french.rank.{code[:-1]}"]).replace(
            "{suit}", ru[f"card.french.suit.{code[-1]}"])
        assert name in label, (code, label)
    assert "Валет" in ru["card.french.rank.J"] and "червей" in ru["card.french.suit.H"]
