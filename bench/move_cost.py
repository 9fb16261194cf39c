"""What one move costs: Redis commands and CPU, bytes of game state, web and worker CPU (docs/scaling.md's input).

    python bench/move_cost.py [--games 40] [--moves 60] [--ai-games 10] [--ai-moves 30]
        [--levels easy,medium,hard] [--idle 20] [--idle-seconds 10] [--phases human,waiting,ai,idle]
        [--source OLD_CHECKOUT]

Starts two redis-servers of its own (the game state's and the queue's, as `REDIS_URL` and `RQ_REDIS_URL` split
them in production), gunicorn with the production config (2 processes) and one RQ worker on them
(tests/e2e/stack.py), so every Redis command counted is Cardroom's. Each phase diffs `INFO commandstats` and
`INFO cpu` of both servers and the CPU times (user + system) of the gunicorn processes and of the worker's process
tree before and after it:

- human moves: `--games` two-human Durak games replay random legal games recorded first (bench/throughput.py),
  `--moves` POSTs each at most, one request at a time; then as many GETs of a seat's view (what the opponent
  reads after each move). Per POST and per GET: game-Redis commands and CPU, web CPU. Bytes of a game: `MEMORY
  USAGE` of its keys once seated and after its moves.
- waiting moves: the same games replayed again, new, as players play them: each move posted without `If-Match`
  while the other seat long-polls (`after_version`, `wait=30`), each seat on a connection of its own, new for each
  game (whether a game's two connections share a web process is gunicorn's draw, made again per game). Per move
  (its POST and the other seat's long-poll, which the move wakes): game-Redis commands and CPU, web CPU.
- AI moves, per level of `--levels`: `--ai-games` Durak games of a human seat (random legal moves, at most
  `--ai-moves` of them, each after a long-poll for its turn) against an AI seat of that level, played at once.
  Per AI move (versions the AI seat added): worker CPU, queue-Redis commands (and the most frequent of them) and
  CPU, game-Redis commands.
- idle: `--idle` clients long-poll (wait=30) games nobody moves in for `--idle-seconds`: game-Redis commands and
  web CPU per second (a waiter costs nothing while it waits: this is the processes' own background work, e.g. the
  rate limits' shared counts), and the queue Redis's commands and the CPU per second of an idle worker.

Durak stands for the four games: its moves are of the same kind (one small JSON action, one compare-and-set).

`--source` also runs the stack of another checkout (e.g. a `git worktree` of an older commit) on two
redis-servers of its own, and each phase runs on it and then on this checkout's, side by side; its lines are
marked "before". `--phases` runs only the phases named.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import psutil
import redis
import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.throughput import Table, new_human_game, post_json, record_script  # noqa: E402 - needs the repo root
from tests.e2e.stack import REPO, Stack, call, start_stack, stop_stack  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

TABLE = Table()  # two-human Durak


@dataclass(frozen=True)
class Reading:
    """Counters at one instant: commands served and CPU seconds of each Redis, CPU seconds of web and worker."""

    game_commands: int
    game_cpu: float
    queue_commands: int
    queue_cpu: float
    web_cpu: float
    worker_cpu: float

    def __sub__(self, other: Reading) -> Reading:
        return Reading(*(getattr(self, name) - getattr(other, name) for name in self.__dataclass_fields__))


def command_calls(client: redis.Redis) -> Counter[str]:
    """Calls of each command the server has executed so far (`INFO commandstats`; this INFO counts on the next)."""
    return Counter({name.removeprefix("cmdstat_"): entry["calls"]
                    for name, entry in client.info("commandstats").items()})


def commands(client: redis.Redis) -> int:
    """Commands the server has executed so far, all kinds together."""
    return command_calls(client).total()


def redis_cpu(client: redis.Redis) -> float:
    """CPU seconds (user + system) of the server's main process so far."""
    info = client.info("cpu")
    return info["used_cpu_user"] + info["used_cpu_sys"]


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process and its living descendants."""
    root = psutil.Process(pid)
    return sum(sum(process.cpu_times()[:2]) for process in [root, *root.children(recursive=True)])


def read(stack: Stack, game: redis.Redis, queue: redis.Redis) -> Reading:
    """The counters now. Each INFO below counts once on its own server; `cost` takes them out."""
    gunicorn, worker = stack.processes[0], stack.workers[0]
    return Reading(commands(game), redis_cpu(game), commands(queue), redis_cpu(queue),
                   tree_cpu(gunicorn.pid), tree_cpu(worker.pid))


INFO_CALLS_PER_READING = 2
"""`read` sends INFO twice to each server (commandstats, then cpu); the first is in its own count."""


def cost(before: Reading, after: Reading) -> Reading:
    """What happened between two readings, without the INFO commands of the readings themselves."""
    spent = after - before
    return Reading(spent.game_commands - INFO_CALLS_PER_READING, spent.game_cpu,
                   spent.queue_commands - INFO_CALLS_PER_READING, spent.queue_cpu, spent.web_cpu, spent.worker_cpu)


def game_bytes(game: redis.Redis, prefix: str, game_id: str) -> int:
    """Bytes Redis holds for one game's keys (`MEMORY USAGE` of every `<prefix>:{<game_id>}:*`)."""
    keys = list(game.scan_iter(match=f"{prefix}:{{{game_id}}}:*", count=1000))
    return sum(game.memory_usage(key, samples=0) or 0 for key in keys)


