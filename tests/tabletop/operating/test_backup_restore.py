"""``manage.py backup`` and ``manage.py restore`` on SQLite, each site a file of its own run
through ``manage.py`` (tests/tabletop/operating/sites.py); PostgreSQL's round trip is in
tests/services/test_backups.py."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import stat

import pytest

from tabletop.operating.backupfile import Writer
from tests.tabletop.operating.sites import LEDGERS, PLAY, Site, same_rows


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Site:
    site = Site.sqlite(tmp_path_factory.mktemp("seeded"), "seeded")
    site.seed()
    return site


@pytest.fixture
def played(seeded, tmp_path) -> Site:
    """A copy of the seeded site, this test's own."""
    site = Site.sqlite(tmp_path, "played")
    shutil.copyfile(seeded.path, site.path)
    return site


def test_a_round_trip_leaves_every_row_equal_and_every_ledger_verifying(played, tmp_path):
    ledgers = played.shell(LEDGERS)
    said = played.manage("backup")
    (made,) = played.backups()
    assert str(made) in said
    assert stat.S_IMODE(made.stat().st_mode) == 0o600
    manifest = json.loads(gzip.decompress(made.read_bytes()).splitlines()[-2])["manifest"]
    assert manifest["rows"]["scenes.sceneevent"] > 8
    assert "scenes.presence" not in manifest["rows"]

    empty = Site.sqlite(tmp_path, "empty")
    said = empty.manage("restore", str(made))
    scenes = len(manifest["scenes"])
    assert scenes >= 6
    assert f"Every scene's ledger head equals the manifest's ({scenes} scenes)" in said

    assert same_rows(played.rows(), empty.rows()) == {}
    assert played.schema() == empty.schema()
    assert empty.shell(LEDGERS) == ledgers
    assert all(ok for ok, _head in ledgers.values())
    # The restored site goes on: a new roll chains onto the restored head.
    empty.shell(PLAY)
    assert all(ok for ok, _head in empty.shell(LEDGERS).values())


def test_a_database_holding_data_is_refused_unless_forced_and_then_backed_up_first(played):
    played.manage("backup")
    (first,) = played.backups()
    played.shell(PLAY)  # played on after the backup
    after_backup = played.rows()

    refused = played.run("restore", str(first))
    assert refused.returncode != 0
    assert "holds data" in refused.stderr and "--force" in refused.stderr
    assert played.rows() == after_backup

    said = played.manage("restore", str(first), "--force")
    (kept,) = [p for p in played.backups() if p != first]
    assert "before-restore" in kept.name and str(kept) in said
    assert played.rows()["scenes_sceneevent"] != after_backup["scenes_sceneevent"]

    # What the forced restore replaced comes back whole from its backup.
    played.manage("restore", str(kept), "--force")
    assert same_rows(after_backup, played.rows()) == {}


def _rewritten(source, target, change) -> None:
    """``source``'s lines, changed by ``change``, written as a backup with a right checksum."""
    lines = [json.loads(line) for line in gzip.decompress(source.read_bytes()).splitlines()]
    writer = Writer(target)
    for line in change(lines[1:-1]):
        writer.write(line)
    writer.finish()


