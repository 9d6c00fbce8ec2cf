"""Putting a backup back: checks first, then the schema as the backup's migrations made it,
then its rows, then every scene's ledger checked against the manifest.

Nothing is written before every check has passed: the file's checksum, migrations this code
knows, no process serving from the database, and a database with no data in it (or
``force``, which first backs up what it replaces). The tables are then dropped and made again
by the backup's migrations (not this code's newest: ``manage.py migrate`` brings an older
backup up afterwards, as ``make run`` does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.dispatch import Signal

from tabletop.operating import backupfile, backups, schema, serving
from tabletop.operating.backupfile import BackupError

#: Sent once a restore is done (``using``: the database alias, ``manifest``: the backup's).
#: Readers with effects outside the database (a mail digest, a chat mirror) connect to it and
#: move their cursors to each scene's current newest seq, so nothing is sent twice.
restored = Signal()

BATCH_ROWS = 500


class RestoreRefused(Exception):
    """The restore did not start (the message says why); the database is as it was."""


@dataclass
class Restored:
    rows: int
    scenes: int
    replaced_by: Path | None  # the backup of what a forced restore replaced
    manifest: dict[str, Any]


def pending_migrations(alias: str = DEFAULT_DB_ALIAS) -> list[tuple[str, str]]:
    """The migrations this code has that the database has not applied, in order."""
    executor = MigrationExecutor(connections[alias])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [(m.app_label, m.name) for m, _backwards in plan]


def tables_with_data(alias: str = DEFAULT_DB_ALIAS) -> list[str]:
    """The tables holding rows that make a database hold data (not sessions, presence, the
    cache, migrate's own rows)."""
    from django.apps import apps

    connection = connections[alias]
    skipped = schema.skipped_tables(apps)
    cache = settings.CACHES.get("default", {})
    if cache.get("BACKEND", "").endswith("DatabaseCache"):
        skipped.add(cache["LOCATION"])
    found = []
    with connection.cursor() as cursor:
        for table in sorted(connection.introspection.table_names(cursor)):
            if table in skipped:
                continue
            cursor.execute(f"SELECT 1 FROM {connection.ops.quote_name(table)} LIMIT 1")  # noqa: S608
            if cursor.fetchone():
                found.append(table)
    return found


def check(path: Path, *, force: bool, alias: str = DEFAULT_DB_ALIAS) -> dict[str, Any]:
    """Every check a restore makes before it writes; the manifest, or RestoreRefused."""
    try:
        manifest = backupfile.verified_manifest(path)
    except BackupError as exc:
        raise RestoreRefused(f"{exc} Nothing was restored.") from None
    connection = connections[alias]
    missing = schema.unknown(connection, manifest["migrations"])
    if missing:
        names = ", ".join(f"{app}.{name}" for app, name in missing)
        raise RestoreRefused(
            f"{path} was made by a newer version of Tabletop: this code does not know its "
            f"migrations {names}. Restore it with the code that made it (or newer). "
            "Nothing was restored."
        )
    _targets(alias, manifest["migrations"])
    serving_now = serving.serving_processes(alias)
    if serving_now:
        names = "; ".join(serving_now)
        raise RestoreRefused(
            f"The app is serving from this database ({names}). Stop every process that "
            f"serves it first (a process that died is forgotten "
            f"{serving.SERVING_SECONDS:.0f} s after its last beat). Nothing was restored."
        )
    if not force:
        holding = tables_with_data(alias)
        if holding:
            raise RestoreRefused(
                f"This database holds data (in {', '.join(holding[:5])}"
                + ("…" if len(holding) > 5 else "")
                + "). Restore into an empty database, or add --force to replace it (what it holds "
                "is backed up first). Nothing was restored."
            )
    return manifest


def _drop_tables(alias: str) -> None:
    connection = connections[alias]
    cascade = " CASCADE" if connection.vendor == "postgresql" else ""
    with (
        connection.constraint_checks_disabled(),
        transaction.atomic(using=alias),
        connection.cursor() as cursor,
    ):
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"DROP TABLE IF EXISTS {connection.ops.quote_name(table)}{cascade}")


