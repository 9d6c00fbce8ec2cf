"""The roll_and_keep sheet: attributes linked to mana colours, permanent mana per colour,
specialities (seed 001)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import NamedNumbers, SheetSpec, TaggedNames, links_from, names_from

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
    attributes = names_from(ruleset.get("attributes"), links.keys())
    return SheetSpec(
        system="roll_and_keep",
        parts=(
            NamedNumbers(
                "Attributes",
                key="attributes",
                names=attributes,
                what="Attribute",
                prefix="attr",
                links=links,
            ),
            NamedNumbers(
                "Mana",
                key="mana",
                names=names_from(ruleset.get("colours"), COLOURS),
                what="Mana",
                prefix="mana",
            ),
            TaggedNames(
                "Specialities",
                key="specialities",
                noun="speciality",
                tag="attribute",
                tags=attributes,
                hint="Each adds a die to its attribute's rolls.",
            ),
        ),
    )
