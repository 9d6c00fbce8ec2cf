"""A card addressed to its viewer (issue 47): a turn handed to them or a line that mentions them
is marked for them alone (``data-for-me``; the screen reader's "mine" hears it), and the turn's
line for the ear says "Your turn" to them first."""

from __future__ import annotations

import pytest

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tabletop.scenes.audiences import Viewer, visibility
from tabletop.scenes.render import Renders, render_card
from tests.support.tables import make_table


@pytest.fixture
def table(db):
    return make_table()


def card(event, user, *, is_gm=False, renders=None):
    viewer = Viewer(user.pk, is_gm)
    vis = visibility(event, viewer)
    if renders is not None:
        return renders.card(event, vis, viewer, live=True)
    return render_card(event, vis, viewer, live=True)


def test_the_turn_is_marked_for_whom_it_is_handed_and_says_your_turn_to_them(table):
    mira = Character.objects.create(campaign=table.campaign, owner=table.alice, name="Mira")
    troll = Character.objects.create(campaign=table.campaign, owner=table.gm, name="Troll")
    event = actions.turns_start(
        scene=table.scene, actor=table.gm, lineup=[(mira, "Heroes"), (troll, "Foes")]
    )
    renders = Renders(table.scene)  # one broadcast: the card is not shared across the line
    alices = card(event, table.alice, renders=renders)
    bobs = card(event, table.bob, renders=renders)
    gms = card(event, table.gm, is_gm=True, renders=renders)
    assert "data-for-me" in alices and '<p class="spoken" hidden>Your turn. ' in alices
    assert "data-for-me" not in bobs and "Your turn" not in bobs
    assert "data-for-me" not in gms and "Your turn" not in gms


def test_a_line_is_marked_for_the_member_it_mentions_whisper_or_not(table):
    said = actions.chat(scene=table.scene, actor=table.bob, text="@alice behind you", to=[])
    assert "data-for-me" in card(said, table.alice)
    assert "data-for-me" not in card(said, table.gm, is_gm=True)
    whispered = actions.chat(
        scene=table.scene, actor=table.gm, text="@alice look", to=[table.alice.pk, table.bob.pk]
    )
    assert "data-for-me" in card(whispered, table.alice)
    assert "data-for-me" not in card(whispered, table.bob)
