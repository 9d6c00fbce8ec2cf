"""The fast paths' one interface, ``Paths``: writing a scene's next event and saving rows, each
in as few statements as the database allows, and what both implementations share: the steps
of writing an event (``Paths.write_event``; each implementation says how it writes, the hooks
``_write_as_read`` and ``_write_next``).

``postgres.PostgresPaths`` writes each in one statement (data-modifying ``WITH``s);
``portable.PortablePaths`` is its twin on any database (SQLite, and PostgreSQL in the tests),
with the same observable results in a transaction of a few statements. Neither keeps anything
on the rows it is given: what a path needs comes in as arguments, what it found goes out as its
result.
"""

from __future__ import annotations

import contextlib
import copy
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from django.db import transaction
from django.db.models import Model

from tabletop.scenes.fastpath.scenes import SceneMoved, SceneRead
from tabletop.scenes.fastpath.statements import PlannedPerConnection, character_locked
from tabletop.scenes.models import Scene, SceneEvent

#: Builds the event with its seq and the ledger head it chains onto (``record.record_event``).
Numbered = Callable[[int, str], SceneEvent]
#: A row and the names of the fields to save on it, as ``save(update_fields=...)`` would.
Row = tuple[Model, list[str]]
M = TypeVar("M", bound=Model)

NEXT_SEQ = (
    f"UPDATE {Scene._meta.db_table} SET last_seq = last_seq + 1 WHERE id = %s "
    "RETURNING last_seq, ledger_head"
)
NEW_HEAD = f"UPDATE {Scene._meta.db_table} SET ledger_head = %s WHERE id = %s"


class Paths(ABC):
    """What the write path asks of the database. Each method's docstring is its contract; both
    implementations keep it (tests/tabletop/scenes/ run each one's tests against both)."""

    #: "postgresql" or "portable".
    name: ClassVar[str]
    #: Whether the event numbered as read is written in one statement (atomic on its own, so
    #: outside a transaction only the fallback to the next seq opens one), or in several (a
    #: transaction around the whole write).
    one_statement: ClassVar[bool]

    def write_event(
        self, scene: Scene, numbered: Numbered, *, check: SceneRead | None, alone: bool
    ) -> SceneEvent:
        """Write the scene's next event (built by ``numbered(seq, head)``) and move the scene's
        row: its last seq, and its ledger head when the event is in the chain.

        The event is numbered from ``scene`` as the command read it (its ``last_seq`` and
        ``ledger_head``) if no event came since; else it gets the next seq and chains onto the
        real head, under the scene row's lock. ``check``: ``scene`` is this process's copy as
        last seen (``check.scene``), and nothing is written unless the scene's row, its
        campaign's row and ``check.user_id``'s membership are still what the command went by:
        ``SceneMoved`` otherwise. ``alone``: no transaction is open (``one_write``); a write
        of more than one statement opens its own.

        The steps are the same on both paths; each says how it writes (``_write_as_read``,
        ``_write_next``)."""
        as_read = not {"last_seq", "ledger_head"} & scene.get_deferred_fields()
        with _atomic(alone and not self.one_statement):
            if as_read:
                event = numbered(scene.last_seq + 1, scene.ledger_head)
                if self._write_as_read(scene, event, check):
                    return event
            if check is not None:
                raise SceneMoved(scene.pk)  # nothing was written: the command reads the scene
            with _atomic(alone and self.one_statement):
                seq, head = next_seq(scene.pk)
                event = numbered(seq, head)
                self._write_next(scene, event)
            return event

    @abstractmethod
    def _write_as_read(self, scene: Scene, event: SceneEvent, check: SceneRead | None) -> bool:
        """Write ``event``, numbered from ``scene`` as the command read it, and move the
        scene's seq and head to it, only if the scene's row still holds the seq and head the
        command read (and, with ``check``, the scene, its campaign and the membership are as
        seen). False, with nothing written, otherwise."""

    @abstractmethod
    def _write_next(self, scene: Scene, event: SceneEvent) -> None:
        """Write ``event``, numbered by ``next_seq`` under the scene row's lock, and move the
        scene's ledger head to it when it is in the chain."""

    @abstractmethod
    def save_together(self, *rows: Row) -> None:
        """Save the named fields of several rows as ``save(update_fields=...)`` would, all or
        nothing; a row that is not there raises as ``save`` does."""

    @abstractmethod
    def save_if_as_read(
        self, row: Model, as_read: dict[str, Any], changes: dict[str, Any], *also: Row
    ) -> Model | None:
        """Save ``changes`` (field name -> new value, fields of ``row``'s own table) to
        ``row``'s row only if that row still holds ``as_read`` (the ``attname`` of every field
        of ``row``'s own table -> its value as the command read it), and ``also``'s rows as
        ``save_together`` saves them: None when saved. When the row changed since, nothing is
        saved and the row as it is now comes back, read under its lock (``locked_now``: held
        until the open transaction commits); a row that is gone raises its model's
        ``DoesNotExist``. Two writers that read the same row never both pass. ``row`` itself
        is left as it was."""

    def change_row(self, row: M, change: Callable[[M], dict[str, Any]], *also: Row) -> M:
        """Save ``change(sheet)`` (field name -> new value, fields of ``row``'s own table) with
        ``also``'s rows, where ``sheet`` is ``row`` as the command read it if its row still
        holds that (one statement on PostgreSQL: the row is not read again), else the row
        locked and read as it is now (once: ``save_if_as_read`` gives it). ``change`` may set
        the fields ``also`` saves (it runs once or twice); a field it leaves as it was is not
        written from the locked row. The row as saved, a copy: ``row`` is left as it was. A
        row that is gone raises its model's ``DoesNotExist``."""
        meta = type(row)._meta
        as_read = {f.attname: getattr(row, f.attname) for f in meta.local_concrete_fields}
        changes = change(row)
        now = self.save_if_as_read(row, as_read, changes, *also)
        if now is None:
            return _with(copy.copy(row), changes)
        changes = {n: v for n, v in change(now).items() if getattr(now, n) != v}
        self.save_together(*([(_with(now, changes), list(changes))] if changes else []), *also)
        return now


