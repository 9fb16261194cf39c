"""The rules files' step notation, read by the games' own `ACTIONS` (engine/actions.py), one parser for all four.

`attack 6H`, `defend 7H/6H`, `choose_trump S`, `guess 9`, `draw stock`, `swap 2`, `peek 2.3`, `blind_swap 1.0 2.3`,
`take`: the verb is the action type and the words after it fill its fields in the order `ACTIONS` declares them
(an object field takes as many as it has fields); `/` and `.` separate values too, and an integer field's value
is read as an int. No verb means two things in two games, so no game needs naming.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from engine.actions import Field, IntegerField, ObjectField
from engine.games import GAMES

SHAPES: dict[str, Mapping[str, Field]] = {
    verb: fields for game in GAMES.values() for verb, fields in game.ACTIONS.items()
}


def action(text: str) -> dict[str, Any]:
    """`"defend 7H/6H"` -> `{"type": "defend", "card": "7H", "against": "6H"}`; `"peek 2.3"` -> seat 2, position 3."""
    verb, *words = text.split()
    values = iter([value for word in words for value in re.split(r"[/.]", word)])
    body = {"type": verb, **_fill(SHAPES[verb], values)}
    if next(values, None) is not None:
        raise ValueError(f"{text!r} has more values than {verb} has fields")
    return body


def _fill(fields: Mapping[str, Field], values: Iterator[str]) -> dict[str, Any]:
    filled: dict[str, Any] = {}
    for name, kind in fields.items():
        if isinstance(kind, ObjectField):
            filled[name] = _fill(kind.fields, values)
        else:
            value = next(values)
            filled[name] = int(value) if isinstance(kind, IntegerField) else value
    return filled


def parse_step(step: str) -> tuple[int, dict[str, Any]]:
    """`"s1 defend 7H/6H"` -> `(1, {"type": "defend", "card": "7H", "against": "6H"})`."""
    seat, _, rest = step.strip().partition(" ")
    return int(seat.removeprefix("s")), action(rest)


def steps(text: str) -> list[tuple[int, dict[str, Any]]]:
    """A comma-separated run of steps, as the rules files write them."""
    return [parse_step(step) for step in text.split(",") if step.strip()]
