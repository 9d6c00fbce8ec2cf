"""SQL written once per database connection, for the few statements every command runs.

The ORM compiles a query afresh each time it runs: for the scene read, the event's INSERT and
a check's character, that cost several times the statement itself (bench/README.md). These
statements are built from the models' fields (a new field is read and written like any other)
once per connection, and every value read goes through the converters the ORM would apply.
"""

from __future__ import annotations

import weakref
from typing import Any, Generic, TypeVar

from django.db.models import Field
from django.db.models.expressions import Col

Plan = TypeVar("Plan")


class WrittenOnce(Generic[Plan]):
    """A statement's plan (its SQL and what goes with it), built by ``build`` on the first use
    of each connection and kept as long as the connection lives."""

    def __init__(self) -> None:
        self._plans: weakref.WeakKeyDictionary[Any, Plan] = weakref.WeakKeyDictionary()

    def build(self, connection: Any) -> Plan:
        raise NotImplementedError

    def plan(self, connection: Any) -> Plan:
        found = self._plans.get(connection)
        if found is None:
            found = self._plans[connection] = self.build(connection)
        return found


Converters = list[tuple[Col, list[Any]]]


def converters(connection: Any, fields: list[tuple[str, Field]]) -> Converters:
    """The converters the ORM would apply to each (table alias, field) read."""
    found = []
    for alias, f in fields:
        col = Col(alias, f)
        found.append(
            (col, connection.ops.get_db_converters(col) + col.get_db_converters(connection))
        )
    return found


def converted(row: Any, found: Converters, connection: Any) -> list[Any]:
    """The row's first ``len(found)`` values as the ORM would give them."""
    values = list(row[: len(found)])
    for i, (col, convert_all) in enumerate(found):
        for convert in convert_all:
            values[i] = convert(values[i], col, connection)
    return values
