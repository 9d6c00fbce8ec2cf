"""The percentile sheet: skill values (SV), stats, movement (Quickness, MV, total penalty) and
plot points (seed 004)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import (
    Currency,
    FreeStats,
    Number,
    Numbers,
    SheetSpec,
    SkillList,
    first_of,
    names_from,
)

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
        parts=(
            # Quickness is a stat with a field of its own (the turn order reads it).
            FreeStats(
                key="attributes",
                prefix="stats",
                value_label="Bonus",
                suggestions=names_from(ruleset.get("stats"), STATS),
                reserved=(("Quickness", "quickness"),),
                hint="Quickness has its own box under Movement.",
            ),
            Numbers(
                "Movement",
                numbers=(
                    Number("quickness", "Quickness", (-100, 100), shown=False),
                    Number(
                        "mv",
                        "MV",
                        (0, 500),
                        help="Encumbered movement per round.",
                        note="encumbered, per round",
                    ),
                    Number("total_penalty", "Total penalty", (-500, 0)),
                ),
            ),
            SkillList(
                key="skills",
                value_label="SV",
                suggestions=names_from(first_of(ruleset, "skills", "skill_list"), ()),
                range=(-100, 300),
            ),
        ),
        currencies=tuple(c.field for c in CURRENCIES),
        form_order=("Skills", "Stats"),
    )
