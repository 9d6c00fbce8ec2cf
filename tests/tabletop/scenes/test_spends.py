"""Live spends: bennies on conductor rolls, foe strike-backs, GM awards, plot points with their
cancel window and the GM's approval of narrative uses. Actions first, then the sockets."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from rules import conductor, percentile
from rules.core import RulesError
from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.models import SceneEvent
from tabletop.systems.conductor import bennies, strike_back
from tabletop.systems.percentile import plot_points
from tests.support.dice import script_dice
from tests.tabletop.scenes.conftest import connect, make_table


class Faces:
    """A scripted rng: returns the given faces in order (each must fit the die asked for)."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        face = self.faces.pop(0)
        assert low <= face <= high, (face, low, high)
        return face


def conductor_table(bennies: int = 2):
    table = make_table(system="conductor")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[{"name": "Acrobatics", "value": 1, "specialisation": ""}],
        difficulty=3,
        bennies=bennies,
    )
    troll = Character.objects.create(
        campaign=table.campaign,
        owner=table.gm,
        name="Cave troll",
        kind="foe",
        difficulty=5,
        skills=[{"name": "Strength", "value": 2, "specialisation": ""}],
    )
    return table, hero, troll


def percentile_table(points: int = 3):
    table = make_table(system="percentile")
    ann = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Ann",
        skills=[{"name": "Climb", "value": 30}],
        plot_points=points,
        plot_points_total=points,
    )
    ben = Character.objects.create(
        campaign=table.campaign,
        owner=table.bob,
        name="Ben",
        plot_points=points,
        plot_points_total=points,
    )
    return table, ann, ben


def attack(table, hero, *faces, foe=None, mode="public"):
    return actions.roll_make(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_attack",
        character=hero,
        mode=mode,
        data={"skill_name": "Acrobatics", "difficulty": "4"},
        foe=foe,
        rng=Faces(*faces),
    )


def events(kind: str) -> list[SceneEvent]:
    return list(SceneEvent.objects.filter(kind=kind).order_by("seq"))


# --- bennies ---


@pytest.mark.django_db
def test_a_benny_adds_one_to_a_standard_roll_and_is_spent():
    table, hero, _ = conductor_table()
    roll = actions.roll_make(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_standard",
        character=hero,
        data={"skill_name": "Acrobatics", "difficulty": "8"},
        rng=Faces(7),  # 7 + 1 = 8: not over 8
    )
    assert roll.public["outcome"] == "failure"
    spend = bennies.benny_spend(scene=table.scene, actor=table.alice, seq=roll.seq)
    roll.refresh_from_db()
    hero.refresh_from_db()
    assert hero.bennies == 1
    amended = roll.public["amended"]
    assert amended["result"]["total"] == 9 and amended["result"]["bennies"] == 1
    assert amended["outcome"] == "success"
    assert roll.public["result"]["total"] == 8  # the roll as first rolled is kept
    assert roll.public["spends"] == [{"by": "alice", "text": "benny +1"}]
    assert spend.kind == "benny" and spend.parent_id == roll.pk


@pytest.mark.django_db
def test_a_benny_on_an_attack_die_that_reaches_six_explodes():
    table, hero, _ = conductor_table()
    roll = attack(table, hero, 5, 1)  # skill 1: 2d6 vs 4 -> 5 hits, 1 misses
    assert roll.public["result"]["hits"] == 1
    bennies.benny_spend(
        scene=table.scene, actor=table.alice, seq=roll.seq, die_index=0, rng=Faces(4)
    )
    roll.refresh_from_db()
    dice = roll.public["amended"]["result"]["dice"]
    assert [d["value"] for d in dice] == [6, 1, 4]  # the 6 exploded into a 4
    assert dice[0]["exploded"] and dice[2]["source"] == 0
    assert roll.public["amended"]["result"]["hits"] == 2
    expected = conductor.spend_benny_on_die(
        conductor.attack(skill=1, difficulty=4, rng=Faces(5, 1)), die_index=0, rng=Faces(4)
    )
    assert roll.public["amended"]["result"]["dice"] == expected.to_dict()["dice"]


