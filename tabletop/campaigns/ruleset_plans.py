"""Which inputs edit each field of a ruleset (its ``Plan``), chosen by the shape of the system's
default and checked against the stored value: the JSON textarea is the last resort, for a value
no input reads back. The form that builds and reads the inputs is
``tabletop.campaigns.ruleset_forms``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from tabletop.campaigns.ruleset_shapes import (
    CHOICE,
    GROUP,
    INT,
    JSON,
    LISTS,
    NAMES,
    NESTED,
    OMIT,
    RECORDS,
    REQUIRED,
    ROWS_ADDED,
    ROWS_ANY,
    ROWS_FIXED,
    ROWS_NULL,
    SCALAR,
    TABLE,
    TEXT,
    Column,
    Hint,
    Plan,
    cell_fits,
    columns_for,
    fits,
    human_label,
    input_type_of,
    shape_of,
)


def plan_field(key: str, hint: Hint, default: Any, value: Any) -> Plan:
    """Which inputs edit the field, chosen by its shape; JSON when none reads it back."""
    shape = hint.shape or shape_of(default)
    if shape == GROUP and hint.shape is None and not isinstance(default, Mapping):
        shape = JSON
    plan = Plan(key=key, shape=shape, hint=hint)
    planner = {
        SCALAR: _plan_one_input,
        NAMES: _plan_names,
        TABLE: _plan_table,
        LISTS: _plan_table,
        NESTED: _plan_nested,
        RECORDS: _plan_records,
        GROUP: _plan_group,
    }.get(shape)
    if (
        shape == JSON
        or not fits(shape, value)
        or (planner is not None and not planner(plan, default, value))
    ):
        # Last resort: a default of a shape no input suits, or a stored value that no longer
        # fits the default's shape (an old override). JSON shows it whole so it can be fixed.
        plan.shape = JSON
    return plan


def _plan_one_input(plan: Plan, default: Any, value: Any) -> bool:
    """A number, a text, a yes/no or a choice: one input, while the value is of its type."""
    hint = plan.hint
    column_type = input_type_of([default], hint)
    if column_type is None or type(value) is not type(default) and column_type != CHOICE:
        return False
    if column_type == CHOICE and value not in {v for v, _ in hint.choices or ()}:
        return False
    label = hint.label or human_label(plan.key)
    plan.columns = [Column(plan.key, label, column_type, hint, REQUIRED)]
    return True


def _plan_names(plan: Plan, default: Any, value: Any) -> bool:
    """A list of names, typed or ticked; ticked ones keep the stored order (``current``)."""
    choices = plan.hint.choices
    if choices is not None and not set(value) <= {v for v, _ in choices}:
        return False
    plan.current = list(value)
    return True


def _plan_table(plan: Plan, default: Any, value: Any) -> bool:
    """Names mapped to one number, text or list of names each: a row per name, one input."""
    hint = plan.hint
    if plan.shape == LISTS:
        column_type: str | None = NAMES
    else:
        column_type = input_type_of([*default.values(), *value.values()], hint)
    if column_type not in (INT, TEXT, CHOICE, NAMES) or not _cells_fit(
        [Column("value", "", column_type or TEXT, hint, REQUIRED)],
        [{"value": item} for item in value.values()],
    ):
        # Numbers and texts mixed in one table: no single input reads them back.
        return False
    assert column_type is not None
    label = hint.value_label or ("Names (comma-separated)" if plan.shape == LISTS else "Value")
    # An entry may list no names; a number or a text must be given unless hinted.
    blank = OMIT if hint.blank else "" if plan.shape == LISTS else REQUIRED
    # The field's hint doubles as the column's bounds and choices; its help is the field's.
    column_hint = dataclasses.replace(hint, help="")
    plan.columns = [Column("value", label, column_type, column_hint, blank)]
    _plan_keyed(plan, default, value)
    return True


def _plan_nested(plan: Plan, default: Any, value: Any) -> bool:
    """Names mapped to records: a row per name, an input per field of the record."""
    if not isinstance(default, Mapping):
        return False
    columns = columns_for(list(value.values()), list(default.values()), plan.hint)
    if columns is None or not _cells_fit(columns, value.values()):
        return False
    plan.columns = columns
    _plan_keyed(plan, default, value)
    return True


def _plan_records(plan: Plan, default: Any, value: Any) -> bool:
    """A list of records: a row per record, labelled by its first text field or its number."""
    hint = plan.hint
    columns = columns_for(list(value), list(default), hint)
    if columns is None or not _cells_fit(columns, value):
        return False
    plan.columns = columns
    plan.row_count = len(value)
    plan.removable = [hint.rows != ROWS_FIXED] * len(value)
    plan.addable = hint.rows != ROWS_FIXED
    name_column = next((c for c in columns if c.input_type == TEXT), None)
    plan.row_labels = [
        str(record.get(name_column.key) or f"{hint.noun.capitalize()} {i + 1}")
        if name_column
        else f"{hint.noun.capitalize()} {i + 1}"
        for i, record in enumerate(value)
    ]
    return True


def _plan_group(plan: Plan, default: Any, value: Any) -> bool:
    """Fixed fields: one labelled input each; a stored field the default lacks fits none."""
    if set(value) - set(default):
        return False
    columns = columns_for([value], [default], plan.hint)
    if columns is None or not _cells_fit(columns, [value]):
        return False
    plan.columns = columns
    return True


def _cells_fit(columns: list[Column], rows: Iterable[Mapping[str, Any]]) -> bool:
    rows = list(rows)
    keys = {column.key for column in columns}
    return all(set(row) <= keys for row in rows) and all(
        cell_fits(column, row.get(column.key)) for column in columns for row in rows
    )


def _plan_keyed(plan: Plan, default: Mapping[str, Any], value: Mapping[str, Any]) -> None:
    hint = plan.hint
    plan.row_keys = list(value)
    plan.row_labels = [hint.row_labels.get(name, name) for name in value]
    plan.row_count = len(value)
    plan.default_keys = list(default)
    defaults_folded = {name.casefold() for name in default}
    plan.removable = [
        hint.rows in (ROWS_ANY, ROWS_NULL)
        or (hint.rows == ROWS_ADDED and name.casefold() not in defaults_folded)
        for name in value
    ]
    plan.addable = hint.rows != ROWS_FIXED
