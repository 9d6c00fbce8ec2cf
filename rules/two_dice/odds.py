"""two_dice (seed 003): the exact odds of a check.

The two counted dice per difficulty (Easy keeps the higher two of three, Hard the lower two) by
a small dynamic programme, then the band of each total.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules.core import check_int
from rules.two_dice.checks import _band
from rules.two_dice.ruleset import (
    _AUTOMATIC_FACE,
    BANDS,
    COUNTED_DICE,
    DIE_SIDES,
    KEEP_LOWEST,
    MAX_NUMBER,
    _difficulty,
    _ruleset,
)

# --- exact odds ----------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _kept_sum_counts(mode: str, rolled: int) -> tuple[tuple[int, int], ...]:
    """Ways (out of 6**rolled) for each sum of the two counted dice, by a top-two state DP."""
    if mode in _AUTOMATIC_FACE:
        return ((COUNTED_DICE * _AUTOMATIC_FACE[mode], 1),)
    # Keep lowest is keep highest on mirrored faces (7 - x), so one DP serves both.
    mirror = mode == KEEP_LOWEST
    states: dict[tuple[int, int], int] = {(0, 0): 1}  # (best, second best); 0 = none yet
    for _ in range(rolled):
        nxt: dict[tuple[int, int], int] = {}
        for (best, second), ways in states.items():
            for face in range(1, DIE_SIDES + 1):
                if face > best:
                    key = (face, best)
                elif face > second:
                    key = (best, face)
                else:
                    key = (best, second)
                nxt[key] = nxt.get(key, 0) + ways
        states = nxt
    sums: dict[int, int] = {}
    for (best, second), ways in states.items():
        total = best + second
        if mirror:
            total = COUNTED_DICE * (DIE_SIDES + 1) - total
        sums[total] = sums.get(total, 0) + ways
    return tuple(sorted(sums.items()))


def _dice_dist(mode: str, rolled: int) -> dict[int, Fraction]:
    counts = _kept_sum_counts(mode, rolled)
    whole = sum(ways for _, ways in counts)
    return {total: Fraction(ways, whole) for total, ways in counts}


def dice_distribution(
    *, difficulty: str, ruleset: Mapping[str, Any] | None = None
) -> dict[int, Fraction]:
    """Exact odds of the sum of the two dice that count, for a difficulty.

    Seed: Easy "Roll three dice, and use the higher two", Normal two dice, Hard "use the lower
    two"; Trivial is always 12 ("two 6s") and Impossible always 2 ("two 1s").
    """
    _, entry = _difficulty(_ruleset(ruleset), difficulty)
    return _dice_dist(entry["dice"], entry["rolled"])


def _band_distribution(
    mode: str, rolled: int, attribute_value: int, penalty: int
) -> dict[str, Fraction]:
    out = dict.fromkeys(BANDS, Fraction(0))
    for dice_total, p in _dice_dist(mode, rolled).items():
        out[_band(dice_total + attribute_value - penalty, mode)] += p
    return out


def check_distribution(
    *,
    attribute: int,
    difficulty: str,
    penalty: int = 0,
    ruleset: Mapping[str, Any] | None = None,
) -> dict[str, Fraction]:
    """Exact odds of each band for a check: 2d6 (per difficulty) + ``attribute`` - ``penalty``.

    ``attribute`` is the attribute's value; ``penalty`` the sum of all penalties (unpaid cost,
    hinders, resists). Keys: critical_failure, failure, success, critical_success (seed
    "Making Checks"; Trivial/Impossible as in the package docstring).
    """
    _, entry = _difficulty(_ruleset(ruleset), difficulty)
    attribute = check_int(attribute, "The attribute value", low=-MAX_NUMBER, high=MAX_NUMBER)
    penalty = check_int(penalty, "The penalty", low=0, high=MAX_NUMBER)
    return _band_distribution(entry["dice"], entry["rolled"], attribute, penalty)
