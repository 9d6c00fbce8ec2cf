"""The events of plot points and tracked maneuvers, each with the data its card reads."""

from typing import Any, NotRequired, TypedDict

from tabletop.systems.api import EventKind

_SHEETS = frozenset({"party", "dashboard"})  # plot points, and the GM's list of spends
_T = "systems/percentile/events"


class PlotSpend(TypedDict):
    """A plot point spend: its use, its cost, and (for a change to a roll) the roll and the
    new value; open for its cancel window, then applied, denied or cancelled."""

    who: str
    character: str
    character_id: int
    use: str
    use_text: str
    note: str
    points: int
    cost_set_by_gm: bool
    status: str
    seq: NotRequired[int]
    new_value: NotRequired[int]
    roller: NotRequired[str]
    opens_at: NotRequired[str]
    closes_at: NotRequired[str]
    refresh: NotRequired[list[int]]
    cancelled_by: NotRequired[str]
    reason: NotRequired[str]


class PlotDecision(TypedDict):
    """The GM approves or denies a spend that waited for the GM's cost."""

    who: str
    use_text: str
    points: int
    approved: bool
    spend_seq: int


class PlotCancel(TypedDict):
    """A spend cancelled in its window."""

    who: str
    spender: str
    character: str
    use_text: str
    points: int
    spend_seq: int
    refresh: list[int]


class PlotApplied(TypedDict):
    """A spend's window closed: it takes effect (or is refused, the roll having moved on)."""

    who: str
    use_text: str
    points: int
    spend_seq: int
    summary: NotRequired[str]
    refused: NotRequired[str]
    refresh: NotRequired[list[int]]


class ManeuverTracking(TypedDict):
    """A tracked maneuver's lines for a character."""

    character: str
    lines: list[Any]


def _gm_must_answer(event: Any) -> list[int]:
    """A spend that waits for the GM's cost: the GM is told (tabletop/notify)."""
    if event.public.get("status") != "awaiting_gm":
        return []
    return [event.scene.campaign.gm_id]


def _spender(event: Any) -> list[int]:
    """The GM answered a spend: its spender is told."""
    spend = event.scene.events.filter(seq=event.public.get("spend_seq")).first()
    return [spend.actor_id] if spend is not None and spend.actor_id is not None else []


EVENT_KINDS = (
    EventKind(
        "plot_spend",
        f"{_T}/plot_spend.html",
        _SHEETS,
        public=PlotSpend,
        notifies=_gm_must_answer,
        mirror="spends",
    ),
    EventKind(
        "plot_decision",
        f"{_T}/plot_decision.html",
        _SHEETS,
        public=PlotDecision,
        notifies=_spender,
        mirror="spends",
    ),
    EventKind("plot_cancel", f"{_T}/plot_cancel.html", _SHEETS, public=PlotCancel, mirror="spends"),
    EventKind(
        "plot_applied", f"{_T}/plot_applied.html", _SHEETS, public=PlotApplied, mirror="spends"
    ),
    EventKind(
        "maneuver_tracking",
        f"{_T}/maneuver_tracking.html",
        frozenset({"maneuvers"}),
        public=ManeuverTracking,
        mirror="table",
    ),
)
