"""AI strength and latency: whole games between AI levels, engine only (no HTTP, no Redis).

Every AI gets exactly what the worker gives it: `engine.players.seat_view(game, state, seat, history)`, the seat's
view, its legal actions and the event history redacted for it (`engine.ai.history_entry`, what
`service.views.event_view` returns). Pairings (strong level first): hard-random, hard-easy, hard-medium,
medium-easy; with `--lowest`, every level against the `lowest` baseline (bench/lowest.py: Durak, Svoi Koziri,
Tadmur); the `first` baseline plays the first legal action but `resign` (`first_offered`, e.g. `--pairings
first-hard`); with `--ladder`, a round robin of lowest (where it plays), random, easy, medium and hard in every
game, and each level's rating on the Elo scale (`random` = 1000) with a bootstrap 95% interval (`ratings`). Two-seat
games swap seats every other game; Talmut seats the first level once at a table of 3 with two of the second (the
issue's "hard vs two random"), rotating its seat, and counts a win when the first level has the best (lowest,
ties shared) final total.

A seat listed only for Talmut's optional actions that chooses nothing lets the turn seat act. Prints, per game
and pairing, the first level's win rate and score (a win 1, a draw ½) with 95% Wilson intervals, and p50/p95
decision times per level (wall time, and the CPU time of the deciding process, which a busy machine inflates
less); for Talmut also how its rounds went, per pairing and level (`TalmutCounts`): rounds per
game, median turns per round, calls per round and how often a call was true, and the turns that took the discard
pile's top card and put it straight back; for Tadmur, each level's guesses per game and the share that were right.

    python bench/ai_strength.py --games 40 --processes 2 --counts "talmut=20,medium-easy=60"

`--max-minutes M` stops after M minutes and reports the games finished by then (tasks are shuffled, so every
pairing gets its share; the few games in flight are dropped). `--json` is rewritten after every finished game.

The yardstick (bench/yardsticks: plain determinized UCT) plays as the player `yardstick:ROLLOUTS`, e.g.
`--opponent yardstick:1000` (medium and hard against it) or `--pairings hard-yardstick:4000`. `--start K` plays
tables K, K+1, ... (the same deal and seats as table K of any run), so that runs split over time or machines add up:
`--merge a.json,b.json` prints the tables of their `--json` results, one result per game, pairing and table index.
`--ladder` fits every player in the results on one Elo ladder, the yardsticks included; `--yardsticks 250,1000,4000`
adds them to its round robin.

    python bench/ai_strength.py --only durak --opponent yardstick:1000 --games 40 --start 40 --json b.json
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from engine.games import GAMES
from engine.games.talmut.players import drawn_card_move
from engine.players import SeatView, choose_action, history_entry, seat_view
from engine.protocol import Action, capabilities

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lowest import POLICIES, lowest  # noqa: E402 - the baseline beside this script
from yardsticks import yardstick_action  # noqa: E402 - the benchmark opponent beside this script

PAIRINGS = [("hard", "random"), ("hard", "easy"), ("hard", "medium"), ("medium", "easy")]
AGAINST_LOWEST = [(level, "lowest") for level in ("random", "easy", "medium", "hard")]
"""`--lowest`: every level against the `lowest` baseline (bench/lowest.py), in the games it plays."""
LADDER = ("lowest", "random", "easy", "medium", "hard")
"""`--ladder`: a round robin of these, weakest first; `lowest` only in the games it plays (bench/lowest.py)."""
OPPONENT_LEVELS = ("medium", "hard")
"""`--opponent X`: these levels each play X."""
YARDSTICK = "yardstick:"
"""The prefix of a yardstick player's name; the rest is its rollouts per decision (`yardstick:1000`)."""
ANCHOR = ("random", 1000.0)
"""The ladder's fixed point: `random` rates 1000; 400 points more is 10:1 odds (the Elo scale)."""
MAX_ACTIONS = 20_000