@pytest.mark.django_db
def test_benny_refusals_change_nothing():
    table, hero, _ = conductor_table(bennies=1)
    roll = attack(table, hero, 2, 1)
    with pytest.raises(PermissionDenied, match="character's player"):
        bennies.benny_spend(scene=table.scene, actor=table.bob, seq=roll.seq, die_index=0)
    with pytest.raises(ValidationError, match="Pick the die"):
        bennies.benny_spend(scene=table.scene, actor=table.alice, seq=roll.seq)
    with pytest.raises(ValidationError, match="die to push"):
        bennies.benny_spend(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=7)
    with pytest.raises(ValidationError, match="no such roll"):
        bennies.benny_spend(scene=table.scene, actor=table.alice, seq=999, die_index=0)
    hero.refresh_from_db()
    assert hero.bennies == 1 and events("benny") == []
    bennies.benny_spend(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=1)
    with pytest.raises(ValidationError, match="has 0 bennies"):
        bennies.benny_spend(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=1)
    roll.refresh_from_db()
    assert roll.public["amended"]["result"]["bennies"] == 1  # the refused spend left no mark
    assert len(events("benny")) == 1


@pytest.mark.django_db
def test_bennies_go_on_the_latest_roll_played_in_the_open():
    table, hero, _ = conductor_table()
    blind = attack(table, hero, 2, 2, mode="blind")
    with pytest.raises(ValidationError, match="reveal this roll first"):
        bennies.benny_spend(scene=table.scene, actor=table.alice, seq=blind.seq, die_index=0)
    actions.roll_reveal(scene=table.scene, actor=table.gm, seq=blind.seq)
    older = attack(table, hero, 3, 3)
    attack(table, hero, 4, 4)
    with pytest.raises(ValidationError, match="has rolled since"):
        bennies.benny_spend(scene=table.scene, actor=table.alice, seq=older.seq, die_index=0)
    dice_box = actions.roll_make(
        scene=table.scene, actor=table.alice, roll_kind="expression", data={"expression": "1d6"}
    )
    with pytest.raises(ValidationError, match="standard and attack"):
        bennies.benny_spend(scene=table.scene, actor=table.alice, seq=dice_box.seq)


# --- the foe strikes back ---


@pytest.mark.django_db
def test_a_miss_without_bennies_makes_the_foe_strike_back_at_once():
    table, hero, troll = conductor_table(bennies=0)
    # Mira's 2d6 vs the troll's 5 miss; the troll (skill 2: 3d6) against Mira's difficulty 3.
    roll = attack(table, hero, 1, 2, 3, 1, 6, 2, foe=troll)
    assert roll.public["result"]["difficulty"] == 5
    [answer] = list(SceneEvent.objects.filter(parent=roll))
    assert answer.public["roll_kind"] == "conductor_foe_attack"
    result = answer.public["result"]
    assert [d["value"] for d in result["dice"]] == [3, 1, 6, 2]  # the 6 exploded into a 2
    assert result["difficulty"] == 3 and result["hits"] == 2
    hero.refresh_from_db()
    assert hero.hits == 2
    roll.refresh_from_db()
    assert roll.public["strike_back"]["status"] == "struck"


@pytest.mark.django_db
def test_with_bennies_the_strike_back_waits_and_a_benny_hit_averts_it():
    table, hero, troll = conductor_table(bennies=1)
    roll = attack(table, hero, 4, 1, foe=troll)
    assert roll.public["strike_back"]["status"] == "pending"
    assert SceneEvent.objects.filter(parent=roll).count() == 0
    bennies.benny_spend(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=0)
    roll.refresh_from_db()
    assert roll.public["amended"]["result"]["hits"] == 1
    assert roll.public["strike_back"]["status"] == "averted"
    with pytest.raises(ValidationError, match="No foe is waiting"):
        strike_back.strike_back_accept(scene=table.scene, actor=table.alice, seq=roll.seq)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["gm", "blind"])
def test_a_hidden_miss_holds_the_strike_back_until_the_reveal(mode):
    # Before the fix a hidden miss made the troll strike back at once, in the open: a second
    # card for everyone and Mira's hits on the party panel told the table the roll missed.
    table, hero, troll = conductor_table(bennies=0)
    roll = attack(table, hero, 1, 2, foe=troll, mode=mode)
    assert roll.secret["result"]["foe_strikes_back"] is True
    assert "strike_back" not in roll.public
    assert roll.secret["foe_id"] == troll.pk  # committed with the roll, for the reveal
    assert not SceneEvent.objects.filter(parent=roll).exists()
    assert SceneEvent.objects.filter(kind="roll").count() == 1
    hero.refresh_from_db()
    assert hero.hits == 0
    # The GM reveals: now the troll strikes back (3d6 vs Mira's 3: a 3 and a 4 hit).
    actions.roll_reveal(scene=table.scene, actor=table.gm, seq=roll.seq, rng=Faces(3, 1, 4))
    answer = SceneEvent.objects.get(parent=roll, kind="roll")
    assert answer.audience == "everyone" and answer.public["result"]["hits"] == 2
    hero.refresh_from_db()
    assert hero.hits == 2
    roll.refresh_from_db()
    assert roll.public["strike_back"]["status"] == "struck"


