"""two_dice (seed 003): the seed's fixed numbers, the campaign ruleset and association.

The thresholds ("15 or higher, the action succeeds", 20 critical success, 10 critical failure),
the difficulties' dice modes, ``DEFAULT_RULESET`` / ``validate_ruleset``, and the seed's
"Association" rule (``linked_resources``, ``check_pairing``, ...).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from rules.core import MAX_POOL, RulesError, check_int, lookup

# --- the seed's fixed numbers --------------------------------------------------------------------

#: "roll two dice": the seed's dice are six-sided ("assume the dice rolled two 6s").
DIE_SIDES = 6
#: "roll two dice and add an attribute": two dice always count, whatever the difficulty.
COUNTED_DICE = 2
#: "If the check result is 15 or higher, the action succeeds."
SUCCESS_AT = 15
#: "If the check result is 20 or higher, the action is a critical success."
CRITICAL_SUCCESS_AT = 20
#: "If the check result is 10 or lower, the action is a critical failure."
CRITICAL_FAILURE_AT = 10

CRITICAL_FAILURE = "critical_failure"
FAILURE = "failure"
SUCCESS = "success"
CRITICAL_SUCCESS = "critical_success"
BANDS = (CRITICAL_FAILURE, FAILURE, SUCCESS, CRITICAL_SUCCESS)
_SUCCEEDING = frozenset({SUCCESS, CRITICAL_SUCCESS})

#: Sane bound for attribute values, costs, resources and penalties (never a hang, never junk).
MAX_NUMBER = 999

# Dice modes a difficulty may use.
AUTOMATIC_SUCCESS = "automatic_success"  # Trivial: "always succeed ... assume two 6s"
KEEP_HIGHEST = "keep_highest"  # Easy: "Roll three dice, and use the higher two"
ROLL = "roll"  # Normal: "roll two dice"
KEEP_LOWEST = "keep_lowest"  # Hard: "Roll three dice and use the lower two"
AUTOMATIC_FAILURE = "automatic_failure"  # Impossible: "always fail ... assume two 1s"
DICE_MODES = (AUTOMATIC_SUCCESS, KEEP_HIGHEST, ROLL, KEEP_LOWEST, AUTOMATIC_FAILURE)
_AUTOMATIC_FACE = {AUTOMATIC_SUCCESS: DIE_SIDES, AUTOMATIC_FAILURE: 1}
_KEEP_MODES = (KEEP_HIGHEST, KEEP_LOWEST)

# Where a penalty comes from.
UNPAID_COST = "unpaid_cost"  # "a penalty on the check equal to the unpaid cost"
HINDER = "hinder"  # "apply the result as a penalty ... against all targets"
RESIST = "resist"  # "... against only the resisting character"

# --- ruleset (RULES-NOTES "two_dice": the seed's names are missing, these are defaults) ----------

DEFAULT_RULESET: dict[str, Any] = {
    "attributes": ["Might", "Agility", "Wits", "Presence"],
    # Each resource lists its two linked attributes; each attribute then links to two resources.
    "resources": {
        "Health": ["Might", "Agility"],
        "Stamina": ["Agility", "Wits"],
        "Focus": ["Wits", "Presence"],
        "Resolve": ["Presence", "Might"],
    },
    # Costs and dice modes are the seed's; they sit here so a campaign may add or adjust them.
    # "rolled" is the number of dice thrown for the keep modes (two of them always count).
    "difficulties": {
        "Trivial": {"cost": 0, "dice": AUTOMATIC_SUCCESS},
        "Easy": {"cost": 1, "dice": KEEP_HIGHEST, "rolled": 3},
        "Normal": {"cost": 2, "dice": ROLL},
        "Hard": {"cost": 3, "dice": KEEP_LOWEST, "rolled": 3},
        "Impossible": {"cost": 4, "dice": AUTOMATIC_FAILURE},
    },
    # Not in the seed: how long the table has to hinder or resist a declared check (seed
    # "Reactions": "You can react once per round, to any event you are aware of") before it
    # rolls by itself, in seconds.
    "reaction_seconds": 30,
}
#: Bounds of the reaction window (seconds): long enough to click, short enough to play on.
REACTION_SECONDS_RANGE = (3, 600)

_RULESET_FIELDS = ("attributes", "resources", "difficulties", "reaction_seconds")
_DIFFICULTY_FIELDS = ("cost", "dice", "rolled")


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RulesError(f"{what} must be a non-empty name, not {value!r}.")
    return value.strip()


def _unique_names(values: Iterable[Any], what: str) -> list[str]:
    names: list[str] = []
    seen: set[str] = set()
    for value in values:
        name = _name(value, what)
        if name.casefold() in seen:
            raise RulesError(f"{what} {name!r} appears twice.")
        seen.add(name.casefold())
        names.append(name)
    return names


def _validate_difficulty(name: str, entry: Any) -> dict[str, Any]:
    where = f"ruleset.difficulties.{name}"
    if not isinstance(entry, Mapping):
        raise RulesError(f"{where} must be a mapping with 'cost' and 'dice'.")
    unknown = [key for key in entry if key not in _DIFFICULTY_FIELDS]
    if unknown:
        raise RulesError(f"{where} has unknown field(s) {unknown}; allowed: cost, dice, rolled.")
    if "cost" not in entry:
        raise RulesError(f"{where}.cost is missing.")
    cost = check_int(entry["cost"], f"{where}.cost", low=0, high=MAX_NUMBER)
    if "dice" not in entry:
        raise RulesError(f"{where}.dice is missing; choose one of: {', '.join(DICE_MODES)}.")
    mode = entry["dice"]
    if mode not in DICE_MODES:
        raise RulesError(f"{where}.dice is {mode!r}; choose one of: {', '.join(DICE_MODES)}.")
    if mode in _KEEP_MODES:
        rolled = check_int(
            entry.get("rolled", 3), f"{where}.rolled", low=COUNTED_DICE, high=MAX_POOL
        )
    else:
        # Normal rolls exactly the two dice that count; automatic modes roll none.
        rolled = COUNTED_DICE if mode == ROLL else 0
        if "rolled" in entry and entry["rolled"] != rolled:
            raise RulesError(
                f"{where}.rolled can only be {rolled} with dice {mode!r} "
                "(only keep_highest and keep_lowest roll extra dice)."
            )
    return {"cost": cost, "dice": mode, "rolled": rolled}


def _validate_resources(raw_resources: Any, attributes: list[str]) -> dict[str, list[str]]:
    """Each resource's two linked attributes; each attribute linked to two resources."""
    if not isinstance(raw_resources, Mapping) or not raw_resources:
        raise RulesError("ruleset.resources must map each resource to its two attributes.")
    resource_names = _unique_names(raw_resources.keys(), "ruleset.resources: resource")
    clash = {n.casefold() for n in resource_names} & {n.casefold() for n in attributes}
    if clash:
        raise RulesError(f"ruleset: {sorted(clash)} cannot be both an attribute and a resource.")
    resources: dict[str, list[str]] = {}
    for name, links in zip(resource_names, raw_resources.values(), strict=True):
        where = f"ruleset.resources.{name}"
        if isinstance(links, str) or not isinstance(links, list | tuple):
            raise RulesError(f"{where} must be a list of its two linked attributes.")
        linked = [lookup(_name(a, f"{where}: attribute"), attributes, "attribute") for a in links]
        if len(linked) != 2 or linked[0] == linked[1]:
            raise RulesError(
                f"{where} must link to exactly two different attributes (got {linked})."
            )
        resources[name] = linked
    for attribute in attributes:
        linked_to = [r for r, pair in resources.items() if attribute in pair]
        if len(linked_to) != 2:
            raise RulesError(
                f"ruleset: attribute {attribute} must link to exactly two resources "
                f"(it links to {linked_to or 'none'})."
            )
    return resources


