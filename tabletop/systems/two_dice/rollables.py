"""What the scene's Sheet tool offers to roll from a two_dice sheet (seed 003): a check (2d6 +
attribute) for each attribute, its cost paid from the linked resource with more points left
(the roll form lets the player pick the other one)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import two_dice
from tabletop.systems.api import Rollable


def _current(character: Any, resource: str) -> int:
    entry = (character.resources or {}).get(resource)
    value = entry.get("current") if isinstance(entry, Mapping) else 0
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def rollables(character: Any, ruleset: Mapping[str, Any]) -> list[Rollable]:
    rules = two_dice.validate_ruleset(ruleset)
    sheet = character.attributes or {}
    out = []
    for attribute in rules["attributes"]:
        linked = [name for name, pair in rules["resources"].items() if attribute in pair]
        if not linked:
            continue
        # The first of the best: max keeps the first of equals.
        pays = max(linked, key=lambda name: _current(character, name))
        value = sheet.get(attribute, 0)
        value = value if isinstance(value, int) and not isinstance(value, bool) else 0
        out.append(
            Rollable(
                section="Attributes",
                label=attribute,
                value=str(value),
                roll_kind="two_dice",
                fields={"attribute": attribute, "resource": pays},
                note=f"2d6 {'+' if value >= 0 else '−'} {abs(value)}, pays from {pays}",
            )
        )
    return out
