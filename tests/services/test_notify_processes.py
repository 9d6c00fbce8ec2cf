"""Mail digests across two daphne processes on one PostgreSQL (each runs its own sender
thread): a mention made just before both processes died is mailed once after they return,
by one of them, with nothing of a whisper to someone else in it."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.services

TABLE = """
from django.contrib.auth import get_user_model
from tabletop.campaigns.models import Campaign, Membership
from tabletop.scenes import actions

users = get_user_model().objects
gm = users.create_user("gm", "gm@example.org", password="a-long-table-secret")
alice = users.create_user("alice", "alice@example.org", password="a-long-table-secret")
bob = users.create_user("bob", "bob@example.org", password="a-long-table-secret")
campaign = Campaign.objects.create(name="Vault", system="conductor", gm=gm)
for user in (gm, alice, bob):
    Membership.objects.create(campaign=campaign, user=user, role="gm" if user == gm else "player")
scene = actions.scene_create(campaign=campaign, actor=gm, name="The sunken vault")
scene = actions.scene_open(scene=scene, actor=gm)
actions.chat(scene=scene, actor=alice, text="CANARY for the GM alone", to=[gm.pk])
actions.chat(scene=scene, actor=alice, text="@bob the gate is open", to=[])
print("scene", scene.pk)
"""


def mails_to(logs: str, address: str) -> list[str]:
    parts = logs.split("Content-Type: text/plain")
    return [part for part in parts if f"To: {address}" in part]


def test_a_mention_before_a_crash_is_mailed_once_by_one_of_two_processes(daphnes):
    first = daphnes.start(
        OUTBOX_SENDER="true", NOTIFY_EMAIL_DELAY_SECONDS="2", SITE_URL="https://table.example.org"
    )
    second = daphnes.another(first)
    first.kill()
    second.kill()
    first.shell(TABLE)  # recorded while no process runs: no wake reaches any sender
    first.restart()
    second.restart()
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline and not mails_to(first.log() + second.log(), "bob@"):
        time.sleep(0.5)
    time.sleep(2 * 2 + 3)  # another window and pass: a second mail would be out by now
    (mail,) = mails_to(first.log() + second.log(), "bob@example.org")
    assert "alice mentioned you: @bob the gate is open" in mail
    assert "https://table.example.org/scenes/" in mail
    assert "List-Unsubscribe-Post: List-Unsubscribe=One-Click" in mail
    assert "CANARY" not in mail
