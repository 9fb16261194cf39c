"""A finished game's export (everything, nothing hidden) and its replay as a new finished game (issue 41, point 3).

The format is docs/api-additions.md "Finished-game export and replay". `export_of` reads an export from a record
and its events, in which the write path recorded the deal and every move (service/recording.py); `replayed_game`
plays one again with the rules alone (engine/replay.py) as a new finished game; `durak_text` writes a Durak export
as a move list people read.
"""

from __future__ import annotations

import json
import secrets
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from engine import GAMES
from engine.cards import parse_deck
from engine.errors import InvalidDeck
from engine.protocol import Event
from engine.replay import MoveDoesNotApply, dealt_deck, moves_of, replay
from service.recording import DEAL, MOVE, recorded_deal, recorded_move
from service.records import GameRecord, SeatRecord, Status, hash_token
from service.refusals import Refusal
from service.rematch import NotFinished
from service.turns import checked_setup, handed_to_ai, rules_options
from service.views import stored_event

FORMAT = "cardroom-export/1"
"""The export's `format`: a replay refuses any other (a later format names itself anew)."""


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
    # a seat with a token had a human player (a resigned Talmut seat is played by an AI now), as in service/rematch.py
    if seat.token_hash is not None:
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
        else SeatRecord(kind="human", name=seat.get("name"), token_hash=hash_token(secrets.token_urlsafe(32)))
        for seat in export["seats"]
    ]
    game, options = checked_setup(export["game"], seats, export["options"])
    deck = parse_deck(export["deck"], game.full_deck(options))
    seed = export["seed"]
    if export["shuffled"] and deck != dealt_deck(game, options, seed):
        raise InvalidDeck("deck is not the shuffle of seed, as shuffled says")
    ai_seats = [number for number, seat in enumerate(seats) if seat.kind == "ai"]
    moves = moves_of(export["actions"])
    try:
        state, applied = replay(game, len(seats), options, None if export["shuffled"] else deck, seed, ai_seats, moves)
    except MoveDoesNotApply as error:
        raise ReplayMismatch(error.index, str(error)) from error
    result = game.result(state)
    if result is None or _as_json(result.to_json()) != _as_json(export["result"]):
        got = "not finished" if result is None else f"finished with {result.to_json()}"
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
    created = Event("created", {"game": game.ID, "seats": len(seats), "status": Status.ACTIVE})
    events = [recorded_deal(stored_event(1, created), seed, None if export["shuffled"] else export["deck"])]
    for number, (move, move_events) in enumerate(zip(moves, applied, strict=True)):
        stored = [stored_event(number + 2, event) for event in move_events]
        recorded_move(stored, move.seat, move.action)
        events.extend(stored)
    return record, events


_DURAK_MOVES = {
    "attacked": "P{seat} attacks {card}",
    "defended": "P{seat} beats {against} with {card}",
    "took": "P{seat} takes",
    "resigned": "P{seat} resigns",
}


def durak_text(export: Mapping[str, Any]) -> str:
    """A Durak export as a move list people read: the seats, the trump and the deck, one line per bout, the result.

    E.g. `2. P1 attacks 9D, P0 takes, P1 is done: taken; P1 draws 1`: the bout's plays, its end (the attacker's
    `done`, the cards beaten off or taken) and the drawing after it (who draws how many, durak.md §3.9). Each
    seat's line shows the hand it was dealt. Lines end with a newline.

    Raises:
        TextNotOffered: `export` is not a Durak game's.
    """
    if export["game"] != "durak":
        raise TextNotOffered(f"a plain-text move list is offered for durak games only, not {export['game']}")
    game = GAMES["durak"]
    options = game.parse_options({})
    deck = parse_deck(export["deck"], game.full_deck(options))
    _, applied = replay(
        game, 2, options, None if export["shuffled"] else deck, export["seed"], [], moves_of(export["actions"])
    )
    start = game.new_game(2, options, deck, seed=export["seed"])
    public = game.view(start, None).state
    lines = [f"Durak, Cardroom game {export['game_id']}"]
    for seat in export["seats"]:
        who = (seat["name"] or "(no name)") if seat["kind"] == "human" else f"AI {seat['level']}"
        hand = " ".join(game.view(start, seat["seat"]).state["hand"])
        lines.append(f"P{seat['seat']}: {who}, dealt {hand}")
    lines += [
        f"Trump: {public['trump_suit']} (the bottom card {public['trump_card']})",
        f"Deck, top first: {' '.join(export['deck'])}",
        "",
    ]
    bout, plays, drawn = 1, [], []
    for events in applied:
        for event in events:
            shown = {"type": event.type, **event.public}
            if event.type in _DURAK_MOVES:
                plays.append(_DURAK_MOVES[event.type].format(**shown))
            elif event.type == "bout_ended":
                plays.append(f"P{shown['seat']} is done: " + ("beaten off" if shown["beaten_off"] else "taken"))
            elif event.type == "drew":
                drawn.append(f"P{shown['seat']} draws {shown['count']}")
        if any(event.type in ("bout_ended", "game_ended") for event in events):
            lines.append(f"{bout}. {'; '.join([', '.join(plays), *([', '.join(drawn)] if drawn else [])])}")
            bout, plays, drawn = bout + 1, [], []
    lines += ["", f"Result: {_durak_result(export['result'])}"]
    return "\n".join(lines) + "\n"


def _as_json(value: Any) -> Any:
    """`value` as JSON reads it back (a stored result's keys are strings, its tuples lists)."""
    return json.loads(json.dumps(value))


def _durak_result(result: Mapping[str, Any]) -> str:
    if result["draw"]:
        return "a draw, both hands empty"
    winner, loser = result["winners"][0], result["losers"][0]
    if result["reason"] == "resign":
        return f"P{loser} resigned, P{winner} wins"
    return f"P{loser} is the durak, P{winner} wins"
