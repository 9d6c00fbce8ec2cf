"""Percentile (seed 004): running, a moving maneuver that gives movement.

Seed: "The GM will add 110 and subtract thirty times your pace"; the result, read on the MM
column, is multiplied "(as a percentage), your MV, and your pace together".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules.core import OutOfRangeError, Result, Rng, check_int
from rules.percentile.bands import MAX_BONUS, ChartRow, _check_bonus, chart
from rules.percentile.maneuvers import ManeuverResult, _maneuver
from rules.percentile.modifiers import Modifier
from rules.percentile.open_ended import band_distribution
from rules.percentile.ruleset import _field_number, _rules
from rules.percentile.table import _check_total_penalty

# --- running -------------------------------------------------------------------------------------

RUNNING_BASE = 110  # seed: "The GM will add 110"
PACE_FACTOR = 30  # seed: "and subtract thirty times your pace"


def _running_parts(
    *, quickness: Any, total_penalty: Any, pace: Any, mv: Any, rules: Mapping[str, Any]
) -> tuple[int, tuple[Modifier, ...], Fraction, Fraction]:
    q = _check_bonus(quickness, "Quickness (or the Running SV)")
    tp = _check_total_penalty(total_penalty)
    pace_f = _field_number(pace, "The pace")
    max_pace = _field_number(rules["max_pace"], "max_pace")
    if not 1 <= pace_f <= max_pace:
        raise OutOfRangeError(
            f"The pace must be between 1 (walking) and {rules['max_pace']} (about the fastest "
            f"you can attempt), not {pace}."
        )
    mv_f = _field_number(mv, "The MV")
    if mv_f < 0 or mv_f > 100 * MAX_BONUS:
        raise OutOfRangeError(f"The MV must be between 0 and {100 * MAX_BONUS}.")
    # A fractional pace (e.g. 1.25) gives a fractional penalty; the chart reads whole numbers,
    # so round it down (the larger penalty).
    pace_penalty = math.floor(-PACE_FACTOR * pace_f)
    pace_label = str(pace_f.numerator) if pace_f.denominator == 1 else str(float(pace_f))
    mods = (
        Modifier("Total Penalty", tp),
        Modifier("Running", RUNNING_BASE),
        Modifier(f"Pace {pace_label} x {PACE_FACTOR}", pace_penalty),
    )
    return q, mods, pace_f, mv_f


def _movement(row: ChartRow, pace: Fraction, mv: Fraction, rules: Mapping[str, Any]) -> tuple:
    percent = row.mm if row.mm is not None else rules["running_percent"][row.band]
    return percent, Fraction(percent, 100) * mv * pace


def running_movement(
    *,
    roll: int,
    quickness: int,
    total_penalty: int,
    pace: int | float,
    mv: int | float,
    ruleset: Mapping[str, Any] | None = None,
) -> float:
    """Movement available this action when running (seed: "multiply it (as a percentage), your
    MV, and your pace together").

    The total is ``roll`` + Quickness (or Running SV) + Total Penalty + 110 - 30 x pace, read on
    the MM column. Outside the MM column (fumble, extraordinary failure, unrelated, critical and
    extraordinary success) the ruleset's ``running_percent`` applies: 0% for a fumble ("failed
    to get anywhere") and an extraordinary failure, 120% for critical and extraordinary success
    ("already where he wants to be"), 90% for unrelated success. Computed exactly, returned as
    the nearest float: roll 55, Quickness -9, penalty -65, pace 2, MV 26 gives 10.4.
    """
    rules = _rules(ruleset)
    dice = check_int(roll, "The roll")
    q, mods, pace_f, mv_f = _running_parts(
        quickness=quickness, total_penalty=total_penalty, pace=pace, mv=mv, rules=rules
    )
    row = chart(dice + q + sum(m.value for m in mods))
    return float(_movement(row, pace_f, mv_f, rules)[1])


@dataclasses.dataclass(frozen=True)
class RunningResult(Result):
    """A running maneuver and the movement it allows (``percent`` of MV x pace)."""

    maneuver: ManeuverResult
    pace: float
    mv: float
    percent: int
    movement: float


def roll_running(
    *,
    quickness: int,
    total_penalty: int,
    pace: int | float,
    mv: int | float,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> RunningResult:
    """Run faster than the basic Encumbered MV: "Make a moving maneuver using only your Quickness
    stat (or Running skill if you have it) and your Total Penalty as bonuses." See
    ``running_movement`` for how the result becomes movement."""
    rules = _rules(ruleset)
    q, mods, pace_f, mv_f = _running_parts(
        quickness=quickness, total_penalty=total_penalty, pace=pace, mv=mv, rules=rules
    )
    result = _maneuver(
        kind="running",
        skill_value=q,
        modifiers=mods,
        retry_failures=0,
        condition=None,
        rng=rng,
        rules=rules,
        skill_what="Quickness (or the Running SV)",
    )
    percent, movement = _movement(result.row, pace_f, mv_f, rules)
    return RunningResult(
        maneuver=result,
        pace=float(pace_f),
        mv=float(mv_f),
        percent=percent,
        movement=float(movement),
    )


def running_odds(
    *,
    quickness: int,
    total_penalty: int,
    pace: int | float,
    ruleset: Mapping[str, Any] | None = None,
) -> dict[str, Fraction]:
    """Band chances of a running maneuver (the bonus is Quickness + penalty + 110 - 30 x pace)."""
    rules = _rules(ruleset)
    q, mods, _pace, _mv = _running_parts(
        quickness=quickness, total_penalty=total_penalty, pace=pace, mv=0, rules=rules
    )
    return band_distribution(modifier=q + sum(m.value for m in mods))
