"""What the scene's Sheet tool offers to roll from a percentile sheet (seed 004): each skill as a
maneuver (open-ended d100 + SV), and running (Quickness, or the Running skill's SV). The
perception roll is the GM's secret roll for a player, made from the maneuver tracker: not here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabletop.systems.api import Rollable

#: The skill running uses instead of Quickness when the sheet has it (seed: "or Running skill").
RUNNING = "running"


def _number(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def rollables(character: Any, ruleset: Mapping[str, Any]) -> list[Rollable]:
    out = []
    running = None
    for row in character.skills or []:
        if not isinstance(row, Mapping) or not str(row.get("name", "")).strip():
            continue
        name = str(row["name"])
        value = _number(row.get("value"))
        if name.casefold() == RUNNING:
            running = value
        out.append(
            Rollable(
                section="Skills",
                label=name,
                value=str(value),
                roll_kind="percentile",
                fields={"skill": name},
                note="d100 + SV",
            )
        )
    source = "Running SV" if running is not None else "Quickness"
    bonus = running if running is not None else _number(character.quickness)
    out.append(
        Rollable(
            section="Movement",
            label="Running (pace)",
            value=str(bonus),
            roll_kind="percentile_running",
            fields={},
            note=f"{source}, total penalty {_number(character.total_penalty)}, MV {character.mv}",
        )
    )
    return out
