"""Durable cursors (tabletop/scenes/feed/durable.py), with a reader defined only here: it writes
an outbox row per event it may see, so its effect and its cursor's advance share a transaction.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from tabletop.campaigns.models import Membership
from tabletop.outbox.models import Outgoing
from tabletop.scenes import actions
from tabletop.scenes.feed import durable
from tabletop.scenes.models import ReaderCursor
from tests.support.tables import make_table
from tests.tabletop.conftest import requires_postgres

ECHO = "test-echo"


def _echo(cursor, viewer, seen):
    for event, vis in seen:
        Outgoing.objects.create(
            channel=ECHO, user_id=cursor.user_id, body=f"{event.seq}:{event.kind}:{vis}"
        )


@pytest.fixture
def echo():
    """A reader for bob alone, from the scene's start."""
    reader = durable.register(
        durable.Reader(
            ECHO,
            subjects=lambda scene: [
                uid
                for uid in Membership.objects.filter(campaign=scene.campaign).values_list(
                    "user_id", flat=True
                )
                if uid == scene.campaign.gm_id or uid == _bob_id(scene)
            ],
            handle=_echo,
        )
    )
    durable.take_woken()
    yield reader
    durable.unregister(ECHO)
    durable.take_woken()


def _bob_id(scene):
    return Membership.objects.get(campaign=scene.campaign, user__username="bob").user_id


def echoed(user) -> list[str]:
    rows = Outgoing.objects.filter(channel=ECHO, user=user).order_by("pk")
    return list(rows.values_list("body", flat=True))


def chat(table, actor, text, to=()):
    return actions.chat(scene=table.scene, actor=actor, text=text, to=list(to))


pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reader_reads_as_its_member_through_visibility(echo):
    table = make_table()
    said = chat(table, table.alice, "hello")
    to_gm = chat(table, table.alice, "only the GM", to=[table.gm.pk])
    to_bob = chat(table, table.alice, "psst bob", to=[table.bob.pk])
    secret = actions.roll(
        scene=table.scene, actor=table.gm, roll_kind="expression", mode="secret",
        data={"expression": "1d6"},
    )  # fmt: skip
    own = actions.roll(
        scene=table.scene, actor=table.alice, roll_kind="expression", mode="self",
        data={"expression": "1d6"},
    )  # fmt: skip
    blind = actions.roll(
        scene=table.scene, actor=table.alice, roll_kind="expression", mode="blind",
        data={"expression": "1d6"},
    )  # fmt: skip

    assert durable.catch_up(table.scene.pk) > 0

    bob = echoed(table.bob)
    assert f"{said.seq}:chat:full" in bob
    assert f"{to_bob.seq}:chat:full" in bob
    assert not any(line.startswith(f"{to_gm.seq}:") for line in bob)
    assert not any(line.startswith(f"{secret.seq}:") for line in bob)
    assert not any(line.startswith(f"{own.seq}:") for line in bob)
    assert f"{blind.seq}:roll:stub" in bob
    gm = echoed(table.gm)
    assert f"{secret.seq}:roll:full" in gm and f"{blind.seq}:roll:full" in gm
    assert not any(line.startswith(f"{to_bob.seq}:") for line in gm)
    cursor = ReaderCursor.objects.get(reader=ECHO, user=table.bob)
    assert cursor.seq == table.scene.events.order_by("-seq").first().seq


def test_each_event_is_handled_once_however_often_the_reader_is_woken(echo):
    table = make_table()
    chat(table, table.alice, "one")
    durable.catch_up(table.scene.pk)
    chat(table, table.alice, "two")
    durable.catch_up(table.scene.pk)
    durable.catch_up(table.scene.pk)
    durable.sweep()
    bodies = echoed(table.bob)
    assert len(bodies) == len(set(bodies))
    assert [b.split(":")[1] for b in bodies].count("chat") == 2


def test_an_event_wakes_the_readers_after_its_commit_only(echo):
    table = make_table()
    durable.take_woken()
    with pytest.raises(RuntimeError), transaction.atomic():
        chat(table, table.alice, "never said")
        assert durable.take_woken() == []  # not before the commit
        raise RuntimeError
    assert durable.take_woken() == []
    chat(table, table.alice, "said")
    assert durable.take_woken() == [table.scene.pk]
    assert durable.catch_up_woken() == 0  # asked once: nothing is woken twice


def test_a_removed_member_reads_nothing_more(echo):
    table = make_table()
    chat(table, table.alice, "before")
    durable.catch_up(table.scene.pk)
    Membership.objects.filter(campaign=table.campaign, user=table.bob).delete()
    chat(table, table.alice, "after")
    cursor = ReaderCursor.objects.get(reader=ECHO, user=table.bob)
    assert durable.advance(echo, cursor, table.scene) == 0
    assert not any("after" in b for b in echoed(table.bob))
    assert len(echoed(table.bob)) == len([b for b in echoed(table.bob) if b])
    assert ReaderCursor.objects.get(pk=cursor.pk).seq == cursor.seq


def test_a_change_of_gm_applies_at_the_next_read(echo):
    table = make_table()
    durable.catch_up(table.scene.pk)
    table.campaign.gm = table.bob
    table.campaign.save(update_fields=["gm"])
    blind = actions.roll(
        scene=table.scene, actor=table.alice, roll_kind="expression", mode="blind",
        data={"expression": "1d6"},
    )  # fmt: skip
    durable.catch_up(table.scene.pk)
    assert f"{blind.seq}:roll:full" in echoed(table.bob)  # a player would get its stub


