"""A busy process is not a database outage, and a socket whose hello or presence the database
failed is finished by the scene's next beat instead of being left half open.

Found by bench-ratio's storm on a slow box (bench/README.md, "Lever 2, measured"): 1,000 sockets
opening at once queued for the loop's connections past the bound; each wait was reported as the
database failing, the presence INSERT's error reached the last resort (the socket closed with a
server error), and a hello refused for it left its page without a live frame until it
reloaded."""

from __future__ import annotations

import asyncio
import logging
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
async def test_a_socket_whose_presence_cannot_be_written_now_stays_open_and_is_written_later(
    table, monkeypatch, caplog, error, down
):
    caplog.set_level(logging.ERROR, logger="tabletop.scenes.outage")
    real = actions.presence_arrive

    async def failing(**kwargs: Any) -> None:
        raise error

    monkeypatch.setattr(actions, "presence_arrive", failing)
    alice = await connect(table.alice, table.scene)
    assert alice is not None  # open: no storm of retries for a row the table can wait for
    assert await present(table.scene) == 0
    declared = [r.getMessage() for r in caplog.records if "is not answering" in r.getMessage()]
    assert bool(declared) is down  # a busy process declares no outage
    sock = socket_of(table.scene, table.alice)
    assert not sock.present
    await sock.beat(await newest(table.scene))  # still failing: tried again at the next beat
    assert not sock.present and await present(table.scene) == 0

    monkeypatch.setattr(actions, "presence_arrive", real)
    await sock.beat(await newest(table.scene))
    assert sock.present and await present(table.scene) == 1
    frames = await alice.drain(timeout=0.6)  # the table's list, announced once it is written
    assert any('id="presence"' in f or "presence" in f for f in frames), frames
    await sock.beat(await newest(table.scene))
    assert await present(table.scene) == 1  # written once
    await alice.close()
    assert await present(table.scene) == 0


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
@pytest.mark.parametrize("finished_by", ["its own retry", "the scene's beat"])
async def test_a_hello_the_database_failed_is_finished_without_the_page_asking_again(
    table, monkeypatch, error, finished_by
):
    gm, bob = await connect(table.gm, table.scene), await connect(table.bob, table.scene)
    await roll(table, table.gm, "1d6+100")  # what alice's page missed while it was away
    missed = await newest(table.scene)
    real = consumers.newest_seq
    # The retry soon after (its first wait 0.5 to 1.5 times this), or none before the beat.
    monkeypatch.setattr(
        consumers, "GREET_AGAIN_SECONDS", 0.2 if finished_by == "its own retry" else 60
    )

    async def failing(scene_id: int) -> int:
        raise error

    monkeypatch.setattr(consumers, "newest_seq", failing)
    alice = await connect(table.alice, table.scene, hello=None)
    assert alice is not None
    await alice.send(command="hello", last_seq=missed - 1)
    assert await alice.drain() == []  # nothing to show: the page need not do anything
    await roll(table, table.bob, "1d6+200")  # live while the hello waits: held back
    assert seqs(await alice.drain(timeout=0.05)) == []
    monkeypatch.setattr(consumers, "newest_seq", real)

    sock = socket_of(table.scene, table.alice)
    if finished_by == "the scene's beat":
        assert seqs(await alice.drain(timeout=0.5)) == []
        await sock.beat(await newest(table.scene))
    got = await alice.drain(timeout=0.8)
    assert seqs(got) == [missed, missed + 1]  # the missed one replayed, then the held-back one
    assert "100" in got[0] and " live" not in got[0].split(">")[1]
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
