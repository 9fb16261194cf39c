"""Cardroom in a real browser (headless Chromium, tests/e2e/browser.py) with no route off the machine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.e2e.browser import offline
from tests.e2e.stack import REPO, Stack, start_stack, stop_stack

pytestmark = pytest.mark.e2e

METHODS = {"get", "post", "put", "patch", "delete"}


def spec_operations() -> list[tuple[str, str]]:
    spec = json.loads((REPO / "openapi" / "openapi.json").read_text())
    return [(method.upper(), path) for path, item in spec["paths"].items() for method in item if method in METHODS]


def test_docs_show_every_operation_offline(stack: Stack, chromium_browser: Any) -> None:
    """Issue 20 §1: /docs works air-gapped: Swagger UI comes from the server itself, and nothing else is asked for."""
    with offline(chromium_browser) as browser:
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


def test_try_it_out_creates_a_game_with_its_first_click(stack: Stack, chromium_browser: Any) -> None:
    """Issue 20 §2: "Try it out" then "Execute" on POST /v1/games, body untouched, answers 201 with a new game."""
    create = operation("post", "/v1/games")
    with offline(chromium_browser) as browser:
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


def test_fetch_sees_a_long_poll_s_304_as_the_readme_says(stack: Stack, chromium_browser: Any) -> None:
    """README "Nothing new yet: 304": in a browser, `response.status === 304` and `response.ok === false`."""
    created = requests.post(stack.base_url + "/v1/games", json={
        "game": "tadmur", "seats": [{"kind": "human", "name": "Ann"}, {"kind": "ai", "level": "easy"}], "seed": 4,
    }, timeout=20).json()
    assert created["to_act"] == [0]  # our turn: no version comes by itself
    with offline(chromium_browser) as browser:
        page = browser.new_page()
        page.goto(stack.base_url + "/healthz")
        seen = page.evaluate(
            "async url => { const r = await fetch(url); return [r.status, r.ok, await r.text()]; }",
            f"/v1/games/{created['game_id']}?after_version={created['version']}&wait=0.2",
        )
    assert seen == [304, False, ""]


# A page's script that creates a Durak game against the AI on `api` and plays it to the end (never resigning),
# as a front end would: JSON bodies, Bearer token, If-Match, Idempotency-Key, long-polls; it reads the headers
# CORS must expose. Bounded: at most 400 requests.
PLAY_A_GAME = """async api => {
  const json = {"Content-Type": "application/json"};
  let r = await fetch(api + "/v1/games", {method: "POST", headers: json, body: JSON.stringify(
    {game: "durak", seats: [{kind: "human", name: "Ann"}, {kind: "ai", level: "easy"}], seed: 7})});
  const seen = {created: r.status, location: r.headers.get("Location"), requestId: r.headers.get("X-Request-ID")};
  let view = await r.json();
  const auth = {Authorization: "Bearer " + view.player_token};
  seen.moves = 0;
  for (let i = 0; i < 400 && view.status !== "finished"; i++) {
    const mine = view.legal_actions.filter(a => a.type !== "resign");
    if (mine.length === 0) {
      r = await fetch(`${api}/v1/games/${view.game_id}?after_version=${view.version}&wait=5`, {headers: auth});
      if (r.status === 200) view = await r.json();
      continue;
    }
    r = await fetch(`${api}/v1/games/${view.game_id}/actions`, {method: "POST", body: JSON.stringify(mine[0]),
      headers: {...json, ...auth, "If-Match": `"${view.version}"`, "Idempotency-Key": `move-${view.version}`}});
    if (r.status !== 200) {  // the AI moved first: look again
      r = await fetch(`${api}/v1/games/${view.game_id}`, {headers: {...auth, "If-None-Match": `"${view.version}"`}});
      if (r.status === 200) view = await r.json();
      continue;
    }
    seen.etag = r.headers.get("ETag");
    view = await r.json();
    seen.moves += 1;
    seen.etagMatches = seen.etag === `"${view.version}"`;
  }
  seen.status = view.status;
  seen.result = view.result;
  return seen;
}"""


@pytest.fixture(scope="module")
def cors_stack(stack: Stack) -> Iterator[Stack]:
    """A second Cardroom that lets pages of the first one's origin call it (`CORS_ORIGINS`)."""
    running = start_stack(label="e2e-cors", environment={"CORS_ORIGINS": stack.base_url})
    try:
        yield running
    finally:
        stop_stack(running)


def test_a_page_of_a_listed_origin_plays_a_whole_game(stack: Stack, cors_stack: Stack, chromium_browser: Any) -> None:
    """Issue 20 §7: a page on another loopback origin creates and plays a game with CORS_ORIGINS naming it."""
    with offline(chromium_browser) as browser:
        page = browser.new_page()
        page.goto(stack.base_url + "/healthz")  # the page's origin: the first server
        seen = page.evaluate(PLAY_A_GAME, cors_stack.base_url)
        assert browser.blocked == []
    assert (seen["created"], seen["status"]) == (201, "finished"), seen
    assert seen["location"].startswith("/v1/games/") and len(seen["requestId"]) == 32
    assert seen["moves"] > 0 and seen["etagMatches"] is True
    assert seen["result"]["winners"] or seen["result"]["draw"]


def test_a_page_of_another_origin_is_blocked_without_cors(
    stack: Stack, cors_stack: Stack, chromium_browser: Any
) -> None:
    """Default (no CORS_ORIGINS): the browser sends no POST after the failed preflight, and hides GET answers."""
    with offline(chromium_browser) as browser:
        page = browser.new_page()
        page.goto(cors_stack.base_url + "/healthz")  # a page of the second server calls the first (CORS off)
        errors = page.evaluate("""async api => {
          const out = [];
          for (const call of [() => fetch(api + "/v1/rules"), () => fetch(api + "/v1/games", {method: "POST",
              headers: {"Content-Type": "application/json"}, body: JSON.stringify({game: "durak", seats: []})})]) {
            try { await call(); out.push("answered"); } catch (error) { out.push(error.name); }
          }
          return out;
        }""", stack.base_url)
    assert errors == ["TypeError", "TypeError"]
