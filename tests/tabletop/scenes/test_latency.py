"""Each member's round trip: the page pings over its socket, the server answers at once and
passes the trip the page measured on to everyone at the table (the presence list shows it)."""

from __future__ import annotations

import json

import pytest

from tabletop.scenes.consumers import MAX_RTT_MS
from tabletop.scenes.models import SceneEvent
from tests.tabletop.scenes.conftest import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]


def controls(frames: list[str]) -> list[dict]:
    return [json.loads(f) for f in frames if f.startswith("{")]


async def test_a_ping_is_answered_and_its_measured_trip_reaches_the_table(table):
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    await alice.send(command="ping", t=1234.5)
    assert controls(await alice.drain()) == [{"type": "pong", "t": 1234.5}]
    assert controls(await gm.drain()) == []  # nothing measured yet: nothing to tell

    await alice.send(command="ping", t=6234.5, rtt=41.6)
    assert {"type": "pong", "t": 6234.5} in controls(await alice.drain())
    said = {"type": "latency", "user": table.alice.pk, "ms": 42}
    for sock in (gm, bob):
        assert controls(await sock.drain()) == [said]
    assert await SceneEvent.objects.filter(scene=table.scene).acount() == 1  # stores nothing
    for sock in (gm, alice, bob):
        await sock.close()


@pytest.mark.parametrize(
    "frame",
    [
        {"t": "soon"},
        {"t": True},
        {},
        {"t": 1, "rtt": -1},
        {"t": 1, "rtt": MAX_RTT_MS + 1},
        {"t": 1, "rtt": "fast"},
        {"t": 1, "rtt": False},
    ],
)
async def test_a_bad_ping_gets_an_error_and_tells_nobody(table, frame):
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    await alice.send(command="ping", **frame)
    frames = await alice.drain()
    assert any('class="error"' in f for f in frames), frames
    assert not any('"latency"' in f for f in await gm.drain())
    for sock in (gm, alice):
        await sock.close()