def _with(row: M, changes: dict[str, Any]) -> M:
    for name, value in changes.items():
        setattr(row, name, value)
    return row


def locked_now(row: M) -> M:
    """``row``'s row as it is now, read under its lock until commit; its model's
    ``DoesNotExist`` when it is gone."""
    now = character_locked(type(row), row.pk)
    if now is None:
        raise type(row).DoesNotExist(f"No {type(row)._meta.verbose_name} {row.pk} to change.")
    return now


def _atomic(needed: bool) -> Any:
    """A transaction of the write's own where ``needed``, else the one already open (or none,
    for one statement)."""
    return transaction.atomic() if needed else contextlib.nullcontext()


def own_fields(row: Model, changes: dict[str, Any]) -> list[Any]:
    """The concrete fields of ``row``'s own table, refusing a change to any other (a sheet's
    fields, not those of the character it extends)."""
    meta = type(row)._meta
    fields = meta.local_concrete_fields
    if not set(changes) <= {f.name for f in fields}:
        raise ValueError(f"save_if_as_read saves fields of {meta.db_table} alone: {changes}")
    return fields


class EventInsert(PlannedPerConnection[dict[str, Any]]):
    """An event's INSERT planned once per connection, every value prepared by its field as the
    ORM's ``save`` prepares it (the ORM compiled the same INSERT afresh for every event).
    ``build`` gives ``fields``, the columns in order, and ``insert``; the PostgreSQL paths add
    their statements to the plan."""

    def build(self, connection: Any) -> dict[str, Any]:
        quote = connection.ops.quote_name
        meta = SceneEvent._meta
        fields = [f for f in meta.concrete_fields if not f.primary_key]
        columns = ", ".join(quote(f.column) for f in fields)
        into = f"INSERT INTO {quote(meta.db_table)} ({columns})"
        marks = ", ".join(["%s"] * len(fields))
        returning = f"RETURNING {quote(meta.pk.column)}"
        plan = {"fields": fields, "into": into, "marks": marks, "returning": returning}
        plan["insert"] = f"{into} VALUES ({marks}) {returning}"
        return plan

    def values(self, event: SceneEvent, connection: Any) -> list[Any]:
        """The event's values, in the plan's column order."""
        fields = self.plan(connection)["fields"]
        return [f.get_db_prep_save(f.pre_save(event, True), connection) for f in fields]


def written(event: SceneEvent, pk: Any, connection: Any) -> SceneEvent:
    """``event`` as the ORM leaves a row it saved."""
    event.pk = pk
    event._state.adding = False
    event._state.db = connection.alias
    return event


def next_seq(scene_id: int) -> tuple[int, str]:
    """Take the scene's next seq (its row locked until commit, so concurrent events get 1, 2,
    3, ... and each chain event reads the head its predecessor left): the seq and the head.
    RETURNING (PostgreSQL, SQLite 3.35+): one round trip instead of an UPDATE and a SELECT."""
    with transaction.get_connection().cursor() as cursor:
        cursor.execute(NEXT_SEQ, [scene_id])
        return cursor.fetchone()
