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
from typing import Any

from engine.ai.levels import Players
from engine.ai.search import SearchHooks, actions_to_choose_from, playable_actions
from engine.ai.view import SeatView
from engine.games.talmut import playout as talmut_playout
from engine.games.talmut import rules as talmut_game
from engine.games.talmut.rules import Phase, PowerKind
from engine.protocol import JSON, Action

OPTIONAL_CHANCE = 0.05
"""How often `random` uses a `match` or `withdraw` when nothing else is listed for it (talmut.md §8.13)."""

CALL_ESTIMATE = 7.0
"""`easy` calls when its estimated total is at most this: 5 would be exact, a little more ends rounds sooner."""

WITHDRAW_ESTIMATE = 14.0
"""`easy` withdraws its call when cards pushed on it make its estimate this high."""

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
    playable = actions_to_choose_from(view)
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
        deck = talmut_game.full_deck(talmut_game.Options(**self.state["options"]))
        unseen = [talmut_game.value(card) for card in deck]
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

    It also calls when the stock is spent (`stock_spent`), and then keeps its call.

    Raises:
        ValueError: the seat has no legal action besides `resign`.
    """
    playable = actions_to_choose_from(view)
    table = _Table(view)
    sure = _sure_matches(table)
    if sure:
        return sure[0]
    withdrawn = {"type": "withdraw"} in table.legal and not stock_spent(table.state)
    if withdrawn and table.estimate() >= WITHDRAW_ESTIMATE:
        return {"type": "withdraw"}
    if all(action["type"] in _OPTIONAL for action in playable):
        return None
    phase = table.state["phase"]
    choice = {"draw": _start_turn, "decide": _decide, "power": _power, "exchange": _exchange}[phase](table)
    if choice is None:  # a safety net: every branch above names a legal action where one exists
        choice = next(action for action in table.legal if action["type"] not in _OPTIONAL)
    return choice


def _sure_matches(table: _Table) -> list[Action]:
    """The legal matches of cards the seat knows to have the window's rank (talmut.md §3.10): no gamble."""
    window = table.state["window"]
    if window is None:
        return []
    known = [slot for slot in table.mine if slot["card"] is not None and slot["card"][:-1] == window["rank"]]
    return [match for slot in known if (match := table.pick({"type": "match", "position": slot["position"]}))]


def _swap_target(table: _Table, card_value: int) -> Mapping[str, Any] | None:
    """The own slot a card of `card_value` should replace: the worst one, if it is clearly worse."""
    worst = table.worst()
    if worst is None:
        return None
    margin = 0 if worst["card"] is not None else 1.5  # an unknown card is replaced only by a clearly low one
    return worst if table.worth(worst) > card_value + margin else None


def stock_spent(view_state: Mapping[str, Any]) -> bool:
    """Whether no card can come from the stock (talmut.md §3.2, §3.12): it is empty, the pile holds at most one card.

    Nothing can rebuild the stock until a correct match throws a second card. Meanwhile a draw can only take the
    pile's one card, there is no penalty card (§3.11) and no power (§3.4): turn after turn the table changes at most
    by a swap of that card, and the round ends only by a call. It happens: at 8 seats the stock starts at 7 cards
    (40-card deck), so 7 penalty cards spend it. Each AI level then calls at its turn and keeps its call, as house
    rules end a Cabo round when the deck runs out; weighing the call by its chance, 7 `hard` seats (each under 1 in
    7 to be lowest) drew the pile's card and put it back for 2,000 versions.

    Args:
        view_state: a view's `state` (talmut.md §6.7): reads `stock_size` and `discard`.
    """
    return view_state["stock_size"] == 0 and len(view_state["discard"]) < 2


def _sure_of_a_low_total(table: _Table) -> bool:
    """Whether `easy` calls (talmut.md §3.13): it knows its whole layout, worth `CALL_ESTIMATE` or less."""
    return table.estimate() <= CALL_ESTIMATE and table.first_unknown() is None


def _start_turn(table: _Table) -> Action | None:
    if _sure_of_a_low_total(table) or stock_spent(table.state):
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


# ---------------------------------------------------------------------------------------------------------------
# Search (engine.ai.search): the determinizer and the playout hooks


