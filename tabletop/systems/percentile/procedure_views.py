"""The maneuver tracker view (percentile): slumps and zones per character and skill, repeated
attempts with their cumulative penalty, tracked maneuvers, and the GM's secret perception roll.

State: ``Scene.state["maneuvers"] = {"streaks": [SkillStreak.to_dict() + {"name", "seq"}],
"attempts": [RetryAttempt.to_dict() + {"name", "skill"}]}``; ``character`` is the character's
id as text, ``name`` only what the view shows. A character at "normal" and an attempt with no
failure are simply absent.

Why the scene and not the character sheet: only scene actions change it, under the same row
lock as every other move of the table (no lost update between a roll and the GM's reset), the
sheet form can't overwrite it, and no model changes. The price: a slump does not follow the
character into the next scene by itself; the GM sets it there from this view (one click).

Nothing here is secret: a GM's perception roll reads a slump or zone but never changes one
(the table would learn the secret result from the view).
"""

from __future__ import annotations

from typing import Any

from rules import percentile
from tabletop.systems.api import ROLL_KINDS, Character, ProcedureView, procedure_state
from tabletop.systems.percentile.models import PercentileSheet

NAME = "maneuvers"


def state_of(scene: Any) -> dict[str, Any]:
    """The tracker's state (read through the kit, as every procedure's), both lists present."""
    state = procedure_state(scene, NAME) or {}
    state.setdefault("streaks", [])
    state.setdefault("attempts", [])
    return state


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def streak_for(state: dict[str, Any], character: str, skill: str) -> percentile.SkillStreak:
    for row in state.get("streaks", []):
        if row["character"] == character and _same(row["skill"], skill):
            return percentile.SkillStreak.from_dict(row)
    return percentile.SkillStreak(character, skill)


def attempt_for(state: dict[str, Any], character: str, task: str) -> percentile.RetryAttempt:
    for row in state.get("attempts", []):
        if row["character"] == character and _same(row["task"], task):
            return percentile.RetryAttempt.from_dict(row)
    return percentile.RetryAttempt(character, task)


def put_streak(
    state: dict[str, Any],
    name: str,
    streak: percentile.SkillStreak,
    seq: int | None,
) -> None:
    """Store a streak (a character back at normal is dropped)."""
    rows = [
        r
        for r in state.setdefault("streaks", [])
        if not (r["character"] == streak.character and _same(r["skill"], streak.skill))
    ]
    if streak.state != "normal":
        rows.append({**streak.to_dict(), "name": name, "seq": seq})
    state["streaks"] = rows


def put_attempt(
    state: dict[str, Any],
    name: str,
    skill: str,
    attempt: percentile.RetryAttempt,
) -> None:
    """Store an attempt (one with no failure, or finished, is dropped)."""
    rows = [
        r
        for r in state.setdefault("attempts", [])
        if not (r["character"] == attempt.character and _same(r["task"], attempt.task))
    ]
    if attempt.failures:
        rows.append({**attempt.to_dict(), "name": name, "skill": skill})
    state["attempts"] = rows


def streak_line(name: str, skill: str, state: str, ruleset: Any = None) -> str:
    rules = percentile.validate_ruleset(ruleset)
    if state == "slump":
        until = "until a full success"
        return f"{name} is in a slump at {skill} ({rules['slump_modifier']:+d}) {until}."
    if state == "zone":
        until = "until the next failure"
        return f"{name} is in the zone at {skill} ({rules['zone_modifier']:+d}) {until}."
    return f"{name} is back to normal at {skill}."


# --- the view ----------------------------------------------------------------------------------


def ordered_characters(scene: Any) -> list[Character]:
    """The campaign's characters as the view lists them: PCs, NPCs, foes, each by name (the
    first PC is each picker's default: the GM's perception roll is "for a player")."""
    return Character.in_table_order(PercentileSheet.objects.filter(campaign=scene.campaign))


def context(scene: Any, viewer: Any) -> dict[str, Any]:
    state = state_of(scene)
    ruleset = scene.campaign.effective_ruleset()
    characters = ordered_characters(scene)
    owners = {str(c.pk): c.owner_id for c in characters}
    streaks = [
        {
            **row,
            "owner_id": owners.get(row["character"]),
            "modifier": ruleset[f"{row['state']}_modifier"],
        }
        for row in state.get("streaks", [])
    ]
    attempts = [
        {
            **row,
            "owner_id": owners.get(row["character"]),
            "penalty": percentile.retry_penalty(failures=row["failures"], ruleset=ruleset),
        }
        for row in state.get("attempts", [])
    ]
    return {
        "streaks": sorted(streaks, key=lambda r: (r["name"], r["skill"])),
        "attempts": sorted(attempts, key=lambda r: (r["name"], r["task"])),
        "characters": characters,
        "pcs": [c for c in characters if c.role == Character.Role.PC],
        "rules": ruleset,
        "condition_groups": percentile.modifier_table(ruleset)["groups"],
        "columns": percentile.COLUMNS,
        "perception_kind": ROLL_KINDS["percentile_perception"],
    }


VIEW = ProcedureView(
    name=NAME,
    label="Maneuvers: attempts, slumps and zones",
    template="systems/percentile/procedures/maneuvers.html",
    context=context,
)
