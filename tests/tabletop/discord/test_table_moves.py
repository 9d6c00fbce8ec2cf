"""Every event kind goes to Discord under one of the GM's choices (none is silently left out
of the mirror), and "turns and the game's other moves" carries turns and a system's own moves
as their cards read, never what a viewer with no role may not see (a challenge's layout
while it is set up in secret)."""

from __future__ import annotations

import pytest

from tabletop.characters.models import Character
from tabletop.discord.models import Mirror
from tabletop.scenes import actions, kinds
from tabletop.systems.annulus import actions as challenges
from tests.support.dice import Faces
from tests.tabletop.discord.conftest import deliver, mirror_on
from tests.tabletop.systems.annulus.tables import annulus_table

pytestmark = pytest.mark.django_db(transaction=True)


def texts(fake) -> list[str]:
    return [e["description"] for p in fake.posts() for e in p.body.get("embeds", ())]


def test_every_kind_is_filed_under_a_choice_the_gm_can_make():
    unfiled = sorted(
        name for name, kind in kinds.EVENT_KINDS.items() if kind.mirror not in Mirror.Sends.values
    )
    assert unfiled == []


def test_a_turn_goes_when_the_gm_picks_turns_and_not_otherwise(table, fake):
    mira = Character.objects.create(campaign=table.campaign, owner=table.bob, name="Mira")
    troll = Character.objects.create(campaign=table.campaign, owner=table.gm, name="Troll")
    mirror_on(table, fake, sends=["chat"])
    actions.turns_start(scene=table.scene, actor=table.gm, lineup=[(troll, "Foes")])
    actions.turns_stop(scene=table.scene, actor=table.gm)
    deliver()
    assert texts(fake) == []

    mirror_on(table, fake, sends=["table"])
    actions.turns_start(
        scene=table.scene, actor=table.gm, lineup=[(troll, "Foes"), (mira, "Heroes")]
    )
    deliver()
    (text,) = texts(fake)
    assert "Turns begin" in text and "Mira" in text and "Troll" in text


def test_a_challenge_set_in_secret_goes_only_when_its_layout_is_published(fake):
    table, _mira, _dorrin = annulus_table()
    mirror_on(table, fake, sends=["table"])
    # A mask that hides positions 1 and 3; the dice 11, 7, 9, 5 (the hidden ones a canary each).
    challenges.challenge_setup(
        scene=table.scene,
        actor=table.gm,
        difficulty="easy",
        types=["Finesse"],
        length=4,
        rng=Faces(1, 2, 1, 2, 11, 7, 9, 5),
    )
    deliver()
    assert fake.posts() == []  # set up in secret: the outsider's stub is no table move
    challenges.challenge_call_off(scene=table.scene, actor=table.gm)
    deliver()
    (text,) = texts(fake)
    assert "11" in text and "9" in text  # the layout, published at the end
