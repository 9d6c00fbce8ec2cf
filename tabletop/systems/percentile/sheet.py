"""The percentile sheet: skill values (SV), stats, movement (Quickness, MV, total penalty) and
plot points (seed 004)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import Currency, SheetSpec, first_of, names_from

#: Plot points and development points are the players' (seed 004); the GM awards plot points
#: live, and a spend "reduces the number available but not the total".
CURRENCIES = (
    Currency(
        "plot_points",
        "Plot points available",
        "plot point",
        "plot points",
        players_only=True,
        gm_steps=True,
    ),
    Currency(
        "plot_points_total",
        "Plot points total",
        "plot point in total",
        "plot points in total",
        players_only=True,
        total_of="plot_points",
    ),
    Currency(
        "development_points",
        "Development points",
        "development point",
        "development points",
        players_only=True,
    ),
)

#: The stat the seed's perception rolls use ("only your Perceptivity stat").
STATS = ("Perceptivity",)


def sheet(ruleset: Mapping[str, Any]) -> SheetSpec:
    return SheetSpec(
        system="percentile",
        uses_skills=True,
        skill_label="SV",
        skill_suggestions=names_from(first_of(ruleset, "skills", "skill_list"), ()),
        skill_range=(-100, 300),
        uses_stats=True,
        stat_suggestions=names_from(ruleset.get("stats"), STATS),
        uses_movement=True,
        currencies=tuple(c.field for c in CURRENCIES),
    )
