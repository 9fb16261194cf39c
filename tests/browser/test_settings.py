"""The settings: language and the three appearance sliders (0-100, 50 by default), kept across a reload."""

from __future__ import annotations

from tests.browser.driver import strings


def css(page, name: str) -> float:
    return float(page.evaluate(f"getComputedStyle(document.documentElement).getPropertyValue('--{name}')"))


def test_settings_start_at_50_and_persist_across_a_reload(new_page):
    page = new_page()
    page.goto("/?lang=en")
    page.locator("form[data-create]").wait_for()
    page.locator(".settings summary").click()
    for name in ("contrast", "grain", "temperature"):
        assert page.locator(f"input[name={name}]").input_value() == "50"
    neutral = css(page, "contrast")
    assert neutral == 1.0 and css(page, "tint-strength") == 0.0 and css(page, "grain") == 0.25
    # the keyboard moves a slider: Home is 0, each arrow one step
    contrast = page.locator("input[name=contrast]")
    contrast.focus()
    page.keyboard.press("End")
    page.locator("input[name=grain]").focus()
    page.keyboard.press("Home")
    temperature = page.locator("input[name=temperature]")
    temperature.focus()
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    assert (contrast.input_value(), temperature.input_value()) == ("100", "80")
    assert css(page, "contrast") > neutral and css(page, "grain") == 0.0 and css(page, "tint-strength") > 0

    page.reload()
    page.locator("form[data-create]").wait_for()
    assert page.locator("input[name=contrast]").input_value() == "100"
    assert page.locator("input[name=grain]").input_value() == "0"
    assert page.locator("input[name=temperature]").input_value() == "80"
    assert css(page, "contrast") == 1.4 and css(page, "grain") == 0.0

    # the language, chosen in the settings, is kept too (and the sliders with it)
    page.locator(".settings summary").click()
    with page.expect_navigation():
        page.locator("select[name=language]").select_option("es")
    page.locator("form[data-create]").wait_for()
    assert page.get_attribute("html", "lang") == "es"
    assert page.locator("form[data-create] h2").inner_text() == strings("es")["lobby.new_game"]
    page.goto("/")
    page.locator("form[data-create]").wait_for()
    assert page.get_attribute("html", "lang") == "es" and page.locator("input[name=contrast]").input_value() == "100"
    page.locator(".settings summary").click()
    page.locator(".settings button").click()  # reset the sliders
    assert [page.locator(f"input[name={name}]").input_value() for name in ("contrast", "grain", "temperature")] == [
        "50", "50", "50"]
