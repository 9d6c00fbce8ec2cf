"""A served site (a real daphne on a SQLite file): a restore refuses while it serves; a backup
taken while the table rolls holds every roll up to its manifest's heads and none after; the
health check; told to stop, the process closes its sockets with 1012 and forgets itself."""

from __future__ import annotations

import asyncio
import urllib.request
from pathlib import Path

import pytest

from tabletop.operating import backupfile
from tests.servers import start_daphne
from tests.services.live import LiveTable
from tests.tabletop.operating.sites import Site

SERVING_ROWS = """
import json
from tabletop.operating.models import ServingProcess
print(json.dumps(ServingProcess.objects.count()))
"""

ROLLS = """
import json
from tabletop.scenes.models import SceneEvent
events = SceneEvent.objects.filter(scene_id={scene}).order_by("seq")
print(json.dumps([[e.seq, e.kind, e.ledger_hash] for e in events]))
"""


@pytest.fixture
def served(tmp_path):
    server = start_daphne(tmp_path, {"BACKUP_DIR": str(tmp_path / "backups")})
    yield server
    server.stop()


def _site(server, tmp_path: Path) -> Site:
    return Site(env=server.env, path=tmp_path / "browser.sqlite3")


def _backup_events(path: Path, scene: int) -> list[list]:
    for label, columns, rows in backupfile.sections(path):
        found = [dict(zip(columns, row, strict=True)) for row in rows]
        if label == "scenes.sceneevent":
            mine = [e for e in found if e["scene_id"] == scene]
            return [[e["seq"], e["kind"], e["ledger_hash"]] for e in mine]
    raise AssertionError("no events in the backup")


def _health(server) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(server.url + "/health/", timeout=5) as answer:  # noqa: S310
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def test_a_backup_taken_while_the_table_rolls_holds_every_roll_up_to_its_heads(
    served, tmp_path
):
    table = await asyncio.to_thread(LiveTable.create, served)
    site = _site(served, tmp_path)
    gm = await table.join("gm")
    rolling = True

    async def roll_on() -> int:
        count = 0
        while rolling:
            await gm.roll("1d20")
            count += 1
            await asyncio.sleep(0.3)  # under the socket's rate limit
        return count

    roller = asyncio.create_task(roll_on())
    await gm.wait_for_seq(4)
    said = await asyncio.to_thread(site.manage, "backup")
    seq_after_backup = gm.last_seq
    await gm.wait_for_seq(seq_after_backup + 3)  # rolls went on after it
    rolling = False
    await roller
    (made,) = site.backups()
    assert "writers waited" in said

    manifest = backupfile.verified_manifest(made)
    head = manifest["scenes"][str(table.scene_id)]
    in_backup = _backup_events(made, table.scene_id)
    everything = await asyncio.to_thread(site.shell, ROLLS.format(scene=table.scene_id))
    # Every roll is either in the backup, exactly as recorded, or after its manifest's head.
    assert in_backup == [e for e in everything if e[0] <= head["seq"]]
    assert [e[0] for e in in_backup] == list(range(1, head["seq"] + 1))
    assert in_backup[-1][2] == head["head"] != ""
    assert any(e[0] > head["seq"] for e in everything), "no roll came after the backup"
    assert sum(e[1] == "roll" for e in in_backup) >= 3
    assert gm.errors == []
    await table.close()


async def test_restore_refuses_while_served_and_a_stopped_process_closes_with_1012(
    served, tmp_path
):
    table = await asyncio.to_thread(LiveTable.create, served)
    site = _site(served, tmp_path)
    gm = await table.join("gm")
    assert await asyncio.to_thread(_health, served) == (200, "ok\n")
    await asyncio.to_thread(site.manage, "backup")
    (made,) = site.backups()

    refused = await asyncio.to_thread(site.run, "restore", str(made), "--force")
    assert refused.returncode != 0
    assert "serving from this database" in refused.stderr
    assert "Nothing was restored" in refused.stderr
    assert len(site.backups()) == 1, "a refused restore backs nothing up"

    await asyncio.to_thread(served.stop)  # SIGTERM
    # The close frame said 1012 (the client's library reports a close that is not 1000 or
    # 1001 as an error, with the frame's code).
    assert "code=1012" in gm.drops[0]
    assert await asyncio.to_thread(site.shell, SERVING_ROWS) == 0
    await table.close()
