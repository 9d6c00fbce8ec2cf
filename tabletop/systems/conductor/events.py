"""The events of bennies, healing and the wilderness expedition."""

from tabletop.systems.api import EventKind

_SHEETS = frozenset({"party", "dashboard"})  # bennies and hits are on the party panel
_EXPEDITION = frozenset({"expedition", "party", "dashboard"})
_T = "systems/conductor/events"

EVENT_KINDS = (
    EventKind("benny", f"{_T}/benny.html", _SHEETS),
    EventKind("heal_applied", f"{_T}/heal_applied.html", _SHEETS),
    *(
        EventKind(f"expedition_{step}", f"{_T}/expedition_{step}.html", _EXPEDITION)
        for step in ("start", "party", "action", "travel", "benny", "phase", "end")
    ),
)
