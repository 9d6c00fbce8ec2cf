"""Making a backup: a consistent snapshot of the database, dumped as a ``backupfile``.

The snapshot: on PostgreSQL one REPEATABLE READ, READ ONLY transaction (writers never wait for
it); on SQLite a copy by SQLite's online backup API in one step, which writers wait for while
it runs (a moment: bench/README.md, "Backup pause"), then dumped from the copy at leisure.
"""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from tabletop.operating import schema
from tabletop.operating.backupfile import Writer, encode

#: Backup files made into a directory: dated, so their names sort oldest first.
NAME_PATTERN = "tabletop-*.backup.gz"
SNAPSHOT_ALIAS = "tabletop_backup_snapshot"
ROWS_PER_FETCH = 2000


@dataclass
class Made:
    path: Path
    size: int
    rows: int
    pause_ms: int
    manifest: dict[str, Any]


def backup_dir() -> Path:
    """Where ``make backup`` and the upgrades write: BACKUP_DIR, else ``backups/``."""
    return Path(os.environ.get("BACKUP_DIR") or Path(settings.BASE_DIR) / "backups")


def dated_path(directory: Path, reason: str = "") -> Path:
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S-%f")
    suffix = f"-{reason}" if reason else ""
    return directory / f"tabletop-{stamp}{suffix}.backup.gz"


def keep_newest(directory: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` backups in ``directory``; the deleted ones."""
    found = sorted(directory.glob(NAME_PATTERN), key=lambda p: p.name)
    gone = found[: max(0, len(found) - keep)]
    for path in gone:
        path.unlink()
    return gone


@contextmanager
def _snapshot(alias: str, beside: Path) -> Iterator[tuple[str, int]]:
    """A database alias that reads one consistent state, and how long writers waited (ms)."""
    connection = connections[alias]
    if connection.vendor != "sqlite":
        with transaction.atomic(using=alias):
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                if connection.vendor == "postgresql":
                    # The app's bounds are for pages; a backup of a big site reads for longer.
                    cursor.execute("SET LOCAL statement_timeout = 0")
                    cursor.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
            yield alias, 0
        return
    import sqlite3

    copy = beside.with_name(beside.name + ".snapshot")
    os.close(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    try:
        connection.ensure_connection()
        target = sqlite3.connect(copy)
        try:
            started = time.perf_counter()
            connection.connection.backup(target)  # one step: one read lock, a consistent copy
            pause_ms = round((time.perf_counter() - started) * 1000)
        finally:
            target.close()
        connections.databases[SNAPSHOT_ALIAS] = {**connection.settings_dict, "NAME": str(copy)}
        try:
            yield SNAPSHOT_ALIAS, pause_ms
        finally:
            connections[SNAPSHOT_ALIAS].close()
            del connections[SNAPSHOT_ALIAS]
            del connections.databases[SNAPSHOT_ALIAS]
    finally:
        copy.unlink(missing_ok=True)


def _heads(apps: Any, alias: str) -> dict[str, dict[str, Any]]:
    try:
        scene = apps.get_model("scenes", "Scene")
    except LookupError:
        return {}
    names = {f.attname for f in scene._meta.concrete_fields}
    fields = [f for f in ("last_seq", "ledger_head") if f in names]
    heads = {}
    for pk, *values in scene._base_manager.using(alias).order_by("pk").values_list("pk", *fields):
        found = dict(zip(fields, values, strict=True))
        heads[str(pk)] = {"seq": found.get("last_seq", 0), "head": found.get("ledger_head", "")}
    return heads


def _dump(writer: Writer, alias: str) -> dict[str, Any]:
    connection = connections[alias]
    migrations = schema.applied(connection)
    apps = schema.apps_at(connection, migrations)
    counts: dict[str, int] = {}
    for model in schema.kept_models(apps):
        fields = list(model._meta.local_concrete_fields)
        columns = [field.attname for field in fields]
        writer.write({"model": model._meta.label_lower, "columns": columns})
        count = 0
        rows = model._base_manager.using(alias).order_by("pk").values_list(*columns)
        for row in rows.iterator(chunk_size=ROWS_PER_FETCH):
            writer.write([encode(f, v) for f, v in zip(fields, row, strict=True)])
            count += 1
        counts[model._meta.label_lower] = count
    return {
        "made_at": timezone.now().astimezone(dt.UTC).isoformat(),
        "engine": connection.vendor,
        "migrations": [list(m) for m in migrations],
        "rows": counts,
        "scenes": _heads(apps, alias),
        "left_out": sorted(schema.LEFT_OUT) + ["the cache table"],
    }


def make_backup(
    path: Path, *, reason: str = "asked", alias: str = DEFAULT_DB_ALIAS, keep: int | None = None
) -> Made:
    """Write a backup of the database to ``path`` (mode 0600) and note it in the database.
    ``keep``: then delete all but the newest ``keep`` dated backups beside it."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the files are 0600 too
    writer = Writer(path)
    try:
        with _snapshot(alias, path) as (reading, pause_ms):
            manifest = _dump(writer, reading)
        writer.write({"manifest": manifest})
        writer.finish()
    except BaseException:
        writer.abandon()
        raise
    made = Made(
        path=path,
        size=path.stat().st_size,
        rows=sum(manifest["rows"].values()),
        pause_ms=pause_ms,
        manifest=manifest,
    )
    _note(made, reason, alias)
    if keep is not None:
        keep_newest(path.parent, keep)
    return made


def _note(made: Made, reason: str, alias: str) -> None:
    """The admin's list of backups (when the table is there: not before its migration)."""
    from tabletop.operating.models import BackupMade

    if not schema.table_ready(connections[alias], BackupMade):
        return
    BackupMade.objects.using(alias).create(
        made_at=timezone.now(),
        path=str(made.path.resolve()),
        size_bytes=made.size,
        reason=reason,
        rows=made.rows,
        pause_ms=made.pause_ms,
    )
