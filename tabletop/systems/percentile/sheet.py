"""The percentile sheet: skill values (SV), stats, movement (Quickness, MV, total penalty) and
plot points (seed 004)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.characters.sheets import SheetSpec, first_of, names_from

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
        currencies=("plot_points", "plot_points_total", "development_points"),
    )
