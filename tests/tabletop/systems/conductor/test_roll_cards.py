"""conductor's roll cards: attack dice marked hit or miss, exploded, added by an explosion or
pushed by a benny, and the odds the roller had, which a benny spent later does not change."""

from __future__ import annotations

import re

import pytest

from tabletop.scenes.audiences import Viewer, visibility
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.render import render_card
from tabletop.systems.conductor import bennies
from tests.support.dice import Faces
from tests.tabletop.systems.conductor.tables import attack, conductor_table, standard

pytestmark = pytest.mark.django_db


def card(table, event) -> str:
    event = SceneEvent.objects.select_related("scene__campaign").get(pk=event.pk)
    viewer = Viewer(table.gm.pk, True)
    return render_card(event, visibility(event, viewer), viewer, live=False)


def labels(html: str) -> list[str]:
    return re.findall(r'role="img" aria-label="([^"]*)"', html)


def test_a_benny_pushed_die_is_drawn_raised_and_the_odds_stay_those_before_the_roll():
    table, hero, _ = conductor_table()
    roll = attack(table, hero, 5, 1)  # skill 1: 2d6 vs 4 -> 5 hits, 1 misses
    odds = roll.public["odds"]
    assert odds["goal"] == "to hit"
    assert labels(card(table, roll)) == ["5, hit", "1, miss"]
    bennies.benny(scene=table.scene, actor=table.alice, seq=roll.seq, die_index=0, rng=Faces(4))
    html = card(table, roll)
    # The 5 pushed to 6 explodes into a 4, which hits too.
    assert labels(html) == ["6, hit, exploded, rolled 5 +1 benny", "1, miss", "4, hit, from die 1"]
    assert 'class="die die-d6 exploded benny tone-good"' in html
    assert 'class="die die-d6 extra tone-good"' in html
    assert f"Before the roll: <b>{odds['percent']}</b> to hit" in html


def test_a_standard_roll_draws_its_d12():
    table, hero, _ = conductor_table()
    roll = standard(table, hero, 11, difficulty="8")
    html = card(table, roll)
    assert 'class="die die-d12" role="img" aria-label="11"' in html
    assert '<span class="outcome-badge tone-good">Success</span>' in html
