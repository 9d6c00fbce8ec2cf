"""PostgreSQL faults (issue 27): restarted, paused, a scene's lock held by a frozen transaction.

Each test runs daphne on a PostgreSQL server of its own (``private_postgres``), never the shared
one, which it restarts or pauses while clients sit at the table. Commands run on a pool of
SCENE_COMMAND_THREADS threads, each with its own connection; clients send them with an id
(``cid``) and the server answers each: done, refused, or "not answering, try again" with
``retry``; the same id sent again is recorded once. The database is the truth the tests check.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time

import psycopg
import pytest
import websockets
from django.conf import settings
from websockets.exceptions import InvalidStatus

from tabletop.scenes.consumers import ANSWER_WITHIN_SECONDS
from tabletop.scenes.fastpath import onloop
from tests.servers import ROOT, PrivatePostgres, Server
from tests.services.conftest import PRIVATE_DATABASE
from tests.services.live import LiveTable, SceneClient, last_line, until

pytestmark = pytest.mark.services

#: Pool threads: several connections, each of which must come back after a restart.
THREADS = 4
#: What an answer may take beyond its bound: the frame's trip and a loaded CI machine.
MARGIN = 1.5

SCENES = """
import json
from tabletop.scenes import actions
from tabletop.scenes.models import Scene

first = Scene.objects.select_related("campaign").get(pk={scene})
gm = first.campaign.gm
made = [
    actions.scene_open(
        scene=actions.scene_create(campaign=first.campaign, actor=gm, name=f"Side room {{n}}"),
        actor=gm,
    ).pk
    for n in range({count})
]
print(json.dumps(made))
"""

#: A process that locks a scene's row and then stops working inside its transaction (frozen, or
#: stuck on something else): what lock_timeout and idle_in_transaction_session_timeout are for.
#: It runs with the app's settings and first says what bounded waits its connection has.
HOLD_SCENE = """
import time
from django.db import connection, transaction
from tabletop.scenes.models import Scene

with connection.cursor() as cursor:
    for name in ("statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"):
        cursor.execute("SHOW " + name)
        print("setting", name, cursor.fetchone()[0], flush=True)
with transaction.atomic():
    Scene.objects.select_for_update().get(pk={scene})
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        print("locked", cursor.fetchone()[0], flush=True)
    time.sleep(120)
"""


def query(server: PrivatePostgres, sql: str, *params: object) -> list[tuple]:
    """Rows from the private server's table database (the test's own connection)."""
    with psycopg.connect(server.url(PRIVATE_DATABASE), connect_timeout=3) as conn:
        return conn.execute(sql, params).fetchall()


def rolls_by_scene(server: PrivatePostgres) -> dict[int, int]:
    rows = query(
        server,
        "SELECT scene_id, count(*) FROM scenes_sceneevent WHERE kind = 'roll' GROUP BY scene_id",
    )
    return dict(rows)


def newest_seq(server: PrivatePostgres, scene_id: int) -> int:
    ((seq,),) = query(
        server, "SELECT coalesce(max(seq), 0) FROM scenes_sceneevent WHERE scene_id = %s", scene_id
    )
    return seq


def app_connections(server: PrivatePostgres) -> int:
    """Client connections to the table's database other than the test's own."""
    ((count,),) = query(
        server,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
        " AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
        PRIVATE_DATABASE,
    )
    return count


async def timed_answer(client: SceneClient, cid: str, sent: float, bound: float) -> float:
    """Seconds from ``sent`` to the first answer to ``cid``; fails past ``bound``."""
    await client.answer(cid, timeout=max(bound - (time.monotonic() - sent), 0.1))
    return time.monotonic() - sent


async def side_scenes(table: LiveTable, count: int) -> list[LiveTable]:
    """``count`` more open scenes in the table's campaign, for the same GM and player."""
    out = await asyncio.to_thread(
        table.server.shell, SCENES.format(scene=table.scene_id, count=count)
    )
    return [
        LiveTable(server=table.server, scene_id=scene_id, cookies=table.cookies)
        for scene_id in json.loads(last_line(out))
    ]


