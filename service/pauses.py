"""An AI seat's wait before it acts (the `ai_delay_ms` capability, e.g. talmut.md §3.18): when it began and ends.

Flask-free and Redis-free: the write path stores when each wait began (`delays_since`, the record's
`ai_delays_since`), the AI turns' scheduler and the view read when it ends (`pause_ends`), so the view's
`ai_pauses` shows the very time the seat's job is due.
"""

from __future__ import annotations

import math

from engine import GAMES
from engine.protocol import capabilities
from service.records import GameRecord, Status


def delays_since(record: GameRecord, state: object, now: float) -> dict[str, float]:
    """When the AI delay of each seat at `state`, the game's state after `record`, began: the next record's field.

    Returns `{seat number as a string: Unix time in seconds}`, e.g. `{"1": 1764500000.25}`: one entry per seat
    whose `ai_delay_ms(state, seat)` capability is > 0, holding the time kept in `record` if the seat's delay was
    already running there (`record` has entries only for such seats), else `now`. A wait thus counts from the
    version that began it, as talmut.md §3.18 asks (from the discard that opened the window): were it counted
    from the latest version, every match (§3.10, §3.11) would restart it and repeated matches could put off the
    AI's draw for ever. The hook's contract (engine/protocol.py) makes consecutive versions with a delay for a
    seat one wait. Human seats count too, so a turn seat that resigns (§3.17) hands its AI the running pause.
    """
    delay_of = capabilities(GAMES[record.game]).ai_delay_ms
    return {
        str(seat): record.ai_delays_since.get(str(seat), now)
        for seat in range(len(record.seats))
        if delay_of(state, seat) > 0
    }


def pause_ends(record: GameRecord, seats: list[int], now: float) -> dict[int, int]:
    """When the wait of each of `seats` (AI seats to act at `record`) ends, in whole Unix seconds; none: at once.

    The wait began at `record.ai_delays_since` (at `now` for a record stored before that field existed) and
    lasts the game's `ai_delay_ms`; the end is rounded up to a whole second, as RQ's scheduler keeps its times:
    never shorter than the rules ask (fair to the humans who may match), at most a second longer.
    """
    if record.status != Status.ACTIVE or not seats:
        return {}
    delay_of = capabilities(GAMES[record.game]).ai_delay_ms
    state = record.engine_state()
    ends = {}
    for seat in seats:
        delay_ms = delay_of(state, seat)
        if delay_ms > 0:
            ends[seat] = math.ceil(record.ai_delays_since.get(str(seat), now) + delay_ms / 1000)
    return ends
