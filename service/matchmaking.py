"""Quick match: tickets that wait in a queue per (game, options, players) until a table of them is complete.

docs/api-additions.md "Quick match" (issue 41). Keys share one hash tag per queue, so every step over a queue and
its tickets is one Lua script in one slot, legal on a Redis Cluster (as service/store.py does per game):
- `<prefix>:{match:<queue>}:queue`          list of ticket ids, oldest first (dead ones are dropped when met)
- `<prefix>:{match:<queue>}:ticket:<id>`    hash: `status` (`waiting`, `pairing`, `matched`, `cancelled`),
  `version` (1 while waiting, 2 once it ended), the request (`game`, `options`, `players`, `name`, `fallback_*`),
  `token_hash`, `created_at`, `expires_at` (Unix seconds), and once paired `game_id`, `seat`, `paired_at`, `table`
  and `ai_level` (the AI seats' level: that of the ticket whose fallback came due, empty for a full table)
- `<prefix>:{match:<queue>}:ticket:<id>:version`  pub/sub channel: the ticket's new version (SPUBLISH on a
  cluster), which the dispatcher's waiters follow (service/dispatcher.py): a waiting ticket costs no thread
- `<prefix>:matches:fallbacks`  sorted set of the tickets with a `fallback`, scored by when it is due; written by
  commands of its own (another slot), read by the worker's sweep (worker/sweeper.py)

`<queue>` is 16 hex digits of the SHA-256 of the game, the seat count and the options as canonical JSON (the
game's defaults filled in, keys sorted); a ticket id is its queue's 16 digits and 16 random ones, so a request
finds the ticket's slot from its id alone.

A ticket that completes a table moves every ticket of it from `waiting` to `pairing` in the script that queued
it, so no ticket is taken twice and no two requests seat the same tickets; that request alone then creates the
game (`turns.create_game`, with the game id the script recorded) and a second script marks the tickets
`matched`. A table whose creator died between the two is completed by the next read of one of its tickets
(`PAIRING_STALE_SECONDS` later). The seat token of a ticket's seat is the ticket's token: the game stores its
hash as the seat's, so no token is ever stored.

Flask-free: the worker's sweep imports it (`fall_back_due`).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import secrets
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from engine import GAMES
from service.clocks import utc_iso
from service.config import lifetimes
from service.game_metrics import count_quick_match_failure
from service.records import SeatRecord, hash_token
from service.redis_clients import STORE_ERRORS
from service.refusals import Refusal
from service.scheduling import Queues, queue_shard
from service.seating import new_seats, new_token, seat_name
from service.store import GameStore, VersionConflict
from service.turns import checked_setup, create_game

log = logging.getLogger(__name__)

FALLBACK_MAX_SECONDS = 600
"""The latest a fallback may come (`after_seconds`): a ticket's default lifetime (`MATCH_TICKET_TTL_SECONDS`)."""
KEPT_SECONDS = 3600
"""How long a ticket can still be read after it stopped waiting (matched, cancelled, expired): then 404."""
PAIRING_STALE_SECONDS = 5.0
"""A ticket `pairing` this long had its table's creator die before the game was stored: a read completes it."""
FALLBACK_BATCH = 100
"""How many due fallbacks one sweep seats at most (the rest the next interval)."""
WAITING, PAIRING, MATCHED, CANCELLED, EXPIRED = "waiting", "pairing", "matched", "cancelled", "expired"

# The pairing step shared by both scripts. `take(queue, n, tickets, game_id, first)`: the oldest live tickets of
# `queue` (waiting and not past `expires_at` by Redis's clock), at most `n`, popped from its head, dead ones dropped.
# A full table (`first` nil: exactly `n` of them), or any table holding ticket `first` (a fallback), is marked
# `pairing` with `game_id`, the seat of each in queue order and `first`'s fallback level as the AI seats' (any other
# ticket's may be none or another), and returned; otherwise the live tickets go back to the head in their order and
# nothing is returned.
_TAKE = """
local function take(queue, n, tickets, game_id, first, keep)
  local clock = redis.call('TIME')
  local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
  local taken, found = {}, false
  while #taken < n do
    local id = redis.call('LPOP', queue)
    if not id then break end
    local ticket = redis.call('HMGET', tickets .. id, 'status', 'expires_at')
    if ticket[1] == 'waiting' and tonumber(ticket[2]) > now then
      taken[#taken + 1] = id
      if id == first then found = true end
    end
  end
  if (first and not found) or (not first and #taken < n) then
    for i = #taken, 1, -1 do redis.call('LPUSH', queue, taken[i]) end
    return {}
  end
  local table_json = cjson.encode(taken)
  local level = first and redis.call('HGET', tickets .. first, 'fallback_level') or ''
  for i, id in ipairs(taken) do
    redis.call('HSET', tickets .. id, 'status', 'pairing', 'game_id', game_id, 'seat', i - 1,
               'paired_at', tostring(now), 'table', table_json, 'ai_level', level)
    redis.call('EXPIRE', tickets .. id, keep)
  end
  return taken
end
"""

