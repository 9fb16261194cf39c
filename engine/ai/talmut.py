"""Talmut AI levels (shared/rules/talmut.md), reading only the seat's JSON view and legal actions.

`random` plays a uniform legal action on its turn and acts on an optional action (`match`, `withdraw`) only now
and then; `easy` remembers what its view shows (the view keeps every card the seat has seen, §6.2), values each
unseen card at the mean of the cards it has not seen, matches only when sure, uses powers on its worst cards, and
calls when its estimated total is low. Both return None when the seat is listed only for optional actions and
chooses to let the game move on (talmut.md §4.1).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.protocol import Action

if TYPE_CHECKING:
    from engine.ai import SeatView

OPTIONAL_CHANCE = 0.05
"""How often `random` uses a `match` or `withdraw` when nothing else is listed for it (talmut.md §8.13)."""

CALL_ESTIMATE = 7.0
"""`easy` calls when its estimated total is at most this: 5 would be exact, a little more ends rounds sooner."""

WITHDRAW_ESTIMATE = 14.0
"""`easy` withdraws its call when cards pushed on it make its estimate this high."""

_DECK_VALUES = {40: [1, 2, 3, 4, 5, 6, 7, 10, 11, 12] * 4, 48: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] * 4}
_OPTIONAL = {"match", "withdraw", "resign"}


def _value(code: str) -> int:
    return int(code[:-1])


def random_level(view: SeatView, rng: random.Random) -> Action | None:
    """Level `random`: uniform over the turn seat's actions other than `resign`.

    A seat listed only for `match` or `withdraw` uses one with probability `OPTIONAL_CHANCE`, else does nothing
    (None).

    Raises:
        ValueError: the seat has no legal action besides `resign`.
    """
    playable = [action for action in view["legal_actions"] if action["type"] != "resign"]
    if not playable:
        raise ValueError("no legal action to choose from")
    if all(action["type"] in _OPTIONAL for action in playable) and rng.random() >= OPTIONAL_CHANCE:
        return None
    return rng.choice(playable)


class _Table:
    """What the seat knows, read from its view: its own slots, every card it can see, the unseen mean."""

    def __init__(self, view: SeatView) -> None:
        self.me: int = view["you"]
        self.state: Mapping[str, Any] = view["state"]
        self.legal: Sequence[Action] = view["legal_actions"]
        layouts = self.state["layouts"]
        self.mine = [slot for slot in layouts[self.me]["slots"] if not slot["empty"]]
        visible = [slot["card"] for layout in layouts for slot in layout["slots"] if slot["card"] is not None]
        visible += self.state["discard"]
        drawn = self.state["drawn"]
        if drawn is not None and drawn["card"] is not None:
            visible.append(drawn["card"])
        held = sum(1 for layout in layouts for slot in layout["slots"] if not slot["empty"])
        size = 48 if held + self.state["stock_size"] + len(self.state["discard"]) + (drawn is not None) > 40 else 40
        unseen = list(_DECK_VALUES[size])
        for code in visible:
            if _value(code) in unseen:
                unseen.remove(_value(code))
        self.mean = sum(unseen) / len(unseen) if unseen else 6.0

    def worth(self, slot: Mapping[str, Any]) -> float:
        """A slot's known value, or the unseen mean."""
        return float(_value(slot["card"])) if slot["card"] is not None else self.mean

    def estimate(self) -> float:
        """The seat's estimated layout total."""
        return sum(self.worth(slot) for slot in self.mine)

    def worst(self) -> Mapping[str, Any] | None:
        """The own slot worth most (unknown ones at the mean; a known card first on ties)."""
        if not self.mine:
            return None
        return max(self.mine, key=lambda slot: (self.worth(slot), slot["card"] is not None))

    def first_unknown(self) -> Mapping[str, Any] | None:
        """The lowest own position whose card the seat does not know."""
        return next((slot for slot in self.mine if slot["card"] is None), None)

    def pick(self, *candidates: Action | None) -> Action | None:
        """The first candidate that is legal now."""
        return next((action for action in candidates if action is not None and action in self.legal), None)

    def opponent_places(self) -> list[tuple[float, int, int]]:
        """(worth, seat, position) of every other seat's card, lowest worth first, the caller's cards first."""
        caller = None if self.state["talmut"] is None else self.state["talmut"]["caller"]
        places = []
        for layout in self.state["layouts"]:
            if layout["seat"] == self.me:
                continue
            for slot in layout["slots"]:
                if not slot["empty"]:
                    places.append((self.worth(slot), layout["seat"] != caller, layout["seat"], slot["position"]))
        places.sort()
        return [(worth, seat, position) for worth, _, seat, position in places]


