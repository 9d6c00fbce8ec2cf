"""Each system's sheet is driven by the campaign's effective ruleset."""

from __future__ import annotations

import pytest

from tabletop.characters.models import sheet_model
from tabletop.characters.sheets import currency_stats, sheet_sections, spec_for

pytestmark = pytest.mark.django_db


def test_each_system_has_its_own_sheet(make_campaign):
    annulus = spec_for(make_campaign("annulus"))
    assert annulus.part("training_perks").names == ("Knowledge", "Finesse", "Force", "Perception")
    assert annulus.keys == ("notes", "training_perks")

    rak = spec_for(make_campaign("roll_and_keep"))
    assert rak.part("attributes").names[:2] == ("Cunning", "Intelligence")
    assert rak.part("mana").names == ("White", "Blue", "Black", "Red", "Green")
    assert rak.keys == ("notes", "attributes", "mana", "specialities") and not rak.currencies

    conductor = spec_for(make_campaign("conductor"))
    skills = conductor.part("skills")
    assert "Weapon" in skills.must_specify and "Art/Craft" in skills.must_specify
    assert "Awareness" in skills.may_specify
    assert conductor.keys == ("notes", "skills", "difficulty")
    assert conductor.currencies == ("bennies", "hits", "lasting_hits")

    two_dice = spec_for(make_campaign("two_dice"))
    assert two_dice.part("attributes").names == ("Might", "Agility", "Wits", "Presence")
    assert list(two_dice.part("resources").names) == ["Health", "Stamina", "Focus", "Resolve"]
    assert two_dice.part("attributes").range == (-5, 20)

    percentile = spec_for(make_campaign("percentile"))
    assert percentile.part("mv") is percentile.part("total_penalty")  # one Movement card
    assert percentile.part("skills").range == (-100, 300)
    assert percentile.keys == ("notes", "attributes", "quickness", "mv", "total_penalty", "skills")
    assert percentile.currencies == ("plot_points", "plot_points_total", "development_points")


def test_ruleset_overrides_reach_the_sheet(make_campaign):
    campaign = make_campaign("two_dice")
    campaign.ruleset = {
        "attributes": ["Brawn", "Grace", "Mind", "Heart"],
        "resources": {
            "Blood": ["Brawn", "Grace"],
            "Breath": ["Grace", "Mind"],
            "Nerve": ["Mind", "Heart"],
            "Will": ["Heart", "Brawn"],
        },
    }
    spec = spec_for(campaign)
    assert spec.part("attributes").names == ("Brawn", "Grace", "Mind", "Heart")
    assert list(spec.part("resources").names) == ["Blood", "Breath", "Nerve", "Will"]


def test_sections_and_currencies_read_the_character(make_campaign, alice):
    campaign = make_campaign("percentile")
    character = sheet_model(campaign.system)(
        campaign=campaign,
        owner=alice,
        name="Tomalfson",
        quickness=-9,
        mv=26,
        total_penalty=-65,
        attributes={"Perceptivity": 5},
        skills=[{"name": "Broadsword", "value": 55}],
        plot_points=2,
        plot_points_total=5,
        development_points=4,
    )
    spec = spec_for(campaign)
    sections = {section.title: section for section in sheet_sections(spec, character)}
    assert [(s.label, s.value) for s in sections["Stats"].stats] == [
        ("Quickness", -9),
        ("Perceptivity", 5),
    ]
    assert [(s.label, s.value) for s in sections["Skills"].stats] == [("Broadsword", 55)]
    assert [(s.label, s.value) for s in currency_stats(spec, character)] == [
        ("Plot points", "2 / 5"),
        ("Development points", 4),
    ]