def validate_ruleset(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge ``data`` over ``DEFAULT_RULESET``, check every field, return the full ruleset.

    Each top-level field given in ``data`` replaces the default one whole. The shape the seed
    asks for is enforced: "Each attribute links to two resources, each resource to two
    attributes" (RULES-NOTES "two_dice"). Names are matched case-insensitively everywhere.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise RulesError(f"The ruleset must be a mapping of fields, not {type(data).__name__}.")
    unknown = [key for key in data if key not in _RULESET_FIELDS]
    if unknown:
        raise RulesError(
            f"Unknown ruleset field(s) {unknown}; allowed: {', '.join(_RULESET_FIELDS)}."
        )
    merged = {**DEFAULT_RULESET, **data}

    raw_attributes = merged["attributes"]
    if isinstance(raw_attributes, str) or not isinstance(raw_attributes, list | tuple):
        raise RulesError("ruleset.attributes must be a list of attribute names.")
    attributes = _unique_names(raw_attributes, "ruleset.attributes: attribute")
    if not attributes:
        raise RulesError("ruleset.attributes must name at least one attribute.")

    resources = _validate_resources(merged["resources"], attributes)

    raw_difficulties = merged["difficulties"]
    if not isinstance(raw_difficulties, Mapping) or not raw_difficulties:
        raise RulesError("ruleset.difficulties must map each difficulty to its cost and dice.")
    difficulty_names = _unique_names(raw_difficulties.keys(), "ruleset.difficulties: difficulty")
    difficulties = {
        name: _validate_difficulty(name, entry)
        for name, entry in zip(difficulty_names, raw_difficulties.values(), strict=True)
    }
    low, high = REACTION_SECONDS_RANGE
    reaction_seconds = check_int(
        merged["reaction_seconds"], "ruleset.reaction_seconds", low=low, high=high
    )
    return {
        "attributes": attributes,
        "resources": resources,
        "difficulties": difficulties,
        "reaction_seconds": reaction_seconds,
    }


@cache
def _default_ruleset() -> dict[str, Any]:
    return validate_ruleset(None)


def _ruleset(ruleset: Mapping[str, Any] | None) -> dict[str, Any]:
    # The default is validated once; a campaign's ruleset is small, so it is re-checked each call.
    return _default_ruleset() if ruleset is None else validate_ruleset(ruleset)


def _difficulty(rules: Mapping[str, Any], difficulty: Any) -> tuple[str, dict[str, Any]]:
    name = lookup(difficulty, rules["difficulties"].keys(), "difficulty")
    return name, rules["difficulties"][name]


# --- association (the seed's "Association" paragraph) --------------------------------------------


def linked_resources(
    *, attribute: str, ruleset: Mapping[str, Any] | None = None
) -> tuple[str, ...]:
    """The two resources an attribute links to.

    Seed: "If the action is associated with an attribute ... the resource cost may be paid
    from either linked resource."
    """
    rules = _ruleset(ruleset)
    name = lookup(attribute, rules["attributes"], "attribute")
    return tuple(r for r, pair in rules["resources"].items() if name in pair)


def linked_attributes(
    *, resource: str, ruleset: Mapping[str, Any] | None = None
) -> tuple[str, ...]:
    """The two attributes a resource links to.

    Seed: "If an action is associated with a resource ... the check may be made using either
    linked attribute."
    """
    rules = _ruleset(ruleset)
    name = lookup(resource, rules["resources"].keys(), "resource")
    return tuple(rules["resources"][name])


def association_options(
    *,
    attribute: str | None = None,
    resource: str | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> tuple[tuple[str, str], ...]:
    """The (attribute, resource) pairs allowed for an action associated with one of them.

    Seed: "Each action is associated with an attribute or a resource": an attribute must make
    the check and either linked resource pays; a resource must pay and either linked attribute
    checks. Give exactly one of the two.
    """
    if (attribute is None) == (resource is None):
        raise RulesError("An action is associated with an attribute or a resource: give one.")
    if attribute is not None:
        rules = _ruleset(ruleset)
        name = lookup(attribute, rules["attributes"], "attribute")
        return tuple((name, r) for r in linked_resources(attribute=name, ruleset=rules))
    rules = _ruleset(ruleset)
    name = lookup(resource, rules["resources"].keys(), "resource")
    return tuple((a, name) for a in rules["resources"][name])


def check_pairing(
    *, attribute: str, resource: str, ruleset: Mapping[str, Any] | None = None
) -> tuple[str, str]:
    """Canonical ``(attribute, resource)`` if they are linked, else a clear ``RulesError``.

    Whichever of the two the action is associated with, the seed only ever pairs an attribute
    with one of its linked resources ("either linked resource" / "either linked attribute").
    """
    rules = _ruleset(ruleset)
    attribute_name = lookup(attribute, rules["attributes"], "attribute")
    resource_name = lookup(resource, rules["resources"].keys(), "resource")
    if attribute_name not in rules["resources"][resource_name]:
        pays = " or ".join(r for r, pair in rules["resources"].items() if attribute_name in pair)
        checks = " or ".join(rules["resources"][resource_name])
        raise RulesError(
            f"{attribute_name} is not linked to {resource_name}: a check with {attribute_name} "
            f"pays from {pays}, and a cost paid from {resource_name} is checked with {checks}."
        )
    return attribute_name, resource_name
