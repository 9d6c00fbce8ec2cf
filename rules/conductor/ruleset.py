"""conductor (seed 002): the campaign ruleset and the skill list.

``DEFAULT_RULESET`` holds the difficulties the seed leaves to the sheet, the seed's "Skill
Descriptions" with which skills may or must be specified, and the wilderness numbers;
``effective_skill`` applies the seed's "(S)" specification rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import MAX_POOL, MAX_SIDES, RulesError, check_int, lookup

#: The seed's skill list ("Skill Descriptions"), with how each may be specified:
#: "never" (no specification), "may" (Awareness: "A character can specify a sense"),
#: "must" (Art/Craft and Weapon: "must specify").
SPECIFICATION_RULES = ("never", "may", "must")
SKILLS: tuple[tuple[str, str], ...] = (
    ("Acrobatics", "never"),
    ("Awareness", "may"),
    ("Art/Craft", "must"),
    ("Calculus", "never"),
    ("Climbing, Swimming and Running", "never"),
    ("Disguise", "never"),
    ("Evaluate", "never"),
    ("Healing", "never"),
    ("Languages", "never"),
    ("Manuality", "never"),
    ("Mechanisms and Devices", "never"),
    ("Poison", "never"),
    ("Rhetoric", "never"),
    ("Script", "never"),
    ("Spell", "never"),
    ("Strength", "never"),
    ("Survival", "never"),
    ("Weapon", "must"),
)

#: How tired mounts become fresh again. The seed is silent ("Tired mounts cannot gallop");
#: the default is a phase in which the party does not travel (the mounts stand and graze).
MOUNT_RECOVERY = ("phase_without_travel", "party_rest", "new_day")

DEFAULT_RULESET: dict[str, Any] = {
    # RULES-NOTES default: "the character's difficulty, a sheet field, default 3".
    "character_difficulty": 3,
    # Seed "Healing": "against the foe that caused the harm's difficulty (or 3 if not specified)".
    "healing_difficulty": 3,
    # Seed "Poison": "make an attack roll against difficulty 3".
    "poison_difficulty": 3,
    # Seed "Awareness", "Art/Craft", "Weapon": "specifying gives a +1 to the skill".
    "specification_bonus": 1,
    "skills": dict(SKILLS),
    "wilderness": {
        # Seed "Forage": "a difficulty 7 roll using their survival skill".
        "forage_difficulty": 7,
        # Seed: "d12 -> d10 -> d8 -> d6 -> d4", "must roll above 3".
        "supply_dice": [12, 10, 8, 6, 4],
        "supply_target": 3,
        # Seed "Trek 1 hex", "Gallop 2 hexes", "Ferry 3 hexes".
        "trek_hexes": 1,
        "gallop_hexes": 2,
        "ferry_hexes": 3,
        # Not in the seed: when tired mounts recover (one of MOUNT_RECOVERY).
        "mounts_recover": "phase_without_travel",
    },
}

_TOP_FIELDS = tuple(DEFAULT_RULESET)
_WILDERNESS_FIELDS = tuple(DEFAULT_RULESET["wilderness"])


# --- ruleset ---------------------------------------------------------------------------------


def validate_ruleset(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge ``data`` over ``DEFAULT_RULESET``, check every field, return the full ruleset.

    Plain fields replace the default. The two sections merge field by field: ``wilderness``
    (give only the numbers you change) and ``skills`` (a name adds a skill or changes how an
    existing one, matched case-insensitively, may be specified; ``None`` removes it, as the
    seed's "Other skills" invites the table to add its own).
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise RulesError(f"The ruleset must be a mapping of fields, not {type(data).__name__}.")
    unknown = [key for key in data if key not in _TOP_FIELDS]
    if unknown:
        raise RulesError(f"Unknown ruleset field(s) {unknown}; allowed: {', '.join(_TOP_FIELDS)}.")
    out: dict[str, Any] = {}
    for key in ("character_difficulty", "healing_difficulty", "poison_difficulty"):
        out[key] = check_int(
            data.get(key, DEFAULT_RULESET[key]), f"ruleset.{key}", low=0, high=MAX_SIDES
        )
    out["specification_bonus"] = check_int(
        data.get("specification_bonus", DEFAULT_RULESET["specification_bonus"]),
        "ruleset.specification_bonus",
        low=0,
        high=MAX_POOL,
    )
    out["skills"] = _merge_skills(data.get("skills", {}))
    out["wilderness"] = _validate_wilderness(data.get("wilderness", {}))
    return out


def _merge_skills(changes: Any) -> dict[str, str]:
    if not isinstance(changes, Mapping):
        raise RulesError("ruleset.skills must map skill names to never/may/must.")
    skills = dict(DEFAULT_RULESET["skills"])
    for name, rule in changes.items():
        if not isinstance(name, str) or not name.strip() or len(name) > 100:
            raise RulesError(f"ruleset.skills: {name!r} is not a skill name.")
        existing = [s for s in skills if s.casefold() == name.strip().casefold()]
        canonical = existing[0] if existing else name.strip()
        if rule is None:
            skills.pop(canonical, None)
            continue
        skills[canonical] = lookup(rule, SPECIFICATION_RULES, f"ruleset.skills.{canonical} rule")
    if not skills:
        raise RulesError("ruleset.skills must keep at least one skill.")
    return skills


def _validate_wilderness(changes: Any) -> dict[str, Any]:
    if not isinstance(changes, Mapping):
        raise RulesError("ruleset.wilderness must be a mapping of fields.")
    unknown = [key for key in changes if key not in _WILDERNESS_FIELDS]
    if unknown:
        raise RulesError(
            f"Unknown ruleset.wilderness field(s) {unknown}; "
            f"allowed: {', '.join(_WILDERNESS_FIELDS)}."
        )
    merged = {**DEFAULT_RULESET["wilderness"], **changes}
    out: dict[str, Any] = {}
    out["forage_difficulty"] = check_int(
        merged["forage_difficulty"], "ruleset.wilderness.forage_difficulty", low=0, high=MAX_SIDES
    )
    dice = merged["supply_dice"]
    if isinstance(dice, str) or not isinstance(dice, list | tuple) or not dice or len(dice) > 20:
        raise RulesError(
            "ruleset.wilderness.supply_dice must list 1 to 20 die sizes, e.g. [12, 10]."
        )
    sizes = [
        check_int(d, "ruleset.wilderness.supply_dice: a die size", low=2, high=MAX_SIDES)
        for d in dice
    ]
    if any(a <= b for a, b in zip(sizes, sizes[1:], strict=False)):
        raise RulesError("ruleset.wilderness.supply_dice must step down, largest die first.")
    out["supply_dice"] = sizes
    out["supply_target"] = check_int(
        merged["supply_target"], "ruleset.wilderness.supply_target", low=0, high=MAX_SIDES
    )
    for key in ("trek_hexes", "gallop_hexes", "ferry_hexes"):
        out[key] = check_int(merged[key], f"ruleset.wilderness.{key}", low=0, high=100)
    out["mounts_recover"] = lookup(
        merged["mounts_recover"], MOUNT_RECOVERY, "ruleset.wilderness.mounts_recover rule"
    )
    return out


_DEFAULTS_CHECKED = validate_ruleset(None)


def _ruleset(ruleset: Mapping[str, Any] | None) -> dict[str, Any]:
    # The defaults are validated once at import (shared: callers here only read them);
    # a campaign's ruleset is validated on every call (it is small).
    return _DEFAULTS_CHECKED if ruleset is None else validate_ruleset(ruleset)


# --- input checks ----------------------------------------------------------------------------


def _check_skill(skill: Any) -> int:
    # The attack pool (1 + skill dice) is checked against core.MAX_POOL by _pool.
    return check_int(skill, "The skill", low=0, high=MAX_SIDES)


def _check_difficulty(difficulty: Any, what: str = "The difficulty") -> int:
    return check_int(difficulty, what, low=0, high=MAX_SIDES)


def _check_bennies(bennies: Any, *, low: int = 0) -> int:
    return check_int(bennies, "The number of bennies", low=low, high=MAX_POOL)


# --- skills ------------------------------------------------------------------------------------


def skill_names(*, ruleset: Mapping[str, Any] | None = None) -> list[str]:
    """The skills of the seed's "Skill Descriptions" (plus any the campaign added)."""
    return list(_ruleset(ruleset)["skills"])


