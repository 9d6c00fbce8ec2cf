"""What the scene's Sheet tool offers to roll from an annulus sheet: a challenge check and an op
check for each challenge type, with the character's training-perk dice for it (seed 000:
"Training perks can increase the number of dice rolled, but only for certain challenge types")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import annulus
from tabletop.systems.api import Rollable

#: The roll kind both checks are made with (rolls.py), and its two checks.
KIND = "annulus_check"
#: (the check, its section, the button's first words, its dice in the ruleset)
CHECKS = (
    ("challenge", "Challenge checks", "Challenge check:", "challenge_check_dice"),
    ("op", "Op checks", "Op check:", "op_check_dice"),
)


def rollables(character: Any, ruleset: Mapping[str, Any]) -> list[Rollable]:
    rules = annulus.validate_ruleset(ruleset)
    perks = character.training_perks if isinstance(character.training_perks, dict) else {}
    out = []
    for check, section, verb, base in CHECKS:
        for kind in rules["challenge_types"]:
            extra = annulus.training_dice(types=[kind], perks=perks, ruleset=rules)
            out.append(
                Rollable(
                    section=section,
                    label=kind,
                    value=f"+{extra}",
                    roll_kind=KIND,
                    verb=verb,
                    # The second type cleared: a second type equal to the first is refused.
                    fields={"type_1": kind, "type_2": "", "check": check},
                    note=f"{rules[base] + extra}d{rules['check_die_sides']}",
                )
            )
    return out
