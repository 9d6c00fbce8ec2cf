"""Percentile maneuvers (seed 004, Chapter 14 "Actions"): open-ended d100 read on Chart 14.1.

"To resolve an action, roll open-ended percentile dice, and add the SV for the relevant skill.
In most cases, the GM will apply relevant modifiers ... He will then consult the appropriate
column of Chart 14.1 to read a result."

Public functions (the roll functions' names are this module's choice):

Chart and odds
- ``chart(total) -> ChartRow`` (``.band``, ``.mm``, ``.sm``): Chart 14.1.
- ``band_distribution(*, modifier) -> dict[str, Fraction]``: exact bands of open-ended d100 + bonus.
- ``success_or_better(*, modifier) -> Fraction``: P(Success, Critical or Extraordinary Success).
- ``maneuver_odds(*, skill_value, modifiers=(), retry_failures=0, condition=None, ruleset=None)``
  ``-> ManeuverOdds``: what the roll screen shows before rolling.
- ``change_roll_distribution(*, new_value, modifier) -> dict[str, Fraction]``: bands after a
  plot point sets the die to ``new_value`` (1-5 and 96-100 go open-ended).

Rolls (each takes ``rng`` keyword-only; production uses ``secrets.SystemRandom``)
- ``roll_open_ended(*, rng=None) -> OpenEndedRoll``: the d100 chain, every die kept.
- ``roll(*, skill_value, modifiers=(), retry_failures=0, condition=None, rng=None, ruleset=None)``
  ``-> ManeuverResult``: a static or moving maneuver.
- ``perception_roll(...)``: a maneuver the GM makes for the player (``secret=True``: the web
  layer shows it to the GM only).
- ``potency_roll(*, potency, resistance, ...)``: poison, disease or magic "making a maneuver to
  affect you"; success favours the attack.
- ``breakage_roll(*, potency, resistance, ...)`` with ``breakage_potency(...)``: success = breaks.
- ``pure_chance_roll(*, chance, rng=None)``: the GM's percent chance used as the SV.
- ``roll_running(*, quickness, total_penalty, pace, mv, ...) -> RunningResult`` and
  ``running_movement(*, roll, quickness, total_penalty, pace, mv) -> float``;
  ``running_odds(*, quickness, total_penalty, pace)`` gives the bands before rolling.

Modifier table (``rules/data/percentile_modifiers.json``)
- ``modifier(*, condition, column, total_penalty=0, count=1, ruleset=None) -> int``
- ``table_modifiers(conditions, *, column, total_penalty=0, ruleset=None) -> tuple[Modifier, ...]``
- ``modifier_table(ruleset=None) -> dict``: the whole table for the UI, campaign overrides applied.

Retries, slumps and zones (immutable value objects with ``to_dict``/``from_dict``)
- ``retry_penalty(*, failures, ruleset=None) -> int``; ``RetryAttempt`` with
  ``record_attempt(attempt, result)`` and ``reset_attempt(attempt)``.
- ``SkillStreak`` (normal / slump / zone per character and skill) with
  ``record_streak(streak, result) -> (SkillStreak, StreakChange)``.

Plot points
- ``PlotPoints`` (available, total, development points); ``spend_plot_points``,
  ``cancel_plot_point_spend``, ``buy_plot_points``, ``award_plot_points``,
  ``gain_development_points``, ``plot_point_uses``; ``change_roll(result, *, new_value, points)``.

Campaign data: ``DEFAULT_RULESET`` and ``validate_ruleset(data)``; ``clear_caches()`` empties
the odds caches (benchmarks measure uncached speed).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re
from collections.abc import Iterable, Mapping
from fractions import Fraction
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from rules.core import (
    MAX_EXPLOSIONS,
    IllegalMoveError,
    OutOfRangeError,
    PoolTooLargeError,
    Result,
    Rng,
    RulesError,
    check_int,
    lookup,
    resolve_rng,
    roll_die,
)

# --- Chart 14.1 -------------------------------------------------------------------------------

EXTRAORDINARY_FAILURE = "extraordinary_failure"
FUMBLE = "fumble"
FAILURE = "failure"
PARTIAL_SUCCESS = "partial_success"
NEAR_SUCCESS = "near_success"
UNRELATED_SUCCESS = "unrelated_success"
SUCCESS = "success"
CRITICAL_SUCCESS = "critical_success"
EXTRAORDINARY_SUCCESS = "extraordinary_success"

#: Bands from worst to best (DESIGN.md names).
BANDS: tuple[str, ...] = (
    EXTRAORDINARY_FAILURE,
    FUMBLE,
    FAILURE,
    PARTIAL_SUCCESS,
    NEAR_SUCCESS,
    UNRELATED_SUCCESS,
    SUCCESS,
    CRITICAL_SUCCESS,
    EXTRAORDINARY_SUCCESS,
)

#: "Success" in the odds sense: the maneuver achieved what was intended. Unrelated Success is not
#: one ("You fail at the intended effect, but accomplish something else").
SUCCESS_OR_BETTER: frozenset[str] = frozenset({SUCCESS, CRITICAL_SUCCESS, EXTRAORDINARY_SUCCESS})

#: The seed's words for each band (the SM column, or the row spanning both columns).
BAND_LABELS: dict[str, str] = {
    EXTRAORDINARY_FAILURE: "Extraordinary Failure",
    FUMBLE: "Fumble",
    FAILURE: "Failure",
    PARTIAL_SUCCESS: "Partial Success",
    NEAR_SUCCESS: "Near Success",
    UNRELATED_SUCCESS: "Unrelated Success",
    SUCCESS: "Success",
    CRITICAL_SUCCESS: "Critical Success",
    EXTRAORDINARY_SUCCESS: "Extraordinary Success",
}

BAND_TEXT: dict[str, str] = {
    EXTRAORDINARY_FAILURE: (
        "You fail miserably. If possible, you achieve the opposite of the intended results. "
        'You\'re "in a slump" (at -50) at this and similar actions until you get a full success.'
    ),
    FUMBLE: "You fail thoroughly, causing some negative side effect.",
    FAILURE: "You do not know or you cannot do what you have attempted.",
    PARTIAL_SUCCESS: "You accomplish about half of your action.",
    NEAR_SUCCESS: "You can do most of your action, or suffer a side effect.",
    UNRELATED_SUCCESS: (
        "You fail at the intended effect, but accomplish something else beneficial you "
        "weren't even trying to do."
    ),
    SUCCESS: "You achieve your maneuver successfully.",
    CRITICAL_SUCCESS: (
        "Your move succeeds dramatically. If your success cannot be improved, it took half "
        "the expected time."
    ),
    EXTRAORDINARY_SUCCESS: (
        'You succeed as well as possible! You\'re "in the zone" (at +50) at this and similar '
        "actions until your next failure."
    ),
}

# Chart 14.1 rows: (low, high, band, MM percent). None = open end / no MM percent (the row
# spans both columns). Edges per RULES-NOTES: <= -26 Extraordinary Failure, -25..05 Fumble.
_CHART_ROWS: tuple[tuple[int | None, int | None, str, int | None], ...] = (
    (None, -26, EXTRAORDINARY_FAILURE, None),
    (-25, 5, FUMBLE, None),
    (6, 15, FAILURE, 0),
    (16, 25, FAILURE, 10),
    (26, 40, FAILURE, 20),
    (41, 55, FAILURE, 30),
    (56, 65, FAILURE, 40),
    (66, 75, FAILURE, 50),
    (76, 80, FAILURE, 60),
    (81, 85, PARTIAL_SUCCESS, 70),
    (86, 90, PARTIAL_SUCCESS, 80),
    (91, 100, NEAR_SUCCESS, 90),
    (101, 110, UNRELATED_SUCCESS, None),
    (111, 130, SUCCESS, 100),
    (131, 160, SUCCESS, 110),
    (161, 175, SUCCESS, 120),
    (176, 250, CRITICAL_SUCCESS, None),
    (251, None, EXTRAORDINARY_SUCCESS, None),
)


def _band_ranges() -> tuple[tuple[str, int | None, int | None], ...]:
    """Each band's whole range of totals (several MM rows share one SM band)."""
    out: list[tuple[str, int | None, int | None]] = []
    for low, high, band, _mm in _CHART_ROWS:
        if out and out[-1][0] == band:
            out[-1] = (band, out[-1][1], high)
        else:
            out.append((band, low, high))
    return tuple(out)


_BAND_RANGES = _band_ranges()

