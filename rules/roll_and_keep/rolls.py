"""Roll and keep (seed 001): the rolls: unopposed, indirectly and directly opposed.

"roll his Cunning stat + 1 for the Deceit speciality, and keep 4 dice"; each kept die "equal to
or over the required number" is a success.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from rules.core import Die, Result, Rng, RulesError, check_int, check_pool, resolve_rng, roll_dice
from rules.roll_and_keep.ruleset import SIDES, degree_name, difficulty_value, indirect_difficulty

# --- rolling ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RollResult(Result):
    """One roll: every die in the order rolled (``kept`` False for dropped dice), N, K (capped),
    the difficulty number, the kept successes, the botch flag and the degree name."""

    dice: tuple[Die, ...]
    rolled: int
    kept: int
    difficulty: int
    successes: int
    botch: bool
    degree: str

    @property
    def succeeded(self) -> bool:
        return self.successes > 0


def _score(
    faces: Sequence[int], kept: int, difficulty: int, ruleset: Mapping[str, Any] | None
) -> RollResult:
    kept = min(kept, len(faces))
    # Keep the K highest; among equal faces the earlier die is kept (it makes no difference).
    order = sorted(range(len(faces)), key=lambda i: (-faces[i], i))
    kept_at = set(order[:kept])
    dice = tuple(
        Die(sides=SIDES, rolled=face, value=face, kept=i in kept_at) for i, face in enumerate(faces)
    )
    successes = sum(1 for d in dice if d.kept and d.value >= difficulty)
    botch = successes == 0 and any(d.value == 1 for d in dice)
    return RollResult(
        dice=dice,
        rolled=len(dice),
        kept=kept,
        difficulty=difficulty,
        successes=successes,
        botch=botch,
        degree=degree_name(successes, botch=botch, ruleset=ruleset),
    )


def score_dice(
    *,
    faces: Sequence[int],
    kept: int,
    difficulty: int | str,
    ruleset: Mapping[str, Any] | None = None,
) -> RollResult:
    """Read dice already rolled (e.g. physical dice typed in): keep the ``kept`` highest and count
    each kept die "equal to or over the required number"."""
    if isinstance(faces, str) or not isinstance(faces, Sequence):
        raise RulesError(f"The dice must be a list of d10 faces, not {faces!r}.")
    check_pool(len(faces), "The number of dice rolled")
    for face in faces:
        check_int(face, "A d10 face", low=1, high=SIDES)
    check_int(kept, "The number of dice kept", low=0)
    number = difficulty_value(difficulty, ruleset=ruleset)
    return _score(tuple(faces), kept, number, ruleset)


def _rolled_count(attribute_value: Any, specialities: Any, who: str = "") -> int:
    check_int(attribute_value, f"The {who}attribute value", low=0)
    check_int(specialities, f"The {who}number of relevant specialities", low=0)
    return check_pool(
        attribute_value + specialities, f"The {who}number of dice rolled (attribute + specialities)"
    )


def roll(
    *,
    attribute_value: int,
    specialities: int = 0,
    kept: int,
    difficulty: int | str,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> RollResult:
    """An unopposed roll: "roll his Cunning stat + 1 for the Deceit speciality, and keep 4 dice".

    Rolls N = attribute value + relevant specialities d10 and keeps the K = ``kept`` highest
    (capped at N; use ``keep_count`` or ``dice_pool`` for K). ``difficulty`` is a ladder name
    or 1..10.
    """
    rolled = _rolled_count(attribute_value, specialities)
    check_int(kept, "The number of dice kept", low=0)
    number = difficulty_value(difficulty, ruleset=ruleset)
    rng = resolve_rng(rng)
    return _score(roll_dice(rolled, SIDES, rng), kept, number, ruleset)


# --- indirectly opposed -----------------------------------------------------------------------


def roll_indirectly_opposed(
    *,
    attribute_value: int,
    specialities: int = 0,
    kept: int,
    passive_attribute_value: int,
    passive_specialities: int = 0,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> RollResult:
    """Seed "Indirectly opposed actions": "acting characters roll the attribute and speciality
    dice for their action, with a difficulty equal to the passive character's relevant attribute
    and related specialities" ("Finesse 5 … against Acuity 2 would roll 5 dice at a difficulty
    of 2")."""
    rolled = _rolled_count(attribute_value, specialities)
    check_int(kept, "The number of dice kept", low=0)
    difficulty = indirect_difficulty(
        passive_attribute_value=passive_attribute_value, passive_specialities=passive_specialities
    )
    rng = resolve_rng(rng)
    return _score(roll_dice(rolled, SIDES, rng), kept, difficulty, ruleset)


# --- directly opposed -------------------------------------------------------------------------

OWN = "own"
OPPONENT = "opponent"


@dataclasses.dataclass(frozen=True)
class DirectContest(Result):
    """A directly opposed action: both rolls, ``net`` = own successes − opponent's, ``winner``
    ("own", "opponent", or None on a tie: the status quo holds) and the winning ``margin``."""

    own: RollResult
    opponent: RollResult
    net: int
    winner: str | None
    margin: int


def resolve_directly_opposed(*, own: RollResult, opponent: RollResult) -> DirectContest:
    """Seed "Directly opposed actions": both "roll their respective dice pools against a static
    difficulty determined by the GM, and subtract any kept successes from their opponent's
    successes. The character with the most successes after this wins"; a tie has no winner
    (RULES-NOTES)."""
    for which, result in (("own", own), ("opponent", opponent)):
        if not isinstance(result, RollResult):
            raise RulesError(f"The {which} roll must be a roll result, not {result!r}.")
    if own.difficulty != opponent.difficulty:
        raise RulesError(
            "Both sides of a directly opposed action roll against the same difficulty "
            f"(got {own.difficulty} and {opponent.difficulty})."
        )
    net = own.successes - opponent.successes
    winner = OWN if net > 0 else OPPONENT if net < 0 else None
    return DirectContest(own=own, opponent=opponent, net=net, winner=winner, margin=abs(net))


def roll_directly_opposed(
    *,
    attribute_value: int,
    specialities: int = 0,
    kept: int,
    opponent_attribute_value: int,
    opponent_specialities: int = 0,
    opponent_kept: int,
    difficulty: int | str,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> DirectContest:
    """Roll both sides of a directly opposed action against one GM difficulty (own side first)
    and resolve it with ``resolve_directly_opposed``."""
    own_rolled = _rolled_count(attribute_value, specialities)
    their_rolled = _rolled_count(opponent_attribute_value, opponent_specialities, "opponent's ")
    check_int(kept, "The number of dice kept", low=0)
    check_int(opponent_kept, "The opponent's number of dice kept", low=0)
    number = difficulty_value(difficulty, ruleset=ruleset)
    rng = resolve_rng(rng)
    own = _score(roll_dice(own_rolled, SIDES, rng), kept, number, ruleset)
    opponent = _score(roll_dice(their_rolled, SIDES, rng), opponent_kept, number, ruleset)
    return resolve_directly_opposed(own=own, opponent=opponent)
