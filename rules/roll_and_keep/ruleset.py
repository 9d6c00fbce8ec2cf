"""Roll and keep (seed 001): the campaign ruleset, difficulties and degrees of success.

Colours, attributes and their links, the difficulty ladder ("Easy – 3 … Virtually impossible –
10"), the indirectly opposed difficulty, and the degree names ("Marginal" … "Phenomenal").
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rules.core import RulesError, check_int, lookup

#: "ten-sided dice (d10s)".
SIDES = 10
#: The seed's words for no success ("Characters fail actions when they do not roll any
#: successes") and for a spectacular failure ("This is called a botch").
FAILURE = "Failure"
BOTCH = "Botch"

# --- ruleset (campaign data) -------------------------------------------------------------------

#: Colours and the difficulty ladder and degrees are the seed's; the attribute list and the
#: attribute-to-colour links are RULES-NOTES defaults (the seed's list is missing).
DEFAULT_RULESET: dict[str, Any] = {
    "colours": ["White", "Blue", "Black", "Red", "Green"],
    "attributes": [
        "Cunning",
        "Intelligence",
        "Strength",
        "Endurance",
        "Charisma",
        "Finesse",
        "Acuity",
    ],
    # attribute -> the colour(s) it is linked to
    "links": {
        "Cunning": ["Black"],
        "Intelligence": ["Blue"],
        "Strength": ["Red"],
        "Endurance": ["Green"],
        "Charisma": ["White"],
        "Finesse": ["Black"],
        "Acuity": ["Blue"],
    },
    # "successes are static numbers, determined by the difficulty of the action"
    "difficulties": {
        "Easy": 3,
        "Routine": 4,
        "Straightforward": 5,
        "Standard": 6,
        "Challenging": 7,
        "Difficult": 8,
        "Extremely difficult": 9,
        "Virtually impossible": 10,
    },
    # degree names for 1, 2, 3, ... successes; the last one also names every higher count
    "degrees": ["Marginal", "Moderate", "Complete", "Exceptional", "Phenomenal"],
}

_FIELDS = ("colours", "attributes", "links", "difficulties", "degrees")


def _names(value: Any, field: str) -> list[str]:
    """A non-empty list of distinct (case-insensitively) non-empty names."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise RulesError(f"Ruleset field {field!r} must be a list of names, not {value!r}.")
    names: list[str] = []
    seen: set[str] = set()
    for name in value:
        if not isinstance(name, str) or not name.strip():
            raise RulesError(f"Ruleset field {field!r}: every name must be text, not {name!r}.")
        name = name.strip()
        if name.casefold() in seen:
            raise RulesError(f"Ruleset field {field!r} names {name!r} twice.")
        seen.add(name.casefold())
        names.append(name)
    if not names:
        raise RulesError(f"Ruleset field {field!r} must name at least one entry.")
    return names


def _normalise_links(
    links: Any, *, colours: Sequence[str], attributes: Sequence[str] | None, field: str
) -> dict[str, list[str]]:
    """attribute -> list of canonical colour names; a single colour may be given as a string.

    With ``attributes`` given, every linked attribute must be one of them; otherwise any
    non-empty attribute name is accepted (a caller's own links may name new attributes).
    """
    if not isinstance(links, Mapping):
        raise RulesError(f"{field} must map each attribute to its colour(s), not {links!r}.")
    out: dict[str, list[str]] = {}
    for attribute, linked in links.items():
        if not isinstance(attribute, str) or not attribute.strip():
            raise RulesError(f"{field}: attribute names must be text, not {attribute!r}.")
        name = attribute.strip()
        if attributes is not None:
            name = lookup(name, attributes, f"attribute in {field}")
        if any(known.casefold() == name.casefold() for known in out):
            raise RulesError(f"{field} links attribute {name!r} twice.")
        if isinstance(linked, str):
            linked = [linked]
        if not isinstance(linked, Iterable):
            raise RulesError(f"{field}: {name!r} must link to a colour or a list of colours.")
        out[name] = []
        for colour in linked:
            canonical = lookup(colour, colours, f"colour in {field} for {name!r}")
            if canonical not in out[name]:
                out[name].append(canonical)
    return out


