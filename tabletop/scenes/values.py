"""Reading the values a command's frame sent: whole numbers, lists, a sheet's numbers; a bad one
is a ``ValidationError`` the player reads."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError


def whole(raw: Any, what: str) -> int:
    if isinstance(raw, bool):
        raise ValidationError(f"{what} (a whole number)")
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ValidationError(f"{what} (a whole number)") from None


#: The widest whole number a database compares with a row's id or seq (a 64-bit integer): past
#: it SQLite refuses the whole query, an error where the player meant a row that is not there.
ROW_NUMBER_MAX = 2**63 - 1


def row_number(raw: Any, what: str) -> int:
    """``whole`` for a row's id or seq: a number no row can have reads as 0, which names none
    (the caller's own "not found" follows)."""
    number = whole(raw, what)
    return number if -ROW_NUMBER_MAX <= number <= ROW_NUMBER_MAX else 0


def sheet_int(value: Any) -> int:
    """A number from a sheet's JSON (anything else counts 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def form_list(raw: Any) -> list[str]:
    """A form's multi-valued field: one value, a list of them, or nothing."""
    if raw in (None, ""):
        return []
    values = raw if isinstance(raw, list) else [raw]
    return [str(v).strip() for v in values if str(v).strip()][:40]
