"""The roll_and_keep demo table: the characters `make demo` gives the GM, alice and bob."""

from __future__ import annotations

from typing import Any

from tabletop.systems.api import GM, NPC, PC, SheetSpec


def demo(spec: SheetSpec) -> list[dict[str, Any]]:
    """(owner, name, kind, sheet, currencies) for each demo character."""
    return [
        {
            "owner": "alice",
            "name": "Sable",
            "role": PC,
            # The seed's worked example: Black 3, Blue 2 and its four specialities.
            "sheet": {
                "attributes": {
                    "Cunning": 4,
                    "Intelligence": 3,
                    "Strength": 2,
                    "Endurance": 3,
                    "Charisma": 2,
                    "Finesse": 3,
                    "Acuity": 2,
                },
                "mana": {"Black": 3, "Blue": 2},
                "specialities": [
                    {"name": "Deceit", "attribute": "Cunning"},
                    {"name": "Artifice", "attribute": "Intelligence"},
                    {"name": "Stealth", "attribute": "Finesse"},
                    {"name": "Elemental Damage", "attribute": "Endurance"},
                ],
                "notes": "Carries a staff she insists is only for walking.",
            },
        },
        {
            "owner": "bob",
            "name": "Orrin Flint",
            "role": PC,
            "sheet": {
                "attributes": {
                    "Cunning": 2,
                    "Intelligence": 2,
                    "Strength": 4,
                    "Endurance": 5,
                    "Charisma": 3,
                    "Finesse": 2,
                    "Acuity": 2,
                },
                "mana": {"Red": 3, "Green": 2},
                "specialities": [
                    {"name": "Brawling", "attribute": "Strength"},
                    {"name": "Long-distance Running", "attribute": "Endurance"},
                ],
            },
        },
        {
            "owner": GM,
            "name": "Magistrate Ivo",
            "role": NPC,
            "sheet": {
                "attributes": {"Cunning": 5, "Charisma": 4, "Intelligence": 3},
                "mana": {"White": 2, "Black": 2},
                "specialities": [{"name": "Law", "attribute": "Intelligence"}],
            },
        },
    ]
