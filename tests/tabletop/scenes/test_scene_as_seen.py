"""A roll or a chat line runs on the scene as this process last saw it
(``fastpath.scene_as_seen``), without reading it first: its event's write goes through only if
the scene's row, its campaign's row and the actor's membership are what the command went by.
Anything that changed since (an event from elsewhere, a closed scene, a removed member, the
campaign's rules or GM) sends the command back to a fresh read, which decides as it always did;
nothing is written twice and nothing is written for a command the fresh read refuses.

Each test runs on both fast paths (``fast_paths``): PostgreSQL checks the scene in the event's
one statement, the portable twin locks, reads and compares it in the event's transaction; the
same commands give the same events, seqs, ledger and refusals on both."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character
from tabletop.scenes import actions, fastpath, ledger
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import Scene, SceneEvent
from tests.support.statements import kinds

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def written(fast_paths, *, checked: bool = False) -> list[str]:
    """One event's write, statement by statement: PostgreSQL's one statement; the twin's
    transaction (with ``checked``, the scene's row locked and read first)."""
    if fast_paths.name == "postgresql":
        return ["write"]
    return ["begin", *(["read"] if checked else []), "move", "event", "commit"]


def moved(fast_paths) -> list[str]:
    """A checked write that found the scene moved and wrote nothing."""
    return ["write"] if fast_paths.name == "postgresql" else ["begin", "read", "rollback"]


def roll(table, user, mode="public", expression="2d6+3"):
    """A roll as the socket sends it: the events it wrote and its statements' kinds."""
    data = {"roll_kind": "expression", "mode": mode, "character": "", "expression": expression}
    before = Scene.objects.get(pk=table.scene.pk).last_seq
    with CaptureQueriesContext(connection) as queries:
        actions.run_command(command="roll", scene_id=table.scene.pk, user=user, data=data)
    made = list(SceneEvent.objects.filter(scene=table.scene, seq__gt=before).order_by("seq"))
    return made, kinds(q["sql"] for q in queries.captured_queries)


def no_roll_after(table, seq: int) -> None:
    assert not SceneEvent.objects.filter(scene=table.scene, seq__gt=seq).exists()
    assert Scene.objects.get(pk=table.scene.pk).last_seq == seq


def test_commands_after_the_first_write_without_reading_the_scene(table, fast_paths):
    made, statements = roll(table, table.alice)
    assert len(made) == 1 and statements == ["read", *written(fast_paths)]  # the read, the event
    for user, mode in ((table.bob, "public"), (table.gm, "secret"), (table.alice, "blind")):
        made, statements = roll(table, user, mode)
        assert [e.public["mode"] for e in made] == [mode]
        assert statements == written(fast_paths, checked=True)  # no read before the write
    with CaptureQueriesContext(connection) as queries:
        actions.run_command(
            command="chat", scene_id=table.scene.pk, user=table.bob, data={"text": "Nice."}
        )
    assert kinds(q["sql"] for q in queries.captured_queries) == written(fast_paths, checked=True)
    seqs = list(SceneEvent.objects.filter(scene=table.scene).values_list("seq", flat=True))
    assert seqs == [1, 2, 3, 4, 5, 6]
    doc = ledger.export(scene=table.scene, viewer=Viewer(table.gm.pk, True), viewer_name="gm")
    assert ledger.verify(doc).ok


def test_an_event_from_elsewhere_sends_the_command_to_a_fresh_read_and_it_is_written_once(
    table, fast_paths
):
    roll(table, table.alice)  # the process now has the scene
    # Another writer (a view, another process): the process's copy is behind.
    actions.chat(scene=Scene.objects.get(pk=table.scene.pk), actor=table.gm, text="Hm.", to=[])
    made, statements = roll(table, table.bob)
    assert [e.seq for e in made] == [4]
    # The checked write wrote nothing, then the scene read and the event.
    assert statements == [*moved(fast_paths), "read", *written(fast_paths)]
    doc = ledger.export(scene=table.scene, viewer=Viewer(table.gm.pk, True), viewer_name="gm")
    assert ledger.verify(doc).ok


def test_a_scene_closed_since_it_was_seen_refuses_the_roll_and_writes_nothing(table, fast_paths):
    (first,), _ = roll(table, table.alice)
    # Closed without an event, so only the row itself says so.
    Scene.objects.filter(pk=table.scene.pk).update(status=Scene.Status.CLOSED)
    with pytest.raises(ValidationError, match="not open"):
        roll(table, table.bob)
    no_roll_after(table, first.seq)


def test_a_member_removed_since_the_scene_was_seen_is_refused_and_nothing_is_written(
    table, fast_paths
):
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


def test_the_campaign_changed_since_the_scene_was_seen_is_read_afresh(table, fast_paths):
    roll(table, table.alice)
    # The GM's role passes to alice: the copy says she may not make a secret roll.
    Campaign.objects.filter(pk=table.campaign.pk).update(gm=table.alice)
    made, statements = roll(table, table.alice, "secret")
    assert [e.public["mode"] for e in made] == ["secret"]
    # Refused on the copy before any write; read afresh; written.
    assert statements == ["read", *written(fast_paths)]
    # Any other change to the campaign's row (its rules, its name): the copy's write finds it
    # and writes nothing, and the command runs on the row read afresh.
    Campaign.objects.filter(pk=table.campaign.pk).update(name="The drowned vault")
    made, statements = roll(table, table.bob)
    assert len(made) == 1 and statements == [*moved(fast_paths), "read", *written(fast_paths)]
    again = fastpath.scene_as_seen(table.scene.pk, user=table.bob)
    assert again.scene.campaign.name == "The drowned vault"


def test_a_command_refused_on_the_copy_is_refused_as_the_fresh_read_says(table, fast_paths):
    (first,), _ = roll(table, table.alice)
    with pytest.raises(ValidationError) as refused:
        roll(table, table.alice, expression="2d")
    assert "2d" in str(refused.value) or refused.value.messages
    no_roll_after(table, first.seq)


def test_only_a_command_whose_event_checks_the_scene_keeps_it_and_runs_on_it(table, fast_paths):
    # A GM's award writes its sheet before its event: it reads the scene, and keeps no copy.
    hero = Character.objects.create(campaign=table.campaign, owner=table.alice, name="Mira")
    with CaptureQueriesContext(connection) as queries:
        actions.run_command(
            command="award",
            scene_id=table.scene.pk,
            user=table.gm,
            data={"character": str(hero.pk), "field": "bennies", "amount": "1"},
        )
    assert Character.objects.get(pk=hero.pk).sheet.bennies == 1
    assert kinds(q["sql"] for q in queries.captured_queries)[0] == "read"
    assert fastpath.scene_as_seen(table.scene.pk, user=table.bob) is None
    roll(table, table.alice)
    seen = fastpath.scene_as_seen(table.scene.pk, user=table.bob)
    assert seen.as_seen and seen.scene.last_seq == Scene.objects.get(pk=table.scene.pk).last_seq
