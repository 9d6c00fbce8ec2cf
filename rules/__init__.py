"""The rules engine: the five seed systems as a pure-Python library with exact odds.

``rules`` never imports Django. ``SYSTEMS`` maps each system's slug (RULES-NOTES.md) to its module.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rules.core import RulesError

SLUGS = ("annulus", "roll_and_keep", "conductor", "two_dice", "percentile")

__all__ = ["SLUGS", "SYSTEMS", "RulesError"]


def __getattr__(name: str) -> dict[str, ModuleType]:
    # Imported lazily so that ``import rules.core`` stays cheap and cycle-free.
    if name == "SYSTEMS":
        systems = {slug: importlib.import_module(f"rules.{slug}") for slug in SLUGS}
        globals()["SYSTEMS"] = systems
        return systems
    raise AttributeError(f"module 'rules' has no attribute {name!r}")
