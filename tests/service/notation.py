"""The rules files' step notation: `s0 attack 6H`, `s1 defend 7H/6H`, `s1 take` -> (seat, action body)."""

from __future__ import annotations

from typing import Any


def parse_step(step: str) -> tuple[int, dict[str, Any]]:
    """`"s1 defend 7H/6H"` -> `(1, {"type": "defend", "card": "7H", "against": "6H"})`."""
    seat, verb, *rest = step.split()
    action: dict[str, Any] = {"type": verb}
    if verb == "guess":  # tadmur.md §8: `s1 guess 9` names a rank, not a card
        action["rank"] = rest[0]
    elif verb == "choose_trump":  # svoi_koziri.md §8: `s0 choose_trump S` names a suit
        action["suit"] = rest[0]
    elif rest:
        card, _, against = rest[0].partition("/")
        action["card"] = card
        if against:
            action["against"] = against
    return int(seat.removeprefix("s")), action


def steps(text: str) -> list[tuple[int, dict[str, Any]]]:
    """A comma-separated run of steps, as the rules files write them."""
    return [parse_step(step.strip()) for step in text.split(",") if step.strip()]
