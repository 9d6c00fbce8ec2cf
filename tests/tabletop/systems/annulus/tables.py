"""The annulus table the tests play at: Mira (Finesse 2, Force 1) and Dorrin (no training)."""

from __future__ import annotations

from tabletop.characters.models import Character
from tests.support.tables import make_table


def annulus_table():
    table = make_table(system="annulus")
    mira = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        training_perks={"Finesse": 2, "Force": 1},
    )
    dorrin = Character.objects.create(
        campaign=table.campaign, owner=table.bob, name="Dorrin", training_perks={}
    )
    return table, mira, dorrin
