"""The browser table's files (issue 19), checked without a browser: served by the app, shipped by `pip install .`,
every string in every language, a rules page per game and language. tests/browser/ drives them in Chromium."""

from __future__ import annotations

import glob
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engine import GAMES

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "service" / "web" / "static"
LANGUAGES = ["en", "ru", "es", "ta"]
FRENCH = {"durak": "6789", "svoi_koziri": "6789", "tadmur": "23456789"}


def strings(language: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{language}.json").read_text(encoding="utf-8"))


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


def test_the_pages_and_their_files_are_served(api):
    def get(path: str) -> tuple[int, str]:
        response = api.request("GET", path)
        with response:  # a file's response holds it open until closed
            return response.status_code, response.get_data(as_text=True)

    page = api.request("GET", "/")
    with page:
        assert page.status_code == 200 and page.mimetype == "text/html"
        assert "default-src 'self'" in page.headers["Content-Security-Policy"]
        html = page.get_data(as_text=True)
    for path in re.findall(r'(?:src|href)="(/assets/[^"]+)"', html):
        assert get(path)[0] == 200, path
    for game in GAMES:
        rules = api.request("GET", f"/v1/rules/{game}").json
        assert rules["rules_page"] == f"/rules/{game}"
        status, text = get(rules["rules_page"])
        assert status == 200 and "/assets/js/rules.js" in text
    missing = api.request("GET", "/rules/chess")
    assert missing.status_code == 404 and missing.json["error"] == "not_found"


def test_every_module_the_pages_import_exists():
    for module in STATIC.glob("js/**/*.js"):
        for name in re.findall(r'from "(\.[^"]+)"', module.read_text()):
            assert (module.parent / name).resolve().is_file(), f"{module.name} imports {name}"


def test_every_key_exists_in_every_language_with_the_same_placeholders():
    english = strings("en")
    for language in LANGUAGES[1:]:
        other = strings(language)
        assert sorted(set(english) - set(other)) == [], f"missing in {language}"
        assert sorted(set(other) - set(english)) == [], f"unknown in {language}"
        for key, text in english.items():
            assert other[key].strip(), (language, key)
            assert placeholders(other[key]) == placeholders(text), (language, key)


def test_every_key_the_code_names_has_a_text():
    english = strings("en")
    used = set()
    for module in STATIC.glob("js/**/*.js"):
        used |= set(re.findall(r'\b(?:t|said)\("([a-z_][\w.]*)"', module.read_text()))
    for page in STATIC.glob("*.html"):
        used |= set(re.findall(r'data-i18n(?:-label)?="([\w.]+)"', page.read_text()))
    assert len(used) > 100
    assert sorted(used - set(english)) == []
    # the log's sentences come in two forms: about someone else and about "you"
    for key in [key for key in used if key.startswith("log.") and f"{key}.you" in english]:
        assert placeholders(english[f"{key}.you"]) <= placeholders(english[key]) | {"card", "count"}


def test_the_keys_made_from_data_cover_every_value_the_api_sends():
    english = strings("en")
    for game_id, game in GAMES.items():
        assert f"game.{game_id}" in english and f"game.{game_id}.summary" in english
        for option in game.describe_options():
            assert f"option.{game_id}.{option}" in english
    for level in ["random", "easy", "medium", "hard"]:
        assert f"level.{level}" in english
    for rank in "2 3 4 5 6 7 8 9 10 J Q K A".split():
        assert {f"card.french.rank.{rank}", f"card.french.short.{rank}"} <= set(english)
    for rank in range(1, 13):
        assert f"card.spanish.rank.{rank}" in english
    for suit in "SHDC":
        assert f"card.french.suit.{suit}" in english
    for suit in "OCEB":
        assert f"card.spanish.suit.{suit}" in english
    reasons = {"durak", "draw", "resign", "out_of_cards", "repetition", "chain_complete", "correct_guess",
               "stalemate", "target_reached"}
    assert {f"reason.{reason}" for reason in reasons} <= set(english)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_rules_page_per_language_with_the_same_sections_and_real_cards(game):
    deck = "spanish" if game == "talmut" else "french"
    card = re.compile(r"(1[0-2]|[1-9])[OCEB]" if deck == "spanish" else r"(10|[2-9JQKA])[SHDC]")
    english = (STATIC / "rules" / game / "en.html").read_text(encoding="utf-8")
    sections = len(re.findall(r"<h2", english))
    assert sections >= 4 and english.count("<h1") == 1
    for language in LANGUAGES:
        page = (STATIC / "rules" / game / f"{language}.html").read_text(encoding="utf-8")
        assert len(re.findall(r"<h2", page)) == sections, language
        assert page.count("<h1") == 1, language
        codes = re.findall(r'data-card="([^"]+)"', page)
        assert codes, f"{game}/{language}: no card pictures"
        assert all(card.fullmatch(code) for code in codes), (language, codes)
        if game in FRENCH:
            assert all(code[:-1] in FRENCH[game] or code[:-1] in {"10", "J", "Q", "K", "A"} for code in codes)
        assert "<script" not in page and " on" not in re.sub(r">[^<]*<", "><", page), "no scripts in a fragment"


def test_pip_install_ships_every_file_of_the_pages(tmp_path):
    """`pip install .` needs no Node and no network at run time: the wheel holds every static file."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(REPO), "-w", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = glob.glob(str(tmp_path / "*.whl"))
    shipped = {name for name in zipfile.ZipFile(wheel).namelist() if name.startswith("service/web/static/")}
    files = {path.relative_to(REPO).as_posix() for path in STATIC.rglob("*") if path.is_file()}
    assert files and shipped == files
