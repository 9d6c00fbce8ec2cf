"""A busy process is not a database outage, and a socket that could not be greeted or counted
present is never left half open.

Found by the storm of bench-ratio on a slow box (bench/README.md, "Lever 2, measured"): 1,000
sockets opening at once queued for the loop's two connections past the bound; each wait was
reported as the database failing, the presence INSERT's error reached the last resort (the
socket closed with a server error), and a hello refused for it left its page without a live
frame until it reloaded."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError

from tabletop.scenes import actions, beats, consumers, outage
from tabletop.scenes.fastpath import onloop
from tabletop.scenes.models import Presence, SceneEvent
from tests.tabletop.scenes.conftest import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


@pytest.fixture(autouse=True)
def _database_up():
    yield
    outage.database.answered()  # a test that declared it down leaves it up for the next


async def test_a_loop_whose_connections_stay_taken_says_busy_and_no_outage():
    here = onloop._here()
    for _ in range(onloop.CONNECTIONS_PER_LOOP):
        await here.slots.acquire()  # every connection of this loop taken, and kept
    try:
        with pytest.raises(onloop.Busy, match="stayed busy for 0.2 s") as raised:
            await onloop.fetch("SELECT 1", [], within=0.2)
    finally:
        for _ in range(onloop.CONNECTIONS_PER_LOOP):
            here.slots.release()
    assert isinstance(raised.value, OperationalError)  # refused where the database's errors are
    outage.database.failed(raised.value)
    assert not outage.database.down
    outage.database.failed(OperationalError("the database did not answer within 3 s"))
    assert outage.database.down  # a statement the server did not answer is one


@sync_to_async
def present(scene: Any) -> int:
    return Presence.objects.filter(scene=scene).count()


@pytest.mark.parametrize(
    "error, down",
    [
        (onloop.Busy("every database connection of this process stayed busy for 3 s"), False),
        (OperationalError("the database did not answer within 3 s"), True),
    ],
    ids=["busy", "database-down"],
)
async def test_a_socket_whose_presence_cannot_be_written_is_refused_before_it_opens(
    table, monkeypatch, error, down
):
    real = actions.presence_arrive

    async def failing(**kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(actions, "presence_arrive", failing)
    assert await connect(table.alice, table.scene) is None  # refused (403): the page retries
    assert await present(table.scene) == 0
    assert outage.database.down is down
    assert beats.local_sockets(table.scene.pk) == 0  # nothing of it stays at the table
    monkeypatch.setattr(actions, "presence_arrive", real)
    outage.database.answered()
    again = await connect(table.alice, table.scene)
    assert again is not None  # the next try opens
    assert await present(table.scene) == 1
    await again.close()


@sync_to_async
def roll(table: Any, user: Any, expression: str) -> None:
    actions.run_command(
        command="roll",
        scene_id=table.scene.pk,
        user=user,
        data={"roll_kind": "expression", "expression": expression, "mode": "public"},
    )


@sync_to_async
def newest(scene: Any) -> int:
    return SceneEvent.objects.filter(scene=scene).order_by("-seq").values_list("seq", flat=True)[0]


def socket_of(scene: Any, user: Any) -> consumers.SceneConsumer:
    """The user's socket as the scene's beat holds it (its next beat is called on it)."""
    (found,) = [s for s in beats._beats[scene.pk].sockets if s.user.pk == user.pk]
    return found


def seqs(frames: list[str]) -> list[int]:
    return [int(s) for f in frames for s in re.findall(r'data-seq="(\d+)"', f)]


@pytest.mark.parametrize("error", [onloop.Busy("busy"), OperationalError("no answer")])
async def test_a_hello_the_database_failed_is_finished_by_the_scene_s_next_beat(
    table, monkeypatch, error
):
    gm, bob = await connect(table.gm, table.scene), await connect(table.bob, table.scene)
    await roll(table, table.gm, "1d6+100")  # what alice's page missed while it was away
    missed = await newest(table.scene)
    real = consumers.newest_seq

    async def failing(scene_id: int) -> int:
        raise error

    monkeypatch.setattr(consumers, "newest_seq", failing)
    alice = await connect(table.alice, table.scene, hello=None)
    assert alice is not None
    await alice.send(command="hello", last_seq=missed - 1, cid="c-hello")
    refused = await alice.drain()
    words = consumers.SERVER_BUSY if isinstance(error, onloop.Busy) else consumers.DATABASE_DOWN
    assert any(words.replace("'", "&#x27;") in f for f in refused), refused
    assert seqs(refused) == []
    monkeypatch.setattr(consumers, "newest_seq", real)

    await roll(table, table.bob, "1d6+200")  # live while the hello waits: held back
    assert seqs(await alice.drain()) == []
    sock = socket_of(table.scene, table.alice)
    await sock.beat(await newest(table.scene))  # the scene's next beat

    got = await alice.drain()
    assert seqs(got) == [missed, missed + 1]  # the missed one replayed, then the held-back one
    assert "100" in got[0] and "live" not in got[0].split(">")[0]
    assert sock.cursor == missed + 1 and sock.greeting is None
    await roll(table, table.gm, "1d6+300")
    assert seqs(await alice.drain()) == [missed + 2]  # and live from then on
    for socket in (gm, bob, alice):
        await socket.close()


async def test_a_hello_that_succeeds_is_not_redone_by_a_beat(table):
    await roll(table, table.gm, "1d6+100")
    alice = await connect(table.alice, table.scene, hello=0)
    assert alice is not None
    sock = socket_of(table.scene, table.alice)
    assert sock.greeting is None and sock.cursor == await newest(table.scene)
    alice.frames.clear()
    await sock.beat(await newest(table.scene))
    await asyncio.sleep(0.05)
    assert seqs(await alice.drain()) == []
    await alice.close()
