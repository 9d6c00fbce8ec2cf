"""annulus's ruleset settings through the GM's page: the toolkit is a table of abilities.

What the page saves must be what the engine reads (``rules.annulus.toolkit_abilities``).
"""

from __future__ import annotations

import pytest

from rules import annulus
from tests.tabletop.campaigns.ruleset_pages import (
    cell,
    gm_campaign,
    page_form,
    post,
    refused,
    remove_box,
    section,
    untouched,
)

pytestmark = pytest.mark.django_db


campaign = gm_campaign("annulus")


def abilities(campaign):
    campaign.refresh_from_db()
    return {a.name: a for a in annulus.toolkit_abilities(ruleset=campaign.ruleset)}


def test_the_toolkit_is_a_table_of_abilities_with_an_effect_select(client, campaign):
    form = page_form(client, campaign)
    toolkit = section(form, "toolkit")
    assert toolkit.shape == "records"
    assert toolkit.headings == ["Name", "Effect", "Check dice", "Successes needed", "What it does"]
    effect = form[cell(form, "toolkit", "Calibrate", "Effect")]
    assert effect.widget_type == "select"
    assert [value for value, _ in effect.field.choices] == list(annulus.EFFECTS)
    dice = str(form[cell(form, "toolkit", "Calibrate", "Check dice")])
    assert 'min="0"' in dice and 'max="100"' in dice


def test_an_ability_is_added_and_the_engine_uses_it(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "toolkit", "New", "Name")] = "Steady Hands"
    data[cell(form, "toolkit", "New", "Effect")] = "set_value"
    data[cell(form, "toolkit", "New", "Successes needed")] = "2"
    data[cell(form, "toolkit", "New", "What it does")] = "An easier Calibrate."
    assert post(client, campaign, data).status_code == 302
    added = abilities(campaign)["Steady Hands"]
    # blank dice: the challenge check's pool; 2 successes whatever the difficulty
    assert (added.effect, added.dice, added.needed) == ("set_value", None, 2)
    rules = annulus.validate_ruleset(campaign.ruleset)
    assert added.check_dice(rules) == rules["challenge_check_dice"]
    assert added.check_needed(5) == 2


def test_an_ability_is_changed_and_another_removed(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "toolkit", "Calibrate", "Check dice")] = "4"
    data[remove_box(form, "toolkit", "Survey")] = "on"
    assert post(client, campaign, data).status_code == 302
    toolkit = abilities(campaign)
    assert toolkit["Calibrate"].dice == 4
    assert "Survey" not in toolkit
    assert list(toolkit) == ["Calibrate", "Free the Jam", "Shake Loose"]


@pytest.mark.parametrize(
    ("row", "column", "value", "message"),
    [
        ("Calibrate", "Check dice", "101", "Calibrate · Check dice: must be at most 100."),
        ("Calibrate", "Check dice", "many", "Calibrate · Check dice: enter a whole number."),
        ("Survey", "Successes needed", "-1", "Survey · Successes needed: must be at least 0."),
        ("Survey", "Effect", "explode", "Survey · Effect: explode is not one of the choices."),
        ("Survey", "Name", "", "Survey · Name: give a value."),
        ("New", "Check dice", "2", "New ability · Name: give a value."),
    ],
)
def test_a_bad_ability_names_its_row_and_field_and_nothing_changes(
    client, campaign, row, column, value, message
):
    form = page_form(client, campaign)
    assert message in refused(client, campaign, {cell(form, "toolkit", row, column): value})


def test_two_abilities_with_one_name_are_refused_by_the_rules(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "toolkit", "New", "Name")] = "survey"
    data[cell(form, "toolkit", "New", "Effect")] = "reveal"
    response = post(client, campaign, data)
    assert response.status_code == 200
    assert "names 'survey' twice" in " ".join(section(response.context["form"], "toolkit").errors)
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_a_target_above_the_die_is_refused_at_its_field(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data["check_target"] = "7"  # a d6 never shows 7
    response = post(client, campaign, data)
    assert response.status_code == 200
    assert section(response.context["form"], "check_target").errors
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_two_abilities_are_added_at_once_after_asking_for_another_row(client, campaign):
    data = untouched(page_form(client, campaign))
    data["add_row"] = "toolkit"
    form = post(client, campaign, data).context["form"]
    data = untouched(form)
    for row, name in (("New", "Pry"), ("New ability (2)", "Tap")):
        data[cell(form, "toolkit", row, "Name")] = name
        data[cell(form, "toolkit", row, "Effect")] = "unjam"
    assert post(client, campaign, data).status_code == 302
    assert list(abilities(campaign))[-2:] == ["Pry", "Tap"]