def sample_state(view: SeatView, history: Sequence[JSON], rng: random.Random) -> talmut_game.TalmutState:
    """A full Talmut state consistent with what `view["you"]` knows.

    The view already carries everything the seat knows (talmut.md §6.1: each layout card lists the seats that
    know it, and the view shows the ones this seat knows), so every card it does not see, in layouts, the stock
    and a stock-drawn card, is dealt uniformly from the cards it has not seen. The options are the view's, and the
    history adds who resigned. What no seat's view shows is guessed: a standing call's total (taken from the
    sampled layout), the seed and the reshuffle count.
    """
    state, me = view["state"], view["you"]
    parse = talmut_game.parse_card
    layouts = state["layouts"]
    drawn = state["drawn"]
    options = talmut_game.Options(**state["options"])
    deck = talmut_game.full_deck(options)
    visible = {slot["card"] for layout in layouts for slot in layout["slots"] if slot["card"] is not None}
    visible.update(state["discard"])
    if drawn is not None and drawn["card"] is not None:
        visible.add(drawn["card"])
    pool = [card for card in deck if card.code not in visible]
    rng.shuffle(pool)
    unseen = iter(pool)
    slots = tuple(
        tuple(
            talmut_game.Slot(
                None if slot["empty"] else parse(slot["card"]) if slot["card"] is not None else next(unseen),
                tuple(slot["seen_by"]),
            )
            for slot in layout["slots"]
        )
        for layout in layouts
    )
    drawn_state = None
    if drawn is not None:
        card = parse(drawn["card"]) if drawn["card"] is not None else next(unseen)
        drawn_state = talmut_game.Drawn(drawn["source"], card)
    stock = tuple(unseen)
    power = state["power"]
    power_state = None
    if power is not None:
        peeked = power["peeked"]
        place = None if peeked is None else talmut_game.Place(peeked["seat"], peeked["position"])
        power_state = talmut_game.Power(PowerKind(power["kind"]), parse(power["card"]), place)
    window = state["window"]
    call = state["talmut"]
    call_state = None
    if call is not None:
        total = talmut_game.layout_total(slots[call["caller"]])
        call_state = talmut_game.Call(call["caller"], tuple(call["last_turns"]), total)
    seats = len(layouts)
    records = tuple(
        talmut_game.RoundRecord(
            round=entry["round"],
            caller=entry["caller"],
            call_total=entry["call_total"],
            false_call=entry["false_call"],
            cards=tuple(
                tuple(None if code is None else parse(code) for code in entry["cards"][str(seat)])
                for seat in range(seats)
            ),
            points=tuple(entry["points"][str(seat)] for seat in range(seats)),
            discard=(),
        )
        for entry in state["history"]
    )
    resigned = sorted({event["seat"] for event in history if event.get("type") == "resigned"})
    return talmut_game.TalmutState(
        options=options,
        seats=seats,
        deck=deck,
        fixed_deck=False,
        seed=rng.randrange(2**31),
        round=state["round"],
        turn=state["turn"],
        phase=Phase(state["phase"]),
        layouts=slots,
        stock=stock,
        discard=tuple(parse(code) for code in state["discard"]),
        drawn=drawn_state,
        power=power_state,
        window=None
        if window is None
        else talmut_game.Window(int(window["rank"]), window["last_thrower"], tuple(window["wrong_matchers"])),
        call=call_state,
        call_barred=state["call_barred"],
        totals=tuple(state["totals"][str(seat)] for seat in range(seats)),
        history=records,
        reshuffles=0,
        resigned=tuple(resigned),
        # a seat with no `resign` listed is an AI seat from the start (talmut.md §3.17); others are unknown
        ai_seats=() if any(action["type"] == "resign" for action in view["legal_actions"]) else (me,),
        reason=None,
    )


def evaluate(state: talmut_game.TalmutState, start: talmut_game.TalmutState) -> list[float] | None:
    """Stop a playout when the round (or the game) ends; else None.

    A finished round rewards each seat by its round points against the mean of the others' (lower is better,
    talmut.md §5.3): ½ + (others' mean − own) / (2 × `talmut_playout.SCORE_SCALE`), within 0..1, so that a round
    lost by 20 counts worse than one lost by 2 (`talmut_playout.round_rewards`). When the game ended (§5.5), each seat's
    reward is instead the share of other seats whose total is higher than its own, a tie counting half
    (`talmut_playout.final_rewards`): only the result counts then.
    """
    if state.reason is None and state.round == start.round:
        return None
    return talmut_playout.rewards_since(start, state.totals, over=state.reason is not None)


CALL_SAMPLES = 100
"""How many sampled states a search level's call estimate (`call_chance`) plays the call out in."""

CALL_CHANCE = 0.5
"""A search level calls when the call gives it the round's lowest points at least this often (`call_chance`)."""


def call_chance(view: SeatView, rng: random.Random) -> float:
    """How often a call now gives `view["you"]` the round's lowest points (talmut.md §3.13-§3.14, §5.3), 0..1.

    The share of `CALL_SAMPLES` states sampled from what the seat knows (`sample_state`) in which the call, then
    every other seat's last turn by the playout policy, ends the round with the seat's points (a false call's
    `call_penalty` included) below every other seat's; a tie for the lowest counts half.
    """
    me, history = view["you"], view.get("history", ())
    wins = 0.0
    for _ in range(CALL_SAMPLES):
        points = talmut_playout.called_round_points(sample_state(view, history, rng), me)
        others = min(points[seat] for seat in range(len(points)) if seat != me)
        wins += 1.0 if points[me] < others else 0.5 if points[me] == others else 0.0
    return wins / CALL_SAMPLES


ROLLOUT_LIMIT = 12
"""Playouts stop after this many moves (about a turn of each seat at 3) and are scored as if the round ended there
(`talmut_playout.Position.estimate`): played to the round's end they ran 50-100 moves, so `medium`'s 900 moves
bought a dozen samples."""


