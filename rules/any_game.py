"""Any game: a table playing rules of its own (D&D, Pathfinder, a home brew), which the app does
not know. There are no seed rules to follow: every roll is the dice language
(``rules.expression``), turns are an initiative order (``rules.turns``), and the one setting is
the name of the table's currency, which the GM chooses (inspiration, hero points, luck...).

Public: ``DEFAULT_RULESET``, ``validate_ruleset``, ``currency_words``; ``NAME_MAX``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from rules.core import RulesError

__all__ = ["DEFAULT_RULESET", "NAME_MAX", "currency_words", "validate_ruleset"]

#: The longest currency name: it heads a column of the Party tool and the GM's table.
NAME_MAX = 30

DEFAULT_RULESET: dict[str, Any] = {
    # As a table heads it, and as a card counts several: "Inspiration", "Hero points".
    "currency": "Inspiration",
    # As a card counts one ("1 hero point"); blank: the name itself, in small letters.
    "currency_one": "",
}


def _name(value: Any, what: str, *, blank: bool) -> str:
    if not isinstance(value, str):
        raise RulesError(f"{what} must be text.")
    name = " ".join(value.split())
    if not name and not blank:
        raise RulesError(f"{what} can't be blank: name it (inspiration, hero points, luck...).")
    if len(name) > NAME_MAX:
        raise RulesError(f"{what} can be at most {NAME_MAX} characters (it has {len(name)}).")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise RulesError(f"{what} can only hold letters, numbers, spaces and punctuation.")
    return name


def validate_ruleset(data: Any) -> dict[str, Any]:
    """The campaign's overrides over the defaults, checked: the currency's name (1 to
    ``NAME_MAX`` characters, no control characters; runs of spaces become one)."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise RulesError("The ruleset must be a mapping.")
    unknown = sorted(set(data) - set(DEFAULT_RULESET))
    if unknown:
        raise RulesError(f"Any game has no setting {unknown[0]!r}.")
    merged = {**DEFAULT_RULESET, **data}
    return {
        "currency": _name(merged["currency"], "The currency's name", blank=False),
        "currency_one": _name(merged["currency_one"], "The name of one", blank=True),
    }


def currency_words(ruleset: Mapping[str, Any]) -> tuple[str, str, str]:
    """(label, one, many) of the table's currency under a validated ruleset: ("Hero points",
    "hero point", "hero points")."""
    label = ruleset["currency"]
    many = label if label[:2].isupper() else label[:1].lower() + label[1:]  # keep "GM tokens"
    one = ruleset["currency_one"] or many
    return label, one, many
