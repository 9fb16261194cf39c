"""Driving the table the way the README's automation hooks promise: `form[data-create]`, `select[name=level]`,
`[data-action]` on every clickable legal action, the root's `data-game/-status/-version/-you`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import requests

STATIC = Path(__file__).resolve().parents[2] / "service" / "web" / "static"
ROOT = "section[data-game]"

# The order a test player prefers among the actions on offer; never `resign`, and never a Talmut `match` (a
# wrong one only adds cards) or `withdraw`. Talmut calls at once, so a round is a call and the others' last turns.
PREFERENCE = {
    "durak": ["defend", "attack", "done", "take"],
    "svoi_koziri": ["choose_trump", "beat", "lead", "play", "take"],
    "tadmur": ["place", "pass", "guess"],
    "talmut": ["call", "skip_power", "discard", "draw"],
}


def strings(language: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{language}.json").read_text(encoding="utf-8"))


def create(page, game: str, levels: list[str], options: dict[str, int] | None = None, lang: str = "en") -> None:
    """Start `game` through the lobby form: one level per other seat ("human": a friend)."""
    page.goto(f"/?lang={lang}")
    form = page.locator("form[data-create]")
    form.locator("select[name=game]").select_option(game)
    if len(levels) + 1 != 2:
        form.locator("select[name=seats]").select_option(str(len(levels) + 1))
    selects = form.locator("select[name=level]")
    assert selects.count() == len(levels)
    for index, level in enumerate(levels):
        selects.nth(index).select_option(level)
    for key, value in (options or {}).items():
        form.locator(f"[name=option-{key}]").fill(str(value))
    form.locator("button[type=submit]").click()
    page.wait_for_selector(f"{ROOT}[data-game={game}]")


def offered(page) -> list[tuple[Any, dict[str, Any]]]:
    """Every clickable legal action on the table now, as (element, its JSON body)."""
    return [(element, json.loads(element.get_attribute("data-action")))
            for element in page.query_selector_all(f"{ROOT} [data-action]")]


def choose(preference: list[str], actions: list[tuple[Any, dict[str, Any]]]):  # noqa: ANN201
    for kind in preference:
        for element, body in actions:
            if body["type"] == kind and body.get("source", "stock") == "stock":
                return element
    return None


def version(page) -> int:
    return int(page.get_attribute(ROOT, "data-version"))


def wait_for_change(page, seen: int) -> None:
    page.wait_for_function(
        "seen => { const root = document.querySelector('section[data-game]');"
        " return root.dataset.status === 'finished' || Number(root.dataset.version) > seen; }", arg=seen)


def play_one(page, game: str, preference: dict[str, list[str]] = PREFERENCE) -> bool:
    """Click the preferred legal action if one is offered (then wait for the table to move on); else wait for a new
    version. False once the game is finished."""
    if page.get_attribute(ROOT, "data-status") == "finished":
        return False
    seen = version(page)
    # a table busy with a request or a new version offers its actions once it is done: choose only then (waiting
    # for a new version instead could wait for ever, when the move is ours)
    page.wait_for_function("() => !document.querySelector('section[data-game]').hasAttribute('aria-busy')")
    element = choose(preference[game], offered(page))
    if element is not None:
        element.click()
    wait_for_change(page, seen)
    return True


def play_to_end(page, game: str, limit: int = 3000) -> int:
    """Play until the game is finished; returns how many versions it took (a bound on progress, not on time)."""
    for steps in range(limit):
        if not play_one(page, game):
            return steps
    raise AssertionError(f"{game} not finished after {limit} steps")


def token(page, game_id: str, seat: int) -> str:
    return page.evaluate(f"JSON.parse(localStorage.getItem('cardroom.seats.{game_id}'))['{seat}']")


def api_view(base_url: str, page) -> dict[str, Any]:
    """The API's view for the page's seat, fetched outside the browser."""
    game_id = page.url.split("game=")[1].split("&")[0]
    you = page.get_attribute(ROOT, "data-you")
    headers = {"Authorization": f"Bearer {token(page, game_id, int(you))}"} if you else {}
    response = requests.get(f"{base_url}/v1/games/{game_id}", headers=headers, timeout=30)
    assert response.status_code == 200
    return response.json()


def expected_heading(result: dict[str, Any], you: int, names: dict[int, str], text: dict[str, str]) -> str:
    if result["draw"]:
        return text["result.draw"]
    if you in result["winners"]:
        return text["result.you_shared"] if len(result["winners"]) > 1 else text["result.you_won"]
    return text["result.won"].replace("{names}", ", ".join(names[seat] for seat in result["winners"]))


def seat_names(view: dict[str, Any], text: dict[str, str]) -> dict[int, str]:
    """What the table calls each seat (table.js `seatName`)."""
    ais = [seat for seat in view["seats"] if seat["kind"] == "ai"]
    names = {}
    for seat in view["seats"]:
        if seat["seat"] == view["you"]:
            names[seat["seat"]] = text["seat.you"]
        elif seat["kind"] == "ai":
            key = "seat.ai_numbered" if len(ais) > 1 else "seat.ai"
            names[seat["seat"]] = (text[key].replace("{seat}", str(seat["seat"] + 1))
                                   .replace("{level}", text[f"level.{seat['level']}"]))
        else:
            names[seat["seat"]] = seat["name"]
    return names


def check_result_shown(page, view: dict[str, Any], text: dict[str, str]) -> None:
    """The result panel says what the API's `result` says: winners, losers, draw, reason, scores."""
    result = view["result"]
    panel = page.locator("[data-result]")
    assert json.loads(panel.get_attribute("data-winners")) == result["winners"]
    assert json.loads(panel.get_attribute("data-losers")) == result["losers"]
    assert panel.get_attribute("data-draw") == str(result["draw"]).lower()
    assert panel.get_attribute("data-reason") == result["reason"]
    names = seat_names(view, text)
    assert panel.locator("h2").inner_text() == expected_heading(result, view["you"], names, text)
    assert panel.locator(".reason").inner_text() == text[f"reason.{result['reason']}"]
    rows = panel.locator("table.scores tbody tr")
    totals = result["scores"].get("totals", result["scores"])
    shown = {rows.nth(index).locator("th").inner_text(): rows.nth(index).locator("td").last.inner_text()
             for index in range(rows.count())}
    assert shown == {names[int(seat)]: str(score) for seat, score in totals.items()}


