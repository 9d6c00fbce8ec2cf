"""The fast paths' portable twin: the same contract as PostgreSQL's (``Paths``), on any database
the project runs on (SQLite by default), in a transaction of a few portable statements.

Where PostgreSQL checks a condition inside its one statement, the twin locks the row first
(SQLite's ``BEGIN IMMEDIATE`` holds the whole database, PostgreSQL's ``FOR UPDATE`` the row),
reads it and compares in Python, then writes. Its results are PostgreSQL's: the same events,
seqs, heads and refusals, the same rows saved or left alone (tests/tabletop/scenes/ hold both
to the same assertions).
"""

from __future__ import annotations

import contextlib
from typing import Any

from django.db import transaction
from django.db.models import Model

from tabletop.scenes.fastpath import statements
from tabletop.scenes.fastpath.paths import (
    NEW_HEAD,
    EventInsert,
    Paths,
    Row,
    locked_now,
    own_fields,
    written,
)
from tabletop.scenes.fastpath.scenes import SceneRead
from tabletop.scenes.models import Scene, SceneEvent

_MOVE = (
    f"UPDATE {Scene._meta.db_table} SET last_seq = %s, ledger_head = %s "
    "WHERE id = %s AND last_seq = %s AND ledger_head = %s"
)


class PortablePaths(Paths):
    name = "portable"
    one_statement = False  # the scene's row is locked or moved, then the event written

    def __init__(self) -> None:
        self._insert = EventInsert()

    def _write_as_read(self, scene: Scene, event: SceneEvent, check: SceneRead | None) -> bool:
        if check is not None and not _unchanged(check):
            return False  # before any write: nothing to undo
        # The scene's row moves only if no event came since (it holds the seq and head the
        # command read).
        moved = [event.seq, event.ledger_hash or scene.ledger_head, scene.pk]
        if _execute(_MOVE, [*moved, scene.last_seq, scene.ledger_head]) != 1:
            return False
        self._write(event)
        return True

    def _write_next(self, scene: Scene, event: SceneEvent) -> None:
        self._write(event)
        if event.ledger_hash:
            _execute(NEW_HEAD, [event.ledger_hash, scene.pk])

    def _write(self, event: SceneEvent) -> None:
        connection = transaction.get_connection()
        insert = self._insert.plan(connection)["insert"]
        with connection.cursor() as cursor:
            cursor.execute(insert, self._insert.values(event, connection))
            written(event, cursor.fetchone()[0], connection)

    def save_together(self, *rows: Row) -> None:
        with _transaction() if len(rows) > 1 else contextlib.nullcontext():
            for row, fields in rows:
                row.save(update_fields=fields)

    def save_if_as_read(
        self, row: Model, as_read: dict[str, Any], changes: dict[str, Any], *also: Row
    ) -> Model | None:
        fields = own_fields(row, changes)
        now = locked_now(row)  # read once: compared, then saved or handed back as it is
        if any(getattr(now, f.attname) != as_read[f.attname] for f in fields):
            return now
        for name, value in changes.items():
            setattr(now, name, value)
        self.save_together((now, list(changes)), *also)
        return None


def _unchanged(check: SceneRead) -> bool:
    """Whether the scene's row (locked until commit), its campaign's row and the user's
    membership are still what ``check`` holds, column for column."""
    found = statements.scene_read_locked(check.scene.pk, check.user_id)
    if found is None:
        return False
    scene, member = found
    return (
        member
        and _row(scene) == _row(check.scene)
        and _row(scene.campaign) == _row(check.scene.campaign)
    )


def _row(obj: Model) -> dict[str, Any]:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def _execute(sql: str, params: list[Any]) -> int:
    """Run one statement; how many rows it changed."""
    with transaction.get_connection().cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def _transaction() -> Any:
    """A transaction where none is open. One already open holds the writes together with no
    savepoint of their own (two statements a command saves): what fails rolls it back."""
    connection = transaction.get_connection()
    return contextlib.nullcontext() if connection.in_atomic_block else transaction.atomic()
