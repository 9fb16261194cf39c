"""How strong each AI level measured: ratings on the Elo scale, `random` fixed at 1000.

400 points more means 10:1 odds of ending a game ahead of the other: of winning it in the two-seat games
(Bradley-Terry), of the lower total at the end in Talmut (Luce's choice model of the best seat at a table of
three). Measured by `python bench/ai_strength.py --ladder` (a round robin of `lowest` where it plays, `random`,
`easy`, `medium` and `hard`; docs/benchmarks.md has the run, its command and the games behind each figure), with
95% bootstrap intervals.
"""

from __future__ import annotations

from collections.abc import Mapping

RATINGS: Mapping[str, Mapping[str, tuple[int, int, int]]] = {
    # Tadmur 2026-12-02, 261 games with the others (12 per pairing); Svoi Koziri 2026-12-03, 100 games (10 per
    # pairing) with the opponent its tree trusts; Durak 2026-12-03, 600 games (60 per pairing) with the reading of
    # an opponent that plays `easy`'s way; Talmut 2026-12-05, 61 tables of three (7-14 per pairing): see
    # docs/benchmarks.md
    "durak": {"random": (1000, 1000, 1000), "easy": (1800, 1700, 1906), "medium": (1833, 1733, 1947),
              "hard": (2036, 1922, 2173)},
    "svoi_koziri": {"random": (1000, 1000, 1000), "easy": (1115, 954, 1251), "medium": (1503, 1388, 1643),
                    "hard": (1609, 1492, 1767)},
    "tadmur": {"random": (1000, 1000, 1000), "easy": (943, 816, 1050), "medium": (1156, 1033, 1265),
               "hard": (1329, 1178, 1499)},
    "talmut": {"random": (1000, 1000, 1000), "easy": (1407, 1273, 1595), "medium": (1422, 1292, 1620),
               "hard": (1467, 1312, 1701)},
}
"""Per game and offered level: (rating, low, high), the rating and its 95% interval, relative to `random` (whose
own interval is therefore a single point)."""
