"""Players, not requests: N people in N/2 two-human Durak games at human pace, against running servers.

    python bench/players.py --url http://127.0.0.1:8000 [--url http://127.0.0.1:8001 ...]
        [--players 100,1000] [--duration 60] [--ramp 10] [--think-min 2] [--think 10] [--mode poll|stream]

Each player, when its view says it is to act, thinks a random `--think-min`..`--think` seconds, then posts a random
legal action (never `resign`); while the other player is to act it waits: a long-poll (`?after_version=&wait=30`)
or one Server-Sent Events stream per game (`--mode stream`). A finished game is replaced by a new one. Players
start spread over `--ramp` seconds, which are not measured.

Printed per URL and player count: the notify latency (from one seat's POST answered 200 to the other seat's client
holding that version) p50/p95/p99/max in ms, moves/s, requests by status, transport errors, waits sent back (a 304
with `Retry-After` or a 503: the server turned a waiting client away), the RSS of the server's processes (every
process listening on the URL's port) before and after, and their CPU time per move (all requests included: a
figure the machine's other load hardly changes), and the cores this load generator itself used (one process, one
core at most: its own limit). Transport errors are also counted by kind in the JSON line. With several URLs, each
player count is run against each URL in turn, so old and new code are measured side by side in one run. Needs
`aiohttp` (`pip install aiohttp`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import psutil

WAIT_SECONDS = 30
TWO_HUMANS = [{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}]


@dataclass
class Tally:
    """What one run measured."""

    latencies: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    transport_errors: int = 0
    error_kinds: Counter[str] = field(default_factory=Counter)  # transport errors by exception class
    sent_back: int = 0
    moves: int = 0
    measuring: bool = False

    def failed(self, error: BaseException) -> None:
        """Count a transport error (while measuring) under its exception's class name."""
        if self.measuring:
            self.transport_errors += 1
            self.error_kinds[type(error).__name__] += 1


@dataclass
class Game:
    """One game's shared bookkeeping: when each version's POST was answered, when the other seat first held it."""

    game_id: str
    tokens: list[str]
    answered_at: dict[int, float] = field(default_factory=dict)
    held_at: dict[int, float] = field(default_factory=dict)
    finished: bool = False
    thinking: set[int] = field(default_factory=set)  # seats with a move under way (stream mode)