def axe_check(page, what: str) -> None:
    """axe-core on the page as it is: no violation of impact serious or critical."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    bad = [violation for violation in results.response["violations"] if violation["impact"] in ("serious", "critical")]
    assert bad == [], f"{what}: " + results.generate_report()


def seated_game(base_url: str, body: dict[str, Any], names: list[str]) -> tuple[str, list[str]]:
    """Create a game by the API (a `deck` makes its deal exact) whose human seats are `names` in seat order, the
    creator first; each other human takes its seat by the API. Returns the game's id and every human seat's token."""
    created = requests.post(f"{base_url}/v1/games", json=body, timeout=30)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    tokens = [created.json()["player_token"]]
    for name in names[1:]:
        joined = requests.post(f"{base_url}/v1/games/{game_id}/seats", json={"name": name}, timeout=30)
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["player_token"])
    return game_id, tokens


def open_seat(page, game_id: str, seat: int, seat_token: str, lang: str = "en") -> None:
    """Open the table of `game_id` at `seat`, the token kept in the page's storage as the lobby keeps it."""
    page.goto(f"/?lang={lang}")
    page.locator("form[data-create]").wait_for()
    page.evaluate("([key, seats]) => localStorage.setItem(key, seats)",
                  [f"cardroom.seats.{game_id}", json.dumps({str(seat): seat_token})])
    page.goto(f"/?game={game_id}&seat={seat}&lang={lang}")
    page.wait_for_selector(f"{ROOT}[data-you='{seat}']")


def post_action(base_url: str, game_id: str, seat_token: str, body: dict[str, Any]) -> int:
    """Play `body` for the seat of `seat_token` by the API, outside the browser; returns the new version."""
    response = requests.post(f"{base_url}/v1/games/{game_id}/actions", json=body,
                             headers={"Authorization": f"Bearer {seat_token}"}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["version"]


def wait_for_version(page, wanted: int) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('section[data-game]').dataset.version) >= v", arg=wanted)


def click_action(page, body: dict[str, Any]) -> None:
    """Click the table's button for the legal action `body`, then wait for the version it makes."""
    page.wait_for_function("() => !document.querySelector('section[data-game]').hasAttribute('aria-busy')")
    seen = version(page)
    (element,) = [element for element, shown in offered(page) if shown == body]
    element.click()
    wait_for_change(page, seen)


def card_name(text: dict[str, str], code: str, deck: str) -> str:
    """A card's full name as the page says it in the language of `text` (i18n.js `cardName`); `deck` "french" or
    "spanish"."""
    return say(text, f"card.{deck}.name", rank=text[f"card.{deck}.rank.{code[:-1]}"],
               suit=text[f"card.{deck}.suit.{code[-1]}"])


def say(text: dict[str, str], key: str, **params: object) -> str:
    """The string `key` with its `{placeholders}` filled (i18n.js `t`)."""
    return re.sub(r"\{(\w+)\}", lambda match: str(params[match.group(1)]), text[key])
