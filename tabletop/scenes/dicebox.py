"""The free-form dice box: ``3d6+2``, ``4d10k2``, ``2d6!``, offered in every system."""

from __future__ import annotations

from typing import Any

from rules import expression
from tabletop.scenes.rollkinds import RollKind, RollOutcome, field_str, odds_rows, register_generic


def roll(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    text = field_str(data, "expression", label="Dice expression", max_length=200)
    result = expression.roll(text, rng=rng)
    return RollOutcome(
        title=str(result.expression) if hasattr(result, "expression") else text,
        summary=str(result.total),
        detail=result.to_dict(),
    )


def odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    text = field_str(data, "expression", label="Dice expression", max_length=200)
    dist = expression.distribution(text)
    return {"rows": odds_rows(dict(sorted(dist.items())))}


register_generic(
    RollKind(
        name="expression",
        label="Dice",
        card="scenes/dicebox/card.html",
        form="scenes/dicebox/form.html",
        roll=roll,
        odds=odds,
    )
)
