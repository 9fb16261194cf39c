"""The interface every game module implements, and the value types it shares.

A game is a module whose top-level names satisfy `Game`; `engine.games.GAMES` maps each game id to its module.
States are frozen dataclasses: `apply` returns a new state and never mutates its input. Actions are the JSON
objects clients post (`{"type": "attack", "card": "6H"}`), so `legal_actions` is exactly what the API lists.

What only some games' rules have (Talmut's optional matches, its resigned seats played on by an AI, its pause
before an AI closes a window) is the game's `CAPABILITIES`, read through `capabilities(game)`: a game without them
declares `Capabilities()`, whose defaults change nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from engine.actions import ActionShapes
from engine.cards import Card

Seat = int
Action = Mapping[str, Any]
JSON = Any

StateT = TypeVar("StateT")
# Invariant: options flow in (`full_deck`, `new_game`) and out (`parse_options`), so mypy refuses a variance.
OptionsT = TypeVar("OptionsT")


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, in past tense (`attacked`, `drew`, `bout_ended`).

    `public` holds the fields every viewer sees. `private` maps a seat to extra fields only that seat sees
    (e.g. the cards it drew, where others see only `count`); `engine.redaction.event_for` merges them per viewer.
    """

    type: str
    public: Mapping[str, JSON] = field(default_factory=dict)
    private: Mapping[Seat, Mapping[str, JSON]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game's outcome (shared/API.md "The view": `result`).

    `scores` maps a seat number, as a string, to its score, or is the game's own JSON object where its rules file
    says so (Talmut: `{"totals": ..., "rounds": [...]}`); `reason` is a rules-file word such as `durak`.
    """

    winners: tuple[Seat, ...]
    losers: tuple[Seat, ...]
    draw: bool
    scores: Mapping[str, JSON]
    reason: str

    def to_json(self) -> dict[str, JSON]:
        """The JSON object of the API's `result`."""
        return {
            "winners": list(self.winners),
            "losers": list(self.losers),
            "draw": self.draw,
            "scores": dict(self.scores),
            "reason": self.reason,
        }

    @classmethod
    def heads_up(cls, winner: Seat | None, reason: str) -> Result:
        """The result of a two-seat game: `winner` (0 or 1) scores 1 and the other seat 0; None is a draw.

        >>> Result.heads_up(1, "resign").to_json()
        {'winners': [1], 'losers': [0], 'draw': False, 'scores': {'0': 0, '1': 1}, 'reason': 'resign'}
        """
        if winner is None:
            return cls(winners=(), losers=(), draw=True, scores={"0": 0, "1": 0}, reason=reason)
        scores = {str(seat): int(seat == winner) for seat in (0, 1)}
        return cls(winners=(winner,), losers=(1 - winner,), draw=False, scores=scores, reason=reason)


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer may know: `state` is the API view's `state`, `seats` the public facts per seat.

    `seats[i]` is merged into the API's `seats[i]` (e.g. `{"hand_size": 6}`).
    """

    state: JSON
    seats: Sequence[Mapping[str, JSON]]


def _no_ai_seats(state: StateT, seats: Iterable[Seat]) -> StateT:
    return state


def _no_seats_handed(state: object) -> Mapping[Seat, str]:
    return {}


def _no_delay(state: object, seat: Seat) -> int:
    return 0


@dataclass(frozen=True, slots=True)
class Capabilities(Generic[StateT]):
    """The optional parts of a game's rules; each default is what a game without that part does.

    Attributes:
        optional_actions: action types a listed seat is never waited for (Talmut's `match` and `withdraw`,
            talmut.md §4.1); an AI listed only for them may choose nothing. Default: none.
        with_ai_seats: `(state, seats) -> state`, told once, at creation, which seats an AI plays from the start.
            Default: the state unchanged.
        seats_handed_to_ai: `state -> {seat: level}`, the seats the rules now hand to an AI (a resigned Talmut
            seat, talmut.md §3.17). Default: none.
        ai_delay_ms: `(state, seat) -> milliseconds` an AI in `seat` waits before acting (0: at once). The wait
            counts from the first of the consecutive versions in which it is > 0 for that seat
            (service/pauses.py), so a game returns 0 for at least one version between two waits. Default: 0.
        ai_delay_reason: why an AI waits when `ai_delay_ms` is > 0, a word for the view's `ai_pauses` (Talmut:
            `match_window`, so that other seats may match). Default: `delay`.
    """

    optional_actions: frozenset[str] = frozenset()
    with_ai_seats: Callable[[StateT, Iterable[Seat]], StateT] = _no_ai_seats
    seats_handed_to_ai: Callable[[StateT], Mapping[Seat, str]] = _no_seats_handed
    ai_delay_ms: Callable[[StateT, Seat], int] = _no_delay
    ai_delay_reason: str = "delay"

    @property
    def hands_seats_to_ai(self) -> bool:
        """Whether the rules may hand a seat to an AI during play (a `seats_handed_to_ai` of the game's own)."""
        return self.seats_handed_to_ai is not _no_seats_handed


class Game(Protocol[StateT, OptionsT]):
    """One game's rules, as module-level names (checked by mypy against each module)."""

    ID: str
    TITLE: str
    SEATS: range
    ACTIONS: ActionShapes
    CAPABILITIES: Capabilities[StateT]

    def describe_options(self) -> dict[str, JSON]:
        """Each option's name -> `{"type": ..., "default": ..., ...}` for `GET /v1/rules/{game}`."""
        ...

    def parse_options(self, raw: Mapping[str, JSON]) -> OptionsT:
        """Validate a create request's `options`; raises `InvalidOptions`."""
        ...

    def full_deck(self, options: OptionsT) -> tuple[Card, ...]:
        """The game's deck in canonical order."""
        ...

    def new_game(self, seats: int, options: OptionsT, deck: Sequence[Card] | None = None, *, seed: int) -> StateT:
        """Deal `deck` (top first; None: the full deck shuffled by `seed`) to `seats` players.

        `seed` also drives any later chance. Raises `InvalidOptions` (the seat count) and `InvalidDeck`.
        """
        ...

    def to_act(self, state: StateT) -> frozenset[Seat]:
        """The seats that may act now (empty once finished)."""
        ...

    def legal_actions(self, state: StateT, seat: Seat) -> list[Action]:
        """The exact bodies `seat` may post now, in the rules file's order; empty when not its turn."""
        ...

    def apply(self, state: StateT, seat: Seat, action: Action) -> tuple[StateT, list[Event]]:
        """Play one action; raises `GameFinished`, `NotYourTurn`, `IllegalAction`."""
        ...

    def view(self, state: StateT, seat: Seat | None) -> View:
        """What `seat` (None: a spectator) may see."""
        ...

    def result(self, state: StateT) -> Result | None:
        """The outcome, or None while the game is in play."""
        ...

    def cards_in_play(self, state: StateT) -> list[Card]:
        """Every card of the state, wherever it lies (for the conservation property)."""
        ...

    def hidden_from(self, state: StateT, seat: Seat | None) -> set[Card]:
        """The cards `seat` may not see now (for the redaction property)."""
        ...

    def dump_state(self, state: StateT) -> dict[str, JSON]:
        """A JSON-safe dict of `state` that `load_state` turns back into an equal state."""
        ...

    def load_state(self, data: Mapping[str, JSON]) -> StateT:
        """Inverse of `dump_state`."""
        ...


def capabilities(game: Game[StateT, Any]) -> Capabilities[StateT]:
    """The optional parts of `game`'s rules (`Capabilities`): the one way callers reach them."""
    return game.CAPABILITIES
