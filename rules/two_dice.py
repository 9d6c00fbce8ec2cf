"""two_dice (seed 003): 2d6 + attribute against 15, resource costs, hinder and resist.

The seed's core mechanic: "roll two dice and add an attribute. If the check result is 15 or
higher, the action succeeds"; 20 or higher is a critical success, 10 or lower a critical failure.
The difficulty sets the resource cost and how the two dice are found (RULES-NOTES "two_dice"):
Trivial (cost 0, always succeeds, dice count as 6+6), Easy (cost 1, roll three keep the higher
two), Normal (cost 2, roll two), Hard (cost 3, roll three keep the lower two), Impossible
(cost 4, always fails, dice count as 1+1).

Reading of the seed's "always succeed" / "always fail" (decided here, tested):
a Trivial check is never worse than a success, and it is a critical success when its assumed
total (12 + attribute - penalties) reaches 20; an Impossible check is never better than a
failure, and it is a critical failure when its assumed total (2 + attribute - penalties) is
10 or lower.

Public functions and values:

- ``DEFAULT_RULESET`` / ``validate_ruleset(data)``: attributes, resources with their two
  linked attributes, difficulties with their cost and dice mode (campaign data, editable).
- ``check_distribution(*, attribute, difficulty, penalty=0, ruleset=None)``: exact odds of each
  band (critical_failure, failure, success, critical_success).
- ``dice_distribution(*, difficulty, ruleset=None)``: exact odds of the two counted dice's sum.
- ``band_of(total)``: the band of a check result by the seed's thresholds alone.
- ``linked_resources(*, attribute)``, ``linked_attributes(*, resource)``,
  ``association_options(*, attribute=None, resource=None)``, ``check_pairing(...)``:
  the seed's "Association" rule.
- ``pay_cost(*, difficulty, resource, available, attribute=None)`` -> ``Payment``.
- ``check(*, attribute, attribute_value, difficulty, resource, resource_available,
  penalties=(), rng=None)`` -> ``CheckResult``: the roll function.
- ``declare_action(...)`` -> ``PendingAction``; ``PendingAction.add_hinder``,
  ``.add_resist``, ``.resolve``, ``.odds``: an action with targets that others oppose.
- Results: ``Payment``, ``Penalty``, ``CheckResult``, ``Opposition``, ``TargetOutcome``,
  ``ActionOutcome``, each with ``to_dict()`` and ``from_dict()``.

Turns, rounds, the one action per turn and the one reaction per round are kept by the
system-neutral ``rules.turns.TurnTracker``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

from rules.core import (
    MAX_POOL,
    Die,
    IllegalMoveError,
    Result,
    Rng,
    RulesError,
    UnknownNameError,
    check_int,
    lookup,
    resolve_rng,
    roll_dice,
    roll_die,
)

__all__ = [
    "BANDS",
    "DEFAULT_RULESET",
    "DICE_MODES",
    "ActionOutcome",
    "CheckResult",
    "Opposition",
    "Payment",
    "PendingAction",
    "Penalty",
    "TargetOutcome",
    "association_options",
    "band_of",
    "check",
    "check_distribution",
    "check_pairing",
    "declare_action",
    "dice_distribution",
    "linked_attributes",
    "linked_resources",
    "pay_cost",
    "validate_ruleset",
]

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
}

_RULESET_FIELDS = ("attributes", "resources", "difficulties")
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

    raw_resources = merged["resources"]
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

    raw_difficulties = merged["difficulties"]
    if not isinstance(raw_difficulties, Mapping) or not raw_difficulties:
        raise RulesError("ruleset.difficulties must map each difficulty to its cost and dice.")
    difficulty_names = _unique_names(raw_difficulties.keys(), "ruleset.difficulties: difficulty")
    difficulties = {
        name: _validate_difficulty(name, entry)
        for name, entry in zip(difficulty_names, raw_difficulties.values(), strict=True)
    }
    return {"attributes": attributes, "resources": resources, "difficulties": difficulties}


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


# --- results -------------------------------------------------------------------------------------


def _from_mapping(data: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise RulesError(f"Stored {what} must be a mapping, not {type(data).__name__}.")
    return data


def _get(data: Mapping[str, Any], key: str, what: str) -> Any:
    try:
        return data[key]
    except KeyError:
        raise RulesError(f"Stored {what} is missing its {key!r}.") from None


def _die_from_dict(data: Any) -> Die:
    data = _from_mapping(data, "die")
    return Die(
        sides=check_int(_get(data, "sides", "die"), "A die's sides", low=1),
        rolled=check_int(_get(data, "rolled", "die"), "A die's roll", low=1),
        value=check_int(_get(data, "value", "die"), "A die's value", low=1),
        kept=bool(data.get("kept", True)),
        exploded=bool(data.get("exploded", False)),
        bonus=check_int(data.get("bonus", 0), "A die's bonus"),
        source=data.get("source"),
    )


@dataclasses.dataclass(frozen=True)
class Penalty(Result):
    """One penalty on a check, with where it came from.

    ``source`` is ``unpaid_cost``, ``hinder``, ``resist`` or a name the GM gives (a wound, the
    dark...). ``by`` is the character who caused it (hinderer or resister); ``die`` the d6 that
    was rolled for it ("roll a die and apply the result as a penalty").
    """

    source: str
    amount: int
    by: str | None = None
    die: Die | None = None

    def __post_init__(self) -> None:
        _name(self.source, "A penalty's source")
        check_int(self.amount, f"The {self.source} penalty", low=0, high=MAX_NUMBER)

    @classmethod
    def from_dict(cls, data: Any) -> Penalty:
        data = _from_mapping(data, "penalty")
        die = data.get("die")
        return cls(
            source=_get(data, "source", "penalty"),
            amount=_get(data, "amount", "penalty"),
            by=data.get("by"),
            die=None if die is None else _die_from_dict(die),
        )


def _penalty(value: Any) -> Penalty:
    """A caller's penalty: a ``Penalty``, a ``{"source", "amount"}`` mapping or a pair."""
    if isinstance(value, Penalty):
        return value
    if isinstance(value, Mapping):
        return Penalty.from_dict(value)
    if isinstance(value, tuple | list) and len(value) == 2:
        return Penalty(source=value[0], amount=value[1])
    raise RulesError(f"A penalty must be given as (source, amount) or a Penalty, not {value!r}.")


