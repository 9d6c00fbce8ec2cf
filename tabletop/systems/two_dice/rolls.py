"""two_dice: 2d6 + attribute against 15, the difficulty's cost paid from a linked resource.

The roll form picks an attribute, a difficulty and the resource that pays (one of the two linked to
the attribute); the character's sheet gives the attribute's value and the resource's current
points. The resource is NOT deducted here (the spend action comes later): the card shows what
would be paid and the penalty of whatever cannot be paid.
"""

from __future__ import annotations

from typing import Any

from rules import two_dice
from rules.core import lookup
from tabletop.systems.api import (
    RollKind,
    RollOutcome,
    field_int,
    field_int_or_zero,
    field_str,
    odds_rows,
    ordered_bands,
    percent,
)
from tabletop.systems.two_dice import resources

#: This system's roll kinds, in the order its roll forms show them.
KINDS: list[RollKind] = []

BAND_LABELS = {
    two_dice.CRITICAL_FAILURE: "Critical failure",
    two_dice.FAILURE: "Failure",
    two_dice.SUCCESS: "Success",
    two_dice.CRITICAL_SUCCESS: "Critical success",
}
#: The GM's extra penalty's source name on the card.
OTHER_PENALTY = "Other penalty"


def _sheet_int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _parse(data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    """The check's arguments: names from the roll form, numbers from the sheet (or the form)."""
    attribute, resource = two_dice.check_pairing(
        attribute=field_str(data, "attribute", label="Attribute", max_length=60),
        resource=field_str(data, "resource", label="Resource", max_length=60),
        ruleset=ruleset,
    )
    difficulty = lookup(
        field_str(data, "difficulty", label="Difficulty", max_length=60),
        two_dice.validate_ruleset(ruleset)["difficulties"],
        "difficulty",
    )
    extra = field_int_or_zero(
        data, "penalty", label="Extra penalty", low=0, high=two_dice.MAX_NUMBER
    )
    if character is not None:
        value = _sheet_int((character.attributes or {}).get(attribute))
        current = (character.resources or {}).get(resource) or {}
        available = _sheet_int(current.get("current") if isinstance(current, dict) else 0)
    else:
        value = field_int(data, "attribute_value", label=f"{attribute}'s value", low=-99, high=99)
        available = field_int_or_zero(
            data, "resource_available", label=f"Available {resource}", low=0, high=999
        )
    return {
        "attribute": attribute,
        "attribute_value": value,
        "difficulty": difficulty,
        "resource": resource,
        "resource_available": available,
        "penalties": [(OTHER_PENALTY, extra)] if extra else [],
        "extra": extra,
    }


def roll(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    args = _parse(data, character, ruleset)
    extra = args.pop("extra")
    result = two_dice.check(**args, rng=rng, ruleset=ruleset)
    detail = result.to_dict()
    detail["band_label"] = BAND_LABELS[result.band]
    detail["extra_penalty"] = extra
    payment = result.payment
    return RollOutcome(
        title=(
            f"{result.attribute} {result.attribute_value:+d} · {result.difficulty} "
            f"(cost {payment.cost} from {payment.resource})"
        ),
        summary=f"{BAND_LABELS[result.band]} ({result.total})",
        detail=detail,
        outcome=result.band,
    )


def odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    args = _parse(data, character, ruleset)
    payment = two_dice.pay_cost(
        difficulty=args["difficulty"],
        resource=args["resource"],
        available=args["resource_available"],
        attribute=args["attribute"],
        ruleset=ruleset,
    )
    penalty = payment.unpaid + args["extra"]
    dist = two_dice.check_distribution(
        attribute=args["attribute_value"],
        difficulty=args["difficulty"],
        penalty=penalty,
        ruleset=ruleset,
    )
    success = dist[two_dice.SUCCESS] + dist[two_dice.CRITICAL_SUCCESS]
    if payment.unpaid:
        paying = (
            f"{payment.resource} has {payment.available} of {payment.cost}: "
            f"{payment.unpaid} unpaid, a −{payment.unpaid} penalty"
        )
    else:
        paying = f"cost {payment.cost} paid from {payment.resource} ({payment.available} there)"
    return {
        "rows": odds_rows(dist, labels=BAND_LABELS),
        "note": f"{paying}; total penalty −{penalty}. Success or better: {percent(success)}.",
        "chance": success,
        "goal": "to succeed",
        "bands": ordered_bands(dist, two_dice.BANDS),
    }


KINDS.append(
    RollKind(
        name="two_dice",
        consequences=resources.after_check,  # the cost leaves the sheet
        stale=frozenset({"party-row", "table-row"}),  # the cost leaves the roller's sheet
        label="Check (2d6)",
        card="systems/two_dice/rolls/check.html",
        form="systems/two_dice/forms/check.html",
        roll=roll,
        odds=odds,
        band_labels=BAND_LABELS,
    )
)

KINDS.append(
    RollKind(
        name="two_dice_action",
        label="Action",
        card="systems/two_dice/rolls/action.html",
        stale=frozenset({"turns", "party", "table"}),
        band_labels=BAND_LABELS,
        no_odds="its odds depend on the hinders and resists rolled against it.",
    )
)
KINDS.append(
    RollKind(
        name="two_dice_reaction",
        label="Reaction",
        card="systems/two_dice/rolls/reaction.html",
        stale=frozenset({"turns", "party", "table"}),
        band_labels=BAND_LABELS,
    )
)
