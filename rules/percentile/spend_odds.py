"""Percentile (seed 004): what a plot point change buys on a roll just made, exactly.

Seed: "for one plot point, change a roll just made (by you or another) to any value from 6 to
95"; "for two plot points, change a roll just made ... to any value from 1 to 100, possibly
causing the roll to go open-ended". The skill value and every modifier stay; only the dice
change. A value that does not go open-ended lands on one known row of Chart 14.1; a value of
96-100 (or 01-05) rolls on, and its bands are exact (``change_roll_distribution``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules.core import Result, RulesError
from rules.percentile.bands import SUCCESS_OR_BETTER, chart
from rules.percentile.maneuvers import ManeuverResult
from rules.percentile.open_ended import _triggers, change_roll_distribution
from rules.percentile.ruleset import _rules

#: The plot point uses that change a roll (the ruleset's names), cheapest first.
CHANGE_USES = ("change_roll", "change_roll_open_ended")


@dataclasses.dataclass(frozen=True)
class BandRange(Result):
    """The new values ``first``..``last`` that all land in ``band`` (no open end)."""

    band: str
    first: int
    last: int


@dataclasses.dataclass(frozen=True)
class PlotPointChange(Result):
    """One way to change a roll just made: its cost, the values it allows, and what they give.

    ``ranges``: the values that land on one known band, grouped by band, worst first.
    ``rolls_on``: for a use that may go open-ended, the best such value (``rolls_on_value``,
    the highest, which rolls on and adds) and the exact chance of each band it then gives;
    empty when the use never rolls on; ``rolls_down`` the same for the lowest value (01-05
    rolls on and subtracts), the worst pick. ``band_before``/``total_before`` are the roll as it is.
    """

    use: str
    points: int
    low: int
    high: int
    bonus: int
    band_before: str
    total_before: int
    ranges: tuple[BandRange, ...]
    rolls_on_value: int | None
    rolls_on: dict[str, Fraction]
    rolls_down_value: int | None = None
    rolls_down: dict[str, Fraction] = dataclasses.field(default_factory=dict)

    @property
    def best_band(self) -> str:
        """The best band a value that does not roll on can reach (the top of ``ranges``)."""
        return self.ranges[-1].band

    @property
    def first_success(self) -> int | None:
        """The lowest value that lands on Success or better for sure (None: none does)."""
        return next((r.first for r in self.ranges if r.band in SUCCESS_OR_BETTER), None)

    @property
    def rolls_on_success(self) -> Fraction:
        """P(Success or better) when ``rolls_on_value`` is chosen (0 without one)."""
        return sum((p for b, p in self.rolls_on.items() if b in SUCCESS_OR_BETTER), Fraction(0))


def _change(use: str, spec: Mapping[str, Any], result: ManeuverResult) -> PlotPointChange:
    low, high = spec["values"]
    open_ended = bool(spec["open_ended"])
    bonus = result.bonus
    ranges: list[BandRange] = []
    for value in range(low, high + 1):
        # A chosen die rolls on only under the open-ended use (a lone 1-point die never does).
        if open_ended and _triggers(value, 0):
            continue
        band = chart(value + bonus).band
        if ranges and ranges[-1].band == band and ranges[-1].last == value - 1:
            ranges[-1] = dataclasses.replace(ranges[-1], last=value)
        else:
            ranges.append(BandRange(band=band, first=value, last=value))
    if not ranges:
        raise RulesError(f"The plot point use {use!r} allows no value that stays put.")
    # The highest value is the best pick that rolls on (every continuation adds to it), the
    # lowest the worst (its continuation is subtracted): a change may go on another's roll.
    rolls_on_value = high if open_ended and high >= 96 else None
    rolls_down_value = low if open_ended and low <= 5 else None
    return PlotPointChange(
        use=use,
        points=spec["cost"],
        low=low,
        high=high,
        bonus=bonus,
        band_before=result.band,
        total_before=result.total,
        ranges=tuple(ranges),
        rolls_on_value=rolls_on_value,
        rolls_on=_bands(rolls_on_value, bonus),
        rolls_down_value=rolls_down_value,
        rolls_down=_bands(rolls_down_value, bonus),
    )


def _bands(value: int | None, bonus: int) -> dict[str, Fraction]:
    if value is None:
        return {}
    bands = change_roll_distribution(new_value=value, modifier=bonus)
    return {band: p for band, p in bands.items() if p}


def plot_point_change_effects(
    result: ManeuverResult, *, ruleset: Mapping[str, Any] | None = None
) -> tuple[PlotPointChange, ...]:
    """What each plot point change would make of a maneuver just rolled, cheapest first.

    Seed: "for one plot point, change a roll just made ... to any value from 6 to 95; for two
    plot points ... to any value from 1 to 100, possibly causing the roll to go open-ended".
    The new total is the new value plus everything already added (``result.bonus``), read on
    Chart 14.1; a value that rolls on (96-100) has the exact band odds of the open-ended
    continuation (RULES-NOTES: 96-100 rolls again and adds, repeating).
    """
    if not isinstance(result, ManeuverResult):
        raise RulesError("Only a maneuver just made can be changed with plot points.")
    uses = _rules(ruleset)["plot_point_uses"]
    changes = [_change(use, uses[use], result) for use in CHANGE_USES if use in uses]
    return tuple(sorted(changes, key=lambda change: change.points))
