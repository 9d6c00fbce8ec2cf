"""Annulus operation challenges (seed 000): a chain of d12s where every neighbour differs by 1.

The seed: "the GM rolls six of 12-sided dice and places them in a line"; "the goal ... is to make
it so every die in the challenge is exactly one number different from every die it neighbors".
Gaps in the seed are filled as RULES-NOTES.md ("annulus") says; its defaults live in
``DEFAULT_RULESET`` so the GM can change them per campaign.

Positions: a ``Challenge`` numbers its dice 0..length-1 over the WHOLE chain, hidden dice included
(the GM's numbering, stable across reveals). Players see only the visible dice, in order, with no
placeholder; ``Challenge.position_of(visible_index)`` turns the index of a die a player clicked
into the chain position the move functions take. Results have a ``player_view()`` that never
names a chain position (which would leak where the hidden dice are).

Public functions
- ``is_solved(values)``: every adjacent pair differs by exactly 1 (0 or 1 die: solved).
- ``min_adjustments(values, jammed=())``: fewest +-1 adjustments that solve a chain, or None.
- ``jams_allow_solution(length, jammed_values)``: the RULES-NOTES pairwise failure test.
- ``check_probability(*, dice, needed, sides=6, target=4)``: P(at least ``needed`` successes).
- ``successes_distribution(*, dice, sides=6, target=4)``: exact distribution of successes.
- ``op_check_probability(*, difficulty, perk_dice=0, ruleset=None)``: the adjustment op check.
- ``challenge_check_probability(*, difficulty, perk_dice=0, ruleset=None)``: a 3-die check.
- ``toolkit_check_probability(*, ability, difficulty, perk_dice=0, ruleset=None)``.
- ``hidden_count_distribution(*, length=None, ruleset=None)``: how many dice start hidden.
- ``validate_ruleset(data)`` / ``DEFAULT_RULESET``; ``difficulty_needed``; ``training_dice``;
  ``toolkit_abilities``.
- Roll functions (dice from the keyword-only ``rng``): ``roll_check`` (any pool),
  ``op_check`` (the adjustment's four-die check), ``challenge_check`` (three dice),
  ``toolkit_check``, ``setup_challenge``.
- Moves (each returns ``(new Challenge, result)``): ``adjust`` / ``apply_adjustment`` (with an
  already rolled op check), ``reveal``, ``use_toolkit`` / ``apply_toolkit``.

Results: ``CheckResult``, ``AdjustResult``, ``RevealResult``, ``ToolkitResult`` (frozen, every die
kept, ``to_dict()``); the challenge itself is the immutable ``Challenge`` with
``to_dict()`` / ``from_dict()``, ``player_view()`` and ``gm_view()``.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
from collections.abc import Collection, Iterable, Mapping
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

from rules.core import (
    MAX_POOL,
    MAX_SIDES,
    Die,
    Dist,
    IllegalMoveError,
    OutOfRangeError,
    Result,
    Rng,
    RulesError,
    binomial,
    check_int,
    check_pool,
    lookup,
    resolve_rng,
    roll_dice,
    roll_die,
)

#: "12-sided dice" (seed): the faces of every die in the chain.
FACES = 12
#: RULES-NOTES: "The chain length (6) is the seed's default; the GM may choose 1 to 12."
MIN_LENGTH = 1
MAX_LENGTH = 12
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


# --- the chain --------------------------------------------------------------------------------


def _check_values(values: Any, what: str = "The chain") -> tuple[int, ...]:
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise RulesError(f"{what} must be a list of die numbers from 1 to {FACES}.")
    out = tuple(values)
    for value in out:
        check_int(value, "A die in the chain", low=1, high=FACES)
    return out


def is_solved(values: Iterable[int]) -> bool:
    """Seed: "every die in the challenge is exactly one number different from every die it
    neighbors"; "only one die ... automatically considered solved". An empty chain is solved.
    """
    chain = _check_values(values)
    return all(abs(a - b) == 1 for a, b in zip(chain, chain[1:], strict=False))


def _jammed_indices(jammed: Any, length: int) -> frozenset[int]:
    """Accept a collection of indices or a list of bools (one per die)."""
    if jammed is None:
        return frozenset()
    if isinstance(jammed, str | bytes | Mapping) or not isinstance(jammed, Iterable):
        raise RulesError("Jammed dice must be a list of positions or a list of true/false flags.")
    items = list(jammed)
    if items and all(isinstance(x, bool) for x in items):
        if len(items) != length:
            raise RulesError(
                f"A list of jammed flags needs one per die ({length}), not {len(items)}."
            )
        return frozenset(i for i, flag in enumerate(items) if flag)
    for i in items:
        check_int(i, "A jammed die's position", low=0, high=length - 1)
    return frozenset(items)


_INF = float("inf")


def min_adjustments(
    values: Iterable[int], jammed: Collection[int] | Collection[bool] | None = ()
) -> int | None:
    """Fewest +-1 adjustments that solve the chain, or None when the jammed dice forbid it.

    RULES-NOTES "GM help": a dynamic programme over positions x values 1..12. Moving an unjammed
    die from v to w costs |v - w| adjustments ("change one of the dice to a number 1 higher or
    lower"); a jammed die "cannot be manipulated any further in any way".
    ``jammed``: positions, or a list of bools with one flag per die.
    """
    chain = _check_values(values)
    stuck = _jammed_indices(jammed, len(chain))
    if not chain:
        return 0
    faces = range(1, FACES + 1)

    def cost(i: int, w: int) -> float:
        if i in stuck:
            return 0 if w == chain[i] else _INF
        return abs(chain[i] - w)

    best = [_INF] + [cost(0, w) for w in faces] + [_INF]  # padded: index w holds value w
    for i in range(1, len(chain)):
        best = [_INF] + [min(best[w - 1], best[w + 1]) + cost(i, w) for w in faces] + [_INF]
    answer = min(best)
    return None if answer == _INF else int(answer)


def jams_allow_solution(length: int, jammed_values: Mapping[int, int]) -> bool:
    """RULES-NOTES "Failure": between jammed dice at i < j with values a, b a solution exists iff
    |a - b| <= j - i and (j - i - |a - b|) is even; every other die is free. Positions are in
    the chain being judged: for a challenge, the visible chain (hidden positions left out).
    """
    check_int(length, "The chain length", low=0, high=MAX_LENGTH)
    if not isinstance(jammed_values, Mapping):
        raise RulesError("Jammed dice must map a position to its number.")
    stuck = sorted(jammed_values.items())
    for pos, value in stuck:
        check_int(pos, "A jammed die's position", low=0, high=max(length - 1, 0))
        check_int(value, "A jammed die", low=1, high=FACES)
    # Consecutive pairs suffice: a path through each gap chains into one through all.
    for (i, a), (j, b) in zip(stuck, stuck[1:], strict=False):
        gap, diff = j - i, abs(a - b)
        if diff > gap or (gap - diff) % 2:
            return False
    return True


# --- checks -------------------------------------------------------------------------------------


def _check_check_args(dice: Any, needed: Any, sides: Any, target: Any) -> None:
    check_pool(dice)
    check_int(needed, "The successes needed", low=0)
    check_int(sides, "A check die's number of sides", low=1, high=MAX_SIDES)
    check_int(target, "The number a check die must reach", low=1, high=sides)


@lru_cache(maxsize=4096)
def _successes(dice: int, sides: int, target: int) -> tuple[tuple[int, Fraction], ...]:
    # Binomial in whole numbers: C(n, k) * hits^k * misses^(n - k) ways out of sides^n.
    hits, misses = sides - target + 1, target - 1
    total = sides**dice
    return tuple(
        (k, Fraction(comb(dice, k) * hits**k * misses ** (dice - k), total))
        for k in range(dice + 1)
        if (hits or k == 0) and (misses or k == dice)
    )


def successes_distribution(*, dice: int, sides: int = 6, target: int = 4) -> Dist:
    """Exact distribution of successes: RULES-NOTES "each die at or above a target is one
    success" (default d6, 4+)."""
    _check_check_args(dice, 0, sides, target)
    return dict(_successes(dice, sides, target))


@lru_cache(maxsize=4096)
def _at_least(dice: int, needed: int, sides: int, target: int) -> Fraction:
    return sum((p for k, p in _successes(dice, sides, target) if k >= needed), Fraction(0))


def check_probability(*, dice: int, needed: int, sides: int = 6, target: int = 4) -> Fraction:
    """P(at least ``needed`` of ``dice`` dice show ``target`` or more).

    RULES-NOTES "Checks": "the check passes with at least as many successes as the difficulty
    needs"; exact, by the binomial convolution.
    """
    _check_check_args(dice, needed, sides, target)
    return _at_least(dice, needed, sides, target)


def _clear_caches() -> None:
    """Forget cached odds (the benchmarks time uncached answers)."""
    _successes.cache_clear()
    _at_least.cache_clear()


@dataclasses.dataclass(frozen=True)
class CheckResult(Result):
    """A check as rolled: every die, how many succeeded and whether it passed.

    ``kind``: "op_check" (the adjustment's check), "challenge_check", "toolkit_check" or "check".
    """

    kind: str
    dice: tuple[Die, ...]
    sides: int
    target: int
    needed: int
    base_dice: int
    perk_dice: int
    successes: int
    passed: bool

    def player_view(self) -> dict[str, Any]:
        return self.to_dict()


def roll_check(
    *,
    dice: int,
    needed: int,
    sides: int = 6,
    target: int = 4,
    perk_dice: int = 0,
    kind: str = "check",
    rng: Rng | None = None,
) -> CheckResult:
    """Roll ``dice`` + ``perk_dice`` dice; each at or above ``target`` is a success.

    RULES-NOTES "Checks": "a pool of dice, each die at or above a target is one success; the
    check passes with at least as many successes as the difficulty needs".
    """
    rng = resolve_rng(rng)
    check_pool(dice, "The check's base dice")
    check_pool(perk_dice, "The training-perk dice")
    total = check_pool(dice + perk_dice, "The check's pool (base dice plus training perks)")
    _check_check_args(total, needed, sides, target)
    faces = roll_dice(total, sides, rng)
    rolled = tuple(Die(sides=sides, rolled=f, value=f) for f in faces)
    successes = sum(1 for f in faces if f >= target)
    return CheckResult(
        kind=kind,
        dice=rolled,
        sides=sides,
        target=target,
        needed=needed,
        base_dice=dice,
        perk_dice=perk_dice,
        successes=successes,
        passed=successes >= needed,
    )


def op_check_probability(
    *, difficulty: str, perk_dice: int = 0, ruleset: Mapping[str, Any] | None = None
) -> Fraction:
    """Chance the adjustment's op check passes: seed "a four-die check that requires a number of
    successes dependent on the difficulty of the challenge" (+ training-perk dice)."""
    rules = _ruleset(ruleset)
    return _pool_probability(rules, rules["op_check_dice"], perk_dice, _needed(rules, difficulty))


def challenge_check_probability(
    *, difficulty: str, perk_dice: int = 0, ruleset: Mapping[str, Any] | None = None
) -> Fraction:
    """Chance a challenge check passes: seed "all checks made in every challenge are made with
    three dice" (+ training-perk dice)."""
    rules = _ruleset(ruleset)
    return _pool_probability(
        rules,
        rules["challenge_check_dice"],
        perk_dice,
        _needed(rules, difficulty),
    )


def _pool_probability(rules: Mapping[str, Any], base: int, perk_dice: int, needed: int) -> Fraction:
    check_pool(perk_dice, "The training-perk dice")
    total = check_pool(base + perk_dice, "The check's pool (base dice plus training perks)")
    return check_probability(
        dice=total, needed=needed, sides=rules["check_die_sides"], target=rules["check_target"]
    )


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


def toolkit_check_probability(
    *,
    ability: str,
    difficulty: str,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
) -> Fraction:
    """Chance a toolkit ability's check passes (seed: "Toolkit abilities require a check to
    use"): the ability's dice (default the challenge check's three) + training-perk dice, needing
    the difficulty's successes unless the ability says otherwise."""
    rules = _ruleset(ruleset)
    tool = _find_ability(ability, rules)
    needed = tool.check_needed(_needed(rules, difficulty))
    return _pool_probability(rules, tool.check_dice(rules), perk_dice, needed)


# --- the challenge ------------------------------------------------------------------------------


class ChallengeStatus(enum.StrEnum):
    IN_PROGRESS = "in_progress"
    SOLVED = "solved"
    FAILED = "failed"


def _index_tuple(value: Any, what: str, length: int) -> tuple[int, ...]:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise RulesError(f"{what} must be a list of positions.")
    items = list(value)
    for i in items:
        check_int(i, f"A position in {what.lower()}", low=0, high=length - 1)
    if len(set(items)) != len(items):
        raise RulesError(f"{what} names a position twice.")
    return tuple(sorted(items))


def _name_tuple(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise RulesError(f"{what} must be a list of names.")
    items = tuple(value)
    for name in items:
        if not isinstance(name, str) or not name.strip():
            raise RulesError(f"{what} holds {name!r}, which is not a name.")
    if len({n.casefold() for n in items}) != len(items):
        raise RulesError(f"{what} names the same thing twice.")
    return items


@dataclasses.dataclass(frozen=True)
class Challenge(Result):
    """An operation challenge: an immutable value; every move returns a new one.

    ``values`` holds every die of the chain, the hidden ones too (RULES-NOTES: "rolled at setup
    too, stored server-side, shown to the GM only"); ``hidden`` and ``jammed`` are chain
    positions. ``needed`` is fixed when the GM announces the difficulty. ``mask`` is the secret
    d6 row as rolled (None for a challenge laid out by hand); ``origin_values`` and
    ``origin_hidden`` keep the layout as set up, the secret the web layer commits to.
    """

    difficulty: str
    needed: int
    types: tuple[str, ...]
    values: tuple[int, ...]
    hidden: tuple[int, ...] = ()
    jammed: tuple[int, ...] = ()
    unavailable_abilities: tuple[str, ...] = ()
    mask: tuple[int, ...] | None = None
    origin_values: tuple[int, ...] | None = None
    origin_hidden: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        if not isinstance(self.difficulty, str) or not self.difficulty.strip():
            raise RulesError(f"A challenge's difficulty must be a name, not {self.difficulty!r}.")
        check_int(self.needed, "The successes a challenge needs", low=0)
        types = (self.types,) if isinstance(self.types, str) else self.types
        put("types", _name_tuple(types, "The challenge's types"))
        if not 1 <= len(self.types) <= 2:
            raise RulesError(f"A challenge has one or two types, not {len(self.types)}.")
        values = _check_values(self.values, "The challenge's dice")
        if not MIN_LENGTH <= len(values) <= MAX_LENGTH:
            raise OutOfRangeError(
                f"A challenge has {MIN_LENGTH} to {MAX_LENGTH} dice, not {len(values)}."
            )
        put("values", values)
        n = len(values)
        put("hidden", _index_tuple(self.hidden, "Hidden dice", n))
        put("jammed", _index_tuple(self.jammed, "Jammed dice", n))
        if set(self.hidden) & set(self.jammed):
            raise RulesError("A hidden die cannot be jammed: nobody can adjust it yet.")
        put(
            "unavailable_abilities",
            _name_tuple(self.unavailable_abilities, "Unavailable toolkit abilities"),
        )
        if self.mask is not None:
            if isinstance(self.mask, str) or not isinstance(self.mask, Iterable):
                raise RulesError("The hidden-dice mask must be a list of d6 results.")
            mask = tuple(self.mask)
            if len(mask) != n:
                raise RulesError(f"The hidden-dice mask needs one die per position ({n}).")
            for face in mask:
                check_int(face, "A hidden-dice mask die", low=1, high=MAX_SIDES)
            put("mask", mask)
        origin_values = values if self.origin_values is None else self.origin_values
        origin_values = _check_values(origin_values, "The challenge's original dice")
        if len(origin_values) != n:
            raise RulesError("The original layout must have as many dice as the chain.")
        put("origin_values", origin_values)
        origin_hidden = self.hidden if self.origin_hidden is None else self.origin_hidden
        put("origin_hidden", _index_tuple(origin_hidden, "Originally hidden dice", n))
        if not set(self.hidden) <= set(self.origin_hidden):
            raise RulesError("A die can only be hidden if it was hidden at setup.")
        # Hidden dice cannot be touched, so they still show their original numbers.
        if any(values[i] != origin_values[i] for i in self.hidden):
            raise RulesError("A hidden die's number cannot have changed since setup.")

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        *,
        difficulty: str,
        types: Any,
        values: Iterable[int],
        hidden: Iterable[int] = (),
        jammed: Iterable[int] = (),
        ruleset: Mapping[str, Any] | None = None,
    ) -> Challenge:
        """A challenge laid out by hand (a GM's prepared puzzle, or a test).

        ``difficulty`` and ``types`` are checked against the ruleset (names in any case).
        """
        rules = _ruleset(ruleset)
        name = lookup(difficulty, rules["difficulties"], "difficulty")
        return cls(
            difficulty=name,
            needed=rules["difficulties"][name],
            types=_canonical_types(types, rules),
            values=tuple(_check_values(values, "The challenge's dice")),
            hidden=tuple(hidden),
            jammed=tuple(jammed),
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Challenge:
        """Rebuild a challenge stored with ``to_dict()``; every field is validated again."""
        if not isinstance(data, Mapping):
            raise RulesError("A stored challenge must be a mapping.")
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(data) - set(names), key=str)
        if unknown:
            raise RulesError(f"A stored challenge has unknown field(s) {unknown}.")
        missing = [n for n in ("difficulty", "needed", "types", "values") if n not in data]
        if missing:
            raise RulesError(f"A stored challenge lacks field(s) {missing}.")
        return cls(**{n: data[n] for n in names if n in data})

    # -- the chain as each person sees it -------------------------------------------------------

    @property
    def length(self) -> int:
        return len(self.values)

    def visible_indices(self) -> tuple[int, ...]:
        """Chain positions of the dice the players can see, in order."""
        hidden = set(self.hidden)
        return tuple(i for i in range(self.length) if i not in hidden)

    def hidden_indices(self) -> tuple[int, ...]:
        return self.hidden

    def visible_values(self) -> tuple[int, ...]:
        """The players' chain: visible dice only, in order, no placeholder (DESIGN.md)."""
        return tuple(self.values[i] for i in self.visible_indices())

    def jammed_set(self) -> frozenset[int]:
        return frozenset(self.jammed)

    def visible_jammed(self) -> tuple[int, ...]:
        """Indices into ``visible_values()`` of the jammed dice."""
        jammed = set(self.jammed)
        return tuple(k for k, i in enumerate(self.visible_indices()) if i in jammed)

    def position_of(self, visible_index: int) -> int:
        """The chain position of the ``visible_index``-th die the players see."""
        visible = self.visible_indices()
        check_int(visible_index, "The die's place in the chain", low=0, high=len(visible) - 1)
        return visible[visible_index]

    def visible_index_of(self, position: int) -> int | None:
        """Where a chain position sits among the visible dice (None while hidden)."""
        check_int(position, "The die's position", low=0, high=self.length - 1)
        visible = self.visible_indices()
        return visible.index(position) if position in visible else None

    def pairs_ok(self) -> tuple[bool, ...]:
        """For the UI: does each adjacent pair of VISIBLE dice already differ by one?"""
        chain = self.visible_values()
        return tuple(abs(a - b) == 1 for a, b in zip(chain, chain[1:], strict=False))

    def chain_pairs_ok(self) -> tuple[bool, ...]:
        """The GM's version over the whole chain, hidden dice included."""
        v = self.values
        return tuple(abs(a - b) == 1 for a, b in zip(v, v[1:], strict=False))

    # -- state -------------------------------------------------------------------------------

    @property
    def visible_solved(self) -> bool:
        """Seed: "The players solve the current challenge as-is" (the visible dice)."""
        return is_solved(self.visible_values())

    @property
    def solvable(self) -> bool:
        """RULES-NOTES "Failure" (revised): judged over the chain as the players know it, the
        visible dice in order with hidden positions left out, and again after each reveal."""
        return self.remaining_adjustments is not None

    @property
    def remaining_adjustments(self) -> int | None:
        """GM help: fewest adjustments solving the visible chain (hidden dice left out, as the
        failure rule reads it); None once the jammed visible dice forbid a solution."""
        return min_adjustments(self.visible_values(), self.visible_jammed())

    @property
    def awaiting_reveal(self) -> bool:
        """The visible chain is solved but hidden dice remain: the GM should reveal one."""
        return bool(self.hidden) and self.visible_solved

    @property
    def status(self) -> ChallengeStatus:
        """RULES-NOTES: succeeds "when the chain is solved and no hidden die remains"; fails as
        soon as the jammed visible dice make the visible chain unsolvable. A solved visible chain
        with hidden dice left is still in progress: it waits for the GM's reveal."""
        if not self.hidden and self.visible_solved:
            return ChallengeStatus.SOLVED
        if not self.solvable:
            return ChallengeStatus.FAILED
        return ChallengeStatus.IN_PROGRESS

    @property
    def finished(self) -> bool:
        return self.status is not ChallengeStatus.IN_PROGRESS

    @property
    def can_reveal(self) -> bool:
        """Seed: hidden dice are revealed "only when all visible dice are solved"."""
        return self.awaiting_reveal and not self.finished

    def ability_available(self, ability: str) -> bool:
        """Seed: a failed toolkit check makes "that ability ... unavailable ... for the
        remainder of the challenge"."""
        return ability.casefold() not in {n.casefold() for n in self.unavailable_abilities}

    def layout(self) -> dict[str, Any]:
        """The secret as set up (mask, hidden positions, every die): what the web layer commits
        to once, so the commitment leaks neither count nor position (DESIGN.md)."""
        return {
            "mask": None if self.mask is None else list(self.mask),
            "hidden": list(self.origin_hidden or ()),
            "values": list(self.origin_values or ()),
        }

    def player_view(self) -> dict[str, Any]:
        """What players may see: the visible dice only, in order; nothing about hidden dice
        (not their positions, numbers or count). Indices are into ``values`` here."""
        return {
            "difficulty": self.difficulty,
            "needed": self.needed,
            "types": list(self.types),
            "values": list(self.visible_values()),
            "jammed": list(self.visible_jammed()),
            "pairs_ok": list(self.pairs_ok()),
            "visible_solved": self.visible_solved,
            "visible_min_adjustments": self.remaining_adjustments,
            "status": self.status.value,
            "unavailable_abilities": list(self.unavailable_abilities),
        }

    def gm_view(self) -> dict[str, Any]:
        """Everything, for the GM: the whole chain, hidden positions and numbers, GM help."""
        return {
            **self.to_dict(),
            "length": self.length,
            "visible_indices": list(self.visible_indices()),
            "visible_values": list(self.visible_values()),
            "pairs_ok": list(self.pairs_ok()),
            "chain_pairs_ok": list(self.chain_pairs_ok()),
            "visible_solved": self.visible_solved,
            "solvable": self.solvable,
            "remaining_adjustments": self.remaining_adjustments,
            "can_reveal": self.can_reveal,
            "status": self.status.value,
        }


def hidden_count_distribution(
    *, length: int | None = None, ruleset: Mapping[str, Any] | None = None
) -> Dist:
    """How many dice start hidden: each position's secret d6 shows the hidden face ("a result of
    1") with chance 1/6, independently."""
    rules = _ruleset(ruleset)
    n = rules["chain_length"] if length is None else length
    check_int(n, "The chain length", low=MIN_LENGTH, high=MAX_LENGTH)
    return binomial(n, Fraction(1, rules["mask_die_sides"]))


def setup_challenge(
    *,
    difficulty: str,
    types: Any,
    length: int | None = None,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> Challenge:
    """Set up an operation challenge with fresh dice.

    Seed: "they first secretly roll six six-sided dice in a line ... Any of the six-sided dice
    that display a result of 1 ... are considered hidden", then "rolls six of 12-sided dice".
    RULES-NOTES: the hidden positions' d12s are rolled now too (GM only); length 1..12.
    """
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    name = lookup(difficulty, rules["difficulties"], "difficulty")
    canonical = _canonical_types(types, rules)
    n = rules["chain_length"] if length is None else length
    check_int(n, "The chain length", low=MIN_LENGTH, high=MAX_LENGTH)
    mask = roll_dice(n, rules["mask_die_sides"], rng)
    values = roll_dice(n, FACES, rng)
    hidden = tuple(i for i, face in enumerate(mask) if face == rules["hidden_face"])
    return Challenge(
        difficulty=name,
        needed=rules["difficulties"][name],
        types=canonical,
        values=values,
        hidden=hidden,
        mask=mask,
    )


# --- moves ------------------------------------------------------------------------------------


def _require_challenge(challenge: Any) -> Challenge:
    if not isinstance(challenge, Challenge):
        raise RulesError("That is not an operation challenge.")
    if challenge.finished:
        raise IllegalMoveError(f"The challenge is over ({challenge.status.value}).")
    return challenge


def _workable_die(challenge: Challenge, position: Any) -> int:
    """A visible, unjammed die that may be manipulated."""
    check_int(position, "The die's position", low=0, high=challenge.length - 1)
    if position in challenge.hidden:
        raise IllegalMoveError("That die is not in play.")
    if position in challenge.jammed:
        # Seed: "A jammed die cannot be manipulated any further in any way."
        raise IllegalMoveError("That die is jammed and cannot be manipulated any further.")
    return position


def _adjust_target(challenge: Challenge, position: Any, direction: Any) -> tuple[int, int]:
    pos = _workable_die(challenge, position)
    if isinstance(direction, bool) or direction not in (1, -1):
        raise RulesError(f"An adjustment moves a die by +1 or -1, not {direction!r}.")
    after = challenge.values[pos] + direction
    if not 1 <= after <= FACES:
        raise OutOfRangeError(
            f"That die shows {challenge.values[pos]}; it cannot go to {after} "
            f"(dice run from 1 to {FACES})."
        )
    return pos, after


def _verify_check(
    check: Any, *, kind: str, base: int, needed: int, rules: Mapping[str, Any]
) -> CheckResult:
    """A check handed in by the caller must be the one these rules would have rolled."""
    if not isinstance(check, CheckResult) or check.kind != kind:
        raise RulesError(f"This move needs its own {kind.replace('_', ' ')}.")
    faces = [d.value for d in check.dice]
    consistent = (
        check.sides == rules["check_die_sides"]
        and check.target == rules["check_target"]
        and check.needed == needed
        and check.base_dice == base
        and len(faces) == check.base_dice + check.perk_dice
        and all(d.sides == check.sides and 1 <= d.value <= check.sides for d in check.dice)
        and check.successes == sum(1 for f in faces if f >= check.target)
        and check.passed == (check.successes >= check.needed)
    )
    if not consistent:
        raise RulesError(f"That {kind.replace('_', ' ')} does not match this challenge's rules.")
    return check


def op_check(
    challenge: Challenge,
    *,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> CheckResult:
    """The adjustment's op check. Seed: "a four-die check that requires a number of successes
    dependent on the difficulty of the challenge"; RULES-NOTES: + training-perk dice."""
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    return roll_check(
        dice=rules["op_check_dice"],
        perk_dice=perk_dice,
        needed=challenge.needed,
        sides=rules["check_die_sides"],
        target=rules["check_target"],
        kind="op_check",
        rng=rng,
    )


def challenge_check(
    challenge: Challenge,
    *,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> CheckResult:
    """Any other check in the challenge. Seed: "By default, all checks made in every challenge
    are made with three dice. Training perks can increase the number of dice rolled"."""
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    return roll_check(
        dice=rules["challenge_check_dice"],
        perk_dice=perk_dice,
        needed=challenge.needed,
        sides=rules["check_die_sides"],
        target=rules["check_target"],
        kind="challenge_check",
        rng=rng,
    )


def toolkit_check(
    challenge: Challenge,
    *,
    ability: str,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> CheckResult:
    """A toolkit ability's check. Seed: "Toolkit abilities require a check to use"."""
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    tool = _find_ability(ability, rules)
    return roll_check(
        dice=tool.check_dice(rules),
        perk_dice=perk_dice,
        needed=tool.check_needed(challenge.needed),
        sides=rules["check_die_sides"],
        target=rules["check_target"],
        kind="toolkit_check",
        rng=rng,
    )


@dataclasses.dataclass(frozen=True)
class AdjustResult(Result):
    """One adjustment: the op check, and either the new number or the jam.

    ``position`` is the chain position (GM); ``visible_index`` the die's place among the
    visible dice (players).
    """

    position: int
    visible_index: int
    direction: int
    before: int
    after: int
    jammed: bool
    check: CheckResult

    def player_view(self) -> dict[str, Any]:
        data = self.to_dict()
        del data["position"]
        return data


def _adjust_move(
    challenge: Challenge, pos: int, after: int, direction: int, check: CheckResult
) -> tuple[Challenge, AdjustResult]:
    before = challenge.values[pos]
    if check.passed:
        values = list(challenge.values)
        values[pos] = after
        new = dataclasses.replace(challenge, values=tuple(values))
    else:
        # Seed: "If the check fails, the die jams and its number is not changed."
        new = dataclasses.replace(challenge, jammed=(*challenge.jammed, pos))
        after = before
    result = AdjustResult(
        position=pos,
        visible_index=challenge.visible_indices().index(pos),
        direction=direction,
        before=before,
        after=after,
        jammed=not check.passed,
        check=check,
    )
    return new, result


def adjust(
    challenge: Challenge,
    *,
    position: int,
    direction: int,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> tuple[Challenge, AdjustResult]:
    """Try to move one die 1 higher or lower (``direction`` +1 or -1).

    Seed: "any adventurer can use a minor action to attempt to change one of the dice to a
    number 1 higher or lower"; "they must first roll an op check ... If the check fails, the die
    jams and its number is not changed". Refused (before any roll) for a hidden or jammed die, a
    number leaving 1..12, or a finished challenge.
    """
    rng = resolve_rng(rng)
    _require_challenge(challenge)
    pos, after = _adjust_target(challenge, position, direction)
    check = op_check(challenge, perk_dice=perk_dice, ruleset=ruleset, rng=rng)
    return _adjust_move(challenge, pos, after, direction, check)


def apply_adjustment(
    challenge: Challenge,
    *,
    position: int,
    direction: int,
    check: CheckResult,
    ruleset: Mapping[str, Any] | None = None,
) -> tuple[Challenge, AdjustResult]:
    """``adjust`` with an op check already rolled by ``op_check`` (so a UI can show the dice
    first). The check must match this challenge and ruleset."""
    _require_challenge(challenge)
    rules = _ruleset(ruleset)
    pos, after = _adjust_target(challenge, position, direction)
    _verify_check(
        check, kind="op_check", base=rules["op_check_dice"], needed=challenge.needed, rules=rules
    )
    return _adjust_move(challenge, pos, after, direction, check)


@dataclasses.dataclass(frozen=True)
class RevealResult(Result):
    """A hidden die brought into the chain at its original place."""

    position: int
    visible_index: int
    value: int

    def player_view(self) -> dict[str, Any]:
        return {"visible_index": self.visible_index, "value": self.value}


def _reveal_move(challenge: Challenge, position: int) -> tuple[Challenge, RevealResult]:
    new = dataclasses.replace(challenge, hidden=tuple(i for i in challenge.hidden if i != position))
    visible_index = new.visible_indices().index(position)
    return new, RevealResult(
        position=position, visible_index=visible_index, value=challenge.values[position]
    )


def reveal(challenge: Challenge, *, position: int) -> tuple[Challenge, RevealResult]:
    """The GM reveals one hidden die (their choice of which).

    Seed: "only one is revealed at a time and only when all visible dice are solved. The GM can
    reveal multiple hidden dice in any order they please"; it is "inserted into the die chain in
    the appropriate location".
    """
    _require_challenge(challenge)
    check_int(position, "The die's position", low=0, high=challenge.length - 1)
    if position not in challenge.hidden:
        raise IllegalMoveError("That die is not hidden.")
    if not challenge.visible_solved:
        raise IllegalMoveError("A hidden die is revealed only once the visible dice are solved.")
    return _reveal_move(challenge, position)


@dataclasses.dataclass(frozen=True)
class ToolkitResult(Result):
    """A toolkit ability used: its check and, when it passed, what its effect did.

    ``applied`` is False when the check failed (the ability is then ``now_unavailable``) or when
    a passing "reveal" found no hidden die left. ``position`` is the chain position (GM only);
    ``visible_index`` the die's place among the visible dice afterwards.
    """

    ability: str
    effect: str
    check: CheckResult
    applied: bool
    now_unavailable: bool
    position: int | None = None
    visible_index: int | None = None
    before: int | None = None
    after: int | None = None

    def player_view(self) -> dict[str, Any]:
        data = self.to_dict()
        del data["position"]
        return data


def _toolkit_target(
    challenge: Challenge, tool: ToolkitAbility, position: Any, value: Any
) -> int | None:
    """Check the ability's target before anything is rolled."""
    if tool.effect != "set_value" and value is not None:
        raise RulesError(f"{tool.name} does not take a number.")
    if tool.effect == "set_value":
        pos = _workable_die(challenge, position)
        check_int(value, "The new number", low=1, high=FACES)
        return pos
    if tool.effect == "reroll":
        return _workable_die(challenge, position)
    if tool.effect == "unjam":
        check_int(position, "The die's position", low=0, high=challenge.length - 1)
        if position not in challenge.jammed:
            raise IllegalMoveError("That die is not jammed.")
        return position
    # "reveal": the GM's choice of hidden die, or the leftmost one. It is not refused when
    # nothing is hidden: that refusal would tell the player that no hidden die exists.
    if position is None:
        return None
    check_int(position, "The die's position", low=0, high=challenge.length - 1)
    if position not in challenge.hidden:
        raise IllegalMoveError("That die is not hidden.")
    return position


def _toolkit_move(
    challenge: Challenge,
    tool: ToolkitAbility,
    target: int | None,
    value: int | None,
    check: CheckResult,
    rng: Rng,
) -> tuple[Challenge, ToolkitResult]:
    base = {"ability": tool.name, "effect": tool.effect, "check": check}
    if not check.passed:
        # Seed: "that ability becomes unavailable for use for the remainder of the challenge but
        # the challenge is otherwise unaffected".
        new = dataclasses.replace(
            challenge, unavailable_abilities=(*challenge.unavailable_abilities, tool.name)
        )
        shown = challenge.visible_index_of(target) if target is not None else None
        position = target if tool.effect != "reveal" else None
        result = ToolkitResult(
            **base, applied=False, now_unavailable=True, position=position, visible_index=shown
        )
        return new, result
    if tool.effect == "reveal":
        if target is None and not challenge.hidden:
            return challenge, ToolkitResult(**base, applied=False, now_unavailable=False)
        position = challenge.hidden[0] if target is None else target
        new, revealed = _reveal_move(challenge, position)
        result = ToolkitResult(
            **base,
            applied=True,
            now_unavailable=False,
            position=position,
            visible_index=revealed.visible_index,
            after=revealed.value,
        )
        return new, result
    assert target is not None  # every other effect has a target, checked before the roll
    before = challenge.values[target]
    if tool.effect == "unjam":
        new = dataclasses.replace(
            challenge, jammed=tuple(i for i in challenge.jammed if i != target)
        )
        after = before
    else:
        after = value if tool.effect == "set_value" else roll_die(FACES, rng)
        values = list(challenge.values)
        values[target] = after
        new = dataclasses.replace(challenge, values=tuple(values))
    result = ToolkitResult(
        **base,
        applied=True,
        now_unavailable=False,
        position=target,
        visible_index=challenge.visible_index_of(target),
        before=before,
        after=after,
    )
    return new, result


def _toolkit_prepare(
    challenge: Challenge, ability: Any, position: Any, value: Any, rules: Mapping[str, Any]
) -> tuple[ToolkitAbility, int | None]:
    _require_challenge(challenge)
    tool = _find_ability(ability, rules)
    if not challenge.ability_available(tool.name):
        raise IllegalMoveError(f"{tool.name} failed earlier and cannot be used in this challenge.")
    return tool, _toolkit_target(challenge, tool, position, value)


def use_toolkit(
    challenge: Challenge,
    *,
    ability: str,
    position: int | None = None,
    value: int | None = None,
    perk_dice: int = 0,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> tuple[Challenge, ToolkitResult]:
    """Use a toolkit ability: roll its check, then apply its effect if it passed.

    Seed: "Toolkit abilities require a check to use. If a toolkit ability is attempted but the
    check fails, then that ability becomes unavailable for use for the remainder of the
    challenge". Effects (RULES-NOTES primitives): ``set_value`` (needs ``position`` and
    ``value``), ``unjam`` (``position`` of a jammed die: the one way a jammed die moves again),
    ``reveal`` (a hidden die joins the chain now, even if the visible dice are unsolved;
    ``position`` is the GM's choice, None the leftmost hidden die; with no hidden die left a
    passing check reveals nothing), ``reroll`` (``position``: a fresh d12).
    """
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    tool, target = _toolkit_prepare(challenge, ability, position, value, rules)
    check = toolkit_check(challenge, ability=tool.name, perk_dice=perk_dice, ruleset=rules, rng=rng)
    return _toolkit_move(challenge, tool, target, value, check, rng)


def apply_toolkit(
    challenge: Challenge,
    *,
    ability: str,
    check: CheckResult,
    position: int | None = None,
    value: int | None = None,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> tuple[Challenge, ToolkitResult]:
    """``use_toolkit`` with the check already rolled by ``toolkit_check``."""
    rng = resolve_rng(rng)
    rules = _ruleset(ruleset)
    tool, target = _toolkit_prepare(challenge, ability, position, value, rules)
    _verify_check(
        check,
        kind="toolkit_check",
        base=tool.check_dice(rules),
        needed=tool.check_needed(challenge.needed),
        rules=rules,
    )
    return _toolkit_move(challenge, tool, target, value, check, rng)


__all__ = [
    "DEFAULT_RULESET",
    "EFFECTS",
    "FACES",
    "MAX_LENGTH",
    "AdjustResult",
    "Challenge",
    "ChallengeStatus",
    "CheckResult",
    "RevealResult",
    "ToolkitAbility",
    "ToolkitResult",
    "adjust",
    "apply_adjustment",
    "apply_toolkit",
    "challenge_check",
    "challenge_check_probability",
    "check_probability",
    "difficulty_needed",
    "hidden_count_distribution",
    "is_solved",
    "jams_allow_solution",
    "min_adjustments",
    "op_check",
    "op_check_probability",
    "reveal",
    "roll_check",
    "setup_challenge",
    "successes_distribution",
    "toolkit_abilities",
    "toolkit_check",
    "toolkit_check_probability",
    "training_dice",
    "use_toolkit",
]
