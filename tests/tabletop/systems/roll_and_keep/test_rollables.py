"""The roll_and_keep sheet's rollables (the Sheet tool's buttons): each attribute, and each
speciality with its attribute, with the dice kept by the character's mana. The seed's worked
example (Black 3, Blue 2) must come out: lie (Cunning + Deceit) keeps 4, enchantment text
(Intelligence) keeps 2, resist fire (Endurance + Elemental Damage) keeps 2, staff strike
(Strength) keeps 1."""

from __future__ import annotations

from rules import roll_and_keep
from tabletop.systems.roll_and_keep.models import RollAndKeepSheet
from tabletop.systems.roll_and_keep.rollables import rollables


def _seed_example() -> RollAndKeepSheet:
    return RollAndKeepSheet(
        name="Sable",
        attributes={"Cunning": 4, "Intelligence": 3, "Strength": 2, "Endurance": 3, "Charisma": 0},
        mana={"Black": 3, "Blue": 2},
        specialities=[
            {"name": "Deceit", "attribute": "Cunning"},
            {"name": "Elemental Damage", "attribute": "Endurance"},
        ],
    )


def test_attributes_and_specialities_with_the_dice_their_mana_keeps():
    found = rollables(_seed_example(), roll_and_keep.validate_ruleset(None))
    rows = [(r.section, r.name, r.note) for r in found]
    # Attributes at 0 have no dice to roll: no button (Charisma and the unlisted ones).
    assert rows == [
        ("Attributes", "Roll Cunning (4)", "roll 4, keep 3"),
        ("Attributes", "Roll Intelligence (3)", "roll 3, keep 2"),
        ("Attributes", "Roll Strength (2)", "roll 2, keep 1"),
        ("Attributes", "Roll Endurance (3)", "roll 3, keep 1"),
        ("Specialities", "Roll Deceit (5)", "Cunning 4 + 1: roll 5, keep 4"),
        ("Specialities", "Roll Elemental Damage (4)", "Endurance 3 + 1: roll 4, keep 2"),
    ]
    assert {r.roll_kind for r in found} == {"roll_and_keep"}
    assert found[0].fields == {"attribute": "Cunning"}
    # The speciality's box on the roll form is ticked (and, by the Sheet tool, every other
    # unticked).
    assert found[4].fields == {"attribute": "Cunning", "speciality:Deceit": "on"}
