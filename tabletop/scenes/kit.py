"""The action kit: what every scene action does before and around its game logic.

``@scene_action`` authorises the actor (a member, or the GM), refuses a closed scene and a
campaign of another system, opens the transaction, locks the scene row (one move at a time per
scene: seqs stay gapless and procedure state never races) and turns a rule the engine refuses
(``RulesError``) into the player's error message. The action keeps only its game logic::

    @scene_action(gm=True, system=SLUG, what="Operation challenges")
    def challenge_call_off(*, scene, actor): ...

``scene`` inside is the locked row (with its campaign). One lock order everywhere: an action on
one roll or spend (a benny, a heal, a reveal, a plot point) passes ``locks=False`` and locks that
row first (``access.lock_roll``); ``record_event``'s seq UPDATE then takes the scene row. An
action that locked the scene first and a roll after could deadlock against it on PostgreSQL.
Actions get their dice from ``dice.game_dice`` (called through the module, so a test can
script them with ``tests.support.dice.script_dice``). A procedure's state is
``procedures.state``'s.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.db.models import Model, Q
from django.db.models.sql import UpdateQuery

from rules.core import RulesError
from tabletop import systems
from tabletop.scenes.access import membership, require_gm, require_open
from tabletop.scenes.models import Scene
from tabletop.scenes.record import one_write

P = ParamSpec("P")
T = TypeVar("T")


@contextlib.contextmanager
def rules_say_no() -> Iterator[None]:
    """A move the rules refuse becomes the player's error message."""
    try:
        yield
    except RulesError as exc:
        raise ValidationError(str(exc)) from None


def lock_scene(scene: Scene) -> Scene:
    """The scene row, locked until commit (only that row: of=("self",) leaves the campaign row
    to others), with its campaign."""
    return Scene.objects.select_for_update(of=("self",)).select_related("campaign").get(pk=scene.pk)


@contextlib.contextmanager
def scene_locked(scene: Scene, *, locks: bool = True) -> Iterator[Scene]:
    """The transaction, the scene row's lock and the rules' refusals as clear errors: the core
    of ``scene_action``, for due work no actor asks for (a window closing by itself)."""
    with transaction.atomic(), rules_say_no():
        yield lock_scene(scene) if locks else scene


def require_system(scene: Scene, slug: str, what: str) -> None:
    """Refuse an action of one system in a campaign of another."""
    if scene.campaign.system != slug:
        found = systems.find(slug)
        name = found.label.split(" (")[0] if found else slug
        raise ValidationError(f"{what} belong to the {name} system.")


