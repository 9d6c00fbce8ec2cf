"""The conductor sheet's rollables (the Sheet tool's buttons): each skill as a standard roll
(d12 + skill) and as an attack ((1 + skill) d6), a specified skill counting +1, and the Healing
and Poison skills' own rolls (seed 002)."""

from __future__ import annotations

from rules import conductor
from tabletop.systems.conductor.models import ConductorSheet
from tabletop.systems.conductor.rollables import rollables


def _mira() -> ConductorSheet:
    return ConductorSheet(
        name="Mira",
        skills=[
            {"name": "Weapon", "specialisation": "Sword", "value": 2},
            {"name": "Survival", "specialisation": "", "value": 3},
            {"name": "Healing", "specialisation": "", "value": 1},
            # Left from before the campaign said Weapon must be specified: its roll refuses it.
            {"name": "Weapon", "specialisation": "", "value": 4},
        ],
    )


def test_each_skill_as_a_standard_roll_and_an_attack():
    found = rollables(_mira(), conductor.validate_ruleset(None))
    rows = [(r.section, r.name, r.roll_kind, dict(r.fields), r.note) for r in found]
    assert rows == [
        (
            "Skills",
            "Roll Weapon (Sword) (3)",
            "conductor_standard",
            {"skill_name": "Weapon (Sword)"},
            "d12 + 2, +1 specified",
        ),
        (
            "Skills",
            "Roll Survival (3)",
            "conductor_standard",
            {"skill_name": "Survival"},
            "d12 + skill",
        ),
        (
            "Skills",
            "Roll Healing (1)",
            "conductor_standard",
            {"skill_name": "Healing"},
            "d12 + skill",
        ),
        (
            "Attacks",
            "Attack with Weapon (Sword) (4d6)",
            "conductor_attack",
            {"skill_name": "Weapon (Sword)"},
            "",
        ),
        (
            "Attacks",
            "Attack with Survival (4d6)",
            "conductor_attack",
            {"skill_name": "Survival"},
            "",
        ),
        ("Attacks", "Attack with Healing (2d6)", "conductor_attack", {"skill_name": "Healing"}, ""),
        ("Healing and poison", "Heal with Healing (2d6)", "conductor_heal", {}, ""),
    ]


def test_poison_has_its_roll_and_a_sheet_without_skills_has_none():
    brewer = ConductorSheet(name="Brannoc", skills=[{"name": "Poison", "value": 2}])
    found = rollables(brewer, conductor.validate_ruleset(None))
    assert [r.name for r in found] == [
        "Roll Poison (2)",
        "Attack with Poison (3d6)",
        "Brew with Poison (3d6)",
    ]
    assert found[-1].roll_kind == "conductor_poison"
    nobody = ConductorSheet(name="Nobody", skills=[])
    assert rollables(nobody, conductor.validate_ruleset(None)) == []
