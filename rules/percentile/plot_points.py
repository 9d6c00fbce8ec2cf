"""Percentile (seed 004): plot points: spending, cancelling, buying, and changing a roll.

Seed: "Plot points, once spent, are lost"; "for one plot point, change a roll just made ... to
any value from 6 to 95; for two plot points ... to any value from 1 to 100".
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from typing import Any

from rules.core import IllegalMoveError, Result, Rng, RulesError, check_int, lookup, resolve_rng
from rules.percentile.bands import MAX_BONUS
from rules.percentile.maneuvers import ManeuverResult, _build_result
from rules.percentile.open_ended import _chain, _continue_chain
from rules.percentile.ruleset import _field_bool, _rules, _text


def plot_point_uses(ruleset: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The things a plot point can buy (seed list; the campaign may edit or add uses)."""
    return copy.deepcopy(_rules(ruleset)["plot_point_uses"])


@dataclasses.dataclass(frozen=True)
class PlotPoints(Result):
    """A character's plot points: ``available`` to spend, ``total`` ever had (spending "reduces
    the number available but not the total"), and unspent ``development_points``."""

    available: int
    total: int
    development_points: int = 0

    def __post_init__(self) -> None:
        check_int(self.total, "Total plot points", low=0, high=100 * MAX_BONUS)
        check_int(self.available, "Available plot points", low=0, high=self.total)
        check_int(self.development_points, "Development points", low=0, high=100 * MAX_BONUS)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlotPoints:
        try:
            return cls(data["available"], data["total"], data.get("development_points", 0))
        except (KeyError, TypeError) as exc:
            raise RulesError("Stored plot points need 'available' and 'total'.") from exc


