"""The pause writers meet while a backup of a 100 MB SQLite database is taken
(`python -m bench.backup_pause`; bench/README.md, "Backup pause").

A scene's log is filled to BENCH_BACKUP_MB (100) of database with events of about 1 KB; then
one thread writes an event every few milliseconds (as a busy table does, each in its own
transaction) while ``make_backup`` runs. Reported: SQLite's copy (the one step writers wait
for), each write's time before the backup and during it, and the whole backup's time.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

EVENT_TEXT = "The lantern gutters; something moves below the stair. " * 18  # about 1 KB


def _setup(directory: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{directory / 'bench.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tabletop.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def _fill(megabytes: int) -> tuple[int, Path]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from tabletop.campaigns.models import Campaign
    from tabletop.scenes.models import Scene, SceneEvent

    gm = get_user_model().objects.create_user("gm", password="bench-only-password")
    campaign = Campaign.objects.create(name="Bench", system="any_game", gm=gm)
    scene = Scene.objects.create(campaign=campaign, name="Long night", status="open")
    path = Path(connection.settings_dict["NAME"])
    seq = 0
    while path.stat().st_size < megabytes * 1024 * 1024:
        batch = [
            SceneEvent(scene=scene, seq=seq + n, kind="chat", actor=gm, public={"text": EVENT_TEXT})
            for n in range(1, 2001)
        ]
        SceneEvent.objects.bulk_create(batch)
        seq += len(batch)
    Scene.objects.filter(pk=scene.pk).update(last_seq=seq)
    return scene.pk, path


def _writes(scene_id: int, stop: threading.Event, times: list[tuple[float, float]]) -> None:
    from django.db import connection, transaction

    from tabletop.scenes.models import Scene, SceneEvent

    try:
        while not stop.is_set():
            started = time.perf_counter()
            with transaction.atomic():
                scene = Scene.objects.select_for_update().get(pk=scene_id)
                scene.last_seq += 1
                scene.save(update_fields=["last_seq"])
                SceneEvent.objects.create(
                    scene_id=scene_id, seq=scene.last_seq, kind="chat", public={"text": "hm"}
                )
            times.append((started, time.perf_counter() - started))
            time.sleep(0.005)
    finally:
        connection.close()


def main() -> int:
    megabytes = int(os.environ.get("BENCH_BACKUP_MB", "100"))
    with tempfile.TemporaryDirectory() as where:
        directory = Path(where)
        _setup(directory)
        scene_id, path = _fill(megabytes)
        from tabletop.operating.backups import make_backup

        stop = threading.Event()
        times: list[tuple[float, float]] = []
        writer = threading.Thread(target=_writes, args=(scene_id, stop, times))
        writer.start()
        time.sleep(2)
        began = time.perf_counter()
        made = make_backup(directory / "bench.backup.gz")
        ended = time.perf_counter()
        time.sleep(1)
        stop.set()
        writer.join()
        before = [took for at, took in times if at < began]
        during = [took for at, took in times if began <= at <= ended]
        stalled = max(
            (took for at, took in times if at <= began + made.pause_ms / 1000 + 1), default=0
        )
        size = path.stat().st_size / 1024 / 1024
        print(
            f"database: {size:.0f} MB; backup file {made.size / 1024 / 1024:.1f} MB, "
            f"{made.rows:,} rows"
        )
        print(f"SQLite's copy (writers wait for it): {made.pause_ms} ms")
        print(f"the longest write around the copy: {stalled * 1000:.0f} ms")
        print(
            f"a write before the backup: median {statistics.median(before) * 1000:.1f} ms, "
            f"max {max(before) * 1000:.1f} ms ({len(before)} writes)"
        )
        if during:
            print(
                f"a write during the backup's dump: median "
                f"{statistics.median(during) * 1000:.1f} ms, max {max(during) * 1000:.0f} ms "
                f"({len(during)} writes)"
            )
        print(f"the whole backup: {ended - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
