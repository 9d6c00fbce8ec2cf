"""Annulus (seed 000): checks and their exact odds.

RULES-NOTES "Checks": "a pool of dice, each die at or above a target is one success; the check
passes with at least as many successes as the difficulty needs". The op check, the challenge
check and a toolkit ability's check are such pools; their odds are exact binomials.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

from rules.annulus.ruleset import _find_ability, _needed, _ruleset
from rules.core import (
    MAX_SIDES,
    Die,
    Dist,
    Result,
    Rng,
    check_int,
    check_pool,
    resolve_rng,
    roll_dice,
)

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