def test_an_altered_or_truncated_backup_is_refused_before_anything_is_written(played, tmp_path):
    played.manage("backup")
    (made,) = played.backups()
    text = gzip.decompress(made.read_bytes())
    # One roll's total changed, the checksum left as it was (its first digit made another:
    # the dice are random, and a "9" made "9" altered nothing).
    at = text.index(b'"total":') + len(b'"total":')
    digit = b"8" if text[at : at + 1] == b"9" else b"9"
    altered = tmp_path / "altered.backup.gz"
    altered.write_bytes(gzip.compress(text[:at] + digit + text[at + 1 :]))
    assert gzip.decompress(altered.read_bytes()) != text
    truncated = tmp_path / "truncated.backup.gz"
    truncated.write_bytes(made.read_bytes()[: made.stat().st_size // 2])
    plain_cut = tmp_path / "cut.backup.gz"
    plain_cut.write_bytes(gzip.compress(text[: len(text) // 2]))

    empty = Site.sqlite(tmp_path, "empty")
    for path, word in [(altered, "altered"), (truncated, "truncated"), (plain_cut, "truncated")]:
        refused = empty.run("restore", str(path))
        assert refused.returncode != 0
        assert word in refused.stderr and "Nothing was restored" in refused.stderr
        assert not empty.path.exists() or empty.rows() == {}, "nothing may be written"


def test_a_backup_made_by_newer_code_is_refused_with_its_unknown_migrations(played, tmp_path):
    played.manage("backup")
    (made,) = played.backups()

    def from_the_future(lines):
        for line in lines:
            if "manifest" in line:
                line["manifest"]["migrations"].append(["scenes", "9999_from_the_future"])
            yield line

    newer = tmp_path / "newer.backup.gz"
    _rewritten(made, newer, from_the_future)
    empty = Site.sqlite(tmp_path, "empty")
    refused = empty.run("restore", str(newer))
    assert refused.returncode != 0
    assert "newer version" in refused.stderr
    assert "scenes.9999_from_the_future" in refused.stderr
    assert not empty.path.exists() or empty.rows() == {}


def test_an_older_backup_restores_as_it_was_then_migrates(played, tmp_path):
    ledgers = played.shell(LEDGERS)
    played.manage("migrate", "scenes", "0005_command_once")  # the code of a while ago
    played.manage("backup")
    (older,) = played.backups()

    empty = Site.sqlite(tmp_path, "empty")
    said = empty.manage("restore", str(older))
    assert "migrations ago: now run `manage.py migrate`" in said
    assert same_rows(played.rows(), empty.rows()) == {}
    empty.manage("migrate", "--noinput")
    assert empty.shell(LEDGERS) == ledgers
    empty.shell(PLAY)


def test_an_upgrade_backs_up_a_database_holding_data_and_an_empty_one_just_migrates(
    played, tmp_path
):
    played.manage("migrate", "scenes", "0005_command_once")
    before = played.rows()
    said = played.manage("upgrade")
    (made,) = played.backups()
    assert "before-upgrade" in made.name and str(made) in said
    applied = said.count("  Applying ")  # scenes' later migrations, and those built on them
    assert applied >= 1
    assert f"{applied} migration{'s' if applied > 1 else ''} to apply" in said
    with sqlite3.connect(played.path) as db:  # migrated after
        assert "rtt_ms" in [c[1] for c in db.execute("PRAGMA table_info(scenes_presence)")]

    restored = Site.sqlite(tmp_path, "restored")
    restored.manage("restore", str(made))
    assert same_rows(before, restored.rows()) == {}

    fresh = Site(
        env={**played.env, "DATABASE_URL": f"sqlite:///{tmp_path / 'fresh.sqlite3'}"},
        path=tmp_path / "fresh.sqlite3",
    )
    fresh.manage("upgrade")
    assert played.backups() == [made], "an empty database has nothing to back up"


def test_a_failed_migration_leaves_its_backup_and_says_how_to_restore_it(played):
    played.manage("migrate", "operating", "zero")
    before = played.rows()
    with sqlite3.connect(played.path) as db:  # the next migration's table, in its way
        db.execute("CREATE TABLE operating_servingprocess (id integer)")

    failed = played.run("upgrade")
    assert failed.returncode != 0
    (made,) = played.backups()
    assert f"restore {made} --force" in failed.stderr
    assert "Nothing is lost" in failed.stderr

    played.manage("restore", str(made), "--force")
    assert same_rows(before, played.rows()) == {}


RECORDED = """
import json
from tabletop.operating.models import BackupMade
print(json.dumps([[b.path, b.size_bytes, b.reason] for b in BackupMade.objects.all()]))
"""


def test_backups_into_a_directory_keep_the_newest_and_are_recorded(played):
    for _ in range(3):
        played.manage("backup", "--keep", "2")
    first, second = played.backups()
    assert first.name < second.name
    # The admin's list: every backup made, the newest first, with its size.
    recorded = played.shell(RECORDED)
    assert len(recorded) == 3
    assert recorded[0] == [str(second), second.stat().st_size, "asked"]
    refused = played.run("backup", str(second))
    assert refused.returncode != 0 and "exists" in refused.stderr
