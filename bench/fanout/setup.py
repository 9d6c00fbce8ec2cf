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
    }


if __name__ == "__main__":
    django.setup()
    json.dump(build(json.load(sys.stdin)), sys.stdout)
