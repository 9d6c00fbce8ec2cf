"""SQL planned once per database connection (``PlannedPerConnection``), for the few statements
every command runs: the scene read (with the actor's membership), a row read (a check's
character, locked to pay), and the event's INSERT (``postgres``, ``portable``).

The ORM compiles a query afresh each time it runs: for the scene read, the event's INSERT and
a check's character, that cost several times the statement itself (bench/README.md). These
statements are built from the models' fields (a new field is read and written like any other)
once per connection, and every value read goes through the converters the ORM would apply.
Every statement here is portable SQL (``FOR UPDATE`` where the database has it).
"""

from __future__ import annotations

import weakref
from typing import Any, Generic, TypeVar

from django.db import connections, router
from django.db.models import Field, Model
from django.db.models.expressions import Col

from tabletop.campaigns.models import Campaign, Membership
from tabletop.scenes.models import Scene

Plan = TypeVar("Plan")


class PlannedPerConnection(Generic[Plan]):
    """A statement planned once per connection: its plan (its SQL and what goes with it), built
    by ``build`` on the first use of each connection and kept as long as the connection lives."""

    def __init__(self) -> None:
        self._plans: weakref.WeakKeyDictionary[Any, Plan] = weakref.WeakKeyDictionary()

    def build(self, connection: Any) -> Plan:
        raise NotImplementedError

    def plan(self, connection: Any) -> Plan:
        found = self._plans.get(connection)
        if found is None:
            found = self._plans[connection] = self.build(connection)
        return found


def scene_and_campaign() -> list[tuple[str, Field]]:
    """Every column of a scene (table alias ``s``) and of its campaign (``c``), in order: what
    a command goes by (the scene read selects them; an event on a scene as last seen checks
    them)."""
    return [("s", f) for f in Scene._meta.concrete_fields] + [
        ("c", f) for f in Campaign._meta.concrete_fields
    ]


def member_exists(connection: Any) -> str:
    """SQL: whether the user ``%s`` is a member of the campaign of the scene ``s``."""
    quote = connection.ops.quote_name
    member = Membership._meta
    return (
        f"EXISTS (SELECT 1 FROM {quote(member.db_table)} m "
        f"WHERE m.{quote(member.get_field('campaign').column)} = "
        f"s.{quote(Scene._meta.get_field('campaign').column)} "
        f"AND m.{quote(member.get_field('user').column)} = %s)"
    )


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
    """The row's values, the first ``len(found)`` as the ORM would give them (any after those
    as the database gave them)."""
    values = list(row)
    for i, (col, convert_all) in enumerate(found):
        for convert in convert_all:
            values[i] = convert(values[i], col, connection)
    return values


class PlannedRead(PlannedPerConnection[tuple[str, Converters]]):
    """A read of one row, planned once per connection: ``build`` gives its SQL and the
    converters of the columns it reads as model fields; ``fetch`` runs it. ``lock``: the row is
    read under its lock until commit (a transaction must be open)."""

    def __init__(self, *, lock: bool = False) -> None:
        super().__init__()
        self.lock = lock

    def fetch(self, connection: Any, params: list[Any]) -> list[Any] | None:
        """The row's values as the ORM would give them, or None when there is none."""
        if self.lock:
            assert connection.in_atomic_block, "a locked read needs a transaction"
        statement, found = self.plan(connection)
        with connection.cursor() as cursor:
            cursor.execute(statement, params)
            row = cursor.fetchone()
        return None if row is None else converted(row, found, connection)