def easy(view: SeatView, rng: random.Random) -> Action | None:
    """Level `easy`: sure matches, low swaps, powers on its worst cards, a call when its estimate is low.

    Raises:
        ValueError: the seat has no legal action besides `resign`.
    """
    table = _Table(view)
    if not any(action["type"] != "resign" for action in table.legal):
        raise ValueError("no legal action to choose from")
    window = table.state["window"]
    if window is not None:
        for slot in table.mine:  # match only a card it knows to have the window's rank (talmut.md §3.10)
            if slot["card"] is not None and slot["card"][:-1] == window["rank"]:
                sure = table.pick({"type": "match", "position": slot["position"]})
                if sure is not None:
                    return sure
    if {"type": "withdraw"} in table.legal and table.estimate() >= WITHDRAW_ESTIMATE:
        return {"type": "withdraw"}
    if all(action["type"] in _OPTIONAL for action in table.legal):
        return None
    phase = table.state["phase"]
    choice = {"draw": _start_turn, "decide": _decide, "power": _power, "exchange": _exchange}[phase](table)
    if choice is None:  # a safety net: every branch above names a legal action where one exists
        choice = next(action for action in table.legal if action["type"] not in _OPTIONAL)
    return choice


def _swap_target(table: _Table, card_value: int) -> Mapping[str, Any] | None:
    """The own slot a card of `card_value` should replace: the worst one, if it is clearly worse."""
    worst = table.worst()
    if worst is None:
        return None
    margin = 0 if worst["card"] is not None else 1.5  # an unknown card is replaced only by a clearly low one
    return worst if table.worth(worst) > card_value + margin else None


def _start_turn(table: _Table) -> Action | None:
    if table.estimate() <= CALL_ESTIMATE and table.first_unknown() is None:
        called = table.pick({"type": "call"})
        if called is not None:
            return called
    top = table.state["discard"][-1]
    if _swap_target(table, _value(top)) is not None:
        return table.pick({"type": "draw", "source": "discard"})
    return table.pick({"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"})


def _decide(table: _Table) -> Action | None:
    drawn = table.state["drawn"]
    target = _swap_target(table, _value(drawn["card"]))
    if target is not None and not (drawn["source"] == "stock" and _value(drawn["card"]) >= 10):
        return table.pick({"type": "swap", "position": target["position"]})
    return table.pick({"type": "discard"})


def _power(table: _Table) -> Action | None:
    power = table.state["power"]
    if power["kind"] == "caballo":
        worst = table.worst()
        others = table.opponent_places()
        if worst is not None and others and table.worth(worst) > others[0][0] + 1:
            mine = (table.me, worst["position"])
            theirs = others[0][1:]
            a, b = sorted([mine, theirs])
            return table.pick(
                {"type": "blind_swap", "a": {"seat": a[0], "position": a[1]}, "b": {"seat": b[0], "position": b[1]}}
            )
        return table.pick({"type": "skip_power"})
    unknown = table.first_unknown()
    if unknown is not None:
        return table.pick({"type": "peek", "seat": table.me, "position": unknown["position"]})
    worst = table.worst()
    if power["kind"] == "rey" and worst is not None and table.worth(worst) > table.mean + 1:
        return table.pick({"type": "peek", "seat": table.me, "position": worst["position"]})
    return table.pick({"type": "skip_power"})


def _exchange(table: _Table) -> Action | None:
    peeked = table.state["power"]["peeked"]
    if peeked["seat"] == table.me:
        slot = next(slot for slot in table.mine if slot["position"] == peeked["position"])
        others = table.opponent_places()
        if others and table.worth(slot) > others[0][0] + 1:
            return table.pick({"type": "exchange", "seat": others[0][1], "position": others[0][2]})
    return table.pick({"type": "skip_power"})
