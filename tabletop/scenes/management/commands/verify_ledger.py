"""``manage.py verify_ledger FILE``: check a session ledger export with no server.

Reads the JSON export or the HTML export (its embedded JSON), recomputes every entry's hash and
checks every opening against the commitment its roll published, as the HTML file does in the
browser. For the HTML file it also checks what a reader sees: each entry's text and the head on
the page must be what the checked data holds (ledger_text.entry_view), as the file's own script
does. Prints "verified" and the head (exit 0), or each entry that breaks the chain, fails its
commitment or is shown otherwise than its data (exit 1); a file that is not a ledger at all
exits 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tabletop.scenes import ledger, ledger_text


class Command(BaseCommand):
    help = "Verify a session ledger export (ledger.json or ledger.html) without a server."
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a ledger.json or ledger.html downloaded from a scene")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Can't read {path}: {exc.strerror or exc}.", returncode=2) from None
        try:
            report = ledger_text.verify_text(data)
        except ledger.LedgerError as exc:
            raise CommandError(f"{path}: {exc}", returncode=2) from None
        if report.ok:
            self.stdout.write(f"verified: {report.entries} entries, head {report.head}")
            return
        found = "\n".join(f"- {problem}" for problem in report.problems)
        raise CommandError(f"{path}: NOT VERIFIED\n{found}", returncode=1)
