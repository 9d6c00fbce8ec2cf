"""The events of opposed and extended actions (an indirect contest may be the GM's secret)."""

from tabletop.systems.api import ANY_AUDIENCE, EventKind

EVENT_KINDS = (
    EventKind(
        "contest",
        "systems/roll_and_keep/events/contest.html",
        frozenset({"contests"}),
        ANY_AUDIENCE,
    ),
)
