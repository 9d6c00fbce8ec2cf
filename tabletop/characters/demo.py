"""What every system's demo table shares (``manage.py seed_demo``): who plays, and a helper
that pairs the ruleset's names with demo values."""

from __future__ import annotations

from typing import Any

from tabletop.characters.models import Character

GM, PLAYERS = "gm", ("alice", "bob")
PC, NPC, FOE = Character.Role.PC, Character.Role.NPC, Character.Role.FOE


def by_position(names: tuple[str, ...], values: list[Any]) -> dict[str, Any]:
    """The ruleset's names (so a renamed default still seeds) paired with demo values."""
    return dict(zip(names, values, strict=False))
