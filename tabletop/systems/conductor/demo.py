"""The conductor demo table: the characters `make demo` gives the GM, alice and bob."""

from __future__ import annotations

from typing import Any

from tabletop.systems.api import FOE, GM, PC, SheetSpec


def demo(spec: SheetSpec) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character."""
    return [
        {
            "owner": "alice",
            "name": "Kestrel",
            "role": PC,
            "sheet": {
                "skills": [
                    {"name": "Weapon", "specialisation": "Sword", "value": 2},
                    {"name": "Survival", "value": 1},
                    {"name": "Awareness", "specialisation": "Sight", "value": 1},
                    {"name": "Acrobatics", "value": 1},
                ],
            },
            "currencies": {"bennies": 3},
        },
        {
            "owner": "bob",
            "name": "Brannoc",
            "role": PC,
            "sheet": {
                "skills": [
                    {"name": "Strength", "value": 2},
                    {"name": "Healing", "value": 1},
                    {"name": "Art/Craft", "specialisation": "Blacksmithing", "value": 1},
                    {"name": "Survival", "value": 1},
                ],
            },
            "currencies": {"bennies": 2},
        },
        {
            "owner": GM,
            "name": "Bog Wight",
            "role": FOE,
            "sheet": {"skills": [{"name": "Strength", "value": 2}], "difficulty": 4},
        },
        {
            "owner": GM,
            "name": "Ridge Wolf",
            "role": FOE,
            "sheet": {"skills": [{"name": "Acrobatics", "value": 1}], "difficulty": 3},
        },
    ]
