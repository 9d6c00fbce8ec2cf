"""An action whose only write is its event, run without a transaction around it (``one_write``):
the guard that holds it to that one write.

On PostgreSQL an event numbered from the scene as the command read it is one statement, atomic
on its own (``postgres.PostgresPaths``); the BEGIN and COMMIT around it were half of a roll's
round trips, and under load each round trip costs a wait for the database and then for the GIL
(bench/README.md). Where the event needs more than one statement (the portable twin, or a scene
that moved since it was read), the write opens the transaction itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from django.db import transaction
from django.db.transaction import TransactionManagementError

_one_write: ContextVar[bool] = ContextVar("one_write", default=False)


@contextlib.contextmanager
def one_write() -> Iterator[None]:
    """Run an action whose only write is its event without opening a transaction for it (the
    kit runs every ``scene_action(atomic=False)`` under it).

    Reads are free; a second write outside a transaction is refused before it runs, so an
    action that comes to write more cannot lose its all-or-nothing unnoticed: it needs
    ``transaction.atomic``. Inside a transaction already (a procedure's roll, a test), this
    changes nothing."""
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        yield
        return
    writes = 0

    def guard(execute: Any, sql_text: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal writes
        if not connection.in_atomic_block and sql_text.lstrip()[:6].upper() != "SELECT":
            writes += 1
            if writes > 1:
                raise TransactionManagementError(
                    "A second write outside a transaction: this action needs transaction.atomic."
                )
        return execute(sql_text, params, many, context)

    token = _one_write.set(True)
    try:
        with connection.execute_wrapper(guard):
            yield
    finally:
        _one_write.reset(token)


def in_one_write() -> bool:
    """Whether an event may be written outside a transaction here (inside ``one_write``)."""
    return _one_write.get()
