"""The two_dice demo table: the characters `make demo` gives the GM, alice and bob."""

from __future__ import annotations

from typing import Any

from tabletop.characters.demo import FOE, GM, PC, by_position
from tabletop.characters.sheets import SheetSpec


def demo(spec: SheetSpec) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character."""
    resources = tuple(spec.resources)
    return [
        {
            "owner": "alice",
            "name": "Tamsin Reed",
            "kind": PC,
            "sheet": {
                "attributes": by_position(spec.attributes, [1, 3, 2, 0]),
                "resources": by_position(
                    resources, [{"current": v, "max": v} for v in (5, 6, 5, 3)]
                ),
            },
        },
        {
            "owner": "bob",
            "name": "Garrick Stone",
            "kind": PC,
            "sheet": {
                "attributes": by_position(spec.attributes, [3, 1, 0, 2]),
                "resources": by_position(
                    resources, [{"current": v, "max": v} for v in (7, 4, 3, 5)]
                ),
            },
        },
        {
            "owner": GM,
            "name": "Captain Rhee",
            "kind": FOE,
            "sheet": {
                "attributes": by_position(spec.attributes, [2, 2, 1, 3]),
                "resources": by_position(
                    resources, [{"current": v, "max": v} for v in (6, 5, 4, 6)]
                ),
            },
        },
    ]
