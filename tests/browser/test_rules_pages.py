"""The players' rules of each game in each language, at /rules/{game}, and the link to it in GET /v1/rules."""

from __future__ import annotations

import re

import pytest
import requests

from tests.browser.driver import axe_check, strings

GAMES = ["durak", "svoi_koziri", "tadmur", "talmut"]
LANGUAGES = ["en", "ru", "es", "ta"]
# a word every page of that language uses and no other does
MARKERS = {"en": "the", "ru": "и", "es": "el", "ta": "சீட்டு"}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", GAMES)
def test_rules_page(new_page, server, game, language):
    text = strings(language)
    rules = requests.get(f"{server.base_url}/v1/rules/{game}", timeout=30).json()
    page = new_page(width=360 if language == "ta" else 1440)
    page.goto(f"{rules['rules_page']}?lang={language}")
    article = page.locator("article.rules")
    article.wait_for()
    assert page.get_attribute("html", "lang") == language
    heading = article.locator("h1").inner_text()
    assert heading and page.title().startswith(heading)
    body = article.inner_text()
    assert re.search(rf"(^|\W){MARKERS[language]}(\W|$)", body), body[:300]
    for other, marker in MARKERS.items():
        if other != language and other != "ru":
            assert not re.search(rf"(^|\s){marker}(\s|$)", body), f"{other} text in the {language} page"
    assert article.locator("h2").count() >= 4
    # the card pictures are cards, named in the page's language
    deck = "spanish" if game == "talmut" else "french"
    cards = article.locator(".card[data-card]")
    assert cards.count() >= 3
    for index in range(cards.count()):
        code = cards.nth(index).get_attribute("data-card")
        name = text[f"card.{deck}.name"].replace("{rank}", text[f"card.{deck}.rank.{code[:-1]}"]).replace(
            "{suit}", text[f"card.{deck}.suit.{code[-1]}"])
        assert cards.nth(index).get_attribute("aria-label") == name
    assert page.locator(f".rules-nav a[href='/rules/{game}']").get_attribute("aria-current") == "page"
    assert page.locator(".rules-nav a[href='/rules/durak']").inner_text() == text["game.durak"]
    axe_check(page, f"rules of {game} in {language}")
