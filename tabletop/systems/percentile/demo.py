"""The percentile demo table: the characters `make demo` gives the GM, alice and bob."""

from __future__ import annotations

from typing import Any

from tabletop.systems.api import GM, NPC, PC, SheetSpec


def demo(spec: SheetSpec) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character."""
    return [
        {
            "owner": "alice",
            "name": "Tomalfson",
            "role": PC,
            # The seed's running example: Quickness -9, total penalty -65, MV 26.
            "sheet": {
                "quickness": -9,
                "mv": 26,
                "total_penalty": -65,
                "attributes": {"Perceptivity": 5},
                "skills": [
                    {"name": "Broadsword", "value": 55},
                    {"name": "Climbing", "value": 20},
                    {"name": "Detect Traps", "value": 15},
                ],
                "notes": "Cannot run in that armour, yet.",
            },
            "currencies": {"plot_points_total": 3, "plot_points": 3, "development_points": 4},
        },
        {
            "owner": "bob",
            "name": "Ilsa Marrow",
            "role": PC,
            "sheet": {
                "quickness": 12,
                "mv": 20,
                "total_penalty": -5,
                "attributes": {"Perceptivity": 15},
                "skills": [
                    {"name": "Running", "value": 40},
                    {"name": "Lockpicking", "value": 35},
                    {"name": "Short Bow", "value": 30},
                ],
            },
            "currencies": {"plot_points_total": 3, "plot_points": 2, "development_points": 1},
        },
        {
            "owner": GM,
            "name": "Old Hanna",
            "role": NPC,
            "sheet": {
                "attributes": {"Perceptivity": 25},
                "skills": [{"name": "Herbs", "value": 60}],
            },
        },
    ]
