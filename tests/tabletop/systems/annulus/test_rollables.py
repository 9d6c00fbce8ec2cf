"""The annulus sheet's rollables (the Sheet tool's buttons): a challenge check and an op check
for each challenge type, each with the character's training-perk dice for that type (seed 000:
three dice for a challenge check, four for the op check, plus the perks)."""

from __future__ import annotations

from rules import annulus
from tabletop.systems.annulus.models import AnnulusSheet
from tabletop.systems.annulus.rollables import rollables


def _mira() -> AnnulusSheet:
    return AnnulusSheet(name="Mira", training_perks={"Knowledge": 2, "Finesse": 1})


def test_a_challenge_and_an_op_check_for_each_type_with_its_training_dice():
    found = rollables(_mira(), annulus.validate_ruleset(None))
    rows = [(r.section, r.label, r.value, r.note) for r in found]
    assert rows == [
        ("Challenge checks", "Knowledge", "+2", "5d6"),
        ("Challenge checks", "Finesse", "+1", "4d6"),
        ("Challenge checks", "Force", "+0", "3d6"),
        ("Challenge checks", "Perception", "+0", "3d6"),
        ("Op checks", "Knowledge", "+2", "6d6"),
        ("Op checks", "Finesse", "+1", "5d6"),
        ("Op checks", "Force", "+0", "4d6"),
        ("Op checks", "Perception", "+0", "4d6"),
    ]
    knowledge = found[0]
    assert knowledge.name == "Challenge check: Knowledge (+2)"
    assert found[4].name == "Op check: Knowledge (+2)"
    assert knowledge.roll_kind == "annulus_check"
    # The second type is cleared: one left from an earlier check could equal the first.
    assert knowledge.fields == {"type_1": "Knowledge", "type_2": "", "check": "challenge"}
    assert found[4].fields["check"] == "op"


def test_the_campaign_s_challenge_types_and_dice():
    ruleset = annulus.validate_ruleset(
        {"challenge_types": ["Knowledge", "Arcana"], "challenge_check_dice": 2}
    )
    found = rollables(AnnulusSheet(name="Mira", training_perks={"Arcana": 3}), ruleset)
    assert [(r.label, r.note) for r in found if r.section == "Challenge checks"] == [
        ("Knowledge", "2d6"),
        ("Arcana", "5d6"),
    ]