class RowRead(PlannedRead):
    """One row of ``model`` by its primary key and, optionally, other columns that must
    match (``also``: field names), locked until commit with ``lock``. For the hot reads of a
    command (a check reads its character, then locks it to pay, then shows its new numbers):
    the ORM compiled each such query afresh, about six times the cost of the read itself
    (bench/README.md)."""

    def __init__(self, model: type[Model], *, also: tuple[str, ...] = (), lock: bool = False):
        super().__init__(lock=lock)
        self.model, self.also = model, also

    def build(self, connection: Any) -> tuple[str, Converters]:
        quote = connection.ops.quote_name
        meta = self.model._meta
        # A model that extends another (a system's sheet extends Character) keeps the
        # parent's fields in the parent's table: joined on the link, one alias per table.
        aliases = {self.model: "t"}
        joins = ""
        for i, parent in enumerate(meta.get_parent_list()):
            aliases[parent] = alias = f"p{i}"
            child = next(m for m in aliases if parent in m._meta.parents)
            link = child._meta.parents[parent]
            joins += (
                f" JOIN {quote(parent._meta.db_table)} {alias} "
                f"ON {alias}.{quote(parent._meta.pk.column)} = "
                f"{aliases[child]}.{quote(link.column)}"
            )
        fields = [(aliases[f.model._meta.concrete_model], f) for f in meta.concrete_fields]
        where = [meta.pk, *(meta.get_field(name) for name in self.also)]
        at = {id(f): alias for alias, f in fields}
        statement = (
            f"SELECT {', '.join(f'{a}.{quote(f.column)}' for a, f in fields)} "
            f"FROM {quote(meta.db_table)} t{joins} "
            f"WHERE {' AND '.join(f'{at[id(f)]}.{quote(f.column)} = %s' for f in where)}"
        )
        if self.lock and connection.features.has_select_for_update:
            statement += " FOR UPDATE"
        return statement, converters(connection, fields)

    def __call__(self, pk: Any, *also: Any) -> Any:
        """The row, or None when there is none (``pk`` and ``also``'s values, in order)."""
        if any(isinstance(v, int) and not -(2**63) <= v < 2**63 for v in (pk, *also)):
            return None  # no key is that long (SQLite would refuse the number outright)
        connection = connections[router.db_for_write(self.model)]
        values = self.fetch(connection, [pk, *also])
        return None if values is None else self.model.from_db(connection.alias, None, values)


class RowReads:
    """``RowRead`` for whichever model the caller names: a character as its system's sheet
    model (the sheet's row joined to the character's), one plan per model."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.plans: dict[type[Model], RowRead] = {}

    def __call__(self, model: type[Model], pk: Any, *also: Any) -> Any:
        plan = self.plans.get(model)
        if plan is None:
            plan = self.plans[model] = RowRead(model, **self.options)
        return plan(pk, *also)


class SceneStatement(PlannedRead):
    """The scene, its campaign and whether a user is a member, in one statement: every command
    reads this (the ORM compiled the same join afresh each time, a third of a public roll's CPU:
    bench/README.md). ``lock``: the scene's row locked until commit, where the database locks
    rows (the portable twin's check of a scene as last seen)."""

    def build(self, connection: Any) -> tuple[str, Converters]:
        quote = connection.ops.quote_name
        fields = scene_and_campaign()
        columns = ", ".join(f"{alias}.{quote(f.column)}" for alias, f in fields)
        scene_campaign = quote(Scene._meta.get_field("campaign").column)
        statement = (
            f"SELECT {columns}, {member_exists(connection)} "
            f"FROM {quote(Scene._meta.db_table)} s INNER JOIN "
            f"{quote(Campaign._meta.db_table)} c "
            f"ON c.{quote(Campaign._meta.pk.column)} = s.{scene_campaign} "
            f"WHERE s.{quote(Scene._meta.pk.column)} = %s"
        )
        if self.lock and connection.features.has_select_for_update_of:
            statement += " FOR UPDATE OF s"
        return statement, converters(connection, fields)

    def __call__(self, scene_id: int, user_id: Any) -> tuple[Scene, bool] | None:
        """The scene (its campaign read with it) and whether ``user_id`` is a member of that
        campaign, or None when there is no such scene."""
        # A locked read runs where the transaction holding its lock is: the write database.
        alias = router.db_for_write(Scene) if self.lock else router.db_for_read(Scene)
        connection = connections[alias]
        values = self.fetch(connection, [user_id, scene_id])
        if values is None:
            return None
        n = len(Scene._meta.concrete_fields)
        scene = Scene.from_db(connection.alias, None, values[:n])
        campaign = Campaign.from_db(connection.alias, None, values[n:-1])
        Scene._meta.get_field("campaign").set_cached_value(scene, campaign)
        return scene, bool(values[-1])


#: The scene a command goes by, with its campaign and the actor's membership.
scene_read = SceneStatement()
#: The same, its row locked until commit: what the portable twin checks a scene as seen by.
scene_read_locked = SceneStatement(lock=True)
#: A check's character: read with the command (one of the campaign's), locked to pay.
character_in_campaign = RowReads(also=("campaign",))
character_locked = RowReads(lock=True)