def human_moves(stack: Stack, game: redis.Redis, queue: redis.Redis, games: int, moves: int) -> list[str]:
    """The human-moves phase (module docstring); prints its lines, returns them."""
    base = stack.base_url
    scripts = {seed: record_script(base, TABLE, seed)[:moves] for seed in range(games)}
    played = [(seed, *new_human_game(base, TABLE, seed)[:2]) for seed in scripts]
    seated = [game_bytes(game, stack.prefix, game_id) for _, game_id, _ in played]
    session = requests.Session()
    calls = command_calls(game)
    before = read(stack, game, queue)
    posts = 0
    for seed, game_id, tokens in played:
        for step, (seat, action) in enumerate(scripts[seed]):
            headers = {"Authorization": f"Bearer {tokens[seat]}", "If-Match": f'"{TABLE.started_at + step}"'}
            answer = call(session, "POST", f"{base}/v1/games/{game_id}/actions", json=action, headers=headers)
            assert answer.status_code == 200, answer.text
            posts += 1
    post = cost(before, read(stack, game, queue))
    post_calls = command_calls(game) - calls
    finished = [game_bytes(game, stack.prefix, game_id) for _, game_id, _ in played]
    calls = command_calls(game)
    before = read(stack, game, queue)
    gets = 0
    for seed, game_id, tokens in played:
        for step in range(len(scripts[seed])):
            headers = {"Authorization": f"Bearer {tokens[step % 2]}"}
            assert call(session, "GET", f"{base}/v1/games/{game_id}", headers=headers).status_code == 200
            gets += 1
    get = cost(before, read(stack, game, queue))
    get_calls = command_calls(game) - calls
    growth = (sum(finished) - sum(seated)) / posts
    return [
        f"human moves: {posts} POSTs over {games} games; {gets} view GETs",
        f"  per POST: {post.game_commands / posts:.1f} game-Redis commands, {1000 * post.game_cpu / posts:.3f} ms "
        f"game-Redis CPU, {1000 * post.web_cpu / posts:.2f} ms web CPU",
        f"  per GET:  {get.game_commands / gets:.1f} game-Redis commands, {1000 * get.game_cpu / gets:.3f} ms "
        f"game-Redis CPU, {1000 * get.web_cpu / gets:.2f} ms web CPU",
        f"  game-Redis commands per POST: {per_kind(post_calls, posts)}",
        f"  game-Redis commands per GET: {per_kind(get_calls, gets)}",
        f"  a game: {sum(seated) / len(seated):,.0f} B seated, {sum(finished) / len(finished):,.0f} B after "
        f"{posts / games:.0f} moves ({growth:,.0f} B per move)",
    ]


