"""percentile's ruleset settings through the GM's page: the modifier table, the campaign's own
modifiers and the plot point uses are tables; the chart bands are tick boxes.

What the page saves must be what the engine reads (``modifier``, ``plot_point_uses``).
"""

from __future__ import annotations

import pytest

from rules import percentile
from tabletop.systems.percentile.settings import parse_entry, show_entry
from tests.tabletop.campaigns.ruleset_pages import (
    cell,
    gm_campaign,
    messages,
    new_name,
    page_form,
    post,
    remove_box,
    row,
    section,
    untouched,
)

pytestmark = pytest.mark.django_db


campaign = gm_campaign("percentile")


def saved(client, campaign, data):
    response = post(client, campaign, data)
    assert response.status_code == 302, messages(response)
    campaign.refresh_from_db()
    return campaign.ruleset


@pytest.mark.parametrize(
    ("text", "entry"),
    [
        ("-10", -10),
        ("+5", 5),
        ("0", 0),
        ("X", {"formula": "total_penalty"}),
        ("x / 4", {"formula": "total_penalty/4"}),
        ("total_penalty/2", {"formula": "total_penalty/2"}),
    ],
)
def test_a_table_cell_is_written_as_the_seed_prints_it(text, entry):
    assert parse_entry(text) == entry
    assert parse_entry(show_entry(entry)) == entry


@pytest.mark.parametrize("text", ["lots", "X/0", "1001", "Y"])
def test_a_table_cell_that_is_no_number_or_formula_is_refused(text):
    with pytest.raises(ValueError):
        parse_entry(text)


def test_a_seed_condition_is_changed_and_the_engine_reads_it(client, campaign):
    form = page_form(client, campaign)
    assert not section(form, "modifier_overrides").has_entries
    data = untouched(form)
    data[new_name(form, "modifier_overrides")] = "Stunned"
    data[cell(form, "modifier_overrides", "New", "Movement")] = "-30"
    data[cell(form, "modifier_overrides", "New", "Magic")] = "X / 2"
    ruleset = saved(client, campaign, data)
    assert ruleset["modifier_overrides"] == {
        "Stunned": {"Movement": -30, "Magic": {"formula": "total_penalty/2"}}
    }
    assert percentile.modifier(condition="Stunned", column="Movement", ruleset=ruleset) == -30
    assert percentile.modifier(condition="Stunned", column="Items", ruleset=ruleset) == -75
    magic = percentile.modifier(
        condition="Stunned", column="Magic", total_penalty=-40, ruleset=ruleset
    )
    assert magic == -20
    # shown again as written, with the seed's numbers as placeholders in the blank cells
    form = page_form(client, campaign)
    assert form[cell(form, "modifier_overrides", "Stunned", "Magic")].value() == "X / 2"
    assert 'placeholder="-75"' in str(form[cell(form, "modifier_overrides", "Stunned", "Items")])


def test_a_changed_condition_is_dropped_by_removing_or_blanking_its_row(client, campaign):
    campaign.ruleset = {"modifier_overrides": {"Stunned": {"Movement": -30}, "Flat": {"Magic": 0}}}
    campaign.save()
    form = page_form(client, campaign)
    data = untouched(form)
    data[remove_box(form, "modifier_overrides", "Stunned")] = "on"
    data[cell(form, "modifier_overrides", "Flat", "Magic")] = ""
    assert saved(client, campaign, data) == {}


def test_the_new_condition_is_chosen_from_the_seeds_table(client, campaign):
    form = page_form(client, campaign)
    field = form[new_name(form, "modifier_overrides")]
    assert field.widget_type == "select"
    html = str(field)
    assert '<optgroup label="Wounds">' in html
    assert "Encumbrance (Total Penalty = X)" in html and "Bleeding, per hit/round" in html
    data = untouched(form)
    data[new_name(form, "modifier_overrides")] = "Quicksand"
    data[cell(form, "modifier_overrides", "New", "Movement")] = "-50"
    response = post(client, campaign, data)
    assert "New condition: Quicksand is not one of the choices." in messages(response)


