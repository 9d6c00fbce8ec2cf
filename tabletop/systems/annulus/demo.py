"""The annulus demo table: the characters `make demo` gives the GM, alice and bob."""

from __future__ import annotations

from typing import Any

from tabletop.systems.api import GM, NPC, PC, SheetSpec, by_position


def demo(spec: SheetSpec) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character."""
    types = spec.part("training_perks").names
    return [
        {
            "owner": "alice",
            "name": "Mira Vell",
            "role": PC,
            "sheet": {
                "training_perks": by_position(types, [2, 1, 0, 1]),
                "notes": "Scholar of dead machines; reads glyphs faster than she reads people.",
            },
        },
        {
            "owner": "bob",
            "name": "Dorrin Hale",
            "role": PC,
            "sheet": {
                "training_perks": by_position(types, [0, 1, 2, 1]),
                "notes": "Former vault-breaker with steady hands and a bad knee.",
            },
        },
        {
            "owner": GM,
            "name": "Archivist Quell",
            "role": NPC,
            "sheet": {"training_perks": by_position(types, [3, 0, 0, 2])},
        },
    ]
