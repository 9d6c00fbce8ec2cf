"""conductor (seed 002): d12 + skill over a difficulty, exploding d6 attack pools, bennies,
skills, and the wilderness exploration procedure.

The seed's rolls (RULES-NOTES "conductor"):

- Standard roll: "rolls a d12 and adds their skill, attempting to roll over the difficulty"
  (strictly over); after seeing it the player may spend bennies, "+1 to the roll" each.
- Attack roll: "a 1d6 + Xd6 where X is the relevant skill's value". Each die equal to or above
  the difficulty is one hit; each die showing 6 or more explodes, causing one hit whatever the
  difficulty and adding one more d6 which may hit and explode in turn; if no die hits, the foe
  strikes back at once. Bennies: "+1 to the roll of one die" each, after the roll; a die
  pushed to 6 or more by bennies explodes then (a die explodes at most once). Foe attacks work
  the same way against the character's own difficulty (a sheet field, ruleset default 3).

Readings decided here (tested):

- Dice never sum: each die is compared alone with the difficulty. A die hits when it is equal
  to or above the difficulty, and also whenever it shows 6 or more: "Each die resulting in 6 or
  above explodes! Causing 1 hit" (RULES-NOTES: "causing 1 hit whatever the difficulty"). So
  against difficulty 7 or more only sixes hit (each one exploding), and a die pushed to 6 by
  bennies hits and explodes.
- Explosion cap: one roll may explode at most ``core.MAX_EXPLOSIONS`` times (bennies
  included). The next explosion raises ``PoolTooLargeError`` instead of rolling on: with fair
  dice that needs over a hundred sixes in one roll, so it only guards against a broken rng.
  The odds below are those of the uncapped rule (the difference is below 6**-100).
- Healing and poison are attack rolls (seed "Healing", "Poison"); they keep the attack roll
  inside their result, and bennies may be spent on them like on any player's attack.
  Bennies cannot be spent on a foe's attack (bennies are the PLAYER's).
- A specified (S) skill gives +1 within its specification and nothing outside it (the
  character rolls as if untrained there, skill 0, unless they also hold the general skill).

Public functions and values:

- ``DEFAULT_RULESET`` / ``validate_ruleset(data)``: difficulties the seed leaves to the sheet,
  the skill list with which skills may or must be specified, and the wilderness numbers.
- Odds (exact ``Fraction``): ``standard_probability(*, skill, difficulty, bennies=0)``,
  ``attack_hit_probability(*, skill, difficulty, bennies=0)``,
  ``attack_expected_hits(*, skill, difficulty)``,
  ``attack_hit_distribution(*, skill, difficulty, top=None)`` (hits, the last key holding
  "top or more"), and from the wilderness module ``forage_probability``,
  ``supply_probability``, ``wilderness_roll_distribution``.
- Rolls: ``standard_roll(*, skill, difficulty, rng=None)`` -> ``StandardResult``;
  ``spend_bennies_on_standard(result, *, bennies)``;
  ``attack(*, skill, difficulty, rng=None)`` -> ``AttackResult``;
  ``foe_attack(*, skill, difficulty=None, ruleset=None, rng=None)`` -> ``AttackResult``;
  ``heal(*, skill, harm_difficulty=None, ruleset=None, rng=None)`` -> ``HealingResult``;
  ``make_poison(*, skill, ruleset=None, rng=None)`` -> ``PoisonResult``;
  ``spend_benny_on_die(result, *, die_index, rng=None)`` (any of the three attack results).
- Skills: ``SKILLS``, ``skill_names(*, ruleset=None)``,
  ``effective_skill(*, skill, value, specification=None, within_specification=True,
  ruleset=None)``.
- Wilderness (defined in ``rules.conductor_wilderness``, re-exported here): ``Expedition``,
  ``start_expedition``, ``Member``, ``Travel``, the event classes, ``supply_roll``,
  ``wilderness_roll``, ``forage_probability``, ``supply_probability``,
  ``wilderness_roll_distribution``, ``PHASES``, ``ACTIONS``, ``TRAVEL_KINDS``.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules.core import (
    MAX_EXPLOSIONS,
    MAX_POOL,
    MAX_SIDES,
    Die,
    IllegalMoveError,
    PoolTooLargeError,
    Result,
    Rng,
    RulesError,
    check_int,
    check_pool,
    lookup,
    resolve_rng,
    roll_die,
)

__all__ = [
    "DEFAULT_RULESET",
    "SKILLS",
    "SPECIFICATION_RULES",
    "AttackResult",
    "HealingResult",
    "PoisonResult",
    "StandardResult",
    "attack",
    "attack_expected_hits",
    "attack_hit_distribution",
    "attack_hit_probability",
    "effective_skill",
    "foe_attack",
    "heal",
    "hit_threshold",
    "make_poison",
    "skill_names",
    "spend_benny_on_die",
    "spend_bennies_on_standard",
    "standard_probability",
    "standard_roll",
    "validate_ruleset",
    # and the wilderness names below, re-exported from rules.conductor_wilderness
]

#: Defined in rules.conductor_wilderness; loaded on first use (that module imports this one).
_WILDERNESS_NAMES = (
    "ACTIONS",
    "PHASES",
    "TRAVEL_KINDS",
    "ENCOUNTERS",
    "Expedition",
    "Member",
    "Travel",
    "SupplyRoll",
    "WildernessRoll",
    "WildernessRules",
    "ExpeditionEvent",
    "ActionTaken",
    "TravelTaken",
    "ForageRolled",
    "WildernessRolled",
    "MountsTired",
    "MountsRecovered",
    "SupplyRolled",
    "SupplySkipped",
    "LastingHit",
    "LastingHitsRecovered",
    "PhaseEnded",
    "Fed",
    "MemberChanged",
    "forage_probability",
    "supply_probability",
    "supply_roll",
    "start_expedition",
    "wilderness_roll",
    "wilderness_roll_distribution",
)
__all__ += _WILDERNESS_NAMES

#: The standard roll's die and the attack roll's die (seed: "rolls a d12", "1d6 + Xd6").
STANDARD_DIE = 12
ATTACK_DIE = 6
#: "Each die resulting in 6 or above explodes! Causing 1 hit"
EXPLODES_AT = 6


def hit_threshold(difficulty: int) -> int:
    """The lowest die value that hits: the difficulty, but never above 6.

    Seed "Attack Rolls": "Each die equal to or above the FOE's difficulty causes 1 hit" and
    "Each die resulting in 6 or above explodes! Causing 1 hit" (RULES-NOTES: a 6 always hits).
    """
    return min(difficulty, EXPLODES_AT)


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


# --- standard roll ---------------------------------------------------------------------------


def standard_probability(*, skill: int, difficulty: int, bennies: int = 0) -> Fraction:
    """P(d12 + skill + bennies > difficulty), exact.

    Seed "Standard Roll Procedure": "rolls a d12 and adds their skill, attempting to roll over
    the difficulty"; "After seeing the roll's result, the PLAYER may supplement its result using
    BENNIES, each BENNY spent grants a +1". With ``bennies`` available the player spends only
    when it turns a failure into a success, so the chance is that of the roll plus all of them.
    """
    skill = _check_skill(skill)
    difficulty = _check_difficulty(difficulty)
    bennies = _check_bennies(bennies)
    # The die must show more than this; faces need+1..12 succeed.
    need = difficulty - skill - bennies
    return Fraction(STANDARD_DIE - min(max(need, 0), STANDARD_DIE), STANDARD_DIE)


@dataclasses.dataclass(frozen=True)
class StandardResult(Result):
    """A standard roll: the d12, the skill, the bennies spent and whether it rolled over.

    ``bennies_to_succeed`` is how many more bennies would make a failure a success (0 when it
    already succeeds).
    """

    skill: int
    difficulty: int
    die: Die
    bennies: int
    total: int
    success: bool
    bennies_to_succeed: int

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StandardResult:
        """Rebuild a stored standard roll; total and success are recomputed from its parts."""
        try:
            return _standard_result(
                rolled=data["die"]["rolled"],
                skill=_check_skill(data["skill"]),
                difficulty=_check_difficulty(data["difficulty"]),
                bennies=_check_bennies(data.get("bennies", 0)),
            )
        except (KeyError, TypeError) as exc:
            raise RulesError("A stored standard roll needs its d12, skill and difficulty.") from exc


def _standard_result(*, rolled: int, skill: int, difficulty: int, bennies: int) -> StandardResult:
    rolled = check_int(rolled, "The d12", low=1, high=STANDARD_DIE)
    total = rolled + skill + bennies
    return StandardResult(
        skill=skill,
        difficulty=difficulty,
        die=Die(sides=STANDARD_DIE, rolled=rolled, value=rolled),
        bennies=bennies,
        total=total,
        success=total > difficulty,
        bennies_to_succeed=max(0, difficulty + 1 - total),
    )


def standard_roll(*, skill: int, difficulty: int, rng: Rng | None = None) -> StandardResult:
    """Roll d12 + skill against the difficulty (seed: "attempting to roll over")."""
    skill = _check_skill(skill)
    difficulty = _check_difficulty(difficulty)
    rng = resolve_rng(rng)
    return _standard_result(
        rolled=roll_die(STANDARD_DIE, rng), skill=skill, difficulty=difficulty, bennies=0
    )


def spend_bennies_on_standard(result: StandardResult, *, bennies: int) -> StandardResult:
    """A new result with ``bennies`` more spent, +1 each (seed: "each BENNY spent grants a +1")."""
    if not isinstance(result, StandardResult):
        raise RulesError("Bennies on a standard roll need the standard roll's result.")
    bennies = _check_bennies(bennies, low=1)
    return _standard_result(
        rolled=result.die.rolled,
        skill=result.skill,
        difficulty=result.difficulty,
        bennies=_check_bennies(result.bennies + bennies),
    )


# --- attack roll odds ---------------------------------------------------------------------------


def _pool(skill: int) -> int:
    # "a 1d6 + Xd6 where X is the relevant skill's value"
    return check_pool(1 + skill, "The attack pool")


def attack_hit_probability(*, skill: int, difficulty: int, bennies: int = 0) -> Fraction:
    """P(at least one hit) for (1 + skill)d6 against ``difficulty``, exact.

    Seed "Attack Rolls": "Each die equal to or above the FOE's difficulty causes 1 hit" and
    "Each die resulting in 6 or above explodes! Causing 1 hit": a die hits at
    t = min(difficulty, 6) (``hit_threshold``), so explosions never change whether some die
    hits. With ``bennies`` available (+1 to one die each, spent after the roll) the player hits
    when the highest die plus the bennies reaches t: P = 1 - (min(6, t - 1 - bennies) / 6) ** pool.
    """
    dice = _pool(_check_skill(skill))
    threshold = hit_threshold(_check_difficulty(difficulty))
    bennies = _check_bennies(bennies)
    missing_faces = min(max(threshold - 1 - bennies, 0), ATTACK_DIE)
    return 1 - Fraction(missing_faces, ATTACK_DIE) ** dice


def attack_expected_hits(*, skill: int, difficulty: int) -> Fraction:
    """The exact mean number of hits of an attack roll, explosions chained without end.

    One die's expected hits E satisfy E = P(die hits) + P(6) * E (a six always hits and adds a
    fresh die), so with t = min(difficulty, 6) E = P(>= t) / (5/6) = (7 - t) / 5: 6/5 at
    difficulty 0 or 1, and 1/5 at 6 or more (only sixes hit there). The pool's mean is
    (1 + skill) times that.
    """
    dice = _pool(_check_skill(skill))
    threshold = hit_threshold(_check_difficulty(difficulty))
    hit_faces = ATTACK_DIE + 1 - max(threshold, 1)
    return dice * Fraction(hit_faces, ATTACK_DIE) / (1 - Fraction(1, ATTACK_DIE))


def attack_hit_distribution(
    *, skill: int, difficulty: int, top: int | None = None
) -> dict[int, Fraction]:
    """The exact distribution of the number of hits, for the bar chart.

    Keys are 0..top; ``top`` holds P(hits >= top) (the tail folded in, so the values sum to
    exactly 1). ``top`` defaults to the pool plus ``core.MAX_EXPLOSIONS``: the most hits a roll
    can make before the explosion cap refuses it. Difficulty 7 or more counts as 6: only sixes
    hit (``hit_threshold``).

    How (threshold d = min(difficulty, 6)): every die that explodes is a hit and each chain of
    dice ends with one die that did not show 6, a hit with probability (6 - d)/5. So hits =
    explosions E + Binomial(n, (6 - d)/5) with E negative binomial,
    P(E = e) = C(n+e-1, e) (1/6)^e (5/6)^n:
    P(hits = h) = sum_k C(n,k) (6-d)^k (d-1)^(n-k) C(n+h-k-1, h-k) 6^k / 6^(n+h).
    """
    dice = _pool(_check_skill(skill))
    difficulty = _check_difficulty(difficulty)
    most = dice + MAX_EXPLOSIONS
    top = most if top is None else check_int(top, "The top of the hit chart", low=1, high=most)
    threshold = max(hit_threshold(difficulty), 1)
    numerators, denominator = _hit_numerators(dice, threshold, top)
    return {hits: Fraction(n, denominator) for hits, n in enumerate(numerators)}


@lru_cache(maxsize=512)
def _hit_numerators(dice: int, threshold: int, top: int) -> tuple[tuple[int, ...], int]:
    """Integer numerators of P(hits = 0..top-1) and P(hits >= top) over one denominator."""
    scale = dice + top - 1  # 6**scale is the common denominator
    hit, miss = ATTACK_DIE - threshold, threshold - 1  # faces below 6 that hit / miss
    # weights[k]: k of the n chain-ending dice hit (already times 6**k, see the docstring).
    weights = [
        math.comb(dice, k) * hit**k * miss ** (dice - k) * ATTACK_DIE**k for k in range(dice + 1)
    ]
    # chains[j] = C(n-1+j, j): ways j explosions spread over n chains.
    chains = [math.comb(dice - 1 + j, j) for j in range(top)]
    numerators = []
    for h in range(top):
        exact = sum(weights[k] * chains[h - k] for k in range(min(dice, h) + 1))
        numerators.append(exact * ATTACK_DIE ** (top - 1 - h))
    tail = ATTACK_DIE**scale - sum(numerators)
    return tuple(numerators) + (tail,), ATTACK_DIE**scale


# --- attack rolls ------------------------------------------------------------------------------

#: What an attack roll is for; the foe strikes back only after a character's attack.
PURPOSES = ("attack", "foe attack", "healing", "poison")


@dataclasses.dataclass(frozen=True)
class AttackResult(Result):
    """An attack roll with every die kept.

    ``dice`` lists the pool first (``source`` None), then each die an explosion added, its
    ``source`` the index of the die that exploded. ``value`` counts (after bennies), ``bonus``
    is the bennies put on that die. ``foe_strikes_back``: a character's attack where no die
    hit ("the FOE will immediately return with an attack of its own");
    ``character_strikes_back`` the same for a foe's attack ("Foe attacks work just like player
    attacks").
    """

    purpose: str
    skill: int
    difficulty: int
    dice: tuple[Die, ...]
    bennies: int
    hits: int
    explosions: int
    foe_strikes_back: bool
    character_strikes_back: bool

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttackResult:
        """Rebuild a stored attack roll; hits and who strikes back are recomputed from the dice."""
        try:
            purpose = data["purpose"]
            if purpose not in PURPOSES:
                raise RulesError(f"Unknown attack roll purpose {purpose!r}.")
            dice = []
            for raw in data["dice"]:
                rolled = check_int(raw["rolled"], "A d6", low=1, high=ATTACK_DIE)
                bonus = _check_bennies(raw.get("bonus", 0))
                source = raw.get("source")
                if source is not None:
                    source = check_int(source, "A die's source", low=0, high=len(dice) - 1)
                dice.append(
                    Die(
                        sides=ATTACK_DIE,
                        rolled=rolled,
                        value=rolled + bonus,
                        exploded=bool(raw.get("exploded", False)),
                        bonus=bonus,
                        source=source,
                    )
                )
            return _attack_result(
                purpose=purpose,
                skill=_check_skill(data["skill"]),
                difficulty=_check_difficulty(data["difficulty"]),
                dice=tuple(dice),
                bennies=_check_bennies(data.get("bennies", 0)),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise RulesError("A stored attack roll needs its purpose, skill and dice.") from exc


def _attack_result(
    *, purpose: str, skill: int, difficulty: int, dice: tuple[Die, ...], bennies: int
) -> AttackResult:
    threshold = hit_threshold(difficulty)
    hits = sum(1 for d in dice if d.value >= threshold)
    return AttackResult(
        purpose=purpose,
        skill=skill,
        difficulty=difficulty,
        dice=dice,
        bennies=bennies,
        hits=hits,
        explosions=sum(1 for d in dice if d.exploded),
        foe_strikes_back=purpose == "attack" and hits == 0,
        character_strikes_back=purpose == "foe attack" and hits == 0,
    )


def _explode(dice: list[Die], start: list[int], rng: Rng) -> None:
    """Explode every die from ``start`` (and the dice they add) that shows 6+ and has not yet."""
    explosions = sum(1 for d in dice if d.exploded)
    pending = list(start)
    while pending:
        index = pending.pop(0)
        die = dice[index]
        if die.value < EXPLODES_AT or die.exploded:
            continue
        if explosions >= MAX_EXPLOSIONS:
            raise PoolTooLargeError(
                f"The dice exploded more than {MAX_EXPLOSIONS} times in one roll; "
                "the table stops there. Please roll again."
            )
        explosions += 1
        dice[index] = dataclasses.replace(die, exploded=True)
        rolled = roll_die(ATTACK_DIE, rng)
        dice.append(Die(sides=ATTACK_DIE, rolled=rolled, value=rolled, source=index))
        pending.append(len(dice) - 1)


def _roll_attack(*, purpose: str, skill: int, difficulty: int, rng: Rng | None) -> AttackResult:
    skill = _check_skill(skill)
    difficulty = _check_difficulty(difficulty)
    count = _pool(skill)
    rng = resolve_rng(rng)
    dice = []
    for _ in range(count):
        rolled = roll_die(ATTACK_DIE, rng)
        dice.append(Die(sides=ATTACK_DIE, rolled=rolled, value=rolled))
    _explode(dice, list(range(count)), rng)
    return _attack_result(
        purpose=purpose, skill=skill, difficulty=difficulty, dice=tuple(dice), bennies=0
    )


def attack(*, skill: int, difficulty: int, rng: Rng | None = None) -> AttackResult:
    """A character's attack roll: (1 + skill)d6 against the foe's difficulty.

    Seed "Attack Rolls": "The roll's difficulty is set by the FOE"; each die >= difficulty is a
    hit, each die of 6 or above explodes and is a hit whatever the difficulty, no hit means the
    foe strikes back.
    """
    return _roll_attack(purpose="attack", skill=skill, difficulty=difficulty, rng=rng)


def foe_attack(
    *,
    skill: int,
    difficulty: int | None = None,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> AttackResult:
    """A foe's attack: "Foe attacks work just like player attacks".

    ``skill`` is the foe's attack skill; ``difficulty`` the character's own difficulty (a sheet
    field; None: the ruleset's ``character_difficulty``, RULES-NOTES default 3).
    """
    if difficulty is None:
        difficulty = _ruleset(ruleset)["character_difficulty"]
    return _roll_attack(purpose="foe attack", skill=skill, difficulty=difficulty, rng=rng)


@dataclasses.dataclass(frozen=True)
class HealingResult(Result):
    """Seed "Healing": "each hit recovers a hit. Rolling under the difficulty with all the dice
    causes 1 hit of damage to the character being healed. [...] Healing a character takes a
    unit of time." Harm from different sources is healed by separate rolls. The patient takes
    the hit when no die hits: every die under the difficulty and none a 6 (a 6 always hits)."""

    roll: AttackResult
    hits_healed: int
    patient_takes_hit: bool
    time_spent: int = 1


def _healing_result(roll: AttackResult) -> HealingResult:
    return HealingResult(roll=roll, hits_healed=roll.hits, patient_takes_hit=roll.hits == 0)


def heal(
    *,
    skill: int,
    harm_difficulty: int | None = None,
    ruleset: Mapping[str, Any] | None = None,
    rng: Rng | None = None,
) -> HealingResult:
    """Heal one source of harm: an attack roll against the harm source's difficulty.

    Seed "Healing": "make an attack roll against the foe that caused the harm's difficulty (or
    3 if not specified)"; None uses the ruleset's ``healing_difficulty`` (3).
    """
    if harm_difficulty is None:
        harm_difficulty = _ruleset(ruleset)["healing_difficulty"]
    roll = _roll_attack(purpose="healing", skill=skill, difficulty=harm_difficulty, rng=rng)
    return _healing_result(roll)


@dataclasses.dataclass(frozen=True)
class PoisonResult(Result):
    """Seed "Poison": "the number of hits is equal to the difficulty of the foe the poison is
    effective for. Poison creation takes a unit of time and a unit of loot."
    ``foe_difficulty`` 0 means the poison works on no foe (but time and loot are still spent)."""

    roll: AttackResult
    foe_difficulty: int
    time_spent: int = 1
    loot_spent: int = 1


def _poison_result(roll: AttackResult) -> PoisonResult:
    return PoisonResult(roll=roll, foe_difficulty=roll.hits)


def make_poison(
    *, skill: int, ruleset: Mapping[str, Any] | None = None, rng: Rng | None = None
) -> PoisonResult:
    """Create a poison: an attack roll with the Poison skill against difficulty 3 (seed)."""
    difficulty = _ruleset(ruleset)["poison_difficulty"]
    roll = _roll_attack(purpose="poison", skill=skill, difficulty=difficulty, rng=rng)
    return _poison_result(roll)


def spend_benny_on_die(
    result: AttackResult | HealingResult | PoisonResult, *, die_index: int, rng: Rng | None = None
) -> AttackResult | HealingResult | PoisonResult:
    """Spend one benny: +1 to the chosen die, then recount hits (a new result of the same kind).

    Seed: "each BENNY spent grants a +1 to the roll of one die"; RULES-NOTES: "a die pushed to
    6 or more by bennies explodes then", and hits like every 6 (its new d6 may hit and explode
    in turn). A die that
    already exploded does not explode again. Foes have no bennies: a foe's attack is refused.
    """
    if isinstance(result, HealingResult | PoisonResult):
        roll = _spend_benny(result.roll, die_index=die_index, rng=rng)
        return _healing_result(roll) if isinstance(result, HealingResult) else _poison_result(roll)
    if isinstance(result, AttackResult):
        return _spend_benny(result, die_index=die_index, rng=rng)
    raise RulesError("Bennies on a die need an attack, healing or poison roll's result.")


def _spend_benny(result: AttackResult, *, die_index: int, rng: Rng | None) -> AttackResult:
    if result.purpose == "foe attack":
        raise IllegalMoveError("Bennies are the players'; they cannot change a foe's attack.")
    index = check_int(die_index, "The die to push", low=0, high=len(result.dice) - 1)
    bennies = _check_bennies(result.bennies + 1)
    dice = list(result.dice)
    die = dice[index]
    dice[index] = dataclasses.replace(die, value=die.value + 1, bonus=die.bonus + 1)
    _explode(dice, [index], resolve_rng(rng))
    return _attack_result(
        purpose=result.purpose,
        skill=result.skill,
        difficulty=result.difficulty,
        dice=tuple(dice),
        bennies=bennies,
    )


# --- wilderness (rules.conductor_wilderness), re-exported lazily to avoid an import cycle ---


def __getattr__(name: str) -> Any:
    if name in _WILDERNESS_NAMES:
        module = importlib.import_module("rules.conductor_wilderness")
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rules.conductor' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WILDERNESS_NAMES))
