"""A Durak game as a move list people read (the export's `?format=text`, docs/api-additions.md).

Pure: from the deal and each move's events to text. The service finds it through the game's declaration
(`GameDeclaration.move_list`); a game without one offers no move list.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import Card
from engine.games.durak.rules import DurakState, result, view
from engine.protocol import Event

_MOVES = {
    "attacked": "P{seat} attacks {card}",
    "defended": "P{seat} beats {against} with {card}",
    "took": "P{seat} takes",
    "resigned": "P{seat} resigns",
}


def move_list(
    heading: str,
    players: Sequence[str],
    deck: Sequence[Card],
    start: DurakState,
    moves: Sequence[Sequence[Event]],
    end: DurakState,
) -> str:
    """The game dealt as `start` from `deck` (top first) and played to `end`, `moves` each move's events, as text.

    `heading` follows the game's name on the first line (e.g. "Cardroom game 9b2f4c0e"); `players` names each
    seat (e.g. "Ann", "AI easy"), shown with the hand it was dealt. Then the trump and the deck, one line per
    bout, e.g. `2. P1 attacks 9D, P0 takes, P1 is done: taken; P1 draws 1`: the bout's plays, its end (the
    attacker's `done`, the cards beaten off or taken) and the drawing after it (who draws how many, durak.md
    §3.9); and the result (§5). Lines end with a newline.

    Raises:
        ValueError: `end` is not finished.
    """
    public = view(start, None).state
    lines = [f"Durak, {heading}"]
    for seat, who in enumerate(players):
        hand = " ".join(view(start, seat).state["hand"])  # type: ignore[arg-type]
        lines.append(f"P{seat}: {who}, dealt {hand}")
    lines += [
        f"Trump: {public['trump_suit']} (the bottom card {public['trump_card']})",
        f"Deck, top first: {' '.join(card.code for card in deck)}",
        "",
    ]
    bout, plays, drawn = 1, list[str](), list[str]()
    for events in moves:
        for event in events:
            shown = {"type": event.type, **event.public}
            if event.type in _MOVES:
                plays.append(_MOVES[event.type].format(**shown))
            elif event.type == "bout_ended":
                plays.append(f"P{shown['seat']} is done: " + ("beaten off" if shown["beaten_off"] else "taken"))
            elif event.type == "drew":
                drawn.append(f"P{shown['seat']} draws {shown['count']}")
        if any(event.type in ("bout_ended", "game_ended") for event in events):
            lines.append(f"{bout}. {'; '.join([', '.join(plays), *([', '.join(drawn)] if drawn else [])])}")
            bout, plays, drawn = bout + 1, [], []
    lines += ["", f"Result: {_result(end)}"]
    return "\n".join(lines) + "\n"


def _result(end: DurakState) -> str:
    outcome = result(end)
    if outcome is None:
        raise ValueError("the game is not finished")
    if outcome.draw:
        return "a draw, both hands empty"
    winner, loser = outcome.winners[0], outcome.losers[0]
    if outcome.reason == "resign":
        return f"P{loser} resigned, P{winner} wins"
    return f"P{loser} is the durak, P{winner} wins"
