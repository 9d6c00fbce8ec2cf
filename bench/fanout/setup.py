"""Create the fan-out benchmark's tables in bulk, without management commands or HTTP logins.

Run as a subprocess with the bench's environment (DATABASE_URL of the bench database,
DJANGO_SETTINGS_MODULE=bench.settings): ``python -m bench.fanout.setup < spec.json``. It migrates,
creates ``campaigns`` tables each with a GM and ``players`` players (all members), one signed-in
session per user (SessionStore-encoded, bulk-inserted), and the open scenes each scene group asks
for (group name -> scene count; scene i of a group belongs to campaign i). It prints one JSON
object: the sessions per campaign, the scene ids per group, and the byte size of the frame a
player receives for one of the benchmark's rolls (the bare stack sends frames of that size).
"""

from __future__ import annotations

import json
import random
import sys
from datetime import timedelta
from typing import Any

import django


def build(spec: dict[str, Any]) -> dict[str, Any]:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from tabletop.campaigns.models import Campaign, Membership
    from tabletop.characters.models import Character
    from tabletop.scenes import actions
    from tabletop.scenes.audiences import Viewer
    from tabletop.scenes.models import Scene
    from tabletop.scenes.render import render_frame

    call_command("migrate", verbosity=0, interactive=False)
    n_campaigns, n_players = spec["campaigns"], spec["players"]
    unusable = make_password(None)  # hashing a real password 1,600 times would take minutes
    with transaction.atomic():
        users = User.objects.bulk_create(
            User(username=f"bench-{c}-{i}", password=unusable)
            for c in range(n_campaigns)
            for i in range(n_players + 1)
        )
        per_table = n_players + 1
        campaigns = Campaign.objects.bulk_create(
            Campaign(name=f"Bench table {c}", system="two_dice", gm=users[c * per_table])
            for c in range(n_campaigns)
        )
        Membership.objects.bulk_create(
            Membership(
                campaign=campaign,
                user=users[c * per_table + i],
                role=Membership.Role.GM if i == 0 else Membership.Role.PLAYER,
            )
            for c, campaign in enumerate(campaigns)
            for i in range(per_table)
        )
        # ``characters``: each player gets a PC to roll checks with (the mixed load plan).
        characters: list[list[int | None]] = [[None] * per_table for _ in campaigns]
        if spec.get("characters"):
            sheet = {
                "attributes": {"Might": 2, "Agility": 1, "Wits": 3, "Presence": 0},
                "resources": {
                    name: {"current": 999, "max": 999}
                    for name in ("Health", "Stamina", "Focus", "Resolve")
                },
            }
            seats = [(c, i) for c in range(n_campaigns) for i in range(1, per_table)]
            # One at a time: a character and its sheet are two rows (no bulk insert of both).
            pcs = [
                Character.objects.create(
                    campaign=campaigns[c],
                    owner=users[c * per_table + i],
                    name=f"Hero {c}-{i}",
                    role=Character.Role.PC,
                    **sheet,
                )
                for c, i in seats
            ]
            for (c, i), pc in zip(seats, pcs, strict=True):
                characters[c][i] = pc.pk
        sessions, keys = [], []
        expires = timezone.now() + timedelta(days=1)
        for user in users:
            store = SessionStore()
            key = store._get_new_session_key()
            data = {
                SESSION_KEY: str(user.pk),
                BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
                HASH_SESSION_KEY: user.get_session_auth_hash(),
            }
            sessions.append(
                Session(session_key=key, session_data=store.encode(data), expire_date=expires)
            )
            keys.append(key)
        Session.objects.bulk_create(sessions)
        now = timezone.now()
        groups: dict[str, list[int]] = {}
        for name, count in spec["scene_groups"].items():
            scenes = Scene.objects.bulk_create(
                Scene(
                    campaign=campaigns[i % n_campaigns],
                    name=f"{name} {i}",
                    status=Scene.Status.OPEN,
                    opened_at=now,
                )
                for i in range(count)
            )
            groups[name] = [s.pk for s in scenes]

    # One roll like the load generator's, to learn the size of the frame players receive.
    probe = Scene.objects.create(
        campaign=campaigns[0], name="probe", status=Scene.Status.OPEN, opened_at=now
    )
    event = actions.roll(
        scene=probe,
        actor=users[1],
        roll_kind="expression",
        data={"expression": "2d6+100"},
        rng=random.Random(1),
    )
    frame = render_frame(event, Viewer(None, False), live=True)
    histories = {
        name: record_history(
            [Scene.objects.select_related("campaign").get(pk=pk) for pk in groups[name]],
            [users[i * per_table : (i + 1) * per_table] for i in range(len(groups[name]))],
            events,
        )
        for name, events in spec.get("histories", {}).items()
    }
    return {
        "campaigns": [
            {
                "id": campaign.pk,
                "users": [users[c * per_table + i].pk for i in range(per_table)],
                "sessions": [keys[c * per_table + i] for i in range(per_table)],
                "characters": characters[c],
            }
            for c, campaign in enumerate(campaigns)
        ],
        "scene_groups": groups,
        "frame_bytes": len(frame.encode()),
        "frame_sample": frame,
        "histories": histories,
    }


#: The history's rolls, in turn: the load's mix without its check (a check pays from the
#: character's sheet, which the other groups' scenes of the same campaign roll from too).
HISTORY_MODES = ("public", "public", "gm", "blind")


def record_history(scenes: list[Any], tables: list[list[Any]], events: int) -> dict[str, Any]:
    """``events`` rolls in each of ``scenes``, through the app's own action (its rows, its
    ledger chain, its indexes): each roll by the table's members in turn (``tables[i]``: scene
    i's GM and players), in the modes of ``HISTORY_MODES`` in turn, the scenes in turn as
    tables that play side by side would write them, shared between one process per core.

    Two things are left out, neither of which the rows hold: the broadcast after each commit
    (``deliver.broadcast_event``: each audience's frame rendered for sockets that do not exist
    here), and the wait for each commit's flush to disk (``synchronous_commit`` off for these
    connections only). Returns the newest seq of each scene and the seconds it took."""
    import multiprocessing
    import os
    import time

    from django.db import connections

    from tabletop.scenes.selectors import scene_last_seq

    started = time.monotonic()
    workers = max(1, min(os.cpu_count() or 1, len(scenes)))
    connections.close_all()  # each forked writer opens its own
    fork = multiprocessing.get_context("fork")
    writers = [
        fork.Process(target=_write_history, args=(scenes[w::workers], tables[w::workers], events))
        for w in range(workers)
    ]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    if failed := [w.exitcode for w in writers if w.exitcode]:
        raise RuntimeError(f"a history writer failed (exit codes {failed})")
    return {
        "events_per_scene": events,
        "newest": [scene_last_seq(scene_id=scene.pk) for scene in scenes],
        "seconds": round(time.monotonic() - started, 1),
        "writers": workers,
    }


def _write_history(scenes: list[Any], tables: list[list[Any]], events: int) -> None:
    from django.db import connection

    from tabletop.scenes import actions, deliver

    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO off")
    deliver.broadcast_event = lambda *a, **k: None
    for n in range(events):
        for scene, members in zip(scenes, tables, strict=True):
            actions.roll(
                scene=scene,
                actor=members[n % len(members)],
                roll_kind="expression",
                mode=HISTORY_MODES[n % len(HISTORY_MODES)],
                data={"expression": "2d6+1"},
                rng=random.Random(n),
            )
    connection.close()


if __name__ == "__main__":
    django.setup()
    json.dump(build(json.load(sys.stdin)), sys.stdout)
