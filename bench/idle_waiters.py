"""Idle waiters: N clients waiting on games nobody moves in, then one move and its wake-ups, against a server.

    python bench/idle_waiters.py --url http://127.0.0.1:8000 [--waiters 10000] [--games 100] [--mode poll|stream]
        [--moves 10]

Creates `--games` two-human Durak games and spreads `--waiters` clients over them (spectators: long-polls with
`wait=30`, asked again after each 304, or one stream each). Once all wait, it makes `--moves` moves, one at a time in
games chosen in turn, and measures for each the time until its POST is answered and until every waiter of that game
holds the new version. Prints those latencies (p50, max, in ms) and the RSS of the server's processes (those
listening on the URL's port) before the waiters came and while they wait, per waiter. Needs `aiohttp`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
from typing import Any

import aiohttp
from players import server_rss, sse_views  # bench/players.py

TWO_HUMANS = [{"kind": "human", "name": "A"}, {"kind": "human", "name": "B"}]


async def make_game(session: aiohttp.ClientSession, base: str) -> dict[str, Any]:
    """A seated two-human game: `{"game_id", "tokens", "version"}`."""
    async with session.post(f"{base}/v1/games", json={"game": "durak", "seats": TWO_HUMANS}) as response:
        created = await response.json()
    async with session.post(f"{base}/v1/games/{created['game_id']}/seats", json={"name": "B"}) as response:
        joined = await response.json()
    return {"game_id": created["game_id"], "tokens": [created["player_token"], joined["player_token"]],
            "version": joined["version"]}


async def poll_waiter(session: aiohttp.ClientSession, base: str, game: dict[str, Any], seen: dict[str, Any]) -> None:
    """A spectator that long-polls the game for ever, noting in `seen` when it holds each version."""
    version = game["version"]
    while True:
        async with session.get(f"{base}/v1/games/{game['game_id']}",
                               params={"after_version": version, "wait": 30}) as response:
            if response.status == 200:
                version = (await response.json())["version"]
                seen[game["game_id"]].append((version, time.monotonic()))
            else:
                await response.read()


async def stream_waiter(session: aiohttp.ClientSession, base: str, game: dict[str, Any], seen: dict[str, Any]) -> None:
    """A spectator on one stream of the game, noting in `seen` when it holds each version."""
    async with session.get(f"{base}/v1/games/{game['game_id']}/stream",
                           params={"after_version": game["version"]},
                           timeout=aiohttp.ClientTimeout(total=None, sock_read=None)) as response:
        async for view in sse_views(response):
            seen[game["game_id"]].append((view["version"], time.monotonic()))


async def main_async(args: argparse.Namespace) -> None:
    """Set up the games and waiters, make the moves, print the figures."""
    base = args.url
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as session:
        games = [await make_game(session, base) for _ in range(args.games)]
        rss_before = server_rss(base)
        seen: dict[str, list[tuple[int, float]]] = {game["game_id"]: [] for game in games}
        waiter = stream_waiter if args.mode == "stream" else poll_waiter
        per_game = [0] * len(games)
        tasks = []
        for number in range(args.waiters):
            per_game[number % len(games)] += 1
            tasks.append(asyncio.create_task(waiter(session, base, games[number % len(games)], seen)))
            if number % 500 == 499:
                await asyncio.sleep(0.2)  # let the server take them in without a burst of accepts
        await asyncio.sleep(args.settle)
        rss_waiting = server_rss(base)
        latencies = []
        for move in range(args.moves):
            index = move % len(games)
            game = games[index]
            async with session.get(f"{base}/v1/games/{game['game_id']}",
                                   headers={"Authorization": f"Bearer {game['tokens'][0]}"}) as response:
                view = await response.json()
            seat = view["to_act"][0]
            async with session.get(f"{base}/v1/games/{game['game_id']}",
                                   headers={"Authorization": f"Bearer {game['tokens'][seat]}"}) as response:
                view = await response.json()
            action = next(a for a in view["legal_actions"] if a["type"] != "resign")
            started = time.monotonic()
            async with session.post(f"{base}/v1/games/{game['game_id']}/actions", json=action,
                                    headers={"Authorization": f"Bearer {game['tokens'][seat]}"}) as response:
                new_version = (await response.json())["version"]
            answered = time.monotonic() - started
            deadline = time.monotonic() + 30
            while sum(1 for version, _ in seen[game["game_id"]] if version == new_version) < per_game[index]:
                assert time.monotonic() < deadline, "not every waiter was woken"
                await asyncio.sleep(0.001)
            woken = max(at for version, at in seen[game["game_id"]] if version == new_version) - started
            latencies.append((answered, woken))
            game["version"] = new_version
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    posts = sorted(answered for answered, _ in latencies)
    wakes = sorted(woken for _, woken in latencies)
    row = {
        "waiters": args.waiters, "mode": args.mode, "games": args.games,
        "post_p50_ms": 1000 * posts[len(posts) // 2], "post_max_ms": 1000 * posts[-1],
        "all_woken_p50_ms": 1000 * wakes[len(wakes) // 2], "all_woken_max_ms": 1000 * wakes[-1],
        "rss_before_mb": rss_before / 2**20, "rss_waiting_mb": rss_waiting / 2**20,
        "rss_per_waiter_kb": (rss_waiting - rss_before) / 1024 / args.waiters,
    }
    print(json.dumps(row))
    print(f"| {args.waiters} | {args.mode} | {row['post_p50_ms']:.0f} / {row['post_max_ms']:.0f} | "
          f"{row['all_woken_p50_ms']:.0f} / {row['all_woken_max_ms']:.0f} | {row['rss_before_mb']:.0f} → "
          f"{row['rss_waiting_mb']:.0f} | {row['rss_per_waiter_kb']:.1f} |")


def main() -> None:
    """Parse the arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--waiters", type=int, default=10000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--mode", choices=["poll", "stream"], default="poll")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds to wait once every waiter is sent")
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