async def test_after_a_restart_the_next_command_on_every_pooled_connection_succeeds(
    private_postgres, private_daphnes, shared_redis_url, tables
):
    """A restart cuts every pooled connection; the first command on each used to fail ("That
    command failed on the server"), and reloading did not help."""
    server = private_daphnes.start(REDIS_URL=shared_redis_url, SCENE_COMMAND_THREADS=str(THREADS))
    table = await asyncio.to_thread(LiveTable.create, server)
    # One scene's commands run one at a time; THREADS scenes at once keep every thread busy.
    scenes = [table, *await side_scenes(table, THREADS - 1)]
    tables.extend(scenes)
    clients = [await scene.join("gm") for scene in scenes]
    watcher = await table.join("alice")

    async def burst(per_client: int) -> list[dict]:
        cids = [(c, await c.roll_with_id()) for c in clients for _ in range(per_client)]
        return await asyncio.gather(*(c.answer(cid) for c, cid in cids))

    # Every pooled thread opens its connection (a burst may leave one idle: try a few).
    for _ in range(5):
        assert all("error" not in answer for answer in await burst(1))
        if app_connections(private_postgres) > THREADS:  # the pool's and the socket thread's
            break
    assert app_connections(private_postgres) > THREADS, "the pool never held THREADS connections"
    before = rolls_by_scene(private_postgres)

    await asyncio.to_thread(private_postgres.restart)  # fast: every connection is cut
    assert all(client.connected for client in [*clients, watcher])  # nobody left the table

    answers = await burst(2)  # 2 x THREADS commands, THREADS at a time
    assert [answer.get("error") for answer in answers] == [None] * len(answers), answers
    # A socket opening after the restart: the loop's kept connection was cut too (onloop).
    late = await table.join("alice")
    assert late.errors == []
    after = rolls_by_scene(private_postgres)
    assert after == {scene_id: count + 2 for scene_id, count in before.items()}  # each once
    # The table's own scene: everyone converges on what the database holds, in order.
    newest = newest_seq(private_postgres, table.scene_id)
    for client in (clients[0], watcher):
        await client.wait_for_seq(newest)
        assert client.seqs() == list(range(1, newest + 1))
        assert client.errors == []


async def test_a_paused_database_gets_every_command_and_page_answered_in_bounded_time(
    private_postgres, private_daphnes, shared_redis_url, tables
):
    """A paused server answers nothing (no server-side timeout fires in it): a 15 s pause
    used to hold every command and page load for 15 s, without a word."""
    server = private_daphnes.start(REDIS_URL=shared_redis_url, SCENE_COMMAND_THREADS=str(THREADS))
    table = await asyncio.to_thread(LiveTable.create, server)
    tables.append(table)
    gm = await table.join("gm")
    alice = await table.join("alice")
    first = await gm.roll_with_id()
    assert "error" not in await gm.answer(first)
    await alice.wait_for_seq(2)

    private_postgres.pause()
    paused_at = time.monotonic()
    try:
        page = asyncio.ensure_future(asyncio.to_thread(timed_page, table, "alice"))
        opening = asyncio.ensure_future(timed_opening(table, "alice"))
        sent = []
        for client in (gm, alice, gm, alice):
            sent.append((client, await client.roll_with_id(), time.monotonic()))
        # Each command is answered within its bound, from the moment it was sent: not made,
        # try again (the database holds it), never a silent wait.
        for client, cid, at in sent:
            took = await timed_answer(client, cid, at, ANSWER_WITHIN_SECONDS + MARGIN)
            answer = client.answers[cid]
            assert answer.get("retry") is True and answer.get("error"), (answer, took)
        status, body, took = await page
        assert status == 503, body[:300]
        assert "waiting on its database" in body
        assert took <= settings.PAGE_ANSWER_SECONDS + MARGIN
        # A socket that opens meanwhile is refused within the loop's bound (the page tries
        # again), never left waiting on its handshake.
        how, took = await opening
        assert how == "refused 403" and took <= onloop.WITHIN_SECONDS + MARGIN, (how, took)
        # The fault lasts 10 s in all, whatever came back sooner.
        await asyncio.sleep(max(0.0, 10 - (time.monotonic() - paused_at)))
    finally:
        private_postgres.resume()

    # The commands held up were not lost: once the database answers, each ends and says so.
    for client, cid, _ in sent:
        await until(
            lambda client=client, cid=cid: "retry" not in client.answers[cid],
            timeout=15,
            what=f"{cid}'s own answer after the pause",
        )
        assert "error" not in client.answers[cid], client.answers[cid]
    # The page sends each again (it was told "retry"): answered as a repeat, not made twice.
    for client, cid, _ in sent:
        del client.answers[cid]
        await client.roll_with_id(cid)
        answer = await client.answer(cid)
        assert answer.get("repeat") is True and "error" not in answer, answer
    assert rolls_by_scene(private_postgres) == {table.scene_id: 1 + len(sent)}  # one per id
    newest = newest_seq(private_postgres, table.scene_id)
    assert newest == 2 + len(sent)
    for client in (gm, alice):
        await client.wait_for_seq(newest)
        assert client.seqs() == list(range(1, newest + 1))
    status, _, _ = await asyncio.to_thread(timed_page, table, "alice")
    assert status == 200
    again = await table.join("alice")  # and sockets open again
    await again.wait_for_seq(newest)