class TalmutCounts:
    """How a Talmut game's rounds went, counted move by move (shared/rules/talmut.md §3.2-§3.3, §3.13, §5.3).

    A turn starts with a `draw` or a `call` (§3.2). Per level (summed over its seats): `calls`; `true_calls`, the
    calls that were not false (`call_total` at most 5, §5.3, §7.16: the call's success as the rules define it);
    `lowest_calls`, the calls whose caller scored the round's lowest points (ties included); `take_backs`, the
    turns that drew the discard pile's top card and discarded it again though a swap was legal (§3.3, §7.7: a turn
    that changes nothing but the window), and `ruled_swaps`, those of them where the search's rule for a drawn card
    (engine/games/talmut/players.py `drawn_card_move`) swaps it in, so that a search seat took it meaning to keep it
    (where the rule discards it, the search weighed taking it back when it drew); `seat_rounds`, rounds played by its
    seats.
    """

    def __init__(self, levels: list[str]) -> None:
        self.levels = levels
        self.turns: list[int] = [0]
        """Turns per round, the round in play last."""
        self.by_level: dict[str, dict[str, int]] = {
            level: dict.fromkeys(("calls", "true_calls", "lowest_calls", "take_backs", "ruled_swaps", "seat_rounds"), 0)
            for level in levels
        }

    def move(self, state: Any, seat: int, action: Action) -> None:
        """Count `seat`'s `action`, about to be applied to `state` (a `TalmutState`)."""
        if seat != state.turn:
            return
        if action["type"] in ("draw", "call"):
            self.turns[-1] += 1
        elif (action["type"] == "discard" and state.drawn.source == "discard"
              and any(slot.card is not None for slot in state.layouts[seat])):
            counts = self.by_level[self.levels[seat]]
            counts["take_backs"] += 1
            ruled = drawn_card_move(state)
            counts["ruled_swaps"] += ruled is not None and ruled[1]["type"] == "swap"

    def round_ended(self, record: Any) -> None:
        """Count a scored round (a `RoundRecord`) and start the next."""
        self.turns.append(0)
        for level in self.levels:
            self.by_level[level]["seat_rounds"] += 1
        counts = self.by_level[self.levels[record.caller]]
        counts["calls"] += 1
        counts["true_calls"] += not record.false_call
        counts["lowest_calls"] += record.points[record.caller] == min(record.points)

    def summary(self) -> dict[str, Any]:
        """JSON for the per-game result: the finished rounds' turns, the counts per level."""
        return {"turns": self.turns[:-1], "by_level": self.by_level}


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion `wins / n`.

    >>> [round(x, 3) for x in wilson(38, 40)]
    [0.835, 0.986]
    """
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_one(task: tuple[str, str, str, int]) -> dict[str, Any]:
    """Play game number `index` of `game_id` between `strong` and `weak`; return the outcome and timings."""
    game_id, strong, weak, index = task
    game = GAMES[game_id]
    options = game.parse_options({})
    seats = game.SEATS.start
    if seats == 2:
        levels = [strong, weak] if index % 2 == 0 else [weak, strong]
        strong_seat = index % 2
    else:
        strong_seat = index % seats
        levels = [weak] * seats
        levels[strong_seat] = strong
    seed = 1_000_003 * index + 17
    state = game.new_game(seats, options, seed=seed)
    state = capabilities(game).with_ai_seats(state, range(seats))
    histories: list[list[Any]] = [[] for _ in range(seats)]
    version = 1
    times: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    rng = random.Random(f"{game_id}:{strong}:{weak}:{index}")
    counts = TalmutCounts(levels) if game_id == "talmut" else None
    guesses: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # Tadmur: per level, guesses made and right
    for _ in range(MAX_ACTIONS):
        if game.result(state) is not None:
            break
        to_act = sorted(game.to_act(state))
        move = None
        # seats with only optional actions first (they may pass), then the seat that must act
        optional = capabilities(game).optional_actions
        must = [s for s in to_act if any(a["type"] not in optional | {"resign"} for a in game.legal_actions(state, s))]
        for seat in [s for s in to_act if s not in must] + must:
            view = seat_view(game_id, state, seat, histories[seat])
            started, cpu_started = time.perf_counter(), time.process_time()
            action = decide(view, levels[seat], random.Random(rng.random()))
            times[levels[seat]].append(time.perf_counter() - started)
            cpu[levels[seat]].append(time.process_time() - cpu_started)
            if action is not None:
                move = (seat, action)
                break
        if move is None:
            raise RuntimeError(f"nobody acted in {game_id} game {index}")
        if counts is not None:
            counts.move(state, *move)
            rounds = len(state.history)
        state, events = game.apply(state, *move)
        version += 1
        if move[1]["type"] == "guess":
            guesses[levels[move[0]]][0] += 1
            guesses[levels[move[0]]][1] += game.result(state) is not None
        if counts is not None:
            for record in state.history[rounds:]:
                counts.round_ended(record)
        for seat in range(seats):
            histories[seat].extend(history_entry(version, event, seat) for event in events)
    result = game.result(state)
    counted: dict[str, Any] = {} if counts is None else {"talmut": counts.summary()}
    if game_id == "tadmur":
        counted["guesses"] = dict(guesses)
    if result is None:
        return {"game": game_id, "pairing": f"{strong}-{weak}", "index": index, "win": 0.0, "draw": False,
                "unfinished": True, "shared": False, "levels": levels, "best": [], "times": dict(times),
                "cpu": dict(cpu), **counted}
    win = strong_seat in result.winners
    return {
        **counted,
        "game": game_id,
        "pairing": f"{strong}-{weak}",
        "index": index,
        "win": 1.0 if win else 0.0,
        "draw": result.draw,
        "shared": win and len(result.winners) > 1,
        "unfinished": False,
        "levels": levels,
        "best": [levels[seat] for seat in result.winners],
        "times": dict(times),
        "cpu": dict(cpu),
    }


def ratings(results: list[dict[str, Any]], levels: tuple[str, ...]) -> dict[str, float]:
    """Strengths of `levels` from finished games, on the Elo scale with `ANCHOR` fixed.

    Luce's choice model of which seat ends best: a seat of strength s is best at its table with probability s over
    the sum of every seat's strength (at a two-seat table, the Bradley-Terry model). A game's best seat scores 1;
    seats that share the best, or a draw's seats, share it; unfinished games count for nothing. Every pair of
    levels also gets one virtual two-seat draw, so a level that won every game still has a finite rating. Fitted
    by Hunter's MM iteration (Ann. Statist. 32, 2004, §5): each strength becomes its score over the sum, per table,
    of its seats there over the table's total strength. 400 points more is 10:1 odds between two seats.
    """
    # tables alike (the same levels in the same numbers) are fitted as one, weighted by how many there were
    counts: dict[tuple[tuple[str, int], ...], int] = defaultdict(int)
    won: dict[str, float] = defaultdict(float)
    for a, b in ((a, b) for a in levels for b in levels if a < b):
        counts[(a, 1), (b, 1)] += 1
        won[a] += 0.5
        won[b] += 0.5
    for r in results:
        if r["unfinished"]:
            continue
        counts[tuple(sorted((level, r["levels"].count(level)) for level in set(r["levels"])))] += 1
        best = r["levels"] if r["draw"] else r["best"]  # a draw: every seat shares it
        for level in best:
            won[level] += 1 / len(best)
    tables = [(dict(seats), n) for seats, n in counts.items()]
    strength = dict.fromkeys(levels, 1.0)
    for _ in range(500):
        strength = {
            level: won[level] / sum(n * seats[level] / sum(k * strength[other] for other, k in seats.items())
                                    for seats, n in tables if level in seats)
            for level in levels
        }
    anchor, value = ANCHOR
    return {level: value + 400 * math.log10(strength[level] / strength[anchor]) for level in levels}


def ladder(
    results: list[dict[str, Any]], levels: tuple[str, ...], resamples: int = 200
) -> dict[str, tuple[float, float, float]]:
    """Per level: (rating, low, high), the 95% interval from refitting `resamples` bootstrap samples of the games.

    Each sample draws, within each pairing, as many games as it has, with replacement.
    """
    rating = ratings(results, levels)
    by_pairing: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        by_pairing[r["pairing"]].append(r)
    rng = random.Random(0)
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(resamples):
        drawn = [rng.choice(rows) for rows in by_pairing.values() for _ in rows]
        for level, value in ratings(drawn, levels).items():
            samples[level].append(value)
    return {level: (rating[level], percentile(samples[level], 0.025), percentile(samples[level], 0.975))
            for level in levels}


def talmut_table(results: list[dict[str, Any]], pairings: list[tuple[str, ...]]) -> list[str]:
    """Markdown rows of how Talmut's rounds went (`TalmutCounts`), per pairing and level, the unfinished games included.

    Per level: its calls per round played, the share of them that were true and that scored the round's lowest
    points, and its seats' take-backs per seat and round.
    """
    lines = ["| pairing | level | tables | rounds per table | median turns per round | calls per round | true calls "
             "| caller lowest | take-backs per seat and round | of them against the drawn card's rule |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for strong, weak in pairings:
        rows = [r["talmut"] for r in results if r["game"] == "talmut" and r["pairing"] == f"{strong}-{weak}"]
        turns = [n for row in rows for n in row["turns"]]
        for level in dict.fromkeys((strong, weak)):
            total = {key: sum(row["by_level"][level][key] for row in rows)
                     for key in ("calls", "true_calls", "lowest_calls", "take_backs", "ruled_swaps", "seat_rounds")}
            calls = total["calls"]
            lines.append(
                f"| {strong} vs 2 {weak} | {level} | {len(rows)} | {len(turns) / max(1, len(rows)):.1f} | "
                f"{percentile([float(n) for n in turns], 0.5):.0f} | {calls / max(1, len(turns)):.2f} | "
                f"{total['true_calls'] / max(1, calls):.0%} | {total['lowest_calls'] / max(1, calls):.0%} | "
                f"{total['take_backs'] / max(1, total['seat_rounds']):.2f} | {total['ruled_swaps']} |"
            )
    return lines


def guess_table(results: list[dict[str, Any]], pairings: list[tuple[str, ...]]) -> list[str]:
    """Markdown rows of Tadmur's guesses per pairing and level: guesses per game, and the share that were right.

    A game whose every end is a correct guess (shared/rules/tadmur.md §3.6) is a guessing duel: each seat's
    chances are its own rate of right guesses and the opponent's (docs/benchmarks.md, issue 44).
    """
    lines = ["| pairing | level | games | guesses per game | right | games ended by a right guess |",
             "|---|---|---:|---:|---:|---:|"]
    for strong, weak in pairings:
        rows = [r for r in results if r["game"] == "tadmur" and r["pairing"] == f"{strong}-{weak}" and "guesses" in r]
        for level in dict.fromkeys((strong, weak)):
            made = sum(r["guesses"].get(level, [0, 0])[0] for r in rows)
            right = sum(r["guesses"].get(level, [0, 0])[1] for r in rows)
            lines.append(f"| {strong} vs {weak} | {level} | {len(rows)} | {made / max(1, len(rows)):.2f} | "
                         f"{right / max(1, made):.1%} | {right} |")
    return lines


def first_offered(view: SeatView) -> Action | None:
    """The `first` baseline: the first legal action but `resign` whenever it has one, as a client that reads
    `legal_actions` as "every move you may make now" plays (issue 45); None when it has none."""
    return next((action for action in view["legal_actions"] if action["type"] != "resign"), None)


def decide(view: SeatView, level: str, rng: random.Random) -> Action | None:
    """The move of `level`: an offered level (engine/ai), the `lowest` or `first` baseline, or `yardstick:ROLLOUTS`."""
    if level.startswith(YARDSTICK):
        return yardstick_action(view, int(level.removeprefix(YARDSTICK)), rng)
    if level == "first":
        return first_offered(view)
    return lowest(view, rng) if level == "lowest" else choose_action(view, level, rng)


def percentile(values: list[float], q: float) -> float:
    """The `q` quantile (0..1) of `values`, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))] if ordered else float("nan")


