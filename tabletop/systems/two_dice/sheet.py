"""The two_dice sheet: four attributes and the four resources linked to them (seed 003, names
from RULES-NOTES)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import NamedNumbers, Pools, SheetSpec, links_from, names_from

#: RULES-NOTES defaults when a ruleset lacks them.
ATTRIBUTES = ("Might", "Agility", "Wits", "Presence")
RESOURCES = {
    "Health": ("Might", "Agility"),
    "Stamina": ("Agility", "Wits"),
    "Focus": ("Wits", "Presence"),
    "Resolve": ("Presence", "Might"),
}


def sheet(ruleset: Mapping[str, Any]) -> SheetSpec:
    return SheetSpec(
        system="two_dice",
        parts=(
            NamedNumbers(
                "Attributes",
                key="attributes",
                names=names_from(ruleset.get("attributes"), ATTRIBUTES),
                range=(-5, 20),
                what="Attribute",
                prefix="attr",
            ),
            Pools(
                "Resources",
                key="resources",
                names=links_from(ruleset.get("resources"), RESOURCES),
                what="resource",
                prefix="res",
            ),
        ),
    )


def pools(character: Any, spec: SheetSpec) -> list[dict[str, Any]]:
    """The character's resources, each "current / max" (seed 003), in the ruleset's order."""
    held = character.resources or {}
    names = spec.part("resources").names
    return [{"name": name, **held.get(name, {"current": 0, "max": 0})} for name in names]
