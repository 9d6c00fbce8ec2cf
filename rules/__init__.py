"""The rules engine: the five seed systems as a pure-Python library with exact odds.

``rules`` never imports Django. ``SYSTEMS`` maps each system's slug (RULES-NOTES.md) to its
package. One home per game system: ``rules/<slug>/`` (its ``__init__`` names the public API and
lists its modules); ``rules/core.py`` is shared by all and imports no system, ``rules/turns.py``
keeps turns for any system and ``rules/expression/`` reads the dice box's free-form expressions.
"""

from __future__ import annotations

from types import ModuleType

from rules import annulus, conductor, percentile, roll_and_keep, two_dice
from rules.core import RulesError

SLUGS = ("annulus", "roll_and_keep", "conductor", "two_dice", "percentile")

SYSTEMS: dict[str, ModuleType] = {
    "annulus": annulus,
    "roll_and_keep": roll_and_keep,
    "conductor": conductor,
    "two_dice": two_dice,
    "percentile": percentile,
}

__all__ = ["SLUGS", "SYSTEMS", "RulesError"]
