"""percentile: open-ended d100 + skill value + modifiers, read on Chart 14.1.

The roll form takes a skill from the character's sheet (or a typed SV), up to three conditions
from the modifier table for one column (Movement, Items, Influence, Perception, Magic), a free
"other modifier" and the number of earlier failures on this attempt (-25 each by default).
Condition values come from the campaign's ruleset (overrides and custom rows included); the
odds note lists each one as resolved, so the roll form only needs the condition names.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

from django.core.exceptions import ValidationError

from rules import percentile
from rules.core import RulesError, lookup
from tabletop.systems.api import (
    RollKind,
    RollOutcome,
    field_int,
    field_int_or_zero,
    odds_rows,
    ordered_bands,
    percent,
)

#: This system's roll kinds, in the order its roll forms show them.
KINDS: list[RollKind] = []

#: Condition selects offered on the roll form.
CONDITION_FIELDS = ("condition_1", "condition_2", "condition_3")
OTHER_MODIFIER = "Other modifier"


@dataclasses.dataclass(frozen=True)
class PercentileRollKind(RollKind):
    """A roll kind whose roll form also lists the modifier table's columns and conditions."""

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
        band_text=percentile.BAND_TEXT[result.band],  # the card says what the band means
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
        "chance": result.success_or_better,
        "goal": "to succeed",
        "bands": ordered_bands(result.bands, percentile.BANDS),
    }


KINDS.append(
    PercentileRollKind(
        name="percentile",
        label="Maneuver (d100)",
        card="systems/percentile/rolls/maneuver.html",
        form="systems/percentile/forms/maneuver.html",
        roll=roll,
        odds=odds,
        band_labels=percentile.BAND_LABELS,
    )
)


# --- specials: running, potency, breakage, pure chance, perception -------------------------------
# Seed 004's rolls that "do not use a corresponding skill" (running, potency, breakage, pure
# chance) and the GM's perception roll for a player. The maneuver tracker (procedures/
# percentile_state.py) reads the maneuver roll form's fields with ``maneuver_args``.