class Players:
    """The players of one run against one server."""

    def __init__(self, base: str, args: argparse.Namespace, session: aiohttp.ClientSession) -> None:
        self.base, self.args, self.session = base, args, session
        self.tally = Tally()
        self.rng = random.Random(1)
        self.moves: set[asyncio.Task[Any]] = set()  # stream mode: moves under way, cancelled when the run ends

    async def request(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> tuple[int, Any]:
        """One request; returns (status, JSON body or None); transport errors count and return (0, None)."""
        headers = kwargs.pop("headers", {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        try:
            async with self.session.request(method, self.base + path, headers=headers, **kwargs) as response:
                body = await response.read()
                if self.tally.measuring:
                    self.tally.statuses[str(response.status)] += 1
                    if response.status == 503 or (response.status == 304 and "Retry-After" in response.headers):
                        self.tally.sent_back += 1
                if response.status in (304, 503) and "Retry-After" in response.headers:
                    await asyncio.sleep(float(response.headers["Retry-After"]))
                return response.status, json.loads(body) if body and response.status < 300 else None
        except (TimeoutError, aiohttp.ClientError) as error:
            self.tally.failed(error)
            await asyncio.sleep(1)
            return 0, None

    async def new_game(self) -> Game:
        """Create a two-human game and take its second seat (retrying while the server refuses)."""
        while True:
            status, created = await self.request("POST", "/v1/games", json={"game": "durak", "seats": TWO_HUMANS})
            if status != 201:
                continue
            status, joined = await self.request("POST", f"/v1/games/{created['game_id']}/seats", json={"name": "B"})
            if status == 201:
                return Game(created["game_id"], [created["player_token"], joined["player_token"]])

    def saw(self, game: Game, version: int) -> None:
        """The waiting seat's client holds `version`: a latency, if its POST was answered already."""
        if version in game.held_at:
            return
        now = time.monotonic()
        game.held_at[version] = now
        if version in game.answered_at and self.tally.measuring:
            self.tally.latencies.append(max(0.0, now - game.answered_at[version]))

    def posted(self, game: Game, version: int) -> None:
        """The mover's POST for `version` was answered 200 (the other client may hold it already: latency 0)."""
        now = time.monotonic()
        game.answered_at[version] = now
        if self.tally.measuring:
            self.tally.moves += 1
            if version in game.held_at:
                self.tally.latencies.append(0.0)

    async def move(self, game: Game, seat: int, view: dict[str, Any]) -> dict[str, Any] | None:
        """Think, then post a random legal action; the new view, or None if it was refused."""
        await asyncio.sleep(self.rng.uniform(self.args.think_min, self.args.think))
        action = self.rng.choice([a for a in view["legal_actions"] if a["type"] != "resign"])
        status, new_view = await self.request("POST", f"/v1/games/{game.game_id}/actions", game.tokens[seat],
                                              json=action)
        if status != 200:
            return None
        self.posted(game, new_view["version"])
        return new_view

    async def seat_by_polling(self, game: Game, seat: int, view: dict[str, Any], stop: float) -> None:
        """One seat of a game until it is finished (or the run ends): move when to act, long-poll otherwise."""
        path = f"/v1/games/{game.game_id}"
        while view["status"] != "finished" and time.monotonic() < stop:
            if seat in view["to_act"]:
                view = await self.move(game, seat, view) or view
                continue
            status, body = await self.request("GET", path, game.tokens[seat],
                                              params={"after_version": view["version"], "wait": WAIT_SECONDS})
            if status == 200:
                self.saw(game, body["version"])
                view = body

    async def seat_by_stream(self, game: Game, seat: int, stop: float) -> None:
        """One seat of a game over one SSE stream, reconnecting with `Last-Event-ID` if it ends early."""
        last: int | None = None
        while time.monotonic() < stop and not game.finished:
            headers = {"Authorization": f"Bearer {game.tokens[seat]}", "Accept": "text/event-stream"}
            if last is not None:
                headers["Last-Event-ID"] = str(last)
            try:
                async with self.session.get(f"{self.base}/v1/games/{game.game_id}/stream", headers=headers,
                                            timeout=aiohttp.ClientTimeout(total=None, sock_read=60)) as response:
                    if self.tally.measuring:
                        self.tally.statuses[f"stream {response.status}"] += 1
                        if response.status == 503:
                            self.tally.sent_back += 1
                    if response.status != 200:
                        await asyncio.sleep(float(response.headers.get("Retry-After", 1)))
                        continue
                    async for view in sse_views(response):
                        last = view["version"]
                        self.saw(game, last)
                        if view["status"] == "finished":
                            game.finished = True
                            return
                        if seat in view["to_act"] and seat not in game.thinking and time.monotonic() < stop:
                            # a move in its own task: the stream keeps being read meanwhile
                            game.thinking.add(seat)
                            task = asyncio.get_running_loop().create_task(self.move(game, seat, view))
                            self.moves.add(task)
                            task.add_done_callback(self.moves.discard)
                            task.add_done_callback(lambda _, seat=seat: game.thinking.discard(seat))
            except (TimeoutError, aiohttp.ClientError) as error:
                self.tally.failed(error)
                await asyncio.sleep(1)

    async def table(self, start_delay: float, stop: float) -> None:
        """One table: a game after another until the run ends."""
        await asyncio.sleep(start_delay)
        while time.monotonic() < stop:
            game = await self.new_game()
            if self.args.mode == "stream":
                await asyncio.gather(*(self.seat_by_stream(game, seat, stop) for seat in (0, 1)))
            else:
                views = [await self.request("GET", f"/v1/games/{game.game_id}", token) for token in game.tokens]
                if any(view is None for _, view in views):
                    continue
                await asyncio.gather(*(self.seat_by_polling(game, seat, views[seat][1], stop) for seat in (0, 1)))


async def sse_views(response: aiohttp.ClientResponse):  # noqa: ANN201 - an async iterator of views
    """The `data` of each event of a `text/event-stream` response, parsed."""
    data = None
    async for raw in response.content:
        line = raw.decode().rstrip("\n")
        if line.startswith("data: "):
            data = line[6:]
        elif line == "" and data is not None:
            yield json.loads(data)
            data = None


def server_processes(url: str) -> list[psutil.Process]:
    """Every process listening on the URL's port (gunicorn's master and workers)."""
    port = urlsplit(url).port
    found = []
    for process in psutil.process_iter(["pid"]):
        try:
            if any(c.status == psutil.CONN_LISTEN and c.laddr.port == port for c in process.net_connections("tcp")):
                found.append(process)
        except (psutil.AccessDenied, psutil.NoSuchProcess):
            continue
    return found


def server_rss(url: str) -> int:
    """Bytes of resident memory of the server's processes (`server_processes`)."""
    return sum(process.memory_info().rss for process in server_processes(url))


def server_cpu_seconds(url: str) -> float:
    """CPU seconds (user + system) the server's processes have used so far."""
    return sum(sum(process.cpu_times()[:2]) for process in server_processes(url))


def percentile(values: list[float], fraction: float) -> float:
    """The `fraction` quantile of `values` (nearest rank), in ms; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def run(url: str, players: int, args: argparse.Namespace) -> dict[str, Any]:
    """One measurement: `players` players against `url` for `--ramp` + `--duration` seconds."""
    rss_before = server_rss(url)
    connector = aiohttp.TCPConnector(limit=0, force_close=False)
    timeout = aiohttp.ClientTimeout(total=WAIT_SECONDS + 30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        crowd = Players(url, args, session)
        begin = time.monotonic()
        stop = begin + args.ramp + args.duration
        tables = [
            asyncio.create_task(crowd.table(args.ramp * n / max(1, players // 2), stop)) for n in range(players // 2)
        ]
        await asyncio.sleep(args.ramp)
        crowd.tally.measuring = True
        cpu_before, client_before = server_cpu_seconds(url), time.process_time()
        await asyncio.sleep(args.duration)
        crowd.tally.measuring = False
        cpu_used, client_used = server_cpu_seconds(url) - cpu_before, time.process_time() - client_before
        rss_after = server_rss(url)
        for task in [*tables, *crowd.moves]:
            task.cancel()
        await asyncio.gather(*tables, *crowd.moves, return_exceptions=True)
    tally = crowd.tally
    return {
        "url": url, "players": players, "mode": args.mode,
        "p50_ms": percentile(tally.latencies, 0.50), "p95_ms": percentile(tally.latencies, 0.95),
        "p99_ms": percentile(tally.latencies, 0.99), "max_ms": percentile(tally.latencies, 1.0),
        "notified": len(tally.latencies), "moves_per_s": tally.moves / args.duration,
        "statuses": dict(sorted(tally.statuses.items())), "transport_errors": tally.transport_errors,
        "sent_back": tally.sent_back, "rss_before_mb": rss_before / 2**20, "rss_after_mb": rss_after / 2**20,
        "server_cpu_ms_per_move": 1000 * cpu_used / max(1, tally.moves),
        "error_kinds": dict(tally.error_kinds), "client_cores": client_used / args.duration,
    }


def main() -> None:
    """Parse the arguments, run every (player count, URL) pair and print one JSON line and one table row each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", action="append", required=True, help="a running server (repeat to compare)")
    parser.add_argument("--players", default="100", help="comma-separated player counts")
    parser.add_argument("--duration", type=float, default=60.0, help="measured seconds per run")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which players start (not measured)")
    parser.add_argument("--think-min", type=float, default=2.0)
    parser.add_argument("--think", type=float, default=10.0, help="longest think before a move, in seconds")
    parser.add_argument("--mode", choices=["poll", "stream"], default="poll")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # a connection per waiting player
    print("| url | players | mode | p50 ms | p95 ms | p99 ms | max ms | moves/s | statuses | transport errors |"
           " sent back | RSS MB before → after | server CPU ms per move | client cores |", flush=True)
    for players in [int(count) for count in args.players.split(",")]:
        for url in args.url:
            row = asyncio.run(run(url, players, args))
            print(json.dumps(row), flush=True)
            print(f"| {url} | {players} | {args.mode} | {row['p50_ms']:.0f} | {row['p95_ms']:.0f} | "
                  f"{row['p99_ms']:.0f} | {row['max_ms']:.0f} | {row['moves_per_s']:.1f} | {row['statuses']} | "
                  f"{row['transport_errors']} | {row['sent_back']} | {row['rss_before_mb']:.0f} → "
                  f"{row['rss_after_mb']:.0f} | {row['server_cpu_ms_per_move']:.1f} | "
                  f"{row['client_cores']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
