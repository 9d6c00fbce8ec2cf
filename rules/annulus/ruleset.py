"""Annulus (seed 000): the campaign ruleset and the toolkit abilities it lists.

RULES-NOTES "annulus": difficulties, challenge types, the check die and target, pool sizes, the
chain length, the mask die and the toolkit are campaign data (``DEFAULT_RULESET``,
``validate_ruleset``); also the seed's training perks (``training_dice``).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from rules.annulus.chain import MAX_LENGTH, MIN_LENGTH
from rules.core import MAX_POOL, MAX_SIDES, Result, RulesError, check_int, check_pool, lookup

#: The toolkit effect primitives the engine supports (RULES-NOTES "Toolkit abilities").
EFFECTS = ("set_value", "unjam", "reveal", "reroll")

DEFAULT_RULESET: dict[str, Any] = {
    # Seed: "Easy challenges require two successes, medium ... three, hard ... four and
    # impossible ... five."
    "difficulties": {"easy": 2, "medium": 3, "hard": 4, "impossible": 5},
    # RULES-NOTES default: the seed's list is missing; it names Knowledge and Finesse.
    "challenge_types": ["Knowledge", "Finesse", "Force", "Perception"],
    # RULES-NOTES default: "d6, success on 4+".
    "check_die_sides": 6,
    "check_target": 4,
    # Seed: "all checks made in every challenge are made with three dice"; the op check
    # "is a four-die check".
    "challenge_check_dice": 3,
    "op_check_dice": 4,
    # Seed: "rolls six of 12-sided dice"; "six six-sided dice"; "a result of 1 ... hidden".
    "chain_length": 6,
    "mask_die_sides": 6,
    "hidden_face": 1,
    # RULES-NOTES: the Toolkit page is missing; abilities are data over engine primitives.
    # "dice"/"needed" null: the challenge check's pool and the challenge's difficulty.
    "toolkit": [
        {
            "name": "Calibrate",
            "effect": "set_value",
            "dice": None,
            "needed": None,
            "description": "Set one visible, unjammed die to any number from 1 to 12.",
        },
        {
            "name": "Free the Jam",
            "effect": "unjam",
            "dice": None,
            "needed": None,
            "description": "A jammed die works again and can be adjusted.",
        },
        {
            "name": "Survey",
            "effect": "reveal",
            "dice": None,
            "needed": None,
            "description": "The GM reveals one hidden die now, even if the chain is unsolved.",
        },
        {
            "name": "Shake Loose",
            "effect": "reroll",
            "dice": None,
            "needed": None,
            "description": "Roll one visible, unjammed die again.",
        },
    ],
}

_TOOLKIT_KEYS = ("name", "effect", "dice", "needed", "description")


# --- ruleset ------------------------------------------------------------------------------------


def _field_int(data: Mapping[str, Any], field: str, *, low: int, high: int) -> int:
    return check_int(data[field], f"The ruleset's {field!r}", low=low, high=high)


def _validate_names(value: Any, field: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise RulesError(f"The ruleset's {field!r} must be a list of names.")
    names = list(value)
    if not names:
        raise RulesError(f"The ruleset's {field!r} must name at least one entry.")
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise RulesError(f"The ruleset's {field!r} holds {name!r}, which is not a name.")
        if name.casefold() in seen:
            raise RulesError(f"The ruleset's {field!r} names {name!r} twice.")
        seen.add(name.casefold())
    return names


def _validate_toolkit(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str | Mapping) or not isinstance(value, Iterable):
        raise RulesError("The ruleset's 'toolkit' must be a list of abilities.")
    abilities: list[dict[str, Any]] = []
    seen: set[str] = set()
    for entry in value:
        if not isinstance(entry, Mapping):
            raise RulesError(f"The ruleset's 'toolkit' holds {entry!r}, which is not an ability.")
        unknown = sorted(set(entry) - set(_TOOLKIT_KEYS), key=str)
        if unknown:
            raise RulesError(
                f"A toolkit ability has unknown field(s) {unknown}; "
                f"the fields are: {', '.join(_TOOLKIT_KEYS)}."
            )
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise RulesError(f"A toolkit ability needs a 'name' (got {name!r}).")
        if name.casefold() in seen:
            raise RulesError(f"The ruleset's 'toolkit' names {name!r} twice.")
        seen.add(name.casefold())
        effect = lookup(entry.get("effect"), EFFECTS, f"effect for toolkit ability {name!r}")
        dice = entry.get("dice")
        if dice is not None:
            check_pool(dice, f"The dice of toolkit ability {name!r}")
        needed = entry.get("needed")
        if needed is not None:
            check_int(needed, f"The successes needed by toolkit ability {name!r}", low=0)
        description = entry.get("description", "")
        if not isinstance(description, str):
            raise RulesError(f"The description of toolkit ability {name!r} must be text.")
        abilities.append(
            {
                "name": name,
                "effect": effect,
                "dice": dice,
                "needed": needed,
                "description": description,
            }
        )
    return abilities


def _normalise(data: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(data) - set(DEFAULT_RULESET), key=str)
    if unknown:
        raise RulesError(
            f"Unknown ruleset field(s) {unknown}; the fields are: {', '.join(DEFAULT_RULESET)}."
        )
    merged = {**DEFAULT_RULESET, **data}
    out: dict[str, Any] = {}

    difficulties = merged["difficulties"]
    if not isinstance(difficulties, Mapping) or not difficulties:
        raise RulesError("The ruleset's 'difficulties' must map each difficulty to a number.")
    names = _validate_names(list(difficulties), "difficulties")
    out["difficulties"] = {
        name: check_int(difficulties[name], f"The successes needed for difficulty {name!r}", low=0)
        for name in names
    }
    out["challenge_types"] = _validate_names(merged["challenge_types"], "challenge_types")
    out["check_die_sides"] = _field_int(merged, "check_die_sides", low=1, high=MAX_SIDES)
    out["check_target"] = _field_int(merged, "check_target", low=1, high=out["check_die_sides"])
    out["challenge_check_dice"] = _field_int(merged, "challenge_check_dice", low=0, high=MAX_POOL)
    out["op_check_dice"] = _field_int(merged, "op_check_dice", low=0, high=MAX_POOL)
    out["chain_length"] = _field_int(merged, "chain_length", low=MIN_LENGTH, high=MAX_LENGTH)
    out["mask_die_sides"] = _field_int(merged, "mask_die_sides", low=1, high=MAX_SIDES)
    out["hidden_face"] = _field_int(merged, "hidden_face", low=1, high=out["mask_die_sides"])
    out["toolkit"] = _validate_toolkit(merged["toolkit"])
    return out


_DEFAULTS_NORMALISED = _normalise({})


def _ruleset(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The normalised ruleset for internal use (the shared defaults are never mutated)."""
    if data is None:
        return _DEFAULTS_NORMALISED
    if not isinstance(data, Mapping):
        raise RulesError("A ruleset must be a mapping of field names to values.")
    return _normalise(data)


