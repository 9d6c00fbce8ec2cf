"""percentile's roll cards: the open-ended d100 drawn as tens and units, and Chart 14.1 read out
in words (seed 004: a moving maneuver is "the percentage of the total task the character has
accomplished", a static maneuver succeeds or fails)."""

from __future__ import annotations

import re

import pytest

from rules import percentile
from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer, visibility
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.render import render_card
from tests.support.dice import Faces
from tests.tabletop.systems.percentile.tables import percentile_table

pytestmark = pytest.mark.django_db


def climb(table, tom, *faces):
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="percentile",
        character=tom,
        data={"skill": "Climbing", "column": "Movement"},
        rng=Faces(*faces),
    )
    return event, card(table, event)


def card(table, event) -> str:
    event = SceneEvent.objects.select_related("scene__campaign").get(pk=event.pk)
    viewer = Viewer(table.bob.pk, False)
    return render_card(event, visibility(event, viewer), viewer, live=False)


def words(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_a_moving_and_a_static_reading_are_both_said_in_words():
    table, tom, _ = percentile_table()
    event, html = climb(table, tom, 31)  # 31 + Climbing 20 = 51: MM 30%, SM Failure
    result = event.public["result"]
    assert (result["total"], result["row"]["mm"], result["row"]["band"]) == (51, 30, "failure")
    text = words(html)
    assert "Moving maneuver (MM) running, jumping, throwing 30% of the task done" in text
    assert (
        f"Static maneuver (SM) knowing, using an item Failure : {percentile.BAND_TEXT['failure']}"
        in text
    )
    assert 'aria-label="31"' in html and ">30<" in html and ">1<" in html  # tens and units


def test_a_row_spanning_both_columns_says_so():
    table, tom, _ = percentile_table()
    # 03 rolls again and subtracts 60: -57 + Climbing 20 = -37, an Extraordinary Failure.
    event, html = climb(table, tom, 3, 60)
    assert event.public["result"]["row"]["mm"] is None
    text = words(html)
    assert "MM and SM alike this row spans both columns Extraordinary Failure" in text
    assert "Moving maneuver (MM)" not in text
    assert 'aria-label="3, rolls again"' in html and 'aria-label="60, subtracted"' in html


def test_an_old_maneuver_without_the_band_text_still_names_its_band():
    table, tom, _ = percentile_table()
    event, _ = climb(table, tom, 31)
    del event.public["result"]["band_text"]  # as stored before cards explained the bands
    event.save(update_fields=["public"])
    text = words(card(table, event))
    assert "Static maneuver (SM) knowing, using an item Failure" in text
    assert percentile.BAND_TEXT["failure"] not in text


def test_a_running_card_says_the_percent_is_the_share_of_the_distance():
    table, tom, _ = percentile_table()
    event = actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="percentile_running",
        character=tom,
        data={"pace": "2"},
        rng=Faces(99, 50),
    )
    result = event.public["result"]
    text = words(card(table, event))
    assert f"the {result['percent']}% read on Chart 14.1 is the share of the full distance" in text
    assert f"Before the roll: {event.public['odds']['percent']} to run the full distance" in text
