"""The "Download game" link of a finished table saves its export (and a Durak game's move list), in real Chromium."""

from __future__ import annotations

import json

import requests

from tests.browser.driver import ROOT, api_view, create, play_to_end


def saved(page, selector: str) -> tuple[str, str]:
    """Click the link `selector` and return the file the browser saved: (its suggested name, its text)."""
    with page.expect_download() as download:
        page.locator(selector).click()
    path = download.value.path()
    return download.value.suggested_filename, path.read_text(encoding="utf-8")


def test_a_finished_durak_table_downloads_its_export_and_move_list(new_page, server):
    page = new_page()
    create(page, "durak", ["easy"])
    play_to_end(page, "durak")
    view = api_view(server.base_url, page)
    game_id = view["game_id"]
    name, text = saved(page, "[data-result] a[data-download=json]")
    assert name == f"durak-{game_id}.json"
    export = json.loads(text)
    assert export == requests.get(f"{server.base_url}/v1/games/{game_id}/export", timeout=10).json()
    assert export["result"] == view["result"] and export["actions"]
    assert page.locator("[data-result] a[data-download=json]").inner_text() == "Download game"
    name, text = saved(page, "[data-result] a[data-download=text]")
    assert name == f"durak-{game_id}.txt"
    assert text == requests.get(f"{server.base_url}/v1/games/{game_id}/export?format=text", timeout=10).text
    assert text.startswith(f"Durak, Cardroom game {game_id}\n") and "1. P" in text


def test_other_games_offer_the_json_export_only(new_page, server):
    page = new_page()
    create(page, "tadmur", ["easy"])
    play_to_end(page, "tadmur")
    game_id = api_view(server.base_url, page)["game_id"]
    page.wait_for_selector(f"{ROOT}[data-status=finished]")
    assert page.locator("[data-result] a[data-download=text]").count() == 0
    name, text = saved(page, "[data-result] a[data-download=json]")
    assert (name, json.loads(text)["game"]) == (f"tadmur-{game_id}.json", "tadmur")
