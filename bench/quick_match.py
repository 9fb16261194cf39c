"""Quick match with 10,000 waiting tickets: Redis memory, the time to pair the next one, threads held, against a server.

    python bench/quick_match.py --url http://127.0.0.1:8000 --redis redis://127.0.0.1:6379/0 [--tickets 10000]
        [--tables 10] [--mode poll|stream]

Makes `--tickets` tickets that wait: 8-seat Talmut tables, 7 tickets each, one queue per table (its own `target` and
`call_penalty`, so no two tables meet), and holds a long-poll (`wait` 15-30 s, drawn for each, asked again when it
answers `waiting`: clients that all came at once would otherwise come back at once), or with `--mode stream` a
stream (`GET /v1/matches/{id}/stream`), on every one of them. Once all wait (the server's CPU idle for a second), it
completes `--tables` of those tables one at a time with an 8th ticket, and measures for each the time until that
POST is answered (`matched`: the game created) and until the 7 long-polls of that table hold `matched`. Prints the
Redis memory the tickets take (`used_memory` before and after, per ticket), the server's threads and RSS (those
listening on the URL's port) before and while the long-polls wait, and those latencies (p50, max, ms). Needs
`aiohttp` and `psutil` (`pip install -e '.[bench]'`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import time
from typing import Any

import aiohttp
import redis
from players import percentile, server_cpu_seconds, server_processes, server_rss, sse_views  # bench/players.py

SEATS = 7
"""Tickets waiting per table: one short of Talmut's 8 seats."""
WAIT_SECONDS = (15, 30)
WOKEN_WITHIN_SECONDS = 60
"""A table's waiters not all woken by then count as never (a waiter whose request failed: printed as `inf`)."""