def validate_ruleset(data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Merge ``data`` over ``DEFAULT_RULESET``, check every field and return the full ruleset.

    Checks that colours and attributes are named, that every link names a known attribute and
    existing colours, that each difficulty is a number a d10 can meet (1..10) and that there is
    at least one degree name. Errors name the field at fault.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise RulesError(f"A ruleset must be a mapping of fields, not {data!r}.")
    unknown = [key for key in data if key not in _FIELDS]
    if unknown:
        raise RulesError(
            f"Unknown ruleset field(s) {', '.join(map(repr, unknown))}; "
            f"the fields are: {', '.join(_FIELDS)}."
        )
    merged = copy.deepcopy(DEFAULT_RULESET)
    merged.update(copy.deepcopy(dict(data)))

    colours = _names(merged["colours"], "colours")
    attributes = _names(merged["attributes"], "attributes")
    links = _normalise_links(
        merged["links"], colours=colours, attributes=attributes, field="Ruleset field 'links'"
    )
    ladder = merged["difficulties"]
    if not isinstance(ladder, Mapping) or not ladder:
        raise RulesError("Ruleset field 'difficulties' must map difficulty names to numbers.")
    _names(ladder.keys(), "difficulties")
    difficulties = {
        name.strip(): check_int(
            number, f"Ruleset field 'difficulties': {name!r}", low=1, high=SIDES
        )
        for name, number in ladder.items()
    }
    degrees = _names(merged["degrees"], "degrees")
    return {
        "colours": colours,
        "attributes": attributes,
        "links": links,
        "difficulties": difficulties,
        "degrees": degrees,
    }


_DEFAULT = validate_ruleset(None)


def _ruleset(ruleset: Mapping[str, Any] | None) -> dict[str, Any]:
    return _DEFAULT if ruleset is None else validate_ruleset(ruleset)


# --- difficulty and degrees -------------------------------------------------------------------


def difficulty_value(difficulty: int | str, *, ruleset: Mapping[str, Any] | None = None) -> int:
    """A difficulty as the number a kept die must equal or beat: a ladder name or 1..10.

    Seed ladder: "Easy – 3 … Virtually impossible – 10" (names match case-insensitively).
    """
    if isinstance(difficulty, str):
        ladder = _ruleset(ruleset)["difficulties"]
        return ladder[lookup(difficulty, ladder.keys(), "difficulty")]
    if isinstance(difficulty, bool) or not isinstance(difficulty, int):
        raise RulesError(
            f"A difficulty must be a number from 1 to {SIDES} or a difficulty name, "
            f"not {difficulty!r}."
        )
    return check_int(difficulty, "The difficulty", low=1, high=SIDES)


def degree_name(
    successes: int, *, botch: bool = False, ruleset: Mapping[str, Any] | None = None
) -> str:
    """Seed "degrees of success": 1 Marginal … 5 Phenomenal (5 or more, RULES-NOTES);
    0 successes is a failure, or a botch when a 1 was rolled."""
    check_int(successes, "The number of successes", low=0)
    if successes == 0:
        return BOTCH if botch else FAILURE
    degrees = _ruleset(ruleset)["degrees"]
    return degrees[min(successes, len(degrees)) - 1]


# --- the indirectly opposed difficulty --------------------------------------------------------


def indirect_difficulty(*, passive_attribute_value: int, passive_specialities: int = 0) -> int:
    """Seed: "a difficulty equal to the passive character's relevant attribute and related
    specialities" — Acuity 2 gives 2; Acuity 4 and Acute Hearing gives 5.

    The number is returned as it is. A d10 cannot meet a difficulty over 10, so such a roll
    can gain no success (any 1 then makes it a botch); a difficulty of 0 or 1 is met by every
    kept die.
    """
    value = check_int(passive_attribute_value, "The passive character's attribute value", low=0)
    extra = check_int(
        passive_specialities, "The passive character's number of relevant specialities", low=0
    )
    return value + extra
