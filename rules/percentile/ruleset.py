"""Percentile (seed 004): the campaign ruleset.

``DEFAULT_RULESET`` holds the seed's numbers (retry -25, slump -50, zone +50, running, breakage,
plot point uses and costs) and the defaults where the seed is silent; ``validate_ruleset``
merges a campaign's changes over it and checks every field.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from typing import Any

from rules.core import OutOfRangeError, RulesError, check_int, lookup
from rules.percentile.bands import (
    BANDS,
    CRITICAL_SUCCESS,
    EXTRAORDINARY_FAILURE,
    EXTRAORDINARY_SUCCESS,
    FAILURE,
    FUMBLE,
    MAX_BONUS,
    NEAR_SUCCESS,
    PARTIAL_SUCCESS,
    SUCCESS,
    UNRELATED_SUCCESS,
)
from rules.percentile.table import _validate_custom, _validate_overrides

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


def _merged(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """``DEFAULT_RULESET`` with a campaign's settings over it (dict fields key by key)."""
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
    return merged


def _running_percent(running: Any) -> dict[str, int]:
    """The running percent of every chart band but the lowest, each given."""
    if not isinstance(running, Mapping):
        raise RulesError("Ruleset field 'running_percent' must map chart bands to percents.")
    percents: dict[str, int] = {}
    for band, percent in running.items():
        name = lookup(band, _NON_MM_BANDS, "band in ruleset field 'running_percent'")
        percents[name] = check_int(
            percent, f"Ruleset field 'running_percent' for {name}", low=0, high=1000
        )
    missing = [band for band in _NON_MM_BANDS if band not in percents]
    if missing:
        raise RulesError(f"Ruleset field 'running_percent' lacks {', '.join(missing)}.")
    return percents


def validate_ruleset(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """Merge a campaign's settings over ``DEFAULT_RULESET``, validate every field, return all.

    Dict-valued fields (``running_percent``, ``plot_point_uses`` and the like) are merged key by
    key, so a GM can change one entry. Raises ``RulesError`` naming the bad field.
    """
    merged = _merged(data)
    out: dict[str, Any] = {}
    out["retry_penalty"] = _field_int(merged, "retry_penalty", low=-MAX_BONUS, high=0)
    out["retry_failure_bands"] = _field_bands(merged, "retry_failure_bands")
    out["slump_modifier"] = _field_int(merged, "slump_modifier", low=-MAX_BONUS, high=MAX_BONUS)
    out["zone_modifier"] = _field_int(merged, "zone_modifier", low=-MAX_BONUS, high=MAX_BONUS)
    out["slump_ends_on"] = _field_bands(merged, "slump_ends_on")
    out["zone_ends_on"] = _field_bands(merged, "zone_ends_on")

    out["running_percent"] = _running_percent(merged["running_percent"])

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
    """The validated ruleset (read-only inside this package; the defaults are built once)."""
    return _default_rules() if ruleset is None else validate_ruleset(ruleset)


# --- small validators (the other modules use them too) -------------------------------------------


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise RulesError(f"{what} must be text, not {value!r}.")
    return value


# --- plot point uses -----------------------------------------------------------------------------


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
