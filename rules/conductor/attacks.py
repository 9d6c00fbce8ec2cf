"""conductor (seed 002): exploding d6 attack rolls, and healing and poison, which are attack rolls.

Seed "Attack Rolls": "a 1d6 + Xd6 where X is the relevant skill's value"; each die at or above
the difficulty hits, each 6 explodes and hits whatever the difficulty; bennies add +1 to one die.
Seed "Healing" and "Poison" roll the same way.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules.conductor.ruleset import _check_bennies, _check_difficulty, _check_skill, _ruleset
from rules.core import (
    MAX_EXPLOSIONS,
    Die,
    IllegalMoveError,
    PoolTooLargeError,
    Result,
    Rng,
    RulesError,
    check_int,
    check_pool,
    resolve_rng,
    roll_die,
)

#: The attack roll's die (seed: "1d6 + Xd6").
ATTACK_DIE = 6
#: "Each die resulting in 6 or above explodes! Causing 1 hit"
EXPLODES_AT = 6


def hit_threshold(difficulty: int) -> int:
    """The lowest die value that hits: the difficulty, but never above 6.

    Seed "Attack Rolls": "Each die equal to or above the FOE's difficulty causes 1 hit" and
    "Each die resulting in 6 or above explodes! Causing 1 hit" (RULES-NOTES: a 6 always hits).
    """
    return min(difficulty, EXPLODES_AT)


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