def test_a_campaign_modifier_is_added_and_the_engine_reads_it(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[new_name(form, "custom_modifiers")] = "Thick Fog"
    data[cell(form, "custom_modifiers", "New", "Perception")] = "-20"
    data[cell(form, "custom_modifiers", "New", "Movement")] = "-5"
    ruleset = saved(client, campaign, data)
    assert percentile.modifier(condition="thick fog", column="Perception", ruleset=ruleset) == -20
    assert percentile.modifier(condition="Thick Fog", column="Items", ruleset=ruleset) == 0
    form = page_form(client, campaign)
    assert form[cell(form, "custom_modifiers", "Thick Fog", "Perception")].value() == "-20"


@pytest.mark.parametrize(
    ("field", "name", "value", "message"),
    [
        (
            "custom_modifiers",
            "Stunned",
            "-5",
            "New modifier: 'Stunned' is already a row of the seed's table: change it under "
            "“Changes to the modifier table”.",
        ),
        (
            "custom_modifiers",
            "Fog",
            "lots",
            "New modifier · Movement: write a whole number (e.g. -10 or +5), or X or X/4 for "
            "the Total Penalty.",
        ),
        (
            "modifier_overrides",
            "Stunned",
            "-2000",
            "New condition · Movement: must be between -1000 and +1000.",
        ),
    ],
)
def test_a_bad_modifier_names_its_row_and_column_and_nothing_changes(
    client, campaign, field, name, value, message
):
    form = page_form(client, campaign)
    data = untouched(form)
    data[new_name(form, field)] = name
    data[cell(form, field, "New", "Movement")] = value
    response = post(client, campaign, data)
    assert response.status_code == 200
    assert messages(response) == [message]
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_plot_point_uses_show_the_range_a_change_allows_as_two_numbers(client, campaign):
    form = page_form(client, campaign)
    uses = section(form, "plot_point_uses")
    assert uses.headings == [
        "Plot points",
        "Roll from",
        "Roll to",
        "May go open-ended",
        "GM approves",
        "GM sets the cost",
        "What it does",
    ]
    assert form[cell(form, "plot_point_uses", "Change a roll", "Roll from")].value() == 6
    assert form[cell(form, "plot_point_uses", "Change a roll", "Roll to")].value() == 95
    # the seed's uses always come back under the rules' merge: they cannot be removed
    assert row(form, "plot_point_uses", "A clue").remove is None


def test_a_plot_point_use_is_changed_and_one_added_and_the_engine_prices_them(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "plot_point_uses", "Change a roll", "Roll from")] = "10"
    data[cell(form, "plot_point_uses", "A clue", "Plot points")] = "2"
    data[new_name(form, "plot_point_uses")] = "Reroll initiative"
    data[cell(form, "plot_point_uses", "New", "Plot points")] = "1"
    data[cell(form, "plot_point_uses", "New", "What it does")] = "Roll initiative again."
    ruleset = saved(client, campaign, data)
    uses = percentile.plot_point_uses(ruleset)
    assert uses["change_roll"]["values"] == [10, 95]
    assert uses["clue"]["cost"] == 2
    assert uses["Reroll initiative"] == {
        "cost": 1,
        "gm_approval": False,
        "gm_sets_cost": False,
        "text": "Roll initiative again.",
    }
    # the one the GM added may go again
    form = page_form(client, campaign)
    data = untouched(form)
    data[remove_box(form, "plot_point_uses", "Reroll initiative")] = "on"
    assert "Reroll initiative" not in percentile.plot_point_uses(saved(client, campaign, data))


@pytest.mark.parametrize(
    ("use", "column", "value", "message"),
    [
        ("A clue", "Plot points", "0", "A clue · Plot points: must be at least 1."),
        ("Change a roll", "Roll to", "101", "Change a roll · Roll to: must be at most 100."),
    ],
)
def test_a_bad_plot_point_use_names_its_row_and_field(
    client, campaign, use, column, value, message
):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "plot_point_uses", use, column)] = value
    response = post(client, campaign, data)
    assert messages(response) == [message]
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_two_ways_of_changing_a_roll_at_one_price_are_refused_by_the_rules(client, campaign):
    form = page_form(client, campaign)
    data = untouched(form)
    data[cell(form, "plot_point_uses", "Change a roll, open-ended", "Plot points")] = "1"
    response = post(client, campaign, data)
    assert response.status_code == 200
    assert section(response.context["form"], "plot_point_uses").errors
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_chart_bands_are_tick_boxes_in_the_charts_words(client, campaign):
    form = page_form(client, campaign)
    field = form["zone_ends_on"]
    assert field.widget_type == "checkboxselectmultiple"
    assert "Extraordinary Failure" in str(field)
    data = untouched(form)
    data["zone_ends_on"] = [percentile.FUMBLE, percentile.EXTRAORDINARY_FAILURE]
    ruleset = saved(client, campaign, data)
    assert ruleset == {"zone_ends_on": [percentile.FUMBLE, percentile.EXTRAORDINARY_FAILURE]}


def test_running_percent_rows_are_the_charts_and_cannot_be_removed(client, campaign):
    form = page_form(client, campaign)
    rows = section(form, "running_percent").rows
    assert [r.label for r in rows] == [
        "Extraordinary Failure",
        "Fumble",
        "Unrelated Success",
        "Critical Success",
        "Extraordinary Success",
    ]
    assert all(r.remove is None and not r.is_new for r in rows)