def table_options(table: int) -> dict[str, int]:
    """The options of table `table`'s queue: a queue of its own (1,000 targets x 101 call penalties)."""
    return {"target": 1 + table % 1000, "call_penalty": table // 1000}


def server_threads(url: str) -> int:
    """OS threads of the server's processes (`server_processes`)."""
    return sum(process.num_threads() for process in server_processes(url))


async def new_ticket(session: aiohttp.ClientSession, base: str, table: int) -> dict[str, Any]:
    body = {"game": "talmut", "players": SEATS + 1, "options": table_options(table)}
    async with session.post(f"{base}/v1/matches", json=body) as response:
        assert response.status == 202, await response.text()
        return await response.json()


async def follow(session: aiohttp.ClientSession, base: str, ticket: dict[str, Any], seen: dict[str, float]) -> None:
    """Long-poll `ticket` until it is matched; note in `seen` when it was."""
    headers = {"Authorization": f"Bearer {ticket['ticket_token']}"}
    while True:
        try:
            if await poll_once(session, base, ticket, headers):
                seen[ticket["ticket_id"]] = time.monotonic()
                return
        except (TimeoutError, aiohttp.ClientError):
            await asyncio.sleep(1)  # a request the busy server did not answer in time: ask again, as a client would


async def poll_once(session: aiohttp.ClientSession, base: str, ticket: dict[str, Any], headers: dict[str, str]) -> bool:
    """One long-poll of `ticket`: whether it answered `matched`."""
    wait = random.uniform(*WAIT_SECONDS)
    async with session.get(f"{base}/v1/matches/{ticket['ticket_id']}", params={"wait": wait},
                           headers=headers) as response:
        if response.status != 200:
            await response.read()
            await asyncio.sleep(1)
            return False
        return (await response.json())["status"] == "matched"


async def stream(session: aiohttp.ClientSession, base: str, ticket: dict[str, Any], seen: dict[str, float]) -> None:
    """Follow `ticket`'s stream until it shows it matched; note in `seen` when it did."""
    headers = {"Authorization": f"Bearer {ticket['ticket_token']}"}
    async with session.get(f"{base}/v1/matches/{ticket['ticket_id']}/stream", headers=headers,
                           timeout=aiohttp.ClientTimeout(total=None, sock_read=None)) as response:
        async for event in sse_views(response):
            if event["status"] == "matched":
                seen[ticket["ticket_id"]] = time.monotonic()
                return


async def settled(base: str, quiet_cpu_seconds: float = 0.25, limit_seconds: float = 60) -> float:
    """Wait until the server's processes use less than `quiet_cpu_seconds` of CPU in a second; the seconds waited."""
    started = time.monotonic()
    used = server_cpu_seconds(base)
    while time.monotonic() - started < limit_seconds:
        await asyncio.sleep(1)
        now = server_cpu_seconds(base)
        if now - used < quiet_cpu_seconds:
            break
        used = now
    return time.monotonic() - started


async def main_async(args: argparse.Namespace) -> None:
    """Make the tickets and the long-polls, complete the tables, print the figures."""
    base, store = args.url, redis.Redis.from_url(args.redis)
    tables = -(-args.tickets // SEATS)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=120)) as session:
        memory_before, threads_before, rss_before = store.info("memory")["used_memory"], server_threads(base), \
            server_rss(base)
        started = time.monotonic()
        tickets: list[list[dict[str, Any]]] = [[] for _ in range(tables)]
        numbers = [(table, seat) for seat in range(SEATS) for table in range(tables)][:args.tickets]
        for offset in range(0, len(numbers), 100):  # 100 at a time
            batch = numbers[offset:offset + 100]
            made = await asyncio.gather(*(new_ticket(session, base, table) for table, _ in batch))
            for (table, _), ticket in zip(batch, made, strict=True):
                tickets[table].append(ticket)
        made_seconds = time.monotonic() - started
        memory_after = store.info("memory")["used_memory"]
        seen: dict[str, float] = {}
        polls = []
        for number, ticket in enumerate(ticket for table in tickets for ticket in table):
            waiter = stream if args.mode == "stream" else follow
            polls.append(asyncio.create_task(waiter(session, base, ticket, seen)))
            if number % 500 == 499:
                await asyncio.sleep(0.2)  # let the server take them in without a burst of accepts
        settle_seconds = await settled(base)
        threads_waiting, rss_waiting = server_threads(base), server_rss(base)
        answered, woken = [], []
        # each table's last ticket on a connection of its own: a kept-alive one the server closed meanwhile would
        # fail the POST, and a POST is not sent twice
        fresh = aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True))
        for table in range(min(args.tables, tables)):
            sent = time.monotonic()
            last = await new_ticket(fresh, base, table)
            answered.append(time.monotonic() - sent)
            assert last["status"] == "matched", last
            ids = [ticket["ticket_id"] for ticket in tickets[table]]
            while not all(ticket_id in seen for ticket_id in ids) and time.monotonic() - sent < WOKEN_WITHIN_SECONDS:
                await asyncio.sleep(0.005)
            woken.append(max(seen.get(ticket_id, float("inf")) for ticket_id in ids) - sent)
        await fresh.close()
        for poll in polls:
            poll.cancel()
        await asyncio.gather(*polls, return_exceptions=True)
    tickets_made = sum(len(table) for table in tickets)
    figures = {
        "tickets": tickets_made, "queues": tables, "seconds_to_make": round(made_seconds, 1),
        "redis_bytes_per_ticket": round((memory_after - memory_before) / tickets_made),
        "server_threads_before": threads_before, "server_threads_waiting": threads_waiting,
        "mode": args.mode, "waiters": len(polls), "seconds_to_settle": round(settle_seconds, 1),
        "rss_mb_before": round(rss_before / 2**20), "rss_mb_waiting": round(rss_waiting / 2**20),
        "pair_post_ms_p50": round(percentile(answered, 0.5), 1), "pair_post_ms_max": round(percentile(answered, 1), 1),
        "pair_woken_ms_p50": round(percentile(woken, 0.5), 1), "pair_woken_ms_max": round(percentile(woken, 1), 1),
        "pair_post_ms": [round(1000 * seconds) for seconds in answered],
    }
    print(json.dumps(figures))


def main() -> None:
    """Parse the arguments and run once."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="a running server")
    parser.add_argument("--redis", required=True, help="its game Redis, for INFO memory")
    parser.add_argument("--tickets", type=int, default=10000)
    parser.add_argument("--tables", type=int, default=10, help="tables completed while the others wait")
    parser.add_argument("--mode", choices=["poll", "stream"], default="poll", help="how each ticket is followed")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # one socket per long-poll
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
