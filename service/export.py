"""A finished game's export (everything, nothing hidden) and its replay as a new finished game (issue 41, point 3).

The format is docs/api-additions.md "Finished-game export and replay". `export_of` reads an export from a record
and its events, in which the write path recorded the deal and every move (service/recording.py); `replayed_game`
plays one again with the rules alone (engine/replay.py) as a new finished game; `move_list_text` writes one
as its game's move list people read (Durak's, engine/games/durak/notation.py).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from engine import GAMES
from engine.cards import parse_deck
from engine.errors import InvalidDeck
from engine.games import DECLARED
from engine.protocol import Event
from engine.replay import Move, MoveDoesNotApply, dealt, dealt_deck, moves_of, replaying
from service.recording import DEAL, MOVE, created_event, move_events
from service.records import GameRecord, SeatRecord, Status
from service.refusals import Refusal
from service.rematch import NotFinished
from service.seating import new_token
from service.turns import checked_setup, handed_to_ai, rules_options

FORMAT = "cardroom-export/1"
"""The export's `format`: a replay refuses any other (a later format names itself anew)."""

TURN_EVERY = 100
"""How many of a replay's actions are checked or applied between two yields to the web process's event loop.

A replay runs in its request, on the CPU: the largest that fits `MAX_BODY_BYTES` (64 KiB; about 1,200 actions of
a random Svoi Koziri game, 65.0 kB) took 55 ms to load (marshmallow, every action against its game's schema) and
40 ms to play again on this machine, so it lets the other greenlets run every `TURN_EVERY` actions (about 5 ms).
"""

T = TypeVar("T")


def taking_turns(items: Iterable[T]) -> Iterator[T]:
    """`items`, with a yield to the event loop after every `TURN_EVERY` of them.

    `time.sleep(0)` is gevent's sleep in a gunicorn gevent worker (service/gunicorn_conf.py `worker_class`,
    monkey-patched) and lets the other greenlets run; in a plain thread it only gives up the GIL.
    """
    for count, item in enumerate(items, 1):
        yield item
        if count % TURN_EVERY == 0:
            time.sleep(0)


def replayed(game: Any, state: Any, moves: Sequence[Move]) -> tuple[Any, list[list[Event]]]:
    """The state after `moves` from `state` (the deal: engine/replay.py `dealt`) and each move's events, taking turns.

    Raises:
        MoveDoesNotApply: a move is refused by the rules.
    """
    applied = []
    for after, events in taking_turns(replaying(game, state, moves)):
        state = after
        applied.append(events)
    return state, applied


class NotExportable(Refusal):
    """A finished game stored before its moves were recorded: it cannot be exported (409 `not_exportable`)."""

    status = 409
    error = "not_exportable"


class ReplayMismatch(Refusal):
    """A replay whose action `index` does not apply, or whose result is not the export's (422 `replay_mismatch`).

    `index` is the 0-based index into the export's `actions`; for a result that differs, `len(actions)`. The error
    body names it as `action_index`.
    """

    status = 422
    error = "replay_mismatch"

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index

    @property
    def extra(self) -> dict[str, Any]:
        """`{"action_index": index}`."""
        return {"action_index": self.index}


class TextNotOffered(Refusal):
    """The plain-text move list asked of a game other than Durak (406 `not_acceptable`)."""

    status = 406
    error = "not_acceptable"


