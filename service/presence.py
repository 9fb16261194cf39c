"""Claims against an absent player (issue 41 point 4, docs/api-additions.md "Presence and claims").

A game created with `options.claim_after_seconds` (and no clock) lets the other players win, or draw, per the
game's rules of resignation, once the human seat the game waits for has been away that long: away is measured by
the seat's `last_seen` (service/auth.py `mark_present`, service/store.py `GameStore.touch_seen`), the one presence
record. The view shows when each awaited seat becomes claimable (`claim_block`, `with_claims`); `check_claim`
decides a `POST /v1/games/{game_id}/claim` (service/routes/claim.py), which service/turns.py `claim` applies as
the absent seat's `resign` through the one write path.

Flask-free and Redis-free: what a record and its presence say, nothing else.
"""

from __future__ import annotations

import math
from typing import Any

from engine import GAMES
from service.clocks import must_act, utc_iso
from service.records import GameRecord, Status
from service.refusals import Refusal

OPTION = "claim_after_seconds"
"""The game option (every game, like `clock`): seconds a seat the game waits for may be away before a claim."""
MIN_SECONDS = 30
"""The shortest `claim_after_seconds`: a present player's `last_seen` lags its latest request by up to 10 s (written
at most every `PRESENCE_SECONDS`) and an open stream's by up to 15 s (it marks presence at each keep-alive), so a
player who follows the game is never found away."""
MAX_SECONDS = 7 * 86400
"""The longest `claim_after_seconds`: a week, about an active game's idle lifetime (docs/operations/limits.md)."""


class ClaimNotAllowed(Refusal):
    """409 `claim_not_allowed`: the game has no `claim_after_seconds`, or it waits for no other human seat."""

    status = 409
    error = "claim_not_allowed"


class NotYourClaim(Refusal):
    """403 `not_your_claim`: the claimant is the one the game waits for, or its seat is the AI's (it resigned)."""

    status = 403
    error = "not_your_claim"


class ClaimTooEarly(Refusal):
    """409 `claim_too_early`: the awaited seat was seen less than `claim_after_seconds` ago.

    `retry_after` (whole seconds, rounded up, at least 1) is how long until it may be claimed: `Retry-After`.
    """

    status = 409
    error = "claim_too_early"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def claim_after(record: GameRecord) -> int | None:
    """The game's `claim_after_seconds`; None: claims are off (the option absent)."""
    value = record.options.get(OPTION)
    return None if value is None else int(value)


def awaited_seats(record: GameRecord) -> list[int]:
    """The human seats an active `record` waits for (service/clocks.py `must_act`), in seat order.

    A seat listed in `to_act` only for optional actions (Talmut's match window) is not waited for, nor an AI seat.
    """
    if record.status != Status.ACTIVE:
        return []
    to_act = GAMES[record.game].to_act(record.engine_state())
    return [seat for seat in sorted(to_act) if record.seats[seat].kind == "human" and must_act(record, seat)]


def claimable_from(moment: float) -> str:
    """A claim's `from` for `moment` (Unix seconds): ISO 8601 UTC rounded up to the millisecond.

    `utc_iso` cuts to the millisecond, which would show a `from` up to 1 ms before `check_claim` allows the claim:
    a claim sent at the `from` shown must never be too early.
    """
    millis = math.ceil(moment * 1000)
    if millis / 1000 < moment:  # moment * 1000 came out just below a whole millisecond
        millis += 1
    return utc_iso(millis / 1000)


def claim_block(record: GameRecord) -> dict[str, Any] | None:
    """The view's `claim` before presence is added: `{"after_seconds": N, "seats": [{"seat", "from"}]}`; None off.

    `from` here counts from when the seat was taken (`away_since`), for a seat never seen; `with_claims` moves it
    to `last_seen + after_seconds` for the seats seen since. Kept in the per-version view (service/views.py):
    nothing in it depends on when it is read.
    """
    after = claim_after(record)
    if after is None:
        return None
    seats = [{"seat": seat, "from": claimable_from(away_since(record, seat) + after)} for seat in awaited_seats(record)]
    return {"after_seconds": after, "seats": seats}


def away_since(record: GameRecord, seat: int) -> float:
    """Unix seconds since which `seat` counts as away: its `last_seen`, else when its player took it.

    A seat taken at the creation counts from `created_at`; one taken later (`SeatRecord.taken_at`) from then: the
    player who joins a game that waited for them has just shown up, whatever the creator's wait.
    """
    seen = record.last_seen.get(seat)
    if seen is not None:
        return seen
    taken = record.seats[seat].taken_at
    return record.created_at if taken is None else taken


def with_claims(view: dict[str, Any], last_seen: dict[int, float]) -> dict[str, Any]:
    """`view` (one with a `claim` block, else returned as it is) with each awaited seat's `from` from `last_seen`."""
    block = view.get("claim")
    if block is None:
        return view
    after = block["after_seconds"]
    seats = [
        {**entry, "from": claimable_from(last_seen[entry["seat"]] + after)} if entry["seat"] in last_seen else entry
        for entry in block["seats"]
    ]
    return {**view, "claim": {**block, "seats": seats}}


def check_claim(record: GameRecord, claimant: int, now: float) -> int:
    """The seat whose absence `claimant` claims at `now` (Unix seconds) in `record`: the one resigned for it.

    Of the awaited seats other than `claimant`, the one away longest (`away_since`). The refusals come in this
    order: the game's status, the option, the claimant, the time.

    `record` is an active game: service/turns.py `claim` refuses the others first, as it refuses their moves.

    Raises:
        ClaimNotAllowed: no `claim_after_seconds`, or no other human seat is awaited (an AI's turn).
        NotYourClaim: `claimant` is the only seat awaited, or the AI plays `claimant`'s seat.
        ClaimTooEarly: every other awaited seat was seen less than `claim_after_seconds` ago.
    """
    after = claim_after(record)
    if after is None:
        raise ClaimNotAllowed("this game was created without options.claim_after_seconds: no claims")
    if record.seats[claimant].kind != "human":
        raise NotYourClaim("you resigned: the AI plays your seat and claims nothing")
    awaited = awaited_seats(record)
    others = [seat for seat in awaited if seat != claimant]
    if not others:
        if awaited:
            raise NotYourClaim("the game waits for you: play, or resign")
        raise ClaimNotAllowed("the game waits for no other player now")
    since = {seat: away_since(record, seat) for seat in others}
    absent = min(others, key=lambda seat: since[seat])
    left = since[absent] + after - now
    if left > 0:
        raise ClaimTooEarly(
            f"seat {absent} was seen {now - since[absent]:.0f} s ago: a claim needs {after} s", max(1, math.ceil(left))
        )
    return absent
