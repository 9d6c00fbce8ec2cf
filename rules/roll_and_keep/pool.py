"""Roll and keep (seed 001): how many dice are rolled and kept.

N = attribute + relevant specialities; K from the character's permanent mana: "the character
can keep as many dice as they have mana in that colour" (``keep_count``), never more than N.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from rules.core import Result, RulesError, check_int, check_pool, lookup
from rules.roll_and_keep.ruleset import _normalise_links, _ruleset

# --- how many dice are kept -------------------------------------------------------------------


def keep_count(
    *,
    attribute: str,
    mana: Mapping[str, int],
    specialities: int = 0,
    links: Mapping[str, Any] | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> int:
    """K, the number of dice kept, before "K never exceeds N" (see ``cap_kept``).

    Seed: "If a rolled attribute is linked to a colour of mana possessed by the character, the
    character can keep as many dice as they have mana in that colour" (permanent mana); if
    linked to several such colours, the largest (RULES-NOTES). "If the attribute is not linked
    to the character's mana, they can keep a number of dice equal to their total mana pool
    divided by the number of colours they don't have mana in (rounded down to a minimum of
    1)" — the divisor is at least 1. Then "+1 dice for each relevant Speciality".

    ``mana`` maps colour -> permanent mana (missing colours have none); ``links`` maps
    attribute -> colour(s), None meaning the ruleset's links.
    """
    rules = _ruleset(ruleset)
    colours: list[str] = rules["colours"]
    if links is None:
        linked_map = rules["links"]
    else:
        linked_map = _normalise_links(links, colours=colours, attributes=None, field="links")
    known = list(rules["attributes"])
    known += [a for a in linked_map if all(a.casefold() != k.casefold() for k in known)]
    name = lookup(attribute, known, "attribute")
    linked = next((c for a, c in linked_map.items() if a.casefold() == name.casefold()), [])
    check_int(specialities, "The number of relevant specialities", low=0)
    permanent = _permanent_mana(mana, colours)

    owned_links = [permanent[c] for c in linked if permanent[c] > 0]
    if owned_links:
        base = max(owned_links)
    else:
        missing = sum(1 for c in colours if permanent[c] == 0)
        base = max(1, sum(permanent.values()) // max(1, missing))
    return base + specialities


def _permanent_mana(mana: Any, colours: Sequence[str]) -> dict[str, int]:
    if not isinstance(mana, Mapping):
        raise RulesError(f"Mana must map each colour to the permanent mana in it, not {mana!r}.")
    permanent = dict.fromkeys(colours, 0)
    given: set[str] = set()
    for colour, amount in mana.items():
        canonical = lookup(colour, colours, "colour of mana")
        if canonical in given:
            raise RulesError(f"Mana lists the colour {canonical} twice.")
        given.add(canonical)
        permanent[canonical] = check_int(amount, f"{canonical} mana", low=0)
    return permanent


def cap_kept(*, rolled: int, kept: int) -> int:
    """The dice actually kept: K capped at N (RULES-NOTES "K never exceeds N"); 0 when N is 0."""
    check_pool(rolled, "The number of dice rolled")
    check_int(kept, "The number of dice kept", low=0)
    return min(rolled, kept)


@dataclasses.dataclass(frozen=True)
class DicePool(Result):
    """N dice rolled and the K kept (already capped at N); ``keep_count`` is K before the cap."""

    rolled: int
    kept: int
    keep_count: int


def dice_pool(
    *,
    attribute: str,
    attribute_value: int,
    mana: Mapping[str, int],
    specialities: int = 0,
    links: Mapping[str, Any] | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> DicePool:
    """N and K from the sheet: "roll his Cunning stat + 1 for the Deceit speciality, and keep 4".

    N = attribute value + relevant specialities; K = ``keep_count`` capped at N.
    """
    value = check_int(attribute_value, f"{attribute} (attribute value)", low=0)
    check_int(specialities, "The number of relevant specialities", low=0)
    rolled = check_pool(
        value + specialities, "The number of dice rolled (attribute + specialities)"
    )
    k = keep_count(
        attribute=attribute, mana=mana, specialities=specialities, links=links, ruleset=ruleset
    )
    return DicePool(rolled=rolled, kept=min(rolled, k), keep_count=k)