def scene_action(
    *,
    gm: bool = False,
    system: str | None = None,
    what: str = "These moves",
    needs_open: bool = True,
    locks: bool = True,
    atomic: bool = True,
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Wrap an action ``f(*, scene, actor, ...)``: authorise (``gm``: the GM only; else any
    member), refuse a scene that is not open (``needs_open``) and a campaign of another system
    (``system``, with ``what`` naming the moves in the error), then run it in one transaction
    with the scene row locked (``locks``) and the rules' refusals as clear errors.
    ``atomic=False`` (with ``locks=False``): no transaction is opened for the action, which
    runs under ``record.one_write``: its one write, its event, commits on its own, and where it
    writes more it opens ``transaction.atomic`` itself. Its first write must be its event
    (``record_event``): that write checks the scene the command went by, so its command may run
    on the scene as this process last saw it (``Command.checks_scene``)."""
    assert atomic or not locks, "a locked scene row needs the transaction"

    def wrap(action: Callable[P, T]) -> Callable[P, T]:
        @functools.wraps(action)
        def run(*, scene: Scene, actor: Any, **kwargs: Any) -> T:
            if gm:
                require_gm(scene.campaign, actor)
            else:
                membership(scene.campaign, actor)
            if needs_open:
                require_open(scene)
            if system is not None:
                require_system(scene, system, what)
            if not atomic:
                with rules_say_no(), one_write():
                    return action(scene=scene, actor=actor, **kwargs)
            with scene_locked(scene, locks=locks) as locked:
                return action(scene=locked, actor=actor, **kwargs)

        run.checks_scene = not atomic  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return wrap


def save_together(*rows: tuple[Model, list[str]]) -> None:
    """Save the named fields of several rows (each ``(row, fields)``) as ``save(update_fields=
    ...)`` would, in one round trip where the database allows it: on PostgreSQL one statement
    of data-modifying ``WITH``s (each round trip of a command costs a wait for the database and
    for the GIL after it; bench/README.md). A row that is not there raises as ``save`` does."""
    connection = transaction.get_connection()
    if connection.vendor != "postgresql" or len(rows) < 2:
        for row, fields in rows:
            row.save(update_fields=fields)
        return
    updates = [u for row, fields in rows for u in _updates(row, fields, connection)]
    if any(n != 1 for n in _counted(updates, connection)):
        raise DatabaseError("Save with update_fields did not affect any rows.")


def save_if_as_read(
    row: Model, as_read: dict[str, Any], changes: dict[str, Any], *also: tuple[Model, list[str]]
) -> bool:
    """Save ``changes`` (field name -> new value) to ``row``'s row only if that row still
    holds, column for column, ``as_read`` (the ``attname`` of every field of ``row``'s own
    table -> its value as the command read it: a sheet's fields, not those of the character
    it extends), and ``also``'s rows as ``save_together`` saves them, in one statement: reading a
    row and then reading it again locked costs a round trip each (bench/README.md). False, with
    nothing saved, when the row changed since (or on a database without the statement): the
    caller then locks the row and works from it as it is. The check runs on the row's newest
    version after any lock wait (READ COMMITTED), so two writers that read the same row never
    both pass it. ``row`` itself is left as it was."""
    connection = transaction.get_connection()
    if connection.vendor != "postgresql":
        return False
    meta = type(row)._meta
    quote = connection.ops.quote_name
    table, fields = quote(meta.db_table), meta.local_concrete_fields
    if not set(changes) <= {f.name for f in fields}:
        raise ValueError(f"save_if_as_read saves fields of {meta.db_table} alone: {changes}")
    sql, params = _update(row, [(meta.get_field(n), v) for n, v in changes.items()], connection)
    columns = ", ".join(f"{table}.{quote(f.column)}" for f in fields)
    sql += f" AND ({columns}) IS NOT DISTINCT FROM ({', '.join(['%s'] * len(fields))})"
    params = [
        *params,
        *(f.get_db_prep_value(as_read[f.attname], connection, prepared=False) for f in fields),
    ]
    # The other rows only if this one passed (the WHERE is the UPDATE's last clause).
    others = [u for other, names in also for u in _updates(other, names, connection)]
    updates = [(sql, params), *((f"{s} AND EXISTS (SELECT 1 FROM u0)", v) for s, v in others)]
    found = _counted(updates, connection)
    if found[0] != 1:
        return False
    if any(n != 1 for n in found[1:]):
        raise DatabaseError("Save with update_fields did not affect any rows.")
    return True


def _as_saved(row: Model, names: list[str]) -> list[tuple[Any, Any]]:
    """The named fields of ``row`` with their values as ``save`` writes them."""
    meta = type(row)._meta
    return [(f := meta.get_field(name), f.pre_save(row, False)) for name in names]


def _updates(row: Model, names: list[str], connection: Any) -> list[tuple[str, list[Any]]]:
    """The ``UPDATE``s that save the named fields of ``row``: one per table they live in (a
    sheet's fields in its table, the character's it extends in the character's)."""
    tables: dict[type[Model], list[tuple[Any, Any]]] = {}
    for field, value in _as_saved(row, names):
        tables.setdefault(field.model._meta.concrete_model, []).append((field, value))
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


def _counted(updates: list[tuple[str, list[Any]]], connection: Any) -> tuple[int, ...]:
    """Run the UPDATEs as one statement of data-modifying ``WITH``s (u0, u1...): how many rows
    each changed."""
    parts = [f"u{i} AS ({sql} RETURNING 1)" for i, (sql, _params) in enumerate(updates)]
    counts = ", ".join(f"(SELECT count(*) FROM u{i})" for i in range(len(updates)))
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH {', '.join(parts)} SELECT {counts}", [v for _s, p in updates for v in p]
        )
        return tuple(cursor.fetchone())
