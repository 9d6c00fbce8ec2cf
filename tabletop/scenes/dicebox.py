"""The free-form dice box: ``3d6+2``, ``4d10k2``, ``2d6!``, ``8d6>3``, ``1d20+5 >= 15`` (the whole
notation: ``rules.expression``, the page ``/dice/``), offered in every system.

Its statistics bands are its totals, lowest (the "worst") to highest, from the exact
distribution of ``rules.expression``; a wide spread is grouped into ranges of about equal
chance (``total_bands``) so a roll stores a short list.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules import expression
from tabletop.characters.saved_rolls import dice_for
from tabletop.scenes.rollkinds import RollKind, RollOutcome, field_str, odds_rows, register_generic

#: Most totals stored one by one (a d100's); a wider spread is grouped into ``STATS_GROUPS``.
STATS_MAX_BANDS = 100
STATS_GROUPS = 40
#: Between the two ends of a range of totals: "7–9".
RANGE = "–"


def roll(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    text = field_str(data, "expression", label="Dice expression", max_length=200)
    result = expression.roll(text, rng=rng)
    detail = result.to_dict()
    if "success" in detail:  # a comparison with a target, "1d20+5 >= 15": its outcome
        outcome = "success" if detail["success"] else "failure"
        summary = f"{outcome.capitalize()} ({detail['left']} {detail['op']} {detail['target']})"
        return RollOutcome(str(result.expression), summary, detail, outcome)
    return RollOutcome(title=str(result.expression), summary=str(result.total), detail=detail)


def total_bands(dist: Mapping[int, Fraction]) -> list[tuple[str, Fraction]]:
    """The totals' exact chances, lowest first; past ``STATS_MAX_BANDS`` totals, contiguous
    ranges of about 1/``STATS_GROUPS`` chance each ("7–9"), worked out from the distribution
    alone so every roll of one expression gets the same ranges."""
    items = sorted((total, p) for total, p in dist.items() if p)
    if len(items) <= STATS_MAX_BANDS:
        return [(str(total), p) for total, p in items]
    out: list[tuple[str, Fraction]] = []
    start, chance, cumulative = None, Fraction(0), Fraction(0)
    for i, (total, p) in enumerate(items):
        start = total if start is None else start
        chance += p
        cumulative += p
        if cumulative >= Fraction(len(out) + 1, STATS_GROUPS) or i == len(items) - 1:
            out.append((str(total) if start == total else f"{start}{RANGE}{total}", chance))
            start, chance = None, Fraction(0)
    return out


def total_landed(outcome: RollOutcome, keys: tuple[str, ...]) -> str | None:
    """The band (a total, or a range of totals) a roll's total is in."""
    total = outcome.detail.get("total")
    if not isinstance(total, int) or isinstance(total, bool):
        return None
    for key in keys:
        low, _, high = key.partition(RANGE)
        if int(low) <= total <= int(high or low):
            return key
    return None


def odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    text = field_str(data, "expression", label="Dice expression", max_length=200)
    tree = expression.parse(text)
    dist = expression.distribution(tree)
    if isinstance(tree.body, expression.Compare):  # 1 is success: its chance is the headline
        rows = odds_rows(dict(sorted(dist.items())), labels={0: "failure", 1: "success"})
        return {"rows": rows, "bands": total_bands(dist), "chance": dist.get(1, Fraction(0)),
                "goal": "to succeed"}  # fmt: skip
    return {"rows": odds_rows(dict(sorted(dist.items()))), "bands": total_bands(dist)}


# --- a saved roll's name in place of dice (tabletop.characters.saved_rolls) -------------------


def _dice(data: dict[str, Any], character: Any) -> tuple[dict[str, Any], Any]:
    text = field_str(data, "expression", label="Dice expression", max_length=200)
    dice, saved = dice_for(text, data=data, character=character)
    return {**data, "expression": dice}, saved


def saved_or_typed_roll(
    *, data: dict[str, Any], character: Any, ruleset: Any, rng: Any
) -> RollOutcome:
    """``roll`` of the dice typed, or of the saved roll named, its card titled with its name
    ("Longsword: 1d20 + 5")."""
    data, saved = _dice(data, character)
    outcome = roll(data=data, character=character, ruleset=ruleset, rng=rng)
    if saved is None:
        return outcome
    return dataclasses.replace(outcome, title=f"{saved.name}: {outcome.title}")


def saved_or_typed_odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    """``odds`` of the dice typed, or of the saved roll named."""
    return odds(data=_dice(data, character)[0], character=character, ruleset=ruleset)


register_generic(
    RollKind(
        name="expression",
        label="Dice",
        card="scenes/dicebox/card.html",
        form="scenes/dicebox/form.html",
        roll=saved_or_typed_roll,
        odds=saved_or_typed_odds,
        band_of=total_landed,
    )
)