@dataclasses.dataclass(frozen=True)
class PlotPointSpend(Result):
    """One spend of plot points: the use, how many, and what it cancels (for a cancel)."""

    use: str
    points: int
    gm_approved: bool = False
    note: str = ""
    cancels: str | None = None

    def __post_init__(self) -> None:
        _text(self.use, "The use")
        check_int(self.points, "Plot points spent", low=1, high=MAX_BONUS)
        _field_bool(self.gm_approved, "gm_approved")
        _text(self.note, "The note")
        if self.cancels is not None:
            _text(self.cancels, "The cancelled use")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlotPointSpend:
        try:
            return cls(
                use=data["use"],
                points=data["points"],
                gm_approved=data.get("gm_approved", False),
                note=data.get("note", ""),
                cancels=data.get("cancels"),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise RulesError("A stored plot point spend needs its use and points.") from exc


def _pay(points: PlotPoints, cost: int) -> PlotPoints:
    if not isinstance(points, PlotPoints):
        raise RulesError("Plot points must be a PlotPoints value.")
    if points.available < cost:
        raise IllegalMoveError(
            f"Not enough plot points: you have {points.available} and this costs {cost}."
        )
    return dataclasses.replace(points, available=points.available - cost)


def spend_plot_points(
    points: PlotPoints,
    *,
    use: str,
    cost: int | None = None,
    gm_approved: bool = False,
    note: str = "",
    ruleset: Mapping[str, Any] | None = None,
) -> tuple[PlotPoints, PlotPointSpend]:
    """Spend plot points on one of the seed's uses ("Plot points, once spent, are lost").

    Uses the GM must agree to need ``gm_approved=True``; uses whose cost the GM sets (a clue:
    "one or more plot points", a coincidence) take ``cost`` (default their listed cost).
    Raises ``IllegalMoveError`` when the points are not there.
    """
    uses = _rules(ruleset)["plot_point_uses"]
    name = lookup(use, uses, "plot point use")
    spec = uses[name]
    approved = _field_bool(gm_approved, "gm_approved")
    if spec["gm_approval"] and not approved:
        raise IllegalMoveError(f"The GM must agree before you spend plot points on {name}.")
    if cost is None:
        price = spec["cost"]
    elif spec["gm_sets_cost"]:
        price = check_int(cost, f"The cost of {name}", low=spec["cost"], high=MAX_BONUS)
    elif cost != spec["cost"]:
        raise RulesError(f"{name} costs {spec['cost']} plot point(s), not {cost}.")
    else:
        price = spec["cost"]
    new = _pay(points, price)
    return new, PlotPointSpend(
        use=name, points=price, gm_approved=approved, note=_text(note, "The note")
    )


def cancel_plot_point_spend(
    points: PlotPoints, *, spend: PlotPointSpend | Mapping[str, Any]
) -> tuple[PlotPoints, PlotPointSpend]:
    """Seed: "cancel out someone else spending plot points by spending the same amount yourself".

    The canceller pays ``spend.points``; the cancelled points are not returned (spent points are
    "lost and never return").
    """
    if not isinstance(spend, PlotPointSpend):
        spend = PlotPointSpend.from_dict(spend)
    new = _pay(points, spend.points)
    return new, PlotPointSpend(use="cancel", points=spend.points, cancels=spend.use)


def buy_plot_points(
    points: PlotPoints, *, count: int = 1, ruleset: Mapping[str, Any] | None = None
) -> PlotPoints:
    """Development: "you can get more during development by trading in six development points
    for one" (available and total both rise)."""
    check_int(count, "The number of plot points to buy", low=1, high=MAX_BONUS)
    price = _rules(ruleset)["development_points_per_plot_point"] * count
    if points.development_points < price:
        raise IllegalMoveError(
            f"Not enough development points: you have {points.development_points} and "
            f"{count} plot point(s) cost {price}."
        )
    return PlotPoints(
        available=points.available + count,
        total=points.total + count,
        development_points=points.development_points - price,
    )


def award_plot_points(points: PlotPoints, *, count: int = 1) -> PlotPoints:
    """The GM gives plot points (available and total both rise)."""
    check_int(count, "The number of plot points", low=1, high=MAX_BONUS)
    return PlotPoints(points.available + count, points.total + count, points.development_points)


def gain_development_points(points: PlotPoints, *, count: int) -> PlotPoints:
    """Record development points earned (to trade for plot points)."""
    check_int(count, "The number of development points", low=1, high=MAX_BONUS)
    return dataclasses.replace(points, development_points=points.development_points + count)


def change_roll(
    result: ManeuverResult,
    *,
    new_value: int,
    points: int,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """Change a roll just made with plot points; the total and chart row are recomputed.

    Seed: "for one plot point, change a roll just made ... to any value from 6 to 95; for two
    plot points ... to any value from 1 to 100, possibly causing the roll to go open-ended".
    With two points a chosen 96-100 rolls on and adds, a chosen 01-05 rolls on and subtracts
    (``rng`` rolls the continuation). Paying is ``spend_plot_points``'s job.
    """
    if not isinstance(result, ManeuverResult):
        raise RulesError("Only a maneuver just made can be changed with plot points.")
    uses = _rules(ruleset)["plot_point_uses"]
    check_int(points, "The plot points spent")
    spec = next(
        (uses[u] for u in ("change_roll", "change_roll_open_ended") if uses[u]["cost"] == points),
        None,
    )
    if spec is None:
        one, two = uses["change_roll"], uses["change_roll_open_ended"]
        raise RulesError(
            f"Changing a roll costs {one['cost']} plot point(s) (a value from "
            f"{one['values'][0]} to {one['values'][1]}) or {two['cost']} (from "
            f"{two['values'][0]} to {two['values'][1]}), not {points}."
        )
    low, high = spec["values"]
    value = check_int(new_value, f"For {points} plot point(s) the new roll", low=low, high=high)
    if spec["open_ended"]:
        dice = _continue_chain(value, resolve_rng(rng), chosen=True)
    else:
        dice = _chain([value], chosen_first=True)
    return _build_result(
        kind=result.kind,
        dice=dice,
        skill_value=result.skill_value,
        modifiers=result.modifiers,
        retry_failures=result.retry_failures,
        retry_penalty=result.retry_penalty,
        condition=result.condition,
        condition_modifier=result.condition_modifier,
        secret=result.secret,
        plot_points_spent=result.plot_points_spent + points,
        original_roll=result.original_roll or result.roll,
    )
