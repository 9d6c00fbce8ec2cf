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
- ``opposition_effect(action, *, opposition, reactor)`` -> ``OppositionEffect``: every band
  of the action before and after a successful hinder or resist (exact over the penalty die).
- Results: ``Payment``, ``Penalty``, ``CheckResult``, ``Opposition``, ``TargetOutcome``,
  ``ActionOutcome``, each with ``to_dict()`` and ``from_dict()``.

Turns, rounds, the one action per turn and the one reaction per round are kept by the
system-neutral ``rules.turns.TurnTracker``.

Modules (every name above is defined in one of them and re-exported here): ``ruleset`` (the
seed's numbers, campaign data, association), ``checks`` (costs, penalties, the check), ``odds``
(exact band odds), ``opposition`` (hinder, resist, ``PendingAction``) and ``spend_odds`` (what
a hinder or resist buys).
"""

from rules.two_dice.checks import (
    CheckResult,
    Payment,
    Penalty,
    band_of,
    check,
    pay_cost,
)
from rules.two_dice.odds import (  # noqa: F401 -- also re-exports names outside __all__
    _kept_sum_counts,  # bench/ and tests/ time uncached odds
    check_distribution,
    dice_distribution,
)
from rules.two_dice.opposition import (
    ActionOutcome,
    Opposition,
    PendingAction,
    TargetOutcome,
    declare_action,
)
from rules.two_dice.ruleset import (  # noqa: F401 -- also re-exports names outside __all__
    AUTOMATIC_FAILURE,
    AUTOMATIC_SUCCESS,
    BANDS,
    COUNTED_DICE,
    CRITICAL_FAILURE,
    CRITICAL_FAILURE_AT,
    CRITICAL_SUCCESS,
    CRITICAL_SUCCESS_AT,
    DEFAULT_RULESET,
    DICE_MODES,
    DIE_SIDES,
    FAILURE,
    HINDER,
    KEEP_HIGHEST,
    KEEP_LOWEST,
    MAX_NUMBER,
    RESIST,
    ROLL,
    SUCCESS,
    SUCCESS_AT,
    UNPAID_COST,
    association_options,
    check_pairing,
    linked_attributes,
    linked_resources,
    validate_ruleset,
)
from rules.two_dice.spend_odds import OppositionEffect, opposition_effect

__all__ = [
    "OppositionEffect",
    "opposition_effect",
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
