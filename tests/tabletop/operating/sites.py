"""A site of its own for backup and restore tests: a SQLite file (or a PostgreSQL database)
that ``manage.py`` runs against in a subprocess, never the test run's own database (a restore
drops and makes every table again)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.servers import ROOT, app_env

#: A table with something of every kind a backup must keep: the demo campaigns (characters,
#: sheets, saved rolls, invites), then on the first scene public, secret, blind, private
#: and self rolls, a revealed one, and a whisper.
PLAY = """
import json
from django.contrib.auth import get_user_model
from tabletop.scenes import actions
from tabletop.scenes.models import Scene

scene = Scene.objects.select_related("campaign").order_by("pk").first()
gm = scene.campaign.gm
alice = get_user_model().objects.get(username="alice")
for mode in ("public", "secret", "blind", "gm", "self", "public"):
    actions.roll(scene=scene, actor=gm if mode != "blind" else alice, roll_kind="expression",
                 mode=mode, data={"expression": "3d6+1"})
hidden = actions.roll(scene=scene, actor=gm, roll_kind="expression", mode="secret",
                      data={"expression": "1d20"})
actions.reveal(scene=scene, actor=gm, seq=hidden.seq)
actions.chat(scene=scene, actor=gm, text="the door is trapped", to=[alice.pk])
print(json.dumps({"scene": scene.pk}))
"""

#: Every scene's exported ledger (as alice sees it), verified: {scene: head}.
LEDGERS = """
import json
from django.contrib.auth import get_user_model
from tabletop.scenes import ledger
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene

alice = get_user_model().objects.get(username="alice")
heads = {}
for scene in Scene.objects.order_by("pk"):
    doc = ledger.export(scene=scene, viewer=Viewer(user_id=alice.pk, is_gm=False),
                        viewer_name="alice")
    report = ledger.verify(json.loads(ledger.to_json(doc)))
    heads[scene.pk] = [report.ok, report.head]
print(json.dumps(heads))
"""

#: Tables whose rows differ by design after a restore: when each migration was applied, and
#: SQLite's counters of the tables a backup leaves out.
NOT_COMPARED = {"django_migrations", "sqlite_sequence"}
LEFT_OUT = {
    "django_session",
    "scenes_presence",
    "operating_servingprocess",
    "operating_backupmade",
    "tabletop_cache",
}


@dataclass
class Site:
    env: dict[str, str]
    path: Path | None  # the SQLite file, None on PostgreSQL

    @classmethod
    def sqlite(cls, tmp_path: Path, name: str = "site") -> Site:
        path = tmp_path / f"{name}.sqlite3"
        env = app_env(
            tmp_path,
            {"DATABASE_URL": f"sqlite:///{path}", "BACKUP_DIR": str(tmp_path / "backups")},
        )
        return cls(env=env, path=path)

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    def manage(self, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def shell(self, code: str) -> Any:
        return json.loads(self.manage("shell", "-c", code).strip().splitlines()[-1])

    def seed(self) -> None:
        self.manage("migrate", "--noinput")
        self.manage("seed_demo")
        self.shell(PLAY)

    def backups(self) -> list[Path]:
        return sorted(Path(self.env["BACKUP_DIR"]).glob("tabletop-*.backup.gz"))

    def rows(self) -> dict[str, list[tuple]]:
        """Every table's rows, sorted (SQLite)."""
        with sqlite3.connect(self.path) as db:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            return {
                name: sorted(db.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)  # noqa: S608
                for name in names
                if name not in NOT_COMPARED
            }

    def schema(self) -> list[tuple]:
        with sqlite3.connect(self.path) as db:
            return sorted(db.execute("SELECT type, name, sql FROM sqlite_master").fetchall())


def same_rows(before: dict[str, list], after: dict[str, list]) -> dict[str, str]:
    """The tables whose rows differ, with how (the left-out ones must be empty after)."""
    differ = {}
    assert set(before) == set(after), set(before) ^ set(after)
    for name, rows in before.items():
        if name in LEFT_OUT:
            if after[name]:
                differ[name] = f"{len(after[name])} rows, expected none"
        elif rows != after[name]:
            differ[name] = f"{len(rows)} rows before, {len(after[name])} after"
    return differ