def waiting_moves(stack: Stack, game: redis.Redis, queue: redis.Redis, games: int, moves: int) -> list[str]:
    """The waiting-moves phase (module docstring); prints its lines, returns them."""
    base = stack.base_url
    scripts = {seed: record_script(base, TABLE, seed)[:moves] for seed in range(games)}
    played = [(seed, *new_human_game(base, TABLE, seed)[:2]) for seed in scripts]
    calls = command_calls(game)
    before = read(stack, game, queue)
    count = 0
    with ThreadPoolExecutor(max_workers=1) as waiter:
        for seed, game_id, tokens in played:
            # each player its own connection, as players have: whether the two land on one web process or on
            # two (a woken long-poll then reads the move's record) is gunicorn's, so each game draws it anew
            sessions = [requests.Session(), requests.Session()]
            url = f"{base}/v1/games/{game_id}"
            for step, (seat, action) in enumerate(scripts[seed]):
                version, other = TABLE.started_at + step, 1 - seat
                held = waiter.submit(call, sessions[other], "GET", url, timeout=60,
                                     params={"after_version": version, "wait": 30},
                                     headers={"Authorization": f"Bearer {tokens[other]}"})
                time.sleep(WAITING_HEAD_START)
                answer = call(sessions[seat], "POST", f"{url}/actions", json=action,
                              headers={"Authorization": f"Bearer {tokens[seat]}"})
                assert answer.status_code == 200, answer.text
                woken = held.result(timeout=60)
                assert woken.status_code == 200 and woken.json()["version"] == version + 1, woken.text
                count += 1
            for session in sessions:
                session.close()
    spent = cost(before, read(stack, game, queue))
    spent_calls = command_calls(game) - calls
    return [
        f"waiting moves: {count} moves over {games} games, the other seat long-polling each time (no If-Match)",
        f"  per move (its POST and the other seat's long-poll): {spent.game_commands / count:.1f} game-Redis "
        f"commands, {1000 * spent.game_cpu / count:.3f} ms game-Redis CPU, {1000 * spent.web_cpu / count:.2f} ms "
        "web CPU",
        f"  game-Redis commands per move: {per_kind(spent_calls, count)}",
    ]


WAITING_HEAD_START = 0.02
"""Seconds the other seat's long-poll gets before the move is posted (players wait seconds: it is held by then)."""


def per_kind(calls: Counter[str], moves: int) -> str:
    """`calls` per move by command, the most frequent first, without the readings' INFO (scripts' commands in)."""
    return ", ".join(f"{name} {count / moves:.2f}" for name, count in calls.most_common() if name != "info")


def play_against_ai(base: str, level: str, seed: int, moves: int) -> tuple[int, int]:
    """One human (random legal moves, at most `moves`) against an AI seat of `level`, until the game ends or the
    human has moved `moves` times and the AI has answered; (versions the AI added, human moves)."""
    session, rng = requests.Session(), random.Random(seed)
    seats = [{"kind": "human", "name": "H"}, {"kind": "ai", "level": level}]
    created = post_json(f"{base}/v1/games", {"game": "durak", "seats": seats, "seed": seed}, expect=201)
    url, headers = f"{base}/v1/games/{created['game_id']}", {"Authorization": f"Bearer {created['player_token']}"}
    view, start, human = created, created["version"], 0
    while view["status"] != "finished":
        if 0 in view["to_act"] and human < moves:
            action = rng.choice([move for move in view["legal_actions"] if move["type"] != "resign"])
            view = post_json(f"{url}/actions", action, created["player_token"])
            human += 1
            continue
        if 0 in view["to_act"]:
            break  # the human's quota is used up and the AI has answered its last move
        answer = call(session, "GET", url, params={"after_version": view["version"], "wait": 20}, headers=headers,
                      timeout=40)
        if answer.status_code == 200:
            view = answer.json()
    return view["version"] - start - human, human


def ai_moves(stack: Stack, game: redis.Redis, queue: redis.Redis, level: str, games: int, moves: int) -> list[str]:
    """The AI-moves phase of one level (module docstring); its lines, the last the queue's commands by kind."""
    calls = command_calls(queue)
    before = read(stack, game, queue)
    with ThreadPoolExecutor(max_workers=games) as pool:
        results = list(pool.map(lambda seed: play_against_ai(stack.base_url, level, seed, moves), range(games)))
    time.sleep(0.5)  # RQ's bookkeeping after the last job
    spent = cost(before, read(stack, game, queue))
    calls = command_calls(queue) - calls
    ai = sum(result[0] for result in results)
    kinds = ", ".join(f"{name} {count / ai:.1f}" for name, count in calls.most_common(10))
    return [f"AI {level}: {ai} AI moves ({sum(result[1] for result in results)} human) over {games} games; per AI "
            f"move: {1000 * spent.worker_cpu / ai:.1f} ms worker CPU, {spent.queue_commands / ai:.1f} queue-Redis "
            f"commands ({1000 * spent.queue_cpu / ai:.3f} ms CPU), {spent.game_commands / ai:.1f} game-Redis "
            f"commands ({1000 * spent.game_cpu / ai:.3f} ms CPU)",
            f"  queue-Redis commands per AI move, the most frequent: {kinds}"]


