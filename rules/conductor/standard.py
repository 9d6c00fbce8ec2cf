"""conductor (seed 002): the standard roll, d12 + skill over a difficulty, and its bennies.

Seed "Standard Roll Procedure": "rolls a d12 and adds their skill, attempting to roll over the
difficulty"; "each BENNY spent grants a +1".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules.conductor.ruleset import _check_bennies, _check_difficulty, _check_skill
from rules.core import Die, Result, Rng, RulesError, check_int, resolve_rng, roll_die

#: The standard roll's die (seed: "rolls a d12").
STANDARD_DIE = 12


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
