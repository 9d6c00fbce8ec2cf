"""What the scene's Sheet tool offers to roll from a roll_and_keep sheet (seed 001): each
attribute, and each speciality with its attribute (+1 die rolled and kept), with the dice kept
by the character's mana (``rules.roll_and_keep.dice_pool``). Mana is not rolled itself: it says
how many dice are kept, shown beside each roll."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import roll_and_keep as rak
from tabletop.systems.api import Rollable

KIND = "roll_and_keep"
#: The roll form's checkbox of a speciality (rolls.SPECIALITY_PREFIX).
SPECIALITY = "speciality:"


def _pool(character: Any, attribute: str, value: int, specialities: int, ruleset) -> str:
    pool = rak.dice_pool(
        attribute=attribute,
        attribute_value=value,
        mana=character.mana or {},
        specialities=specialities,
        ruleset=ruleset,
    )
    return f"roll {pool.rolled}, keep {pool.kept}"


def rollables(character: Any, ruleset: Mapping[str, Any]) -> list[Rollable]:
    rules = rak.validate_ruleset(ruleset)
    sheet = {str(k).casefold(): v for k, v in (character.attributes or {}).items()}
    values = {}
    for attribute in rules["attributes"]:
        value = sheet.get(attribute.casefold(), 0)
        values[attribute.casefold()] = (attribute, value if isinstance(value, int) else 0)
    out = []
    for attribute, value in values.values():
        if value <= 0:
            continue  # no dice to roll: the roll refuses it
        out.append(
            Rollable(
                section="Attributes",
                label=attribute,
                value=str(value),
                roll_kind=KIND,
                fields={"attribute": attribute},
                note=_pool(character, attribute, value, 0, rules),
            )
        )
    for row in character.specialities or []:
        if not isinstance(row, Mapping):
            continue
        name = str(row.get("name", ""))
        attribute, value = values.get(str(row.get("attribute", "")).casefold(), ("", 0))
        if not name or not attribute:
            continue
        out.append(
            Rollable(
                section="Specialities",
                label=name,
                value=str(value + 1),
                roll_kind=KIND,
                fields={"attribute": attribute, SPECIALITY + name: "on"},
                note=f"{attribute} {value} + 1: {_pool(character, attribute, value, 1, rules)}",
            )
        )
    return out
