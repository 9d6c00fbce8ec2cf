"""Faults (issue 7): the database is the truth and every client converges on it, gap-free.

Each test runs daphne on its own PostgreSQL database with a PRIVATE redis-server, which it stops,
kills or starves: Redis down and back (an empty Redis: groups and queued messages are gone),
daphne killed with SIGKILL and restarted, and a consumer stalled while more messages arrive than
the layer holds. Clients behave like the browser (tests/services/live.py): they reconnect and say
hello with the newest seq they have. Each event frame says whether it was rendered live or
replayed from the database, so the tests can tell which path delivered what.
"""

from __future__ import annotations

import asyncio
import signal

import pytest

from tests.services.live import LiveTable, until

pytestmark = pytest.mark.services


@pytest.mark.parametrize("layer", ["core", "pubsub"])
async def test_redis_down_and_back_mid_scene(layer, daphnes, private_redis, tables):
    # No heartbeat within the test: what converges here does so by hello's replay or a seq gap.
    server = daphnes.start(
        REDIS_URL=private_redis.url, CHANNEL_LAYER=layer, SCENE_HEARTBEAT_SECONDS="600"
    )
    table = await asyncio.to_thread(LiveTable.create, server)
    tables.append(table)
    gm = await table.join("gm")
    alice = await table.join("alice")
    await gm.roll()
    await alice.wait_for_seq(2)

    subscribed = private_redis.subscriptions()  # pubsub: the groups' channels; core: none
    private_redis.stop()
    status, page = await asyncio.to_thread(table.page, "alice")
    assert status == 200
    assert 'id="event-2"' in page
    # The action commits and returns although its broadcast fails.
    assert await table.rolls_elsewhere(1) == [3]
    status, page = await asyncio.to_thread(table.page, "alice")
    assert status == 200
    assert 'id="event-3"' in page

    private_redis.start()  # empty: no groups, no subscriptions, no queued messages
    # The sockets stay open through the outage on either layer (tabletop/scenes/layers.py).
    if layer == "core":
        # Its receive loop noticed the outage; once Redis answers again every socket joins
        # its groups again and catches up on seq 3 from the database.
        for client in (alice, gm):
            await client.wait_for_seq(3, timeout=10)
    else:
        # The layer subscribes its groups' channels again itself.
        assert subscribed
        await until(
            lambda: private_redis.subscriptions() >= subscribed,
            timeout=20,
            what="the subscriptions to come back",
        )
    assert (alice.connections, gm.connections) == (1, 1)
    # A roll from a process with fresh connections reaches both sockets live; on pubsub its
    # seq jump makes each socket fetch seq 3 first.
    assert await table.rolls_elsewhere(1) == [4]
    for client in (alice, gm):
        await client.wait_for_seq(4, timeout=20)
        assert client.seqs() == [1, 2, 3, 4]
        assert not client.frame(3).live
        assert client.frame(4).live
        assert client.controls == []  # no "reload"
        assert client.errors == []


async def test_daphne_killed_and_restarted_replays_exactly_what_was_missed(
    daphnes, private_redis, tables
):
    # No heartbeat within the test: what comes back comes from hello's replay.
    server = daphnes.start(REDIS_URL=private_redis.url, SCENE_HEARTBEAT_SECONDS="600")
    table = await asyncio.to_thread(LiveTable.create, server)
    tables.append(table)
    gm = await table.join("gm")
    alice = await table.join("alice")
    await gm.roll()
    await gm.roll()
    await alice.wait_for_seq(3)
    before = len(alice.events)

    server.kill()
    await until(lambda: not alice.connected, timeout=10, what="the socket to drop")
    assert await table.rolls_elsewhere(3) == [4, 5, 6]  # made while no daphne runs
    await asyncio.to_thread(server.restart)
    await alice.wait_for_seq(6, timeout=20)
    await gm.roll()
    await asyncio.gather(alice.wait_for_seq(7), gm.wait_for_seq(7))  # each hears it on its own

    assert alice.seqs() == [1, 2, 3, 4, 5, 6, 7]
    assert alice.seqs()[before:] == [4, 5, 6, 7]
    assert [event.live for event in alice.events[before:]] == [False, False, False, True]
    assert alice.connections == 2
    assert gm.seqs() == [1, 2, 3, 4, 5, 6, 7]
    assert alice.controls == gm.controls == []


