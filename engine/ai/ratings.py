"""How strong each AI level measured: Bradley-Terry ratings on the Elo scale, `random` fixed at 1000.

400 points more means 10:1 odds of winning a game. Measured by `python bench/ai_strength.py --ladder` (a round
robin of `lowest`, `random`, `easy`, `medium` and `hard`; docs/benchmarks.md has the run, its command and the
games behind each figure), with 95% bootstrap intervals. Talmut has no rating: its tables seat three or more, so
its games are not the two-player comparisons the ladder fits.
"""

from __future__ import annotations

from collections.abc import Mapping

RATINGS: Mapping[str, Mapping[str, tuple[int, int, int]]] = {
    # 2026-12-02: Durak 100 games (10 per pairing) at hard's 48,000 moves; Tadmur 261 games with the others (12
    # per pairing); 2026-12-03: Svoi Koziri 100 games (10 per pairing) with the opponent model in its playouts:
    # wide intervals, see docs/benchmarks.md
    "durak": {"random": (1000, 1000, 1000), "easy": (1657, 1568, 1781), "medium": (1494, 1433, 1571),
              "hard": (1557, 1474, 1647)},
    "svoi_koziri": {"random": (1000, 1000, 1000), "easy": (1120, 963, 1245), "medium": (1441, 1341, 1566),
                    "hard": (1523, 1402, 1691)},
    "tadmur": {"random": (1000, 1000, 1000), "easy": (943, 816, 1050), "medium": (1156, 1033, 1265),
               "hard": (1329, 1178, 1499)},
}
"""Per game and offered level: (rating, low, high), the rating and its 95% interval, relative to `random` (whose
own interval is therefore a single point)."""