#: Sanity cap on the total bonus (SV + modifiers) so odds stay fast and nothing can hang.
MAX_BONUS = 1000


@dataclasses.dataclass(frozen=True)
class ChartRow(Result):
    """One row of Chart 14.1 as read for a total.

    ``band`` is the outcome's name; ``sm`` is the Static Maneuver outcome (the same name: the SM
    column's Failure covers 06-80, Partial Success 81-90, Near Success 91-100, Success 111-175,
    and the rows spanning both columns are their own SM outcome); ``mm`` is the Moving Maneuver
    percent, or None in the rows spanning both columns. ``low``/``high`` bound the row
    (None = open-ended).
    """

    band: str
    mm: int | None
    sm: str
    label: str
    low: int | None
    high: int | None


def chart(total: int) -> ChartRow:
    """Read a maneuver total on Chart 14.1 ("consult the appropriate column of Chart 14.1").

    >>> chart(31).mm, chart(31).sm
    (20, 'failure')
    """
    check_int(total, "The maneuver total")
    for low, high, band, mm in _CHART_ROWS:
        if (low is None or total >= low) and (high is None or total <= high):
            return ChartRow(band=band, mm=mm, sm=band, label=BAND_LABELS[band], low=low, high=high)
    raise AssertionError("Chart 14.1 covers every whole number")  # pragma: no cover


# --- campaign data -------------------------------------------------------------------------------

_NON_MM_BANDS = (
    EXTRAORDINARY_FAILURE,
    FUMBLE,
    UNRELATED_SUCCESS,
    CRITICAL_SUCCESS,
    EXTRAORDINARY_SUCCESS,
)

DEFAULT_RULESET: dict[str, Any] = {
    # Seed: "Each failure you've had with this particular attempt gives you a cumulative -25".
    "retry_penalty": -25,
    # Default: a retry is needed whenever the attempt fell short of Success.
    "retry_failure_bands": [
        EXTRAORDINARY_FAILURE,
        FUMBLE,
        FAILURE,
        PARTIAL_SUCCESS,
        NEAR_SUCCESS,
        UNRELATED_SUCCESS,
    ],
    # Seed: "in a slump" (at -50), "in the zone" (at +50).
    "slump_modifier": -50,
    "zone_modifier": 50,
    # Default: a "full success" is Success or better (Unrelated Success fails at the intent).
    "slump_ends_on": [SUCCESS, CRITICAL_SUCCESS, EXTRAORDINARY_SUCCESS],
    # Default: the zone lasts "until your next failure": the Failure band or worse. Partial,
    # Near and Unrelated Success are not failures in the chart's own words.
    "zone_ends_on": [FAILURE, FUMBLE, EXTRAORDINARY_FAILURE],
    # Movement percent for running results outside the MM column. Seed: a fumble means the
    # character "failed to get anywhere"; critical or extraordinary success "probably means the
    # character is already where he wants to be" (default: the best MM result, 120%).
    # Unrelated Success fails at the intended effect: default the percent just below it (90%).
    "running_percent": {
        EXTRAORDINARY_FAILURE: 0,
        FUMBLE: 0,
        UNRELATED_SUCCESS: 90,
        CRITICAL_SUCCESS: 120,
        EXTRAORDINARY_SUCCESS: 120,
    },
    # Seed: "5 is about the fastest you can attempt".
    "max_pace": 5,
    # Seed: "5-10% of their LC" with leverage; "around 10% of the number of pounds of force".
    "breakage_lift_capacity_percent": 10,
    "breakage_force_percent": 10,
    # Seed examples of resistance to breakage (suggestions shown to the GM).
    "breakage_resistances": {"Solid lumber": 0, "Iron": -75, "Balsa wood": 100},
    # {condition: {column: number or {"formula": "total_penalty" | "total_penalty/N"}}}
    "modifier_overrides": {},
    # Extra campaign rows: {name: {column: entry}}; missing columns are 0.
    "custom_modifiers": {},
    # Seed's list of plot point uses. gm_approval: the GM must agree (the seed says so for the
    # narrative uses); gm_sets_cost: "one or more" / whatever the GM decides (default cost 1).
    "plot_point_uses": {
        "change_roll": {
            "cost": 1,
            "values": [6, 95],
            "open_ended": False,
            "gm_approval": False,
            "gm_sets_cost": False,
            "text": "Change a roll just made (by you or another) to any value from 6 to 95.",
        },
        "change_roll_open_ended": {
            "cost": 2,
            "values": [1, 100],
            "open_ended": True,
            "gm_approval": False,
            "gm_sets_cost": False,
            "text": (
                "Change a roll just made (by you or another) to any value from 1 to 100, "
                "possibly causing the roll to go open-ended."
            ),
        },
        "lessen_wound": {
            "cost": 1,
            "gm_approval": False,
            "gm_sets_cost": False,
            "text": "A serious or fatal wound you just received turns out not to be so serious.",
        },
        "undo_wound": {
            "cost": 2,
            "gm_approval": False,
            "gm_sets_cost": False,
            "text": "A serious or fatal wound you just received turns out not to have happened.",
        },
        "ignore_weakness": {
            "cost": 1,
            "gm_approval": True,
            "gm_sets_cost": False,
            "text": "Briefly ignore a weakness, if appropriate and possible (GM's decision).",
        },
        "clue": {
            "cost": 1,
            "gm_approval": True,
            "gm_sets_cost": True,
            "text": "For one or more plot points, the GM might agree to give you a clue.",
        },
        "saved_action": {
            "cost": 1,
            "gm_approval": False,
            "gm_sets_cost": False,
            "text": "The character gets a saved action (IRIS Initiative System).",
        },
        "coincidence": {
            "cost": 1,
            "gm_approval": True,
            "gm_sets_cost": True,
            "text": "Cause some improbable coincidence to happen, if the GM agrees.",
        },
        "other": {
            "cost": 1,
            "gm_approval": True,
            "gm_sets_cost": True,
            "text": "Anything else the GM deems appropriate.",
        },
    },
    # Seed: "trading in six development points for one".
    "development_points_per_plot_point": 6,
    # Seed: another player may "cancel out someone else spending plot points by spending the same
    # amount yourself"; online, a spend waits this long for a cancel before it takes effect.
    "plot_point_cancel_seconds": 15,
}

_MERGED_DICT_FIELDS = ("running_percent", "breakage_resistances", "plot_point_uses")


def _field_int(data: Mapping[str, Any], key: str, **bounds: int) -> int:
    return check_int(data[key], f"Ruleset field {key!r}", **bounds)


def _field_bands(data: Mapping[str, Any], key: str) -> list[str]:
    value = data[key]
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise RulesError(f"Ruleset field {key!r} must be a list of chart bands.")
    return [lookup(band, BANDS, f"band in ruleset field {key!r}") for band in value]


def _field_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{what} must be true or false, not {value!r}.")
    return value