@pytest.mark.parametrize("catch_up", ["heartbeat", "next event"])
async def test_a_stalled_consumer_past_the_layer_capacity_converges(
    catch_up, daphnes, private_redis, tables
):
    """The daphne process is frozen (SIGSTOP) while 30 rolls arrive for a capacity of 2: Redis
    keeps 2 messages for it and drops the rest. The socket then catches up from the database
    by its heartbeat, or on the next live message, whose seq jumps."""
    server = daphnes.start(
        REDIS_URL=private_redis.url,
        CHANNEL_LAYER="core",
        CHANNEL_LAYER_CAPACITY="2",
        SCENE_HEARTBEAT_SECONDS="1" if catch_up == "heartbeat" else "600",
    )
    table = await asyncio.to_thread(LiveTable.create, server)
    tables.append(table)
    alice = await table.join("alice")

    server.process.send_signal(signal.SIGSTOP)
    try:
        assert await table.rolls_elsewhere(30) == list(range(2, 32))
        # Redis kept the capacity (2); one more may have gone to the waiting pop; the rest: dropped.
        assert private_redis.queued_messages() == 2
    finally:
        server.process.send_signal(signal.SIGCONT)
    newest = 31
    if catch_up == "next event":
        # Once the kept messages are in (else the layer would drop this one too), the next roll
        # arrives with a seq past the socket's cursor: the socket fetches the gap first.
        await alice.wait_for_seq(3)
        await alice.roll()
        newest = 32
    await alice.wait_for_seq(newest, timeout=20)

    assert alice.seqs() == list(range(1, newest + 1))
    # At most 3 of the flood can have come live (2 kept, 1 handed to the waiting pop).
    replayed = [event.seq for event in alice.events if not event.live and event.seq > 1]
    assert len(replayed) >= 30 - 3
    if catch_up == "next event":
        assert alice.frame(32).live
    assert alice.controls == []
    assert alice.errors == []


async def test_an_idle_socket_outlives_the_layers_blocking_receive(daphnes, private_redis, tables):
    """The core layer waits for messages with a 5 s BZPOPMIN; a client read timeout at or under
    it (redis-py 8's default socket_timeout is 5 s) cut every idle socket every ~5 s with 1011.
    So stay idle past it, then check the same connection still gets a roll live."""
    server = daphnes.start(REDIS_URL=private_redis.url, CHANNEL_LAYER="core")
    table = await asyncio.to_thread(LiveTable.create, server)
    tables.append(table)
    gm = await table.join("gm")
    alice = await table.join("alice")

    await asyncio.sleep(6.5)  # past one whole blocking pop (5 s) with nothing to receive
    await gm.roll()
    await alice.wait_for_seq(2)
    assert alice.frame(2).live
    assert (alice.connections, gm.connections) == (1, 1), alice.drops + gm.drops


@pytest.mark.parametrize("how", ["stopped", "killed"])
async def test_one_of_two_processes_gone_every_log_holds_every_event_once_in_order(
    how, daphnes, shared_redis_url, tables
):
    # Two processes behind a proxy; one goes (a rolling restart's SIGTERM, or a crash) while
    # the table rolls: its pages reconnect to the other, and every page's log holds every
    # event exactly once, in order.
    a = daphnes.start(REDIS_URL=shared_redis_url)
    b, table = await asyncio.gather(
        asyncio.to_thread(daphnes.another, a), asyncio.to_thread(LiveTable.create, a)
    )
    tables.append(table)
    on_a = [
        await table.join("gm", a, fallbacks=[b]),
        await table.join("alice", a, fallbacks=[b]),
    ]
    on_b = await table.join("alice", b, fallbacks=[a])
    clients = [*on_a, on_b]
    for _ in range(3):
        await on_b.roll()
    for client in clients:
        await client.wait_for_seq(4)

    async def roll_on() -> None:
        for _ in range(4):
            await on_b.roll()
            await asyncio.sleep(0.3)  # under the socket's rate limit

    rolling = asyncio.create_task(roll_on())
    await asyncio.to_thread(a.stop if how == "stopped" else a.kill)
    await rolling
    assert await table.rolls_elsewhere(2) == [9, 10]

    for client in clients:
        await client.wait_for_seq(10, timeout=30)
        assert client.seqs() == list(range(1, 11))
        assert client.errors == []
    for client in on_a:
        assert client.connections == 2
        if how == "stopped":
            # Closed as a restart (1012): the page reconnects at once (static/js/scene/socket.js).
            assert "code=1012" in client.drops[0]
