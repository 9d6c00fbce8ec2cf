"""The conductor sheet: the seed's skills ("(S)" skills may be specified, two must be), the
character's own difficulty (foes attack against it), bennies and hits (seed 002)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules import conductor
from tabletop.systems.api import Currency, Number, Numbers, SheetSpec, SkillList, int_or

#: Bennies are the players' (seed 002: "the players' bennies"); hits and lasting hits are harm
#: any character takes. The GM steps each from the dashboard.
CURRENCIES = (
    Currency("bennies", "Bennies", "benny", "bennies", players_only=True, gm_steps=True),
    Currency("hits", "Hits", "hit", "hits", gm_steps=True, harm=True),
    Currency(
        "lasting_hits", "Lasting hits", "lasting hit", "lasting hits", gm_steps=True, harm=True
    ),
)


def _skills(ruleset: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple, tuple]:
    """(skill names, may-specify, must-specify): the ruleset maps each skill to "never",
    "may" or "must" (be specified); the seed's list when it has none."""
    raw = ruleset.get("skills")
    if not isinstance(raw, Mapping) or not raw:
        raw = dict(conductor.SKILLS)
    names = tuple(str(name) for name in raw)
    may = tuple(str(name) for name, rule in raw.items() if rule in ("may", "must"))
    must = tuple(str(name) for name, rule in raw.items() if rule == "must")
    return names, may, must


def sheet(ruleset: Mapping[str, Any]) -> SheetSpec:
    names, may, must = _skills(ruleset)
    difficulty = Number(
        "difficulty",
        "Difficulty",
        (1, 20),
        default=int_or(ruleset.get("character_difficulty"), 3),
        help="Foes attack against this number.",
        note="foes roll against it",
    )
    return SheetSpec(
        system="conductor",
        parts=(
            SkillList(
                key="skills",
                suggestions=names,
                listed_only=True,
                specialisation=True,
                may_specify=may,
                must_specify=must,
            ),
            Numbers("Defence", numbers=(difficulty,)),
        ),
        currencies=tuple(c.field for c in CURRENCIES),
    )
