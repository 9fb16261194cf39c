"""How long the RQ job of one `random` or `easy` AI turn takes, on the real stack (issue 7: within 50 ms).

    python bench/ai_job_latency.py [--games 5] [--in-flight 1] [--poll 1] [--levels random,easy]
                                   [--only talmut] [--talmut-options '{"match_pause_ms": 0}']
                                   [--redis-url redis://127.0.0.1:6379/0]

`bench/ai_strength.py` times only the engine's decision. Issue 7's target is about the whole job,
`worker/jobs.py::play_ai_turn`: load the game from Redis, build the seat's view, choose, apply and store the move,
enqueue the next AI turn. So this starts gunicorn and one RQ worker on the real Redis (`tests/e2e/stack.py`, own
key prefix and queue, keys deleted at the end), creates `--games` all-AI games of each game over the HTTP API
(`random` against `easy`, seats alternating, or the `--levels` given; Talmut with 3 seats and `match_pause_ms` 0
so no scheduled delay is counted) and waits until each is finished, `--in-flight` games at a time. It GETs each
view once every `--poll` seconds, which leaves the 2 cores to the server; `--poll 0` long-polls every version,
like a watching client.

Per job it reads RQ's own records, harvested from the queue's `FinishedJobRegistry` while the games run (RQ keeps
a finished job only `result_ttl`, 500 s by default): run time = `ended_at - started_at`, both stamped around the
job function (RQ's bookkeeping after it is not in it), and queue wait = `started_at - enqueued_at`, which holds
the end of the previous job's bookkeeping, the dequeue, and with a forking worker (older checkouts) the fork. The
turnaround printed below the table is their sum. The worker's CPU time per job (its process's user + system time
over the run over the jobs; not a forking worker's horses, nor the scheduler it forks) bounds the jobs per second
one worker process can do on a free core. `--source` runs the server and worker of another checkout (a
`git worktree` of an older commit) for a before/after comparison. A job's level is its seat's (job args are
`(key_prefix, game_id, version, seat)`). Only jobs that decided (returned `played`, `fallback` or `passed`) are
timed; `stale` ones (the game moved on, e.g. another Talmut seat matched first) are only counted.

A Talmut turn takes several jobs (a draw, then a swap or a discard, a power) and, with a `match_pause_ms`
(`--talmut-options`, e.g. `{}` for the defaults), the pause before the draw. With `--poll 0` the watcher also
times each Talmut turn as a player at the table sees it: from the first version it sees with a seat to turn to the
first with the next seat (or the next round), per level of the seat whose turn it was.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

import psutil
import redis
import requests
from rq import Queue
from rq.job import Job
from rq.registry import FailedJobRegistry, FinishedJobRegistry

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.throughput import percentile  # noqa: E402 - needs the repo root on sys.path
from tests.e2e.stack import DEFAULT_REDIS_URL, REPO, Stack, call, start_stack, stop_stack  # noqa: E402

GAMES = {"durak": 2, "svoi_koziri": 2, "tadmur": 2, "talmut": 3}
OPTIONS = {"talmut": {"match_pause_ms": 0}}
DECIDED = {"played", "fallback", "passed"}
# One timed job: game, level, run time (s), queue wait (s), what it returned.
Sample = tuple[str, str, float, float, str]
Turn = tuple[str, float]
"""One Talmut turn as the watcher saw it: the level of the seat whose turn it was, its seconds."""


def seat_levels(levels: list[str], seats: int, index: int) -> list[str]:
    """`levels` alternating by seat, the first seat's alternating by game: every level acts in every game."""
    return [levels[(index + seat) % len(levels)] for seat in range(seats)]


def play_game(base: str, game: str, index: int, poll: float, levels: list[str]) -> tuple[str, list[str], list[Turn]]:
    """Create one all-AI game of `levels` (`seat_levels`), watch its view (`poll`: see --poll) until it is finished;
    its id, seat levels and, for Talmut watched with `poll` 0, its timed turns (module docstring)."""
    session = requests.Session()
    levels = seat_levels(levels, GAMES[game], index)
    body = {"game": game, "seats": [{"kind": "ai", "level": level} for level in levels],
            "options": OPTIONS.get(game, {}), "seed": index}
    created = call(session, "POST", f"{base}/v1/games", json=body)
    assert created.status_code == 201, created.text
    view = created.json()
    url = f"{base}/v1/games/{view['game_id']}"
    turns: list[Turn] = []
    turn, since = (view["state"].get("round"), view["state"].get("turn")), time.monotonic()
    while view["status"] != "finished":
        if poll > 0:
            time.sleep(poll)
            view = call(session, "GET", url).json()
            continue
        answer = call(session, "GET", url, params={"after_version": view["version"], "wait": 20}, timeout=40)
        if answer.status_code == 200:
            view = answer.json()
            now, seen = time.monotonic(), (view["state"].get("round"), view["state"].get("turn"))
            if game == "talmut" and seen != turn:
                turns.append((levels[turn[1]], now - since))
                turn, since = seen, now
    return view["game_id"], levels, turns


def harvest(queue: Queue, seen: set[str], into: dict[str, Job]) -> None:
    """Fetch the jobs newly in the queue's finished registry into `into` (by id), before RQ expires them."""
    ids = [job_id for job_id in FinishedJobRegistry(queue=queue).get_job_ids() if job_id not in seen]
    seen.update(ids)
    for job in Job.fetch_many(ids, queue.connection, serializer=queue.serializer):
        if job is not None:
            into[job.id] = job


