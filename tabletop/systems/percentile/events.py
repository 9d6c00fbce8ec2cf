"""The events of plot points and tracked maneuvers."""

from tabletop.systems.api import EventKind

_SHEETS = frozenset({"party", "dashboard"})  # plot points, and the GM's list of spends
_T = "systems/percentile/events"

EVENT_KINDS = (
    EventKind("plot_spend", f"{_T}/plot_spend.html", _SHEETS),
    EventKind("plot_decision", f"{_T}/plot_decision.html", _SHEETS),
    EventKind("plot_cancel", f"{_T}/plot_cancel.html", _SHEETS),
    EventKind("plot_applied", f"{_T}/plot_applied.html", _SHEETS),
    EventKind("maneuver_tracking", f"{_T}/maneuver_tracking.html", frozenset({"maneuvers"})),
)