def _penalties(values: Any) -> tuple[Penalty, ...]:
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise RulesError("Penalties must be a list of (source, amount) pairs.")
    return tuple(_penalty(v) for v in values)


@dataclasses.dataclass(frozen=True)
class Payment(Result):
    """A difficulty's resource cost paid from one resource.

    Seed: "You can do an action even if you can't afford its resource cost, but you suffer a
    penalty on the check equal to the unpaid cost." ``penalty`` equals ``unpaid``.
    """

    difficulty: str
    resource: str
    cost: int
    available: int
    paid: int
    unpaid: int
    remaining: int
    penalty: int

    @classmethod
    def from_dict(cls, data: Any) -> Payment:
        data = _from_mapping(data, "payment")
        return _payment(
            difficulty=_get(data, "difficulty", "payment"),
            resource=_get(data, "resource", "payment"),
            cost=_get(data, "cost", "payment"),
            available=_get(data, "available", "payment"),
        )


def _payment(*, difficulty: str, resource: str, cost: int, available: int) -> Payment:
    cost = check_int(cost, "The resource cost", low=0, high=MAX_NUMBER)
    available = check_int(available, f"Available {resource}", low=0, high=MAX_NUMBER)
    paid = min(cost, available)
    unpaid = cost - paid
    return Payment(
        difficulty=_name(difficulty, "The difficulty"),
        resource=_name(resource, "The resource"),
        cost=cost,
        available=available,
        paid=paid,
        unpaid=unpaid,
        remaining=available - paid,
        penalty=unpaid,
    )


