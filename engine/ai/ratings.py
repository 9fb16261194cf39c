"""How strong each AI level measured: Bradley-Terry ratings on the Elo scale, `random` fixed at 1000.

400 points more means 10:1 odds of winning a game. Measured by `python bench/ai_strength.py --ladder` (a round
robin of `lowest`, `random`, `easy`, `medium` and `hard`; docs/benchmarks.md has the run, its command and the
games behind each figure), with 95% bootstrap intervals. Talmut has no rating: its tables seat three or more, so
its games are not the two-player comparisons the ladder fits.
"""

from __future__ import annotations

from collections.abc import Mapping

RATINGS: Mapping[str, Mapping[str, tuple[int, int, int]]] = {
    # Tadmur 2026-12-02, 261 games with the others (12 per pairing); Durak and Svoi Koziri 2026-12-03, 100 games
    # each (10 per pairing), Durak with its mixed playout, Svoi Koziri with the opponent its tree trusts: wide
    # intervals, see docs/benchmarks.md
    "durak": {"random": (1000, 1000, 1000), "easy": (1489, 1419, 1585), "medium": (1594, 1509, 1683),
              "hard": (1794, 1700, 1944)},
    "svoi_koziri": {"random": (1000, 1000, 1000), "easy": (1115, 954, 1251), "medium": (1503, 1388, 1643),
                    "hard": (1609, 1492, 1767)},
    "tadmur": {"random": (1000, 1000, 1000), "easy": (943, 816, 1050), "medium": (1156, 1033, 1265),
               "hard": (1329, 1178, 1499)},
}
"""Per game and offered level: (rating, low, high), the rating and its 95% interval, relative to `random` (whose
own interval is therefore a single point)."""
