"""Every audience gets exactly what it may see: live, on page load, and on replay."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from tabletop.scenes.commitments import verify
from tabletop.scenes.models import SceneEvent
from tests.tabletop.scenes.conftest import connect, drain_all, seat_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]

# 1d1000 + 100000: a total no other number on the page can look like.
DISTINCT = "1d1000+100000"


def latest_roll() -> SceneEvent:
    return SceneEvent.objects.filter(kind="roll").latest("seq")


def secret_markers(event: SceneEvent) -> list[str]:
    result = event.secret["result"]
    return [str(result["total"]), result["breakdown"], event.nonce, "data-secret"]


@pytest.mark.parametrize("mode", ["blind", "gm"])
async def test_hidden_roll_reaches_no_player_until_revealed(table, mode):
    gm, alice, bob = await seat_table(table)
    await alice.send(command="roll", roll_kind="expression", expression=DISTINCT, mode=mode)
    await drain_all(gm, alice, bob)
    event = await sync_to_async(latest_roll)()
    markers = secret_markers(event)

    assert event.commitment and event.nonce
    assert all(m not in bob.everything() for m in markers)
    assert event.commitment in bob.everything()  # everyone can later check the reveal
    assert str(event.secret["result"]["total"]) in gm.everything()
    assert event.nonce not in gm.everything()  # not even the GM's browser gets it before reveal
    if mode == "blind":
        assert all(m not in alice.everything() for m in markers)
        assert "You rolled blind" in alice.everything()
    else:
        assert str(event.secret["result"]["total"]) in alice.everything()

    await gm.send(command="reveal", seq=event.seq)
    await drain_all(gm, alice, bob)
    for sock in (gm, alice, bob):
        text = sock.everything()
        assert str(event.secret["result"]["total"]) in text
        secret_text = re.search(r'data-secret="([^"]*)"', text).group(1)
        nonce = re.search(r'data-nonce="([0-9a-f]{64})"', text).group(1)
        import html

        assert verify(html.unescape(secret_text), nonce, event.commitment)
    for sock in (gm, alice, bob):
        await sock.close()


async def test_self_roll_reaches_only_the_roller(table):
    gm, alice, bob = await seat_table(table)
    await alice.send(command="roll", roll_kind="expression", expression=DISTINCT, mode="self")
    await drain_all(gm, alice, bob)
    event = await sync_to_async(latest_roll)()
    total = str(event.secret["result"]["total"])
    assert total in alice.everything()
    assert gm.event_frames() == [] and bob.event_frames() == []  # not even a stub
    for sock in (gm, alice, bob):
        await sock.close()


async def test_gm_secret_roll_reaches_no_player(table):
    gm, alice, bob = await seat_table(table)
    await gm.send(command="roll", roll_kind="expression", expression=DISTINCT, mode="secret")
    await drain_all(gm, alice, bob)
    event = await sync_to_async(latest_roll)()
    assert str(event.secret["result"]["total"]) in gm.everything()
    assert alice.event_frames() == [] and bob.event_frames() == []
    await alice.send(command="roll", roll_kind="expression", expression="1d4", mode="secret")
    frames = await alice.drain()
    assert "Only the GM makes secret rolls" in "".join(frames)
    for sock in (gm, alice, bob):
        await sock.close()


async def test_public_roll_reaches_everyone(table):
    gm, alice, bob = await seat_table(table)
    await bob.send(command="roll", roll_kind="expression", expression=DISTINCT, mode="public")
    await drain_all(gm, alice, bob)
    event = await sync_to_async(latest_roll)()
    total = str(event.public["result"]["total"])
    assert all(total in s.everything() for s in (gm, alice, bob))
    assert not event.commitment
    for sock in (gm, alice, bob):
        await sock.close()


async def test_page_load_and_replay_apply_the_same_filter(table, client):
    gm, alice, bob = await seat_table(table)
    await alice.send(command="roll", roll_kind="expression", expression=DISTINCT, mode="blind")
    await drain_all(gm, alice, bob)
    event = await sync_to_async(latest_roll)()
    markers = secret_markers(event)

    def page_for(user):
        client.force_login(user)
        return client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()

    bob_page = await sync_to_async(page_for)(table.bob)
    gm_page = await sync_to_async(page_for)(table.gm)
    assert all(m not in bob_page for m in markers)
    assert str(event.secret["result"]["total"]) in gm_page

    late_bob = await connect(table.bob, table.scene, hello=0)
    assert all(m not in late_bob.everything() for m in markers)
    assert f'data-seq="{event.seq}"' in late_bob.everything()  # the stub is replayed
    late_gm = await connect(table.gm, table.scene, hello=0)
    assert str(event.secret["result"]["total"]) in late_gm.everything()
    for sock in (gm, alice, bob, late_bob, late_gm):
        await sock.close()


async def test_removed_player_socket_closes_and_gets_nothing_more(table):
    from tabletop.campaigns.actions import member_remove

    gm, alice, bob = await seat_table(table)
    await sync_to_async(member_remove)(campaign=table.campaign, actor=table.gm, user=table.bob)
    ended = await bob.communicator.receive_json_from(timeout=2)
    assert ended == {"type": "ended", "reason": "removed"}
    assert (await bob.communicator.receive_output(timeout=1))["type"] == "websocket.close"
    await alice.send(command="roll", roll_kind="expression", expression=DISTINCT, mode="public")
    await drain_all(gm, alice)
    assert await bob.communicator.receive_nothing(timeout=0.5), "a removed player got a frame"
    assert bob.event_frames() == []
    assert any("event-roll" in frame for frame in alice.event_frames())  # others play on
    for sock in (gm, alice):
        await sock.close()
