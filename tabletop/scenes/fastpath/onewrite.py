"""An action whose only write is its event, run without a transaction around it (``one_write``),
and the guard that holds it to that one write where ``settings.CHECK_ONE_WRITE`` is on.

On PostgreSQL an event numbered from the scene as the command read it is one statement, atomic
on its own (``postgres.PostgresPaths``); the BEGIN and COMMIT around it were half of a roll's
round trips, and under load each round trip costs a wait for the database and then for the GIL
(bench/README.md). Where the event needs more than one statement (the portable twin, or a scene
that moved since it was read), the write opens the transaction itself.

The guard counts every statement, so it runs where ``CHECK_ONE_WRITE`` is on: the test
settings turn it on (as ``CHECK_EVENT_PAYLOADS``), and every ``scene_action(atomic=False)``
runs under it in a test (tests/tabletop/scenes/test_one_write.py); play pays nothing for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.transaction import TransactionManagementError

from tabletop.scenes.context import CommandContext


@contextlib.contextmanager
def one_write(context: CommandContext | None = None) -> Iterator[CommandContext]:
    """Run an action whose only write is its event without opening a transaction for it (the
    kit runs every ``scene_action(atomic=False)`` under it): ``context`` (a blank one if None),
    yielded, says so to ``record_event`` while it runs (``CommandContext.one_write``).

    Reads are free; where ``settings.CHECK_ONE_WRITE`` is on, a second write outside a
    transaction is refused before it runs (``OneWriteGuard``), so an action that comes to write
    more cannot lose its all-or-nothing unnoticed: it needs ``transaction.atomic``. Inside a
    transaction already (a procedure's roll, a test), this changes nothing."""
    context = context if context is not None else CommandContext()
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        yield context
        return
    before, context.one_write = context.one_write, True
    try:
        if settings.CHECK_ONE_WRITE:
            with connection.execute_wrapper(OneWriteGuard(connection)):
                yield context
        else:
            yield context
    finally:
        context.one_write = before


class OneWriteGuard:
    """An ``execute_wrapper`` that lets one write through outside a transaction and refuses the
    next before it runs (statements inside a transaction, and reads, are not counted)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.writes = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not self.connection.in_atomic_block and sql.lstrip()[:6].upper() != "SELECT":
            self.writes += 1
            if self.writes > 1:
                raise TransactionManagementError(
                    "A second write outside a transaction: this action needs transaction.atomic."
                )
        return execute(sql, params, many, context)