def test_a_cursor_moved_by_another_process_rolls_this_ones_effect_back(echo):
    table = make_table()
    chat(table, table.alice, "once")
    durable.cursors(echo, table.scene)
    first = ReaderCursor.objects.get(reader=ECHO, user=table.bob)
    stale = ReaderCursor.objects.get(pk=first.pk)  # read by a second process, same seq
    handled = durable.advance(echo, first, table.scene)
    assert handled > 0
    before = echoed(table.bob)
    assert durable.advance(echo, stale, table.scene) == 0
    assert echoed(table.bob) == before  # its rows rolled back with the refused advance
    assert stale.seq == first.seq


def test_a_scenes_cursors_at_one_seq_move_together_in_one_batch(echo):
    # The GM's and bob's cursors read the events once and move in one transaction (a busy
    # scene's readers cost a transaction a pass, not one a member); each gets what it may see.
    table = make_table()
    batches = []
    batched = durable.Reader(
        "test-batched",
        subjects=echo.subjects,
        handle=_echo,
        handle_many=lambda batch: batches.append([(c.user_id, len(seen)) for c, _v, seen in batch]),
    )
    durable.register(batched)
    try:
        chat(table, table.alice, "to all")
        chat(table, table.alice, "psst GM", to=[table.gm.pk])
        durable.catch_up(table.scene.pk)
    finally:
        durable.unregister("test-batched")
    assert len(batches) == 1
    seen = dict(batches[0])
    assert set(seen) == {table.gm.pk, table.bob.pk}
    assert seen[table.gm.pk] == seen[table.bob.pk] + 1  # the whisper to the GM
    seqs = set(ReaderCursor.objects.filter(reader="test-batched").values_list("seq", flat=True))
    assert seqs == {table.scene.__class__.objects.get(pk=table.scene.pk).last_seq}


def test_a_batch_with_one_cursor_moved_meanwhile_is_rolled_back_and_each_moves_alone(echo):
    table = make_table()
    chat(table, table.alice, "once")
    together = durable.cursors(echo, table.scene)  # the GM's and bob's, at one seq
    gm_cursor = next(c for c in together if c.user_id == table.gm.pk)
    # A second process handled the GM's events already (its effect and its advance).
    durable.advance(echo, ReaderCursor.objects.get(pk=gm_cursor.pk), table.scene)
    gm_rows = echoed(table.gm)
    assert gm_rows
    assert durable.advance_together(echo, together, table.scene) > 0
    assert echoed(table.gm) == gm_rows  # nothing handled twice
    assert echoed(table.bob)  # bob's handled once, alone
    assert len(echoed(table.bob)) == len(set(echoed(table.bob)))


def test_a_sweep_after_a_restart_catches_up_what_no_wake_brought(echo):
    table = make_table()
    chat(table, table.alice, "a second before the crash")
    durable.take_woken()  # the process died: the wake is lost with it
    assert echoed(table.bob) == []
    durable.sweep()
    assert any(":chat:full" in b for b in echoed(table.bob))
    assert durable.sweep() == 0  # nothing behind: nothing read again


def test_a_reader_may_start_after_what_came_before_it(echo):
    table = make_table()
    chat(table, table.alice, "old news")
    late = durable.Reader(
        "test-late", subjects=lambda scene: [None], handle=_echo, start=lambda s, u: s.last_seq
    )
    durable.register(late)
    try:
        durable.catch_up(table.scene.pk)
        chat(table, table.alice, "news")
        durable.catch_up(table.scene.pk)
        outside = echoed(None)
        assert len(outside) == 1 and outside[0].endswith(":chat:full")
        with pytest.raises(ValueError):
            durable.register(durable.Reader("test-late", subjects=lambda s: [], handle=_echo))
    finally:
        durable.unregister("test-late")


@pytest.mark.services
@requires_postgres
def test_two_processes_racing_for_one_cursor_handle_each_event_once(echo):
    table = make_table()
    for n in range(30):
        chat(table, table.alice, f"line {n}")
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def race():
        try:
            start.wait()
            for _ in range(5):
                durable.catch_up(table.scene.pk)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=race) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    bodies = echoed(table.bob)
    assert len(bodies) == len(set(bodies))
    assert sum(":chat:" in b for b in bodies) == 30


def test_an_outside_readers_cursor_is_made_once_and_reads_as_an_outsider():
    table = make_table()
    seen = []
    outside = durable.Reader(
        "test-outside",
        subjects=lambda scene: [None],
        handle=lambda cursor, viewer, batch: seen.extend((e.seq, v) for e, v in batch),
    )
    durable.register(outside)
    try:
        chat(table, table.alice, "for all")
        chat(table, table.alice, "psst bob", to=[table.bob.pk])
        durable.catch_up(table.scene.pk)
        durable.catch_up(table.scene.pk)
        assert len(durable.cursors(outside, table.scene)) == 1
    finally:
        durable.unregister("test-outside")
    assert ReaderCursor.objects.filter(reader="test-outside", user=None).count() == 1
    said = [seq for seq, _v in seen]
    assert len(said) == len(set(said))  # each event once
    last = table.scene.__class__.objects.get(pk=table.scene.pk).last_seq
    assert last not in said  # the whisper is nothing to an outsider
    assert last - 1 in said
