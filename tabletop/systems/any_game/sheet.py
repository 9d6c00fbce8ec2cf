"""The any-game sheet: nothing the app reads but the table's currency. What a character is in
the game the table plays lives in its free notes, and what it rolls in its saved rolls
("Longsword: 1d20+5"), which the Sheet tool makes buttons of."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.any_game.currency import CURRENCY
from tabletop.systems.api import GM, NPC, PC, SheetSpec


def sheet(ruleset: Mapping[str, Any]) -> SheetSpec:
    return SheetSpec(system="any_game", currencies=(CURRENCY.field,))


def demo(spec: SheetSpec) -> list[dict[str, Any]]:
    """The demo table (a d20 fantasy party): (owner, name, role, sheet, currencies) for each
    character; seed_demo gives every character the saved rolls of a demo (Longsword, Damage)."""
    return [
        {
            "owner": "alice",
            "name": "Mira Quickfoot",
            "role": PC,
            "sheet": {"notes": "Halfling rogue, level 3. AC 15, HP 21. Dex +4, Wis +1."},
            "currencies": {CURRENCY.field: 1},
        },
        {
            "owner": "bob",
            "name": "Brother Aldous",
            "role": PC,
            "sheet": {"notes": "Human cleric, level 3. AC 18, HP 24. Wis +3, Str +2."},
            "currencies": {CURRENCY.field: 1},
        },
        {
            "owner": GM,
            "name": "Captain Varga",
            "role": NPC,
            "sheet": {"notes": "Harbour watch captain: knows who smuggles what, for a price."},
        },
    ]