@pytest.mark.django_db
def test_a_revealed_miss_with_bennies_waits_for_the_roller():
    table, hero, troll = conductor_table(bennies=1)
    roll = attack(table, hero, 1, 2, foe=troll, mode="gm")
    actions.roll_reveal(scene=table.scene, actor=table.gm, seq=roll.seq)
    roll.refresh_from_db()
    assert roll.public["strike_back"]["status"] == "pending"
    assert not SceneEvent.objects.filter(parent=roll, kind="roll").exists()
    # A benny on the 2 (to 3) misses the troll's 5 still; Mira lets the troll strike.
    strike_back.strike_back_accept(
        scene=table.scene, actor=table.alice, seq=roll.seq, rng=Faces(1, 1, 1)
    )
    roll.refresh_from_db()
    assert roll.public["strike_back"]["status"] == "struck"


@pytest.mark.django_db
def test_a_self_roll_is_not_made_against_a_foe():
    table, hero, troll = conductor_table()
    with pytest.raises(ValidationError, match="self roll changes nothing"):
        attack(table, hero, 1, 2, foe=troll, mode="self")
    assert not SceneEvent.objects.filter(kind="roll").exists()


@pytest.mark.django_db
def test_the_roller_or_the_gm_lets_a_waiting_foe_strike():
    table, hero, troll = conductor_table(bennies=1)
    roll = attack(table, hero, 2, 1, foe=troll)
    with pytest.raises(PermissionDenied):
        strike_back.strike_back_accept(scene=table.scene, actor=table.bob, seq=roll.seq)
    strike_back.strike_back_accept(
        scene=table.scene, actor=table.alice, seq=roll.seq, rng=Faces(1, 1, 1)
    )
    roll.refresh_from_db()
    assert roll.public["strike_back"]["status"] == "struck"
    with pytest.raises(ValidationError, match="already struck back"):
        bennies.benny_spend(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=0)
    hero.refresh_from_db()
    assert hero.hits == 0 and hero.bennies == 1


# --- GM awards ---


@pytest.mark.django_db
def test_gm_awards_and_takes_back_live():
    table, hero, _ = conductor_table(bennies=0)
    event = actions.currency_adjust(
        scene=table.scene, actor=table.gm, character=hero, field="bennies", amount=2
    )
    hero.refresh_from_db()
    assert hero.bennies == 2 and event.public["text"] == "gave 2 bennies"
    with pytest.raises(PermissionDenied):
        actions.currency_adjust(
            scene=table.scene, actor=table.alice, character=hero, field="bennies", amount=1
        )
    with pytest.raises(ValidationError, match="below zero"):
        actions.currency_adjust(
            scene=table.scene, actor=table.gm, character=hero, field="bennies", amount=-3
        )
    with pytest.raises(ValidationError, match="no plot points"):
        actions.currency_adjust(
            scene=table.scene, actor=table.gm, character=hero, field="plot_points", amount=1
        )
    hero.refresh_from_db()
    assert hero.bennies == 2 and len(events("award")) == 1


@pytest.mark.django_db
def test_an_award_of_plot_points_raises_the_total_too():
    table, ann, _ = percentile_table(points=1)
    actions.currency_adjust(
        scene=table.scene, actor=table.gm, character=ann, field="plot_points", amount=2
    )
    ann.refresh_from_db()
    assert (ann.plot_points, ann.plot_points_total) == (3, 3)


# --- plot points ---


