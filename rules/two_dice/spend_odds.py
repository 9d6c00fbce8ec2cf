"""two_dice (seed 003): what a hinder or resist buys against a declared check, exactly.

Seed "Opposing": "If the hindering character succeeds, roll a die and apply the result as a
penalty to the hindered action check result against all targets"; a resist does the same
"against only the resisting character"; "the penalties always stack". The reaction's own check
comes first; what it buys if it succeeds is the change in every band of the action, exact over
the six faces of the penalty die.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from rules.core import Result, RulesError
from rules.two_dice.odds import _band_distribution
from rules.two_dice.opposition import PendingAction
from rules.two_dice.ruleset import BANDS, CRITICAL_SUCCESS, DIE_SIDES, HINDER, RESIST, SUCCESS


@dataclasses.dataclass(frozen=True)
class OppositionEffect(Result):
    """A successful hinder or resist: the action's bands now (``before``) and once its penalty
    die is rolled (``after``), against ``target`` (None: the action as declared)."""

    opposition: str
    reactor: str
    target: str | None
    before: dict[str, Fraction]
    after: dict[str, Fraction]

    @property
    def success_before(self) -> Fraction:
        return self.before[SUCCESS] + self.before[CRITICAL_SUCCESS]

    @property
    def success_after(self) -> Fraction:
        return self.after[SUCCESS] + self.after[CRITICAL_SUCCESS]


def opposition_effect(action: PendingAction, *, opposition: str, reactor: str) -> OppositionEffect:
    """Every band of the declared action before and after ``reactor``'s successful opposition.

    Seed "Hinder": a successful hinder rolls "a die and apply the result as a penalty to the
    hindered action check result against all targets" (read against the action as declared,
    or against the reactor when it is a target, as ``PendingAction.success_if_opposed``);
    "Resist": the same "against only the resisting character"; penalties stack with those known.
    """
    if not isinstance(action, PendingAction):
        raise RulesError("Opposition odds need the declared action.")
    if opposition not in (HINDER, RESIST):
        raise RulesError(f"{opposition!r} is neither {HINDER} nor {RESIST}.")
    target = reactor if reactor in action.targets else None
    if opposition == RESIST:
        target = action._target(reactor)
    known = action.known_penalty(target)

    def bands(penalty: int) -> dict[str, Fraction]:
        return _band_distribution(action.dice_mode, action.rolled, action.attribute_value, penalty)

    after = dict.fromkeys(BANDS, Fraction(0))
    for face in range(1, DIE_SIDES + 1):
        for band, p in bands(known + face).items():
            after[band] += p / DIE_SIDES
    return OppositionEffect(
        opposition=opposition, reactor=reactor, target=target, before=bands(known), after=after
    )
