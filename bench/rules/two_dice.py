"""two_dice (seed 003) odds the UI asks, timed uncached, each checked against icepool.

The seed's dice never exceed three; the 20-die cases use a campaign difficulty ("roll 20, keep
the higher two") to show the keep-two DP scales to the pool sizes other systems use.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import icepool

from bench.rules import Case
from rules import two_dice

BANDS = two_dice.BANDS

_ICEPOOL_DICE = {
    "easy": lambda: icepool.d6.pool(3).highest(2).sum(),
    "normal": lambda: icepool.d6 + icepool.d6,
    "hard": lambda: icepool.d6.pool(3).lowest(2).sum(),
    "trivial": lambda: icepool.Die([12]),
    "impossible": lambda: icepool.Die([2]),
}

_BIG = {
    "difficulties": {
        "Heroic": {"cost": 1, "dice": "keep_highest", "rolled": 20},
        "Doomed": {"cost": 3, "dice": "keep_lowest", "rolled": 20},
    }
}


def _clear() -> None:
    two_dice._kept_sum_counts.cache_clear()


def _band(total: int, difficulty: str) -> str:
    band = two_dice.band_of(total)
    if difficulty == "trivial" and band in ("critical_failure", "failure"):
        return "success"
    if difficulty == "impossible" and band in ("success", "critical_success"):
        return "failure"
    return band


def _ours_bands(difficulty: str, attribute: int, penalty: int) -> Any:
    def run() -> dict[str, Fraction]:
        _clear()
        return two_dice.check_distribution(
            attribute=attribute, difficulty=difficulty, penalty=penalty
        )

    return run


def _icepool_bands(difficulty: str, attribute: int, penalty: int) -> Any:
    def run() -> dict[str, Fraction]:
        die = (_ICEPOOL_DICE[difficulty]() + (attribute - penalty)).map(
            lambda t: _band(t, difficulty)
        )
        return {band: Fraction(die.probability(band)) for band in BANDS}

    return run


def _ours_dice(difficulty: str, ruleset: Any = None) -> Any:
    def run() -> dict[int, Fraction]:
        _clear()
        return two_dice.dice_distribution(difficulty=difficulty, ruleset=ruleset)

    return run


def _icepool_kept(rolled: int, highest: bool) -> Any:
    def run() -> dict[int, Fraction]:
        pool = icepool.d6.pool(rolled)
        die = (pool.highest(2) if highest else pool.lowest(2)).sum()
        return {t: Fraction(die.probability(t)) for t in die.outcomes()}

    return run


def _same(ours: Any, theirs: Any) -> bool:
    return {k: v for k, v in ours.items() if v} == {k: v for k, v in theirs.items() if v}


def cases() -> list[Case]:
    out = [
        Case(
            label=f"two_dice check_distribution {difficulty} attr {attribute} penalty {penalty}",
            ours=_ours_bands(difficulty, attribute, penalty),
            icepool=_icepool_bands(difficulty, attribute, penalty),
            same_answer=_same,
        )
        for difficulty in ("trivial", "easy", "normal", "hard", "impossible")
        for attribute, penalty in ((8, 0), (12, 5))
    ]
    out += [
        Case(
            label=f"two_dice dice_distribution {name} (3 dice)",
            ours=_ours_dice(name),
            icepool=_icepool_kept(3, highest=name == "easy"),
            same_answer=_same,
        )
        for name in ("easy", "hard")
    ]
    out += [
        Case(
            label=f"two_dice dice_distribution {name} (campaign difficulty, 20 dice keep 2)",
            ours=_ours_dice(name, _BIG),
            icepool=_icepool_kept(20, highest=name == "Heroic"),
            same_answer=_same,
        )
        for name in ("Heroic", "Doomed")
    ]
    return out
