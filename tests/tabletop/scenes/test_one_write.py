"""An action whose one write is its event runs without a transaction around it
(``fastpath.one_write``): on PostgreSQL a roll that sets nothing going is the scene read and one
statement; the portable twin opens the event's transaction itself. A roll that sets something
going stays all or nothing, a scene that moved since it was read still gets the next seq and
the real head, and a second write outside a transaction is refused before it runs: where
``settings.CHECK_ONE_WRITE`` is on (these settings), under which every action declared
``scene_action(atomic=False)`` runs here; in play it is off, and nothing counts statements."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext, override_settings

from tabletop.scenes import actions, kit, ledger
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.fastpath import one_write
from tabletop.scenes.fastpath.onewrite import OneWriteGuard
from tabletop.scenes.models import Scene, SceneEvent
from tabletop.scenes.record import record_event
from tabletop.scenes.rollkinds import GENERIC_KINDS, ROLL_KINDS
from tests.support.statements import kind, kinds

# Outside the test's own transaction: what runs alone must really commit alone. Each test runs
# on both fast paths (``fast_paths``): the portable twin in `make test` and `make
# test-services`, PostgreSQL's (where the event is one statement) in `make test-services`.
pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _roll(table, user, mode: str) -> tuple[SceneEvent, list[str]]:
    data = {"roll_kind": "expression", "mode": mode, "character": "", "expression": "2d6+3"}
    with CaptureQueriesContext(connection) as queries:
        actions.run_command(command="roll", scene_id=table.scene.pk, user=user, data=data)
    event = SceneEvent.objects.filter(scene=table.scene).latest("seq")
    return event, [q["sql"] for q in queries.captured_queries]


def test_a_roll_that_sets_nothing_going_writes_its_event_alone(table, fast_paths):
    seqs = []
    for user, mode in ((table.alice, "public"), (table.alice, "gm"), (table.bob, "blind")):
        event, statements = _roll(table, user, mode)
        seqs.append(event.seq)
        assert event.public["mode"] == mode
        # After the scene read for the first roll only: the next ones check the scene as this
        # process last saw it in their write (test_scene_as_seen.py).
        first = len(seqs) == 1
        if fast_paths.name == "postgresql":
            # The seq, the head and the event in one statement, with no BEGIN and no COMMIT.
            write = ["write"]
        else:  # the scene's row moved and the event, in a transaction of the event's own
            write = ["begin", *([] if first else ["read"]), "move", "event", "commit"]
        assert kinds(statements) == (["read", *write] if first else write)
    table.scene.refresh_from_db()
    assert seqs == [2, 3, 4] and table.scene.last_seq == 4
    doc = ledger.export(scene=table.scene, viewer=Viewer(table.gm.pk, True), viewer_name="gm")
    assert ledger.verify(doc).ok


def test_a_roll_that_sets_something_going_is_all_or_nothing(table, fast_paths, monkeypatch):
    def strikes_back(*, event, rng, context):
        raise RuntimeError("the foe's blow failed")

    striking = dataclasses.replace(ROLL_KINDS["expression"], consequences=strikes_back)
    monkeypatch.setitem(ROLL_KINDS, "expression", striking)
    monkeypatch.setitem(GENERIC_KINDS, "expression", striking)
    with pytest.raises(RuntimeError, match="blow failed"):
        _roll(table, table.alice, "public")
    # The roll and what it set going are one transaction: neither is stored.
    assert not SceneEvent.objects.filter(scene=table.scene, kind="roll").exists()
    table.scene.refresh_from_db()
    assert table.scene.last_seq == 1
    # A hidden roll's consequences wait for its reveal: the roll is written alone.
    event, _statements = _roll(table, table.alice, "gm")
    assert (event.kind, event.seq) == ("roll", 2)


def test_an_event_alone_on_a_scene_that_moved_gets_the_next_seq_and_the_real_head(
    table, fast_paths
):
    stale = Scene.objects.get(pk=table.scene.pk)  # read before the next event
    said = {"speaker": "bob", "text": "Ready?", "emote": False}
    actions.chat(scene=table.scene, actor=table.bob, text="First!", to=[])
    with one_write() as context, CaptureQueriesContext(connection) as queries:
        late = record_event(scene=stale, kind="chat", actor=table.bob, public=said, context=context)
    assert late.seq == 3
    assert late.ledger["prev"] == SceneEvent.objects.get(scene=table.scene, seq=2).ledger_hash
    # The numbered write found the scene moved and wrote nothing; the next seq and the event
    # (with the new head) then ran in a transaction of their own. (The broadcast, on commit,
    # reads the campaign this scene was read without.)
    statements = kinds(q["sql"] for q in queries.captured_queries)
    if fast_paths.name == "postgresql":
        assert statements[:5] == ["write", "begin", "seq", "event", "commit"], statements
    else:
        assert statements[:6] == ["begin", "move", "seq", "event", "head", "commit"], statements
    table.scene.refresh_from_db()
    assert table.scene.last_seq == 3 and table.scene.ledger_head == late.ledger_hash


def test_a_second_write_outside_a_transaction_is_refused_before_it_runs(table):
    assert settings.CHECK_ONE_WRITE  # the test settings turn the guard on
    scene = Scene.objects.filter(pk=table.scene.pk)
    refused = pytest.raises(TransactionManagementError, match="needs transaction.atomic")
    with refused, one_write():
        assert scene.get().name  # reads are free
        scene.update(name="First")
        scene.update(name="Second")
    assert scene.get().name == "First"  # the first committed alone; the second never ran
    # Inside a transaction it changes nothing: the transaction holds the writes together.
    with transaction.atomic(), one_write():
        scene.update(name="Third")
        scene.update(name="Fourth")
    assert scene.get().name == "Fourth"


def test_an_event_outside_a_transaction_and_outside_one_write_is_refused(table):
    with pytest.raises(AssertionError, match="needs a transaction"):
        record_event(scene=table.scene, kind="chat", actor=table.bob, public={"text": "hi"})
    assert not SceneEvent.objects.filter(scene=table.scene, kind="chat").exists()


def test_in_play_the_guard_is_off_and_nothing_counts_statements(table):
    # CHECK_ONE_WRITE is off in play (tabletop/settings.py): no wrapper on the connection, so
    # the statements of an action run without a transaction cost nothing more.
    scene = Scene.objects.filter(pk=table.scene.pk)
    with override_settings(CHECK_ONE_WRITE=False), one_write():
        assert connection.execute_wrappers == []
        scene.update(name="First")
        scene.update(name="Second")  # not refused: nothing counts
    assert scene.get().name == "Second"
    with one_write():  # on again (the test settings): the guard is on the connection
        assert [type(w) for w in connection.execute_wrappers] == [OneWriteGuard]


@contextlib.contextmanager
def writes_seen() -> Iterator[list[tuple[str, bool, bool]]]:
    """Each write run inside: its kind, whether the one-write guard was on the connection, and
    whether a transaction was open."""
    seen: list[tuple[str, bool, bool]] = []

    def spy(execute, sql, params, many, context):
        if sql.lstrip()[:6].upper() != "SELECT":
            guarded = any(isinstance(w, OneWriteGuard) for w in connection.execute_wrappers)
            seen.append((kind(sql), guarded, connection.in_atomic_block))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(spy):
        yield seen


def _strikes_back(*, event, rng, context):
    # What a roll sets going: a write more, in the roll's transaction (of a row the scene as
    # seen does not hold, so the next command still runs on it).
    SceneEvent.objects.filter(pk=event.pk).update(nonce="struck")


#: Every action declared ``scene_action(atomic=False)``, by name, and the commands that run it
#: here: each one's variants (a roll that sets nothing going, private, blind, one that sets
#: something going; a line, a whisper). A new such action fails the test until it is listed.
RUN_ALONE = {
    "tabletop.scenes.actions.rolls.roll": [
        ("roll", {"roll_kind": "expression", "mode": "public", "expression": "2d6+3"}),
        ("roll", {"roll_kind": "expression", "mode": "gm", "expression": "2d6+3"}),
        ("roll", {"roll_kind": "expression", "mode": "blind", "expression": "2d6+3"}),
        ("roll", {"roll_kind": "striking", "mode": "public", "expression": "1d6"}),
    ],
    "tabletop.scenes.actions.talk.chat": [
        ("chat", {"text": "Ready?"}),
        ("chat", {"text": "Only you.", "to": ["{gm}"]}),
    ],
}


def test_every_action_run_without_a_transaction_runs_under_the_guard(
    table, fast_paths, monkeypatch
):
    declared = {f"{a.__module__}.{a.__qualname__}" for a in kit._EVENT_FIRST}
    assert declared == set(RUN_ALONE)
    striking = dataclasses.replace(ROLL_KINDS["expression"], consequences=_strikes_back)
    monkeypatch.setitem(ROLL_KINDS, "striking", dataclasses.replace(striking, name="striking"))
    monkeypatch.setitem(GENERIC_KINDS, "striking", ROLL_KINDS["striking"])
    for name, commands in RUN_ALONE.items():
        for command, data in commands:
            data = {**data, "to": [table.gm.pk] if "to" in data else []}
            data = {"character": "", **data} if command == "roll" else data
            with writes_seen() as seen:
                actions.run_command(
                    command=command, scene_id=table.scene.pk, user=table.alice, data=data
                )
            # Every write it made ran with the guard on, and at most one outside a transaction
            # (PostgreSQL's event statement, or SQLite's BEGIN); the rest inside.
            assert seen and all(guarded for _kind, guarded, _open in seen), (name, data, seen)
            assert len([k for k, _guarded, inside in seen if not inside]) <= 1, (name, seen)
    assert SceneEvent.objects.filter(nonce="struck").count() == 1  # what the roll set going
