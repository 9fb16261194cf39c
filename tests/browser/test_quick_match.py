"""Quick match in the lobby (docs/api-additions.md "Quick match"): two browsers (each with its own storage) ask for
a Tadmur table with "a friend" as the other seat, wait, and are seated at the same table; a third cancels."""

from __future__ import annotations

from tests.browser.driver import ROOT, strings


def ask(page, game: str, level: str) -> None:
    """Choose `game` and the other seat's `level` in the lobby's form, then click "Quick match"."""
    page.goto("/?lang=en")
    form = page.locator("form[data-create]")
    form.locator("select[name=game]").select_option(game)
    form.locator("select[name=level]").select_option(level)
    form.locator("button[data-quick-match]").click()


def test_two_quick_matches_meet_at_one_table_and_a_cancelled_one_takes_no_seat(new_page, server):
    text = strings("en")
    ann = new_page()
    ask(ann, "tadmur", "human")  # no fallback: only another player completes the table
    status = ann.locator("[data-quick-status]")
    status.filter(has_text=text["lobby.quick_waiting"]).wait_for()
    assert ann.locator("button[data-quick-match]").is_disabled()
    bob = new_page(width=360)
    ask(bob, "tadmur", "human")
    for page, seat in ((ann, "0"), (bob, "1")):
        page.wait_for_selector(f"{ROOT}[data-game=tadmur][data-status=active][data-you='{seat}']")
    assert ann.url.split("game=")[1].split("&")[0] == bob.url.split("game=")[1].split("&")[0]

    carol = new_page()
    ask(carol, "tadmur", "human")
    carol.locator("[data-quick-status]").filter(has_text=text["lobby.quick_waiting"]).wait_for()
    carol.locator("button[data-quick-cancel]").click()
    carol.wait_for_function("() => !document.querySelector('button[data-quick-match]').disabled")
    assert carol.locator("[data-quick-status]").inner_text() == ""
    assert carol.locator("button[data-quick-cancel]").is_hidden()
    dave = new_page()
    ask(dave, "tadmur", "human")  # the cancelled ticket is no table for the next one
    dave.locator("[data-quick-status]").filter(has_text=text["lobby.quick_waiting"]).wait_for()
    dave.wait_for_timeout(1000)
    assert "game=" not in dave.url
    dave.locator("button[data-quick-cancel]").click()
    dave.wait_for_function("() => !document.querySelector('button[data-quick-match]').disabled")
