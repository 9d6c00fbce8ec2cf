"""Roll modes: the one definition of who sees a roll (as Foundry's chat roll modes)."""

from __future__ import annotations

from dataclasses import dataclass

from tabletop.scenes.models import Audience


@dataclass(frozen=True)
class RollMode:
    name: str  # stored with every roll ("mode")
    label: str  # what the mode select shows
    audience: str
    badge: str  # what a card of a roll in this mode says of it
    gm_only: bool = False  # only the GM rolls in this mode


MODES: dict[str, RollMode] = {
    mode.name: mode
    for mode in (
        RollMode("public", "Public", Audience.EVERYONE, ""),
        # The GM and the roller see it.
        RollMode("gm", "Private to GM", Audience.PRIVATE, "private to GM"),
        # Only the GM sees it; the roller sees that it happened.
        RollMode("blind", "Blind to GM", Audience.BLIND, "blind"),
        RollMode("self", "Self", Audience.SELF, "self"),
        # The GM's own secret roll (a perception roll for a player).
        RollMode("secret", "Secret (GM)", Audience.GM_ONLY, "GM secret", gm_only=True),
    )
}
#: Mode name -> audience.
ROLL_MODES: dict[str, str] = {name: mode.audience for name, mode in MODES.items()}


def modes_for(*, is_gm: bool) -> list[RollMode]:
    """The modes a viewer may pick on a roll form."""
    return [mode for mode in MODES.values() if is_gm or not mode.gm_only]
