"""Percentile (seed 004): Chart 14.1, its bands and how a total is read on it.

"He will then consult the appropriate column of Chart 14.1 to read a result": the band names
(DESIGN.md), the seed's words for each, the rows with their Moving Maneuver percent, and
``chart(total)``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rules.core import Result, check_int

# --- Chart 14.1 -------------------------------------------------------------------------------

EXTRAORDINARY_FAILURE = "extraordinary_failure"
FUMBLE = "fumble"
FAILURE = "failure"
PARTIAL_SUCCESS = "partial_success"
NEAR_SUCCESS = "near_success"
UNRELATED_SUCCESS = "unrelated_success"
SUCCESS = "success"
CRITICAL_SUCCESS = "critical_success"
EXTRAORDINARY_SUCCESS = "extraordinary_success"

#: Bands from worst to best (DESIGN.md names).
BANDS: tuple[str, ...] = (
    EXTRAORDINARY_FAILURE,
    FUMBLE,
    FAILURE,
    PARTIAL_SUCCESS,
    NEAR_SUCCESS,
    UNRELATED_SUCCESS,
    SUCCESS,
    CRITICAL_SUCCESS,
    EXTRAORDINARY_SUCCESS,
)

#: "Success" in the odds sense: the maneuver achieved what was intended. Unrelated Success is not
#: one ("You fail at the intended effect, but accomplish something else").
SUCCESS_OR_BETTER: frozenset[str] = frozenset({SUCCESS, CRITICAL_SUCCESS, EXTRAORDINARY_SUCCESS})

#: The seed's words for each band (the SM column, or the row spanning both columns).
BAND_LABELS: dict[str, str] = {
    EXTRAORDINARY_FAILURE: "Extraordinary Failure",
    FUMBLE: "Fumble",
    FAILURE: "Failure",
    PARTIAL_SUCCESS: "Partial Success",
    NEAR_SUCCESS: "Near Success",
    UNRELATED_SUCCESS: "Unrelated Success",
    SUCCESS: "Success",
    CRITICAL_SUCCESS: "Critical Success",
    EXTRAORDINARY_SUCCESS: "Extraordinary Success",
}

BAND_TEXT: dict[str, str] = {
    EXTRAORDINARY_FAILURE: (
        "You fail miserably. If possible, you achieve the opposite of the intended results. "
        'You\'re "in a slump" (at -50) at this and similar actions until you get a full success.'
    ),
    FUMBLE: "You fail thoroughly, causing some negative side effect.",
    FAILURE: "You do not know or you cannot do what you have attempted.",
    PARTIAL_SUCCESS: "You accomplish about half of your action.",
    NEAR_SUCCESS: "You can do most of your action, or suffer a side effect.",
    UNRELATED_SUCCESS: (
        "You fail at the intended effect, but accomplish something else beneficial you "
        "weren't even trying to do."
    ),
    SUCCESS: "You achieve your maneuver successfully.",
    CRITICAL_SUCCESS: (
        "Your move succeeds dramatically. If your success cannot be improved, it took half "
        "the expected time."
    ),
    EXTRAORDINARY_SUCCESS: (
        'You succeed as well as possible! You\'re "in the zone" (at +50) at this and similar '
        "actions until your next failure."
    ),
}

# Chart 14.1 rows: (low, high, band, MM percent). None = open end / no MM percent (the row
# spans both columns). Edges per RULES-NOTES: <= -26 Extraordinary Failure, -25..05 Fumble.
_CHART_ROWS: tuple[tuple[int | None, int | None, str, int | None], ...] = (
    (None, -26, EXTRAORDINARY_FAILURE, None),
    (-25, 5, FUMBLE, None),
    (6, 15, FAILURE, 0),
    (16, 25, FAILURE, 10),
    (26, 40, FAILURE, 20),
    (41, 55, FAILURE, 30),
    (56, 65, FAILURE, 40),
    (66, 75, FAILURE, 50),
    (76, 80, FAILURE, 60),
    (81, 85, PARTIAL_SUCCESS, 70),
    (86, 90, PARTIAL_SUCCESS, 80),
    (91, 100, NEAR_SUCCESS, 90),
    (101, 110, UNRELATED_SUCCESS, None),
    (111, 130, SUCCESS, 100),
    (131, 160, SUCCESS, 110),
    (161, 175, SUCCESS, 120),
    (176, 250, CRITICAL_SUCCESS, None),
    (251, None, EXTRAORDINARY_SUCCESS, None),
)


def _band_ranges() -> tuple[tuple[str, int | None, int | None], ...]:
    """Each band's whole range of totals (several MM rows share one SM band)."""
    out: list[tuple[str, int | None, int | None]] = []
    for low, high, band, _mm in _CHART_ROWS:
        if out and out[-1][0] == band:
            out[-1] = (band, out[-1][1], high)
        else:
            out.append((band, low, high))
    return tuple(out)


_BAND_RANGES = _band_ranges()

#: Sanity cap on the total bonus (SV + modifiers) so odds stay fast and nothing can hang.
MAX_BONUS = 1000


@dataclasses.dataclass(frozen=True)
class ChartRow(Result):
    """One row of Chart 14.1 as read for a total.

    ``band`` is the outcome's name; ``sm`` is the Static Maneuver outcome (the same name: the SM
    column's Failure covers 06-80, Partial Success 81-90, Near Success 91-100, Success 111-175,
    and the rows spanning both columns are their own SM outcome); ``mm`` is the Moving Maneuver
    percent, or None in the rows spanning both columns. ``low``/``high`` bound the row
    (None = open-ended).
    """

    band: str
    mm: int | None
    sm: str
    label: str
    low: int | None
    high: int | None


def chart(total: int) -> ChartRow:
    """Read a maneuver total on Chart 14.1 ("consult the appropriate column of Chart 14.1").

    >>> chart(31).mm, chart(31).sm
    (20, 'failure')
    """
    check_int(total, "The maneuver total")
    for low, high, band, mm in _CHART_ROWS:
        if (low is None or total >= low) and (high is None or total <= high):
            return ChartRow(band=band, mm=mm, sm=band, label=BAND_LABELS[band], low=low, high=high)
    raise AssertionError("Chart 14.1 covers every whole number")  # pragma: no cover


def _check_bonus(value: Any, what: str = "The total bonus") -> int:
    return check_int(value, what, low=-MAX_BONUS, high=MAX_BONUS)
