"""A two-player Durak game in two browser contexts (two browsers, each with its own storage) through the join
link: the creator picks "a friend", sends the link, the friend takes the seat, and they play to the end."""

from __future__ import annotations

from tests.browser.driver import ROOT, api_view, check_result_shown, create, play_one, strings, version


def test_durak_against_a_friend_through_the_join_link(new_page, server):
    text = strings("en")
    ann = new_page()
    create(ann, "durak", ["human"])
    assert ann.get_attribute(ROOT, "data-status") == "waiting"
    link = ann.locator("input[name=join-link]").input_value()
    assert "/?join=" in link and "token" not in link.lower()
    game_id = link.split("join=")[1]
    assert ann.evaluate(f"localStorage.getItem('cardroom.seats.{game_id}')") not in link

    bob = new_page(width=360)
    bob.goto(link)
    join = bob.locator("form[data-join]")
    join.locator("input[name=name]").fill("Bob")
    join.locator("button[type=submit]").click()
    bob.wait_for_selector(f"{ROOT}[data-status=active][data-you='1']")
    ann.wait_for_selector(f"{ROOT}[data-status=active]")  # the stream told the creator

    for _ in range(3000):
        # both tables at the same version, then exactly one of them offers moves (durak.md §4.1)
        latest = max(version(ann), version(bob))
        for page in (ann, bob):
            page.wait_for_function("v => Number(document.querySelector('section[data-game]').dataset.version) >= v",
                                   arg=latest)
        if ann.get_attribute(ROOT, "data-status") == "finished":
            break
        (actor,) = [page for page in (ann, bob) if page.query_selector(f"{ROOT} .felt [data-action]")]
        play_one(actor, "durak")
    else:
        raise AssertionError("the game did not end")
    for page in (ann, bob):
        page.wait_for_selector(f"{ROOT}[data-status=finished]")
        check_result_shown(page, api_view(server.base_url, page), text)
    names = ann.locator("[data-result] table.scores tbody th").all_inner_texts()
    assert names == ["You", "Bob"]
    # the other player's moves came by the push stream, not by polling
    requested = ann.evaluate("performance.getEntriesByType('resource').map(entry => entry.name)")
    assert any(url.endswith(f"/v1/games/{game_id}/stream") for url in requested)
    assert not any("after_version=" in url for url in requested)

