"""conductor's ruleset settings through the GM's page: the wilderness numbers and the skills.

What the page saves must be what the engine reads (``WildernessRules``, ``skill_names``).
"""

from __future__ import annotations

import pytest

from rules import conductor
from tests.tabletop.campaigns.ruleset_pages import (
    cell,
    gm_campaign,
    group_input,
    messages,
    new_name,
    page_form,
    post,
    remove_box,
    section,
    settings_url,
    untouched,
)

pytestmark = pytest.mark.django_db


campaign = gm_campaign("conductor")


def test_the_wilderness_is_one_labelled_input_per_number(client, campaign):
    form = page_form(client, campaign)
    wilderness = section(form, "wilderness")
    assert wilderness.shape == "group"
    assert [c.column for c in wilderness.group] == [
        "Forage difficulty",
        "Supply dice, largest first",
        "Supply roll must beat",
        "Trek (hexes)",
        "Gallop (hexes)",
        "Ferry (hexes)",
        "Tired mounts recover",
    ]
    assert form[group_input(form, "wilderness", "Supply dice, largest first")].value() == (
        "d12, d10, d8, d6, d4"
    )
    assert form[group_input(form, "wilderness", "Tired mounts recover")].widget_type == "select"


def test_wilderness_numbers_are_saved_and_the_expedition_uses_them(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[group_input(form, "wilderness", "Supply dice, largest first")] = "10, 8, 6"
    data[group_input(form, "wilderness", "Gallop (hexes)")] = "3"
    data[group_input(form, "wilderness", "Tired mounts recover")] = "new_day"
    assert post(client, campaign, data).status_code == 302
    campaign.refresh_from_db()
    assert list(campaign.ruleset) == ["wilderness"]
    rules = conductor.WildernessRules.from_ruleset(campaign.ruleset)
    assert rules.supply_dice == (10, 8, 6)
    assert rules.hexes("Gallop") == 3
    assert rules.mounts_recover == "new_day"


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        (
            "Supply dice, largest first",
            "d12, x",
            "Wilderness · Supply dice, largest first: “x” is not a die size; write sizes such "
            "as d12, d10, d8.",
        ),
        (
            "Supply dice, largest first",
            "12, 1",
            "Wilderness · Supply dice, largest first: a die has from 2 to 1000 sides, not 1.",
        ),
        ("Trek (hexes)", "101", "Wilderness · Trek (hexes): must be at most 100."),
        ("Forage difficulty", "", "Wilderness · Forage difficulty: give a number."),
    ],
)
def test_a_bad_wilderness_number_names_its_field_and_nothing_changes(
    client, campaign, column, value, message
):
    form = page_form(client, campaign)
    data = untouched(form)
    data[group_input(form, "wilderness", column)] = value
    response = post(client, campaign, data)
    assert response.status_code == 200
    assert messages(response) == [message]
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_supply_dice_that_do_not_step_down_are_refused_beside_the_field(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[group_input(form, "wilderness", "Supply dice, largest first")] = "d8, d10"
    response = post(client, campaign, data)
    assert response.status_code == 200
    assert messages(response) == [
        "Wilderness · Supply dice, largest first: d10 cannot come after d8: each die is "
        "smaller than the one before."
    ]
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_skills_choose_how_they_are_specified(client, campaign):
    form = page_form(client, campaign)
    rule = form[cell(form, "skills", "Awareness")]
    assert rule.widget_type == "select" and rule.value() == "may"
    data = untouched(form)
    data[cell(form, "skills", "Poison")] = "must"
    data[new_name(form, "skills")] = "Sailing"
    data[cell(form, "skills", "New")] = "may"
    assert post(client, campaign, data).status_code == 302
    campaign.refresh_from_db()
    skills = campaign.effective_ruleset()["skills"]
    assert skills["Poison"] == "must" and skills["Sailing"] == "may"
    assert "Sailing" in conductor.skill_names(ruleset=campaign.ruleset)


def test_a_removed_skill_stays_removed_when_saved_again(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[remove_box(form, "skills", "Poison")] = "on"
    assert post(client, campaign, data).status_code == 302
    campaign.refresh_from_db()
    assert "Poison" not in conductor.skill_names(ruleset=campaign.ruleset)
    # the rules merge the skill list over the seed's: saving the page again must not bring it back
    assert post(client, campaign, untouched(page_form(client, campaign))).status_code == 302
    campaign.refresh_from_db()
    assert "Poison" not in conductor.skill_names(ruleset=campaign.ruleset)
    assert len(conductor.skill_names(ruleset=campaign.ruleset)) == len(conductor.SKILLS) - 1


@pytest.mark.parametrize("typed", ["d12, d10", "D12,d10", "12, 10"])
def test_supply_dice_say_their_format_beside_the_field_and_take_it_as_typed(
    client, campaign, typed
):
    form = page_form(client, campaign)
    name = group_input(form, "wilderness", "Supply dice, largest first")
    (supply,) = [c for c in section(form, "wilderness").group if c.field.html_name == name]
    assert supply.help.startswith("Die sizes such as d12, d10, d8")
    page = client.get(settings_url(campaign)).content.decode()
    assert f'id="{supply.field.auto_id}_helptext">Die sizes such as d12, d10, d8' in page
    data = untouched(form)
    data[name] = typed
    assert post(client, campaign, data).status_code == 302
    campaign.refresh_from_db()
    assert conductor.WildernessRules.from_ruleset(campaign.ruleset).supply_dice == (12, 10)
    assert page_form(client, campaign)[name].value() == "d12, d10"