# Queue a new ticket (KEYS[1] the queue, KEYS[2] the ticket; ARGV: its id, the seat count, the tickets' key
# prefix, a game id for a table it completes, the keys' lifetime, then the ticket's field/value pairs), and take a
# full table if there is one now.
_OPEN = _TAKE + """
redis.call('HSET', KEYS[2], unpack(ARGV, 6))
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[5])
if redis.call('LLEN', KEYS[1]) < tonumber(ARGV[2]) then return {} end
return take(KEYS[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], nil, ARGV[5])
"""

# A fallback that came due: the live tickets of the queue KEYS[1], ticket ARGV[1] among them, make a table of
# fewer than ARGV[2] seats (the queue never holds a full table: `_OPEN` takes it at once).
_FALL_BACK = _TAKE + """
return take(KEYS[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[1], ARGV[5])
"""

# The table's game is stored: each ticket (KEYS) still pairing for it (ARGV[1]) is matched, and told so.
_MATCHED = """
for _, key in ipairs(KEYS) do
  local ticket = redis.call('HMGET', key, 'status', 'game_id')
  if ticket[1] == 'pairing' and ticket[2] == ARGV[1] then
    redis.call('HSET', key, 'status', 'matched', 'version', 2)
    redis.call('{publish}', key .. ':version', 2)
  end
end
return 1
"""

# Cancel ticket KEYS[1]: 1 cancelled now; 0 paired (cannot be); 2 ended already (cancelled or expired); -1 none.
_CANCEL = """
local ticket = redis.call('HMGET', KEYS[1], 'status', 'expires_at')
if not ticket[1] then return -1 end
if ticket[1] == 'pairing' or ticket[1] == 'matched' then return 0 end
local clock = redis.call('TIME')
if ticket[1] ~= 'waiting' or tonumber(ticket[2]) <= tonumber(clock[1]) + tonumber(clock[2]) / 1000000 then
  return 2
end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'version', 2)
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('{publish}', KEYS[1] .. ':version', 2)
return 1
"""


class TicketNotFound(Refusal):
    """No ticket with that id (never made, or gone `KEPT_SECONDS` after it ended): 404 `ticket_not_found`."""

    status = 404
    error = "ticket_not_found"


class TicketMatched(Refusal):
    """A ticket seated at a table (or being seated) cannot be cancelled: 409 `ticket_matched`."""

    status = 409
    error = "ticket_matched"


@dataclass(frozen=True)
class Ticket:
    """One quick-match ticket as stored (its hash's fields), read at `read_at` (Unix seconds).

    `status` is the stored one (`waiting`, `pairing`, `matched`, `cancelled`); `shown` is what a client is told.
    """

    ticket_id: str
    status: str
    token_hash: str
    game: str
    options: dict[str, Any]
    players: int
    name: str | None
    created_at: float
    expires_at: float
    fallback_after: float | None
    fallback_level: str | None
    game_id: str | None
    seat: int | None
    paired_at: float | None
    table: list[str]
    ai_level: str | None
    read_at: float

    @property
    def shown(self) -> str:
        """The client's status: `pairing` is still `waiting`; a waiting ticket past `expires_at` is `expired`."""
        if self.status == PAIRING:
            return WAITING
        if self.status == WAITING and self.read_at >= self.expires_at:
            return EXPIRED
        return self.status

    @property
    def fallback_due(self) -> float | None:
        """Unix time at which the free seats of its table become AI seats; None without a `fallback`."""
        return None if self.fallback_after is None else self.created_at + self.fallback_after

    @property
    def next_due(self) -> float:
        """Unix time at which this ticket changes without a new ticket or a cancel (`math.inf`: never).

        `pairing`: its table's creator counts as dead (`PAIRING_STALE_SECONDS`), and a read seats the table
        (`Matchmaker.settle`); waiting: its fallback comes (seated by a read) or it expires, whichever is first.
        """
        if self.status == PAIRING:
            return (self.paired_at or self.read_at) + PAIRING_STALE_SECONDS
        if self.shown != WAITING:
            return math.inf
        return min(self.expires_at, math.inf if self.fallback_due is None else self.fallback_due)

    def body(self, token: str | None) -> dict[str, Any]:
        """The ticket as the API shows it (service/schemas/matches.py `TicketSchema`); `token` is the caller's.

        A matched ticket's `player_token` is its token: the seat's token hash is the ticket's.
        """
        matched = self.status == MATCHED
        return {
            "ticket_id": self.ticket_id,
            "status": self.shown,
            "game": self.game,
            "options": self.options,
            "players": self.players,
            "fallback": None if self.fallback_after is None else {
                "after_seconds": int(self.fallback_after), "level": self.fallback_level},
            "created_at": utc_iso(self.created_at),
            "expires_at": utc_iso(self.expires_at),
            "game_id": self.game_id if matched else None,
            "seat": self.seat if matched else None,
            "player_token": token if matched else None,
        }