async def timed_opening(table: LiveTable, who: str) -> tuple[str, float]:
    """How one handshake of ``who``'s scene socket ended, and when (no retry)."""
    began = time.monotonic()
    try:
        async with websockets.connect(
            f"{table.server.ws_url}/ws/scenes/{table.scene_id}/",
            origin=table.server.url,
            additional_headers={"Cookie": f"sessionid={table.cookies[who]}"},
            open_timeout=30,
        ):
            return "opened", time.monotonic() - began
    except InvalidStatus as exc:
        return f"refused {exc.response.status_code}", time.monotonic() - began


def timed_page(table: LiveTable, who: str) -> tuple[int, str, float]:
    began = time.monotonic()
    status, body = table.page(who)
    return status, body, time.monotonic() - began


async def test_a_scene_locked_by_a_stuck_transaction_is_freed_by_the_servers_timeouts(
    private_postgres, private_daphnes, shared_redis_url, tables
):
    """A process (a frozen daphne, say) holds a scene's row lock in an open transaction: a
    command queued on the lock gives up after lock_timeout, and the server ends the stuck
    session after idle_in_transaction_session_timeout; then the scene plays again."""
    server = private_daphnes.start(REDIS_URL=shared_redis_url, SCENE_COMMAND_THREADS=str(THREADS))
    table = await asyncio.to_thread(LiveTable.create, server)
    tables.append(table)
    gm = await table.join("gm")
    holder = await hold_scene(server, table.scene_id)
    try:
        settings_shown, line = [], b""
        while not line.startswith(b"locked"):  # after what the shell says of itself
            line = await asyncio.wait_for(holder.stdout.readline(), timeout=60)
            assert line, "the holder ended before locking the scene"
            if line.startswith(b"setting"):
                settings_shown.append(line.decode().split()[1:])
        # The timings below are these settings' (tabletop/settings.py), on every app connection.
        assert settings_shown == [
            ["statement_timeout", "15s"],
            ["lock_timeout", "5s"],
            ["idle_in_transaction_session_timeout", "10s"],
        ]
        holder_pid = int(line.split()[-1])

        def waiting_on_a_lock() -> bool:
            rows = query(
                private_postgres,
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
            )
            return rows[0][0] > 0

        def holder_alive() -> bool:
            rows = query(
                private_postgres, "SELECT 1 FROM pg_stat_activity WHERE pid = %s", holder_pid
            )
            return bool(rows)

        cid = await gm.roll_with_id()
        await until(waiting_on_a_lock, timeout=5, what="the roll to wait on the scene's lock")
        # lock_timeout (5 s): the roll stops waiting while the holder still holds the lock.
        await until(lambda: not waiting_on_a_lock(), timeout=5 + MARGIN, what="lock_timeout")
        assert holder_alive()
        assert (await gm.answer(cid, timeout=MARGIN)).get("error")  # told, not left waiting
        # idle_in_transaction_session_timeout (10 s): the server ends the stuck session.
        await until(lambda: not holder_alive(), timeout=10 + 2 * MARGIN, what="the holder's end")
        assert "idle-in-transaction timeout" in private_postgres.log_path.read_text()
    finally:
        holder.send_signal(signal.SIGKILL)
        await holder.wait()

    del gm.answers[cid]
    await gm.roll_with_id(cid)  # sent again: made now, once
    assert "error" not in await gm.answer(cid)
    assert rolls_by_scene(private_postgres) == {table.scene_id: 1}


async def hold_scene(server: Server, scene_id: int) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "manage.py",
        "shell",
        "-c",
        HOLD_SCENE.format(scene=scene_id),
        cwd=ROOT,
        env=server.env,  # the app's settings: its connection carries the server-side timeouts
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
