"""percentile: open-ended d100 + skill value + modifiers, read on Chart 14.1.

The panel takes a skill from the character's sheet (or a typed SV), up to three conditions
from the modifier table for one column (Movement, Items, Influence, Perception, Magic), a free
"other modifier" and the number of earlier failures on this attempt (-25 each by default).
Condition values come from the campaign's ruleset (overrides and custom rows included); the
odds note lists each one as resolved, so the panel only needs the condition names.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.core.exceptions import ValidationError

from rules import percentile
from rules.core import lookup
from tabletop.scenes.systems import (
    RollKind,
    RollOutcome,
    field_int,
    field_int_or_zero,
    odds_rows,
    percent,
    register,
)

#: Condition selects offered on the panel.
CONDITION_FIELDS = ("condition_1", "condition_2", "condition_3")
OTHER_MODIFIER = "Other modifier"


@dataclasses.dataclass(frozen=True)
class PercentileRollKind(RollKind):
    """A roll kind whose panel also lists the modifier table's columns and conditions."""

    @property
    def columns(self) -> tuple[str, ...]:
        return percentile.COLUMNS

    @property
    def condition_groups(self) -> list[dict[str, Any]]:
        """The seed table's groups of condition names (campaign rows come from the ruleset)."""
        return percentile.modifier_table()["groups"]


def _skill(data: dict[str, Any], character: Any) -> tuple[str, int]:
    """(label, SV): a skill of the character's sheet, or the typed skill value."""
    name = data.get("skill")
    if isinstance(name, str) and name.strip():
        if character is None:
            raise ValidationError(
                "Pick a character to use a skill from a sheet, or choose “type the SV” and "
                "enter a skill value."
            )
        for skill in character.skills or []:
            if isinstance(skill, dict) and str(skill.get("name", "")).casefold() == (
                name.strip().casefold()
            ):
                value = skill.get("value", 0)
                return str(skill["name"]), value if isinstance(value, int) else 0
        raise ValidationError(f"{character.name} has no skill {name.strip()[:60]!r}.")
    value = field_int(
        data,
        "skill_value",
        label="Skill value (SV)",
        low=-percentile.MAX_BONUS,
        high=percentile.MAX_BONUS,
    )
    return "SV", value


def _parse(data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    skill, sv = _skill(data, character)
    column = lookup(data.get("column") or percentile.COLUMNS[0], percentile.COLUMNS, "column")
    conditions: list[str] = []
    for field in CONDITION_FIELDS:
        raw = data.get(field)
        if isinstance(raw, str) and raw.strip():
            if raw.strip().casefold() in {c.casefold() for c in conditions}:
                raise ValidationError(f"{raw.strip()[:60]} is picked twice.")
            conditions.append(raw.strip())
        elif raw not in (None, ""):
            raise ValidationError("Pick a condition from the list.")
    total_penalty = 0
    if character is not None and isinstance(character.total_penalty, int):
        total_penalty = min(character.total_penalty, 0)
    modifiers = list(
        percentile.table_modifiers(
            conditions, column=column, total_penalty=total_penalty, ruleset=ruleset
        )
    )
    other = field_int_or_zero(
        data,
        "other_modifier",
        label=OTHER_MODIFIER,
        low=-percentile.MAX_BONUS,
        high=percentile.MAX_BONUS,
    )
    if other:
        modifiers.append(percentile.Modifier(label=OTHER_MODIFIER, value=other))
    retry = field_int_or_zero(
        data, "retry_failures", label="Earlier failures on this attempt", low=0, high=40
    )
    return {
        "skill": skill,
        "column": column,
        "skill_value": sv,
        "modifiers": modifiers,
        "retry_failures": retry,
    }


def _signed(value: int) -> str:
    return f"{value:+d}".replace("-", "−")


def maneuver_outcome(result: percentile.ManeuverResult, *, skill: str, column: str) -> RollOutcome:
    """The card of a maneuver (also after plot points changed it)."""
    detail = result.to_dict()
    detail.update(
        skill=skill,
        column=column,
        bonus=result.bonus,
        band_label=percentile.BAND_LABELS[result.band],
        succeeded=result.succeeded,
    )
    mm = f", MM {result.mm}%" if result.mm is not None else ""
    return RollOutcome(
        title=f"{skill} {result.skill_value} ({column})",
        summary=f"{percentile.BAND_LABELS[result.band]} ({result.total}){mm}",
        detail=detail,
        outcome=result.band,
    )


def roll(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    args = _parse(data, character, ruleset)
    skill, column = args.pop("skill"), args.pop("column")
    result = percentile.roll(**args, rng=rng, ruleset=ruleset)
    return maneuver_outcome(result, skill=skill, column=column)


#: The roll kinds plot points can change ("change a roll just made").
CHANGEABLE_KINDS = ("percentile",)


def change_roll(
    detail: dict[str, Any], *, new_value: int, points: int, ruleset: Any, rng: Any
) -> RollOutcome:
    """Seed 004: "for one plot point, change a roll just made [...] to any value from 6 to 95;
    for two plot points [...] from 1 to 100, possibly causing the roll to go open-ended"."""
    result = percentile.ManeuverResult.from_dict(detail)
    changed = percentile.change_roll(
        result, new_value=new_value, points=points, rng=rng, ruleset=ruleset
    )
    return maneuver_outcome(
        changed, skill=str(detail.get("skill", "SV")), column=str(detail.get("column", ""))
    )


def odds(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    args = _parse(data, character, ruleset)
    skill, column = args.pop("skill"), args.pop("column")
    result = percentile.maneuver_odds(**args, ruleset=ruleset)
    parts = [f"{skill} {args['skill_value']}"]
    parts += [f"{m.label} {_signed(m.value)}" for m in args["modifiers"]]
    if args["retry_failures"]:
        retry = percentile.retry_penalty(failures=args["retry_failures"], ruleset=ruleset)
        parts.append(f"retry {_signed(retry)}")
    return {
        "rows": odds_rows(result.bands, labels=percentile.BAND_LABELS),
        "note": (
            f"Success or better: {percent(result.success_or_better)}. "
            f"d100 {_signed(result.modifier)} ({', '.join(parts)}; {column} column)."
        ),
    }


register(
    PercentileRollKind(
        name="percentile",
        label="Maneuver (d100)",
        systems=("percentile",),
        roll=roll,
        odds=odds,
    )
)
