"""two_dice's ruleset settings through the GM's page: the difficulties are a table.

What the page saves must be what the engine reads (``rules.two_dice.check_distribution``).
"""

from __future__ import annotations

import pytest

from rules import two_dice
from tests.tabletop.campaigns.ruleset_pages import (
    cell,
    gm_campaign,
    messages,
    new_name,
    page_form,
    post,
    refused,
    remove_box,
    section,
    untouched,
)

pytestmark = pytest.mark.django_db


campaign = gm_campaign("two_dice")


def test_the_difficulties_are_a_table_with_the_seeds_dice_modes(client, campaign):
    form = page_form(client, campaign)
    assert section(form, "difficulties").headings == ["Resource cost", "Dice", "Dice rolled"]
    dice = form[cell(form, "difficulties", "Easy", "Dice")]
    assert dice.widget_type == "select" and dice.value() == two_dice.KEEP_HIGHEST
    assert "Roll extra dice, keep the higher two" in str(dice)
    # only the keep modes choose how many dice are rolled
    assert form[cell(form, "difficulties", "Easy", "Dice rolled")].value() == 3
    assert form[cell(form, "difficulties", "Normal", "Dice rolled")].value() in ("", None)


def test_a_cost_is_changed_and_the_engine_charges_it(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "difficulties", "Hard", "Resource cost")] = "5"
    assert post(client, campaign, data).status_code == 302
    campaign.refresh_from_db()
    assert list(campaign.ruleset) == ["difficulties"]
    assert campaign.effective_ruleset()["difficulties"]["Hard"] == {
        "cost": 5,
        "dice": two_dice.KEEP_LOWEST,
        "rolled": 3,
    }


def test_a_difficulty_is_added_and_one_removed_and_the_engine_rolls_it(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[remove_box(form, "difficulties", "Trivial")] = "on"
    data[new_name(form, "difficulties")] = "Heroic"
    data[cell(form, "difficulties", "New", "Resource cost")] = "6"
    data[cell(form, "difficulties", "New", "Dice")] = two_dice.KEEP_LOWEST
    data[cell(form, "difficulties", "New", "Dice rolled")] = "4"
    assert post(client, campaign, data).status_code == 302
    campaign.refresh_from_db()
    ladder = campaign.effective_ruleset()["difficulties"]
    assert "Trivial" not in ladder
    assert ladder["Heroic"] == {"cost": 6, "dice": two_dice.KEEP_LOWEST, "rolled": 4}
    heroic = two_dice.check_distribution(attribute=8, difficulty="heroic", ruleset=campaign.ruleset)
    hard = two_dice.check_distribution(attribute=8, difficulty="Hard", ruleset=campaign.ruleset)
    assert heroic[two_dice.SUCCESS] + heroic[two_dice.CRITICAL_SUCCESS] < (
        hard[two_dice.SUCCESS] + hard[two_dice.CRITICAL_SUCCESS]
    )


def test_a_blank_dice_rolled_keeps_three_for_a_keep_mode(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "difficulties", "Easy", "Dice rolled")] = ""
    assert post(client, campaign, data).status_code == 302
    campaign.refresh_from_db()
    assert campaign.ruleset == {}  # the same as the default
    assert campaign.effective_ruleset()["difficulties"]["Easy"]["rolled"] == 3


@pytest.mark.parametrize(
    ("row", "column", "value", "message"),
    [
        ("Hard", "Resource cost", "-1", "Hard · Resource cost: must be at least 0."),
        ("Hard", "Resource cost", "", "Hard · Resource cost: give a number."),
        ("Easy", "Dice rolled", "1", "Easy · Dice rolled: must be at least 2."),
        ("Easy", "Dice", "", "Easy · Dice: give one of the choices."),
        ("New", "Resource cost", "2", "New difficulty: give it a name."),
    ],
)
def test_a_bad_difficulty_names_its_row_and_field_and_nothing_changes(
    client, campaign, row, column, value, message
):
    form = page_form(client, campaign)
    assert message in refused(client, campaign, {cell(form, "difficulties", row, column): value})


def test_extra_dice_on_a_plain_roll_are_refused_by_the_rules(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "difficulties", "Normal", "Dice rolled")] = "3"
    response = post(client, campaign, data)
    assert response.status_code == 200
    errors = " ".join(section(response.context["form"], "difficulties").errors)
    assert "Normal" in errors and "rolled" in errors
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_the_reaction_window_is_bounded_as_the_rules_bound_it(client, campaign):
    form = page_form(client, campaign)
    assert 'min="3"' in str(form["reaction_seconds"]) and 'max="600"' in str(
        form["reaction_seconds"]
    )
    data = untouched(form)
    data["reaction_seconds"] = "2"
    response = post(client, campaign, data)
    assert messages(response) == ["Reaction window (seconds): must be at least 3."]
    data["reaction_seconds"] = "45"
    assert post(client, campaign, data).status_code == 302
    campaign.refresh_from_db()
    assert campaign.effective_ruleset()["reaction_seconds"] == 45