def effective_skill(
    *,
    skill: str,
    value: int,
    specification: str | None = None,
    within_specification: bool = True,
    ruleset: Mapping[str, Any] | None = None,
) -> int:
    """The skill value a roll uses, given the skill's specification (seed "(S)" skills).

    Seed: "specifying gives a +1 to the skill but makes them unable to use it outside its
    specification"; Art/Craft and Weapon "must" be specified. So a specified skill counts
    ``value + specification_bonus`` within its specification and 0 outside it (the character
    rolls as if untrained; a general skill they also hold is a separate entry on the sheet).
    """
    rules = _ruleset(ruleset)
    name = lookup(skill, rules["skills"], "skill")
    value = check_int(value, f"The {name} skill", low=0, high=MAX_SIDES)
    if not isinstance(within_specification, bool):
        raise RulesError("within_specification must be True or False.")
    if specification is not None and (
        not isinstance(specification, str) or not specification.strip()
    ):
        raise RulesError(f"The {name} specification must be a non-empty text, or none.")
    rule = rules["skills"][name]
    if rule == "never" and specification is not None:
        raise RulesError(f"{name} cannot be specified; only (S) skills can.")
    if rule == "must" and specification is None:
        raise RulesError(f"{name} must be specified (say which one the character is good at).")
    if specification is None:
        return value
    return value + rules["specification_bonus"] if within_specification else 0
