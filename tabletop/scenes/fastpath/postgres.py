"""The fast paths on PostgreSQL: each write in one statement of data-modifying ``WITH``s.

Every round trip of a command costs a wait for the database and then for the GIL under load
(bench/README.md): an event numbered from the scene as the command read it is written with the
scene's new seq and head in one statement (no BEGIN, no COMMIT around it), a scene as this
process last saw it is checked in that same statement, and several rows are saved in one. Each
method keeps the contract ``Paths`` states; ``portable.PortablePaths`` is the twin the tests
hold it to.
"""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import Model, Q
from django.db.models.sql import UpdateQuery

from tabletop.campaigns.models import Campaign
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


class _Statements(EventInsert):
    """The event's INSERT with the scene's row moved in the same statement: its new ledger head
    after a seq UPDATE (``with_head``); or, numbered from the scene as the command read it, its
    seq and head both, on the condition that they are still what it read (``numbered``: a round
    trip fewer, or two); or that and the whole scene as this process last saw it (``seen``)."""

    def build(self, connection: Any) -> dict[str, Any]:
        plan = super().build(connection)
        quote = connection.ops.quote_name
        scene = quote(Scene._meta.db_table)
        insert, marks, returning = plan["into"], plan["marks"], plan["returning"]
        plan["with_head"] = f"WITH head AS ({NEW_HEAD}) {plan['insert']}"
        plan["numbered"] = (
            f"WITH moved AS (UPDATE {scene} SET last_seq = %s, ledger_head = %s "
            "WHERE id = %s AND last_seq = %s AND ledger_head = %s RETURNING id) "
            f"{insert} SELECT {marks} FROM moved {returning}"
        )
        # The event is written only if the scene's row, its campaign's row and the actor's
        # membership are all still what the command went by.
        seen = statements.scene_and_campaign()
        plan["seen_fields"] = seen
        plan["seen"] = (
            f"WITH moved AS (UPDATE {scene} s SET last_seq = %s, ledger_head = %s "
            f"FROM {quote(Campaign._meta.db_table)} c "
            f"WHERE s.id = %s AND c.{quote(Campaign._meta.pk.column)} = s.campaign_id "
            f"AND ({', '.join(f'{a}.{quote(f.column)}' for a, f in seen)}) "
            f"IS NOT DISTINCT FROM ({', '.join(['%s'] * len(seen))}) "
            f"AND {statements.member_exists(connection)} RETURNING s.id) "
            f"{insert} SELECT {marks} FROM moved {returning}"
        )
        return plan

    def __call__(
        self,
        event: SceneEvent,
        *,
        after: tuple[int, str] | None = None,
        check: SceneRead | None = None,
    ) -> bool:
        """Write ``event``; ``after``: the scene's (last seq, ledger head) it was numbered
        from, and nothing is written (False) unless the scene's row still holds them; with
        ``check``, nor unless its row, its campaign's and the user's membership are as seen."""
        connection = transaction.get_connection()
        plan = self.plan(connection)
        values = self.values(event, connection)
        head = event.ledger_hash or None
        with connection.cursor() as cursor:
            if check is not None and after is not None:
                scene = check.scene
                rows = {"s": scene, "c": scene.campaign}
                as_seen = [
                    f.get_db_prep_value(getattr(rows[alias], f.attname), connection)
                    for alias, f in plan["seen_fields"]
                ]
                moved = [event.seq, head or after[1], event.scene_id, *as_seen, check.user_id]
                cursor.execute(plan["seen"], [*moved, *values])
            elif after is not None:
                moved = [event.seq, head or after[1], event.scene_id, *after]
                cursor.execute(plan["numbered"], [*moved, *values])
            elif head:
                cursor.execute(plan["with_head"], [head, event.scene_id, *values])
            else:
                cursor.execute(plan["insert"], values)
            row = cursor.fetchone()
        if row is None:
            return False  # another event came first: the scene's row is as it was
        written(event, row[0], connection)
        return True


