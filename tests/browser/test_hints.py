"""The hint line (issue 45 §4): at each step of a game from an exact deal, the table says in words what to do now, or
whom it waits for, in the page's language. The other seats are humans played by the API, so every step is known."""

from __future__ import annotations

from functools import partial

import pytest
import requests

from tests.browser.driver import (
    ROOT,
    axe_check,
    card_name,
    click_action,
    open_seat,
    post_action,
    say,
    seated_game,
    strings,
    wait_for_version,
)

# durak.md §8: K1 seat 0 attacks first (lowest trump 6H), trump H; K2 seat 1 attacks first, trump D
K1 = "6H 7H 7S 8S 8C 9C 9D 10D 10S JS JC QC 10H 9S 8D 7C JD QH AC 6S 6D 6C 7D JH AS KH AH QD KC AD 10C KS KD 8H 9H QS"
K2 = "10C 7D JS 8C 9D 10S QH 8H KC QS AS 6H 6D 6S 7S 8S 9S KS 7H 9H 10H JH KH AH 8D 10D JD QD KD AD 6C 7C 9C JC QC AC"
# talmut.md §8 E1: s0 7C 3O 12B 7O, s1 2C 5B 6O 1B, s2 11C 7E 4E 12O; up 3C; stock 10O 11O 12C 4O 2B 6E ...
E1 = ("7C 2C 11C 3O 5B 7E 12B 6O 4E 7O 1B 12O 3C 10O 11O 12C 4O 2B 6E 5O 1C 1O 2O 4C 5C 6C 10C 1E 2E 3E 5E 10E 11E "
      "12E 3B 4B 6B 7B 10B 11B")
# svoi_koziri.md §8 V1; tadmur.md §8 D1 (starters 5H, KC; targets 9S, 8D) and D3 (seat 0 holds no A or 3 for its 2S)
V1 = "6S 9S 7S JS 8S KS 10S 7H QS 9H AS JH 6H QH 8H KH 10H AH 7D 6D 9D 8D JD 10D KD QD 7C AD 9C 6C 10C 8C JC QC KC AC"
D1 = ("5H KC 9S 8D 6H AS 7H 2S 8H 3S 9H 4S 10H 5S JH 6S 10S QS QD 10D 2H 10C 2D JD 2C 7S 3H 3D 3C 4H 4D 4C 5D 5C 6D "
      "6C 7D 7C 8S 8C 9D 9C JS JC QH QC KS KH KD AH AD AC")
D3 = ("2S 7C KD 4H 6S AS 6H AH 6D AD 6C AC 8S 3S 8H 3H 8D 3D 8C 3C 2H 2D 2C 4S 4D 4C 5S 5H 5D 5C 7S 7H 7D 9S 9H 9D "
      "9C 10S 10H 10D 10C JS JH JD JC QS QH QD QC KS KH KC")
NAMES = ["Ann", "Bob", "Cy"]


def hint(page) -> str:  # noqa: ANN001 - playwright's Page
    return page.locator(f"{ROOT} [data-hint]").inner_text()


def at_table(new_page, server, game: str, deck: str,  # noqa: ANN001, ANN201
             seats: int = 2, you: int = 0, lang: str = "en"):
    """A game of `game` dealt from `deck` between the humans of `NAMES`, this page at seat `you` in `lang`; returns
    the page and `plays(seat, *bodies)`, which plays another seat's actions by the API and waits for the page to
    show each."""
    names = NAMES[:seats]
    body = {"game": game, "seats": [{"kind": "human", "name": name} for name in names], "deck": deck.split()}
    game_id, tokens = seated_game(server.base_url, body, names)
    page = new_page()
    open_seat(page, game_id, you, tokens[you], lang)

    def plays(seat: int, *bodies: dict) -> None:
        for action in bodies:
            wait_for_version(page, post_action(server.base_url, game_id, tokens[seat], action))

    return page, plays


