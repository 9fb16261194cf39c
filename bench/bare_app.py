"""The baseline for bench/throughput.py: bare Flask + redis-py doing the least a game server must do.

GET /items/<item> returns one JSON value read from Redis; POST /items/<item> bumps its `version` with a
WATCH/MULTI compare-and-set and returns the new value. Served by gunicorn with Cardroom's own config:
`gunicorn -c python:service.gunicorn_conf bench.bare_app:app` (env REDIS_URL, KEY_PREFIX, CARDROOM_BIND).
"""

import json
import os

import redis
from flask import Flask, Response, abort

app = Flask("bare")
# The same client settings as Cardroom's (service.redis_clients.redis_client), so only the app code differs.
client = redis.Redis.from_url(
    os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
    socket_timeout=5,
    socket_connect_timeout=2,
    health_check_interval=30,
)
PREFIX = os.environ.get("KEY_PREFIX", "bare")


def item_key(item: str) -> str:
    """The Redis key of one item."""
    return f"{PREFIX}:item:{item}"


@app.get("/readyz")
def ready() -> dict[str, str]:
    """Redis answers."""
    client.ping()
    return {"status": "ok"}


@app.get("/items/<item>")
def read(item: str) -> Response:
    """The stored JSON value, as stored."""
    text = client.get(item_key(item))
    if text is None:
        abort(404)
    return Response(text, mimetype="application/json")


@app.post("/items/<item>")
def bump(item: str) -> Response:
    """Increment the value's `version` by compare-and-set, retrying when another write slipped in."""
    key = item_key(item)
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(key)
                text = pipe.get(key)
                if text is None:
                    abort(404)
                value = json.loads(text)
                value["version"] += 1
                pipe.multi()
                pipe.set(key, json.dumps(value))
                pipe.execute()
                return Response(json.dumps(value), mimetype="application/json")
            except redis.WatchError:
                continue
