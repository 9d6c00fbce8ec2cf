"""Percentile (seed 004) odds the UI asks, timed uncached, with icepool where it can say the same.

- band_distribution: every Chart 14.1 band of open-ended d100 + bonus, for bonuses from a hopeless
  -250 to a certain +400 and the extremes of the accepted range (+-1000).
- success_or_better: the "chance of success" figure on the roll button.
- maneuver_odds: SV + table modifiers + retry penalty + slump/zone, as the roll screen builds it.
- change_roll_distribution: what a two-plot-point change to 01-05 / 96-100 would give.
- running_odds: the running maneuver's bands (Quickness + Total Penalty + 110 - 30 x pace).

icepool expresses the open-ended d100 as ``d100.explode(96..100)`` for the upward chain and
``d100.map(r + up / r - up)`` for the first die. Its explosion depth is finite, but the truncated
chains keep their mass at a total already past the open bands (>= 251 or <= -26), so the band
distribution it gives is exact and must equal ours.
"""

from __future__ import annotations

from fractions import Fraction

import icepool

from bench.rules import Case
from rules import percentile

BONUSES = (-250, -100, -30, 0, 25, 60, 100, 150, 250, 400)


def _uncached(fn):
    def run():
        percentile.clear_caches()
        return fn()

    return run


def _icepool_bands(bonus: int, first: int | None = None) -> dict[str, Fraction]:
    depth = 4 + abs(bonus) // 96  # deep enough that truncated chains sit in the open bands
    up = icepool.d100.explode(range(96, 101), depth=depth)
    start = icepool.d100 if first is None else icepool.Die([first])
    die = start.map(lambda r: r + up if r >= 96 else (r - up if r <= 5 else r))
    bands = (die + bonus).map(lambda total: percentile.chart(total).band)
    return {band: Fraction(bands.probability(band)) for band in percentile.BANDS}


def _icepool_success(bonus: int) -> Fraction:
    bands = _icepool_bands(bonus)
    return sum((bands[b] for b in percentile.SUCCESS_OR_BETTER), Fraction(0))


def _same(a, b) -> bool:
    return a == b


def _same_bands(a, b) -> bool:
    return all(a.get(band, 0) == b.get(band, 0) for band in percentile.BANDS)


def _same_odds(a, b) -> bool:
    return _same_bands(a.bands, b)


def cases() -> list[Case]:
    out: list[Case] = []
    for bonus in BONUSES:
        out.append(
            Case(
                label=f"band_distribution d100 open-ended {bonus:+d}",
                ours=_uncached(lambda bonus=bonus: percentile.band_distribution(modifier=bonus)),
                icepool=lambda bonus=bonus: _icepool_bands(bonus),
                same_answer=_same_bands,
            )
        )
    for bonus in (-percentile.MAX_BONUS, percentile.MAX_BONUS):
        out.append(
            Case(
                label=f"band_distribution at the cap {bonus:+d}",
                ours=_uncached(lambda bonus=bonus: percentile.band_distribution(modifier=bonus)),
            )
        )
    for bonus in (0, 50, 110):
        out.append(
            Case(
                label=f"success_or_better {bonus:+d}",
                ours=_uncached(lambda bonus=bonus: percentile.success_or_better(modifier=bonus)),
                icepool=lambda bonus=bonus: _icepool_success(bonus),
                same_answer=_same,
            )
        )
    # SV 75, Hard (Movement), bleeding 2 hits, encumbered, second retry, in a slump: 75 - 10 - 20
    # - 30 - 25 - 50 = -60.
    out.append(
        Case(
            label="maneuver_odds SV 75 with table modifiers, retry and slump",
            ours=_uncached(
                lambda: percentile.maneuver_odds(
                    skill_value=75,
                    modifiers=percentile.table_modifiers(
                        ["Hard", ("Bleeding", 2), "Encumbrance"],
                        column="Movement",
                        total_penalty=-30,
                    ),
                    retry_failures=1,
                    condition="slump",
                )
            ),
            icepool=lambda: _icepool_bands(-60),
            same_answer=_same_odds,
        )
    )
    for value in (1, 5, 96, 100):
        out.append(
            Case(
                label=f"change_roll_distribution to {value:02d} with +60",
                ours=_uncached(
                    lambda value=value: percentile.change_roll_distribution(
                        new_value=value, modifier=60
                    )
                ),
                icepool=lambda value=value: _icepool_bands(60, first=value),
                same_answer=_same_bands,
            )
        )
    for pace in (1.5, 2, 3, 5):
        bonus = 10 - 20 + 110 - int(30 * pace)
        out.append(
            Case(
                label=f"running_odds Quickness 10, penalty -20, pace {pace}",
                ours=_uncached(
                    lambda pace=pace: percentile.running_odds(
                        quickness=10, total_penalty=-20, pace=pace
                    )
                ),
                icepool=lambda bonus=bonus: _icepool_bands(bonus),
                same_answer=_same_bands,
            )
        )
    return out
