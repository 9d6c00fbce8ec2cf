"""The fast paths: every statement the ORM would write more slowly, and the checks of a scene as
this process last saw it, in one place, behind one interface (``Paths``) with a PostgreSQL
implementation and a portable twin; ``paths()`` picks one by the database, here and nowhere else.

Which path a command takes (``actions.run_command``):

1. **The scene it goes by.** A roll or a chat line (a ``scene_action(atomic=False)``: its only
   write is its event) runs on this process's copy of the scene as last seen, when there is one
   (``scene_as_seen``); every other command, and those without a copy, read the scene with its
   campaign and the actor's membership in one statement (``read_scene``). Either way the
   command gets a ``SceneRead``, carried in its ``CommandContext`` (tabletop/scenes/context.py):
   the kit asks it whether the actor is a member (``member_known``) before it queries.
2. **Its event** (``record.record_event`` -> ``Paths.write_event``): numbered from the scene as
   read when no event came since, and, on a copy as seen, only if the scene, its campaign and
   the membership are unchanged (the context's ``check_as_seen``; else ``SceneMoved``, nothing
   written, and the command runs again on a fresh read). PostgreSQL: one statement, without a
   transaction for a roll that writes nothing else (``one_write``, which marks the context).
   Portable: the scene's row locked, read and compared, then written, in a transaction of its
   own.
3. **Rows it saves** (``save_together``, ``change_row``): PostgreSQL saves several rows, or a
   row on the condition that it is still as the command read it (``Paths.save_if_as_read``),
   in one statement; the twin reads the row once under its lock, compares and saves in the
   command's transaction.
4. **Rows it reads** (``statements``): the scene read, a check's character
   (``character_in_campaign``, ``character_locked``), planned once per connection
   (``statements.PlannedPerConnection``), portable.

A scene socket's own statements (its opening, its presence) are built in ``sockets`` and run on
the event loop (``onloop``, PostgreSQL): they are not commands, and no path of ``Paths`` takes
them.

What a path needs is passed in and what it found is returned: nothing is kept on the model
objects it is given (tests/tabletop/test_layout.py holds it so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from tabletop.scenes.fastpath.onewrite import one_write
from tabletop.scenes.fastpath.paths import M, Paths, Row
from tabletop.scenes.fastpath.portable import PortablePaths
from tabletop.scenes.fastpath.postgres import PostgresPaths
from tabletop.scenes.fastpath.scenes import (
    SceneMoved,
    SceneRead,
    forget_scene,
    read_scene,
    saw_scene,
    scene_as_seen,
)
from tabletop.scenes.fastpath.statements import character_in_campaign, character_locked

POSTGRESQL = PostgresPaths()
PORTABLE = PortablePaths()


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


def change_row(row: M, change: Callable[[M], dict[str, Any]], *also: Row) -> M:
    """``Paths.change_row``: save ``change(sheet)`` with ``also``'s rows, where ``sheet`` is
    ``row`` as the command read it if its row still holds that, else the row locked and read as
    it is now. The row as saved, a copy: ``row`` is left as it was."""
    return paths().change_row(row, change, *also)


__all__ = [
    "PORTABLE",
    "POSTGRESQL",
    "Paths",
    "SceneMoved",
    "SceneRead",
    "change_row",
    "character_in_campaign",
    "character_locked",
    "forget_scene",
    "one_write",
    "paths",
    "read_scene",
    "save_together",
    "saw_scene",
    "scene_as_seen",
]
