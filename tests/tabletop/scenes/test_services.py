"""Integration tests against real PostgreSQL and Redis (`make test-services`, run by .ci/run)."""

from __future__ import annotations

import asyncio
import re
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tabletop.characters.models import Character
from tabletop.scenes import actions, command_threads, ledger
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import SceneEvent
from tabletop.systems.conductor import bennies
from tabletop.systems.percentile import plot_points
from tabletop.systems.two_dice.models import TwoDiceSheet
from tests.support.tables import make_table, mira_and_troll
from tests.tabletop.conftest import at_once, requires_postgres, requires_redis
from tests.tabletop.scenes.conftest import connect, drain_all

#: two_dice's check of the bench: 2d6 + Wits against Normal, costing 2 Focus.
CHECK = {"attribute": "Wits", "resource": "Focus", "difficulty": "Normal"}

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@requires_postgres
def test_concurrent_rolls_get_gapless_unique_seqs_on_postgres(fast_paths):
    table = make_table()
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def roll(user):
        try:
            start.wait()
            actions.roll(
                scene=table.scene, actor=user, roll_kind="expression", data={"expression": "1d6"}
            )
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=roll, args=([table.alice, table.bob][i % 2],)) for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    seqs = list(SceneEvent.objects.filter(scene=table.scene).values_list("seq", flat=True))
    assert seqs == list(range(1, 10))  # scene_opened is 1, then eight rolls without a gap
    table.scene.refresh_from_db()
    assert table.scene.last_seq == 9
    # Every thread numbered its roll from the same stale read: all but the first found the
    # scene moved on, took the next seq under the lock and chained onto the real head.
    doc = ledger.export(scene=table.scene, viewer=Viewer(table.gm.pk, True), viewer_name="gm")
    assert ledger.verify(doc).ok
    assert table.scene.ledger_head == SceneEvent.objects.get(scene=table.scene, seq=9).ledger_hash


@requires_redis
@pytest.mark.usefixtures("close_db_after")
async def test_frames_travel_through_the_redis_layer():
    from channels_redis.core import RedisChannelLayer

    assert isinstance(get_channel_layer(), RedisChannelLayer)
    table = await sync_to_async(make_table)()
    gm = await connect(table.gm, table.scene)
    bob = await connect(table.bob, table.scene)
    await bob.drain()
    bob.frames.clear()
    await gm.send(command="roll", roll_kind="expression", expression="1d1000+100000")
    await bob.drain(timeout=1.0)
    event = await sync_to_async(SceneEvent.objects.filter(kind="roll").get)()
    assert str(event.public["result"]["total"]) in bob.everything()
    await gm.close()
    await bob.close()


@requires_postgres
def test_two_simultaneous_spends_of_the_last_benny_one_wins_on_postgres():
    assert connection.vendor == "postgresql"
    table = make_table(system="conductor")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[{"name": "Acrobatics", "value": 1, "specialisation": ""}],
        bennies=1,
    )
    roll = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_standard",
        character=hero,
        data={"skill_name": "Acrobatics", "difficulty": "30"},
    )
    done, errors = at_once(
        2, lambda: bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq)
    )
    assert len(done) == 1 and len(errors) == 1, errors
    assert isinstance(errors[0], ValidationError) and "has 0 bennies" in str(errors[0])
    hero.refresh_from_db()
    roll.refresh_from_db()
    assert hero.bennies == 0
    assert roll.public["amended"]["result"]["bennies"] == 1
    assert SceneEvent.objects.filter(kind="benny").count() == 1


@requires_postgres
def test_simultaneous_plot_point_spends_never_overdraw_on_postgres():
    # No roll row to lock here: only the conditional UPDATE stands between the clicks.
    table = make_table(system="percentile")
    ann = Character.objects.create(
        campaign=table.campaign, owner=table.alice, name="Ann", plot_points=2, plot_points_total=2
    )
    done, errors = at_once(
        6,
        lambda: plot_points.plot_spend(
            scene=table.scene, actor=table.alice, character=ann, use="lessen_wound"
        ),
    )
    assert len(done) == 2 and len(errors) == 4
    assert all(isinstance(e, ValidationError) for e in errors)
    ann.refresh_from_db()
    assert ann.plot_points == 0 and ann.plot_points_total == 2
    assert SceneEvent.objects.filter(kind="plot_spend").count() == 2


@requires_postgres
@pytest.mark.usefixtures("close_db_after")
async def test_commands_on_the_thread_pool_keep_each_scenes_frames_in_order(settings):
    # Two scenes' commands run side by side on the pool (tabletop/scenes/command_threads.py); each
    # socket must still get its scene's frames live, in seq order, none missing.
    settings.SCENE_COMMAND_THREADS = 4
    assert command_threads._pool() is not None
    table = await sync_to_async(make_table)()

    def second_scene():
        scene = actions.scene_create(campaign=table.campaign, actor=table.gm, name="Second")
        return actions.scene_open(scene=scene, actor=table.gm)

    scenes = [table.scene, await sync_to_async(second_scene)()]
    seats = {
        scene.pk: [await connect(user, scene) for user in (table.gm, table.alice, table.bob)]
        for scene in scenes
    }
    for socks in seats.values():
        for sock in socks:
            sock.frames.clear()
    sends = []
    for n in range(5):  # five rolls from each player on each scene, all in flight at once
        for socks in seats.values():
            for sock in socks[1:]:
                mode = ("public", "gm", "blind")[n % 3]
                sends.append(sock.send(command="roll", roll_kind="expression", mode=mode,
                                       expression=f"1d4+{n}"))  # fmt: skip
    await asyncio.gather(*sends)
    for socks in seats.values():
        await drain_all(*socks)
    for scene in scenes:
        newest = await sync_to_async(
            lambda s=scene: SceneEvent.objects.filter(scene=s).order_by("-seq").first().seq
        )()
        for sock in seats[scene.pk]:
            frames = sock.event_frames()
            seqs = [int(re.search(r'data-seq="(\d+)"', f).group(1)) for f in frames]
            assert seqs == list(range(newest - 9, newest + 1)), seqs  # ten rolls, in order
            assert all('class="event event-roll live' in f for f in frames)  # none replayed
    for socks in seats.values():
        for sock in socks:
            await sock.close()


