"""How often can any Tadmur player that cannot see the opponent's target beat a uniform `random` seat? An upper bound.

`random` names a rank in most of its turns (tadmur.md §4.2 lists 13 guesses beside a few placements) and each
guess is right with chance 1/g (g: the ranks it has not yet guessed wrong). Nothing the other seat does stops that
before its own row is one space from complete (the lock, §3.8) or it wins first (a completed chain, §3.5, or a
correct guess of its own, §3.6). This script measures `random`'s placements per turn on real deals, then solves
exactly, per sampled deal, the best guess-or-place policy of a player in a model that favours the player:

- it can always place, and its target is always reachable: it completes after 7 placements plus one per wrong
  guess, with no hand or parity limit (§3.12 ignored);
- it sees `--seen` cards from the start (27: its hand, its target, both starters; more stands for the opponent's
  chain cards it will see) and guesses ranks in the best order, with exact odds for that deal;
- `random` guesses with chance g / (g + k) per turn (k: its mean placements listed, measured) and never completes.

The printed win rate is the best such a player can do, so no AI that plays by the view can beat it by much.

    python bench/tadmur_ceiling.py --deals 2000 --seen 27,31,35
    python bench/tadmur_ceiling.py --placements 8 --seen 35   # a far less eager guesser than `random`

The model simplifies `random`'s side too (a mean number of placements; no lock by its own row, no stuck turns),
so its figure is an estimate of the ceiling, not a proof; the second command shows how far it is from 95%.
"""

from __future__ import annotations

import argparse
import functools
import random
from collections import Counter

from engine.games import tadmur

RANKS = 13
SPACES = 7


def random_placements(games: int) -> float:
    """The mean number of placements listed to a `random` seat (seat 0) in its turns where it may guess."""
    options = tadmur.parse_options({})
    listed = []
    for index in range(games):
        state = tadmur.new_game(2, options, seed=index)
        rng = random.Random(index)
        while tadmur.result(state) is None:
            seat = state.turn
            legal = [action for action in tadmur.legal_actions(state, seat) if action["type"] != "resign"]
            if seat == 0 and any(action["type"] == "guess" for action in legal):
                listed.append(sum(action["type"] == "place" for action in legal))
            state, _ = tadmur.apply(state, seat, rng.choice(legal))
    return sum(listed) / len(listed)


def guess_odds(seen: int, rng: random.Random) -> tuple[float, ...]:
    """For one deal, the chance that the player's 1st, 2nd, … guess is right, given the earlier ones were wrong.

    The opponent's target is uniform over the cards the player has not seen; ranks are guessed most-unseen first.
    """
    deck = [rank for rank in range(RANKS) for _ in range(4)]
    rng.shuffle(deck)
    visible = Counter(deck[:seen])
    unseen = sorted((4 - visible[rank] for rank in range(RANKS)), reverse=True)
    left = sum(unseen)
    odds = []
    for count in unseen:
        odds.append(count / left if left else 0.0)
        left -= count
    return tuple(odds)


def best_win_rate(odds: tuple[float, ...], placements: float, player_first: bool) -> float:
    """The player's winning chance under its best policy, in the model of the module docstring."""

    @functools.cache
    def player(needed: int, wrong: int, theirs: int) -> float:
        place = after_player(needed - 1, wrong, theirs)
        if needed == 1 or wrong == len(odds):  # one space left: the lock (§3.8)
            return place
        guess = odds[wrong] + (1 - odds[wrong]) * after_player(needed, wrong + 1, theirs)
        return max(place, guess)

    def after_player(needed: int, wrong: int, theirs: int) -> float:
        return 1.0 if needed == 0 else opponent(needed, wrong, theirs)

    @functools.cache
    def opponent(needed: int, wrong: int, theirs: int) -> float:
        ranks = RANKS - theirs
        if needed == 1 or ranks <= 1:
            return player(needed, wrong, theirs)
        guesses = ranks / (ranks + placements)
        return (1 - guesses) * player(needed, wrong, theirs) + guesses * (1 - 1 / ranks) * player(
            needed, wrong, theirs + 1
        )

    return player(SPACES, 0, 0) if player_first else opponent(SPACES, 0, 0)


def main() -> None:
    """Print the measured placements per `random` turn and the bound for each `--seen`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=2000, help="sampled deals per bound (half as first player)")
    parser.add_argument("--games", type=int, default=400, help="random-vs-random games to measure placements")
    parser.add_argument("--seen", default="27,31,35", help="cards the player sees, comma-separated")
    parser.add_argument("--placements", type=float, default=0, help="assume this many instead of measuring")
    args = parser.parse_args()
    placements = args.placements or random_placements(args.games)
    print(f"random: {placements:.2f} placements listed per turn where it may guess "
          f"(it guesses in {RANKS / (RANKS + placements):.0%} of its first turns)")
    for seen in (int(value) for value in args.seen.split(",")):
        rng = random.Random(seen)
        rates = [best_win_rate(guess_odds(seen, rng), placements, deal % 2 == 0) for deal in range(args.deals)]
        print(f"seen {seen}: best win rate against random {sum(rates) / len(rates):.1%}")


if __name__ == "__main__":
    main()
