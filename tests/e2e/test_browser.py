"""Cardroom in a real browser (headless Chromium, tests/e2e/browser.py) with no route off the machine."""

from __future__ import annotations

import json

import pytest
import requests

from tests.e2e.browser import chromium
from tests.e2e.stack import REPO, Stack

pytestmark = pytest.mark.e2e

METHODS = {"get", "post", "put", "patch", "delete"}


def spec_operations() -> list[tuple[str, str]]:
    spec = json.loads((REPO / "openapi" / "openapi.json").read_text())
    return [(method.upper(), path) for path, item in spec["paths"].items() for method in item if method in METHODS]


def test_docs_show_every_operation_offline(stack: Stack) -> None:
    """Issue 20 §1: /docs works air-gapped: Swagger UI comes from the server itself, and nothing else is asked for."""
    with chromium() as browser:
        page = browser.new_page()
        page.goto(stack.base_url + "/docs", wait_until="networkidle")
        assert browser.blocked == []
        page.wait_for_selector(".opblock")
        shown = page.eval_on_selector_all(
            ".opblock",
            "blocks => blocks.map(b => [b.querySelector('.opblock-summary-method').textContent,"
            " b.querySelector('.opblock-summary-path').dataset.path])",
        )
        title = page.text_content(".info .title")
    assert sorted(map(tuple, shown)) == sorted(spec_operations())
    assert len(shown) >= 11
    assert title is not None and title.startswith("Cardroom")


def test_docs_assets_are_the_pinned_package_s(stack: Stack) -> None:
    """The page names the server's own copy of Swagger UI, the version pinned in pyproject.toml."""
    import swagger_ui_bundle

    page = requests.get(stack.base_url + "/docs", timeout=10)
    assert page.status_code == 200 and "cdn" not in page.text
    script = requests.get(stack.base_url + "/docs/assets/swagger-ui-bundle.js", timeout=10)
    assert script.status_code == 200
    assert script.content == (swagger_ui_bundle.swagger_ui_path / "swagger-ui-bundle.js").read_bytes()
    assert "swagger-ui-bundle-v2==5.31.0" in (REPO / "pyproject.toml").read_text()


def operation(method: str, path: str) -> str:
    """The CSS selector of one operation's block in Swagger UI."""
    return f'.opblock-{method}:has(.opblock-summary-path[data-path="{path}"])'


def test_try_it_out_creates_a_game_with_its_first_click(stack: Stack) -> None:
    """Issue 20 §2: "Try it out" then "Execute" on POST /v1/games, body untouched, answers 201 with a new game."""
    create = operation("post", "/v1/games")
    with chromium() as browser:
        page = browser.new_page()
        page.goto(stack.base_url + "/docs", wait_until="networkidle")
        page.click(f"{create} .opblock-summary")
        page.click(f"{create} .try-out__btn")
        body = json.loads(page.input_value(f"{create} .body-param__text"))
        page.click(f"{create} .execute")
        status = page.text_content(f"{create} .live-responses-table .response .response-col_status")
        answer = json.loads(page.text_content(f"{create} .live-responses-table .response-col_description pre"))
        assert browser.blocked == []
    assert "deck" not in body and 0 <= body["seed"] <= 2**53 - 1
    assert status is not None and status.strip() == "201", answer
    assert answer["game"] == body["game"] and answer["player_token"] and answer["version"] == 1


def test_fetch_sees_a_long_poll_s_304_as_the_readme_says(stack: Stack) -> None:
    """README "Nothing new yet: 304": in a browser, `response.status === 304` and `response.ok === false`."""
    created = requests.post(stack.base_url + "/v1/games", json={
        "game": "tadmur", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], "seed": 4,
    }, timeout=20).json()
    assert created["to_act"] == [0]  # our turn: no version comes by itself
    with chromium() as browser:
        page = browser.new_page()
        page.goto(stack.base_url + "/healthz")
        seen = page.evaluate(
            "async url => { const r = await fetch(url); return [r.status, r.ok, await r.text()]; }",
            f"/v1/games/{created['game_id']}?after_version={created['version']}&wait=0.2",
        )
    assert seen == [304, False, ""]
