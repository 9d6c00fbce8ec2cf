"""``manage.py backup [PATH]``: one file holding a consistent snapshot of the database and
its manifest (tabletop/operating/backupfile.py), mode 0600.

PATH a file: written there. PATH a directory, or none: a dated file in it (default
BACKUP_DIR, else ``backups/``), keeping the newest ``--keep`` there (BACKUP_KEEP, default 10).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tabletop.operating import backups


class Command(BaseCommand):
    help = "Back up the database into one file (a dated one in backups/ by default)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", help="a file to write, or a directory")
        parser.add_argument(
            "--keep",
            type=int,
            default=int(os.environ.get("BACKUP_KEEP") or 10),
            help="dated backups kept in the directory (BACKUP_KEEP; default 10)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        given = Path(options["path"]) if options["path"] else None
        keep = options["keep"]
        if keep < 1:
            raise CommandError("--keep must be 1 or more: a backup is never deleted as it is made.")
        if given is None or given.is_dir():
            path, keep_in_dir = backups.dated_path(given or backups.backup_dir()), keep
        else:
            if given.exists():
                raise CommandError(f"{given} exists: name a new file, or a directory.")
            path, keep_in_dir = given, None
        made = backups.make_backup(path, keep=keep_in_dir)
        scenes = len(made.manifest["scenes"])
        self.stdout.write(
            f"Backed up {made.rows:,} rows ({scenes} scene{'' if scenes == 1 else 's'}) into "
            f"{made.path} ({made.size:,} bytes; writers waited {made.pause_ms} ms)."
        )