def validate_ruleset(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge ``data`` over ``DEFAULT_RULESET`` (top-level fields replace), validate, normalise.

    RULES-NOTES "annulus": the difficulties, challenge types, check die and target, pool sizes,
    chain length, mask die and toolkit are campaign data. Raises ``RulesError`` naming the field.
    """
    return copy.deepcopy(_ruleset(data))


def difficulty_needed(difficulty: str, *, ruleset: Mapping[str, Any] | None = None) -> int:
    """Successes a difficulty needs: seed "Easy challenges require two successes, medium ..."."""
    return _needed(_ruleset(ruleset), difficulty)


def _needed(rules: Mapping[str, Any], difficulty: Any) -> int:
    return rules["difficulties"][lookup(difficulty, rules["difficulties"], "difficulty")]


def _canonical_types(types: Any, rules: Mapping[str, Any]) -> tuple[str, ...]:
    # Seed: "A challenge can be of two different types simultaneously".
    names = [types] if isinstance(types, str) else types
    if not isinstance(names, Iterable):
        raise RulesError("A challenge's type must be a name or a list of one or two names.")
    canonical = tuple(lookup(t, rules["challenge_types"], "challenge type") for t in names)
    if not 1 <= len(canonical) <= 2:
        raise RulesError(f"A challenge has one or two types, not {len(canonical)}.")
    if len(set(canonical)) != len(canonical):
        raise RulesError("A challenge's two types must be different.")
    return canonical


def training_dice(
    *, types: Any, perks: Mapping[str, int] | None, ruleset: Mapping[str, Any] | None = None
) -> int:
    """Training-perk dice a character adds to a check in a challenge of ``types``.

    Seed: "Training perks can increase the number of dice rolled, but only for certain challenge
    types"; RULES-NOTES: the dice "apply when any of the challenge's types matches". Reading: a
    character trained in both types of a two-type challenge rolls the LARGER of the two perks
    (one check, one training brought to bear), not their sum. ``perks`` maps a type name
    (any case) to dice; types the challenge does not have are ignored.
    """
    rules = _ruleset(ruleset)
    wanted = {t.casefold() for t in _canonical_types(types, rules)}
    if perks is None:
        return 0
    if not isinstance(perks, Mapping):
        raise RulesError("Training perks must map a challenge type to a number of dice.")
    best = 0
    for name, dice in perks.items():
        check_pool(dice, f"The training-perk dice for {name!r}")
        if isinstance(name, str) and name.strip().casefold() in wanted:
            best = max(best, dice)
    return best


# --- toolkit abilities ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ToolkitAbility(Result):
    """A toolkit ability as data (RULES-NOTES: "name, effect, check").

    ``dice``/``needed`` None: the challenge check's pool and the challenge's difficulty.
    """

    name: str
    effect: str
    dice: int | None = None
    needed: int | None = None
    description: str = ""

    def check_dice(self, rules: Mapping[str, Any]) -> int:
        return rules["challenge_check_dice"] if self.dice is None else self.dice

    def check_needed(self, challenge_needed: int) -> int:
        return challenge_needed if self.needed is None else self.needed


def toolkit_abilities(*, ruleset: Mapping[str, Any] | None = None) -> tuple[ToolkitAbility, ...]:
    """The ruleset's toolkit abilities (seed: "Adventurers all have access to a limited number of
    Toolkit abilities"; the Toolkit page itself is missing, RULES-NOTES)."""
    return tuple(ToolkitAbility(**entry) for entry in _ruleset(ruleset)["toolkit"])


def _find_ability(ability: Any, rules: Mapping[str, Any]) -> ToolkitAbility:
    entries = {entry["name"]: entry for entry in rules["toolkit"]}
    if isinstance(ability, ToolkitAbility):
        ability = ability.name
    name = lookup(ability, entries, "toolkit ability")
    return ToolkitAbility(**entries[name])
