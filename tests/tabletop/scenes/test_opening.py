"""A scene socket's opening (tabletop/scenes/opening.py): who opens it and what they may see,
authorised once from the login session; on PostgreSQL on the event loop, elsewhere on the
database thread. Every test runs on both (``fast_paths``) with the same assertions."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.sessions.models import Session
from django.utils import timezone

from tabletop.scenes import actions, opening, selectors
from tabletop.scenes.fastpath import onloop
from tabletop.scenes.feed import replay
from tabletop.scenes.models import Presence, Scene
from tests.tabletop.scenes.conftest import connect, session_cookie

pytestmark = [pytest.mark.asyncio, pytest.mark.usefixtures("close_db_after")]


def store(user: Any) -> SessionStore:
    """The session a browser logged in as ``user`` sends (as the socket's scope holds it)."""
    return SessionStore(session_cookie(user))


async def opened(user: Any, scene: Scene) -> opening.Opening:
    session = await sync_to_async(store)(user)
    return await opening.open_scene(session, scene.pk)


@pytest.fixture
def only_on_loop(fast_paths, monkeypatch):
    """On the loop's path, a login as usual is decided there: Django's thread is never asked."""
    if fast_paths.name == "postgresql":

        def not_here(*args: Any, **kwargs: Any) -> None:
            raise AssertionError("the opening went to the database thread")

        monkeypatch.setattr(opening, "_on_thread", not_here)
    return fast_paths


async def test_the_gm_and_a_player_open_as_who_they_are(table, only_on_loop):
    gm = await opened(table.gm, table.scene)
    alice = await opened(table.alice, table.scene)
    assert gm.user.pk == table.gm.pk and gm.user.is_authenticated
    assert gm.access is not None and gm.access[0].is_gm and gm.access[1] == table.campaign.pk
    assert alice.user.username == "alice"
    assert alice.access is not None and not alice.access[0].is_gm
    assert alice.access[0].user_id == table.alice.pk
    # The user is the whole row, as Django's backend reads it.
    assert alice.user.password == table.alice.password
    assert alice.user.date_joined == table.alice.date_joined


async def test_an_outsider_and_a_scene_that_is_gone_open_to_nothing(table, only_on_loop):
    outsider = await opened(table.outsider, table.scene)
    assert outsider.user.pk == table.outsider.pk and outsider.access is None
    nowhere = await opened(table.alice, Scene(pk=table.scene.pk + 1000))
    assert nowhere.user.pk == table.alice.pk and nowhere.access is None


async def test_no_login_opens_as_nobody(table, fast_paths):
    for session in (SessionStore(None), SessionStore("no-such-session-key-at-all")):
        found = await opening.open_scene(session, table.scene.pk)
        assert not found.user.is_authenticated and found.access is None


async def test_an_expired_session_opens_as_nobody(table, fast_paths):
    session = await sync_to_async(store)(table.alice)
    await Session.objects.filter(pk=session.session_key).aupdate(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    found = await opening.open_scene(session, table.scene.pk)
    assert not found.user.is_authenticated and found.access is None


async def test_a_session_from_before_a_password_change_is_refused_and_flushed(table, fast_paths):
    session = await sync_to_async(store)(table.alice)
    table.alice.set_password("a-new-and-longer-secret")
    await table.alice.asave()
    found = await opening.open_scene(session, table.scene.pk)
    assert not found.user.is_authenticated and found.access is None
    # As Django itself does with such a session (both paths: the loop leaves it to Django).
    assert not await Session.objects.filter(pk=session.session_key).aexists()


async def test_an_inactive_or_deleted_user_opens_as_nobody(table, fast_paths):
    alice = await sync_to_async(store)(table.alice)
    bob = await sync_to_async(store)(table.bob)
    table.alice.is_active = False
    await table.alice.asave()
    await table.bob.adelete()
    for session in (alice, bob):
        found = await opening.open_scene(session, table.scene.pk)
        assert not found.user.is_authenticated and found.access is None


async def test_a_socket_opens_is_present_and_hears_the_table(table, fast_paths):
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    outsider = await connect(table.outsider, table.scene)
    assert gm is not None and alice is not None and outsider is None
    assert await Presence.objects.filter(scene=table.scene).acount() == 2
    before = await opening.newest_seq(table.scene.pk)
    await gm.send(command="roll", roll_kind="expression", mode="public", expression="2d6+1")
    await alice.drain()
    assert any(f'data-seq="{before + 1}"' in frame for frame in alice.event_frames())
    await alice.close()
    assert await Presence.objects.filter(scene=table.scene, user=table.alice).acount() == 0
    assert await opening.newest_seq(table.scene.pk) == before + 1
    await gm.close()


async def test_the_newest_seq_of_a_scene_that_is_gone_says_so(table, fast_paths):
    with pytest.raises(Scene.DoesNotExist):
        await opening.newest_seq(table.scene.pk + 1000)


async def test_the_loop_keeps_its_connections_and_is_on_for_postgresql_alone(table, fast_paths):
    await opened(table.alice, table.scene)
    await opened(table.bob, table.scene)
    assert onloop.available() is (fast_paths.name == "postgresql")
    kept = onloop._loops.get(asyncio.get_running_loop())
    if fast_paths.name == "postgresql":
        # Two openings, one after the other: one connection, kept, not one each.
        assert kept is not None and len(kept.every) == 1 and len(kept.free) == 1
    else:
        assert kept is None


async def test_the_presence_list_is_the_same_read_on_the_loop(table, fast_paths):
    """Who is at the table, announced from the loop (one statement) or the thread: the same
    list, with each member's best round trip, and the scene's GM; nothing for a scene gone."""
    gm = await connect(table.gm, table.scene)
    first = await connect(table.alice, table.scene)
    second = await connect(table.alice, table.scene)
    await Presence.objects.filter(user=table.alice).aupdate(rtt_ms=250)
    newest = await Presence.objects.filter(user=table.alice).order_by("-id").afirst()
    await Presence.objects.filter(pk=newest.pk).aupdate(rtt_ms=90)  # her second page
    shown = await actions.presence_announce(scene_id=table.scene.pk)
    expected = await sync_to_async(selectors.online_users)(scene_id=table.scene.pk)
    assert list(shown) == expected
    assert [(p.name, p.rtt_ms) for p in shown] == [("alice", 90), ("gm", None)]
    if fast_paths.name == "postgresql":
        found = await selectors.presence_on_loop(table.scene.pk)
        assert found == (table.gm.pk, expected)
        assert await selectors.presence_on_loop(table.scene.pk + 1000) is None
        assert await actions.presence_announce(scene_id=table.scene.pk + 1000) is None
    else:
        with pytest.raises(Scene.DoesNotExist):
            await actions.presence_announce(scene_id=table.scene.pk + 1000)
    for sock in (gm, first, second):
        await sock.close()


async def test_a_table_catching_up_reads_the_stretch_once_and_the_rest_on_the_loop(
    table, fast_paths, monkeypatch
):
    """Sockets coming back together each replay what they missed: the first reads the stretch
    on the database thread; every later one is served on the loop itself from the stretch as
    read (the feed's tail), no thread asked. Each gets the same frames."""
    gm = await connect(table.gm, table.scene)
    before = await opening.newest_seq(table.scene.pk)
    for mode in ("public", "blind"):
        await gm.send(command="roll", roll_kind="expression", mode=mode, expression="2d6")
    await gm.drain()
    where: list[bool] = []
    replay_frames = replay.replay_frames

    def watched(**kwargs):
        where.append(threading.current_thread() is threading.main_thread())
        return replay_frames(**kwargs)

    monkeypatch.setattr(replay, "replay_frames", watched)
    alice = await connect(table.alice, table.scene, hello=before)
    bob = await connect(table.bob, table.scene, hello=before)
    for sock in (alice, bob):
        got = [f for f in sock.event_frames() if f'data-seq="{before + 1}"' in f]
        assert len(got) == 1 and "2d6" in got[0]
        assert any(f'data-seq="{before + 2}"' in f for f in sock.event_frames())  # the stub
    assert where == [False, True]  # the database thread, then the loop's (the test's main)
    for sock in (gm, alice, bob):
        await sock.close()
