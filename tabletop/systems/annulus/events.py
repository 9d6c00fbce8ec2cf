"""The events of an operation challenge: each makes the challenge panel stale."""

from tabletop.systems.api import ANY_AUDIENCE, EventKind

_PANEL = frozenset({"challenge"})

EVENT_KINDS = (
    # Private to the GM: its secret is the layout (one commitment to mask and every die).
    EventKind("challenge_set", "systems/annulus/events/set.html", _PANEL, ANY_AUDIENCE),
    EventKind("challenge_adjust", "systems/annulus/events/adjust.html", _PANEL),
    EventKind("challenge_reveal", "systems/annulus/events/reveal.html", _PANEL),
    EventKind("challenge_toolkit", "systems/annulus/events/toolkit.html", _PANEL),
    EventKind("challenge_end", "systems/annulus/events/end.html", _PANEL),
)