def _targets(alias: str, migrations: list[list[str]]) -> list[tuple[str, str]]:
    """Each app's last migration among ``migrations``: migrating an empty database to these
    applies exactly ``migrations`` (checked here, before anything is dropped)."""
    graph = MigrationExecutor(connections[alias]).loader.graph
    wanted = {tuple(m) for m in migrations}
    targets = [
        node
        for node in sorted(wanted)
        if not any(c.key in wanted and c.key[0] == node[0] for c in graph.node_map[node].children)
    ]
    planned = MigrationExecutor(connections[alias]).migration_plan(targets, clean_start=True)
    made = {(m.app_label, m.name) for m, _ in planned}
    if made != wanted:
        names = ", ".join(f"{a}.{n}" for a, n in sorted(made ^ wanted))
        raise RestoreRefused(
            f"The backup's migrations are not a state this code can make (differs in {names}). "
            "Nothing was restored."
        )
    return targets


def _migrate_to(alias: str, migrations: list[list[str]]) -> None:
    connection = connections[alias]
    targets = _targets(alias, migrations)
    MigrationExecutor(connection).migrate(targets)
    now = set(schema.applied(connection))
    if now != {tuple(m) for m in migrations}:
        raise RuntimeError(f"the schema came out at other migrations: {sorted(now)}")


def _load(path: Path, alias: str, manifest: dict[str, Any]) -> int:
    connection = connections[alias]
    apps = schema.apps_at(connection, manifest["migrations"])
    models = {model._meta.label_lower: model for model in schema.kept_models(apps)}
    loaded = []
    total = 0
    with connection.constraint_checks_disabled(), transaction.atomic(using=alias):
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL statement_timeout = 0")
                cursor.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
        for label, columns, rows in backupfile.sections(path):
            model = models[label]
            fields = [model._meta.get_field(_field_name(model, c)) for c in columns]
            total += _insert(model, fields, rows, alias)
            loaded.append(model)
        connection.check_constraints(table_names=[m._meta.db_table for m in loaded])
        reset = connection.ops.sequence_reset_sql(no_style(), loaded)
        if reset:
            with connection.cursor() as cursor:
                for sql in reset:
                    cursor.execute(sql)
    return total


def _field_name(model: Any, attname: str) -> str:
    for field in model._meta.local_concrete_fields:
        if field.attname == attname:
            return field.name
    raise BackupError(f"the backup names a column {model._meta.label}.{attname} it has not")


def _insert(model: Any, fields: list[Any], rows: Any, alias: str) -> int:
    manager = model._base_manager.using(alias)
    batch: list[Any] = []
    count = 0
    for row in rows:
        values = {f.attname: backupfile.decode(f, v) for f, v in zip(fields, row, strict=True)}
        batch.append(model(**values))
        if len(batch) >= BATCH_ROWS:
            count += _write(manager, batch, fields, alias)
            batch = []
    if batch:
        count += _write(manager, batch, fields, alias)
    return count


def _write(manager: Any, batch: list[Any], fields: list[Any], alias: str) -> int:
    # raw: the values as they were (auto_now and auto_now_add would stamp now instead).
    size = max(1, connections[alias].ops.bulk_batch_size(fields, batch))
    for start in range(0, len(batch), size):
        manager._insert(batch[start : start + size], fields=fields, raw=True, using=alias)
    return len(batch)


def restore(
    path: Path,
    *,
    force: bool = False,
    alias: str = DEFAULT_DB_ALIAS,
    say: Callable[[str], None] = print,
) -> Restored:
    """Restore the backup at ``path`` into the database (see the module's docstring)."""
    manifest = check(path, force=force, alias=alias)
    replaced_by = None
    if force and tables_with_data(alias):
        before = backups.dated_path(backups.backup_dir(), "before-restore")
        made = backups.make_backup(before, reason="restore", alias=alias)
        replaced_by = made.path
        say(f"What this database held is backed up in {made.path} ({made.size:,} bytes).")
    _drop_tables(alias)
    _migrate_to(alias, manifest["migrations"])
    rows = _load(path, alias, manifest)
    restored.send(sender=Restored, using=alias, manifest=manifest)
    return Restored(
        rows=rows, scenes=len(manifest["scenes"]), replaced_by=replaced_by, manifest=manifest
    )
