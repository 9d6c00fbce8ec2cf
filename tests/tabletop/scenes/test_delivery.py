"""Delivery machinery of the scene socket: one heartbeat per process for all its scenes,
catch-up only for what is really missing, and broadcasts sent from the event loop, not the
database thread."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from tabletop.scenes import actions, beats, command_threads, deliver
from tabletop.scenes.feed.cursor import Beat, Cursor, Live, Read, Send, run
from tabletop.scenes.models import Presence, Scene
from tests.tabletop.scenes.conftest import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]

BEAT = 0.2


@pytest.fixture
def quick_beat(settings):
    settings.SCENE_HEARTBEAT_SECONDS = BEAT


async def wait_until(check, timeout: float = 3.0) -> bool:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if await sync_to_async(check)():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_one_beat_serves_every_socket_of_the_scene(table, quick_beat, monkeypatch):
    calls: list[list[str]] = []
    real = actions.heartbeat

    def counting(*, beating, sends):
        calls.append(sorted(beating[table.scene.pk]))
        return real(beating=beating, sends=sends)

    monkeypatch.setattr(actions, "heartbeat", counting)
    socks = [await connect(user, table.scene) for user in (table.gm, table.alice, table.bob)]
    assert beats.local_sockets(table.scene.pk) == 3
    long_ago = timezone.now() - timedelta(hours=1)
    await sync_to_async(Presence.objects.update)(last_seen=long_ago)
    calls.clear()  # beats from before all three had joined

    def all_fresh() -> bool:
        return not Presence.objects.filter(last_seen__lte=long_ago).exists() and bool(calls)

    assert await wait_until(all_fresh)
    channels = await sync_to_async(
        lambda: sorted(Presence.objects.values_list("channel_name", flat=True))
    )()
    assert len(channels) == 3
    assert calls[0] == channels  # one database call for the three sockets, not three
    await asyncio.sleep(3 * BEAT)
    assert all(call == channels for call in calls)
    # A beat per socket would have made three calls per period.
    assert len(calls) <= 1 + (3 * BEAT + 1.0) / (BEAT / 2)
    for sock in socks:
        await sock.close()
    assert beats.local_sockets(table.scene.pk) == 0


async def test_one_beat_serves_every_scene_of_the_process_and_writes_a_trip_once(
    table, quick_beat, monkeypatch
):
    calls: list[dict[int, dict[str, int | None]]] = []
    real = actions.heartbeat

    def counting(*, beating, sends):
        calls.append({scene: dict(sockets) for scene, sockets in beating.items()})
        return real(beating=beating, sends=sends)

    monkeypatch.setattr(actions, "heartbeat", counting)
    other = await sync_to_async(
        lambda: actions.scene_open(
            scene=actions.scene_create(campaign=table.campaign, actor=table.gm, name="The ferry"),
            actor=table.gm,
        )
    )()
    here = await connect(table.alice, table.scene)
    there = await connect(table.bob, other)
    await here.send(command="ping", t=1, rtt=42)
    await here.drain()

    def both_beaten() -> bool:
        return any(len(call) == 2 for call in calls)

    assert await wait_until(both_beaten)
    # Both scenes in one call; alice's trip (rounded as the table sees it) written once.
    both = [call for call in calls if len(call) == 2]
    assert set(both[0]) == {table.scene.pk, other.pk}
    trips = [t for call in both for t in call[table.scene.pk].values() if t is not None]
    assert trips == [40]
    assert all(t is None for call in both for t in call[other.pk].values())
    trip = Presence.objects.filter(channel_name__in=list(calls[-1][table.scene.pk]))
    assert await sync_to_async(lambda: list(trip.values_list("rtt_ms", flat=True)))() == [40]
    for sock in (here, there):
        await sock.close()
    assert beats.local_sockets(table.scene.pk) == beats.local_sockets(other.pk) == 0


async def test_a_message_the_layer_lost_arrives_by_the_beat(table, quick_beat, monkeypatch):
    alice = await connect(table.alice, table.scene)
    monkeypatch.setattr(deliver, "broadcast_event", lambda event, **_: None)  # lost on the layer
    event = await sync_to_async(actions.roll)(
        scene=table.scene, actor=table.alice, roll_kind="expression", data={"expression": "3d6"}
    )
    assert not await alice.communicator.receive_nothing(timeout=6 * BEAT)
    frame = await alice.communicator.receive_from(timeout=1)
    assert f'data-seq="{event.seq}"' in frame
    await alice.close()


def test_a_frame_that_is_only_late_is_not_fetched_twice():
    cursor = Cursor(last=5)
    cursor, effects = run(cursor, [Beat(7)])  # the database is ahead: 6 and 7 may be on their way
    assert effects == []
    cursor, effects = run(cursor, [Live(6, "six"), Live(7, "seven")])  # ... and they arrived
    assert effects == [Send(("six",)), Send(("seven",))]
    cursor, effects = run(cursor, [Beat(8)])
    assert effects == []
    cursor, effects = run(cursor, [Beat(9)])  # 8 was in the database a beat ago and never came
    assert effects == [Read(7, 9)]
    assert cursor.last == 9


async def test_a_socket_command_broadcasts_from_the_event_loop_after_its_database_call():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("scene-test", channel)
    done: list[str] = []

    def action(*, sends: command_threads.Sends) -> int:
        sends.send("scene-test", {"type": "scene.event", "n": 1})
        done.append("action")
        return 42

    sent_from: list[tuple[str, list[str]]] = []
    real_send = layer.group_send

    async def recording(group, message):
        sent_from.append((threading.current_thread().name, list(done)))
        await real_send(group, message)

    layer.group_send = recording
    try:
        assert await command_threads.run_holding(action) == 42
    finally:
        del layer.group_send
    assert sent_from == [(threading.current_thread().name, ["action"])]
    assert (await layer.receive(channel))["n"] == 1


async def test_a_send_at_once_on_a_command_thread_still_goes_and_says_so(caplog):
    # Every send of a held call goes through the outlet it was handed; a path that forgot it
    # must not lose the frame: it goes at once (the thread waits for it) and the log says so.
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("scene-test", channel)

    def action(*, sends: command_threads.Sends) -> None:
        command_threads.group_send("scene-test", {"type": "scene.event", "n": 3})

    await command_threads.run_holding(action)
    assert (await layer.receive(channel))["n"] == 3
    assert "a send at once from a command thread" in caplog.text


async def test_one_events_messages_are_published_together_and_events_in_order():
    # A hidden roll's three messages (the GM's, the roller's, the other players') leave at
    # once; the next event's only after all of them, and a message of no event alone.
    layer = get_channel_layer()
    log: list[str] = []

    async def publish(group, message):
        log.append(f"start {group}")
        await asyncio.sleep(0.01)  # a round trip to Redis
        log.append(f"end {group}")

    def action(*, sends: command_threads.Sends) -> None:
        for group in ("gm", "alice", "players"):
            sends.send(group, {"type": "scene.event", "seq": 5, "html": ""})
        sends.send("scene", {"type": "scene.event", "seq": 6, "html": ""})
        sends.send("scene", {"type": "scene.presence", "html": ""})

    layer.group_send = publish
    try:
        await command_threads.run_holding(action)
    finally:
        del layer.group_send
    assert log[:3] == ["start gm", "start alice", "start players"]
    assert sorted(log[3:6]) == ["end alice", "end gm", "end players"]
    assert log[6:] == ["start scene", "end scene", "start scene", "end scene"]


async def test_what_an_action_broadcast_before_it_failed_is_still_sent():
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("scene-test", channel)

    def action(*, sends: command_threads.Sends) -> None:
        sends.send("scene-test", {"type": "scene.event", "n": 2})  # committed before...
        raise RuntimeError("... a later step failed")

    with pytest.raises(RuntimeError):
        await command_threads.run_holding(action)
    assert (await layer.receive(channel))["n"] == 2


def test_the_heartbeat_action_refreshes_only_the_sockets_it_names(table):
    scene = table.scene
    old = timezone.now() - timedelta(hours=1)
    for name, user in (("here", table.alice), ("elsewhere", table.bob)):
        Presence.objects.create(scene=scene, user=user, channel_name=name, last_seen=old)
    actions.roll(scene=scene, actor=table.alice, roll_kind="expression", data={"expression": "d6"})

    newest = actions.heartbeat(beating={scene.pk: {"here": None}})[scene.pk].newest_seq

    assert newest == Scene.objects.get(pk=scene.pk).last_seq
    assert Presence.objects.get(channel_name="here").last_seen > old
    assert Presence.objects.get(channel_name="elsewhere").last_seen == old


async def test_a_table_opening_together_gets_one_presence_broadcast(table, monkeypatch):
    # A wider window than the product's quarter second: three sockets opening on a busy test
    # machine may take longer than that to connect, and the test is about the coalescing.
    monkeypatch.setattr(beats, "PRESENCE_COALESCE_SECONDS", 1.0)
    calls: list[int] = []
    real = actions.presence_announce

    async def counting(*, scene_id, present=None):
        calls.append(scene_id)
        return await real(scene_id=scene_id, present=present)

    monkeypatch.setattr(actions, "presence_announce", counting)
    gm, alice, bob = await asyncio.gather(
        *(connect(user, table.scene, hello=None) for user in (table.gm, table.alice, table.bob))
    )
    await gm.drain(timeout=1.5)  # past the window
    # Three joins within the coalescing window: one broadcast (two if the first one was early).
    assert 1 <= len(calls) <= 2
    last_presence = [f for f in gm.frames if 'id="presence"' in f][-1]
    assert all(name in last_presence for name in ("gm", "alice", "bob"))

    await bob.close()
    await gm.drain(timeout=1.5)  # the departure goes out with the next window
    last_presence = [f for f in gm.frames if 'id="presence"' in f][-1]
    assert "bob" not in last_presence and "alice" in last_presence
    for sock in (gm, alice):
        await sock.close()
