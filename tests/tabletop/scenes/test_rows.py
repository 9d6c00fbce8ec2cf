"""The rows a command names (tabletop/scenes/rows.py): any character of the campaign, its foe,
the character a member rolls with; each refused with its own words when it is not there, and a
character rolled for by someone other than its player or the GM refused as ``require_player``
refuses, in the roll's own words."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from tabletop.campaigns.models import Campaign
from tabletop.characters.models import Character
from tabletop.scenes.rows import campaign_character, character_for_roll, foe_for
from tests.support.tables import mira_and_troll


@pytest.fixture
def cast(table):
    mira, troll = mira_and_troll(table)
    elsewhere = Campaign.objects.create(name="Elsewhere", system="conductor", gm=table.gm)
    stranger = Character.objects.create(campaign=elsewhere, owner=table.gm, name="Stranger")
    return mira, troll, stranger


def test_any_character_of_the_campaign_by_id(table, cast):
    mira, troll, stranger = cast
    assert campaign_character(table.scene, str(mira.pk)) == mira
    assert campaign_character(table.scene, troll.pk) == troll  # a foe is a character too
    with pytest.raises(ValidationError, match="Pick both characters"):
        campaign_character(table.scene, "", "Pick both characters.")
    with pytest.raises(ValidationError, match=r"Pick a character\. \(a whole number\)"):
        campaign_character(table.scene, "Mira")
    with pytest.raises(ValidationError, match="That character is not in this campaign"):
        campaign_character(table.scene, stranger.pk)


def test_a_foe_of_the_campaign_or_none(table, cast):
    mira, troll, stranger = cast
    assert foe_for(table.scene, "") is None and foe_for(table.scene, None) is None
    assert foe_for(table.scene, str(troll.pk)) == troll
    with pytest.raises(ValidationError, match=r"Pick a foe from the list\. \(a whole number\)"):
        foe_for(table.scene, True)
    for not_a_foe in (mira, stranger):  # a PC of the campaign; a foe's id of another one
        with pytest.raises(ValidationError, match="That foe is not in this campaign"):
            foe_for(table.scene, not_a_foe.pk)


def test_the_character_a_member_rolls_with(table, cast):
    mira, troll, stranger = cast
    scene = table.scene
    assert character_for_roll(scene=scene, actor=table.alice, character_id="") is None
    assert character_for_roll(scene=scene, actor=table.alice, character_id=str(mira.pk)) == mira
    assert character_for_roll(scene=scene, actor=table.gm, character_id=mira.pk) == mira
    assert character_for_roll(scene=scene, actor=table.gm, character_id=troll.pk) == troll
    with pytest.raises(PermissionDenied, match="You can only roll for your own characters"):
        character_for_roll(scene=scene, actor=table.bob, character_id=mira.pk)
    with pytest.raises(ValidationError, match="Pick a character from the list"):
        character_for_roll(scene=scene, actor=table.alice, character_id="Mira")
    with pytest.raises(ValidationError, match="That character is not in this campaign"):
        character_for_roll(scene=scene, actor=table.gm, character_id=stranger.pk)
