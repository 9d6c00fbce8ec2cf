"""``manage.py restore PATH [--force]``: put a backup back (tabletop/operating/restoring.py).

Refuses, changing nothing: a truncated or altered file, migrations this code does not know,
a process serving from the database, a database holding data (unless --force, which backs it
up first). Afterwards every scene's ledger head is checked against the manifest. Then
``manage.py migrate`` (or ``make run``) brings an older backup up to this code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tabletop.operating import heads, restoring
from tabletop.operating.restoring import RestoreRefused


class Command(BaseCommand):
    help = "Restore a backup made by `manage.py backup` into an empty database."
    requires_migrations_checks = False
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="a backup file (backups/tabletop-….backup.gz)")
        parser.add_argument(
            "--force",
            action="store_true",
            help="replace a database that holds data (it is backed up first)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["path"])
        try:
            done = restoring.restore(path, force=options["force"], say=self.stdout.write)
        except RestoreRefused as exc:
            raise CommandError(str(exc)) from None
        manifest = done.manifest
        wrong = heads.problems(manifest)
        if wrong:
            raise CommandError(
                "Restored, but these ledgers are not as the manifest says:\n"
                + "\n".join(f"- {w}" for w in wrong)
            )
        self.stdout.write(
            f"Restored {done.rows:,} rows from {path} (made {manifest['made_at']}). "
            f"Every scene's ledger head equals the manifest's ({done.scenes} "
            f"scene{'' if done.scenes == 1 else 's'})."
        )
        behind = restoring.pending_migrations()
        self.stdout.write("Everyone logs in again (sessions are not in a backup).")
        if behind:
            self.stdout.write(
                f"It was made {len(behind)} migrations ago: now run `manage.py migrate` "
                "(make run does) to bring it up to this code."
            )
