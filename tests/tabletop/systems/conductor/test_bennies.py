"""Bennies on conductor rolls: +1 on a standard roll, a pushed attack die that may explode, the
refusals, and only on the latest roll played in the open. Actions first, then the sockets."""

from __future__ import annotations

import html
import re

import pytest
from asgiref.sync import sync_to_async
from django.core.exceptions import PermissionDenied, ValidationError

from rules import conductor
from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer
from tabletop.scenes.models import SceneEvent, roll_data
from tabletop.scenes.render import render_card
from tabletop.systems.conductor import bennies
from tests.support.dice import Faces, script_dice
from tests.tabletop.scenes.conftest import connect, events
from tests.tabletop.systems.conductor.tables import attack, conductor_table, standard


@pytest.mark.django_db
def test_a_benny_adds_one_to_a_standard_roll_and_is_spent():
    table, hero, _ = conductor_table()
    roll = standard(table, hero, 7, difficulty="8")  # 7 + 1 = 8: not over 8
    assert roll.public["outcome"] == "failure"
    spend = bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq)
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
    bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=0, rng=Faces(4))
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
        bennies.benny(scene=table.scene, actor=table.bob, seq=roll.seq, die_index=0)
    with pytest.raises(ValidationError, match="Pick the die"):
        bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq)
    with pytest.raises(ValidationError, match="die to push"):
        bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=7)
    with pytest.raises(ValidationError, match="no such roll"):
        bennies.benny(scene=table.scene, actor=table.alice, seq=999, die_index=0)
    hero.refresh_from_db()
    assert hero.bennies == 1 and events("benny") == []
    bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=1)
    with pytest.raises(ValidationError, match="has 0 bennies"):
        bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=1)
    roll.refresh_from_db()
    assert roll.public["amended"]["result"]["bennies"] == 1  # the refused spend left no mark
    assert len(events("benny")) == 1


@pytest.mark.django_db
def test_bennies_go_on_the_latest_roll_played_in_the_open():
    table, hero, _ = conductor_table()
    blind = attack(table, hero, 2, 2, mode="blind")
    with pytest.raises(ValidationError, match="reveal this roll first"):
        bennies.benny(scene=table.scene, actor=table.alice, seq=blind.seq, die_index=0)
    actions.reveal(scene=table.scene, actor=table.gm, seq=blind.seq)
    older = attack(table, hero, 3, 3)
    attack(table, hero, 4, 4)
    with pytest.raises(ValidationError, match="has rolled since"):
        bennies.benny(scene=table.scene, actor=table.alice, seq=older.seq, die_index=0)
    dice_box = actions.roll(
        scene=table.scene, actor=table.alice, roll_kind="expression", data={"expression": "1d6"}
    )
    with pytest.raises(ValidationError, match="standard and attack"):
        bennies.benny(scene=table.scene, actor=table.alice, seq=dice_box.seq)


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
        assert f'<article id="event-{roll.seq}" hx-swap-oob="morph"' in text
        assert "2 hits" in text and "alice: benny +1 on die 1" in text
        assert 'id="party"' in text
        cell = r'<td data-field="bennies"><span id="party-\d+-bennies">1</span></td>'
        assert re.search(cell, text)
    assert 'id="gm-dashboard"' in gm.everything()
    assert "gm-dashboard" not in alice.everything() + bob.everything()
    for socket in (gm, alice, bob):
        await socket.close()


