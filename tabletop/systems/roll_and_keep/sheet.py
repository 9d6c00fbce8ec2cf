"""The roll_and_keep sheet: attributes linked to mana colours, permanent mana per colour,
specialities (seed 001)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import SheetSpec, links_from, names_from

#: RULES-NOTES defaults when a ruleset lacks them.
COLOURS = ("White", "Blue", "Black", "Red", "Green")
LINKS = {
    "Cunning": ("Black",),
    "Intelligence": ("Blue",),
    "Strength": ("Red",),
    "Endurance": ("Green",),
    "Charisma": ("White",),
    "Finesse": ("Black",),
    "Acuity": ("Blue",),
}


def sheet(ruleset: Mapping[str, Any]) -> SheetSpec:
    links = links_from(ruleset.get("links"), LINKS)
    return SheetSpec(
        system="roll_and_keep",
        attributes=names_from(ruleset.get("attributes"), links.keys()),
        attribute_links=links,
        colours=names_from(ruleset.get("colours"), COLOURS),
        uses_specialities=True,
    )
