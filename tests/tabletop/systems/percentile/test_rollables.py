"""The percentile sheet's rollables (the Sheet tool's buttons): each skill as a maneuver
(open-ended d100 + SV), and running with Quickness, or the Running skill's SV when the sheet has
it (seed 004). The perception roll is the GM's secret roll: not a button of the sheet."""

from __future__ import annotations

from rules import percentile
from tabletop.systems.percentile.models import PercentileSheet
from tabletop.systems.percentile.rollables import rollables


def test_each_skill_as_a_maneuver_and_running_with_quickness():
    # The seed's running example: Quickness -9, Total Penalty -65, MV 26.
    tomalfson = PercentileSheet(
        name="Tomalfson",
        quickness=-9,
        total_penalty=-65,
        mv=26,
        attributes={"Perceptivity": 5},
        skills=[{"name": "Broadsword", "value": 55}, {"name": "Climbing", "value": 20}],
    )
    found = rollables(tomalfson, percentile.validate_ruleset(None))
    rows = [(r.section, r.name, r.roll_kind, dict(r.fields), r.note) for r in found]
    assert rows == [
        ("Skills", "Roll Broadsword (55)", "percentile", {"skill": "Broadsword"}, "d100 + SV"),
        ("Skills", "Roll Climbing (20)", "percentile", {"skill": "Climbing"}, "d100 + SV"),
        (
            "Movement",
            "Roll Running (pace) (-9)",
            "percentile_running",
            {},
            "Quickness, total penalty -65, MV 26",
        ),
    ]


def test_running_uses_the_running_skill_when_the_sheet_has_it():
    ilsa = PercentileSheet(
        name="Ilsa",
        quickness=12,
        total_penalty=-5,
        mv=20,
        skills=[{"name": "Running", "value": 40}],
    )
    found = rollables(ilsa, percentile.validate_ruleset(None))
    assert [(r.section, r.label, r.value) for r in found] == [
        ("Skills", "Running", "40"),
        ("Movement", "Running (pace)", "40"),
    ]
    assert found[-1].note == "Running SV, total penalty -5, MV 20"