def main(argv: list[str] | None = None) -> None:
    """Run the pairings and print the tables (Markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per pairing and game")
    parser.add_argument(
        "--counts", default="",
        help='overrides of --games by game, pairing or game:pairing (most specific wins), e.g. '
        '"talmut=20,hard-easy=10,talmut:hard-medium=5"',
    )
    parser.add_argument("--only", default="", help="comma-separated game ids (default: all four)")
    parser.add_argument("--pairings", default="", help='e.g. "hard-random,hard-medium" (default: all four)')
    parser.add_argument("--lowest", action="store_true",
                        help="play every level against the lowest baseline (Durak, Svoi Koziri, Tadmur)")
    parser.add_argument("--ladder", action="store_true",
                        help="a round robin of lowest (where it plays), random, easy, medium and hard, "
                        "with fitted ratings")
    parser.add_argument("--opponent", default="",
                        help="e.g. yardstick:1000: medium and hard each play it (instead of the default pairings)")
    parser.add_argument("--yardsticks", default="",
                        help='with --ladder: yardstick rollouts to add to its round robin, e.g. "250,1000,4000"')
    parser.add_argument("--start", type=int, default=0, help="the first table index to play (default 0)")
    parser.add_argument("--merge", default="",
                        help="comma-separated --json files of earlier runs: print their merged tables, play nothing")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--json", default="", help="also write the raw per-game results here")
    parser.add_argument(
        "--max-minutes", type=float, default=0,
        help="stop starting games after this long and report the games finished (0: play them all)",
    )
    args = parser.parse_args(argv)
    counts = {k: int(v) for k, v in (item.split("=") for item in args.counts.split(",") if item)}

    def count(game_id: str, pairing: str) -> int:
        for key in (f"{game_id}:{pairing}", pairing, game_id):
            if key in counts:
                return counts[key]
        return int(args.games)

    games = args.only.split(",") if args.only else sorted(POLICIES if args.lowest else GAMES)
    uses_lowest = args.lowest or "lowest" in args.pairings.replace(",", "-").split("-")
    if uses_lowest and not set(games) <= set(POLICIES):
        parser.error(f"the lowest baseline plays {', '.join(sorted(POLICIES))} only")

    yardsticks = tuple(f"{YARDSTICK}{n}" for n in args.yardsticks.split(",") if n)

    def ladder_levels(game_id: str) -> tuple[str, ...]:
        return tuple(level for level in LADDER if level != "lowest" or game_id in POLICIES) + yardsticks

    merged: dict[tuple[str, str, int], dict[str, Any]] = {}
    for path in filter(None, args.merge.split(",")):
        with open(path) as handle:
            for row in json.load(handle):
                merged.setdefault((row["game"], row["pairing"], row["index"]), row)  # a table played twice counts once
    if args.merge and not args.only:
        games = sorted({game_id for game_id, _, _ in merged})

    def pairings_of(game_id: str) -> list[tuple[str, ...]]:
        if args.merge:
            return [tuple(p.split("-")) for p in dict.fromkeys(p for g, p, _ in sorted(merged) if g == game_id)]
        if args.pairings:
            return [tuple(p.split("-")) for p in args.pairings.split(",")]
        if args.opponent:
            return [(level, args.opponent) for level in OPPONENT_LEVELS]
        if args.ladder:
            levels = ladder_levels(game_id)
            return [(strong, weak) for i, weak in enumerate(levels) for strong in levels[i + 1:]]
        return list(AGAINST_LOWEST if args.lowest else PAIRINGS)

    tasks = [
        (game_id, strong, weak, index)
        for game_id in games
        for strong, weak in pairings_of(game_id)
        for index in range(args.start, args.start + count(game_id, f"{strong}-{weak}"))
        if not args.merge
    ]
    random.Random(0).shuffle(tasks)  # mix long and short games across the processes
    started = time.perf_counter()
    results = list(merged.values())
    deadline = started + 60 * args.max_minutes
    with multiprocessing.Pool(args.processes) as pool:
        finished = pool.imap_unordered(play_one, tasks, chunksize=1)
        for _ in tasks:
            try:  # the deadline holds even while every process is in one long game
                wait = max(0.0, deadline - time.perf_counter()) if args.max_minutes else None
                results.append(finished.next(timeout=wait))
            except multiprocessing.TimeoutError:
                break
            if args.json:  # rewritten after every game, so that a run stopped early keeps what it finished
                with open(args.json, "w") as handle:
                    json.dump(results, handle)
        pool.terminate()  # the games in flight are dropped, never counted half-played
    elapsed = time.perf_counter() - started
    print(f"{len(results)} of {len(tasks) or len(results)} games in {elapsed:.0f} s with {args.processes} processes\n")
    print("| game | pairing | games | first level wins | win rate | 95% CI (Wilson) | draws | score | score 95% CI "
          "| shared best |")
    print("|---|---|---:|---:|---:|---|---:|---:|---|---:|")
    for game_id in games:
        for strong, weak in pairings_of(game_id):
            rows = [r for r in results if r["game"] == game_id and r["pairing"] == f"{strong}-{weak}"]
            wins = sum(r["win"] for r in rows)
            low, high = wilson(wins, len(rows))
            draws = sum(r["draw"] for r in rows)
            score = wins + draws / 2
            score_low, score_high = wilson(score, len(rows))
            label = f"{strong} vs 2 {weak}" if GAMES[game_id].SEATS.start > 2 else f"{strong} vs {weak}"
            print(
                f"| {game_id} | {label} | {len(rows)} | {wins:.0f} | {wins / max(1, len(rows)):.0%} | "
                f"{low:.0%}–{high:.0%} | {draws} | {score / max(1, len(rows)):.0%} | {score_low:.0%}–{score_high:.0%} "
                f"| {sum(r['shared'] for r in rows)} |"
            )
    if "talmut" in games:
        print("\n" + "\n".join(talmut_table(results, pairings_of("talmut"))))
    if "tadmur" in games:
        print("\n" + "\n".join(guess_table(results, pairings_of("tadmur"))))
    if args.ladder:
        print("\n| game | level | rating | 95% CI |")
        print("|---|---|---:|---|")
        for game_id in games:
            played = {level for r in results if r["game"] == game_id for level in r["levels"]}
            # only the players with games: a player without any would sit at the anchor on virtual draws alone
            levels = tuple(level for level in dict.fromkeys(ladder_levels(game_id) + tuple(sorted(played)))
                           if level in played)
            if ANCHOR[0] not in levels:
                print(f"| {game_id} | (no games of {ANCHOR[0]}: no ladder) | | |")
                continue
            fitted = ladder([r for r in results if r["game"] == game_id and not r["unfinished"]], levels)
            for level in levels:
                value, low, high = fitted[level]
                print(f"| {game_id} | {level} | {value:.0f} | {low:.0f}–{high:.0f} |")
    print("\n| game | level | decisions | p50 ms | p95 ms | max ms | CPU p50 ms | CPU p95 ms |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for game_id in games:
        by_level: dict[str, list[float]] = defaultdict(list)
        cpu_by_level: dict[str, list[float]] = defaultdict(list)
        for r in results:
            if r["game"] == game_id:
                for level, values in r["times"].items():
                    by_level[level].extend(values)
                for level, values in r["cpu"].items():
                    cpu_by_level[level].extend(values)
        for level in ("first", "lowest", "random", "easy", "medium", "hard", *sorted(
                (level for level in by_level if level.startswith(YARDSTICK)), key=lambda y: int(y.split(":")[1]))):
            values, cpu = by_level.get(level, []), cpu_by_level.get(level, [])
            if values:
                print(
                    f"| {game_id} | {level} | {len(values)} | {percentile(values, 0.5) * 1000:.1f} | "
                    f"{percentile(values, 0.95) * 1000:.1f} | {max(values) * 1000:.1f} | "
                    f"{percentile(cpu, 0.5) * 1000:.1f} | {percentile(cpu, 0.95) * 1000:.1f} |"
                )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