def pictured(page, screenshots, name: str) -> None:  # noqa: ANN001
    """The table as it is, at a phone's width and a desktop's: no sideways scrolling, a screenshot of each."""
    for width in (360, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= width, "no sideways scrolling"
        page.screenshot(path=screenshots / f"{name}-{width}.png", full_page=True)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_durak_hints_attacking_defending_and_taking(new_page, server, screenshots, lang):
    """K1 from seat 0 against Bob: attack, the waits, adding, nothing to add, beating, taking, no card that beats,
    waiting for the attacker to add after a beat."""
    text = strings(lang)
    french = partial(card_name, text, deck="french")
    page, plays = at_table(new_page, server, "durak", K1, lang=lang)
    bob_plays = partial(plays, 1)
    line = page.locator(f"{ROOT} [data-hint]")
    assert line.get_attribute("aria-live") == "polite"
    kept = line.element_handle()
    assert hint(page) == say(text, "durak.hint.attack")
    click_action(page, {"type": "attack", "card": "6H"})
    assert hint(page) == say(text, "durak.hint.wait_defend", name="Bob", card=french("6H"))
    bob_plays({"type": "defend", "card": "7H", "against": "6H"})
    assert hint(page) == say(text, "durak.hint.add")
    for attack, defense in [("7S", "8S"), ("8C", "9C"), ("9D", "10D"), ("10S", "JS"), ("JC", "QC")]:
        click_action(page, {"type": "attack", "card": attack})
        assert hint(page) == say(text, "durak.hint.wait_defend", name="Bob", card=french(attack))
        bob_plays({"type": "defend", "card": defense, "against": attack})
    assert hint(page) == say(text, "durak.hint.done")  # both hands are empty: only done
    click_action(page, {"type": "done"})
    assert hint(page) == say(text, "durak.hint.wait_attack", name="Bob")
    bob_plays({"type": "attack", "card": "6S"})
    assert hint(page) == say(text, "durak.hint.defend", card=french("6S"))
    pictured(page, screenshots, f"durak-hint-{lang}")
    click_action(page, {"type": "take"})
    assert hint(page) == say(text, "durak.hint.wait_taken", name="Bob")
    bob_plays({"type": "done"})  # Bob draws KH; seat 0 holds 7 cards, Bob attacks again
    assert hint(page) == say(text, "durak.hint.wait_attack", name="Bob")
    bob_plays({"type": "attack", "card": "KH"})  # seat 0's only trump is QH
    assert hint(page) == say(text, "durak.hint.take", card=french("KH"))
    click_action(page, {"type": "take"})
    bob_plays({"type": "done"})
    bob_plays({"type": "attack", "card": "6D"})
    click_action(page, {"type": "defend", "card": "8D", "against": "6D"})
    assert hint(page) == say(text, "durak.hint.wait_add", name="Bob")
    # the same live region throughout, its text changed: a region replaced at each version is not announced
    assert kept.evaluate("node => node.isConnected")


@pytest.mark.parametrize("lang", ["en", "es"])
def test_durak_hints_of_the_attacker_when_the_defender_takes(new_page, server, lang):
    """K2 from seat 1, who attacks first, against Ann, who takes."""
    text = strings(lang)
    page, plays = at_table(new_page, server, "durak", K2, you=1, lang=lang)
    ann_plays = partial(plays, 0)
    assert hint(page) == say(text, "durak.hint.attack")
    click_action(page, {"type": "attack", "card": "8C"})
    ann_plays({"type": "defend", "card": "10C", "against": "8C"})
    assert hint(page) == say(text, "durak.hint.add")
    click_action(page, {"type": "attack", "card": "10S"})
    ann_plays({"type": "take"})
    assert hint(page) == say(text, "durak.hint.add_to_take", name="Ann")  # 8H matches the 8 on the table
    click_action(page, {"type": "attack", "card": "8H"})
    assert hint(page) == say(text, "durak.hint.done_to_take", name="Ann")
    click_action(page, {"type": "done"})
    assert hint(page) == say(text, "durak.hint.attack")  # after a take the same attacker attacks again


@pytest.mark.parametrize("lang", ["en", "ta"])
def test_talmut_hints_through_the_powers_matching_and_a_call(new_page, server, screenshots, lang):
    """E1 from seat 0 against Bob and Cy: draw, swap or discard, the sota, caballo and rey, matching in and out of
    turn, the waits, calling, withdrawing, the next round, resigning."""
    text = strings(lang)
    page, plays = at_table(new_page, server, "talmut", E1, seats=3, lang=lang)
    draw_stock, draw_discard = {"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}
    discard = {"type": "discard"}
    assert hint(page) == say(text, "talmut.hint.draw_or_call")
    click_action(page, draw_stock)  # 10O, the sota
    assert hint(page) == say(text, "talmut.hint.decide")
    click_action(page, discard)
    assert hint(page) == say(text, "talmut.hint.sota")
    click_action(page, {"type": "peek", "seat": 2, "position": 2})
    # seat 0 threw last: the window {10} is not its to match
    assert hint(page) == say(text, "talmut.hint.wait_draw_or_call", name="Bob")
    plays(1, draw_discard)
    assert hint(page) == say(text, "talmut.hint.wait_decide", name="Bob")
    plays(1, discard)
    assert hint(page) == say(text, "talmut.hint.match", rank="10", name="Cy")
    plays(2, draw_discard, discard)
    assert hint(page) == " ".join([say(text, "talmut.hint.draw_or_call"),
                                   say(text, "talmut.hint.match_first", rank="10")])
    click_action(page, draw_stock)  # 11O, the caballo
    click_action(page, discard)
    assert hint(page) == say(text, "talmut.hint.caballo")
    page.locator(f"{ROOT} [data-focus='pick-0-0']").click()  # the first card: a choice, no action yet
    page.wait_for_selector(f"{ROOT} [data-focus='pick-0-0'][aria-pressed=true]")
    assert hint(page) == say(text, "talmut.hint.caballo_second")
    axe_check(page, "talmut table halfway through a blind swap")
    pictured(page, screenshots, f"talmut-hint-{lang}")
    click_action(page, {"type": "blind_swap", "a": {"seat": 0, "position": 0}, "b": {"seat": 1, "position": 0}})
    assert hint(page) == say(text, "talmut.hint.wait_draw_or_call", name="Bob")
    plays(1, draw_discard, discard)
    assert hint(page) == say(text, "talmut.hint.match", rank="11", name="Cy")
    plays(2, draw_discard, discard)
    click_action(page, draw_stock)  # 12C, the rey
    click_action(page, discard)
    assert hint(page) == say(text, "talmut.hint.rey")
    click_action(page, {"type": "peek", "seat": 1, "position": 0})
    assert hint(page) == say(text, "talmut.hint.exchange")
    click_action(page, {"type": "skip_power"})  # keep both
    plays(1, draw_stock)  # 4O
    assert hint(page) == say(text, "talmut.hint.wait_decide", name="Bob")
    plays(1, {"type": "swap", "position": 1})  # 5B goes to the pile
    assert hint(page) == say(text, "talmut.hint.match", rank="5", name="Cy")
    plays(2, draw_discard, discard)
    click_action(page, {"type": "call"})
    withdraw = say(text, "talmut.hint.withdraw")
    assert hint(page) == f"{say(text, 'talmut.hint.wait_draw', name='Bob')} {withdraw}"  # a call stands: no other
    plays(1, draw_stock, discard)  # 2B
    assert hint(page) == f"{say(text, 'talmut.hint.match', rank='2', name='Cy')} {withdraw}"
    plays(2, draw_discard, discard)  # Cy's last turn ends round 1; round 2 starts at Bob, from the same deck
    assert hint(page) == say(text, "talmut.hint.wait_draw_or_call", name="Bob")
    plays(1, draw_stock, discard)  # 10O again: Bob has the sota's power
    assert hint(page) == say(text, "talmut.hint.wait_power", name="Bob", card=card_name(text, "10O", "spanish"))
    plays(0, {"type": "resign"})  # by the API: the table offers resign only to a seat in to_act; the game goes on
    assert hint(page) == say(text, "hint.resigned")


def test_svoi_koziri_hints_from_the_trump_choice_to_a_take(new_page, server):
    text = strings("en")
    french = partial(card_name, text, deck="french")
    page, plays = at_table(new_page, server, "svoi_koziri", V1)
    assert hint(page) == say(text, "svoi.hint.choose_trump")
    watcher = new_page()  # no token of this game: the spectator view, told whom the table waits for
    watcher.goto(page.url.replace("&seat=0", ""))
    watcher.wait_for_selector(f"{ROOT}[data-status=active][data-you='']")
    assert hint(watcher) == say(text, "svoi.hint.wait_choose", name="Ann")
    click_action(page, {"type": "choose_trump", "suit": "S"})
    assert hint(page) == say(text, "svoi.hint.wait_choose", name="Bob")
    plays(1, {"type": "choose_trump", "suit": "H"})
    assert hint(page) == say(text, "svoi.hint.lead")
    click_action(page, {"type": "lead", "card": "10C"})
    assert hint(page) == say(text, "svoi.hint.wait_respond", name="Bob", card=french("10C"))
    plays(1, {"type": "beat", "card": "6H"})
    assert hint(page) == say(text, "svoi.hint.wait_play", name="Bob")
    plays(1, {"type": "play", "card": "9S"})
    assert hint(page) == say(text, "svoi.hint.beat", card=french("9S"))
    click_action(page, {"type": "beat", "card": "AS"})
    assert hint(page) == say(text, "svoi.hint.play", name="Bob")
    click_action(page, {"type": "play", "card": "KD"})
    plays(1, {"type": "beat", "card": "AD"}, {"type": "play", "card": "KS"})
    # spades are seat 0's own trump, and its ace is gone: only a higher spade would beat the king
    assert hint(page) == say(text, "svoi.hint.take", card=french("KS"))


def test_tadmur_hints_placing_guessing_and_passing(new_page, server):
    text = strings("en")
    page, plays = at_table(new_page, server, "tadmur", D1)
    assert hint(page) == say(text, "tadmur.hint.place_or_guess")
    click_action(page, {"type": "guess", "rank": "Q"})  # the other target is 8D
    assert hint(page) == f"{say(text, 'tadmur.hint.guessed')} {say(text, 'tadmur.hint.place')}"
    click_action(page, {"type": "place", "card": "6H"})
    assert hint(page) == say(text, "tadmur.hint.wait", name="Bob")
    plays(1, {"type": "guess", "rank": "2"})  # seat 0's target is 9S
    assert hint(page) == say(text, "tadmur.hint.wait_guessed", name="Bob")
    plays(1, {"type": "place", "card": "AS"})
    assert hint(page) == say(text, "tadmur.hint.place_or_guess")

    # D1 with no guess (tadmur.md §8.3): after 6H 7H 8H 9H 10H JH seat 0 has one space left, and the lock is on
    page, plays = at_table(new_page, server, "tadmur", D1)
    for mine, bobs in [("6H", "AS"), ("7H", "2S"), ("8H", "3S"), ("9H", "4S"), ("10H", "5S"), ("JH", "6S")]:
        click_action(page, {"type": "place", "card": mine})
        plays(1, {"type": "place", "card": bobs})
    assert hint(page) == say(text, "tadmur.hint.place_last")  # only 10S: next to JH and to the target 9S

    page, plays = at_table(new_page, server, "tadmur", D3)
    assert hint(page) == say(text, "tadmur.hint.pass_or_guess")
    click_action(page, {"type": "guess", "rank": "K"})  # the other target is 4H
    assert hint(page) == f"{say(text, 'tadmur.hint.guessed')} {say(text, 'tadmur.hint.pass')}"


def test_the_hint_while_seats_are_open_and_once_the_game_is_over(new_page, server):
    """Tadmur D1 (tadmur.md §8.5): Ann waits for Bob to take his seat; Bob guesses seat 0's target at once."""
    text = strings("en")
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "human"}]
    game_id, (ann,) = seated_game(server.base_url, {"game": "tadmur", "seats": seats, "deck": D1.split()}, ["Ann"])
    page = new_page()
    open_seat(page, game_id, 0, ann)
    assert page.get_attribute(ROOT, "data-status") == "waiting"
    assert hint(page) == say(text, "hint.waiting")
    joined = requests.post(f"{server.base_url}/v1/games/{game_id}/seats", json={"name": "Bob"}, timeout=30)
    assert joined.status_code == 201
    bob = joined.json()["player_token"]
    page.wait_for_selector(f"{ROOT}[data-status=active]")
    assert hint(page) == say(text, "tadmur.hint.place_or_guess")
    click_action(page, {"type": "place", "card": "6H"})
    wait_for_version(page, post_action(server.base_url, game_id, bob, {"type": "guess", "rank": "9"}))
    assert page.get_attribute(ROOT, "data-status") == "finished"
    assert hint(page) == say(text, "hint.finished")