def _field_number(value: Any, what: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        raise RulesError(f"{what} must be a number, not {value!r}.")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RulesError(f"{what} must be a finite number, not {value!r}.")
        return Fraction(repr(value))  # decimal reading: 1.1 means 11/10
    return Fraction(value)


def validate_ruleset(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge a campaign's settings over ``DEFAULT_RULESET``, validate every field, return all.

    Dict-valued fields (``running_percent``, ``plot_point_uses`` and the like) are merged key by
    key, so a GM can change one entry. Raises ``RulesError`` naming the bad field.
    """
    merged = copy.deepcopy(DEFAULT_RULESET)
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise RulesError("A ruleset must be a mapping of setting names to values.")
    for key, value in data.items():
        if key not in DEFAULT_RULESET:
            known = ", ".join(DEFAULT_RULESET)
            raise RulesError(f"Unknown ruleset field {key!r}; known fields: {known}.")
        if key in _MERGED_DICT_FIELDS and isinstance(value, Mapping):
            base = merged[key]
            for sub, subvalue in value.items():
                if key == "plot_point_uses" and isinstance(subvalue, Mapping) and sub in base:
                    base[sub] = {**base[sub], **copy.deepcopy(dict(subvalue))}
                else:
                    base[sub] = copy.deepcopy(subvalue)
        else:
            merged[key] = copy.deepcopy(value)

    out: dict[str, Any] = {}
    out["retry_penalty"] = _field_int(merged, "retry_penalty", low=-MAX_BONUS, high=0)
    out["retry_failure_bands"] = _field_bands(merged, "retry_failure_bands")
    out["slump_modifier"] = _field_int(merged, "slump_modifier", low=-MAX_BONUS, high=MAX_BONUS)
    out["zone_modifier"] = _field_int(merged, "zone_modifier", low=-MAX_BONUS, high=MAX_BONUS)
    out["slump_ends_on"] = _field_bands(merged, "slump_ends_on")
    out["zone_ends_on"] = _field_bands(merged, "zone_ends_on")

    running = merged["running_percent"]
    if not isinstance(running, Mapping):
        raise RulesError("Ruleset field 'running_percent' must map chart bands to percents.")
    out["running_percent"] = {}
    for band, percent in running.items():
        name = lookup(band, _NON_MM_BANDS, "band in ruleset field 'running_percent'")
        out["running_percent"][name] = check_int(
            percent, f"Ruleset field 'running_percent' for {name}", low=0, high=1000
        )
    missing = [band for band in _NON_MM_BANDS if band not in out["running_percent"]]
    if missing:
        raise RulesError(f"Ruleset field 'running_percent' lacks {', '.join(missing)}.")

    max_pace = _field_number(merged["max_pace"], "Ruleset field 'max_pace'")
    if not 1 <= max_pace <= 100:
        raise OutOfRangeError("Ruleset field 'max_pace' must be between 1 and 100.")
    out["max_pace"] = merged["max_pace"]
    for key in ("breakage_lift_capacity_percent", "breakage_force_percent"):
        out[key] = _field_int(merged, key, low=0, high=100)

    resist = merged["breakage_resistances"]
    if not isinstance(resist, Mapping):
        raise RulesError("Ruleset field 'breakage_resistances' must map materials to numbers.")
    out["breakage_resistances"] = {
        str(material): check_int(
            value,
            f"Ruleset field 'breakage_resistances' for {material!r}",
            low=-MAX_BONUS,
            high=MAX_BONUS,
        )
        for material, value in resist.items()
    }

    out["modifier_overrides"] = _validate_overrides(merged["modifier_overrides"])
    out["custom_modifiers"] = _validate_custom(merged["custom_modifiers"])
    out["plot_point_uses"] = _validate_uses(merged["plot_point_uses"])
    out["development_points_per_plot_point"] = _field_int(
        merged, "development_points_per_plot_point", low=1, high=1000
    )
    out["plot_point_cancel_seconds"] = _field_int(
        merged, "plot_point_cancel_seconds", low=0, high=300
    )
    return out


@cache
def _default_rules() -> dict[str, Any]:
    return validate_ruleset(None)


def _rules(ruleset: Mapping[str, Any] | None) -> dict[str, Any]:
    """The validated ruleset (read-only inside this module; the defaults are built once)."""
    return _default_rules() if ruleset is None else validate_ruleset(ruleset)


# --- the modifier table ---------------------------------------------------------------------------

_FORMULA = re.compile(r"^total_penalty(?:/([1-9][0-9]*))?$")


def _check_entry(entry: Any, what: str) -> int | dict[str, str]:
    """A table cell: a whole number or {"formula": "total_penalty" | "total_penalty/N"}."""
    if isinstance(entry, Mapping):
        formula = entry.get("formula")
        if set(entry) != {"formula"} or not isinstance(formula, str):
            raise RulesError(f"{what} must be a number or {{'formula': 'total_penalty/N'}}.")
        formula = formula.replace(" ", "")
        if not _FORMULA.match(formula):
            raise RulesError(
                f"{what}: unknown formula {entry['formula']!r}; use 'total_penalty' or "
                "'total_penalty/N'."
            )
        return {"formula": formula}
    return check_int(entry, what, low=-MAX_BONUS, high=MAX_BONUS)


@cache
def _base_table() -> dict[str, Any]:
    """The seed's table from ``rules/data/percentile_modifiers.json``, checked once."""
    path = resources.files("rules").joinpath("data").joinpath("percentile_modifiers.json")
    raw = json.loads(path.read_text(encoding="utf-8"))
    columns = raw["columns"]
    if len(columns) != 5:
        raise RulesError("The percentile modifier table must have five columns.")
    rows: dict[str, dict[str, Any]] = {}
    groups: list[dict[str, Any]] = []
    for group in raw["groups"]:
        names = []
        for row in group["rows"]:
            name = row["condition"]
            if name.casefold() in {n.casefold() for n in rows}:
                raise RulesError(f"The modifier table lists {name!r} twice.")
            if len(row["values"]) != len(columns):
                raise RulesError(f"The modifier row {name!r} must have {len(columns)} values.")
            rows[name] = {
                "group": group["group"],
                "label": row.get("label", name),
                "per": row.get("per"),
                "values": {
                    col: _check_entry(v, f"Modifier {name!r} / {col}")
                    for col, v in zip(columns, row["values"], strict=True)
                },
            }
            names.append(name)
        groups.append({"group": group["group"], "conditions": names})
    return {"note": raw["note"], "columns": tuple(columns), "rows": rows, "groups": groups}


#: Column names in table order: Movement, Items, Influence, Perception, Magic (RULES-NOTES).
COLUMNS: tuple[str, ...] = _base_table()["columns"]


def _validate_overrides(data: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(data, Mapping):
        raise RulesError("Ruleset field 'modifier_overrides' must map conditions to columns.")
    rows = _base_table()["rows"]
    out: dict[str, dict[str, Any]] = {}
    for condition, cells in data.items():
        name = lookup(condition, rows, "condition in ruleset field 'modifier_overrides'")
        if not isinstance(cells, Mapping):
            raise RulesError(f"Ruleset field 'modifier_overrides' for {name!r} must map columns.")
        out[name] = {}
        for column, entry in cells.items():
            col = lookup(column, COLUMNS, "column in ruleset field 'modifier_overrides'")
            out[name][col] = _check_entry(entry, f"Ruleset 'modifier_overrides' {name!r}/{col}")
    return out


def _validate_custom(data: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(data, Mapping):
        raise RulesError("Ruleset field 'custom_modifiers' must map names to columns.")
    rows = _base_table()["rows"]
    out: dict[str, dict[str, Any]] = {}
    for name, cells in data.items():
        if not isinstance(name, str) or not name.strip():
            raise RulesError("Ruleset field 'custom_modifiers' needs a name for every row.")
        if name.casefold() in {n.casefold() for n in rows}:
            raise RulesError(
                f"Custom modifier {name!r} is already in the table; change it with "
                "'modifier_overrides' instead."
            )
        if not isinstance(cells, Mapping):
            raise RulesError(f"Ruleset field 'custom_modifiers' for {name!r} must map columns.")
        values: dict[str, Any] = dict.fromkeys(COLUMNS, 0)
        for column, entry in cells.items():
            col = lookup(column, COLUMNS, "column in ruleset field 'custom_modifiers'")
            values[col] = _check_entry(entry, f"Ruleset 'custom_modifiers' {name!r}/{col}")
        out[name.strip()] = values
    return out


def _resolved_rows(rules: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Seed rows with the campaign's overrides applied, plus the campaign's own rows."""
    rows = {
        name: {**row, "values": dict(row["values"])} for name, row in _base_table()["rows"].items()
    }
    for name, cells in rules["modifier_overrides"].items():
        rows[name]["values"].update(cells)
    for name, values in rules["custom_modifiers"].items():
        rows[name] = {"group": "Campaign", "label": name, "per": None, "values": dict(values)}
    return rows


def _resolve_entry(entry: int | Mapping[str, str], total_penalty: int) -> int:
    if isinstance(entry, int):
        return entry
    match = _FORMULA.match(entry["formula"])
    assert match is not None  # checked when the table was loaded
    divisor = int(match.group(1) or 1)
    # "X / 4": a quarter of the Total Penalty, rounded toward zero (the smaller penalty).
    return int(Fraction(total_penalty, divisor))


def _check_total_penalty(total_penalty: Any) -> int:
    return check_int(
        total_penalty, "The Total Penalty (a penalty, e.g. -65)", low=-MAX_BONUS, high=0
    )


def modifier(
    *,
    condition: str,
    column: str,
    total_penalty: int = 0,
    count: int = 1,
    ruleset: Mapping[str, Any] | None = None,
) -> int:
    """One entry of the seed's modifier table ("sample modifiers are listed below").

    ``column`` is Movement, Items, Influence, Perception or Magic (RULES-NOTES reads the last two
    columns as Perception, Magic). Encumbrance uses the character's ``total_penalty``
    ("Total Penalty = X": X in Movement and Items, X / 4 in Magic). Bleeding is "per hit/round":
    ``count`` hits scale it. Names match case-insensitively; the campaign may override entries.
    """
    rows = _resolved_rows(_rules(ruleset))
    name = lookup(condition, rows, "condition")
    col = lookup(column, COLUMNS, "column")
    return _table_value(rows[name], name, col, total_penalty, count)


def _table_value(
    row: Mapping[str, Any], name: str, col: str, total_penalty: Any, count: Any
) -> int:
    check_int(count, f"The count for {name}", low=0, high=MAX_BONUS)
    if count != 1 and not row["per"]:
        raise RulesError(f"{name} is not counted per hit or round; leave the count at 1.")
    tp = _check_total_penalty(total_penalty)
    return _resolve_entry(row["values"][col], tp) * count


@dataclasses.dataclass(frozen=True)
class Modifier(Result):
    """One labelled bonus or penalty applied to a roll."""

    label: str
    value: int


def table_modifiers(
    conditions: Iterable[str | tuple[str, int]],
    *,
    column: str,
    total_penalty: int = 0,
    ruleset: Mapping[str, Any] | None = None,
) -> tuple[Modifier, ...]:
    """Labelled modifiers for several table conditions, ready to pass to ``roll``.

    Each condition is a name or ``(name, count)`` (e.g. ``("Bleeding", 2)`` for two hits).
    """
    rows = _resolved_rows(_rules(ruleset))
    col = lookup(column, COLUMNS, "column")
    if isinstance(conditions, str | bytes):
        conditions = [conditions]  # one name, not a list of letters
    out = []
    for item in conditions:
        if isinstance(item, tuple | list) and len(item) == 2:
            name, count = item
        else:
            name, count = item, 1
        canonical = lookup(name, rows, "condition")
        value = _table_value(rows[canonical], canonical, col, total_penalty, count)
        label = canonical if count == 1 else f"{canonical} x{count}"
        out.append(Modifier(label=f"{label} ({col})", value=value))
    return tuple(out)


def modifier_table(ruleset: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The whole modifier table for the UI (JSON-ready), with the campaign's changes applied."""
    rules = _rules(ruleset)
    rows = _resolved_rows(rules)
    base = _base_table()
    groups = []
    for group in base["groups"]:
        groups.append(
            {
                "group": group["group"],
                "rows": [_row_dict(name, rows[name]) for name in group["conditions"]],
            }
        )
    if rules["custom_modifiers"]:
        groups.append(
            {
                "group": "Campaign",
                "rows": [_row_dict(name, rows[name]) for name in rules["custom_modifiers"]],
            }
        )
    return {"note": base["note"], "columns": list(COLUMNS), "groups": groups}


def _row_dict(name: str, row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "condition": name,
        "label": row["label"],
        "per": row["per"],
        "values": {col: copy.deepcopy(row["values"][col]) for col in COLUMNS},
    }


# --- open-ended d100 -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PercentileDie(Result):
    """One d100 of an open-ended chain.

    ``face`` is 1..100 as rolled (or chosen with plot points, ``chosen``); ``sign`` is +1 when it
    is added and -1 when it is subtracted; ``exploded`` means it made the chain roll again.
    """

    face: int
    sign: int
    exploded: bool
    chosen: bool = False


@dataclasses.dataclass(frozen=True)
class OpenEndedRoll(Result):
    """An open-ended d100 with every die of the chain.

    ``direction`` is "up" (first die 96-100: roll again and add, repeating), "down" (first die
    01-05: roll again and subtract; the subtracted roll is itself open-ended upward) or "none".
    """

    dice: tuple[PercentileDie, ...]
    direction: str
    total: int

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OpenEndedRoll:
        """Rebuild (and re-check) a stored roll."""
        try:
            dice = data["dice"]
            faces = [check_int(d["face"], "A d100 face", low=1, high=100) for d in dice]
            chosen = bool(dice[0].get("chosen", False)) if dice else False
        except (KeyError, TypeError, AttributeError) as exc:
            raise RulesError("A stored open-ended roll is missing its dice.") from exc
        return _chain(faces, chosen_first=chosen)


def _triggers(face: int, position: int) -> bool:
    """Does this die make the chain roll again? The first die goes both ways, the rest only up."""
    return face >= 96 or (position == 0 and face <= 5)


def _chain(faces: list[int], *, chosen_first: bool = False) -> OpenEndedRoll:
    """Build an OpenEndedRoll from its faces, checking the chain follows the open-ended rule."""
    if not faces:
        raise RulesError("An open-ended roll needs at least one die.")
    if len(faces) - 1 > MAX_EXPLOSIONS:
        raise PoolTooLargeError(
            f"The open-ended roll went past {MAX_EXPLOSIONS} extra dice; roll again."
        )
    single = len(faces) == 1
    # A lone chosen die (a 1-point plot point spend) never continues the chain, whatever it is.
    if not (chosen_first and single):
        for i, face in enumerate(faces):
            if _triggers(face, i) == (i == len(faces) - 1):
                raise RulesError("These dice do not follow the open-ended rule (96-100 / 01-05).")
    first = faces[0]
    direction = "none" if single else ("up" if first >= 96 else "down")
    sign_rest = -1 if direction == "down" else 1
    dice = tuple(
        PercentileDie(
            face=face,
            sign=1 if i == 0 else sign_rest,
            exploded=i < len(faces) - 1,
            chosen=chosen_first and i == 0,
        )
        for i, face in enumerate(faces)
    )
    return OpenEndedRoll(dice=dice, direction=direction, total=sum(d.sign * d.face for d in dice))


def _continue_chain(first: int, rng: Rng, *, chosen: bool = False) -> OpenEndedRoll:
    """Roll the rest of the chain after a first die of ``first`` (rolled or chosen)."""
    faces = [first]
    if _triggers(first, 0):
        while True:
            if len(faces) > MAX_EXPLOSIONS:
                raise PoolTooLargeError(
                    f"The open-ended roll went past {MAX_EXPLOSIONS} extra dice; roll again."
                )
            face = roll_die(100, rng)
            faces.append(face)
            if face < 96:
                break
    return _chain(faces, chosen_first=chosen)


def roll_open_ended(*, rng: Rng | None = None) -> OpenEndedRoll:
    """Roll open-ended percentile dice ("roll open-ended percentile dice").

    RULES-NOTES: 96-100 rolls again and adds (repeating); 01-05 rolls again and subtracts (the
    subtracted roll is itself open-ended upward on 96-100).
    """
    rng = resolve_rng(rng)
    return _continue_chain(roll_die(100, rng), rng)


# --- exact odds ----------------------------------------------------------------------------------
#
# Let U be the upward open-ended d100: one die, and while it shows 96-100 another is added.
# The roll is R = d (6..95), d + U (d = 96..100) or d - U (d = 01..05), each d with 1/100.
# U takes the value v with j explosions only if v >= 96j + 1, so P(U = v) has denominator
# 100^(j+1); P(U <= t) for every t <= n is a finite sum over j <= n // 96 and is computed
# exactly with integers scaled by S = 100^(n // 96 + 1) (the recurrence
# P(U = v) = sum_{a=96..100} P(U = v - a) / 100 for v >= 97, P(U = v) = 1/100 for v <= 95).
# The unbounded tails need no truncation: U has exactly k + 1 dice with probability
# (1/20)^k (19/20), and that geometric series sums to 1, so the chain stops surely and
# P(U > t) = 1 - P(U <= t) exactly. Every total past the window edge (>= 251 or <= -26 after
# the bonus) lies in the same open band, so that band receives the whole remaining mass.
# A band's mass is then P(R in [a, b]) = sum over the ten chained first dice of a
# CDF difference of U, plus a count of the first dice 06-95 inside [a, b]; the open bands
# (<= -26 and >= 251) take 1 - P(U <= t) of their chains. Every t needed satisfies
# t <= max(154 - bonus, 30 + bonus), so the work is O(|bonus| + 250) integer additions.


@lru_cache(maxsize=64)
def _u_cdf(n: int) -> tuple[tuple[int, ...], int]:
    """(C, S) with C[t] = P(U <= t) * S for t = 0..n, S = 100^(n // 96 + 1), all integers."""
    scale = 100 ** (n // 96 + 1)
    unit = scale // 100
    pmf = [0] * (n + 1)
    window = 0  # sum of pmf[v - 100 .. v - 96]
    for v in range(1, n + 1):
        if v >= 96:
            window += pmf[v - 96]
        if v >= 101:
            window -= pmf[v - 101]
        if v <= 95:
            pmf[v] = unit
        elif v >= 97:
            # Exact: each pmf[v - a] has at most n // 96 dice, so 100 divides it.
            pmf[v] = window // 100
    cdf = [0] * (n + 1)
    running = 0
    for v in range(1, n + 1):
        running += pmf[v]
        cdf[v] = running
    return tuple(cdf), scale


def _check_bonus(value: Any, what: str = "The total bonus") -> int:
    return check_int(value, what, low=-MAX_BONUS, high=MAX_BONUS)


def _band_masses(
    *, points: Iterable[int], ups: Iterable[int], downs: Iterable[int], bonus: int
) -> dict[str, Fraction]:
    """Bands of (first die + continuation + bonus), each listed first die equally likely.

    ``points`` are first dice that stop the chain, ``ups`` start the adding chain, ``downs`` the
    subtracting chain.
    """
    points, ups, downs = list(points), list(ups), list(downs)
    weight_count = len(points) + len(ups) + len(downs)
    n = max(154 - bonus, 30 + bonus, 1)
    cdf, scale = _u_cdf(n)

    def at_most(t: int) -> int:  # P(U <= t) * scale
        return 0 if t <= 0 else cdf[t]

    masses: dict[str, Fraction] = {}
    for band, low_total, high_total in _BAND_RANGES:
        low = None if low_total is None else low_total - bonus
        high = None if high_total is None else high_total - bonus
        mass = 0
        for d in points:
            if (low is None or d >= low) and (high is None or d <= high):
                mass += scale
        for d in ups:  # d + U in [low, high]
            upper = scale if high is None else at_most(high - d)
            lower = 0 if low is None else at_most(low - 1 - d)
            mass += upper - lower
        for d in downs:  # d - U in [low, high]  <=>  d - high <= U <= d - low
            upper = scale if low is None else at_most(d - low)
            lower = 0 if high is None else at_most(d - high - 1)
            mass += upper - lower
        masses[band] = Fraction(mass, scale * weight_count)
    return masses


@lru_cache(maxsize=4096)
def _band_distribution(bonus: int) -> tuple[tuple[str, Fraction], ...]:
    masses = _band_masses(points=range(6, 96), ups=range(96, 101), downs=range(1, 6), bonus=bonus)
    return tuple(masses.items())


def band_distribution(*, modifier: int) -> dict[str, Fraction]:
    """Exact chance of each Chart 14.1 band for open-ended d100 + ``modifier``.

    ``modifier`` is everything added to the dice: SV, table modifiers, retry penalty, slump or
    zone. See the comment above ``_u_cdf`` for why the infinite chains come out exact.
    """
    return dict(_band_distribution(_check_bonus(modifier)))


def success_or_better(*, modifier: int) -> Fraction:
    """P(Success, Critical Success or Extraordinary Success) for d100 + ``modifier``."""
    dist = band_distribution(modifier=modifier)
    return sum((dist[band] for band in SUCCESS_OR_BETTER), Fraction(0))


def change_roll_distribution(*, new_value: int, modifier: int) -> dict[str, Fraction]:
    """Bands after a plot point sets the roll to ``new_value`` (1..100) with ``modifier`` added.

    Seed: for two plot points the new value may be 1-100, "possibly causing the roll to go
    open-ended": 96-100 then rolls on and adds, 01-05 subtracts an upward open-ended roll.
    """
    value = check_int(new_value, "The new roll", low=1, high=100)
    bonus = _check_bonus(modifier)
    if value >= 96:
        return _band_masses(points=(), ups=(value,), downs=(), bonus=bonus)
    if value <= 5:
        return _band_masses(points=(), ups=(), downs=(value,), bonus=bonus)
    return _band_masses(points=(value,), ups=(), downs=(), bonus=bonus)


def clear_caches() -> None:
    """Empty the odds caches (benchmarks time the uncached path)."""
    _band_distribution.cache_clear()
    _u_cdf.cache_clear()


# --- maneuvers -----------------------------------------------------------------------------------

KINDS = ("maneuver", "perception", "running", "potency", "breakage", "pure_chance")


@dataclasses.dataclass(frozen=True)
class ManeuverResult(Result):
    """A maneuver as rolled: dice, SV, every labelled modifier, and the Chart 14.1 row.

    ``total`` = dice + ``skill_value`` + modifiers + ``retry_penalty`` + ``condition_modifier``.
    ``condition`` is "slump", "zone" or None. ``secret`` marks a roll the GM makes for the player
    (perception). ``plot_points_spent`` and ``original_roll`` record a roll changed with plot
    points. For potency and breakage rolls success favours the attack (the item breaks).
    """

    kind: str
    roll: OpenEndedRoll
    skill_value: int
    modifiers: tuple[Modifier, ...]
    retry_failures: int
    retry_penalty: int
    condition: str | None
    condition_modifier: int
    total: int
    row: ChartRow
    secret: bool = False
    plot_points_spent: int = 0
    original_roll: OpenEndedRoll | None = None

    @property
    def band(self) -> str:
        return self.row.band

    @property
    def mm(self) -> int | None:
        return self.row.mm

    @property
    def sm(self) -> str:
        return self.row.sm

    @property
    def bonus(self) -> int:
        """Everything added to the dice (the ``modifier`` for ``band_distribution``)."""
        return (
            self.skill_value
            + sum(m.value for m in self.modifiers)
            + self.retry_penalty
            + self.condition_modifier
        )

    @property
    def succeeded(self) -> bool:
        """Success or better (for a potency roll: the attack affects the target)."""
        return self.band in SUCCESS_OR_BETTER

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ManeuverResult:
        """Rebuild a stored result; the total and chart row are recomputed from its parts."""
        try:
            kind = lookup(data["kind"], KINDS, "kind of roll")
            dice = OpenEndedRoll.from_dict(data["roll"])
            original = data.get("original_roll")
            return _build_result(
                kind=kind,
                dice=dice,
                skill_value=check_int(data["skill_value"], "The skill value"),
                modifiers=_modifiers(data["modifiers"]),
                retry_failures=check_int(data["retry_failures"], "Previous failures", low=0),
                retry_penalty=check_int(data["retry_penalty"], "The retry penalty"),
                condition=_condition_name(data.get("condition")),
                condition_modifier=check_int(data["condition_modifier"], "The slump/zone bonus"),
                secret=_field_bool(data.get("secret", False), "secret"),
                plot_points_spent=check_int(
                    data.get("plot_points_spent", 0), "Plot points spent", low=0
                ),
                original_roll=None if original is None else OpenEndedRoll.from_dict(original),
            )
        except KeyError as exc:
            raise RulesError(f"A stored maneuver is missing {exc.args[0]!r}.") from exc
        except (TypeError, AttributeError) as exc:
            raise RulesError("A stored maneuver must be a mapping of its parts.") from exc


def _condition_name(value: Any) -> str | None:
    if value is None:
        return None
    return lookup(value, ("slump", "zone"), "condition")


def _modifiers(modifiers: Any) -> tuple[Modifier, ...]:
    """Accept {label: value}, Modifier objects, (label, value) pairs or {"label", "value"}."""
    if isinstance(modifiers, Mapping):
        modifiers = list(modifiers.items())
    if isinstance(modifiers, str | bytes) or not isinstance(modifiers, Iterable):
        raise RulesError("Modifiers must be a list of (label, value) pairs.")
    out = []
    for item in modifiers:
        if isinstance(item, Modifier):
            label, value = item.label, item.value
        elif isinstance(item, Mapping) and set(item) == {"label", "value"}:
            label, value = item["label"], item["value"]
        elif isinstance(item, tuple | list) and len(item) == 2:
            label, value = item
        else:
            raise RulesError(f"A modifier must be a (label, value) pair, not {item!r}.")
        if not isinstance(label, str):
            raise RulesError(f"A modifier's label must be text, not {label!r}.")
        value = check_int(value, f"The modifier {label!r}", low=-MAX_BONUS, high=MAX_BONUS)
        out.append(Modifier(label=label, value=value))
    return tuple(out)


def _build_result(*, dice: OpenEndedRoll, **parts: Any) -> ManeuverResult:
    parts.setdefault("secret", False)
    parts.setdefault("plot_points_spent", 0)
    parts.setdefault("original_roll", None)
    bonus = (
        parts["skill_value"]
        + sum(m.value for m in parts["modifiers"])
        + parts["retry_penalty"]
        + parts["condition_modifier"]
    )
    _check_bonus(bonus, "The total of SV and modifiers")
    total = dice.total + bonus
    return ManeuverResult(roll=dice, total=total, row=chart(total), **parts)


def retry_penalty(*, failures: int, ruleset: Mapping[str, Any] | None = None) -> int:
    """Seed: "Each failure you've had with this particular attempt gives you a cumulative -25"."""
    check_int(failures, "The number of previous failures", low=0, high=MAX_BONUS)
    return _rules(ruleset)["retry_penalty"] * failures


def _condition(condition: Any, rules: Mapping[str, Any]) -> tuple[str | None, int]:
    if isinstance(condition, SkillStreak):
        condition = condition.state
    if condition is None:
        return None, 0
    name = lookup(condition, ("normal", "slump", "zone"), "condition")
    if name == "normal":
        return None, 0
    return name, rules[f"{name}_modifier"]


def _maneuver(
    *,
    kind: str,
    skill_value: Any,
    modifiers: Any,
    retry_failures: Any,
    condition: Any,
    rng: Rng | None,
    rules: Mapping[str, Any],
    secret: bool = False,
    skill_what: str = "The skill value (SV)",
) -> ManeuverResult:
    sv = _check_bonus(skill_value, skill_what)
    mods = _modifiers(modifiers)
    failures = check_int(retry_failures, "The number of previous failures", low=0, high=MAX_BONUS)
    cond, cond_mod = _condition(condition, rules)
    # Check everything before rolling, so a bad input never consumes dice.
    _check_bonus(
        sv + sum(m.value for m in mods) + rules["retry_penalty"] * failures + cond_mod,
        "The total of SV and modifiers",
    )
    rng = resolve_rng(rng)
    return _build_result(
        kind=kind,
        dice=roll_open_ended(rng=rng),
        skill_value=sv,
        modifiers=mods,
        retry_failures=failures,
        retry_penalty=rules["retry_penalty"] * failures,
        condition=cond,
        condition_modifier=cond_mod,
        secret=secret,
    )


def roll(
    *,
    skill_value: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    retry_failures: int = 0,
    condition: str | SkillStreak | None = None,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """Make a maneuver: "roll open-ended percentile dice, and add the SV for the relevant skill".

    ``modifiers`` are labelled (see ``table_modifiers``); ``retry_failures`` earlier failures on
    this attempt give -25 each; ``condition`` is "slump" (-50), "zone" (+50) or a ``SkillStreak``.
    """
    return _maneuver(
        kind="maneuver",
        skill_value=skill_value,
        modifiers=modifiers,
        retry_failures=retry_failures,
        condition=condition,
        rng=rng,
        rules=_rules(ruleset),
    )


def perception_roll(
    *,
    skill_value: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    condition: str | SkillStreak | None = None,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """A perception roll: "the GM will make a perception roll on his behalf".

    ``skill_value`` is the Detect skill's SV or the Perceptivity stat; use the table's
    Perception column for modifiers. "Perception is generally a static maneuver": read ``.sm``.
    The result is marked ``secret``: the web layer shows it to the GM only (RULES-NOTES).
    """
    return _maneuver(
        kind="perception",
        skill_value=skill_value,
        modifiers=modifiers,
        retry_failures=0,
        condition=condition,
        rng=rng,
        rules=_rules(ruleset),
        secret=True,
    )


def potency_roll(
    *,
    potency: int,
    resistance: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """A potency (resistance) roll: "the poison, disease, etc., is making a maneuver to affect you".

    The GM rolls with the attack's ``potency`` as the SV and the target's ``resistance`` as a
    bonus; "success," in this case, is favorable to the poison (``result.succeeded``).
    """
    res = _check_bonus(resistance, "The resistance")
    return _maneuver(
        kind="potency",
        skill_value=potency,
        modifiers=((Modifier("Resistance", res),) + _modifiers(modifiers)),
        retry_failures=0,
        condition=None,
        rng=rng,
        rules=_rules(ruleset),
        skill_what="The potency",
    )


def breakage_potency(
    *,
    lift_capacity: int | float | None = None,
    force: int | float | None = None,
    percent: int | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> int:
    """The potency of an attempt to break something (give ``lift_capacity`` or ``force``).

    Seed: "they can use 5-10% of their LC (lift capacity) as an effective potency" (default 10%,
    with a hard surface or leverage), or "around 10% of the number of pounds of force being
    applied". Rounded to the nearest whole number (halves up).
    """
    rules = _rules(ruleset)
    if (lift_capacity is None) == (force is None):
        raise RulesError("Give either the lift capacity or the pounds of force, not both.")
    if lift_capacity is not None:
        amount = _field_number(lift_capacity, "The lift capacity")
        default = rules["breakage_lift_capacity_percent"]
    else:
        amount = _field_number(force, "The pounds of force")
        default = rules["breakage_force_percent"]
    if amount < 0 or amount > 100 * MAX_BONUS:
        raise OutOfRangeError(f"The weight must be between 0 and {100 * MAX_BONUS} pounds.")
    pct = default if percent is None else check_int(percent, "The percent", low=0, high=100)
    return math.floor(amount * pct / 100 + Fraction(1, 2))


def breakage_roll(
    *,
    potency: int,
    resistance: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """Does it break? "the approach is identical to the potency roll technique".

    "Success implies the item breaks. Use the MM column to get a good idea for how thoroughly it
    breaks." ``resistance``: solid lumber about 0, iron up to -75, balsa wood up to +100.
    """
    res = _check_bonus(resistance, "The material's resistance")
    return _maneuver(
        kind="breakage",
        skill_value=potency,
        modifiers=((Modifier("Resistance", res),) + _modifiers(modifiers)),
        retry_failures=0,
        condition=None,
        rng=rng,
        rules=_rules(ruleset),
        skill_what="The potency",
    )


def pure_chance_roll(*, chance: int, rng: Rng | None = None) -> ManeuverResult:
    """A pure-chance roll: "The GM will assign a percent chance of success; use this number as
    you would an SV." No other modifier applies."""
    pct = check_int(chance, "The percent chance", low=0, high=100)
    return _maneuver(
        kind="pure_chance",
        skill_value=pct,
        modifiers=(),
        retry_failures=0,
        condition=None,
        rng=rng,
        rules=_rules(None),
        skill_what="The percent chance",
    )


@dataclasses.dataclass(frozen=True)
class ManeuverOdds(Result):
    """What the roll screen shows: the total bonus, every band's chance, P(success or better)."""

    modifier: int
    bands: dict[str, Fraction]
    success_or_better: Fraction


def maneuver_odds(
    *,
    skill_value: int,
    modifiers: Iterable[Modifier | tuple[str, int]] | Mapping[str, int] = (),
    retry_failures: int = 0,
    condition: str | SkillStreak | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverOdds:
    """Exact odds of the maneuver ``roll`` would make with the same arguments."""
    rules = _rules(ruleset)
    sv = _check_bonus(skill_value, "The skill value (SV)")
    mods = _modifiers(modifiers)
    failures = check_int(retry_failures, "The number of previous failures", low=0, high=MAX_BONUS)
    _cond, cond_mod = _condition(condition, rules)
    bonus = _check_bonus(
        sv + sum(m.value for m in mods) + rules["retry_penalty"] * failures + cond_mod,
        "The total of SV and modifiers",
    )
    bands = band_distribution(modifier=bonus)
    return ManeuverOdds(
        modifier=bonus,
        bands=bands,
        success_or_better=sum((bands[b] for b in SUCCESS_OR_BETTER), Fraction(0)),
    )


# --- running -------------------------------------------------------------------------------------

RUNNING_BASE = 110  # seed: "The GM will add 110"
PACE_FACTOR = 30  # seed: "and subtract thirty times your pace"


def _running_parts(
    *, quickness: Any, total_penalty: Any, pace: Any, mv: Any, rules: Mapping[str, Any]
) -> tuple[int, tuple[Modifier, ...], Fraction, Fraction]:
    q = _check_bonus(quickness, "Quickness (or the Running SV)")
    tp = _check_total_penalty(total_penalty)
    pace_f = _field_number(pace, "The pace")
    max_pace = _field_number(rules["max_pace"], "max_pace")
    if not 1 <= pace_f <= max_pace:
        raise OutOfRangeError(
            f"The pace must be between 1 (walking) and {rules['max_pace']} (about the fastest "
            f"you can attempt), not {pace}."
        )
    mv_f = _field_number(mv, "The MV")
    if mv_f < 0 or mv_f > 100 * MAX_BONUS:
        raise OutOfRangeError(f"The MV must be between 0 and {100 * MAX_BONUS}.")
    # A fractional pace (e.g. 1.25) gives a fractional penalty; the chart reads whole numbers,
    # so round it down (the larger penalty).
    pace_penalty = math.floor(-PACE_FACTOR * pace_f)
    pace_label = str(pace_f.numerator) if pace_f.denominator == 1 else str(float(pace_f))
    mods = (
        Modifier("Total Penalty", tp),
        Modifier("Running", RUNNING_BASE),
        Modifier(f"Pace {pace_label} x {PACE_FACTOR}", pace_penalty),
    )
    return q, mods, pace_f, mv_f


def _movement(row: ChartRow, pace: Fraction, mv: Fraction, rules: Mapping[str, Any]) -> tuple:
    percent = row.mm if row.mm is not None else rules["running_percent"][row.band]
    return percent, Fraction(percent, 100) * mv * pace


def running_movement(
    *,
    roll: int,
    quickness: int,
    total_penalty: int,
    pace: int | float,
    mv: int | float,
    ruleset: Mapping[str, Any] | None = None,
) -> float:
    """Movement available this action when running (seed: "multiply it (as a percentage), your
    MV, and your pace together").

    The total is ``roll`` + Quickness (or Running SV) + Total Penalty + 110 - 30 x pace, read on
    the MM column. Outside the MM column (fumble, extraordinary failure, unrelated, critical and
    extraordinary success) the ruleset's ``running_percent`` applies: 0% for a fumble ("failed
    to get anywhere") and an extraordinary failure, 120% for critical and extraordinary success
    ("already where he wants to be"), 90% for unrelated success. Computed exactly, returned as
    the nearest float: roll 55, Quickness -9, penalty -65, pace 2, MV 26 gives 10.4.
    """
    rules = _rules(ruleset)
    dice = check_int(roll, "The roll")
    q, mods, pace_f, mv_f = _running_parts(
        quickness=quickness, total_penalty=total_penalty, pace=pace, mv=mv, rules=rules
    )
    row = chart(dice + q + sum(m.value for m in mods))
    return float(_movement(row, pace_f, mv_f, rules)[1])


@dataclasses.dataclass(frozen=True)
class RunningResult(Result):
    """A running maneuver and the movement it allows (``percent`` of MV x pace)."""

    maneuver: ManeuverResult
    pace: float
    mv: float
    percent: int
    movement: float


def roll_running(
    *,
    quickness: int,
    total_penalty: int,
    pace: int | float,
    mv: int | float,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> RunningResult:
    """Run faster than the basic Encumbered MV: "Make a moving maneuver using only your Quickness
    stat (or Running skill if you have it) and your Total Penalty as bonuses." See
    ``running_movement`` for how the result becomes movement."""
    rules = _rules(ruleset)
    q, mods, pace_f, mv_f = _running_parts(
        quickness=quickness, total_penalty=total_penalty, pace=pace, mv=mv, rules=rules
    )
    result = _maneuver(
        kind="running",
        skill_value=q,
        modifiers=mods,
        retry_failures=0,
        condition=None,
        rng=rng,
        rules=rules,
        skill_what="Quickness (or the Running SV)",
    )
    percent, movement = _movement(result.row, pace_f, mv_f, rules)
    return RunningResult(
        maneuver=result,
        pace=float(pace_f),
        mv=float(mv_f),
        percent=percent,
        movement=float(movement),
    )


def running_odds(
    *,
    quickness: int,
    total_penalty: int,
    pace: int | float,
    ruleset: Mapping[str, Any] | None = None,
) -> dict[str, Fraction]:
    """Band chances of a running maneuver (the bonus is Quickness + penalty + 110 - 30 x pace)."""
    rules = _rules(ruleset)
    q, mods, _pace, _mv = _running_parts(
        quickness=quickness, total_penalty=total_penalty, pace=pace, mv=0, rules=rules
    )
    return band_distribution(modifier=q + sum(m.value for m in mods))


# --- retries -------------------------------------------------------------------------------------


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise RulesError(f"{what} must be text, not {value!r}.")
    return value


@dataclasses.dataclass(frozen=True)
class RetryAttempt(Result):
    """How many times a character has failed this particular attempt (picking this lock...)."""

    character: str
    task: str
    failures: int = 0

    def __post_init__(self) -> None:
        _text(self.character, "The character")
        _text(self.task, "The task")
        check_int(self.failures, "The number of previous failures", low=0, high=MAX_BONUS)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetryAttempt:
        try:
            return cls(data["character"], data["task"], data.get("failures", 0))
        except (KeyError, TypeError) as exc:
            raise RulesError("A stored retry record is missing its character or task.") from exc

    def penalty(self, *, ruleset: Mapping[str, Any] | None = None) -> int:
        return retry_penalty(failures=self.failures, ruleset=ruleset)


def record_attempt(
    attempt: RetryAttempt, result: ManeuverResult, *, ruleset: Mapping[str, Any] | None = None
) -> RetryAttempt:
    """Count a failed attempt: "Each failure you've had with this particular attempt gives you a
    cumulative -25 to subsequent attempts". By default anything short of Success counts."""
    if result.band in _rules(ruleset)["retry_failure_bands"]:
        return dataclasses.replace(attempt, failures=attempt.failures + 1)
    return attempt


def reset_attempt(attempt: RetryAttempt) -> RetryAttempt:
    """The GM's reset: "You can start over with no penalty when you have new information ... or
    when you've trained in that skill since your last attempt"."""
    return dataclasses.replace(attempt, failures=0)


# --- slump and zone ------------------------------------------------------------------------------

STREAK_STATES = ("normal", "slump", "zone")


@dataclasses.dataclass(frozen=True)
class SkillStreak(Result):
    """Whether a character is "in a slump" (-50) or "in the zone" (+50) at a skill."""

    character: str
    skill: str
    state: str = "normal"

    def __post_init__(self) -> None:
        _text(self.character, "The character")
        _text(self.skill, "The skill")
        object.__setattr__(self, "state", lookup(self.state, STREAK_STATES, "streak state"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SkillStreak:
        try:
            return cls(data["character"], data["skill"], data.get("state", "normal"))
        except (KeyError, TypeError) as exc:
            raise RulesError("A stored slump/zone record lacks its character or skill.") from exc

    def modifier(self, *, ruleset: Mapping[str, Any] | None = None) -> int:
        return _condition(self.state, _rules(ruleset))[1]


@dataclasses.dataclass(frozen=True)
class StreakChange(Result):
    """What a result did to a slump or zone (``before`` == ``after`` when nothing changed)."""

    before: str
    after: str
    band: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def record_streak(
    streak: SkillStreak, result: ManeuverResult, *, ruleset: Mapping[str, Any] | None = None
) -> tuple[SkillStreak, StreakChange]:
    """Apply a maneuver to the slump/zone of its skill.

    Seed: an Extraordinary Failure puts you "in a slump" "until you get a full success"; an
    Extraordinary Success puts you "in the zone" "until your next failure". Which bands end them
    is ruleset data (``slump_ends_on``: Success or better; ``zone_ends_on``: Failure or worse).
    Only the character's own maneuvers count (not potency, breakage or pure-chance rolls).
    """
    rules = _rules(ruleset)
    if result.kind not in ("maneuver", "perception", "running"):
        raise IllegalMoveError(
            f"A {result.kind.replace('_', ' ')} roll is not the character's own action; it "
            "cannot start or end a slump or zone."
        )
    band, before = result.band, streak.state
    if band == EXTRAORDINARY_FAILURE:
        after = "slump"
    elif band == EXTRAORDINARY_SUCCESS:
        after = "zone"
    elif before != "normal" and band in rules[f"{before}_ends_on"]:
        after = "normal"
    else:
        after = before
    return dataclasses.replace(streak, state=after), StreakChange(before, after, band)


# --- plot points ---------------------------------------------------------------------------------


def _validate_uses(data: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(data, Mapping):
        raise RulesError("Ruleset field 'plot_point_uses' must map uses to their cost.")
    out: dict[str, dict[str, Any]] = {}
    for use, spec in data.items():
        what = f"Ruleset field 'plot_point_uses' for {use!r}"
        if not isinstance(use, str) or not isinstance(spec, Mapping):
            raise RulesError(f"{what} must be a mapping with a cost.")
        if "cost" not in spec:
            raise RulesError(f"{what} needs a cost.")
        entry = {
            "cost": check_int(spec["cost"], f"{what}: cost", low=1, high=MAX_BONUS),
            "gm_approval": _field_bool(spec.get("gm_approval", True), f"{what}: gm_approval"),
            "gm_sets_cost": _field_bool(spec.get("gm_sets_cost", False), f"{what}: gm_sets_cost"),
            "text": _text(spec.get("text", use), f"{what}: text"),
        }
        if "values" in spec:
            values = spec["values"]
            if not isinstance(values, list | tuple) or len(values) != 2:
                raise RulesError(f"{what}: values must be [lowest, highest].")
            low = check_int(values[0], f"{what}: lowest value", low=1, high=100)
            high = check_int(values[1], f"{what}: highest value", low=low, high=100)
            entry["values"] = [low, high]
            entry["open_ended"] = _field_bool(spec.get("open_ended", False), f"{what}: open_ended")
        out[use] = entry
    for use in ("change_roll", "change_roll_open_ended"):
        if use not in out or "values" not in out[use]:
            raise RulesError(f"Ruleset field 'plot_point_uses' must keep {use!r} with its values.")
    if out["change_roll"]["cost"] == out["change_roll_open_ended"]["cost"]:
        raise RulesError("The two ways of changing a roll must cost different numbers of points.")
    return out


def plot_point_uses(ruleset: Mapping[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The things a plot point can buy (seed list; the campaign may edit or add uses)."""
    return copy.deepcopy(_rules(ruleset)["plot_point_uses"])


@dataclasses.dataclass(frozen=True)
class PlotPoints(Result):
    """A character's plot points: ``available`` to spend, ``total`` ever had (spending "reduces
    the number available but not the total"), and unspent ``development_points``."""

    available: int
    total: int
    development_points: int = 0

    def __post_init__(self) -> None:
        check_int(self.total, "Total plot points", low=0, high=100 * MAX_BONUS)
        check_int(self.available, "Available plot points", low=0, high=self.total)
        check_int(self.development_points, "Development points", low=0, high=100 * MAX_BONUS)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlotPoints:
        try:
            return cls(data["available"], data["total"], data.get("development_points", 0))
        except (KeyError, TypeError) as exc:
            raise RulesError("Stored plot points need 'available' and 'total'.") from exc


@dataclasses.dataclass(frozen=True)
class PlotPointSpend(Result):
    """One spend of plot points: the use, how many, and what it cancels (for a cancel)."""

    use: str
    points: int
    gm_approved: bool = False
    note: str = ""
    cancels: str | None = None

    def __post_init__(self) -> None:
        _text(self.use, "The use")
        check_int(self.points, "Plot points spent", low=1, high=MAX_BONUS)
        _field_bool(self.gm_approved, "gm_approved")
        _text(self.note, "The note")
        if self.cancels is not None:
            _text(self.cancels, "The cancelled use")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlotPointSpend:
        try:
            return cls(
                use=data["use"],
                points=data["points"],
                gm_approved=data.get("gm_approved", False),
                note=data.get("note", ""),
                cancels=data.get("cancels"),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise RulesError("A stored plot point spend needs its use and points.") from exc


def _pay(points: PlotPoints, cost: int) -> PlotPoints:
    if not isinstance(points, PlotPoints):
        raise RulesError("Plot points must be a PlotPoints value.")
    if points.available < cost:
        raise IllegalMoveError(
            f"Not enough plot points: you have {points.available} and this costs {cost}."
        )
    return dataclasses.replace(points, available=points.available - cost)


def spend_plot_points(
    points: PlotPoints,
    *,
    use: str,
    cost: int | None = None,
    gm_approved: bool = False,
    note: str = "",
    ruleset: Mapping[str, Any] | None = None,
) -> tuple[PlotPoints, PlotPointSpend]:
    """Spend plot points on one of the seed's uses ("Plot points, once spent, are lost").

    Uses the GM must agree to need ``gm_approved=True``; uses whose cost the GM sets (a clue:
    "one or more plot points", a coincidence) take ``cost`` (default their listed cost).
    Raises ``IllegalMoveError`` when the points are not there.
    """
    uses = _rules(ruleset)["plot_point_uses"]
    name = lookup(use, uses, "plot point use")
    spec = uses[name]
    approved = _field_bool(gm_approved, "gm_approved")
    if spec["gm_approval"] and not approved:
        raise IllegalMoveError(f"The GM must agree before you spend plot points on {name}.")
    if cost is None:
        price = spec["cost"]
    elif spec["gm_sets_cost"]:
        price = check_int(cost, f"The cost of {name}", low=spec["cost"], high=MAX_BONUS)
    elif cost != spec["cost"]:
        raise RulesError(f"{name} costs {spec['cost']} plot point(s), not {cost}.")
    else:
        price = spec["cost"]
    new = _pay(points, price)
    return new, PlotPointSpend(
        use=name, points=price, gm_approved=approved, note=_text(note, "The note")
    )


def cancel_plot_point_spend(
    points: PlotPoints, *, spend: PlotPointSpend | Mapping[str, Any]
) -> tuple[PlotPoints, PlotPointSpend]:
    """Seed: "cancel out someone else spending plot points by spending the same amount yourself".

    The canceller pays ``spend.points``; the cancelled points are not returned (spent points are
    "lost and never return").
    """
    if not isinstance(spend, PlotPointSpend):
        spend = PlotPointSpend.from_dict(spend)
    new = _pay(points, spend.points)
    return new, PlotPointSpend(use="cancel", points=spend.points, cancels=spend.use)


def buy_plot_points(
    points: PlotPoints, *, count: int = 1, ruleset: Mapping[str, Any] | None = None
) -> PlotPoints:
    """Development: "you can get more during development by trading in six development points
    for one" (available and total both rise)."""
    check_int(count, "The number of plot points to buy", low=1, high=MAX_BONUS)
    price = _rules(ruleset)["development_points_per_plot_point"] * count
    if points.development_points < price:
        raise IllegalMoveError(
            f"Not enough development points: you have {points.development_points} and "
            f"{count} plot point(s) cost {price}."
        )
    return PlotPoints(
        available=points.available + count,
        total=points.total + count,
        development_points=points.development_points - price,
    )


def award_plot_points(points: PlotPoints, *, count: int = 1) -> PlotPoints:
    """The GM gives plot points (available and total both rise)."""
    check_int(count, "The number of plot points", low=1, high=MAX_BONUS)
    return PlotPoints(points.available + count, points.total + count, points.development_points)


def gain_development_points(points: PlotPoints, *, count: int) -> PlotPoints:
    """Record development points earned (to trade for plot points)."""
    check_int(count, "The number of development points", low=1, high=MAX_BONUS)
    return dataclasses.replace(points, development_points=points.development_points + count)


def change_roll(
    result: ManeuverResult,
    *,
    new_value: int,
    points: int,
    rng: Rng | None = None,
    ruleset: Mapping[str, Any] | None = None,
) -> ManeuverResult:
    """Change a roll just made with plot points; the total and chart row are recomputed.

    Seed: "for one plot point, change a roll just made ... to any value from 6 to 95; for two
    plot points ... to any value from 1 to 100, possibly causing the roll to go open-ended".
    With two points a chosen 96-100 rolls on and adds, a chosen 01-05 rolls on and subtracts
    (``rng`` rolls the continuation). Paying is ``spend_plot_points``'s job.
    """
    if not isinstance(result, ManeuverResult):
        raise RulesError("Only a maneuver just made can be changed with plot points.")
    uses = _rules(ruleset)["plot_point_uses"]
    check_int(points, "The plot points spent")
    spec = next(
        (uses[u] for u in ("change_roll", "change_roll_open_ended") if uses[u]["cost"] == points),
        None,
    )
    if spec is None:
        one, two = uses["change_roll"], uses["change_roll_open_ended"]
        raise RulesError(
            f"Changing a roll costs {one['cost']} plot point(s) (a value from "
            f"{one['values'][0]} to {one['values'][1]}) or {two['cost']} (from "
            f"{two['values'][0]} to {two['values'][1]}), not {points}."
        )
    low, high = spec["values"]
    value = check_int(new_value, f"For {points} plot point(s) the new roll", low=low, high=high)
    if spec["open_ended"]:
        dice = _continue_chain(value, resolve_rng(rng), chosen=True)
    else:
        dice = _chain([value], chosen_first=True)
    return _build_result(
        kind=result.kind,
        dice=dice,
        skill_value=result.skill_value,
        modifiers=result.modifiers,
        retry_failures=result.retry_failures,
        retry_penalty=result.retry_penalty,
        condition=result.condition,
        condition_modifier=result.condition_modifier,
        secret=result.secret,
        plot_points_spent=result.plot_points_spent + points,
        original_roll=result.original_roll or result.roll,
    )