def run(
    stack: Stack, games: int, in_flight: int, poll: float, levels: list[str], only: list[str]
) -> tuple[list[Sample], Counter[str], int, list[Turn]]:
    """Play the games of `only`, harvesting finished jobs as they go; the timed samples, job outcomes, failed-job
    count and the Talmut turns timed (`play_game`)."""
    queue = Queue(stack.queue, connection=redis.Redis.from_url(stack.redis_url), serializer="json")
    seen: set[str] = set()
    jobs: dict[str, Job] = {}
    levels_of: dict[str, tuple[str, list[str]]] = {}
    turns: list[Turn] = []
    with ThreadPoolExecutor(max_workers=in_flight) as pool:
        pending = {pool.submit(play_game, stack.base_url, game, index, poll, levels): game
                   for index in range(games) for game in only}
        while pending:
            done, _ = wait(pending, timeout=2, return_when=FIRST_COMPLETED)
            for future in done:
                game_id, levels, timed = future.result()
                turns.extend(timed)
                levels_of[game_id] = pending.pop(future), levels
                print(f"{len(levels_of)} games finished", end="\r", file=sys.stderr, flush=True)
            harvest(queue, seen, jobs)
    time.sleep(0.5)  # the last jobs of a game may end just after its final move was stored
    harvest(queue, seen, jobs)
    samples: list[Sample] = []
    outcomes: Counter[str] = Counter()
    for job in jobs.values():
        _, game_id, _, seat = job.args
        outcome = str(job.return_value())
        outcomes[outcome] += 1
        if outcome in DECIDED and game_id in levels_of:
            game, levels = levels_of[game_id]
            run_time = (job.ended_at - job.started_at).total_seconds()
            samples.append((game, levels[seat], run_time, (job.started_at - job.enqueued_at).total_seconds(), outcome))
    return samples, outcomes, FailedJobRegistry(queue=queue).count, turns


def table(samples: list[Sample]) -> str:
    """The Markdown table: per game and level, job count and run-time / queue-wait percentiles (ms)."""
    groups: dict[tuple[str, str], list[Sample]] = defaultdict(list)
    for sample in samples:
        groups[sample[0], sample[1]].append(sample)
    lines = ["| game | level | jobs | p50 ms | p95 ms | max ms | wait p50 ms | wait p95 ms |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for (game, level), group in sorted(groups.items(), key=lambda item: (list(GAMES).index(item[0][0]), item[0][1])):
        runs, waits = [s[2] for s in group], [s[3] for s in group]
        lines.append(f"| {game} | {level} | {len(group)} | {percentile(runs, 0.5):.1f} | {percentile(runs, 0.95):.1f} "
                     f"| {1000 * max(runs):.1f} | {percentile(waits, 0.5):.1f} | {percentile(waits, 0.95):.1f} |")
    return "\n".join(lines)


def main() -> None:
    """Start the stack, play the games, print the table and the job outcomes, clean up."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games per game type")
    parser.add_argument("--in-flight", type=int, default=1, help="games played at the same time")
    parser.add_argument("--poll", type=float, default=1.0,
                        help="seconds between GETs of a view; 0: long-poll every version, like a watching client")
    parser.add_argument("--levels", default="random,easy", help="the seats' levels, comma-separated (seat_levels)")
    parser.add_argument("--only", default=",".join(GAMES), help="comma-separated game ids (default: all four)")
    parser.add_argument("--talmut-options", default=json.dumps(OPTIONS["talmut"]),
                        help="the Talmut games' options as JSON (`{}`: the defaults, with the match pause)")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    parser.add_argument("--source", type=Path, default=None,
                        help="run the server and worker of another checkout (e.g. a git worktree of an older commit)")
    args = parser.parse_args()
    OPTIONS["talmut"] = json.loads(args.talmut_options)
    os.environ["REDIS_URL"] = args.redis_url  # start_stack reads it
    stack = start_stack(label="bench-aijob", source=args.source or REPO)
    try:
        worker = psutil.Process(stack.workers[0].pid)
        cpu_before = sum(worker.cpu_times()[:2])
        started = time.monotonic()
        samples, outcomes, failed, turns = run(stack, args.games, args.in_flight, args.poll, args.levels.split(","),
                                               args.only.split(","))
        seconds = time.monotonic() - started
        worker_cpu = sum(worker.cpu_times()[:2]) - cpu_before
    finally:
        stop_stack(stack)
    print(table(samples))
    if turns:
        print("\n| Talmut turns of | turns | p50 s | p95 s | max s |\n|---|---:|---:|---:|---:|")
        for level in sorted({level for level, _ in turns}):
            seconds_of = [seconds for turn_level, seconds in turns if turn_level == level]
            print(f"| {level} | {len(seconds_of)} | {percentile(seconds_of, 0.5) / 1000:.2f} | "
                  f"{percentile(seconds_of, 0.95) / 1000:.2f} | {max(seconds_of):.2f} |")
    turnaround = [wait + run_time for _, _, run_time, wait, _ in samples]
    print(f"\nturnaround (queue wait + job) p50 {percentile(turnaround, 0.5):.1f} ms, p95 "
          f"{percentile(turnaround, 0.95):.1f} ms; {sum(outcomes.values())} jobs in {seconds:.1f} s "
          f"({sum(outcomes.values()) / seconds:.1f} jobs/s, one worker process)")
    jobs = sum(outcomes.values())
    print(f"worker CPU per job {1000 * worker_cpu / jobs:.2f} ms (user + system of the worker process, its "
          f"scheduler not counted): at most {jobs / worker_cpu:.0f} jobs/s on one free core")
    print(f"job outcomes: {dict(outcomes)}; failed jobs: {failed}")
    slowest = sorted(samples, key=lambda s: s[2], reverse=True)[:5]
    print("slowest: " + ", ".join(f"{g}/{lv} {1000 * t:.1f} ms ({o})" for g, lv, t, _, o in slowest))
    if failed:
        sys.exit("some AI jobs failed: see the worker log")


if __name__ == "__main__":
    main()
