"""conductor (seed 002): what bennies buy on a roll already made, exactly.

Seed "Standard Roll Procedure": "After seeing the roll's result, the PLAYER may supplement its
result using BENNIES, each BENNY spent grants a +1 to the roll"; seed "Attack Rolls": "each
BENNY spent grants a +1 to the roll of one die", and "Each die resulting in 6 or above
explodes! Causing 1 hit and adding another d6 to the roll". A benny on a standard roll, or on a
die that stays under 6, changes the outcome in one known way; a die pushed to 6 explodes, and
the new d6 (which may explode in turn) makes the result random: its exact distribution is given.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from rules.conductor.attacks import (
    EXPLODES_AT,
    AttackResult,
    HealingResult,
    PoisonResult,
    attack_hit_distribution,
    hit_threshold,
)
from rules.conductor.ruleset import _check_bennies
from rules.conductor.standard import StandardResult
from rules.core import MAX_EXPLOSIONS, IllegalMoveError, Result, RulesError, check_int

#: Extra hits listed one by one after an explosion before the rest is folded into "or more".
EXPLOSION_ROWS = 3


@dataclasses.dataclass(frozen=True)
class StandardBennyEffect(Result):
    """``bennies`` more bennies on a standard roll: the total and verdict before and after."""

    bennies: int
    difficulty: int
    total_before: int
    total_after: int
    success_before: bool
    success_after: bool


def standard_benny_effect(result: StandardResult, *, bennies: int = 1) -> StandardBennyEffect:
    """What spending ``bennies`` more bennies on a standard roll turns it into (deterministic).

    Seed "Standard Roll Procedure": "each BENNY spent grants a +1 to the roll", the roll being a
    d12 plus the skill "attempting to roll over the difficulty" (strictly over).
    """
    if not isinstance(result, StandardResult):
        raise RulesError("Bennies on a standard roll need the standard roll's result.")
    bennies = _check_bennies(bennies, low=1)
    after = result.total + bennies
    return StandardBennyEffect(
        bennies=bennies,
        difficulty=result.difficulty,
        total_before=result.total,
        total_after=after,
        success_before=result.success,
        success_after=after > result.difficulty,
    )


@dataclasses.dataclass(frozen=True)
class DieBennyEffect(Result):
    """``bennies`` bennies on one attack die: its value before and after, and the roll's hits.

    ``hits_after`` maps each number of hits to its exact chance; when the die explodes the new
    dice are still to be rolled, and the last key ``top`` holds "top or more" (the chain of
    explosions is unbounded); otherwise it is the one certain count and ``top`` is None.
    """

    die_index: int
    bennies: int
    value_before: int
    value_after: int
    hits_before: int
    explodes: bool
    hits_after: dict[int, Fraction]
    top: int | None

    @property
    def hit_before(self) -> bool:
        return self.hits_before > 0

    @property
    def hit_chance_after(self) -> Fraction:
        """P(at least one hit) after the spend (the foe strikes back only without one)."""
        return sum((p for hits, p in self.hits_after.items() if hits > 0), Fraction(0))


def _attack_roll(result: AttackResult | HealingResult | PoisonResult) -> AttackResult:
    if isinstance(result, HealingResult | PoisonResult):
        return result.roll
    if isinstance(result, AttackResult):
        return result
    raise RulesError("Bennies on a die need an attack, healing or poison roll's result.")


def die_benny_effect(
    result: AttackResult | HealingResult | PoisonResult,
    *,
    die_index: int,
    bennies: int = 1,
    rows: int = EXPLOSION_ROWS,
) -> DieBennyEffect:
    """The exact hits after ``bennies`` bennies on die ``die_index`` of an attack roll.

    Seed "Attack Rolls": "each BENNY spent grants a +1 to the roll of one die"; "Each die equal
    to or above the FOE's difficulty causes 1 hit"; "Each die resulting in 6 or above explodes!
    Causing 1 hit and adding another d6 to the roll" (RULES-NOTES: a die pushed to 6 by bennies
    explodes then, once). Below 6 the new count is certain. A die reaching 6 hits and adds a
    fresh d6, whose own chain of hits is the one-die attack roll's
    (``attack_hit_distribution`` with skill 0), so hits after = the recount + that chain;
    ``rows`` extra counts are listed, the rest folded into the last key.
    """
    roll = _attack_roll(result)
    if roll.purpose == "foe attack":
        raise IllegalMoveError("Bennies are the players'; they cannot change a foe's attack.")
    index = check_int(die_index, "The die to push", low=0, high=len(roll.dice) - 1)
    bennies = _check_bennies(bennies, low=1)
    rows = check_int(rows, "The rows after an explosion", low=1, high=MAX_EXPLOSIONS)
    die = roll.dice[index]
    after = die.value + bennies
    threshold = hit_threshold(roll.difficulty)
    recount = roll.hits - (die.value >= threshold) + (after >= threshold)
    explodes = after >= EXPLODES_AT and not die.exploded
    if not explodes:
        hits_after = {recount: Fraction(1)}
        top = None
    else:
        chain = attack_hit_distribution(skill=0, difficulty=roll.difficulty, top=rows)
        hits_after = {recount + extra: p for extra, p in chain.items()}
        top = recount + rows
    return DieBennyEffect(
        die_index=index,
        bennies=bennies,
        value_before=die.value,
        value_after=after,
        hits_before=roll.hits,
        explodes=explodes,
        hits_after=hits_after,
        top=top,
    )
