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

#: The longest currency name (both words, "Hero point / Hero points"): it heads a column of the
#: Party tool and the GM's table.
NAME_MAX = 40

DEFAULT_RULESET: dict[str, Any] = {
    # One word for one and many ("Inspiration", "Luck"), or both: "Hero point / Hero points".
    "currency": "Inspiration",
}


def validate_ruleset(data: Any) -> dict[str, Any]:
    """The campaign's overrides over the defaults, checked: the currency's name (at most
    ``NAME_MAX`` characters, no control characters, runs of spaces made one; one "/" at most,
    with a word on each side)."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise RulesError("The ruleset must be a mapping.")
    unknown = sorted(set(data) - set(DEFAULT_RULESET))
    if unknown:
        raise RulesError(f"Any game has no setting {unknown[0]!r}.")
    raw = {**DEFAULT_RULESET, **data}["currency"]
    what = "The currency's name"
    if not isinstance(raw, str):
        raise RulesError(f"{what} must be text.")
    name = " ".join(raw.split())
    if not name:
        raise RulesError(f"{what} can't be blank: name it (Inspiration, Hero points, Luck...).")
    if len(name) > NAME_MAX:
        raise RulesError(f"{what} can be at most {NAME_MAX} characters (it has {len(name)}).")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise RulesError(f"{what} can only hold letters, numbers, spaces and punctuation.")
    words = [w.strip() for w in name.split("/")]
    if len(words) > 2 or not all(words):
        raise RulesError(
            f"{what}: one word, or one and many with a / between (Hero point / Hero points)."
        )
    return {"currency": " / ".join(words)}


def _small(word: str) -> str:
    """As a card says it mid-sentence: "hero points", but "GM tokens" kept."""
    return word if word[:2].isupper() else word[:1].lower() + word[1:]


# A one-word name read as a count: the plural of a noun counted in most games ("Hero point":
# "2 hero points"), and back ("Hero points": "1 hero point"). Any other name is said the same
# for one and many, as a mass noun is ("Luck", "Inspiration": "2 luck").
_COUNTED = {"point": "points", "token": "tokens", "chip": "chips", "coin": "coins",
            "bead": "beads", "benny": "bennies", "die": "dice"}  # fmt: skip
_COUNTED_ONE = {many: one for one, many in _COUNTED.items()}


def _forms(name: str) -> tuple[str, str]:
    """(one, many) of a name the GM gave in one word: its last word inflected when it is a
    noun of ``_COUNTED`` (either form, any case: "Fate Points"), else the name for both."""
    head, _, last = name.rpartition(" ")
    folded = last.casefold()
    for table, other in ((_COUNTED, False), (_COUNTED_ONE, True)):
        if folded in table:
            turned = table[folded]
            turned = turned[:1].upper() + turned[1:] if last[:1].isupper() else turned
            pair = (f"{head} {turned}".strip(), name)
            return pair if other else pair[::-1]
    return name, name


def currency_words(ruleset: Mapping[str, Any]) -> tuple[str, str, str]:
    """(label, one, many) of the table's currency under a validated ruleset: "Hero point / Hero
    points" gives ("Hero points", "hero point", "hero points"), "Luck" ("Luck", "luck", "luck");
    one word that is a counted noun has both forms ("Hero points": "1 hero point")."""
    words = ruleset["currency"].split(" / ")
    one, many = (words[0], words[-1]) if len(words) == 2 else _forms(words[0])
    return many, _small(one), _small(many)
