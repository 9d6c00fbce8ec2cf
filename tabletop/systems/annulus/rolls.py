"""annulus_check: a challenge check or op check made outside a live operation challenge.

The roll form picks a difficulty (successes needed), one or two challenge types (the character's
training-perk dice for them are added: the larger perk when both match, as the rules read it)
and the kind of check: a challenge check (3 dice by default) or an op check (4 dice).
The rules' check functions take a challenge; a one-die stand-in carries the difficulty and
types, nothing else of it is used.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from rules import annulus
from rules.core import MAX_POOL, lookup
from tabletop.systems.api import RollKind, RollOutcome, field_int, field_str, odds_rows, percent

#: This system's roll kinds, in the order its roll forms show them.
KINDS: list[RollKind] = []

CHECKS = {
    "challenge": ("challenge_check", "Challenge check"),
    "op": ("op_check", "Op check"),
}
PASS_LABELS = {"pass": "Pass", "fail": "Fail"}
#: The dice statistics' bands: a check's outcome ("failure", "success") named as the card does.
BAND_LABELS = {"failure": "Fail", "success": "Pass"}


def _parse(data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    rules = annulus.validate_ruleset(ruleset)
    difficulty = lookup(
        field_str(data, "difficulty", label="Difficulty", max_length=60),
        rules["difficulties"],
        "difficulty",
    )
    types = [field_str(data, "type_1", label="Challenge type", max_length=60)]
    second = data.get("type_2")
    if isinstance(second, str) and second.strip():
        types.append(second.strip())
    elif second not in (None, ""):
        raise ValidationError("Pick the second challenge type from the list.")
    types = [lookup(t, rules["challenge_types"], "challenge type") for t in types]
    if len(types) == 2 and types[0] == types[1]:
        raise ValidationError("A challenge's two types must be different.")
    check = str(data.get("check") or "challenge")
    if check not in CHECKS:
        raise ValidationError("Choose a challenge check or an op check.")
    if character is not None:
        perks = character.training_perks if isinstance(character.training_perks, dict) else {}
        perk_dice = annulus.training_dice(types=types, perks=perks, ruleset=rules)
    elif data.get("perk_dice") in (None, ""):
        perk_dice = 0
    else:
        perk_dice = field_int(data, "perk_dice", label="Training-perk dice", low=0, high=MAX_POOL)
    base = rules["challenge_check_dice"] if check == "challenge" else rules["op_check_dice"]
    return {
        "rules": rules,
        "difficulty": difficulty,
        "needed": rules["difficulties"][difficulty],
        "types": tuple(types),
        "check": check,
        "perk_dice": perk_dice,
        "base_dice": base,
    }


def roll(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    args = _parse(data, character, ruleset)
    stand_in = annulus.Challenge(
        difficulty=args["difficulty"], needed=args["needed"], types=args["types"], values=(1,)
    )
    roll_check = annulus.op_check if args["check"] == "op" else annulus.challenge_check
    result = roll_check(stand_in, perk_dice=args["perk_dice"], ruleset=ruleset, rng=rng)
    label = CHECKS[args["check"]][1]
    detail = result.to_dict()
    detail.update(difficulty=args["difficulty"], types=list(args["types"]), check_label=label)
    verdict = "Passed" if result.passed else "Failed"
    return RollOutcome(
        title=f"{label}, {args['difficulty']} ({' / '.join(args['types'])})",
        summary=(
            f"{verdict}: {result.successes} success{'' if result.successes == 1 else 'es'}, "
            f"{result.needed} needed"
        ),
        detail=detail,
        outcome="success" if result.passed else "failure",
    )


def odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    args = _parse(data, character, ruleset)
    if args["check"] == "op":
        probability = annulus.op_check_probability
    else:
        probability = annulus.challenge_check_probability
    p = probability(difficulty=args["difficulty"], perk_dice=args["perk_dice"], ruleset=ruleset)
    rules = args["rules"]
    dice = args["base_dice"] + args["perk_dice"]
    training = f" incl. {args['perk_dice']} training" if args["perk_dice"] else ""
    return {
        "rows": odds_rows({"pass": p, "fail": 1 - p}, labels=PASS_LABELS),
        "note": (
            f"Pass: {percent(p)}. {dice} d{rules['check_die_sides']}{training}, each "
            f"{rules['check_target']}+ a success; {args['needed']} needed."
        ),
        "chance": p,
        "goal": "to pass",
        "bands": [("failure", 1 - p), ("success", p)],
    }


KINDS.append(
    RollKind(
        name="annulus_check",
        label="Check (challenge / op)",
        card="systems/annulus/rolls/check.html",
        form="systems/annulus/forms/check.html",
        roll=roll,
        odds=odds,
        band_labels=BAND_LABELS,
    )
)
