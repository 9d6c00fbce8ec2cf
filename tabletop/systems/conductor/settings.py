"""conductor: the GM's ruleset settings in the seed's words, with the rules' own bounds.

The generic editor (tabletop.campaigns.ruleset_forms) lays the fields out from
``rules.conductor.DEFAULT_RULESET``; these hints name the wilderness numbers as the seed does,
offer the skills' specification rules as a choice, and bound the numbers as
``rules.conductor.validate_ruleset`` does. The rules merge the skill list entry by entry (a skill
given as ``None`` is dropped), so a removed skill is sent that way.
"""

from __future__ import annotations

from rules import conductor
from rules.core import MAX_POOL, MAX_SIDES
from tabletop.systems.api import ROWS_FIXED, ROWS_NULL, Hint, RulesetForm

SPECIFICATION_LABELS = {
    "never": "Not specified",
    "may": "May be specified (+1)",
    "must": "Must be specified",
}
RECOVERY_LABELS = {
    "phase_without_travel": "After a phase without travel",
    "party_rest": "When the party rests",
    "new_day": "At the start of a new day",
}


def parse_supply_dice(text: str) -> list[int]:
    """Die sizes as a GM types them, "d12, d10, d8" or "12, 10, 8": largest first."""
    sizes: list[int] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        digits = item[1:].strip() if item[:1] in "dD" else item
        if not digits.isdigit():
            raise ValueError(f"“{item[:12]}” is not a die size; write sizes such as d12, d10, d8.")
        size = int(digits)
        if not 2 <= size <= MAX_SIDES:
            raise ValueError(f"a die has from 2 to {MAX_SIDES} sides, not {size}.")
        if sizes and size >= sizes[-1]:
            raise ValueError(
                f"d{size} cannot come after d{sizes[-1]}: each die is smaller than the one before."
            )
        sizes.append(size)
    if not sizes:
        raise ValueError("give at least one die, such as d12, d10, d8.")
    if len(sizes) > SUPPLY_DICE_MAX:
        raise ValueError(f"at most {SUPPLY_DICE_MAX} dice.")
    return sizes


def show_supply_dice(sizes: list[int]) -> str:
    return ", ".join(f"d{size}" for size in sizes)


#: The rules' longest supply ladder.
SUPPLY_DICE_MAX = 20


def _difficulty(label: str, help: str = "") -> Hint:
    return Hint(label=label, help=help, min=0, max=MAX_SIDES)


class ConductorSettingsForm(RulesetForm):
    hints = {
        "character_difficulty": _difficulty(
            "Character difficulty", "What a foe's attack must reach (a sheet field's default)."
        ),
        "healing_difficulty": _difficulty(
            "Healing difficulty", "When the harm's source has no difficulty of its own."
        ),
        "poison_difficulty": _difficulty("Poison difficulty"),
        "specification_bonus": Hint(
            label="Specification bonus",
            help="Added to a specified skill used within its specification.",
            min=0,
            max=MAX_POOL,
        ),
        "skills": Hint(
            help="The seed's Skill Descriptions; (S) skills may or must be specified.",
            rows=ROWS_NULL,
            noun="skill",
            key_label="Skill",
            value_label="Specification",
            choices=tuple(
                (rule, SPECIFICATION_LABELS.get(rule, rule))
                for rule in conductor.SPECIFICATION_RULES
            ),
        ),
        "wilderness": Hint(
            help="The numbers of wilderness travel.",
            rows=ROWS_FIXED,
            columns={
                "forage_difficulty": _difficulty(
                    "Forage difficulty", "Survival roll to beat for a successful Forage."
                ),
                "supply_dice": Hint(
                    label="Supply dice, largest first",
                    help="Die sizes such as d12, d10, d8 (or 12, 10, 8), each from d2 to "
                    f"d{MAX_SIDES}. Each failed supply roll steps the die down; a failure at "
                    "the last depletes supplies.",
                    parse=parse_supply_dice,
                    show=show_supply_dice,
                ),
                "supply_target": _difficulty("Supply roll must beat"),
                "trek_hexes": Hint(label="Trek (hexes)", min=0, max=100),
                "gallop_hexes": Hint(label="Gallop (hexes)", min=0, max=100),
                "ferry_hexes": Hint(label="Ferry (hexes)", min=0, max=100),
                "mounts_recover": Hint(
                    label="Tired mounts recover",
                    choices=tuple(
                        (rule, RECOVERY_LABELS.get(rule, rule)) for rule in conductor.MOUNT_RECOVERY
                    ),
                ),
            },
        ),
    }
