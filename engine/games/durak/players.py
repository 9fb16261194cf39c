"""Durak AI levels; each reads only the seat's JSON view (shared/rules/durak.md §6.4), never the state."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from engine.ai.costs import rank, trump_cost
from engine.ai.levels import Players
from engine.ai.search import SearchHooks, actions_to_choose_from, solve_exactly
from engine.ai.view import SeatView
from engine.cards import FRENCH_36, FRENCH_SUITS, Card
from engine.games.durak import playout as durak_playout
from engine.games.durak import rules as durak
from engine.games.durak.playout import keeps_trump
from engine.games.durak.reading import EASY, LOWEST, Reading, RuleBot, read_opponent
from engine.games.durak.rules import DurakState
from engine.protocol import JSON, Action

EASY_SOLVE_MOVES = 1_500
"""The moves `easy` may spend solving an endgame (playout.py `solve`): ~15 ms of CPU at most, enough
for the last eight or so cards; a bigger endgame it plays by its rules."""
FULL_DECK = FRENCH_36
_SUITS = {suit.letter: suit for suit in FRENCH_SUITS}


def easy(view: SeatView, rng: random.Random) -> Action:
    """Level `easy`: a cheap-card rule bot that presses the defender and plays small endgames exactly.

    Attacking, it opens with its cheapest card (trumps count above every plain card) and throws in every plain card
    it may (durak.md §3.4), trumps too once the stock is empty; then ends the bout. Defending, it beats with the
    cheapest card, but takes rather than spend a trump while the stock holds more than `KEEP_TRUMPS` cards, or a
    trump of rank Q or above while it holds more than `EARLY` (playout.py, whose playouts play
    these rules half the time). Once the stock is empty and the history accounts
    for every card, it solves the rest within `EASY_SOLVE_MOVES` moves and plays a won (or drawn) position's move.
    It never resigns. Reads only `view["state"]`, `view["legal_actions"]` and `view["history"]` (durak.md §6.4);
    `rng` breaks no ties (the choice is deterministic) and is accepted for the common signature.

    These rules score 72% against the `lowest` bot (bench/lowest.py) where the earlier cheap-card bot, which kept
    back its high cards and trumps when throwing in, scored 49% (docs/benchmarks.md).

    Raises:
        ValueError: the seat has no legal action besides `resign` (it is not to act).
    """
    actions = actions_to_choose_from(view)
    solved = solve_exactly(SEARCH, view, EASY_SOLVE_MOVES)
    if solved is not None and solved.keeping_move is not None:
        return solved.keeping_move
    return _rules_move(actions, view["state"]["trump_suit"], view["state"]["stock_size"])


def _rules_move(actions: Sequence[Action], trump: str, stock: int) -> Action:
    """`easy`'s rules without its endgame solving (`easy`'s docstring).

    `actions` are the seat's legal ones without `resign` (at least one), `trump` the trump suit's letter, `stock`
    the number of cards in the stock.
    """
    by_type: dict[str, list[Action]] = {}
    for action in actions:
        by_type.setdefault(action["type"], []).append(action)

    if "take" in by_type:  # defending
        defences = by_type.get("defend", [])
        if not defences:
            return by_type["take"][0]
        cheapest = _cheapest(defences, trump)
        code = cheapest["card"]
        if code[-1] == trump and keeps_trump(rank(code), stock):
            return by_type["take"][0]  # a trump is worth more than a few cards now
        return cheapest

    attacks = by_type.get("attack", [])
    if "done" not in by_type:  # opening a bout: an attack is the only move
        return _cheapest(attacks, trump)
    pressing = [action for action in attacks if action["card"][-1] != trump or stock == 0]
    if pressing:
        return _cheapest(pressing, trump)
    return by_type["done"][0]


def lowest_rules_move(actions: Sequence[Action], trump: str) -> Action:
    """The plainest way's move (bench/lowest.py `lowest`, reading.py `LOWEST`): the cheapest card, trumps counted.

    It attacks, throws in and defends with its cheapest legal card (trumps cost more than every plain card,
    durak.md §3.1), takes only when nothing beats, and ends a bout only when it can add nothing. `actions` are the
    seat's legal ones without `resign` (at least one), `trump` the trump suit's letter.
    """
    for kind in ("attack", "defend"):
        cards = [action for action in actions if action["type"] == kind]
        if cards:
            return _cheapest(cards, trump)
    return next(action for action in actions if action["type"] in ("take", "done"))


def _cheapest(actions: Sequence[Action], trump: str) -> Action:
    # min keeps the first of equal costs, i.e. the rules' hand order: deterministic.
    return min(actions, key=lambda action: trump_cost(action["card"], trump))


# ---------------------------------------------------------------------------------------------------------------
# Search (engine.ai.search): the determinizer and the playout hooks


def known_cards(view: SeatView, history: Sequence[JSON]) -> tuple[set[str], set[str]]:
    """(the discard pile, the opponent's cards the seat has seen go into its hand), from the public history.

    Cards on the table go to the discard pile when a bout is beaten off and into the defender's hand after a take
    (durak.md §3.6, §3.7); the indicator goes to whoever draws it (§6.1); the first attack's trump was shown
    (§2.6). A known card leaves the opponent's hand when it plays it.
    """
    me = view["you"]
    opponent = 1 - me
    first = view["state"]["first_attack"]
    known: set[str] = set()
    if first["seat"] == opponent and first["card"] is not None:
        known.add(first["card"])
    discard: set[str] = set()
    table: list[str] = []
    for event in history:
        kind = event.get("type")
        if kind in ("attacked", "defended"):
            table.append(event["card"])
            if event["seat"] == opponent:
                known.discard(event["card"])
        elif kind == "bout_ended":
            if event["beaten_off"]:
                discard.update(table)
            elif event["seat"] == me:  # the attacker ended a bout the opponent took
                known.update(table)
            table = []
        elif kind == "trump_card_drawn" and event["seat"] == opponent:
            known.add(event["card"])
    return discard, known


def sample_state(view: SeatView, history: Sequence[JSON], rng: random.Random) -> DurakState:
    """A full Durak state consistent with what `view["you"]` knows (its hand, the table, sizes, the history).

    The opponent holds the cards the seat saw it pick up (`known_cards`) plus unseen cards drawn uniformly (or,
    from an opponent read as `easy`, among the hands its moves leave: `prepare_sampler`); the stock is the rest,
    with the public indicator last. If the history is incomplete, unexplained unseen cards go to the discard pile
    so that every size in the view still holds.
    """
    return prepare_sampler(view, history)(rng)


def _unseen(view: SeatView, history: Sequence[JSON]) -> tuple[set[str], set[str], list[str]]:
    """(the discard pile, the opponent's known cards, the cards the seat has not seen in deck order), by code.

    The seat has seen its hand, the table, the indicator, the discard pile and the opponent's known cards
    (`known_cards`); the opponent's other cards and the stock below the indicator are among the unseen ones.
    """
    state = view["state"]
    discard, known = known_cards(view, history)
    table = [code for row in state["table"] for code in (row["attack"], row["defense"]) if code is not None]
    indicator = state["trump_card"]
    seen = set(state["hand"]) | set(table) | ({indicator} if indicator else set())
    known -= seen
    discard -= seen | known
    return discard, known, [card.code for card in FULL_DECK if card.code not in seen | discard | known]


TRUSTED_AFTER = 3
"""Moves of the opponent that must each have ruled out, a `RuleBot`'s way, a card whose place the seat does not
know, before the search reads it as that bot (`durak_reading.Reading.moves`)."""
READ_AS = (EASY, LOWEST)
"""The ways an opponent is read by, in turn: the next only once the history refutes the one before (reading.py).
What `easy`'s way rules out holds of `lowest` too, and `lowest`'s rules out more: read first as `lowest`, an `easy`
opponent that took while holding trumps it keeps was found to hold none."""
_RULE_MOVES: dict[RuleBot, Callable[[Sequence[Action], str, int], Action]] = {
    EASY: _rules_move,
    LOWEST: lambda actions, trump, stock: lowest_rules_move(actions, trump),
}
"""Each way's move, as the tree of a search that read the opponent so expects it (`prepare_opponent`)."""


def trusted_reading(
    view: SeatView, history: Sequence[JSON], unseen: Sequence[str]
) -> tuple[Reading, RuleBot] | None:
    """What the opponent's moves tell of its hidden hand, if it has played as `easy` or `lowest` plays (reading.py).

    None, so that the search guesses uniformly and weighs every move of the opponent, unless every move of it the
    seat saw was one such a bot could make and at least `TRUSTED_AFTER` of them ruled cards out; None too once the
    stock is empty (the seat then knows every card). The bots are tried in `READ_AS`' order, and one whose reading
    the history does not refute is the answer, trusted or not. `unseen` are the cards the seat has not seen
    (`_unseen`). With the reading, the way it was read by.
    """
    if view["state"]["stock_size"] == 0:
        return None  # every card is known: nothing to read
    for rules in READ_AS:
        reading = read_opponent(view, history, unseen, rules)
        if reading is not None:
            return (reading, rules) if reading.moves >= TRUSTED_AFTER else None
    return None


def prepare_opponent(view: SeatView, history: Sequence[JSON]) -> Callable[[DurakState], Action | None] | None:
    """The opponent's move as the search's tree expects it (`SearchHooks.prepare_opponent`), or None.

    An opponent `trusted_reading` reads as `easy` (or `lowest`) is expected to play that bot's rules while the stock
    holds cards (with an empty stock `easy` solves, and the tree weighs every move); against anyone else the tree
    weighs every move of the opponent.
    """
    trusted = trusted_reading(view, history, _unseen(view, history)[2])
    if trusted is None:
        return None
    move = _RULE_MOVES[trusted[1]]

    def expected(state: DurakState) -> Action | None:
        if not state.stock:
            return None
        (seat,) = durak.to_act(state)
        actions = [action for action in durak.legal_actions(state, seat) if action["type"] != "resign"]
        return move(actions, state.trump.letter, len(state.stock))

    return expected


def prepare_sampler(
    view: SeatView, history: Sequence[JSON], *, read: bool = True
) -> Callable[[random.Random], DurakState]:
    """`sample_state` for one search: what the samples share (the known cards, the parsed view) is worked out once.

    Against an opponent `trusted_reading` reads as `easy` or `lowest`, the opponent's hidden cards are drawn from
    those its moves leave possible (reading.py) instead of uniformly; `read` False always draws them
    uniformly (the plain determinization of bench/yardsticks).
    """
    state = view["state"]
    me = view["you"]
    opponent = 1 - me
    discard, known, unseen_codes = _unseen(view, history)
    opponent_size = state["hand_sizes"][opponent]
    known_hand = [durak.parse_card(code) for code in sorted(known)[:opponent_size]]
    unseen = [durak.parse_card(code) for code in unseen_codes]
    need = opponent_size - len(known_hand)
    trusted = trusted_reading(view, history, unseen_codes) if read else None
    reading = None if trusted is None else trusted[0]
    indicator = state["trump_card"]
    stock_count = max(0, state["stock_size"] - 1)
    last = (durak.parse_card(indicator),) if indicator else ()
    my_hand = durak.hand_order(durak.parse_card(code) for code in state["hand"])
    known_discard = tuple(durak.parse_card(code) for code in sorted(discard))
    first = state["first_attack"]
    shown = durak.DurakState(
        trump=_SUITS[state["trump_suit"]],
        stock=(),
        hands=((), ()),
        discard=(),
        table=tuple(
            durak.Row(
                durak.parse_card(row["attack"]), None if row["defense"] is None else durak.parse_card(row["defense"])
            )
            for row in state["table"]
        ),
        attacker=state["attacker"],
        bout=state["bout"],
        bout_limit=state["bout_limit"],
        defender_took=state["defender_took"],
        first_attack_seat=first["seat"],
        first_attack_card=None if first["card"] is None else durak.parse_card(first["card"]),
        trump_card_drawn_by=state["trump_card_drawn_by"],
        reason=None,
        loser=None,
        seed=0,
    )

    def sample(rng: random.Random) -> DurakState:
        read = None if reading is None else reading.sample_hand(rng)
        if read is None:
            pool = list(unseen)
            rng.shuffle(pool)
        else:  # the read hand first, then the rest of the unseen cards shuffled
            rest = [card for card in unseen if card.code not in read]
            rng.shuffle(rest)
            pool = [card for card in unseen if card.code in read] + rest
        hands: list[tuple[Card, ...]] = [(), ()]
        hands[me] = my_hand
        hands[opponent] = durak.hand_order(known_hand + pool[:need])
        return replace(
            shown,
            stock=(*pool[need : need + stock_count], *last),
            hands=tuple(hands),
            discard=known_discard + tuple(pool[need + stock_count :]),
            seed=rng.randrange(2**31),
        )

    return sample


SOLVABLE_CARDS = 12
"""Cards in play (both hands and the table) up to which an endgame is worth solving: the solver, given 10,000
moves, solved 40% of the 12-card positions met in random games and 10% of the 14-card ones."""


def exact_state(view: SeatView, history: Sequence[JSON]) -> DurakState | None:
    """The whole position once the stock is empty and it is small enough to solve, else None (engine/ai/solver.py).

    With no stock, every card is in the seat's hand, on the table, in the discard pile the history shows, or in
    the opponent's hand (durak.md §6.4), so `sample_state` has nothing left to guess. None while more than
    `SOLVABLE_CARDS` are in play (a solve would rarely finish, and costs half the search's budget), and when the
    history does not account for every card (the opponent's hand would be a guess).
    """
    state = view["state"]
    in_play = sum(state["hand_sizes"]) + sum(1 + (row["defense"] is not None) for row in state["table"])
    if state["stock_size"] != 0 or in_play > SOLVABLE_CARDS:
        return None
    discard, _ = known_cards(view, history)
    table = {code for row in state["table"] for code in (row["attack"], row["defense"]) if code is not None}
    unseen = {card.code for card in FULL_DECK} - set(state["hand"]) - table - discard
    if len(unseen) != state["hand_sizes"][1 - view["you"]]:
        return None
    return sample_state(view, history, random.Random(0))


def solve_key(state: DurakState) -> tuple[object, ...]:
    """What decides the rest of a game with an empty stock, the solver's name for a position.

    The hands, the table, who attacks, the bout's limit and whether the defender took; the discard pile's order,
    the bout's number and the seed do not change what may happen next. The key of a solve over the public rules
    (engine/ai/solver.py `solve`); the fast path's (playout.py `solve`) names positions alike.
    """
    return state.hands, state.table, state.attacker, state.bout_limit, state.defender_took


SOLVE_SHARE = 1 / 6
"""The share of a search level's moves a solve may spend: 8,000 of `hard`'s 48,000, what half of its earlier 16,000
gave (when the solver still played the public rules, a move there cost about four of the search's; on the fast path,
playout.py `solve`, about one). A solve that fails leaves the search the rest."""
ROLLOUT_LIMIT = 300
"""A playout longer than this many moves is cut off as a draw (random Durak games end within about 200)."""
HARD_MOVES = 48_000
"""The moves one `hard` decision may apply (engine/ai/search.py `SearchHooks.hard_moves`), at
about 6 microseconds a move with its share of sampling and the tree."""
SEARCH: SearchHooks[DurakState] = SearchHooks(
    durak,
    sample_state,
    hard_moves=HARD_MOVES,
    prepare_sampler=prepare_sampler,
    playout=durak_playout.playout,
    prepare_opponent=prepare_opponent,
    rollout_limit=ROLLOUT_LIMIT,
    exact_state=exact_state,
    solve=durak_playout.solve,
    solve_share=SOLVE_SHARE,
)
"""Durak's hooks for the search levels (engine.ai.search)."""

PLAYERS = Players(easy=easy, search=SEARCH, easy_reads_history=True)
"""Durak's AI levels: `easy` reads the history, to solve endgames from the cards it shows gone."""
