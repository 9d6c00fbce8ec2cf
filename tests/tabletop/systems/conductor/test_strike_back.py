"""The foe strikes back at a conductor attack that misses: at once without bennies, after the
roller's choice with them, and a hidden miss holds it until the reveal."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from tabletop.scenes import actions
from tabletop.scenes.models import SceneEvent
from tabletop.systems.conductor import bennies, strike_back
from tests.support.dice import Faces
from tests.tabletop.systems.conductor.tables import attack, conductor_table
from tests.tabletop.systems.conductor.test_roll_cards import card


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
    bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=0)
    roll.refresh_from_db()
    assert roll.public["amended"]["result"]["hits"] == 1
    assert roll.public["strike_back"]["status"] == "averted"
    with pytest.raises(ValidationError, match="No foe is waiting"):
        strike_back.strike_back(scene=table.scene, actor=table.alice, seq=roll.seq)


@pytest.mark.django_db
@pytest.mark.parametrize("mode", ["gm", "blind"])
def test_a_hidden_miss_holds_the_strike_back_until_the_reveal(mode):
    # Before the fix a hidden miss made the troll strike back at once, in the open: a second
    # card for everyone and Mira's hits on the Party tool told the table the roll missed.
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
    actions.reveal(scene=table.scene, actor=table.gm, seq=roll.seq, rng=Faces(3, 1, 4))
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
    actions.reveal(scene=table.scene, actor=table.gm, seq=roll.seq)
    roll.refresh_from_db()
    assert roll.public["strike_back"]["status"] == "pending"
    assert not SceneEvent.objects.filter(parent=roll, kind="roll").exists()
    # A benny on the 2 (to 3) misses the troll's 5 still; Mira lets the troll strike.
    strike_back.strike_back(scene=table.scene, actor=table.alice, seq=roll.seq, rng=Faces(1, 1, 1))
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
        strike_back.strike_back(scene=table.scene, actor=table.bob, seq=roll.seq)
    strike_back.strike_back(scene=table.scene, actor=table.alice, seq=roll.seq, rng=Faces(1, 1, 1))
    roll.refresh_from_db()
    assert roll.public["strike_back"]["status"] == "struck"
    with pytest.raises(ValidationError, match="already struck back"):
        bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=0)
    hero.refresh_from_db()
    assert hero.hits == 0 and hero.bennies == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("troll_faces", "badge"),
    [
        ((3, 1, 6, 2), '<span class="outcome-badge tone-bad">Mira is hit</span>'),
        ((1, 1, 1), '<span class="outcome-badge tone-good">Cave troll misses</span>'),
    ],
)
def test_the_strike_back_card_reads_as_the_foe_s_hit_on_the_character(troll_faces, badge):
    # Issue 42: a red "Failure" over "1 hit on Kestrel" read as the player's failure.
    table, hero, troll = conductor_table(bennies=0)
    roll = attack(table, hero, 1, 2, *troll_faces, foe=troll)  # Mira misses: the troll answers
    [answer] = list(SceneEvent.objects.filter(parent=roll))
    html = card(table, answer)
    assert badge in html
    assert ">Failure<" not in html and ">Success<" not in html
