"""What the scene's Sheet tool offers to roll from a conductor sheet (seed 002): each skill as a
standard roll (d12 + skill) and as an attack roll ((1 + skill) d6), and the Healing and Poison
skills' own rolls. A specified skill counts +1 (``rules.conductor.effective_skill``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import conductor
from rules.core import RulesError
from tabletop.systems.api import Rollable, display_skill

#: The skills with a roll of their own (rolls.py reads each by name), and that roll's kind.
OWN_ROLLS = {
    "healing": ("conductor_heal", "Heal with"),
    "poison": ("conductor_poison", "Brew with"),
}


def _skills(character: Any, ruleset: Mapping[str, Any]) -> list[tuple[str, str, int, int]]:
    """(name, label, value on the sheet, value rolled) of each skill the ruleset allows."""
    out = []
    for row in character.skills or []:
        if not isinstance(row, Mapping):
            continue
        name = str(row.get("name", ""))
        specialisation = str(row.get("specialisation", "") or "")
        value = row.get("value", 0)
        try:
            rolled = conductor.effective_skill(
                skill=name, value=value, specification=specialisation or None, ruleset=ruleset
            )
        except RulesError:
            continue  # an entry the campaign's ruleset no longer allows: the roll refuses it
        out.append((name, display_skill(name, specialisation), value, rolled))
    return out


def rollables(character: Any, ruleset: Mapping[str, Any]) -> list[Rollable]:
    skills = _skills(character, ruleset)
    out = []
    for _name, label, value, rolled in skills:
        note = "d12 + skill" if rolled == value else f"d12 + {value}, +1 specified"
        out.append(
            Rollable(
                section="Skills",
                label=label,
                value=str(rolled),
                roll_kind="conductor_standard",
                fields={"skill_name": label},
                note=note,
            )
        )
    for _name, label, _value, rolled in skills:
        out.append(
            Rollable(
                section="Attacks",
                label=label,
                value=f"{1 + rolled}d6",
                roll_kind="conductor_attack",
                fields={"skill_name": label},
                verb="Attack with",
            )
        )
    # Healing and poison roll the best entry of their skill (rolls.sheet_skill): one each.
    best: dict[str, tuple[str, int]] = {}
    for name, label, _value, rolled in skills:
        key = name.casefold()
        if key in OWN_ROLLS and (key not in best or rolled > best[key][1]):
            best[key] = (label, rolled)
    for key, (label, rolled) in best.items():
        kind, verb = OWN_ROLLS[key]
        out.append(
            Rollable(
                section="Healing and poison",
                label=label,
                value=f"{1 + rolled}d6",
                roll_kind=kind,
                fields={},
                verb=verb,
            )
        )
    return out