@pytest.mark.django_db
def test_benny_buttons_only_where_a_benny_can_change_the_outcome_and_say_how_many():
    # (A snag from issue 15.) A standard roll that failed offers "+1" with how many bennies
    # would make it; one that succeeded offers nothing. An attack offers a button per die that
    # can still hit (or explode), each saying how many bennies that would take.
    table, hero, _ = conductor_table()
    data = {"skill_name": "Acrobatics", "difficulty": 7}

    def standard(face):
        roll = actions.roll(
            scene=table.scene,
            actor=table.alice,
            roll_kind="conductor_standard",
            character=hero,
            data=data,
            rng=Faces(face),
        )
        return bennies.card_controls(roll, roll_data(roll))

    failed = standard(5)  # 5 + skill 1 = 6, not over 7: 2 bennies would make it (Mira has 2)
    assert [(o["die"], o["text"], o["note"]) for o in failed["benny_offers"]] == [
        (None, "Spend a benny: +1", "2 to succeed")
    ]
    # 3 + 1 = 4 would take 4 bennies: beyond Mira's 2, which the offer says (test below).
    assert [o["note"] for o in standard(3)["benny_offers"]] == ["4 to succeed; Mira has 2"]
    assert "benny_offers" not in standard(9) and "benny_for" not in standard(9)

    attack_roll = attack(table, hero, 2, 6, 4)  # vs 4: a 2 (miss), a 6 (hit, explodes into 4)
    offers = bennies.card_controls(attack_roll, roll_data(attack_roll))["benny_offers"]
    assert [(o["die"], o["text"], o["note"]) for o in offers] == [
        (0, "+1 on 2", "2 to hit"),
        (2, "+1 on 4", "2 to explode"),
    ]


@pytest.mark.django_db
def test_the_card_says_what_is_within_the_characters_reach():
    # "4 bennies would make it" on a card whose character has 3 read as if she could: a count
    # beyond the purse is said against it, and never offered as if it could be spent.
    table, hero, _ = conductor_table(bennies=2)
    far = standard(table, hero, 3, difficulty="7")  # 3 + 1 = 4: 4 bennies would make it
    assert far.public["summary"] == "Failure (4 vs 7) — 4 bennies would make it; Mira has 2"
    [offer] = bennies.card_controls(far, roll_data(far))["benny_offers"]
    assert offer["note"] == "4 to succeed; Mira has 2" and not offer["reaches"]
    # What one benny and what all she has would do; not what 4 would.
    assert offer["effects"] == [
        "1 benny: still a failure (4 → 5 vs 7)",
        "2 bennies: still a failure (4 → 6 vs 7)",
    ]
    near = standard(table, hero, 5, difficulty="7")  # 6: 2 bennies, and she has 2
    assert near.public["summary"] == "Failure (6 vs 7) — 2 bennies would make it"
    [offer] = bennies.card_controls(near, roll_data(near))["benny_offers"]
    assert offer["note"] == "2 to succeed" and offer["reaches"]
    assert offer["effects"][-1] == "2 bennies: failure → success (6 → 8 vs 7)"
    # After a spend the amended card counts what is left.
    far = standard(table, hero, 2, difficulty="7")  # 3: 5 bennies would make it
    bennies.benny(scene=table.scene, actor=table.alice, seq=far.seq)
    far.refresh_from_db()
    assert far.public["amended"]["summary"] == (
        "Failure (4 vs 7) — 4 bennies would make it; Mira has 1"
    )
    bennies.benny(scene=table.scene, actor=table.alice, seq=far.seq)
    far.refresh_from_db()
    assert far.public["amended"]["summary"].endswith("3 bennies would make it; Mira has none")
    # With none left, nothing is offered (the spend would be refused).
    assert "benny_offers" not in bennies.card_controls(far, roll_data(far))


@pytest.mark.django_db
def test_attack_dice_say_what_is_within_reach():
    table, hero, troll = conductor_table(bennies=1)
    roll = attack(table, hero, 2, 5)  # vs 4: the 2 needs 2 bennies to hit, the 5 one to explode
    offers = bennies.card_controls(roll, roll_data(roll))["benny_offers"]
    assert [(o["die"], o["note"], o["reaches"]) for o in offers] == [
        (0, "2 to hit; Mira has 1", False),
        (1, "1 to explode", True),
    ]
    assert offers[0]["effects"] == ["1 benny on die 1 (2 → 3): still 1 hit"]  # the 5 hits
    # A miss no benny within reach can mend (a 1 and a 2: 3 and 2 to hit, one benny) says so,
    # not "spend bennies".
    miss = attack(table, hero, 1, 2, foe=troll)
    roll = SceneEvent.objects.get(pk=miss.pk)
    controls = bennies.card_controls(roll, roll_data(roll))
    assert controls["miss"][0] == "pending" and not controls["benny_reaches"]
    card = html.unescape(render_card(roll, "full", Viewer(table.alice.pk, False), live=True))
    assert "No hit, and the bennies within reach cannot make one" in card
    assert "spend bennies" not in card
