"""What a command's statements do, one word each, so a test of the fast paths says the shape of
a write ("begin, read, move, event, commit") rather than matching SQL text."""

from __future__ import annotations

from collections.abc import Iterable

from tabletop.scenes.models import Scene, SceneEvent

_SCENE = Scene._meta.db_table
_EVENT = SceneEvent._meta.db_table


def kind(sql: str) -> str:
    """One statement's kind:

    - ``begin``, ``commit``, ``rollback``: the transaction's own;
    - ``read``: any SELECT (the scene read, a row read, a check of a scene as seen);
    - ``write``: PostgreSQL's event with the scene's seq and head moved in one statement, on the
      condition that the scene is as read (``WITH moved AS (UPDATE ...``);
    - ``event``: an event's INSERT (on PostgreSQL with the new head: ``WITH head AS``);
    - ``seq``: the scene's next seq taken under its row lock (``last_seq = last_seq + 1``);
    - ``move``: the scene's seq and head moved if they are still as read (the portable twin);
    - ``head``: the scene's ledger head moved alone;
    - ``save``: PostgreSQL's rows saved in one statement (``WITH u0 AS (UPDATE ...``);
    - ``update``: any other UPDATE."""
    text = sql.lstrip()
    word = text.split(None, 1)[0].upper()
    if word in ("BEGIN", "COMMIT", "ROLLBACK"):
        return word.lower()
    if word == "SELECT":
        return "read"
    if text.startswith("WITH moved AS (UPDATE"):
        return "write"
    if text.startswith("WITH head AS") or (word == "INSERT" and _EVENT in text):
        return "event"
    if text.startswith("WITH u0 AS (UPDATE"):
        return "save"
    if word == "UPDATE" and _SCENE in text:
        if "last_seq = last_seq + 1" in text:
            return "seq"
        if "SET last_seq" in text:
            return "move"
        if "SET ledger_head" in text:
            return "head"
    if word == "UPDATE":
        return "update"
    return text[:40]


def kinds(statements: Iterable[str]) -> list[str]:
    return [kind(sql) for sql in statements]