def pay_cost(
    *,
    difficulty: str,
    resource: str,
    available: int,
    attribute: str | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> Payment:
    """Pay a difficulty's cost from ``available`` points of ``resource``.

    Seed: "Each action costs an amount of resources determined by the difficulty" (Trivial 0,
    Easy 1, Normal 2, Hard 3, Impossible 4); what cannot be paid becomes a penalty of the
    unpaid amount. With ``attribute`` the pair is checked too (seed "Association").
    """
    rules = _ruleset(ruleset)
    name, entry = _difficulty(rules, difficulty)
    if attribute is None:
        resource = lookup(resource, rules["resources"].keys(), "resource")
    else:
        _, resource = check_pairing(attribute=attribute, resource=resource, ruleset=rules)
    return _payment(difficulty=name, resource=resource, cost=entry["cost"], available=available)


def band_of(total: int) -> str:
    """The band of a check result by the seed's thresholds alone.

    Seed: "15 or higher, the action succeeds ... 20 or higher ... critical success ... 10 or
    lower ... critical failure"; 11 to 14 is a plain failure.
    """
    total = check_int(total, "The check result")
    if total >= CRITICAL_SUCCESS_AT:
        return CRITICAL_SUCCESS
    if total >= SUCCESS_AT:
        return SUCCESS
    if total <= CRITICAL_FAILURE_AT:
        return CRITICAL_FAILURE
    return FAILURE


def _band(total: int, mode: str) -> str:
    """Band of ``total`` for a dice mode: Trivial "always succeed", Impossible "always fail"."""
    natural = band_of(total)
    if mode == AUTOMATIC_SUCCESS and natural not in _SUCCEEDING:
        return SUCCESS
    if mode == AUTOMATIC_FAILURE and natural in _SUCCEEDING:
        return FAILURE
    return natural


@dataclasses.dataclass(frozen=True)
class CheckResult(Result):
    """A check as made: every die, the payment, every penalty with its source, total and band.

    ``dice`` holds every die thrown; for Easy/Hard the one not used has ``kept=False``. For
    Trivial/Impossible no die is thrown: ``dice`` are the two assumed 6s / 1s and ``assumed``
    is True. ``total = dice_total + attribute_value - penalty``.
    """

    attribute: str
    attribute_value: int
    difficulty: str
    dice_mode: str
    dice: tuple[Die, ...]
    assumed: bool
    payment: Payment
    penalties: tuple[Penalty, ...]
    dice_total: int
    penalty: int
    total: int
    band: str
    succeeded: bool

    @classmethod
    def from_dict(cls, data: Any) -> CheckResult:
        """Rebuild a stored check; totals and band are recomputed from its parts."""
        data = _from_mapping(data, "check")
        mode = _get(data, "dice_mode", "check")
        if mode not in DICE_MODES:
            raise RulesError(f"Stored check has an unknown dice mode {mode!r}.")
        dice = _get(data, "dice", "check")
        if not isinstance(dice, list | tuple):
            raise RulesError("Stored check's dice must be a list.")
        return _assemble(
            attribute=_get(data, "attribute", "check"),
            attribute_value=_get(data, "attribute_value", "check"),
            difficulty=_get(data, "difficulty", "check"),
            mode=mode,
            dice=tuple(_die_from_dict(d) for d in dice),
            assumed=bool(_get(data, "assumed", "check")),
            payment=Payment.from_dict(_get(data, "payment", "check")),
            penalties=_penalties(_get(data, "penalties", "check")),
        )

    def with_penalties(self, extra: Iterable[Penalty]) -> CheckResult:
        """The same dice with more penalties (a hinder or resist applied to this result)."""
        return _assemble(
            attribute=self.attribute,
            attribute_value=self.attribute_value,
            difficulty=self.difficulty,
            mode=self.dice_mode,
            dice=self.dice,
            assumed=self.assumed,
            payment=self.payment,
            penalties=self.penalties + tuple(extra),
        )


def _assemble(
    *,
    attribute: str,
    attribute_value: int,
    difficulty: str,
    mode: str,
    dice: tuple[Die, ...],
    assumed: bool,
    payment: Payment,
    penalties: tuple[Penalty, ...],
) -> CheckResult:
    attribute_value = check_int(
        attribute_value, f"{attribute}'s value", low=-MAX_NUMBER, high=MAX_NUMBER
    )
    kept = [d.value for d in dice if d.kept]
    if len(kept) != COUNTED_DICE:
        raise RulesError(f"A check counts exactly two dice, not {len(kept)}.")
    dice_total = sum(kept)
    penalty = sum(p.amount for p in penalties)
    total = dice_total + attribute_value - penalty
    band = _band(total, mode)
    return CheckResult(
        attribute=_name(attribute, "The attribute"),
        attribute_value=attribute_value,
        difficulty=_name(difficulty, "The difficulty"),
        dice_mode=mode,
        dice=dice,
        assumed=assumed,
        payment=payment,
        penalties=penalties,
        dice_total=dice_total,
        penalty=penalty,
        total=total,
        band=band,
        succeeded=band in _SUCCEEDING,
    )


def _roll_dice(mode: str, rolled: int, rng: Rng) -> tuple[tuple[Die, ...], bool]:
    """Throw (or assume) the dice for a dice mode; returns (dice, assumed)."""
    if mode in _AUTOMATIC_FACE:
        face = _AUTOMATIC_FACE[mode]
        assumed = Die(sides=DIE_SIDES, rolled=face, value=face)
        return (assumed, assumed), True
    values = roll_dice(rolled, DIE_SIDES, rng)
    order = range(len(values))
    if mode == KEEP_HIGHEST:
        # Ties: the die rolled first is kept, so the dropped die is always the later one.
        ranked = sorted(order, key=lambda i: (-values[i], i))
    elif mode == KEEP_LOWEST:
        ranked = sorted(order, key=lambda i: (values[i], i))
    else:
        ranked = list(order)
    kept = set(ranked[:COUNTED_DICE])
    dice = tuple(
        Die(sides=DIE_SIDES, rolled=v, value=v, kept=i in kept) for i, v in enumerate(values)
    )
    return dice, False


def check(
    *,
    attribute: str,
    attribute_value: int,
    difficulty: str,
    resource: str,
    resource_available: int,
    penalties: Iterable[Any] = (),
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> CheckResult:
    """Make a check: pay the cost from ``resource``, roll the difficulty's dice, add the attribute.

    Seed "Making Checks": "roll two dice and add an attribute"; the difficulty picks how the
    two dice are found and what the action costs; the unpaid cost and every other penalty
    (``penalties``: ``(source, amount)`` pairs or ``Penalty``) are subtracted. The attribute
    and resource must be linked (seed "Association").
    """
    rules = _ruleset(ruleset)
    attribute, resource = check_pairing(attribute=attribute, resource=resource, ruleset=rules)
    name, entry = _difficulty(rules, difficulty)
    check_int(attribute_value, f"{attribute}'s value", low=-MAX_NUMBER, high=MAX_NUMBER)
    extra = _penalties(penalties)
    payment = _payment(
        difficulty=name, resource=resource, cost=entry["cost"], available=resource_available
    )
    rng = resolve_rng(rng)
    dice, assumed = _roll_dice(entry["dice"], entry["rolled"], rng)
    return _assemble(
        attribute=attribute,
        attribute_value=attribute_value,
        difficulty=name,
        mode=entry["dice"],
        dice=dice,
        assumed=assumed,
        payment=payment,
        penalties=_unpaid(payment) + extra,
    )


def _unpaid(payment: Payment) -> tuple[Penalty, ...]:
    if not payment.unpaid:
        return ()
    return (Penalty(source=UNPAID_COST, amount=payment.unpaid, by=payment.resource),)


# --- exact odds ----------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _kept_sum_counts(mode: str, rolled: int) -> tuple[tuple[int, int], ...]:
    """Ways (out of 6**rolled) for each sum of the two counted dice, by a top-two state DP."""
    if mode in _AUTOMATIC_FACE:
        return ((COUNTED_DICE * _AUTOMATIC_FACE[mode], 1),)
    # Keep lowest is keep highest on mirrored faces (7 - x), so one DP serves both.
    mirror = mode == KEEP_LOWEST
    states: dict[tuple[int, int], int] = {(0, 0): 1}  # (best, second best); 0 = none yet
    for _ in range(rolled):
        nxt: dict[tuple[int, int], int] = {}
        for (best, second), ways in states.items():
            for face in range(1, DIE_SIDES + 1):
                if face > best:
                    key = (face, best)
                elif face > second:
                    key = (best, face)
                else:
                    key = (best, second)
                nxt[key] = nxt.get(key, 0) + ways
        states = nxt
    sums: dict[int, int] = {}
    for (best, second), ways in states.items():
        total = best + second
        if mirror:
            total = COUNTED_DICE * (DIE_SIDES + 1) - total
        sums[total] = sums.get(total, 0) + ways
    return tuple(sorted(sums.items()))


def _dice_dist(mode: str, rolled: int) -> dict[int, Fraction]:
    counts = _kept_sum_counts(mode, rolled)
    whole = sum(ways for _, ways in counts)
    return {total: Fraction(ways, whole) for total, ways in counts}


def dice_distribution(
    *, difficulty: str, ruleset: Mapping[str, Any] | None = None
) -> dict[int, Fraction]:
    """Exact odds of the sum of the two dice that count, for a difficulty.

    Seed: Easy "Roll three dice, and use the higher two", Normal two dice, Hard "use the lower
    two"; Trivial is always 12 ("two 6s") and Impossible always 2 ("two 1s").
    """
    _, entry = _difficulty(_ruleset(ruleset), difficulty)
    return _dice_dist(entry["dice"], entry["rolled"])


def _band_distribution(
    mode: str, rolled: int, attribute_value: int, penalty: int
) -> dict[str, Fraction]:
    out = dict.fromkeys(BANDS, Fraction(0))
    for dice_total, p in _dice_dist(mode, rolled).items():
        out[_band(dice_total + attribute_value - penalty, mode)] += p
    return out


def check_distribution(
    *,
    attribute: int,
    difficulty: str,
    penalty: int = 0,
    ruleset: Mapping[str, Any] | None = None,
) -> dict[str, Fraction]:
    """Exact odds of each band for a check: 2d6 (per difficulty) + ``attribute`` - ``penalty``.

    ``attribute`` is the attribute's value; ``penalty`` the sum of all penalties (unpaid cost,
    hinders, resists). Keys: critical_failure, failure, success, critical_success (seed
    "Making Checks"; Trivial/Impossible as in the module docstring).
    """
    _, entry = _difficulty(_ruleset(ruleset), difficulty)
    attribute = check_int(attribute, "The attribute value", low=-MAX_NUMBER, high=MAX_NUMBER)
    penalty = check_int(penalty, "The penalty", low=0, high=MAX_NUMBER)
    return _band_distribution(entry["dice"], entry["rolled"], attribute, penalty)


# --- opposition: hinder and resist ---------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Opposition(Result):
    """A hinder or resist reaction against a pending action.

    Seed "Opposing": only when the reacting character's own check succeeds is a die rolled
    and its result applied as a penalty; ``penalty`` is None when the reaction failed.
    """

    kind: str
    reactor: str
    reaction: CheckResult
    penalty: Penalty | None

    @classmethod
    def from_dict(cls, data: Any) -> Opposition:
        data = _from_mapping(data, "opposition")
        kind = _get(data, "kind", "opposition")
        if kind not in (HINDER, RESIST):
            raise RulesError(f"Stored opposition kind must be hinder or resist, not {kind!r}.")
        penalty = data.get("penalty")
        return cls(
            kind=kind,
            reactor=_name(_get(data, "reactor", "opposition"), "The reacting character"),
            reaction=CheckResult.from_dict(_get(data, "reaction", "opposition")),
            penalty=None if penalty is None else Penalty.from_dict(penalty),
        )


@dataclasses.dataclass(frozen=True)
class TargetOutcome(Result):
    """How the action turned out against one target: the action's dice and penalties plus
    that target's own resist penalty ("against only the resisting character")."""

    target: str
    penalties: tuple[Penalty, ...]
    penalty: int
    total: int
    band: str
    succeeded: bool


@dataclasses.dataclass(frozen=True)
class ActionOutcome(Result):
    """A resolved action: ``check`` carries every penalty that applies to all targets
    (unpaid cost, the GM's penalties, every hinder); ``targets`` adds each one's resist."""

    actor: str
    check: CheckResult
    targets: tuple[TargetOutcome, ...]

    @classmethod
    def from_dict(cls, data: Any) -> ActionOutcome:
        data = _from_mapping(data, "outcome")
        result = CheckResult.from_dict(_get(data, "check", "outcome"))
        targets = _get(data, "targets", "outcome")
        if not isinstance(targets, list | tuple):
            raise RulesError("Stored outcome's targets must be a list.")
        rebuilt = []
        for target in targets:
            target = _from_mapping(target, "target outcome")
            rebuilt.append(
                _target_outcome(
                    result,
                    _name(_get(target, "target", "target outcome"), "A target"),
                    _penalties(_get(target, "penalties", "target outcome"))[
                        len(result.penalties) :
                    ],
                )
            )
        return cls(
            actor=_name(_get(data, "actor", "outcome"), "The acting character"),
            check=result,
            targets=tuple(rebuilt),
        )


def _target_outcome(result: CheckResult, target: str, own: tuple[Penalty, ...]) -> TargetOutcome:
    against = result.with_penalties(own)
    return TargetOutcome(
        target=target,
        penalties=against.penalties,
        penalty=against.penalty,
        total=against.total,
        band=against.band,
        succeeded=against.succeeded,
    )


def _reactor(value: Any) -> str:
    return _name(value, "The reacting character")


@dataclasses.dataclass(frozen=True)
class PendingAction(Result):
    """An action declared and not yet resolved, collecting hinders and resists.

    Made by ``declare_action``; the cost is paid at declaration (``payment``). Every move
    returns a new ``PendingAction`` and a result: ``add_hinder`` / ``add_resist`` give the
    ``Opposition``, ``resolve`` the ``ActionOutcome`` (kept in ``outcome`` afterwards).
    """

    actor: str
    targets: tuple[str, ...]
    attribute: str
    attribute_value: int
    difficulty: str
    dice_mode: str
    rolled: int
    payment: Payment
    penalties: tuple[Penalty, ...] = ()
    oppositions: tuple[Opposition, ...] = ()
    outcome: ActionOutcome | None = None

    # -- queries

    def hinder_penalties(self) -> tuple[Penalty, ...]:
        """Penalties every target shares: each successful hinder (seed: "against all targets")."""
        return tuple(o.penalty for o in self.oppositions if o.kind == HINDER and o.penalty)

    def resist_penalties(self, target: str) -> tuple[Penalty, ...]:
        """``target``'s own resist penalty ("against only the resisting character")."""
        return tuple(
            o.penalty
            for o in self.oppositions
            if o.kind == RESIST and o.penalty and o.reactor == target
        )

    def known_penalty(self, target: str | None = None) -> int:
        """Sum of the penalties known so far against ``target`` (None: against the action).

        Seed "Opposition Stacking": hinders always stack, and a resist stacks with them.
        """
        penalties = _unpaid(self.payment) + self.penalties + self.hinder_penalties()
        if target is not None:
            penalties += self.resist_penalties(self._target(target))
        return sum(p.amount for p in penalties)

    def odds(self, target: str | None = None) -> dict[str, Fraction]:
        """Exact odds of each band against ``target`` given the penalties known now."""
        return _band_distribution(
            self.dice_mode, self.rolled, self.attribute_value, self.known_penalty(target)
        )

    def _target(self, target: Any) -> str:
        if target not in self.targets:
            raise UnknownNameError(
                f"{target!r} is not a target of {self.actor}'s action; targets: "
                f"{', '.join(self.targets) or 'none'}."
            )
        return target

    # -- moves

    def _oppose(self, kind: str, reactor: Any, reaction: Any, rng: Rng | None) -> Any:
        if self.outcome is not None:
            raise IllegalMoveError(f"{self.actor}'s action is already resolved.")
        reactor = _reactor(reactor)
        if reactor == self.actor:
            raise IllegalMoveError(f"{reactor} cannot {kind} their own action.")
        if any(o.reactor == reactor for o in self.oppositions):
            raise IllegalMoveError(
                f"{reactor} has already reacted to this action (one reaction per round)."
            )
        if kind == RESIST and reactor not in self.targets:
            raise IllegalMoveError(
                f"{reactor} is not a target of this action, so cannot resist it "
                "(a resist only protects the resisting character); hinder it instead."
            )
        if not isinstance(reaction, CheckResult):
            raise RulesError(f"The {kind} needs the reacting character's check result.")
        penalty = None
        if reaction.succeeded:
            rng = resolve_rng(rng)
            face = roll_die(DIE_SIDES, rng)
            penalty = Penalty(
                source=kind,
                amount=face,
                by=reactor,
                die=Die(sides=DIE_SIDES, rolled=face, value=face),
            )
        opposition = Opposition(kind=kind, reactor=reactor, reaction=reaction, penalty=penalty)
        return dataclasses.replace(self, oppositions=self.oppositions + (opposition,)), opposition

    def add_hinder(
        self, reactor: str, reaction: CheckResult, *, rng: Rng | None = None
    ) -> tuple[PendingAction, Opposition]:
        """``reactor`` hinders the action with its own (already made) check ``reaction``.

        Seed "Hinder": "If the hindering character succeeds, roll a die and apply the result as
        a penalty to the hindered action check result against all targets of the action."
        """
        return self._oppose(HINDER, reactor, reaction, rng)

    def add_resist(
        self, reactor: str, reaction: CheckResult, *, rng: Rng | None = None
    ) -> tuple[PendingAction, Opposition]:
        """Target ``reactor`` resists the action with its own check ``reaction``.

        Seed "Resist": "If the resisting character succeeds, roll a die and apply the result as
        a penalty to the resisted action check result against only the resisting character."
        """
        return self._oppose(RESIST, reactor, reaction, rng)

    def resolve(self, *, rng: Rng | None = None) -> tuple[PendingAction, ActionOutcome]:
        """Roll the action's dice once and read the result against each target.

        The same dice serve every target; each target's total subtracts the shared penalties
        (unpaid cost, the GM's, every hinder) and that target's own resist.
        """
        if self.outcome is not None:
            raise IllegalMoveError(f"{self.actor}'s action is already resolved.")
        rng = resolve_rng(rng)
        dice, assumed = _roll_dice(self.dice_mode, self.rolled, rng)
        shared = _assemble(
            attribute=self.attribute,
            attribute_value=self.attribute_value,
            difficulty=self.difficulty,
            mode=self.dice_mode,
            dice=dice,
            assumed=assumed,
            payment=self.payment,
            penalties=_unpaid(self.payment) + self.penalties + self.hinder_penalties(),
        )
        targets = tuple(
            _target_outcome(shared, target, self.resist_penalties(target))
            for target in self.targets
        )
        outcome = ActionOutcome(actor=self.actor, check=shared, targets=targets)
        return dataclasses.replace(self, outcome=outcome), outcome

    # -- storage

    @classmethod
    def from_dict(cls, data: Any) -> PendingAction:
        """Rebuild a stored pending action (the web layer keeps it as JSON between requests)."""
        data = _from_mapping(data, "pending action")
        what = "pending action"
        mode = _get(data, "dice_mode", what)
        if mode not in DICE_MODES:
            raise RulesError(f"Stored pending action has an unknown dice mode {mode!r}.")
        targets = _get(data, "targets", what)
        oppositions = _get(data, "oppositions", what)
        if not isinstance(targets, list | tuple) or not isinstance(oppositions, list | tuple):
            raise RulesError("Stored pending action's targets and oppositions must be lists.")
        outcome = data.get("outcome")
        return _pending(
            actor=_get(data, "actor", what),
            targets=targets,
            attribute=_get(data, "attribute", what),
            attribute_value=_get(data, "attribute_value", what),
            difficulty=_get(data, "difficulty", what),
            mode=mode,
            rolled=check_int(_get(data, "rolled", what), "Rolled dice", low=0, high=MAX_POOL),
            payment=Payment.from_dict(_get(data, "payment", what)),
            penalties=_penalties(_get(data, "penalties", what)),
            oppositions=tuple(Opposition.from_dict(o) for o in oppositions),
            outcome=None if outcome is None else ActionOutcome.from_dict(outcome),
        )


def _pending(
    *,
    actor: Any,
    targets: Any,
    attribute: Any,
    attribute_value: Any,
    difficulty: Any,
    mode: str,
    rolled: int,
    payment: Payment,
    penalties: tuple[Penalty, ...],
    oppositions: tuple[Opposition, ...] = (),
    outcome: ActionOutcome | None = None,
) -> PendingAction:
    actor = _name(actor, "The acting character")
    if isinstance(targets, str) or not isinstance(targets, Iterable):
        raise RulesError("The targets must be a list of characters.")
    names = [_name(t, "A target") for t in targets]
    if len(set(names)) != len(names):
        raise RulesError(f"A target is listed twice in {names}.")
    return PendingAction(
        actor=actor,
        targets=tuple(names),
        attribute=_name(attribute, "The attribute"),
        attribute_value=check_int(
            attribute_value, f"{attribute}'s value", low=-MAX_NUMBER, high=MAX_NUMBER
        ),
        difficulty=_name(difficulty, "The difficulty"),
        dice_mode=mode,
        rolled=rolled,
        payment=payment,
        penalties=penalties,
        oppositions=oppositions,
        outcome=outcome,
    )


def declare_action(
    *,
    actor: str,
    targets: Iterable[str] = (),
    attribute: str,
    attribute_value: int,
    difficulty: str,
    resource: str,
    resource_available: int,
    penalties: Iterable[Any] = (),
    ruleset: Mapping[str, Any] | None = None,
) -> PendingAction:
    """Declare an action others may oppose; the cost is paid now from ``resource``.

    Seed "Opposing": other characters may hinder (or, as targets, resist) it with their
    reaction before it is resolved. The difficulty's cost and dice are fixed at declaration,
    so a later change to the campaign's ruleset does not alter an action in flight.
    """
    rules = _ruleset(ruleset)
    attribute, resource = check_pairing(attribute=attribute, resource=resource, ruleset=rules)
    name, entry = _difficulty(rules, difficulty)
    payment = _payment(
        difficulty=name, resource=resource, cost=entry["cost"], available=resource_available
    )
    return _pending(
        actor=actor,
        targets=targets,
        attribute=attribute,
        attribute_value=attribute_value,
        difficulty=name,
        mode=entry["dice"],
        rolled=entry["rolled"],
        payment=payment,
        penalties=_penalties(penalties),
    )
