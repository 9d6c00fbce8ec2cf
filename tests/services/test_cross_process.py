"""Scale-out (issue 4): two daphne processes sharing PostgreSQL and Redis act as one table.

A roll made through process A reaches a socket on process B live, through the Redis channel
layer (both channels-redis layers), and the other way round. The heartbeat is off for the
test's length and the frames must be the live rendering, so they came over the layer, not from a
database catch-up.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.services.live import LiveTable

pytestmark = pytest.mark.services


@pytest.mark.parametrize("layer", ["core", "pubsub"])
async def test_a_roll_on_process_a_reaches_a_player_on_process_b(
    layer, daphnes, shared_redis_url, tables
):
    a = daphnes.start(
        REDIS_URL=shared_redis_url, CHANNEL_LAYER=layer, SCENE_HEARTBEAT_SECONDS="600"
    )
    b, table = await asyncio.gather(
        asyncio.to_thread(daphnes.another, a), asyncio.to_thread(LiveTable.create, a)
    )
    tables.append(table)
    gm = await table.join("gm", a)
    alice = await table.join("alice", b)

    # Each socket is waited for: the two processes hear the layer independently, so the player
    # on B may have the roll before the roller's own socket on A does.
    await gm.roll("1d1000+100000")
    await asyncio.gather(alice.wait_for_seq(2), gm.wait_for_seq(2))
    assert alice.frame(2).live, "the roll must come over the layer, not from a catch-up"
    assert gm.frame(2).live

    # And back: the player rolls on B, the GM on A sees it live.
    await alice.roll("1d1000+200000")
    await asyncio.gather(gm.wait_for_seq(3), alice.wait_for_seq(3))
    assert gm.frame(3).live

    totals = await table.roll_totals()
    assert set(totals) == {2, 3}
    for seq, total in totals.items():
        assert str(total) in alice.frame(seq).html
        assert str(total) in gm.frame(seq).html
    assert alice.seqs() == gm.seqs() == [1, 2, 3]
    assert alice.errors == gm.errors == []
    assert alice.connections == gm.connections == 1


async def test_a_command_resent_through_another_process_is_made_once(
    daphnes, shared_redis_url, tables
):
    # The player's socket on A dropped before its answer came; the page reconnects, this time
    # to B (a load balancer), and sends the roll again with its id: B answers it was made.
    a = daphnes.start(REDIS_URL=shared_redis_url)
    b, table = await asyncio.gather(
        asyncio.to_thread(daphnes.another, a), asyncio.to_thread(LiveTable.create, a)
    )
    tables.append(table)
    on_a = await table.join("alice", a)
    on_b = await table.join("alice", b)
    cid = await on_a.roll_with_id()
    assert await on_a.answer(cid) == {"type": "done", "cid": cid}
    await on_b.roll_with_id(cid)
    assert await on_b.answer(cid) == {"type": "done", "cid": cid, "repeat": True}
    del on_b.answers[cid]
    await on_b.send(command="roll", roll_kind="expression", expression="1d6", cid=cid, again=True)
    assert await on_b.answer(cid) == {"type": "done", "cid": cid, "repeat": True}
    assert list(await table.roll_totals()) == [2]  # one roll, seq 2
