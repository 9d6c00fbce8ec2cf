"""Percentile (seed 004): labelled modifiers, and reading the modifier table for a roll.

"In most cases, the GM will apply relevant modifiers": ``modifier`` reads one entry,
``table_modifiers`` labels several for ``roll``, ``modifier_table`` gives the whole table to the UI.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from rules.core import Result, RulesError, check_int, lookup
from rules.percentile.bands import MAX_BONUS
from rules.percentile.ruleset import _rules
from rules.percentile.table import (
    COLUMNS,
    _base_table,
    _check_total_penalty,
    _resolve_entry,
    _resolved_rows,
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
