"""Plot points live (percentile): a change to a roll that waits out its cancel window, going
open-ended, another player's cancel, the GM's approval of narrative uses. Actions first, then the
sockets."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from rules import percentile
from rules.core import RulesError
from tabletop.scenes import actions
from tabletop.scenes.models import SceneEvent
from tabletop.systems.percentile import plot_points
from tests.support.dice import Faces
from tests.tabletop.scenes.conftest import connect, events
from tests.tabletop.systems.percentile.tables import plot_point_table


def maneuver(table, character, *faces, actor=None):
    return actions.roll(
        scene=table.scene,
        actor=actor or table.alice,
        roll_kind="percentile",
        character=character,
        data={"skill": "Climb"},
        rng=Faces(*faces),
    )


LATER = timedelta(seconds=16)  # past the default 15 s cancel window


@pytest.mark.django_db
def test_one_plot_point_changes_a_roll_once_the_window_closes():
    table, ann, _ = plot_point_table()
    roll = maneuver(table, ann, 12)  # 12 + 30 = 42
    spend = plot_points.plot_spend(
        scene=table.scene,
        actor=table.alice,
        character=ann,
        use="change_roll",
        seq=roll.seq,
        new_value=90,
    )
    ann.refresh_from_db()
    assert ann.plot_points == 2 and ann.plot_points_total == 3  # paid at once, total kept
    assert spend.public["status"] == "open"
    assert plot_points.plot_spend_settle(scene=table.scene, seq=spend.seq) is None  # too early
    applied = plot_points.plot_spend_settle(
        scene=table.scene, seq=spend.seq, now=timezone.now() + LATER
    )
    assert applied.kind == "plot_applied"
    roll.refresh_from_db()
    result = roll.public["amended"]["result"]
    assert result["total"] == 120 and result["plot_points_spent"] == 1
    expected = percentile.change_roll(
        percentile.ManeuverResult.from_dict(roll.public["result"]), new_value=90, points=1
    )
    assert result["band_label"] == percentile.BAND_LABELS[expected.band]
    assert "pending_change" not in roll.public
    spend.refresh_from_db()
    assert spend.public["status"] == "applied"
    # Settling twice does nothing more.
    assert (
        plot_points.plot_spend_settle(scene=table.scene, seq=spend.seq, now=timezone.now() + LATER)
        is None
    )


@pytest.mark.django_db
def test_a_change_the_rules_refuse_at_settling_is_refused_once_and_stays_refused(monkeypatch):
    # Before the fix the refusal was raised inside the settling transaction: the "denied"
    # mark rolled back, the spend stayed open and every heartbeat tried it again.
    table, ann, _ = plot_point_table()
    roll = maneuver(table, ann, 12)
    spend = plot_points.plot_spend(
        scene=table.scene,
        actor=table.alice,
        character=ann,
        use="change_roll",
        seq=roll.seq,
        new_value=90,
    )

    def refused(*args, **kwargs):
        raise RulesError("The campaign's plot point costs changed.")

    monkeypatch.setattr(plot_points.percentile_kinds, "change_roll", refused)
    later = timezone.now() + LATER
    assert actions.settle_due(scene_id=table.scene.pk, now=later) == 1
    spend.refresh_from_db()
    roll.refresh_from_db()
    assert spend.public["status"] == "denied" and "costs changed" in spend.public["reason"]
    assert "pending_change" not in roll.public and "amended" not in roll.public
    card = SceneEvent.objects.get(kind="plot_applied")
    assert card.public["refused"] == "The campaign's plot point costs changed."
    assert actions.settle_due(scene_id=table.scene.pk, now=later) == 0  # not tried again


@pytest.mark.django_db
def test_two_plot_points_can_go_open_ended():
    table, ann, _ = plot_point_table()
    roll = maneuver(table, ann, 50)
    spend = plot_points.plot_spend(
        scene=table.scene,
        actor=table.alice,
        character=ann,
        use="change_roll_open_ended",
        seq=roll.seq,
        new_value=97,
    )
    plot_points.plot_spend_settle(
        scene=table.scene, seq=spend.seq, now=timezone.now() + LATER, rng=Faces(40)
    )
    roll.refresh_from_db()
    dice = roll.public["amended"]["result"]["roll"]["dice"]
    assert [d["face"] for d in dice] == [97, 40]
    assert roll.public["amended"]["result"]["total"] == 97 + 40 + 30


@pytest.mark.django_db
def test_plot_point_change_refusals():
    table, ann, ben = plot_point_table(points=1)
    roll = maneuver(table, ann, 12)
    with pytest.raises(ValidationError, match="from 6 to 95"):
        plot_points.plot_spend(
            scene=table.scene,
            actor=table.alice,
            character=ann,
            use="change_roll",
            seq=roll.seq,
            new_value=99,
        )
    with pytest.raises(ValidationError, match="has 1 plot points and this takes 2"):
        plot_points.plot_spend(
            scene=table.scene,
            actor=table.alice,
            character=ann,
            use="change_roll_open_ended",
            seq=roll.seq,
            new_value=99,
        )
    with pytest.raises(PermissionDenied, match="own player"):
        plot_points.plot_spend(
            scene=table.scene,
            actor=table.bob,
            character=ann,
            use="change_roll",
            seq=roll.seq,
            new_value=50,
        )
    with pytest.raises(ValidationError, match="Unknown plot point use"):
        plot_points.plot_spend(scene=table.scene, actor=table.alice, character=ann, use="bribe")
    assert events("plot_spend") == []
    # Another player may change a roll "by you or another".
    plot_points.plot_spend(
        scene=table.scene,
        actor=table.bob,
        character=ben,
        use="change_roll",
        seq=roll.seq,
        new_value=6,
    )
    with pytest.raises(ValidationError, match="already waiting"):
        plot_points.plot_spend(
            scene=table.scene,
            actor=table.alice,
            character=ann,
            use="change_roll",
            seq=roll.seq,
            new_value=95,
        )


@pytest.mark.django_db
def test_another_player_cancels_a_spend_by_spending_as_much():
    table, ann, ben = plot_point_table(points=2)
    roll = maneuver(table, ann, 12)
    spend = plot_points.plot_spend(
        scene=table.scene,
        actor=table.alice,
        character=ann,
        use="change_roll",
        seq=roll.seq,
        new_value=90,
    )
    with pytest.raises(ValidationError, match="your own spend"):
        plot_points.plot_cancel(scene=table.scene, actor=table.alice, seq=spend.seq, character=ann)
    cancel = plot_points.plot_cancel(
        scene=table.scene, actor=table.bob, seq=spend.seq, character=ben
    )
    ann.refresh_from_db()
    ben.refresh_from_db()
    assert (ann.plot_points, ben.plot_points) == (1, 1)  # both sides' points are gone
    spend.refresh_from_db()
    roll.refresh_from_db()
    assert spend.public["status"] == "cancelled" and spend.public["cancelled_by"] == "Ben"
    assert "pending_change" not in roll.public and "amended" not in roll.public
    assert cancel.public["refresh"] == [roll.seq]
    assert (
        plot_points.plot_spend_settle(scene=table.scene, seq=spend.seq, now=timezone.now() + LATER)
        is None
    )
    with pytest.raises(ValidationError, match="no longer be cancelled"):
        plot_points.plot_cancel(scene=table.scene, actor=table.bob, seq=spend.seq, character=ben)


@pytest.mark.django_db
def test_a_cancel_after_the_window_is_refused():
    table, ann, ben = plot_point_table()
    spend = plot_points.plot_spend(
        scene=table.scene, actor=table.alice, character=ann, use="lessen_wound"
    )
    with pytest.raises(ValidationError, match="Too late"):
        plot_points.plot_cancel(
            scene=table.scene,
            actor=table.bob,
            seq=spend.seq,
            character=ben,
            now=timezone.now() + LATER,
        )
    ben.refresh_from_db()
    assert ben.plot_points == 3


@pytest.mark.django_db
def test_narrative_uses_wait_for_the_gm():
    table, ann, _ = plot_point_table()
    clue = plot_points.plot_spend(
        scene=table.scene, actor=table.alice, character=ann, use="clue", note="Who hired them?"
    )
    ann.refresh_from_db()
    assert clue.public["status"] == "awaiting_gm" and ann.plot_points == 3  # nothing paid yet
    with pytest.raises(PermissionDenied):
        plot_points.plot_decide(scene=table.scene, actor=table.alice, seq=clue.seq, approve=True)
    plot_points.plot_decide(scene=table.scene, actor=table.gm, seq=clue.seq, approve=True, cost=2)
    ann.refresh_from_db()
    clue.refresh_from_db()
    assert ann.plot_points == 1 and clue.public["status"] == "open" and clue.public["points"] == 2
    with pytest.raises(ValidationError, match="not waiting for the GM"):
        plot_points.plot_decide(scene=table.scene, actor=table.gm, seq=clue.seq, approve=False)
    weakness = plot_points.plot_spend(
        scene=table.scene, actor=table.alice, character=ann, use="ignore_weakness"
    )
    with pytest.raises(ValidationError, match="fixed cost"):
        plot_points.plot_decide(
            scene=table.scene, actor=table.gm, seq=weakness.seq, approve=True, cost=3
        )
    plot_points.plot_decide(scene=table.scene, actor=table.gm, seq=weakness.seq, approve=False)
    weakness.refresh_from_db()
    ann.refresh_from_db()
    assert weakness.public["status"] == "denied" and ann.plot_points == 1
    assert actions.settle_due(scene_id=table.scene.pk, now=timezone.now() + LATER) == 1
    clue.refresh_from_db()
    assert clue.public["status"] == "applied"


# --- over the sockets ---


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_spend_settles_when_its_window_closes_and_everyone_sees_it():
    table, ann, ben = await sync_to_async(plot_point_table)()
    table.campaign.ruleset = {"plot_point_cancel_seconds": 1}
    await table.campaign.asave(update_fields=["ruleset"])
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    roll = await sync_to_async(maneuver)(table, ann, 12)
    await alice.send(
        command="plot_spend", character=ann.pk, use="change_roll", seq=roll.seq, new_value="80"
    )
    await alice.drain(timeout=2.0)
    await bob.drain(timeout=0.5)
    applied = await SceneEvent.objects.filter(kind="plot_applied").afirst()
    assert applied is not None, "the consumer settles the spend once its window closes"
    text = html.unescape(bob.everything())
    assert "takes effect" in text and "roll set to 80" in text
    await alice.close()
    await bob.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_bad_spend_commands_get_an_error_frame_and_change_nothing():
    table, ann, ben = await sync_to_async(plot_point_table)()
    bob = await connect(table.bob, table.scene)
    before = await SceneEvent.objects.acount()
    for command in (
        {"command": "plot_spend", "character": ann.pk, "use": "clue"},  # not bob's character
        {"command": "plot_spend", "character": "x", "use": "clue"},
        {"command": "plot_cancel", "seq": "nope", "character": ben.pk},
        {"command": "benny", "seq": 1},
        {"command": "award", "character": ben.pk, "field": "plot_points", "amount": 5},
        {"command": "plot_decide", "seq": 1, "decision": "maybe"},
    ):
        bob.frames.clear()
        await bob.send(**command)
        await bob.drain()
        assert 'id="scene-errors"' in bob.everything(), command
    assert await SceneEvent.objects.acount() == before
    await sync_to_async(ben.refresh_from_db)()
    assert ben.plot_points == 3
    await bob.close()