class PostgresPaths(Paths):
    name = "postgresql"
    one_statement = True  # the event, the scene's seq and head, and any check: one statement

    def __init__(self) -> None:
        self._insert = _Statements()

    def _write_as_read(self, scene: Scene, event: SceneEvent, check: SceneRead | None) -> bool:
        # The scene as the command read it (moments ago, under its scene's lock in this
        # process): the statement writes only if no event came since, else nothing.
        return self._insert(event, after=(scene.last_seq, scene.ledger_head), check=check)

    def _write_next(self, scene: Scene, event: SceneEvent) -> None:
        self._insert(event)  # the new head in the same statement (``with_head``)

    def save_together(self, *rows: Row) -> None:
        if len(rows) < 2:
            for row, fields in rows:
                row.save(update_fields=fields)
            return
        connection = transaction.get_connection()
        found = _counted([u for row, fields in rows for u in _updates(row, fields, connection)])
        if any(n != 1 for n in found):
            raise DatabaseError("Save with update_fields did not affect any rows.")

    def save_if_as_read(
        self, row: Model, as_read: dict[str, Any], changes: dict[str, Any], *also: Row
    ) -> Model | None:
        # One statement: the row's conditional UPDATE, then the others only if it passed. The
        # check runs on the row's newest version after any lock wait (READ COMMITTED).
        fields = own_fields(row, changes)
        connection = transaction.get_connection()
        meta = type(row)._meta
        quote = connection.ops.quote_name
        sql, params = _update(row, [(meta.get_field(n), v) for n, v in changes.items()], connection)
        columns = ", ".join(f"{quote(meta.db_table)}.{quote(f.column)}" for f in fields)
        sql += f" AND ({columns}) IS NOT DISTINCT FROM ({', '.join(['%s'] * len(fields))})"
        params += [f.get_db_prep_value(as_read[f.attname], connection) for f in fields]
        # The other rows only if this one passed (the WHERE is the UPDATE's last clause).
        others = [u for other, names in also for u in _updates(other, names, connection)]
        found = _counted(
            [(sql, params), *((f"{s} AND EXISTS (SELECT 1 FROM u0)", v) for s, v in others)]
        )
        if found[0] != 1:
            return locked_now(row)  # it changed since (or is gone): nothing was saved
        if any(n != 1 for n in found[1:]):
            raise DatabaseError("Save with update_fields did not affect any rows.")
        return None


def _updates(row: Model, names: list[str], connection: Any) -> list[tuple[str, list[Any]]]:
    """The ``UPDATE``s that save the named fields of ``row`` as ``save`` would: one per table
    they live in (a sheet's fields in its table, the character's it extends in the
    character's)."""
    meta = type(row)._meta
    tables: dict[type[Model], list[tuple[Any, Any]]] = {}
    for name in names:
        field = meta.get_field(name)
        tables.setdefault(field.model._meta.concrete_model, []).append(
            (field, field.pre_save(row, False))
        )
    return [_update(row, values, connection, model) for model, values in tables.items()]


def _update(
    row: Model, values: list[tuple[Any, Any]], connection: Any, model: type[Model] | None = None
) -> tuple[str, list[Any]]:
    """The ORM's ``UPDATE`` of ``row``'s row (in ``model``'s table: one it extends, or its own)
    by its key, setting each (field, value)."""
    query = UpdateQuery(model or type(row))
    query.add_update_fields([(f, None, value) for f, value in values])
    query.add_q(Q(pk=row.pk))
    sql, params = query.get_compiler(connection=connection).as_sql()
    return sql, list(params)


def _counted(updates: list[tuple[str, list[Any]]]) -> tuple[int, ...]:
    """Run the UPDATEs as one statement of data-modifying ``WITH``s (u0, u1...): how many rows
    each changed."""
    parts = [f"u{i} AS ({sql} RETURNING 1)" for i, (sql, _params) in enumerate(updates)]
    counts = ", ".join(f"(SELECT count(*) FROM u{i})" for i in range(len(updates)))
    with transaction.get_connection().cursor() as cursor:
        cursor.execute(
            f"WITH {', '.join(parts)} SELECT {counts}", [v for _s, p in updates for v in p]
        )
        return tuple(cursor.fetchone())
