"""Integration tests against real PostgreSQL and Redis (`make test-services`, run by .ci/run)."""

from __future__ import annotations

import threading

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection

from tabletop.scenes import actions
from tabletop.scenes.models import SceneEvent
from tests.tabletop.conftest import requires_postgres, requires_redis
from tests.tabletop.scenes.conftest import connect, make_table

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@requires_postgres
def test_concurrent_rolls_get_gapless_unique_seqs_on_postgres():
    table = make_table()
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def roll(user):
        try:
            start.wait()
            actions.roll_make(
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


@requires_redis
@pytest.mark.usefixtures("close_db_after")
async def test_frames_travel_through_the_redis_layer():
    assert "channels_redis" in type(get_channel_layer()).__module__
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