def export_of(record: GameRecord, events: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The export of finished game `record` from its stored `events` (`GameStore.events`): the whole game, unhidden.

    `seats` are the seats as the game began (a resigned Talmut seat, which an AI played on, is still "human") with
    their players' names, never tokens; `result` is the view's.

    Raises:
        NotFinished: the game is not finished (service/rematch.py, 409 `not_finished`).
        NotExportable: the game was stored before its deal and moves were recorded.
    """
    if record.status != Status.FINISHED:
        raise NotFinished("only a finished game can be exported")
    deal = next((event[DEAL] for event in events if DEAL in event), None)
    if deal is None:
        raise NotExportable("this game was played before the moves of a game were recorded: it has no export")
    game = GAMES[record.game]
    options = rules_options(game, record.options)
    shuffled = deal["deck"] is None
    deck = [card.code for card in dealt_deck(game, options, deal["seed"])] if shuffled else deal["deck"]
    return {
        "format": FORMAT,
        "game_id": record.game_id,
        "game": record.game,
        "options": record.options,
        "seats": [_exported_seat(number, seat) for number, seat in enumerate(record.seats)],
        "seed": deal["seed"],
        "deck": deck,
        "shuffled": shuffled,
        "actions": [event[MOVE] for event in events if MOVE in event],
        "result": record.result,
    }


def _exported_seat(number: int, seat: SeatRecord) -> dict[str, Any]:
    if seat.had_player:
        return {"seat": number, "kind": "human", "name": seat.name}
    return {"seat": number, "kind": "ai", "name": seat.name, "level": seat.level}


def replayed_game(export: Mapping[str, Any], visibility: str) -> tuple[GameRecord, list[dict[str, Any]]]:
    """A new finished game played from `export` move for move, and its stored events; nothing is written here.

    `export` has the export's shape (service/schemas/export.py checked it, each action against the game's action
    schema too). The new game has a new id, `visibility`, the export's options, seats and moves, and no clock; its
    human seats are held by no token anyone has (each a random one's hash, thrown away), so none is open and none
    can act, leave or ask for a rematch. Its events are the rules' events of each move (the service's notes of the
    original, such as a clock's `timeout`, are not played again), recorded as any game's are, so its export is the
    original's but for `game_id`.

    Raises:
        UnknownGame, InvalidSetup, InvalidOptions: the export's game, seats or options are not a game's
            (service/turns.py `checked_setup`).
        InvalidDeck: `deck` is not a permutation of the game's deck, or `shuffled` and not the shuffle of `seed`.
        ReplayMismatch: an action does not apply, or the game is not finished after the last one with the
            export's `result`.
    """
    seats = [
        SeatRecord(kind="ai", name=seat.get("name"), level=seat.get("level"))
        if seat["kind"] == "ai"
        else SeatRecord(kind="human", name=seat.get("name"), token_hash=new_token()[1])
        for seat in export["seats"]
    ]
    game, options = checked_setup(export["game"], seats, export["options"])
    deck = parse_deck(export["deck"], game.full_deck(options))
    seed = export["seed"]
    if export["shuffled"] and deck != dealt_deck(game, options, seed):
        raise InvalidDeck("deck is not the shuffle of seed, as shuffled says")
    ai_seats = [number for number, seat in enumerate(seats) if seat.kind == "ai"]
    moves = moves_of(export["actions"])
    start = dealt(game, len(seats), options, None if export["shuffled"] else deck, seed, ai_seats)
    try:
        state, applied = replayed(game, start, moves)
    except MoveDoesNotApply as error:
        raise ReplayMismatch(error.index, str(error)) from error
    result = game.result(state)
    if result is None or _as_json(result.to_json()) != _as_json(export["result"]):
        got = "not finished" if result is None else f"finished with {json.dumps(result.to_json(), sort_keys=True)}"
        raise ReplayMismatch(len(moves), f"after the last action the game is {got}, not the export's result")
    now = time.time()
    record = GameRecord(
        game_id=uuid.uuid4().hex,
        game=game.ID,
        version=1 + len(moves),
        status=Status.FINISHED,
        created_at=now,
        seats=seats,
        options=dict(export["options"]),
        state=game.dump_state(state),
        result=result.to_json(),
        visibility=visibility,
    )
    record.seats = handed_to_ai(record, state)
    record.decoded = state
    events = [created_event(game.ID, len(seats), Status.ACTIVE, seed, None if export["shuffled"] else export["deck"])]
    for number, (move, rules_events) in enumerate(zip(moves, applied, strict=True)):
        events.extend(move_events(number + 2, move.seat, move.action, rules_events))
    return record, events


def move_list_text(export: Mapping[str, Any]) -> str:
    """A finished game's export as its game's move list people read (its declaration's `move_list`).

    Durak's: engine/games/durak/notation.py. A human seat is shown by its name ("(no name)" if none), an AI seat
    as "AI <level>".

    Raises:
        TextNotOffered: the game declares no move list (406).
        MoveDoesNotApply: an action of `export` does not apply (a stored export always does).
        InvalidDeck: `deck` is not a permutation of the game's deck.
    """
    move_list = DECLARED[export["game"]].move_list
    if move_list is None:
        offered = sorted(game for game, declared in DECLARED.items() if declared.move_list is not None)
        raise TextNotOffered(
            f"a plain-text move list is offered for {', '.join(offered)} games only, not {export['game']}"
        )
    game = GAMES[export["game"]]
    options = rules_options(game, export["options"])
    deck = parse_deck(export["deck"], game.full_deck(options))
    ai_seats = [seat["seat"] for seat in export["seats"] if seat["kind"] == "ai"]
    start = dealt(game, len(export["seats"]), options, None if export["shuffled"] else deck, export["seed"], ai_seats)
    end, applied = replayed(game, start, moves_of(export["actions"]))
    players = [
        (seat["name"] or "(no name)") if seat["kind"] == "human" else f"AI {seat['level']}" for seat in export["seats"]
    ]
    return move_list(f"Cardroom game {export['game_id']}", players, deck, start, applied, end)


def _as_json(value: Any) -> Any:
    """`value` as JSON reads it back (a stored result's keys are strings, its tuples lists)."""
    return json.loads(json.dumps(value))
