"""Each member's round trip: the page pings over its socket, the server answers at once, and
the scene's next beat takes the trip the page measured to the table with the presence list,
only when it changed by a step a person would notice (a frame per ping to every member was
most of what an idle table cost: bench/README.md, "Idle tables")."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from tabletop.scenes.beats import noticeably_moved
from tabletop.scenes.incoming import MAX_RTT_MS
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.selectors import noticeable
from tests.tabletop.scenes.conftest import connect

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("close_db_after")]

BEAT = 0.2


def controls(frames: list[str]) -> list[dict]:
    return [json.loads(f) for f in frames if f.startswith("{")]


def shown_rtt(frames: list[str], user_id: int) -> list[str]:
    """The round trip each presence list among ``frames`` shows for the user, in order."""
    pattern = re.compile(rf'data-rtt-for="{user_id}"(?: data-rtt-ms="(\d+)")?')
    return [m.group(1) or "" for f in frames if 'id="presence"' in f for m in pattern.finditer(f)]


async def test_a_ping_is_answered_and_its_trip_reaches_the_table_with_the_next_beat(
    table, settings
):
    settings.SCENE_HEARTBEAT_SECONDS = BEAT
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    await asyncio.sleep(3 * BEAT)
    for sock in (gm, alice, bob):
        await sock.drain()
    await alice.send(command="ping", t=1234.5)
    assert controls(await alice.drain()) == [{"type": "pong", "t": 1234.5}]

    await alice.send(command="ping", t=6234.5, rtt=41.6)
    assert {"type": "pong", "t": 6234.5} in controls(await alice.drain(timeout=3 * BEAT))
    for sock in (gm, bob):
        frames = await sock.drain(timeout=3 * BEAT)
        assert controls(frames) == []  # no frame per ping
        assert shown_rtt(frames, table.alice.pk) == ["40"]  # 42 ms, to the nearest 10

    # A change nobody would notice is not sent again; one they would is, with the next beat.
    await alice.send(command="ping", t=7000, rtt=44)
    assert shown_rtt(await gm.drain(timeout=3 * BEAT), table.alice.pk) == []
    await alice.send(command="ping", t=8000, rtt=312)
    assert shown_rtt(await gm.drain(timeout=3 * BEAT), table.alice.pk) == ["300"]
    assert await SceneEvent.objects.filter(scene=table.scene).acount() == 1  # stores nothing
    for sock in (gm, alice, bob):
        await sock.close()


@pytest.mark.parametrize(
    ("ms", "shown"), [(0, 0), (4, 4), (42, 40), (96, 100), (312, 300), (1100, 1000), (5555, 5500)]
)
def test_a_round_trip_is_shown_to_a_step_a_person_tells_apart(ms, shown):
    assert noticeable(ms) == shown


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
    assert controls(await gm.drain()) == []
    for sock in (gm, alice):
        await sock.close()


@pytest.mark.parametrize(
    ("written", "now", "again"),
    [
        (None, 40, True),  # a round trip became known
        (40, None, True),  # and unknown
        (40, 80, False),  # jitter: 40 ms either way
        (60, 120, True),  # doubled, by 60 ms
        (300, 380, False),  # 80 ms, but not half of 300
        (300, 500, True),
    ],
)
def test_a_round_trip_is_written_again_only_when_a_person_would_notice(written, now, again):
    # What is stored is what the table's list shows: a list goes out again when it changed.
    assert noticeably_moved(written, now) is again


async def test_a_quiet_table_gets_no_list_while_its_members_ping_on(table, settings):
    # Pings with round trips that jitter by a few ms, beat after beat: once each member's trip
    # is on the list, nothing goes out again (a bench saw every idle table's list resent).
    settings.SCENE_HEARTBEAT_SECONDS = BEAT
    socks = [await connect(u, table.scene) for u in (table.gm, table.alice, table.bob)]
    for sock in socks:
        await sock.send(command="ping", t=1, rtt=3)
    await asyncio.sleep(4 * BEAT)
    for sock in socks:
        await sock.drain()
    lists = 0
    for n in range(12):
        for i, sock in enumerate(socks):
            await sock.send(command="ping", t=n, rtt=1 + (n + i) % 5)
        frames = [f for sock in socks for f in await sock.drain(timeout=BEAT)]
        lists += sum('id="presence"' in f for f in frames)
    assert lists == 0
    for sock in socks:
        await sock.close()
