"""The two_dice sheet's rollables (the Sheet tool's buttons): a check (2d6 + attribute) for each
attribute, its cost paid from the linked resource with more points left (seed 003, the links
of RULES-NOTES: Health (Might, Agility), Stamina (Agility, Wits), Focus (Wits, Presence),
Resolve (Presence, Might))."""

from __future__ import annotations

from rules import two_dice
from tabletop.systems.two_dice.models import TwoDiceSheet
from tabletop.systems.two_dice.rollables import rollables


def _tamsin(**current: int) -> TwoDiceSheet:
    points = {"Health": 5, "Stamina": 6, "Focus": 5, "Resolve": 3, **current}
    return TwoDiceSheet(
        name="Tamsin",
        attributes={"Might": 5, "Agility": 8, "Wits": 7, "Presence": -2},
        resources={name: {"current": n, "max": 6} for name, n in points.items()},
    )


def test_a_check_for_each_attribute_paid_from_the_fuller_linked_resource():
    found = rollables(_tamsin(), two_dice.validate_ruleset(None))
    rows = [(r.section, r.name, dict(r.fields), r.note) for r in found]
    assert rows == [
        (
            "Attributes",
            "Roll Might (5)",
            {"attribute": "Might", "resource": "Health"},
            "2d6 + 5, pays from Health",
        ),
        (
            "Attributes",
            "Roll Agility (8)",
            {"attribute": "Agility", "resource": "Stamina"},
            "2d6 + 8, pays from Stamina",
        ),
        (
            "Attributes",
            "Roll Wits (7)",
            {"attribute": "Wits", "resource": "Stamina"},
            "2d6 + 7, pays from Stamina",
        ),
        (
            "Attributes",
            "Roll Presence (-2)",
            {"attribute": "Presence", "resource": "Focus"},
            "2d6 − 2, pays from Focus",
        ),
    ]
    assert {r.roll_kind for r in found} == {"two_dice"}


def test_a_spent_resource_gives_way_to_the_other_and_equals_keep_the_first():
    found = rollables(_tamsin(Stamina=1, Focus=6), two_dice.validate_ruleset(None))
    assert [r.fields["resource"] for r in found] == ["Health", "Health", "Focus", "Focus"]
    found = rollables(_tamsin(Health=3, Resolve=3), two_dice.validate_ruleset(None))
    assert found[0].fields["resource"] == "Health"