def maneuver(table, character, *faces, actor=None):
    return actions.roll_make(
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
    table, ann, _ = percentile_table()
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
    table, ann, _ = percentile_table()
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
    table, ann, _ = percentile_table()
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
    table, ann, ben = percentile_table(points=1)
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
    table, ann, ben = percentile_table(points=2)
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
        plot_points.plot_spend_cancel(
            scene=table.scene, actor=table.alice, seq=spend.seq, character=ann
        )
    cancel = plot_points.plot_spend_cancel(
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
        plot_points.plot_spend_cancel(
            scene=table.scene, actor=table.bob, seq=spend.seq, character=ben
        )


@pytest.mark.django_db
def test_a_cancel_after_the_window_is_refused():
    table, ann, ben = percentile_table()
    spend = plot_points.plot_spend(
        scene=table.scene, actor=table.alice, character=ann, use="lessen_wound"
    )
    with pytest.raises(ValidationError, match="Too late"):
        plot_points.plot_spend_cancel(
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
    table, ann, _ = percentile_table()
    clue = plot_points.plot_spend(
        scene=table.scene, actor=table.alice, character=ann, use="clue", note="Who hired them?"
    )
    ann.refresh_from_db()
    assert clue.public["status"] == "awaiting_gm" and ann.plot_points == 3  # nothing paid yet
    with pytest.raises(PermissionDenied):
        plot_points.plot_spend_decide(
            scene=table.scene, actor=table.alice, seq=clue.seq, approve=True
        )
    plot_points.plot_spend_decide(
        scene=table.scene, actor=table.gm, seq=clue.seq, approve=True, cost=2
    )
    ann.refresh_from_db()
    clue.refresh_from_db()
    assert ann.plot_points == 1 and clue.public["status"] == "open" and clue.public["points"] == 2
    with pytest.raises(ValidationError, match="not waiting for the GM"):
        plot_points.plot_spend_decide(
            scene=table.scene, actor=table.gm, seq=clue.seq, approve=False
        )
    weakness = plot_points.plot_spend(
        scene=table.scene, actor=table.alice, character=ann, use="ignore_weakness"
    )
    with pytest.raises(ValidationError, match="fixed cost"):
        plot_points.plot_spend_decide(
            scene=table.scene, actor=table.gm, seq=weakness.seq, approve=True, cost=3
        )
    plot_points.plot_spend_decide(
        scene=table.scene, actor=table.gm, seq=weakness.seq, approve=False
    )
    weakness.refresh_from_db()
    ann.refresh_from_db()
    assert weakness.public["status"] == "denied" and ann.plot_points == 1
    assert actions.settle_due(scene_id=table.scene.pk, now=timezone.now() + LATER) == 1
    clue.refresh_from_db()
    assert clue.public["status"] == "applied"


# --- over the sockets ---


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_benny_spend_updates_the_card_and_the_party_for_everyone(monkeypatch):
    table, hero, _ = await sync_to_async(conductor_table)()
    gm = await connect(table.gm, table.scene)
    alice = await connect(table.alice, table.scene)
    bob = await connect(table.bob, table.scene)
    script_dice(monkeypatch, Faces(5, 1, 5))  # the roll, then the benny's explosion
    await alice.send(
        command="roll",
        roll_kind="conductor_attack",
        character=hero.pk,
        skill_name="Acrobatics",
        difficulty="4",
    )
    for socket in (gm, alice, bob):
        await socket.drain()
    roll = await SceneEvent.objects.aget(kind="roll")
    for socket in (gm, alice, bob):
        socket.frames.clear()
    await alice.send(command="benny", seq=roll.seq, die="0")
    for socket in (gm, alice, bob):
        await socket.drain()
        text = html.unescape(socket.everything())
        assert f'<article id="event-{roll.seq}" hx-swap-oob="outerHTML"' in text
        assert "2 hits" in text and "alice: benny +1 on die 1" in text
        assert 'id="party"' in text and '<td data-field="bennies">1</td>' in text
    assert 'id="gm-dashboard"' in gm.everything()
    assert "gm-dashboard" not in alice.everything() + bob.everything()
    for socket in (gm, alice, bob):
        await socket.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_hidden_results_reach_the_gm_dashboard_only():
    table, hero, _ = await sync_to_async(conductor_table)()
    gm = await connect(table.gm, table.scene)
    bob = await connect(table.bob, table.scene)
    await gm.send(command="roll", roll_kind="expression", expression="1d1000+424242", mode="secret")
    await gm.drain()
    await bob.drain()
    event = await SceneEvent.objects.aget(kind="roll")
    total = str(event.secret["result"]["total"])
    dashboard = gm.everything().split('id="gm-dashboard"')[-1]
    assert total in dashboard and "Hidden results" in dashboard
    assert total not in bob.everything() and "424242" not in bob.everything()
    await gm.close()
    await bob.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("close_db_after")
async def test_a_spend_settles_when_its_window_closes_and_everyone_sees_it():
    table, ann, ben = await sync_to_async(percentile_table)()
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
    table, ann, ben = await sync_to_async(percentile_table)()
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
