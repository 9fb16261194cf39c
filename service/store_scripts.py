"""The game store's Lua scripts: each touches the keys of one game only, so one hash slot on a Redis Cluster.

`GameStore` (service/store.py) registers them and names their keys (`GameStore.script_keys`). Flask-free.
"""

from __future__ import annotations

# One atomic step: compare the version, and Redis's clock with the mover's deadline (ARGV[5], Unix seconds, or ''),
# write the record (and the mover's presence: field ARGV[8] holds ARGV[9], none when ARGV[8] is ''), append the
# events (ARGV[10:]), claim the request's Idempotency-Key (KEYS[4] holds ARGV[6] for ARGV[7]
# seconds; none when ARGV[6] is ''), renew the game's lifetime (ARGV[4] seconds, docs/operations/limits.md
# "Lifetimes", or '': `GameStore.save` renewed it a moment ago; its presence lives in the same hash), publish
# (docs/API.md versions). Nothing is half-written: Lua scripts run whole or not at all. `{publish}` is PUBLISH, or
# SPUBLISH on a Redis Cluster. 0: another version; -1: the deadline passed.
_COMPARE_AND_SET = """
local current = redis.call('HGET', KEYS[1], 'version')
if current ~= ARGV[1] then return 0 end
if ARGV[5] ~= '' then
  local now = redis.call('TIME')
  if tonumber(now[1]) + tonumber(now[2]) / 1000000 >= tonumber(ARGV[5]) then return -1 end
end
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3], ARGV[8], ARGV[9])
else
  redis.call('HSET', KEYS[1], 'version', ARGV[2], 'record', ARGV[3])
end
if #ARGV >= 10 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 10)) end
if ARGV[6] ~= '' then redis.call('SET', KEYS[4], ARGV[6], 'EX', ARGV[7]) end
if ARGV[4] ~= '' then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
end
redis.call('{publish}', KEYS[3], ARGV[2])
return 1
"""

# Create a game only if its id is free (a quick match's table has a chosen id, service/matchmaking.py): the record,
# its lifetime (ARGV[3] seconds) and its first events (ARGV[4:]) are written whole or not at all. 0: the id is taken.
_CREATE = """
if redis.call('HSETNX', KEYS[1], 'version', ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
if #ARGV >= 4 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 4))
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
return 1
"""

# Delete a game only if it is still at the version its deleter read (a seat taken meanwhile keeps it alive). The
# version after it is published so that every waiter wakes at once, reads, and finds no game.
_COMPARE_AND_DELETE = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('{publish}', KEYS[3], tonumber(ARGV[1]) + 1)
return 1
"""

# Presence (the game hash's field ARGV[1]): at most one write per seat per ARGV[3] seconds, whichever process
# serves the seat's requests; none once the game is gone (a write would make a hash of presence alone, for ever).
_TOUCH_SEEN = """
local stored = redis.call('HMGET', KEYS[1], 'version', ARGV[1])
if not stored[1] then return 0 end
if stored[2] and tonumber(ARGV[2]) - tonumber(stored[2]) < tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


def script_sources(sharded: bool) -> dict[str, str]:
    """The store's Lua scripts by name, publishing with SPUBLISH when `sharded` (a Redis Cluster), else PUBLISH."""
    publish = "SPUBLISH" if sharded else "PUBLISH"
    return {
        "create": _CREATE,
        "compare_and_set": _COMPARE_AND_SET.format(publish=publish),
        "compare_and_delete": _COMPARE_AND_DELETE.format(publish=publish),
        "touch_seen": _TOUCH_SEEN,
    }
