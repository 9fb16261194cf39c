"""Hiding what a viewer may not see: per-viewer events and hidden cards.

Views are built per seat by each game; events carry their private fields apart (`Event.private`), and this module
is the one place that decides what a viewer gets of them.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.protocol import JSON, Event, Seat


def event_for(event: Event, viewer: Seat | None) -> dict[str, JSON]:
    """The JSON form of `event` for `viewer` (None: a spectator): public fields plus the viewer's private ones.

    >>> event_for(Event("drew", {"seat": 0, "count": 1}, {0: {"cards": ["6H"]}}), 1)
    {'type': 'drew', 'seat': 0, 'count': 1}
    >>> event_for(Event("drew", {"seat": 0, "count": 1}, {0: {"cards": ["6H"]}}), 0)
    {'type': 'drew', 'seat': 0, 'count': 1, 'cards': ['6H']}
    """
    shown: dict[str, JSON] = {"type": event.type, **event.public}
    if viewer is not None:
        shown.update(event.private.get(viewer, {}))
    return shown


def codes_in(value: JSON) -> Iterable[str]:
    """Every string anywhere inside a JSON value: where a test looks for leaked card codes.

    >>> sorted(codes_in({"a": ["6H", None, {"b": "QS"}], "n": 3}))
    ['6H', 'QS']
    """
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        # Keys are field names ("hand", "table"), not values: only values can carry a card.
        for item in value.values():
            yield from codes_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from codes_in(item)
