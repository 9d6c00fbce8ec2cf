"""``/r`` typed in the composer rolls in the mode picked under the box ("Rolls"), as Foundry's does,
and a hidden ``/r`` is committed and filtered exactly as the roll form's: the frame sent is the one
the shipped parser (static/js/composer.js, under Node) makes of the line and the picked mode.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from tabletop.scenes.models import Audience, SceneEvent
from tests.support.dice import dice, script_dice
from tests.tabletop.scenes.conftest import connect, drain_all, seat_table

COMPOSER = Path(__file__).resolve().parents[3] / "static" / "js" / "composer.js"
NODE = shutil.which("node")

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("close_db_after"),
    pytest.mark.skipif(NODE is None, reason="Node.js is not installed: the parser runs under node"),
]

#: A total and dice no other text on the page can look like: 1d97 showing 97, + 4290.
LINE = "/r 1d97+4290"
TOTAL = "4387"


def composed(line: str, *, mode: str) -> dict:
    """The frame the composer sends for ``line`` with ``mode`` picked under the box."""
    run = (
        "const composer = require(process.argv[1]);"
        "const c = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(composer.parse(c.line, { mode: c.mode })));"
    )
    out = subprocess.run(
        [NODE, "-e", run, str(COMPOSER)],
        input=json.dumps({"line": line, "mode": mode}),
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return json.loads(out.stdout)["frame"]


def rolls() -> list[SceneEvent]:
    return list(SceneEvent.objects.filter(kind="roll").order_by("seq"))


def page_for(client, user, scene) -> str:
    client.force_login(user)
    return client.get(reverse("scenes:detail", args=[scene.pk])).content.decode()


async def test_a_players_never_receive_a_gm_secret_r(table, client, monkeypatch):
    script_dice(monkeypatch, dice(97, 97))
    gm, alice, bob = await seat_table(table)
    await gm.send(**composed(LINE, mode="secret"), cid="gm-1")
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(rolls)()
    # Committed and filtered as the roll form's secret roll: players get nothing at all.
    assert event.audience == Audience.GM_ONLY and event.commitment
    assert event.public == {"roller": "gm", "mode": "secret"}
    assert event.secret["result"]["total"] == int(TOTAL)
    assert TOTAL in "".join(gm.event_frames())
    replay = await connect(table.bob, table.scene, hello=0)
    for sock in (alice, bob):
        assert sock.event_frames() == [], "a player had a frame of the GM's secret roll"
    for shown in (
        alice.everything(),
        bob.everything(),
        replay.everything(),
        await sync_to_async(page_for)(client, table.alice, table.scene),
    ):
        assert TOTAL not in shown and "1d97" not in shown and "4290" not in shown
    for sock in (gm, alice, bob, replay):
        await sock.close()


async def test_a_players_r_with_blind_picked_is_blind(table, monkeypatch):
    script_dice(monkeypatch, dice(97, 97))
    gm, alice, bob = await seat_table(table)
    await alice.send(**composed(LINE, mode="blind"), cid="alice-1")
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(rolls)()
    assert event.audience == Audience.BLIND and event.commitment
    assert TOTAL in "".join(gm.event_frames())
    for sock in (alice, bob):  # the roller sees that it happened, no more
        assert len(sock.event_frames()) == 1
        assert TOTAL not in sock.everything() and "1d97" not in sock.everything()
    for sock in (gm, alice, bob):
        await sock.close()


async def test_pr_rolls_in_the_open_whatever_is_picked(table, monkeypatch):
    script_dice(monkeypatch, dice(97, 97))
    gm, alice, bob = await seat_table(table)
    await gm.send(**composed("/pr 1d97+4290", mode="secret"), cid="gm-1")
    await drain_all(gm, alice, bob)
    (event,) = await sync_to_async(rolls)()
    assert event.audience == Audience.EVERYONE
    assert TOTAL in "".join(bob.event_frames())
    for sock in (gm, alice, bob):
        await sock.close()


async def test_a_player_cannot_r_in_the_gms_secret_mode(table, monkeypatch):
    # A player's picker has no "Secret (GM)"; a frame that says so anyway is refused, as the
    # roll form's, and nothing is recorded (never rolled in the open instead).
    script_dice(monkeypatch, dice(97, 97))
    gm, alice, bob = await seat_table(table)
    await alice.send(**composed(LINE, mode="secret"), cid="alice-1")
    await drain_all(gm, alice, bob)
    assert await sync_to_async(rolls)() == []
    assert "Only the GM makes secret rolls." in alice.everything()
    assert TOTAL not in gm.everything() + bob.everything()
    for sock in (gm, alice, bob):
        await sock.close()
