"""Percentile (seed 004): the seed's modifier table as data.

Loaded once from ``rules/data/percentile_modifiers.json`` and checked; a campaign's
``modifier_overrides`` and ``custom_modifiers`` are validated here and applied to it. Reading an
entry for a roll is ``rules.percentile.modifiers``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

from rules.core import RulesError, check_int, lookup
from rules.percentile.bands import MAX_BONUS

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
