"""A roll or a chat line runs on the scene as this process last saw it (``seen.scene_as_seen``),
without reading it first: its event's one statement writes only if the scene's row, its
campaign's row and the actor's membership are what the command went by. Anything that changed
since (an event from elsewhere, a closed scene, a removed member, the campaign's rules or GM)
sends the command back to a fresh read, which decides as it always did; nothing is written
twice and nothing is written for a command the fresh read refuses."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tabletop.campaigns.models import Campaign, Membership
from tabletop.scenes import actions, ledger, seen
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene, SceneEvent
from tests.tabletop.conftest import requires_postgres

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def roll(table, user, mode="public", expression="2d6+3"):
    """A roll as the socket sends it: the events it wrote and the statements it took."""
    data = {"roll_kind": "expression", "mode": mode, "character": "", "expression": expression}
    before = table.scene.__class__.objects.get(pk=table.scene.pk).last_seq
    with CaptureQueriesContext(connection) as queries:
        actions.run_command(command="roll", scene_id=table.scene.pk, user=user, data=data)
    written = list(SceneEvent.objects.filter(scene=table.scene, seq__gt=before).order_by("seq"))
    return written, [q["sql"] for q in queries.captured_queries]


def no_roll_after(table, seq: int) -> None:
    assert not SceneEvent.objects.filter(scene=table.scene, seq__gt=seq).exists()
    assert Scene.objects.get(pk=table.scene.pk).last_seq == seq


@requires_postgres
def test_commands_after_the_first_write_without_reading_the_scene(table):
    seen.forget_scene(table.scene.pk)
    written, statements = roll(table, table.alice)
    assert len(written) == 1 and len(statements) == 2  # the scene read, then the event
    for user, mode in ((table.bob, "public"), (table.gm, "secret"), (table.alice, "blind")):
        written, statements = roll(table, user, mode)
        assert [e.public["mode"] for e in written] == [mode]
        assert len(statements) == 1 and statements[0].startswith("WITH moved AS (UPDATE")
    with CaptureQueriesContext(connection) as queries:
        actions.run_command(
            command="chat", scene_id=table.scene.pk, user=table.bob, data={"text": "Nice."}
        )
    assert len(queries.captured_queries) == 1
    seqs = list(SceneEvent.objects.filter(scene=table.scene).values_list("seq", flat=True))
    assert seqs == [1, 2, 3, 4, 5, 6]
    doc = ledger.export(scene=table.scene, viewer=Viewer(table.gm.pk, True), viewer_name="gm")
    assert ledger.verify(doc).ok


@requires_postgres
def test_an_event_from_elsewhere_sends_the_command_to_a_fresh_read_and_it_is_written_once(table):
    roll(table, table.alice)  # the process now has the scene
    # Another writer (a view, another process): the process's copy is behind.
    actions.chat_say(scene=Scene.objects.get(pk=table.scene.pk), actor=table.gm, text="Hm.", to=[])
    written, statements = roll(table, table.bob)
    assert [e.seq for e in written] == [4]
    # The checked write wrote nothing, then the scene read and the event.
    assert len(statements) == 3 and statements[1].startswith("SELECT")
    doc = ledger.export(scene=table.scene, viewer=Viewer(table.gm.pk, True), viewer_name="gm")
    assert ledger.verify(doc).ok


@requires_postgres
def test_a_scene_closed_since_it_was_seen_refuses_the_roll_and_writes_nothing(table):
    (first,), _ = roll(table, table.alice)
    # Closed without an event, so only the row itself says so.
    Scene.objects.filter(pk=table.scene.pk).update(status=Scene.Status.CLOSED)
    with pytest.raises(ValidationError, match="not open"):
        roll(table, table.bob)
    no_roll_after(table, first.seq)


@requires_postgres
def test_a_member_removed_since_the_scene_was_seen_is_refused_and_nothing_is_written(table):
    (first,), _ = roll(table, table.alice)
    roll(table, table.bob)  # the copy was last used for bob: alice's removal is hers to find
    last = Scene.objects.get(pk=table.scene.pk).last_seq
    Membership.objects.filter(campaign=table.campaign, user=table.alice).delete()
    with pytest.raises(PermissionDenied, match="not a member"):
        roll(table, table.alice)
    with pytest.raises(PermissionDenied, match="not a member"):
        actions.run_command(
            command="chat", scene_id=table.scene.pk, user=table.alice, data={"text": "Still here?"}
        )
    no_roll_after(table, last)
    assert first.seq < last


@requires_postgres
def test_the_campaign_changed_since_the_scene_was_seen_is_read_afresh(table):
    roll(table, table.alice)
    # The GM's role passes to alice: the copy says she may not make a secret roll.
    Campaign.objects.filter(pk=table.campaign.pk).update(gm=table.alice)
    written, statements = roll(table, table.alice, "secret")
    assert [e.public["mode"] for e in written] == ["secret"]
    assert len(statements) == 2  # refused on the copy before any write; read afresh; written
    # Any other change to the campaign's row (its rules, its name): the copy's write finds it
    # and writes nothing, and the command runs on the row read afresh.
    Campaign.objects.filter(pk=table.campaign.pk).update(name="The drowned vault")
    written, statements = roll(table, table.bob)
    assert len(written) == 1 and len(statements) == 3
    again = seen.scene_as_seen(table.scene.pk, user=table.bob)
    assert again.campaign.name == "The drowned vault"


@requires_postgres
def test_a_command_refused_on_the_copy_is_refused_as_the_fresh_read_says(table):
    (first,), _ = roll(table, table.alice)
    with pytest.raises(ValidationError) as refused:
        roll(table, table.alice, expression="2d")
    assert "2d" in str(refused.value) or refused.value.messages
    no_roll_after(table, first.seq)


def test_without_a_statement_that_checks_it_every_command_reads_the_scene(table):
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL checks the scene in the event's statement (the tests above)")
    seen.forget_scene(table.scene.pk)
    roll(table, table.alice)
    roll(table, table.bob)
    assert seen.scene_as_seen(table.scene.pk, user=table.bob) is None
