"""The two_dice demo table: the characters `make demo` gives the GM, alice and bob.

Seed 003's check is 2d6 + attribute against 15 ("15 or higher ... succeeds"); the seed gives
no character-creation rules, so its thresholds set the scale: an average roll of 7 succeeds
with an attribute of 8, and 8 is the one value at which both criticals (20 or higher, 10 or
lower) stay possible on a Normal check. So each demo character is good at one thing (their
best attribute 7 or 8: a Normal check succeeds 41.7% or 58.3% of the time), middling at the
rest (4 to 7), within the sheet's attribute range; every best attribute's linked resources
hold at least the Normal cost (2), so those odds carry no unpaid-cost penalty.
"""

from __future__ import annotations

from typing import Any

from tabletop.systems.api import FOE, GM, PC, SheetSpec, by_position


def demo(spec: SheetSpec) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character."""
    resources = tuple(spec.part("resources").names)
    attributes = spec.part("attributes").names
    return [
        {
            "owner": "alice",
            "name": "Tamsin Reed",
            "role": PC,
            "sheet": {
                "attributes": by_position(attributes, [5, 8, 7, 4]),
                "resources": by_position(
                    resources, [{"current": v, "max": v} for v in (5, 6, 5, 3)]
                ),
            },
        },
        {
            "owner": "bob",
            "name": "Garrick Stone",
            "role": PC,
            "sheet": {
                "attributes": by_position(attributes, [8, 5, 4, 7]),
                "resources": by_position(
                    resources, [{"current": v, "max": v} for v in (7, 4, 3, 5)]
                ),
            },
        },
        {
            "owner": GM,
            "name": "Captain Rhee",
            "role": FOE,
            "sheet": {
                "attributes": by_position(attributes, [6, 6, 5, 7]),
                "resources": by_position(
                    resources, [{"current": v, "max": v} for v in (6, 5, 4, 6)]
                ),
            },
        },
    ]
