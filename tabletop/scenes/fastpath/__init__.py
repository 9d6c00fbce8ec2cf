"""The fast paths: every statement the ORM would write more slowly, and the checks of a scene as
this process last saw it, in one place, behind one interface (``Paths``) with a PostgreSQL
implementation and a portable twin; ``paths()`` picks one by the database, here and nowhere else.

Which path a command takes (``actions.run_command``):

1. **The scene it goes by.** A roll or a chat line (a ``scene_action(atomic=False)``: its only
   write is its event) runs on this process's copy of the scene as last seen, when there is one
   (``scene_as_seen``); every other command, and those without a copy, read the scene with its
   campaign and the actor's membership in one statement (``read_scene``). Either way the
   command gets a ``SceneRead`` and runs on it (``running_on``): the kit asks it whether the
   actor is a member (``member_known``) before it queries.
2. **Its event** (``record.record_event`` -> ``Paths.write_event``): numbered from the scene as
   read when no event came since, and, on a copy as seen, only if the scene, its campaign and
   the membership are unchanged (``check_as_seen``; else ``SceneMoved``, nothing written, and
   the command runs again on a fresh read). PostgreSQL: one statement, without a transaction
   for a roll that writes nothing else (``one_write``). Portable: the scene's row locked, read
   and compared, then written, in a transaction of its own.
3. **Rows it saves** (``save_together``, ``save_if_as_read``, ``change_row``): PostgreSQL
   saves several rows, or a row on the condition that it is still as the command read it, in
   one statement; the twin locks, compares and saves in its transaction.
4. **Rows it reads** (``statements``): the scene read, a check's character
   (``character_in_campaign``, ``character_locked``), planned once per connection
   (``statements.PlannedPerConnection``), portable.

What a path needs is passed in and what it found is returned: nothing is kept on the model
objects it is given (tests/tabletop/test_layout.py holds it so).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import transaction
from django.db.models import Model

from tabletop.scenes.fastpath.onewrite import in_one_write, one_write
from tabletop.scenes.fastpath.paths import Paths, Row
from tabletop.scenes.fastpath.portable import PortablePaths
from tabletop.scenes.fastpath.postgres import PostgresPaths
from tabletop.scenes.fastpath.scenes import (
    SceneMoved,
    SceneRead,
    check_as_seen,
    forget_scene,
    member_known,
    read_scene,
    running_on,
    saw_scene,
    scene_as_seen,
)
from tabletop.scenes.fastpath.statements import character_in_campaign, character_locked

POSTGRESQL = PostgresPaths()
PORTABLE = PortablePaths()
#: Each implementation by its name (the tests run each fast path's assertions on both).
IMPLEMENTATIONS: dict[str, Paths] = {p.name: p for p in (PORTABLE, POSTGRESQL)}


def paths() -> Paths:
    """The fast paths for the database this thread writes to: PostgreSQL's there, the portable
    twin anywhere else."""
    if transaction.get_connection().vendor == "postgresql":
        return POSTGRESQL
    return PORTABLE


def save_together(*rows: Row) -> None:
    """Save the named fields of several rows (each ``(row, fields)``) as ``save(update_fields=
    ...)`` would, all or nothing, in one statement where the database allows it."""
    paths().save_together(*rows)


def save_if_as_read(
    row: Model, as_read: dict[str, Any], changes: dict[str, Any], *also: Row
) -> bool:
    """``Paths.save_if_as_read``: save ``changes`` to ``row``'s row, and ``also``'s rows, only
    if that row still holds ``as_read``; False, with nothing saved, when it changed."""
    return paths().save_if_as_read(row, as_read, changes, *also)


M = TypeVar("M", bound=Model)


def change_row(row: M, change: Callable[[M], dict[str, Any]], *also: Row) -> M:
    """Save ``change(sheet)`` (field name -> new value, fields of ``row``'s own table) with
    ``also``'s rows, where ``sheet`` is ``row`` as the command read it if its row still holds
    that (one statement on PostgreSQL: the row is not read again), else the row locked and read
    as it is now. ``change`` may set the fields ``also`` saves (it runs once or twice); a field
    it leaves as it was is not written from the locked row. The row as saved, a copy: ``row`` is
    left as it was. A row that is gone raises its model's ``DoesNotExist``."""
    fast = paths()
    as_read = {f.attname: getattr(row, f.attname) for f in type(row)._meta.local_concrete_fields}
    changes = change(row)
    if fast.save_if_as_read(row, as_read, changes, *also):
        saved = copy.copy(row)
        for name, value in changes.items():
            setattr(saved, name, value)
        return saved
    locked = character_locked(type(row), row.pk)
    if locked is None:
        raise type(row).DoesNotExist(f"No {type(row)._meta.verbose_name} {row.pk} to change.")
    changes = {n: v for n, v in change(locked).items() if getattr(locked, n) != v}
    for name, value in changes.items():
        setattr(locked, name, value)
    fast.save_together(*([(locked, list(changes))] if changes else []), *also)
    return locked


__all__ = [
    "IMPLEMENTATIONS",
    "PORTABLE",
    "POSTGRESQL",
    "Paths",
    "SceneMoved",
    "SceneRead",
    "change_row",
    "character_in_campaign",
    "character_locked",
    "check_as_seen",
    "forget_scene",
    "in_one_write",
    "member_known",
    "one_write",
    "paths",
    "read_scene",
    "running_on",
    "save_if_as_read",
    "save_together",
    "saw_scene",
    "scene_as_seen",
]
