"""How strong each AI level measured: Bradley-Terry ratings on the Elo scale, `random` fixed at 1000.

400 points more means 10:1 odds of winning a game. Measured by `python bench/ai_strength.py --ladder` (a round
robin of `lowest`, `random`, `easy`, `medium` and `hard`; docs/benchmarks.md has the run, its command and the
games behind each figure), with 95% bootstrap intervals. Talmut has no rating: its tables seat three or more, so
its games are not the two-player comparisons the ladder fits.
"""

from __future__ import annotations

from collections.abc import Mapping

RATINGS: Mapping[str, Mapping[str, tuple[int, int, int]]] = {
    # Tadmur 2026-12-02, 261 games with the others (12 per pairing); Svoi Koziri 2026-12-03, 100 games (10 per
    # pairing) with the opponent its tree trusts; Durak 2026-12-03, 600 games (60 per pairing) with the reading of
    # an opponent that plays `easy`'s way: see docs/benchmarks.md
    "durak": {"random": (1000, 1000, 1000), "easy": (1800, 1700, 1906), "medium": (1833, 1733, 1947),
              "hard": (2036, 1922, 2173)},
    "svoi_koziri": {"random": (1000, 1000, 1000), "easy": (1115, 954, 1251), "medium": (1503, 1388, 1643),
                    "hard": (1609, 1492, 1767)},
    "tadmur": {"random": (1000, 1000, 1000), "easy": (943, 816, 1050), "medium": (1156, 1033, 1265),
               "hard": (1329, 1178, 1499)},
}
"""Per game and offered level: (rating, low, high), the rating and its 95% interval, relative to `random` (whose
own interval is therefore a single point)."""