def idle(stack: Stack, game: redis.Redis, queue: redis.Redis, waiters: int, seconds: float) -> list[str]:
    """The idle phase (module docstring); its lines."""
    tables = [new_human_game(stack.base_url, TABLE, seed) for seed in range(max(1, waiters // 4))]
    stop = threading.Event()

    def wait_on(number: int) -> None:
        game_id, tokens, view = tables[number % len(tables)]
        session = requests.Session()
        while not stop.is_set():
            call(session, "GET", f"{stack.base_url}/v1/games/{game_id}", timeout=60,
                 params={"after_version": view["version"] + 1, "wait": 30},
                 headers={"Authorization": f"Bearer {tokens[0]}"})

    before = read(stack, game, queue)
    started = time.monotonic()
    threads = [threading.Thread(target=wait_on, args=(number,), daemon=True) for number in range(waiters)]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    spent, elapsed = cost(before, read(stack, game, queue)), time.monotonic() - started
    stop.set()  # the waiters end with their current long-poll (daemon threads: not joined)
    return [f"idle: {waiters} waiters for {elapsed:.1f} s, per second: {spent.game_commands / elapsed:.1f} game-Redis "
            f"commands and {1000 * spent.web_cpu / elapsed:.1f} ms web CPU (both gunicorn processes), "
            f"{spent.queue_commands / elapsed:.1f} queue-Redis commands and {1000 * spent.worker_cpu / elapsed:.1f} ms "
            f"CPU of the idle worker"]


def main() -> None:
    """Start the Redis servers and the stacks, run the phases on each stack in turn, print their figures, stop all."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="two-human games replayed")
    parser.add_argument("--moves", type=int, default=60, help="moves per human game at most")
    parser.add_argument("--ai-games", type=int, default=10, help="human-against-AI games per level, played at once")
    parser.add_argument("--ai-moves", type=int, default=30, help="human moves per game against the AI at most")
    parser.add_argument("--levels", default="easy,medium,hard")
    parser.add_argument("--idle", type=int, default=20, help="idle long-polling clients")
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--phases", default="human,waiting,ai,idle",
                        help="the phases to run, of human, waiting, ai, idle")
    parser.add_argument("--source", type=Path, default=None,
                        help="also run another checkout's stack (e.g. a git worktree of an older commit), first")
    arguments = parser.parse_args()
    sources = {"before": arguments.source, "": REPO} if arguments.source else {"": REPO}
    servers = {label: [RedisServer(["--appendfsync", "everysec"]) for _ in range(2)] for label in sources}
    stacks: dict[str, Stack] = {}
    try:
        for label, source in sources.items():
            for server in servers[label]:
                server.start()
            stacks[label] = start_stack(label="move-cost", redis_url=servers[label][0].url, source=source,
                                        environment={"RQ_REDIS_URL": servers[label][1].url})
        clients = {label: [server.client() for server in servers[label]] for label in sources}
        phases = arguments.phases.split(",")
        runs = []
        if "human" in phases:
            runs.append(lambda stack, game, queue: human_moves(stack, game, queue, arguments.games, arguments.moves))
        if "waiting" in phases:
            runs.append(lambda stack, game, queue: waiting_moves(stack, game, queue, arguments.games, arguments.moves))
        for level in arguments.levels.split(",") if "ai" in phases else []:
            runs.append(lambda stack, game, queue, level=level: ai_moves(stack, game, queue, level,
                                                                         arguments.ai_games, arguments.ai_moves))
        if "idle" in phases:
            runs.append(lambda stack, game, queue: idle(stack, game, queue, arguments.idle, arguments.idle_seconds))
        lines = []
        for run in runs:
            for label, stack in stacks.items():
                lines += [f"{label} {line}" if label else line for line in run(stack, *clients[label])]
        print("\n".join(lines))
    finally:
        for stack in stacks.values():
            stop_stack(stack, delete_redis_keys=False)  # the servers go with their keys
        for server in [server for pair in servers.values() for server in pair]:
            server.remove()


if __name__ == "__main__":
    main()
