"""Spend odds on conductor roll cards (issue 16): each benny button says exactly what it buys,
in its text and its accessible name, and a pushed die that explodes gives the chance of each
count of hits; a roll seen only as a stub offers nothing, so nothing is said about it."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tabletop.scenes import actions
from tabletop.scenes.audiences import FULL, STUB, Viewer
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.render import render_card
from tests.tabletop.systems.conductor.tables import attack, conductor_table, standard

pytestmark = pytest.mark.django_db


class Buttons(HTMLParser):
    """Each button's aria-label and the text of the spend odds beside it."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.labels: list[str] = []
        self.odds: list[str] = []
        self._in_odds = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "button" and attributes.get("aria-label"):
            self.labels.append(attributes["aria-label"])
        if tag == "small" and "spend-odds" in (attributes.get("class") or ""):
            self._in_odds = True
            self.odds.append("")

    def handle_data(self, data):
        if self._in_odds:
            self.odds[-1] += data

    def handle_endtag(self, tag):
        if tag == "small":
            self._in_odds = False


def seen(event: SceneEvent, viewer: Viewer, vis=FULL) -> str:
    event = SceneEvent.objects.select_related("scene__campaign", "character").get(pk=event.pk)
    return render_card(event, vis, viewer, live=False)


def test_a_failed_standard_roll_says_what_one_benny_and_the_needed_bennies_buy():
    table, hero, _ = conductor_table()
    roll = standard(table, hero, 7, difficulty="9")  # 7 + 1 = 8, not over 9: two bennies make 10
    card = Buttons(seen(roll, Viewer(user_id=table.alice.pk, is_gm=False)))
    assert card.odds == [
        "1 benny: still a failure (8 → 9 vs 9)2 bennies: failure → success (8 → 10 vs 9)"
    ]
    assert card.labels == [
        "Spend a benny: +1 (2 to succeed): spend a benny. 1 benny: still a failure (8 to 9 vs 9);"
        " 2 bennies: failure to success (8 to 10 vs 9)"
    ]


def test_each_attack_die_says_its_effect_and_an_explosion_its_exact_odds():
    table, hero, _ = conductor_table()
    roll = attack(table, hero, 3, 5)  # skill 1: 2d6 vs 4: a 3 (miss), a 5 (hit)
    card = Buttons(seen(roll, Viewer(user_id=table.bob.pk, is_gm=False)))
    # The 5 pushed to 6 hits (it already did) and explodes: the new d6 misses on 1-3 (1/2),
    # hits on 4-5 (1/3) and on a 6 hits and rolls on: 1/6 * (1/2, 1/3, 1/6 ...).
    assert card.odds == [
        "1 benny on die 1 (3 → 4): 1 hit → 2 hits",
        "1 benny on die 2 (5 → 6, explodes): 1 hit → 1 hit 50.0%, 2 hits 41.7%, 3 hits 6.9%,"
        " 4+ hits 1.4%",
    ]
    assert "+1 on 5 (1 to explode): spend a benny on die 2." in card.labels[1]
    assert "1 hit to 1 hit 50.0%" in card.labels[1]


def test_a_miss_says_the_benny_spares_the_strike_back():
    table, hero, _ = conductor_table(bennies=3)  # the 1 takes 3: both within reach
    roll = attack(table, hero, 2, 1)
    card = Buttons(seen(roll, Viewer(user_id=table.alice.pk, is_gm=False)))
    assert card.odds == [
        "1 benny on die 1 (2 → 3): still no hit2 bennies on die 1 (2 → 4): no hit → 1 hit"
        " (no strike back)",
        "1 benny on die 2 (1 → 2): still no hit3 bennies on die 2 (1 → 4): no hit → 1 hit"
        " (no strike back)",
    ]


def test_a_hidden_roll_says_nothing_until_revealed():
    table, hero, _ = conductor_table()
    roll = attack(table, hero, 3, 5, mode="blind")
    alice = Viewer(user_id=table.alice.pk, is_gm=False)
    stub = seen(roll, alice, vis=STUB)
    assert "spend-odds" not in stub and "benny" not in stub.lower()
    # The GM sees it in full, but no spend is offered on a roll the table has not seen.
    assert "spend-odds" not in seen(roll, Viewer(user_id=table.gm.pk, is_gm=True))
    actions.reveal(scene=table.scene, actor=table.gm, seq=roll.seq)
    assert "spend-odds" in seen(roll, alice)