@requires_postgres
def test_simultaneous_checks_never_pay_more_than_the_sheet_holds_on_postgres(fast_paths):
    # Each check pays from its roller's row as it is (fastpath.change_row: as read if it still
    # is, else the row locked): six checks at once against 5 Focus, each costing 2, pay 2,
    # 2, 1 and then nothing. Each in a scene of its own, so the scenes' locks do not put them
    # in line: only the character's row does.
    table = make_table(system="two_dice")
    ayla, _troll = mira_and_troll(
        table, attributes={"Wits": 2}, resources={"Focus": {"current": 5, "max": 5}}
    )
    scenes = iter(
        [
            actions.scene_open(
                scene=actions.scene_create(
                    campaign=table.campaign, actor=table.gm, name=f"Hall {i}"
                ),
                actor=table.gm,
            )
            for i in range(6)
        ]
    )
    done, errors = at_once(
        6,
        lambda: actions.roll(
            scene=next(scenes), actor=table.alice, roll_kind="two_dice", character=ayla, data=CHECK
        ),
    )
    assert errors == [] and len(done) == 6
    ayla.refresh_from_db()
    assert ayla.resources["Focus"]["current"] == 0
    paid = sorted(e.public["paid_from_sheet"] for e in SceneEvent.objects.filter(kind="roll"))
    assert paid == [0, 0, 0, 1, 2, 2]


def test_a_check_pays_from_the_sheet_it_read_and_saves_it_with_its_card(fast_paths):
    # Paths.save_if_as_read: on PostgreSQL the sheet is not read again, locked, but saved
    # with the card on the condition that it is as read, in one statement; the portable twin
    # reads it once, locked, and saves it with the card. (The frames' numbers:
    # two_dice/test_resources.py, run on both too.)
    table = make_table(system="two_dice")
    ayla, _troll = mira_and_troll(
        table, attributes={"Wits": 2}, resources={"Focus": {"current": 5, "max": 5}}
    )
    with CaptureQueriesContext(connection) as queries:
        event = actions.roll(
            scene=table.scene, actor=table.alice, roll_kind="two_dice", character=ayla, data=CHECK
        )
    statements = [q["sql"] for q in queries.captured_queries]
    sheet = TwoDiceSheet._meta.db_table
    if fast_paths.name == "postgresql":
        assert not any("FOR UPDATE" in s for s in statements), statements
        paying = [s for s in statements if s.startswith("WITH u0 AS (UPDATE")]
        assert len(paying) == 1 and "IS NOT DISTINCT FROM" in paying[0], statements
    else:
        reads = [s for s in statements if s.startswith("SELECT") and sheet in s]
        saves = [s for s in statements if s.startswith("UPDATE") and sheet in s]
        assert len(reads) == 1 and len(saves) == 1, statements
    ayla.refresh_from_db()
    event.refresh_from_db()
    assert ayla.resources["Focus"]["current"] == 3 and event.public["paid_from_sheet"] == 2


def test_a_check_whose_sheet_changed_since_it_was_read_pays_from_the_row_as_it_is(fast_paths):
    table = make_table(system="two_dice")
    ayla, _troll = mira_and_troll(
        table, attributes={"Wits": 2}, resources={"Focus": {"current": 5, "max": 5}}
    )
    # The GM spends Focus elsewhere between the roll's read and its payment.
    type(ayla).objects.filter(pk=ayla.pk).update(resources={"Focus": {"current": 1, "max": 5}})
    with CaptureQueriesContext(connection) as queries:
        event = actions.roll(
            scene=table.scene, actor=table.alice, roll_kind="two_dice", character=ayla, data=CHECK
        )
    assert ayla.resources["Focus"]["current"] == 5  # the command's copy is left as it was
    # The row as it is now is read once, under its lock, and pays: on PostgreSQL after the
    # conditional save found it changed; the portable twin's one locked read compares and pays.
    sheet = TwoDiceSheet._meta.db_table
    statements = [q["sql"] for q in queries.captured_queries]
    locked = [s for s in statements if s.startswith("SELECT") and sheet in s]
    assert len(locked) == 1, statements
    if fast_paths.name == "postgresql":
        assert "FOR UPDATE" in locked[0], statements
    fresh = Character.objects.get(pk=ayla.pk).sheet
    event.refresh_from_db()
    assert fresh.resources["Focus"]["current"] == 0 and event.public["paid_from_sheet"] == 1
