"""The events of a check on the turn tracker that others may hinder or resist."""

from tabletop.systems.api import EventKind

EVENT_KINDS = (
    EventKind(
        "check_declared", "systems/two_dice/events/check_declared.html", frozenset({"turns"})
    ),
)