def search_first(view: SeatView, rng: random.Random) -> Action | None | str:
    """Before a search: a sure match or nothing for a seat listed only for optional actions, maybe a call.

    A seat listed only for `match` or `withdraw` makes a sure match or nothing; a seat that may call calls if
    `call_chance` is at least `CALL_CHANCE` or the stock is spent (`stock_spent`); else "search". The tree cannot
    price a call (talmut.md §3.13): its playouts stop after `ROLLOUT_LIMIT` moves and score the layouts as they
    lie, as if the round ended there with no call and no penalty, so waiting always looked as good as calling, and
    the search called only when it knew its whole layout to be low: `hard` called in none of its 227 rounds on 60
    tables against `easy` and `random`, and passed instead, taking the pile's top card and putting it back 1.3
    times a round against `easy` (docs/benchmarks.md). A search level never withdraws its call: a rule bot's second
    opinion (easy's) would take it back, so that two search seats could call and withdraw in turn for ever (each
    call lifts the other's bar, talmut.md §3.15).
    """
    playable = playable_actions(view)
    if playable and all(action["type"] in _OPTIONAL for action in playable):
        sure = _sure_matches(_Table(view))
        return sure[0] if sure else None
    if {"type": "call"} in playable and (stock_spent(view["state"]) or call_chance(view, rng) >= CALL_CHANCE):
        return {"type": "call"}
    return "search"


def root_actions(view: SeatView) -> list[Action]:
    """The moves the search weighs for the turn seat: all but `resign` and `call`, sure matches only.

    A match on an unknown card is a gamble the samples cannot price (each sample knows the card). The call is
    `search_first`'s. After a draw from the discard pile, no `discard` where the drawn card's rule
    (`drawn_card_move`) swaps the card in: the search drew it weighing that swap below the root, and putting it
    straight back (talmut.md §3.3, §7.7) would be a turn it never weighed; the root, which weighs every swap and
    the discard, did so at 26 of `hard`'s 245 take-backs on 60 tables (docs/benchmarks.md). Where the rule
    discards the card, taking it back was the search's own choice, and the root weighs it.
    """
    table = _Table(view)
    sure = _sure_matches(table)
    drawn = table.state["drawn"]
    keep = drawn is not None and drawn["source"] == "discard" and _rule_swaps(view)
    return [a for a in table.legal if a["type"] not in ("resign", "call") and (a["type"] != "match" or a in sure)
            and not (keep and a["type"] == "discard")]


def _rule_swaps(view: SeatView) -> bool:
    """Whether `drawn_card_move` swaps the seat's drawn card in.

    The rule reads only what the seat knows (its known cards, the drawn card), which every sample shares, so any
    one sample answers.
    """
    sample = sample_state(view, view.get("history", ()), random.Random(0))
    ruled = drawn_card_move(sample)
    return ruled is not None and ruled[1]["type"] == "swap"


def drawn_card_move(state: talmut_game.TalmutState) -> tuple[int, Action] | None:
    """Below the search's root, what the turn seat does with the card it drew; None in other phases (the tree branches).

    The move is the playout policy's swap for the seat's worst card, or discard (`talmut_playout.policy`,
    talmut.md §3.3), chosen knowing the card.

    A tree node is shared by every sample, and the tree chose there badly twice over. After a draw from the stock
    each sample drew another card, so one choice served them all, as if the seat swapped or discarded before
    looking. After a draw from the discard pile, the swaps into positions the seat does not know are alike, and
    the best of several equal noisy means looks better than each of them is: the tree rated a rey taken from the
    discard pile and swapped in blind at 0.805, direct playouts of that move at 0.698 (docs/benchmarks.md). The
    search still weighs every swap at its root, where the card is the real one.
    """
    if state.phase is not Phase.DECIDE:
        return None
    seat, move = talmut_playout.policy(talmut_playout.Position(state))
    return seat, talmut_playout.action(move)
HARD_MOVES = 9_000
"""The moves one `hard` decision may apply (engine/ai/search.py `SearchHooks.hard_moves`), at
23-35 microseconds a move."""
SEARCH: SearchHooks[talmut_game.TalmutState] = SearchHooks(
    talmut_game, sample_state, hard_moves=HARD_MOVES, root_actions=root_actions, playout=talmut_playout.playout,
    evaluate=evaluate, rollout_limit=ROLLOUT_LIMIT, before_search=search_first, rule_move=drawn_card_move,
)
"""Talmut's hooks for the search levels (engine.ai.search): playouts run on playout.py's position
with its policy, returning what the loop over the public rules would with `evaluate`, `ROLLOUT_LIMIT` and the
layouts scored as they lie at the cut-off (`talmut_playout.Position.estimate`)."""

PLAYERS = Players(easy=easy, search=SEARCH, easy_reads_history=False, random=random_level)
"""Talmut's AI levels, `random` its own (it uses an optional action only now and then)."""
