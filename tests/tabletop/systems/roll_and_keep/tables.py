"""The roll_and_keep tables the tests play at, each on tests.support.tables.make_table:

- ``rak_table``: Sable and Orrin, for contests; ``race`` sets up the seed's long-distance race;
- ``roll_form_table``: Sela, for the roll form."""

from __future__ import annotations

from tabletop.characters.models import Character
from tabletop.systems.roll_and_keep import contests as contest_actions
from tests.support.tables import make_table


def rak_table():
    table = make_table(system="roll_and_keep")
    sable = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Sable",
        attributes={"Cunning": 4, "Intelligence": 3, "Endurance": 3, "Finesse": 3, "Acuity": 2},
        mana={"Black": 3, "Blue": 2},
        specialities=[
            {"name": "Deceit", "attribute": "Cunning"},
            {"name": "Artifice", "attribute": "Intelligence"},
            {"name": "Stealth", "attribute": "Finesse"},
        ],
    )
    orrin = Character.objects.create(
        campaign=table.campaign,
        owner=table.bob,
        name="Orrin",
        attributes={"Strength": 4, "Endurance": 5, "Acuity": 7},
        mana={"Red": 3, "Green": 2},
        specialities=[
            {"name": "Long-distance Running", "attribute": "Endurance"},
            {"name": "Keen Ears", "attribute": "Acuity"},
        ],
    )
    return table, sable, orrin


def race(table, sable, orrin):
    """The seed's long-distance race: Endurance 3 against Endurance 5 + a speciality, at 7."""
    return contest_actions.contest_direct(
        scene=table.scene,
        actor=table.gm,
        sides=[
            (sable, "Endurance", []),
            (orrin, "endurance", [f"{orrin.pk}:Long-distance Running"]),
        ],
        difficulty="Challenging",
    )


def roll_form_table():
    table = make_table(system="roll_and_keep")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Sela",
        attributes={"Cunning": 5, "Strength": 2, "Intelligence": 3},
        specialities=[
            {"name": "Deceit", "attribute": "Cunning"},
            {"name": "Lore", "attribute": "Intelligence"},
        ],
        mana={"Black": 3, "Blue": 2},
    )
    return table, hero