def canonical_options(game: str, options: dict[str, Any]) -> dict[str, Any]:
    """`options` with the game's defaults filled in (`describe_options`), so `{}` and the defaults spelled out meet."""
    defaults = {name: spec["default"] for name, spec in GAMES[game].describe_options().items() if "default" in spec}
    return {**defaults, **options}


class Matchmaker:
    """The quick-match tickets under `store`'s key prefix, on its Redis (or Redis Cluster).

    `ttl_seconds` is how long a ticket waits before it expires: build it with `configured`, so the web's and the
    worker's agree.
    """

    def __init__(self, store: GameStore, ttl_seconds: int) -> None:
        self.store = store
        self.client = store.client
        self.prefix = store.prefix
        self.ttl_seconds = ttl_seconds
        publish = "SPUBLISH" if store.sharded else "PUBLISH"
        self._open = self.client.register_script(_OPEN)
        self._fall_back = self.client.register_script(_FALL_BACK)
        self._matched = self.client.register_script(_MATCHED.format(publish=publish))
        self._cancel = self.client.register_script(_CANCEL.format(publish=publish))

    @classmethod
    def configured(cls, store: GameStore, settings: Mapping[str, Any] | None = None) -> Matchmaker:
        """The `Matchmaker` over `store` with `MATCH_TICKET_TTL_SECONDS` of `settings` (the app's config).

        None: `service.config.lifetimes()`, the environment's, as the worker reads it.
        """
        return cls(store, (lifetimes() if settings is None else settings)["MATCH_TICKET_TTL_SECONDS"])

    def _tickets(self, queue: str) -> str:
        return f"{self.prefix}:{{match:{queue}}}:ticket:"

    def _queue(self, queue: str) -> str:
        return f"{self.prefix}:{{match:{queue}}}:queue"

    def ticket_key(self, ticket_id: str) -> str:
        """The Redis key of a ticket (in its queue's slot).

        Raises:
            TicketNotFound: not an id this service makes (32 hex digits).
        """
        if len(ticket_id) != 32 or any(digit not in "0123456789abcdef" for digit in ticket_id):
            raise TicketNotFound(f"no ticket {ticket_id}")
        return self._tickets(ticket_id[:16]) + ticket_id

    def channel(self, ticket_id: str) -> str:
        """The pub/sub channel of a ticket's new versions (the dispatcher's `channel`)."""
        return self.ticket_key(ticket_id) + ":version"

    @property
    def fallbacks_key(self) -> str:
        """The sorted set of tickets with a fallback, scored by its due time."""
        return f"{self.prefix}:matches:fallbacks"

    def open(
        self, queues: Queues, game: str, options: dict[str, Any], players: int | None, name: str | None,
        fallback: dict[str, Any] | None,
    ) -> tuple[Ticket, str]:
        """Queue a new ticket and seat its table if it completes one; returns (the ticket now, its token).

        `options` are the request's (its `clock` in stored form, service/schemas/clock.py); `players` the seat
        count (None: the game's fewest); `fallback` `{"after_seconds", "level"}` or None.

        Raises:
            UnknownGame, InvalidSetup, InvalidOptions: the game, seat count, options or fallback level do not fit
                (`turns.checked_setup`, as `POST /v1/games` checks them); nothing is written. The same, from
                `turns.create_game` (`seat_table`), for a table this ticket completed whose game cannot be created
                (a bug: the setup was checked): the ticket is stored, its table left `pairing`.
        """
        if game in GAMES:
            players = GAMES[game].SEATS.start if players is None else players
        seats = [SeatRecord(kind="human")] * (players or 1)
        if fallback is not None:  # the AI seats a fallback would add, checked as a new game's
            seats = seats[:1] + [SeatRecord(kind="ai", level=fallback["level"])] * (len(seats) - 1)
        checked_setup(game, seats, options)
        assert players is not None  # checked_setup found the game
        options = canonical_options(game, options)
        queue = hashlib.sha256(f"{game}\n{players}\n{json.dumps(options, sort_keys=True)}".encode()).hexdigest()[:16]
        ticket_id = queue + secrets.token_hex(8)
        token, token_hash = new_token()
        now = time.time()
        fields: dict[str, Any] = {
            "status": WAITING, "version": 1, "token_hash": token_hash, "game": game,
            "options": json.dumps(options, sort_keys=True), "players": players, "name": name or "",
            "created_at": repr(now), "expires_at": repr(now + self.ttl_seconds),
        }
        if fallback is not None:
            fields.update(fallback_after=fallback["after_seconds"], fallback_level=fallback["level"])
        game_id = uuid.uuid4().hex
        args = [ticket_id, players, self._tickets(queue), game_id, self.ttl_seconds + KEPT_SECONDS,
                *[item for pair in fields.items() for item in pair]]
        table = self._open(keys=[self._queue(queue), self._tickets(queue) + ticket_id], args=args)
        if fallback is not None and not table:
            self.client.zadd(self.fallbacks_key, {ticket_id: now + fallback["after_seconds"]})
        if table:
            self.seat_table(queues, [item.decode() for item in table])
        return self.load(ticket_id), token

    def load(self, ticket_id: str) -> Ticket:
        """The ticket as stored now.

        Raises:
            TicketNotFound: no such ticket.
        """
        stored = cast(dict[bytes, bytes], self.client.hgetall(self.ticket_key(ticket_id)))
        return _ticket(ticket_id, stored, time.time())

    def version(self, ticket_id: str) -> int | None:
        """The ticket's version now (1 waiting, 2 ended), None for no such ticket."""
        value = self.client.hget(self.ticket_key(ticket_id), "version")
        return None if value is None else int(value)

    def check_token(self, ticket: Ticket, token: str | None) -> bool:
        """Whether `token` is the ticket's (constant time, as seat tokens: service/records.py `seat_for_hash`)."""
        return token is not None and hmac.compare_digest(ticket.token_hash, hash_token(token))

    def cancel(self, ticket_id: str) -> Ticket:
        """Cancel a waiting ticket (a cancelled or expired one stays as it is); the ticket now.

        Raises:
            TicketNotFound: no such ticket.
            TicketMatched: it is seated at a table already.
        """
        done = self._cancel(keys=[self.ticket_key(ticket_id)], args=[KEPT_SECONDS])
        if done == -1:
            raise TicketNotFound(f"no ticket {ticket_id}")
        if done == 0:
            raise TicketMatched("this ticket is seated at a table already: play the game, or leave it")
        self.client.zrem(self.fallbacks_key, ticket_id)
        return self.load(ticket_id)

    def settle(self, queues: Queues, ticket: Ticket, new_game_id: Callable[[], str] = lambda: uuid.uuid4().hex,
               ) -> Ticket:
        """`ticket`, after seating its table if that is due now: its fallback came, or its table's creator died.

        Every read of a waiting ticket calls it, so a client that polls never waits on the worker's sweep.

        Raises:
            TicketNotFound: the ticket is gone meanwhile.
            UnknownGame, InvalidSetup, InvalidOptions: its table's game cannot be created (`seat_table`).
        """
        if ticket.read_at < ticket.next_due:
            return ticket
        if ticket.status == PAIRING:
            self.seat_table(queues, ticket.table)
        else:  # waiting, not expired (else it were due never): its fallback came
            self.fall_back(queues, ticket, new_game_id())
        return self.load(ticket.ticket_id)

    def fall_back(self, queues: Queues, ticket: Ticket, game_id: str) -> bool:
        """Seat `ticket` with the tickets waiting in its queue and AI seats at its fallback level; True if done now."""
        queue = ticket.ticket_id[:16]
        table = self._fall_back(keys=[self._queue(queue)], args=[
            ticket.ticket_id, ticket.players, self._tickets(queue), game_id, self.ttl_seconds + KEPT_SECONDS])
        if not table:
            self.client.zrem(self.fallbacks_key, ticket.ticket_id)  # ended, or seated by another meanwhile
            return False
        self.seat_table(queues, [item.decode() for item in table])
        return True

    def seat_table(self, queues: Queues, ticket_ids: list[str]) -> None:
        """Create the game of a table of tickets marked `pairing` (in seat order), then mark them `matched`.

        The seats are the tickets' in order, each holding its ticket's token hash and name, then AI seats up to the
        seat count at the level the pairing recorded (`ai_level`: that of the ticket whose fallback came due). Run
        again for the same table (its creator died), it creates no second game: the game id is the one the pairing
        script recorded.

        Raises:
            UnknownGame, InvalidSetup, InvalidOptions: what `turns.create_game` raises for seats or options it
                refuses (`open` checked them when each ticket was made); the tickets then stay `pairing`.
        """
        now = time.time()
        with self.client.pipeline(transaction=False) as pipe:
            for ticket_id in ticket_ids:
                pipe.hgetall(self.ticket_key(ticket_id))
            tickets = [_ticket(ticket_id, stored, now) for ticket_id, stored in zip(ticket_ids, pipe.execute(),
                                                                                     strict=True)]
        first = tickets[0]
        game_id = first.game_id
        assert game_id is not None  # paired
        seats = [SeatRecord(kind="human", name=seat_name(ticket.name, number), token_hash=ticket.token_hash)
                 for number, ticket in enumerate(tickets)]
        free = first.players - len(seats)
        if free:
            seats += new_seats([{"kind": "ai", "level": first.ai_level}] * free)[0]
        if self.store.version(game_id) is None:
            try:
                create_game(self.store, queues, first.game, seats, first.options, game_id=game_id)
            except VersionConflict:
                pass  # a reader completing a stale pairing and its creator met: the game is stored once
        self._matched(keys=[self.ticket_key(ticket_id) for ticket_id in ticket_ids], args=[game_id])
        self.client.zrem(self.fallbacks_key, *ticket_ids)

    def fall_back_due(self, queues: Queues, shard: tuple[int, int] = (0, 1), batch: int = FALLBACK_BATCH) -> int:
        """Seat the tickets whose fallback is due (the worker's sweep); how many tables were seated.

        The new games' ids hash to queue Redis `shard` = (index, count) (service/scheduling.py `queue_shard`), the
        one whose queue `queues` holds, so their AI turns go where this worker serves. A table whose game cannot be
        created (a bug: `open` checked its setup) is logged and counted (`cardroom_quick_match_failures`) and tried
        again next sweep; it never stops the others, nor the sweep's revivals after this.

        Raises:
            redis.RedisError: Redis failed (`STORE_ERRORS`): the sweep fails as a whole and runs again next interval.
        """
        index, count = shard

        def new_game_id() -> str:
            while True:
                game_id = uuid.uuid4().hex
                if count == 1 or queue_shard(game_id, count) == index:
                    return game_id

        due = cast(list[bytes], self.client.zrangebyscore(self.fallbacks_key, "-inf", time.time(), start=0, num=batch))
        seated = 0
        for ticket_id in (item.decode() for item in due):
            try:
                ticket = self.load(ticket_id)
            except TicketNotFound:
                self.client.zrem(self.fallbacks_key, ticket_id)
                continue
            try:
                if ticket.status == PAIRING:
                    self.settle(queues, ticket)
                elif ticket.shown == WAITING and self.fall_back(queues, ticket, new_game_id()):
                    seated += 1
                else:
                    self.client.zrem(self.fallbacks_key, ticket_id)
            except STORE_ERRORS:
                raise
            except Exception:  # one table must not stop the sweep: its revivals of AI turns and clocks come after
                log.exception("quick match: cannot seat the table of ticket %s (%s)", ticket_id, ticket.game)
                count_quick_match_failure(self.client, self.prefix, ticket.game)
        return seated


def _ticket(ticket_id: str, stored: dict[bytes, bytes], read_at: float) -> Ticket:
    """The `Ticket` of a ticket's hash read at `read_at`.

    Raises:
        TicketNotFound: an empty hash (no such ticket).
    """
    if not stored:
        raise TicketNotFound(f"no ticket {ticket_id}")
    text = {key.decode(): value.decode() for key, value in stored.items()}

    def number(name: str) -> float | None:
        return float(text[name]) if text.get(name) else None

    return Ticket(
        ticket_id=ticket_id, status=text["status"], token_hash=text["token_hash"],
        game=text["game"], options=json.loads(text["options"]), players=int(text["players"]),
        name=text.get("name") or None, created_at=float(text["created_at"]), expires_at=float(text["expires_at"]),
        fallback_after=number("fallback_after"), fallback_level=text.get("fallback_level"),
        game_id=text.get("game_id"), seat=None if "seat" not in text else int(text["seat"]),
        paired_at=number("paired_at"), table=json.loads(text.get("table", "[]")), ai_level=text.get("ai_level") or None,
        read_at=read_at,
    )
