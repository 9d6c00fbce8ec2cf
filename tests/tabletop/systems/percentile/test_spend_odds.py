"""Spend odds on a percentile roll card (issue 16): the plot point change says exactly what
each cost buys on this roll (the band of every new value, the odds of a value that rolls on), in
the text and in the Spend button's accessible name; never on a stub or a hidden roll."""

from __future__ import annotations

import html
import re

import pytest

from tabletop.scenes import actions
from tabletop.scenes.audiences import FULL, STUB, Viewer
from tabletop.scenes.models import SceneEvent
from tabletop.scenes.render import render_card
from tests.support.dice import Faces
from tests.tabletop.systems.percentile.tables import plot_point_table

pytestmark = pytest.mark.django_db


def seen(event: SceneEvent, viewer: Viewer, vis=FULL) -> str:
    event = SceneEvent.objects.select_related("scene__campaign", "character").get(pk=event.pk)
    return html.unescape(render_card(event, vis, viewer, live=False))


def maneuver(table, character, face, mode="public"):
    return actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="percentile",
        character=character,
        mode=mode,
        data={"skill": "Climb"},
        rng=Faces(face),
    )


def test_the_change_offer_says_what_each_cost_buys():
    table, ann, _ = plot_point_table()
    roll = maneuver(table, ann, 12)  # Climb 30: 12 + 30 = 42, a Failure
    text = seen(roll, Viewer(user_id=table.bob.pk, is_gm=False))
    # New value v lands on v + 30: 6-50 Failure (up to 80), 81-90 Partial, 91-100 Near,
    # 101-110 Unrelated, 111+ Success. At 100 it rolls on: 130 + U is always 131 or more.
    assert "1 plot point: Failure (42) → Success or better with 81–95" in text
    assert (
        "New roll 6 to 95: 6–50 Failure, 51–60 Partial Success, 61–70 Near Success, "
        "71–80 Unrelated Success, 81–95 Success" in text
    )
    assert "2 plot points: Failure (42) → Success or better with 81–95; 100 rolls on and adds:" in (
        text
    )
    assert "(Success or better 100%)" in text
    assert "1 rolls on and subtracts: Extraordinary Failure" in text
    label = re.search(r'aria-label="(Spend plot points on roll #\d+: [^"]+)"', text).group(1)
    assert "1 plot point: Failure (42) to Success or better with 81 to 95" in label
    assert "→" not in label


def test_a_hidden_roll_shows_no_change_odds():
    table, ann, _ = plot_point_table()
    roll = maneuver(table, ann, 12, mode="blind")
    bob = Viewer(user_id=table.bob.pk, is_gm=False)
    assert "plot point" not in seen(roll, bob, vis=STUB).lower()
    assert "spend-odds" not in seen(roll, Viewer(user_id=table.gm.pk, is_gm=True))
    actions.reveal(scene=table.scene, actor=table.gm, seq=roll.seq)
    assert "spend-odds" in seen(roll, bob)
