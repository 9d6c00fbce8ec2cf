"""The hot reads planned once per connection (``fastpath.statements``: the scene read, a row
read) read what the ORM reads, the writes of both fast paths (``fast_paths``) write what the ORM
would have written, and the heartbeat of a quiet scene is three statements."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tabletop.campaigns.models import Campaign
from tabletop.scenes import actions, fastpath, selectors
from tabletop.scenes.models import Presence, Scene
from tests.support.tables import make_table, mira_and_troll


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


@pytest.mark.django_db
def test_the_scene_read_gives_the_orms_scene_and_campaign():
    table = make_table(system="two_dice")
    Campaign.objects.filter(pk=table.campaign.pk).update(
        ruleset={"reaction_seconds": 12, "nested": {"a": [1, 2.5, None]}}
    )
    Scene.objects.filter(pk=table.scene.pk).update(state={"turns": {"round": 3}})

    read = fastpath.read_scene(table.scene.pk, user=table.alice)
    scene = read.scene

    orm = Scene.objects.select_related("campaign").get(pk=table.scene.pk)
    assert _fields(scene) == _fields(orm)  # JSON decoded, times aware, as the ORM gives them
    assert _fields(scene.campaign) == _fields(orm.campaign)
    assert scene.opened_at.tzinfo is not None
    assert read.member is True and read.user_id == table.alice.pk and not read.as_seen
    assert not scene._state.adding  # a row from the database, saved like one
    scene.name = "Renamed"
    scene.save(update_fields=["name"])
    assert Scene.objects.get(pk=scene.pk).name == "Renamed"


@pytest.mark.django_db
def test_the_scene_read_says_who_is_not_a_member_and_what_does_not_exist():
    table = make_table()
    assert fastpath.read_scene(table.scene.pk, user=table.outsider).member is False
    assert fastpath.read_scene(table.scene.pk + 999, user=table.gm) is None
    # and a command from a non-member is refused by it
    assert selectors.scene_access(scene_id=table.scene.pk, user=table.outsider) is None


@pytest.mark.django_db
def test_a_quiet_scenes_heartbeat_is_three_statements(django_assert_num_queries):
    table = make_table(system="two_dice")
    old = timezone.now() - timedelta(minutes=5)
    Presence.objects.create(scene=table.scene, user=table.alice, channel_name="a", last_seen=old)
    # The presence UPDATE, the scene with its campaign, and who is present now.
    with django_assert_num_queries(3):
        newest = actions.heartbeat(beating={table.scene.pk: {"a": None}})[table.scene.pk].newest_seq
    assert newest == Scene.objects.get(pk=table.scene.pk).last_seq
    assert Presence.objects.get(channel_name="a").last_seen > old


@pytest.mark.django_db
def test_the_process_s_beat_is_three_statements_for_any_number_of_quiet_scenes(
    django_assert_num_queries,
):
    table = make_table(system="two_dice")
    scenes = [table.scene] + [
        actions.scene_open(
            scene=actions.scene_create(campaign=table.campaign, actor=table.gm, name=f"Scene {n}"),
            actor=table.gm,
        )
        for n in range(4)
    ]
    old = timezone.now() - timedelta(minutes=5)
    for n, scene in enumerate(scenes):
        Presence.objects.create(scene=scene, user=table.alice, channel_name=f"c{n}", last_seen=old)
    beating = {scene.pk: {f"c{n}": 30 * n} for n, scene in enumerate(scenes)}
    with django_assert_num_queries(3):
        found = actions.heartbeat(beating=beating)
    assert set(found) == {scene.pk for scene in scenes}
    # Each scene its own list (120 ms shows as 100: to the nearest 50 from 100 ms on).
    assert [found[scene.pk].present[0].rtt_ms for scene in scenes] == [0, 30, 60, 90, 100]
    assert not Presence.objects.filter(last_seen=old).exists()


@pytest.mark.django_db
def test_a_scene_whose_due_work_fails_does_not_stop_the_others_beat(monkeypatch, caplog):
    table = make_table(system="two_dice")
    other = actions.scene_open(
        scene=actions.scene_create(campaign=table.campaign, actor=table.gm, name="The ferry"),
        actor=table.gm,
    )

    def settle(scene, now=None, sends=None):
        if scene.pk == table.scene.pk:
            raise ValueError("a broken due task")
        return 0

    monkeypatch.setattr("tabletop.scenes.actions.scenes.settle_due_in", settle)
    found = actions.heartbeat(beating={table.scene.pk: {}, other.pk: {}})
    assert set(found) == {table.scene.pk, other.pk}
    assert "due work of scene" in caplog.text


@pytest.mark.django_db
def test_the_heartbeat_reports_what_settling_due_work_recorded(monkeypatch):
    # A due task that records an event: the beat's newest seq includes it.
    table = make_table(system="two_dice")
    before = Scene.objects.get(pk=table.scene.pk).last_seq

    def settle(scene, now=None, sends=None):
        actions.roll(scene=scene, actor=table.gm, roll_kind="expression", data={"expression": "d6"})
        return 1

    monkeypatch.setattr("tabletop.scenes.actions.scenes.settle_due_in", settle)
    beat = actions.heartbeat(beating={table.scene.pk: {}})[table.scene.pk]
    assert beat.newest_seq == before + 1


@pytest.mark.django_db
def test_the_hidden_results_are_one_query_whatever_their_number(django_assert_num_queries):
    # The list reads only what it shows; a deferred field read in the template would cost a
    # query per row.
    from tabletop.scenes.tools import render_tools

    table = make_table()
    for n in range(5):
        actions.roll(
            scene=table.scene,
            actor=table.alice,
            roll_kind="expression",
            mode="gm",
            data={"expression": f"1d4+{1000 + n}"},
        )
    with django_assert_num_queries(1):
        html = render_tools(table.scene, is_gm=True, oob=True, only={"hidden"})
    assert html.count("Reveal") == 5 and 'id="gm-hidden"' in html and "alice" in html


def test_a_pool_thread_tidies_its_connection_once_a_second_and_after_an_error(monkeypatch):
    from django.db import connection

    from tabletop.scenes import command_threads

    tidied: list[float] = []

    def tidy() -> None:  # as Django's: a connection with errors is closed (and so clean)
        tidied.append(1)
        connection.errors_occurred = False

    monkeypatch.setattr(command_threads, "close_old_connections", tidy)
    monkeypatch.setattr(command_threads._tidied, "at", -1e9, raising=False)
    clock = [1000.0]
    monkeypatch.setattr(command_threads.time, "monotonic", lambda: clock[0])
    for _ in range(3):
        command_threads._tidy_call(lambda: None)
    assert len(tidied) == 1  # the first call only: no health check round trip per command
    clock[0] += command_threads.TIDY_EVERY_SECONDS
    command_threads._tidy_call(lambda: None)
    assert len(tidied) == 2  # a second on: checked (and recycled when too old) again

    def fails() -> None:
        connection.errors_occurred = True  # as Django marks a connection a query broke
        raise RuntimeError("the database went away")

    monkeypatch.setattr(connection, "errors_occurred", False)
    with pytest.raises(RuntimeError):
        command_threads._tidy_call(fails)
    assert len(tidied) == 3  # closed at once, not handed to the next command
    command_threads._tidy_call(lambda: None)
    assert len(tidied) == 4  # and the next command checks it again


@pytest.mark.django_db(transaction=True)
def test_an_event_written_once_as_sql_reads_back_as_the_orm_would_have_written_it(fast_paths):
    # Every field set: a hidden roll of a character (commitment, nonce, ledger entry), then a
    # reveal with its parent, and a whisper with its recipients.
    from tabletop.characters.models import Character
    from tabletop.scenes.models import SceneEvent

    table = make_table(system="two_dice")
    hero = Character.objects.create(campaign=table.campaign, owner=table.alice, name="Ayla")
    hidden = actions.roll(
        scene=table.scene, actor=table.gm, roll_kind="expression", mode="blind",
        character=hero, data={"expression": "2d6+1"},
    )  # fmt: skip
    reveal = actions.reveal(scene=table.scene, actor=table.gm, seq=hidden.seq)
    whisper = actions.chat(
        scene=table.scene, actor=table.gm, text="the door is trapped", to=[table.alice.pk]
    )
    for written in (hidden, reveal, whisper):
        read = SceneEvent.objects.get(pk=written.pk)
        fields = _fields(read)
        if written is hidden:
            fields["revealed_at"] = None  # the reveal came after the roll was written
        assert fields == _fields(written)
        assert not written._state.adding
    assert hidden.commitment and hidden.nonce and hidden.ledger and hidden.character_id == hero.pk
    assert reveal.parent_id == hidden.pk and whisper.recipients == [table.alice.pk]
    # The chain's head moved with each entry, in the event's own statement.
    scene = Scene.objects.get(pk=table.scene.pk)
    assert scene.ledger_head == reveal.ledger_hash != hidden.ledger_hash
    assert reveal.ledger["prev"] == hidden.ledger_hash


@pytest.mark.django_db(transaction=True)
def test_rows_saved_together_are_one_statement_on_postgresql_and_all_or_nothing(fast_paths):
    from django.db import DatabaseError, connection, transaction
    from django.test.utils import CaptureQueriesContext

    from tabletop.characters.models import Character
    from tabletop.scenes.fastpath import save_together

    table = make_table(system="two_dice")
    hero = Character.objects.create(campaign=table.campaign, owner=table.alice, name="Ayla")
    scene = Scene.objects.get(pk=table.scene.pk)
    hero.resources = {"Focus": {"current": 2, "max": 5}}
    scene.state = {"turns": {"round": 2}}
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        save_together((hero, ["resources"]), (scene, ["state"]))
    updates = [q for q in queries.captured_queries if "UPDATE" in q["sql"]]
    assert len(updates) == (1 if fast_paths.name == "postgresql" else 2)
    assert Character.objects.get(pk=hero.pk).sheet.resources == {"Focus": {"current": 2, "max": 5}}
    assert Scene.objects.get(pk=scene.pk).state == {"turns": {"round": 2}}

    gone = Character.objects.create(campaign=table.campaign, owner=table.bob, name="Gone")
    Character.objects.filter(pk=gone.pk).delete()  # the object still has its pk
    hero.resources = {}
    with pytest.raises(DatabaseError, match="did not affect any rows"), transaction.atomic():
        save_together((hero, ["resources"]), (gone, ["name"]))
    assert Character.objects.get(pk=hero.pk).sheet.resources == {"Focus": {"current": 2, "max": 5}}


@pytest.mark.django_db(transaction=True)  # outside any transaction, as a command starts
def test_a_row_read_written_once_gives_the_orms_row_and_nothing_else():
    from django.db import transaction

    from tabletop.characters.models import Character
    from tabletop.systems.two_dice.models import TwoDiceSheet

    table = make_table(system="two_dice")
    hero, _troll = mira_and_troll(
        table, attributes={"Wits": 3}, resources={"Focus": {"current": 4, "max": 5}}
    )
    elsewhere = Campaign.objects.create(name="Elsewhere", system="two_dice", gm=table.gm)

    sheet = TwoDiceSheet  # the character's row and its sheet's, joined
    read = fastpath.character_in_campaign(sheet, hero.pk, table.campaign.pk)
    assert type(read) is sheet
    assert _fields(read) == _fields(Character.objects.get(pk=hero.pk).sheet)  # JSON decoded
    assert read.resources == {"Focus": {"current": 4, "max": 5}} and read.name == "Mira"
    assert not read._state.adding
    assert fastpath.character_in_campaign(sheet, hero.pk, elsewhere.pk) is None
    assert fastpath.character_in_campaign(sheet, hero.pk + 999, table.campaign.pk) is None
    assert fastpath.character_in_campaign(sheet, 2**70, table.campaign.pk) is None
    with transaction.atomic():
        assert _fields(fastpath.character_locked(sheet, hero.pk)) == _fields(read)
    with pytest.raises(AssertionError, match="needs a transaction"):
        fastpath.character_locked(sheet, hero.pk)
