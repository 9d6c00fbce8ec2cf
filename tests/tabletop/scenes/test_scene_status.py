"""A scene opening or closing reaches the pages already on it (issue 42): each socket's frame
brings the header's badge, the composer, the Roll and Sheet tools and their tabs as the scene now
is, rendered for that viewer (a player's own characters, the GM's button and sheets to the GM
alone); a socket that was away gets the same with its catch-up; the GM's button, sent by htmx,
is answered without a page of its own."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene
from tabletop.scenes.render import render_frame
from tests.support.tables import mira_and_troll
from tests.tabletop.scenes.conftest import connect, events, seat_table
from tests.tabletop.systems.percentile.tables import plot_point_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


def status_of(frame: str) -> str:
    found = re.search(r'id="scene-status"[^>]*data-status="(\w+)"', frame)
    assert found, "no status badge in the frame"
    return found.group(1)


def close(table) -> None:
    actions.scene_close(scene=table.scene, actor=table.gm)


def reopen(table) -> None:
    actions.scene_open(scene=table.scene, actor=table.gm)


async def test_closing_reaches_every_page_with_nothing_left_to_refuse(table):
    socks = await seat_table(table)
    await sync_to_async(close)(table)
    for sock in socks:
        await sock.drain()
    gm, alice, bob = (sock.event_frames() for sock in socks)
    for frames in (gm, alice, bob):
        assert len(frames) == 1  # one frame for the seq, whoever the viewer
        frame = frames[0]
        assert status_of(frame) == "closed"
        assert 'id="composer"' in frame and "The scene is closed" in frame
        assert 'id="composer-text"' not in frame
        assert 'id="play-tools"' in frame and "roll-form" not in frame
        assert 'id="tab-sheet"' not in frame
        assert 'id="scene-tabs"' in frame and 'id="tab-button-roll"' not in frame
    assert 'id="scene-actions"' in gm[0] and "Open scene" in gm[0]
    for frame in (alice[0], bob[0]):
        assert 'id="scene-actions"' not in frame and "Open scene" not in frame
        assert 'id="tab-button-gm"' not in frame and "gm-dashboard" not in frame
    for sock in socks:
        await sock.close()


async def test_opening_brings_each_viewer_their_own_tools(table):
    mira, troll = await sync_to_async(mira_and_troll)(table)
    await sync_to_async(close)(table)
    socks = await seat_table(table)
    await sync_to_async(reopen)(table)
    for sock in socks:
        await sock.drain()
    gm, alice, bob = (sock.event_frames() for sock in socks)
    for frames in (gm, alice, bob):
        assert len(frames) == 1
        frame = frames[0]
        assert status_of(frame) == "open"
        assert 'id="composer-text"' in frame and "composer-closed" not in frame
        assert "roll-form" in frame and 'id="tab-sheet"' in frame
        assert 'id="tab-button-roll"' in frame and 'id="tab-button-sheet"' in frame
    # The GM: the button (closing asks first), every sheet, the GM's own modes.
    assert "Close scene" in gm[0] and "hx-confirm=" in gm[0]
    assert f'id="sheet-{mira.pk}"' in gm[0] and f'id="sheet-{troll.pk}"' in gm[0]
    assert 'value="secret"' in gm[0]
    # alice: her own sheet alone; bob: none of hers, no foe's; neither the GM's modes.
    assert f'id="sheet-{mira.pk}"' in alice[0] and f'id="sheet-{troll.pk}"' not in alice[0]
    assert f'id="sheet-{mira.pk}"' not in bob[0] and f'id="sheet-{troll.pk}"' not in bob[0]
    # Who each rolls as: alice as Mira, bob never as her (a heal's patient list is the party's).
    rolls_as = re.compile(r'<select name="character">(.*?)</select>', re.S)
    picks = rolls_as.findall(alice[0])
    assert picks and all(f'value="{mira.pk}"' in p and f'"{troll.pk}"' not in p for p in picks)
    assert rolls_as.findall(bob[0]) == []  # bob has no character here: nobody to roll as
    for frame in (alice[0], bob[0]):
        assert "Close scene" not in frame and 'value="secret"' not in frame
    for sock in socks:
        await sock.close()


async def test_a_page_away_meanwhile_catches_up_to_the_scene_as_it_is(table):
    before = await sync_to_async(lambda: Scene.objects.get(pk=table.scene.pk).last_seq)()
    await sync_to_async(close)(table)
    await sync_to_async(reopen)(table)
    await sync_to_async(close)(table)
    # alice's page had seen nothing of the three: her hello asks for them.
    alice = await connect(table.alice, table.scene, hello=before)
    replayed = alice.everything()
    # Once, after the cards, as the scene is now (not open in between).
    assert replayed.count('id="scene-status"') == 1
    assert status_of(replayed) == "closed"
    assert "The scene is closed" in replayed and "roll-form" not in replayed
    await alice.close()

    await sync_to_async(reopen)(table)
    alice = await connect(table.alice, table.scene, hello=before)
    assert status_of(alice.everything()) == "open"
    assert "roll-form" in alice.everything() and "Close scene" not in alice.everything()
    await alice.close()


def test_the_status_is_rendered_for_each_viewer_alone(table):
    from tabletop.scenes.tools import render_scene_status  # new with issue 42

    mira, troll = mira_and_troll(table)
    alice = render_scene_status(table.scene, Viewer(table.alice.pk, False))
    gm = render_scene_status(table.scene, Viewer(table.gm.pk, True))
    assert f'id="sheet-{mira.pk}"' in alice and f'id="sheet-{troll.pk}"' not in alice
    assert f'id="sheet-{troll.pk}"' in gm
    # Each part lands by its id, morphed (tools stay under a player's fingers).
    for part in ("scene-status", "composer", "play-tools", "scene-tabs"):
        assert re.search(f'id="{part}"[^>]*hx-swap-oob="morph"', alice), part
    # Not a live frame's tools for a replayed card: the catch-up renders them once, after.
    opened = events("scene_opened")[-1]
    opened.scene = table.scene
    assert "play-tools" not in render_frame(opened, Viewer(table.alice.pk, False), live=False)


def test_opening_brings_the_gm_the_start_of_the_turns(table):
    close(table)
    reopen(table)
    opened = events("scene_opened")[-1]
    opened.scene = Scene.objects.get(pk=table.scene.pk)
    gm = render_frame(opened, Viewer(table.gm.pk, True), live=True)
    assert 'id="turns-start"' in gm  # the GM may start the turns now, without a reload
    assert 'id="turns-start"' not in render_frame(opened, Viewer(table.alice.pk, False), live=True)


def test_the_gms_button_is_answered_by_the_socket_not_a_page(table):
    client = Client()
    client.force_login(table.gm)
    htmx = {"HX-Request": "true"}
    answer = client.post(reverse("scenes:close", args=[table.scene.pk]), headers=htmx)
    assert answer.status_code == 204
    assert Scene.objects.get(pk=table.scene.pk).status == Scene.Status.CLOSED
    # Closed already (two tabs): said where the page shows errors, nothing changed.
    again = client.post(reverse("scenes:close", args=[table.scene.pk]), headers=htmx)
    assert again.status_code == 200
    assert 'id="scene-errors"' in again.content.decode()
    assert "Only an open scene can be closed." in again.content.decode()
    assert len(events("scene_closed")) == 1
    # Without htmx, as before: back to the scene's page.
    plain = client.post(reverse("scenes:open", args=[table.scene.pk]))
    assert plain.status_code == 302
    assert Scene.objects.get(pk=table.scene.pk).status == Scene.Status.OPEN
    # A player may not (as before).
    player = Client()
    player.force_login(table.alice)
    refused = player.post(reverse("scenes:close", args=[table.scene.pk]), headers=htmx)
    assert refused.status_code == 403
    assert Scene.objects.get(pk=table.scene.pk).status == Scene.Status.OPEN


def test_a_systems_own_forms_follow_the_scene_too():
    # percentile's plot point box (In play): a player's forms while open, gone once closed.
    from tabletop.scenes.tools import render_scene_status  # new with issue 42

    table, _, _ = plot_point_table()
    alice = Viewer(table.alice.pk, False)
    assert 'id="play-extras"' in render_scene_status(table.scene, alice)
    assert "narrative-spend" in render_scene_status(table.scene, alice)
    close(table)
    table.scene.refresh_from_db()
    closed = render_scene_status(table.scene, alice)
    assert 'id="play-extras"' in closed and "narrative-spend" not in closed
    # The GM has no such box: nothing of it is sent.
    assert 'id="play-extras"' not in render_scene_status(table.scene, Viewer(table.gm.pk, True))
