"""A socket's catch-up from the scene's tail (replay.replay_frames with ``upto_seq``): the
stretch of the log is read and rendered once for every socket that asks for it within
TAIL_SECONDS (a table reconnecting after a restart asks once per socket), and each viewer gets
exactly the frames a replay of their own would give them, secrets included."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.feed import replay
from tabletop.scenes.models import SceneEvent

pytestmark = pytest.mark.django_db


def viewers(table) -> dict[str, Viewer]:
    return {
        "gm": Viewer(table.gm.pk, True),
        "alice": Viewer(table.alice.pk, False),
        "bob": Viewer(table.bob.pk, False),
    }


@pytest.fixture
def log(table):
    """A stretch with a public roll, a roll private to the GM, a blind roll, a whisper to alice
    with an inline roll, and a chat line: what each viewer sees of it differs."""
    before = table.scene.last_seq
    rng = random.Random(7)
    roll = {"roll_kind": "expression", "data": {"expression": "2d6+3"}, "rng": rng}
    actions.roll(scene=table.scene, actor=table.alice, **roll)
    actions.roll(scene=table.scene, actor=table.bob, mode="gm", **roll)
    actions.roll(scene=table.scene, actor=table.alice, mode="blind", **roll)
    actions.chat(scene=table.scene, actor=table.gm, text="psst [[1d20]]", to=[table.alice.pk])
    actions.chat(scene=table.scene, actor=table.bob, text="hello all", to=[])
    table.scene.refresh_from_db()
    return before, table.scene.last_seq


def replay_alone(table, viewer: Viewer, after: int, upto: int) -> list[str]:
    """The viewer's catch-up with no tail kept: read and rendered for them alone."""
    replay._tails.clear()
    return replay.replay_frames(
        scene_id=table.scene.pk, viewer=viewer, after_seq=after, upto_seq=upto
    )


def test_each_viewer_gets_what_their_own_replay_gives(table, log):
    after, upto = log
    alone = {name: replay_alone(table, v, after, upto) for name, v in viewers(table).items()}
    replay._tails.clear()
    shared = {
        name: replay.replay_frames(
            scene_id=table.scene.pk, viewer=v, after_seq=after, upto_seq=upto
        )
        for name, v in viewers(table).items()
    }
    assert shared == alone
    # The viewers' replays differ (secrets): the test would notice one shared for all.
    assert alone["gm"] != alone["alice"] != alone["bob"]
    whisper = SceneEvent.objects.filter(scene=table.scene, kind="chat").order_by("seq").first()
    assert any(f'data-seq="{whisper.seq}"' in f for f in alone["alice"])
    assert not any(f'data-seq="{whisper.seq}"' in f for f in alone["bob"])
    assert "psst" not in "".join(shared["bob"])


def test_the_stretch_is_read_once_for_the_table(table, log):
    after, upto = log
    replay._tails.clear()
    first, *others = viewers(table).values()
    with CaptureQueriesContext(connection) as reads:
        replay.replay_frames(scene_id=table.scene.pk, viewer=first, after_seq=after, upto_seq=upto)
    assert any("scenes_sceneevent" in q["sql"] for q in reads.captured_queries)
    for viewer in others:
        with CaptureQueriesContext(connection) as reads:
            replay.replay_frames(
                scene_id=table.scene.pk, viewer=viewer, after_seq=after, upto_seq=upto
            )
        assert not any("scenes_sceneevent" in q["sql"] for q in reads.captured_queries)


def test_a_tail_older_than_its_seconds_is_read_again(table, log, monkeypatch):
    after, upto = log
    replay._tails.clear()
    alice = viewers(table)["alice"]
    replay.replay_frames(scene_id=table.scene.pk, viewer=alice, after_seq=after, upto_seq=upto)
    monkeypatch.setattr(replay, "TAIL_SECONDS", 0.0)
    with CaptureQueriesContext(connection) as reads:
        replay.replay_frames(scene_id=table.scene.pk, viewer=alice, after_seq=after, upto_seq=upto)
    assert any("scenes_sceneevent" in q["sql"] for q in reads.captured_queries)


def test_another_stretch_is_its_own(table, log):
    after, upto = log
    alice = viewers(table)["alice"]
    replay._tails.clear()
    whole = replay.replay_frames(
        scene_id=table.scene.pk, viewer=alice, after_seq=after, upto_seq=upto
    )
    shorter = replay.replay_frames(
        scene_id=table.scene.pk, viewer=alice, after_seq=after, upto_seq=upto - 1
    )
    assert shorter == replay_alone(table, alice, after, upto - 1)
    assert len(shorter) == len(whole) - 1


def test_a_catch_up_refreshes_what_its_events_made_stale(table, log):
    """After the cards, the tools and procedure views the replayed events made stale, as their
    live frames would have (every tool and a view per viewer for every socket of a table
    reconnecting was most of a storm's catch-up, bench/README.md)."""
    after, upto = log
    viewers_ = viewers(table)
    # The GM's hidden results took a roll private to the GM and a blind one: the GM's list
    # comes whole; the players' catch-up has nothing after the cards.
    gm = replay_alone(table, viewers_["gm"], after, upto)
    assert 'id="gm-hidden"' in gm[-1] and 'id="party"' not in gm[-1]
    alice = replay_alone(table, viewers_["alice"], after, upto)
    assert all('id="scene-log"' in frame for frame in alice)
    hero = Character.objects.create(campaign=table.campaign, owner=table.alice, name="Kestrel")
    actions.turns_start(scene=table.scene, actor=table.gm, lineup=[(hero, "Heroes")])
    table.scene.refresh_from_db()
    alice = replay_alone(table, viewers_["alice"], after, table.scene.last_seq)
    assert 'id="procedure-turns"' in alice[-1] and "Kestrel" in alice[-1]
