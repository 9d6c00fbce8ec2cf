"""The annulus sheet: training-perk dice per challenge type (seed 000: "Training perks can
increase the number of dice rolled, but only for certain challenge types")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import NamedNumbers, SheetSpec, first_of, names_from

#: RULES-NOTES default when a ruleset lacks the list.
CHALLENGE_TYPES = ("Knowledge", "Finesse", "Force", "Perception")


def sheet(ruleset: Mapping[str, Any]) -> SheetSpec:
    types = names_from(first_of(ruleset, "challenge_types", "types"), CHALLENGE_TYPES)
    perks = NamedNumbers(
        "Training perks",
        key="training_perks",
        names=types,
        range=(0, 10),
        what="Training perk",
        prefix="perk",
        shown="+{}",
        note="dice",
        form_title="Training perks (extra dice)",
    )
    return SheetSpec(system="annulus", parts=(perks,))
