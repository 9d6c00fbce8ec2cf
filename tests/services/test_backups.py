"""Backups on PostgreSQL: a round trip leaves every row equal (the whole database compared
before and after) and every exported ledger verifying with the same head; an older backup
restores and migrates; rolls made while a backup reads are in it up to its heads, none after
(REPEATABLE READ: writers never wait for it)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest

from tabletop.operating import backupfile
from tests.servers import app_env, unique_name
from tests.services.live import LiveTable
from tests.tabletop.operating.sites import LEDGERS, PLAY, Site, same_rows

pytestmark = pytest.mark.services


def pg_rows(url: str) -> dict[str, list[tuple]]:
    """Every table's rows, sorted, but when each migration was applied."""
    with psycopg.connect(url) as db:
        names = [
            r[0]
            for r in db.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
            )
        ]
        return {
            name: sorted(db.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)  # noqa: S608
            for name in names
            if name != "django_migrations"
        }


@pytest.fixture
def pg_site(postgres, tmp_path) -> Iterator:
    made = []

    def site(name: str) -> Site:
        database = unique_name(f"tabletop_{name}")
        url = postgres.create(database)
        made.append(database)
        env = app_env(tmp_path, {"DATABASE_URL": url, "BACKUP_DIR": str(tmp_path / "backups")})
        return Site(env=env, path=None)

    yield site
    for database in made:
        postgres.drop(database)


def test_a_round_trip_on_postgresql_leaves_every_row_equal(pg_site):
    played = pg_site("played")
    played.seed()
    ledgers = played.shell(LEDGERS)
    played.manage("backup")
    (made,) = played.backups()

    empty = pg_site("empty")
    said = empty.manage("restore", str(made))
    assert "Every scene's ledger head equals the manifest's" in said
    assert same_rows(pg_rows(played.env["DATABASE_URL"]), pg_rows(empty.env["DATABASE_URL"])) == {}
    assert empty.shell(LEDGERS) == ledgers
    assert all(ok for ok, _head in ledgers.values())
    # The sequences were moved past the restored rows: new rows get new ids.
    empty.shell(PLAY)
    assert all(ok for ok, _head in empty.shell(LEDGERS).values())


def test_an_older_backup_restores_on_postgresql_then_migrates(pg_site):
    played = pg_site("older")
    played.seed()
    ledgers = played.shell(LEDGERS)
    played.manage("migrate", "scenes", "0005_command_once")
    said = played.manage("upgrade")  # backs up (at 0005), then migrates
    (older,) = played.backups()
    assert str(older) in said

    empty = pg_site("empty")
    assert "migrations ago" in empty.manage("restore", str(older))
    empty.manage("migrate", "--noinput")
    assert empty.shell(LEDGERS) == ledgers


async def test_rolls_during_a_backup_on_postgresql_are_in_it_up_to_its_heads(
    daphnes, shared_redis_url, tables, tmp_path
):
    server = daphnes.start(REDIS_URL=shared_redis_url)
    table = await asyncio.to_thread(LiveTable.create, server)
    tables.append(table)
    gm = await table.join("gm")
    site = Site(env={**server.env, "BACKUP_DIR": str(tmp_path / "backups")}, path=None)
    rolling = True

    async def roll_on() -> None:
        while rolling:
            await gm.roll("1d20")
            await asyncio.sleep(0.3)  # under the socket's rate limit

    roller = asyncio.create_task(roll_on())
    await gm.wait_for_seq(4)
    await asyncio.to_thread(site.manage, "backup")
    await gm.wait_for_seq(gm.last_seq + 3)
    rolling = False
    await roller
    (made,) = site.backups()

    manifest = backupfile.verified_manifest(made)
    head = manifest["scenes"][str(table.scene_id)]
    for label, columns, rows in backupfile.sections(made):
        found = [dict(zip(columns, row, strict=True)) for row in rows]
        if label == "scenes.sceneevent":
            seqs = [e["seq"] for e in found if e["scene_id"] == table.scene_id]
    assert seqs == list(range(1, head["seq"] + 1))
    assert gm.last_seq > head["seq"], "no roll came after the backup"
    assert gm.errors == []
