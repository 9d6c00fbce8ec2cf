"""``manage.py upgrade``: migrate, with a backup first when it matters.

What ``make run``, ``make dev``, ``make demo`` and compose's migrate step run instead of
``migrate``: when the database holds data and there are migrations to apply, a backup is
written first (BACKUP_DIR, else ``backups/``) and its path printed; if a migration then fails,
the backup stays and the command prints how to restore it. An empty database (a fresh clone)
just migrates: nothing to keep, nothing to wait for.
"""

from __future__ import annotations

from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from tabletop.operating import backups, restoring


class Command(BaseCommand):
    help = "Apply migrations, backing up first when the database holds data."

    def handle(self, *args: Any, **options: Any) -> None:
        pending = restoring.pending_migrations()
        made = None
        if pending and restoring.tables_with_data():
            made = backups.make_backup(
                backups.dated_path(backups.backup_dir(), "before-upgrade"), reason="upgrade"
            )
            self.stdout.write(
                f"{len(pending)} migration{'' if len(pending) == 1 else 's'} to apply; the "
                f"database as it is now is backed up in {made.path} ({made.size:,} bytes)."
            )
        try:
            call_command("migrate", interactive=False, verbosity=options["verbosity"])
        except Exception as exc:
            if made is None:
                raise
            raise CommandError(
                f"A migration failed: {exc}\n"
                f"Nothing is lost: the database as it was before is in {made.path}.\n"
                "To go back to it: stop the app, check out the code you ran before, then run\n"
                f"    python manage.py restore {made.path} --force"
            ) from exc
