"""The rolls a viewer may see, as the statistics read them (no writes here).

A roll counts only when ``audiences.visibility`` gives the viewer all of it: a hidden roll once
revealed, never a stub (a blind roll before its reveal, another player's private roll), never a
roll kept from the viewer (someone else's self roll, the GM's secret rolls).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tabletop.scenes.audiences import FULL, Viewer, visibility
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.rollkinds import ROLL_KINDS
from tabletop.stats.stats import Roll, stored_bands

#: The dice box's kind: its rolls are grouped by expression ("3d6", "1d20 + 2").
DICE_BOX = "expression"


def roll_events(**where: Any) -> Iterable[SceneEvent]:
    """Roll events (``where``: ``scene=`` or ``scene__campaign=``), oldest first."""
    return SceneEvent.objects.filter(kind="roll", **where).order_by("scene_id", "seq")


def visible_rolls(events: Iterable[SceneEvent], viewer: Viewer) -> list[Roll]:
    """The rolls of ``events`` that ``viewer`` sees in full."""
    out = []
    for event in events:
        if visibility(event, viewer) != FULL:
            continue
        # As rolled: the odds it had and the band it landed in, whatever was spent on it later.
        data = {**event.public, **event.secret}
        name = str(data.get("roll_kind") or "")
        kind = ROLL_KINDS.get(name)
        label = kind.label if kind is not None else str(data.get("label") or name or "Roll")
        group = name
        if name == DICE_BOX:
            expression = str(data.get("title") or "?")
            group, label = f"{DICE_BOX}:{expression}", f"Dice: {expression}"
        bands, band = stored_bands(data.get("odds"))
        out.append(
            Roll(
                roller=str(data.get("roller") or "someone"),
                kind=name,
                group=group,
                label=label,
                bands=bands,
                band=band,
            )
        )
    return out


def about_kind(kind_name: str) -> tuple[dict[str, str], str]:
    """How a kind names its bands, and why its rolls store no odds if they never do."""
    kind = ROLL_KINDS.get(kind_name)
    if kind is None:
        return {}, ""
    return dict(kind.band_labels), kind.no_odds
