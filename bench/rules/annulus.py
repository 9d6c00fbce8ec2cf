"""Annulus (seed 000) odds the UI asks, timed uncached, with icepool where it can say the same.

- check_probability: P(at least ``needed`` successes) for pools of 1..20 d6 at 4+ (and a d10 at
  7+ ruleset), every difficulty's success count.
- op_check_probability / toolkit_check_probability: the adjustment's four-die op check and a
  toolkit ability's three-die check plus 0..16 training-perk dice, per difficulty.
- successes_distribution: the whole distribution a check's roll form shows.
- hidden_count_distribution: how many dice start hidden (the challenge view's GM setup).
- min_adjustments: the GM's "fewest adjustments" on a full 12-die chain (no icepool analogue).
"""

from __future__ import annotations

from fractions import Fraction

import icepool

from bench.rules import Case
from rules import annulus

DIFFICULTIES = ("easy", "medium", "hard", "impossible")


def _uncached(fn):
    def run():
        annulus._clear_caches()
        return fn()

    return run


def _icepool_at_least(dice: int, needed: int, sides: int = 6, target: int = 4) -> Fraction:
    return (dice @ (icepool.d(sides) >= target)).probability(">=", needed)


def _icepool_successes(dice: int, sides: int = 6, target: int = 4) -> dict[int, Fraction]:
    die = dice @ (icepool.d(sides) >= target)
    return {int(k): die.probability(k) for k in die.outcomes()}


def _same(a, b) -> bool:
    return a == b


def _same_dist(a, b) -> bool:
    keys = set(a) | set(b)
    return all(a.get(k, 0) == b.get(k, 0) for k in keys)


def cases() -> list[Case]:
    out: list[Case] = []
    for dice in (1, 3, 4, 8, 12, 16, 20):
        for needed in (2, 5):
            out.append(
                Case(
                    label=f"check_probability {dice}d6 at 4+, need {needed}",
                    ours=_uncached(
                        lambda dice=dice, needed=needed: annulus.check_probability(
                            dice=dice, needed=needed
                        )
                    ),
                    icepool=lambda dice=dice, needed=needed: _icepool_at_least(dice, needed),
                    same_answer=_same,
                )
            )
    out.append(
        Case(
            label="check_probability 20d10 at 7+, need 6",
            ours=_uncached(
                lambda: annulus.check_probability(dice=20, needed=6, sides=10, target=7)
            ),
            icepool=lambda: _icepool_at_least(20, 6, 10, 7),
            same_answer=_same,
        )
    )
    for perks in (0, 4, 16):
        for difficulty in DIFFICULTIES:
            needed = annulus.difficulty_needed(difficulty)
            out.append(
                Case(
                    label=f"op_check_probability {difficulty}, {perks} perk dice",
                    ours=_uncached(
                        lambda d=difficulty, p=perks: annulus.op_check_probability(
                            difficulty=d, perk_dice=p
                        )
                    ),
                    icepool=lambda p=perks, n=needed: _icepool_at_least(4 + p, n),
                    same_answer=_same,
                )
            )
            out.append(
                Case(
                    label=f"toolkit_check_probability Calibrate {difficulty}, {perks} perk dice",
                    ours=_uncached(
                        lambda d=difficulty, p=perks: annulus.toolkit_check_probability(
                            ability="Calibrate", difficulty=d, perk_dice=p
                        )
                    ),
                    icepool=lambda p=perks, n=needed: _icepool_at_least(3 + p, n),
                    same_answer=_same,
                )
            )
    for dice in (4, 20):
        out.append(
            Case(
                label=f"successes_distribution {dice}d6 at 4+",
                ours=_uncached(lambda dice=dice: annulus.successes_distribution(dice=dice)),
                icepool=lambda dice=dice: _icepool_successes(dice),
                same_answer=_same_dist,
            )
        )
    out.append(
        Case(
            label="hidden_count_distribution 12 dice",
            ours=lambda: annulus.hidden_count_distribution(length=12),
            icepool=lambda: _icepool_successes(12, 6, 6),  # "1 hides" has the same odds as 6+
            same_answer=_same_dist,
        )
    )
    out.append(
        Case(
            label="min_adjustments 12-die chain, 3 jammed",
            ours=lambda: annulus.min_adjustments([7, 9, 7, 3, 11, 5, 2, 12, 1, 6, 8, 4], [1, 5, 9]),
        )
    )
    return out
