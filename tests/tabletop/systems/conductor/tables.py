"""The conductor tables the tests play at, each on tests.support.tables.make_table:

- ``conductor_table``: Mira (Acrobatics 1, difficulty 3) and the cave troll (difficulty 5,
  Strength 2), for bennies, strike-backs and awards; ``attack`` is Mira's attack roll there;
- ``party_table``: Kestrel and Brannoc, for the wilderness expedition, healing and poison;
- ``roll_form_table``: Mira with Survival and Weapon (Sword), for the roll forms."""

from __future__ import annotations

from tabletop.characters.models import Character
from tabletop.scenes import actions
from tests.support.dice import Faces
from tests.support.tables import make_table, mira_and_troll


def conductor_table(bennies: int = 2):
    table = make_table(system="conductor")
    hero, troll = mira_and_troll(table, bennies=bennies, troll_difficulty=5)
    return table, hero, troll


def standard(table, hero, face, *, difficulty="8", mode="public"):
    """alice's standard roll for ``hero`` (Acrobatics) with the d12 showing ``face``."""
    return actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_standard",
        character=hero,
        mode=mode,
        data={"skill_name": "Acrobatics", "difficulty": difficulty},
        rng=Faces(face),
    )


def attack(table, hero, *faces, foe=None, mode="public"):
    return actions.roll(
        scene=table.scene,
        actor=table.alice,
        roll_kind="conductor_attack",
        character=hero,
        mode=mode,
        data={"skill_name": "Acrobatics", "difficulty": "4"},
        foe=foe,
        rng=Faces(*faces),
    )


def party_table():
    table = make_table(system="conductor")
    kestrel = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Kestrel",
        skills=[{"name": "Survival", "value": 1, "specialisation": ""}],
        bennies=2,
    )
    brannoc = Character.objects.create(
        campaign=table.campaign,
        owner=table.bob,
        name="Brannoc",
        skills=[
            {"name": "Survival", "value": 2, "specialisation": ""},
            {"name": "Healing", "value": 1, "specialisation": ""},
            {"name": "Poison", "value": 2, "specialisation": ""},
        ],
        hits=3,
    )
    return table, kestrel, brannoc


def roll_form_table():
    table = make_table(system="conductor")
    hero = Character.objects.create(
        campaign=table.campaign,
        owner=table.alice,
        name="Mira",
        skills=[
            {"name": "Survival", "value": 3, "specialisation": ""},
            {"name": "Weapon", "value": 2, "specialisation": "Sword"},
        ],
        difficulty=4,
        bennies=2,
    )
    Character.objects.create(
        campaign=table.campaign, owner=table.gm, name="Cave troll", role="foe", difficulty=5
    )
    return table, hero