def maneuver_args(data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    """The maneuver roll form's fields as ``rules.percentile.roll`` arguments, with the skill's
    label and the column (the tracked maneuver adds the tracked retries and slump or zone
    itself)."""
    return _parse(data, character, ruleset)


def _number(data: dict[str, Any], name: str, *, label: str, low: Any, high: Any) -> Fraction:
    """A number that may have a fraction (a pace of 1.5), read exactly."""
    raw = str(data.get(name, "")).strip()
    try:
        value = Fraction(raw)
    except (ValueError, ZeroDivisionError):
        raise ValidationError(f"{label} must be a number such as 2 or 1.5.") from None
    if not low <= value <= high or value.denominator > 100:
        raise ValidationError(f"{label} must be between {low} and {high}.")
    return value


def _running_args(data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    """Seed: "a moving maneuver using only your Quickness stat (or Running skill if you have
    it) and your Total Penalty as bonuses"; the pace is the runner's choice."""
    rules = percentile.validate_ruleset(ruleset)
    pace = _number(data, "pace", label="Pace", low=1, high=rules["max_pace"])
    if character is not None:
        running = next(
            (
                s
                for s in character.skills or []
                if isinstance(s, dict) and str(s.get("name", "")).casefold() == "running"
            ),
            None,
        )
        if running is not None and isinstance(running.get("value"), int):
            source, quickness = "Running SV", running["value"]
        else:
            source, quickness = "Quickness", character.quickness or 0
        total_penalty = min(character.total_penalty or 0, 0)
        mv = character.mv or 0
    else:
        source = "Quickness"
        bound = percentile.MAX_BONUS
        quickness = field_int(data, "quickness", label="Quickness", low=-bound, high=bound)
        total_penalty = field_int_or_zero(
            data, "total_penalty", label="Total Penalty", low=-bound, high=0
        )
        mv = field_int(data, "mv", label="MV", low=0, high=9999)
    return {
        "source": source,
        "quickness": quickness,
        "total_penalty": total_penalty,
        "pace": pace,
        "mv": mv,
    }


def running_outcome(result: percentile.RunningResult, *, source: str) -> RollOutcome:
    maneuver = result.maneuver
    detail = result.to_dict()
    detail.update(
        source=source,
        band_label=percentile.BAND_LABELS[maneuver.band],
        band_text=percentile.BAND_TEXT[maneuver.band],
        bonus=maneuver.bonus,
        pace_label=f"{float(result.pace):g}",
        movement_label=f"{round(result.movement, 2):g}",
    )
    return RollOutcome(
        title=f"Running at pace {detail['pace_label']} ({source} {maneuver.skill_value}, "
        f"MV {result.mv:g})",
        summary=f"{detail['band_label']} ({maneuver.total}): {result.percent}% — movement "
        f"{detail['movement_label']}",
        detail=detail,
        outcome=maneuver.band,
    )


def roll_running(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    args = _running_args(data, character, ruleset)
    source = args.pop("source")
    try:
        result = percentile.roll_running(**args, rng=rng, ruleset=ruleset)
    except RulesError as exc:
        raise ValidationError(str(exc)) from None
    return running_outcome(result, source=source)


def odds_running(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    args = _running_args(data, character, ruleset)
    try:
        dist = percentile.running_odds(
            quickness=args["quickness"],
            total_penalty=args["total_penalty"],
            pace=args["pace"],
            ruleset=ruleset,
        )
    except RulesError as exc:
        raise ValidationError(str(exc)) from None
    pace = args["pace"]
    bonus = (
        args["quickness"]
        + args["total_penalty"]
        + percentile.RUNNING_BASE
        - math.ceil(percentile.PACE_FACTOR * pace)
    )
    full = Fraction(args["mv"]) * pace
    success = sum((dist[b] for b in percentile.SUCCESS_OR_BETTER), Fraction(0))
    return {
        "rows": odds_rows(dist, labels=percentile.BAND_LABELS),
        "note": (
            f"d100 {_signed(bonus)} ({args['source']} {args['quickness']}, Total Penalty "
            f"{args['total_penalty']}, +{percentile.RUNNING_BASE}, pace {float(pace):g} × "
            f"−{percentile.PACE_FACTOR}). At 100%: {float(full):g} (MV × pace). "
            f"100% or better: {percent(success)}."
        ),
        "chance": success,
        "goal": "to run the full distance (100% or better)",
        "bands": ordered_bands(dist, percentile.BANDS),
    }


def _other(data: dict[str, Any]) -> list[percentile.Modifier]:
    other = field_int_or_zero(
        data,
        "other_modifier",
        label=OTHER_MODIFIER,
        low=-percentile.MAX_BONUS,
        high=percentile.MAX_BONUS,
    )
    return [percentile.Modifier(label=OTHER_MODIFIER, value=other)] if other else []


def _special_outcome(
    result: percentile.ManeuverResult, *, skill: str, title: str, verdict: str
) -> RollOutcome:
    """A potency, breakage or pure-chance roll on the maneuver's card."""
    base = maneuver_outcome(result, skill=skill, column="MM")
    return RollOutcome(
        title=title,
        summary=f"{base.summary} — {verdict}",
        detail={**base.detail, "verdict": verdict},
        outcome=base.outcome,
    )


def _potency_args(data: dict[str, Any]) -> dict[str, Any]:
    bound = percentile.MAX_BONUS
    return {
        "potency": field_int(data, "potency", label="Potency", low=-bound, high=bound),
        "resistance": field_int_or_zero(
            data, "resistance", label="Resistance", low=-bound, high=bound
        ),
        "modifiers": _other(data),
    }


def roll_potency(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    """Seed: "the poison, disease, etc., is making a maneuver to affect you"; success is
    "favorable to the poison, not to you"."""
    args = _potency_args(data)
    result = percentile.potency_roll(**args, rng=rng, ruleset=ruleset)
    target = f" on {character.name}" if character is not None else ""
    verdict = "it takes effect" if result.succeeded else "resisted"
    return _special_outcome(
        result,
        skill="Potency",
        title=f"Potency {args['potency']} vs resistance {args['resistance']}{target}",
        verdict=verdict,
    )


def _bands_odds(modifier: int, lead: str, success_word: str, goal: str) -> dict[str, Any]:
    dist = percentile.band_distribution(modifier=modifier)
    success = sum((dist[b] for b in percentile.SUCCESS_OR_BETTER), Fraction(0))
    return {
        "rows": odds_rows(dist, labels=percentile.BAND_LABELS),
        "note": f"d100 {_signed(modifier)} ({lead}). {success_word}: {percent(success)}.",
        "chance": success,
        "goal": goal,
        "bands": ordered_bands(dist, percentile.BANDS),
    }


def odds_potency(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    args = _potency_args(data)
    bonus = args["potency"] + args["resistance"] + sum(m.value for m in args["modifiers"])
    return _bands_odds(
        bonus,
        f"potency {args['potency']}, resistance {_signed(args['resistance'])}",
        "It takes effect (Success or better)",
        "for it to take effect",
    )


def _breakage_args(data: dict[str, Any], ruleset: Any) -> dict[str, Any]:
    """The potency typed, or from the breaker's lift capacity or the pounds of force (seed:
    "5-10% of their LC", "around 10% of the number of pounds of force"); the resistance from
    the campaign's materials or typed."""
    rules = percentile.validate_ruleset(ruleset)
    bound = percentile.MAX_BONUS
    source = str(data.get("potency_from") or "potency")
    if source == "potency":
        potency = field_int(data, "potency", label="Potency", low=-bound, high=bound)
        how = f"potency {potency}"
    elif source in ("lift_capacity", "force"):
        what = "Lift capacity (lb)" if source == "lift_capacity" else "Force (lb)"
        amount = field_int(data, "pounds", label=what, low=0, high=100 * bound)
        pct = None
        if data.get("percent") not in (None, ""):
            pct = field_int(data, "percent", label="Percent", low=0, high=100)
        try:
            potency = percentile.breakage_potency(**{source: amount}, percent=pct, ruleset=ruleset)
        except RulesError as exc:
            raise ValidationError(str(exc)) from None
        used = pct if pct is not None else rules[f"breakage_{source}_percent"]
        of = "lift capacity" if source == "lift_capacity" else "force"
        how = f"potency {potency} ({used}% of {amount} lb {of})"
    else:
        raise ValidationError("Say where the potency comes from.")
    material = str(data.get("material") or "").strip()
    if material:
        materials = rules["breakage_resistances"]
        try:
            material = lookup(material, materials, "material")
        except RulesError as exc:
            raise ValidationError(str(exc)) from None
        resistance = materials[material]
        against = f"{material} {_signed(resistance)}"
    else:
        resistance = field_int_or_zero(
            data, "resistance", label="Resistance", low=-bound, high=bound
        )
        against = f"resistance {_signed(resistance)}"
    return {"potency": potency, "resistance": resistance, "how": how, "against": against}


def roll_breakage(*, data: dict[str, Any], character: Any, ruleset: Any, rng: Any) -> RollOutcome:
    """Seed: "Success implies the item breaks. Use the MM column to get a good idea for how
    thoroughly it breaks.\""""
    args = _breakage_args(data, ruleset)
    result = percentile.breakage_roll(
        potency=args["potency"], resistance=args["resistance"], rng=rng, ruleset=ruleset
    )
    if result.succeeded:
        verdict = "it breaks" + (f" (MM {result.mm}%)" if result.mm is not None else "")
    else:
        verdict = "it holds"
    return _special_outcome(
        result,
        skill="Potency",
        title=f"Breakage: {args['how']} vs {args['against']}",
        verdict=verdict,
    )


def odds_breakage(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    args = _breakage_args(data, ruleset)
    return _bands_odds(
        args["potency"] + args["resistance"],
        f"{args['how']}, {args['against']}",
        "It breaks (Success or better)",
        "for it to break",
    )


def roll_pure_chance(
    *, data: dict[str, Any], character: Any, ruleset: Any, rng: Any
) -> RollOutcome:
    """Seed: "The GM will assign a percent chance of success; use this number as you would an
    SV." Nothing else modifies it."""
    chance = field_int(data, "chance", label="Percent chance", low=0, high=100)
    result = percentile.pure_chance_roll(chance=chance, rng=rng)
    verdict = "it happens" if result.succeeded else "it does not happen"
    return _special_outcome(
        result, skill="Chance", title=f"Pure chance ({chance}%)", verdict=verdict
    )


def odds_pure_chance(*, data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    chance = field_int(data, "chance", label="Percent chance", low=0, high=100)
    return _bands_odds(
        chance, f"{chance}% as the SV", "It happens (Success or better)", "for it to happen"
    )


#: The sheet's general perception stat (seed: "the GM will use only your Perceptivity stat").
PERCEPTIVITY = "Perceptivity"


def _perception_args(data: dict[str, Any], character: Any, ruleset: Any) -> dict[str, Any]:
    """A Detect skill from the sheet, or the Perceptivity stat; the Perception column."""
    if character is None:
        raise ValidationError("Pick the character the GM rolls perception for.")
    fields = {**data, "column": "Perception", "retry_failures": 0}
    if not str(data.get("skill") or "").strip():
        stats = {str(k).casefold(): v for k, v in (character.attributes or {}).items()}
        value = stats.get(PERCEPTIVITY.casefold(), 0)
        fields.update(skill="", skill_value=value if isinstance(value, int) else 0)
        args = _parse(fields, character, ruleset)
        args["skill"] = PERCEPTIVITY
    else:
        args = _parse(fields, character, ruleset)
    args.pop("retry_failures")
    return args


def roll_perception(
    *, data: dict[str, Any], character: Any, ruleset: Any, rng: Any, condition: Any = None
) -> RollOutcome:
    """Seed: "the GM will make a perception roll on his behalf"; "Perception is generally a
    static maneuver". ``condition``: the character's slump or zone at that skill, if any."""
    args = _perception_args(data, character, ruleset)
    skill, column = args.pop("skill"), args.pop("column")
    result = percentile.perception_roll(**args, condition=condition, rng=rng, ruleset=ruleset)
    base = maneuver_outcome(result, skill=skill, column=column)
    return dataclasses.replace(
        base,
        title=f"Perception for {character.name}: {base.title}",
        summary=f"{percentile.BAND_LABELS[result.band]} ({result.total})",
    )


def odds_perception(
    *, data: dict[str, Any], character: Any, ruleset: Any, condition: Any = None
) -> dict[str, Any]:
    """``condition``: the character's slump or zone at that skill, as ``roll_perception``."""
    args = _perception_args(data, character, ruleset)
    skill, column = args.pop("skill"), args.pop("column")
    result = percentile.maneuver_odds(**args, condition=condition, ruleset=ruleset)
    parts = [f"{skill} {args['skill_value']}"]
    parts += [f"{m.label} {_signed(m.value)}" for m in args["modifiers"]]
    return {
        "rows": odds_rows(result.bands, labels=percentile.BAND_LABELS),
        "note": (
            f"Success or better: {percent(result.success_or_better)}. "
            f"d100 {_signed(result.modifier)} ({', '.join(parts)}; {column} column)."
        ),
        "chance": result.success_or_better,
        "goal": "to notice",
        "bands": ordered_bands(result.bands, percentile.BANDS),
    }


KINDS.append(
    RollKind(
        name="percentile_running",
        label="Running (pace)",
        card="systems/percentile/rolls/running.html",
        form="systems/percentile/forms/running.html",
        roll=roll_running,
        odds=odds_running,
        band_labels=percentile.BAND_LABELS,
    )
)
KINDS.append(
    RollKind(
        name="percentile_potency",
        label="Potency / resistance",
        card="systems/percentile/rolls/potency.html",
        form="systems/percentile/forms/potency.html",
        roll=roll_potency,
        odds=odds_potency,
        band_labels=percentile.BAND_LABELS,
    )
)
KINDS.append(
    RollKind(
        name="percentile_breakage",
        label="Breakage",
        card="systems/percentile/rolls/breakage.html",
        form="systems/percentile/forms/breakage.html",
        roll=roll_breakage,
        odds=odds_breakage,
        band_labels=percentile.BAND_LABELS,
    )
)
KINDS.append(
    RollKind(
        name="percentile_pure_chance",
        label="Pure chance",
        card="systems/percentile/rolls/pure_chance.html",
        form="systems/percentile/forms/pure_chance.html",
        roll=roll_pure_chance,
        odds=odds_pure_chance,
        band_labels=percentile.BAND_LABELS,
    )
)
# The GM's secret perception roll is made from the maneuver tracker's GM form (an action that
# forces the GM-only audience), never from the roll forms: no system offers it there.
KINDS.append(
    PercentileRollKind(
        name="percentile_perception",
        stale=frozenset({"maneuvers"}),
        label="Perception (GM, secret)",
        card="systems/percentile/rolls/perception.html",
        on_roll_form=False,
        roll=roll_perception,
        odds=odds_perception,
        band_labels=percentile.BAND_LABELS,
    )
)
