"""The GM's ruleset editor, on real systems: what it shows, what it saves, what it refuses, reset.

Each system's own fields (toolkit, wilderness, difficulties, modifier tables, plot point uses) are
driven through the page in tests/tabletop/systems/<slug>/test_settings.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.http import QueryDict
from django.urls import reverse

from tabletop import systems
from tabletop.campaigns import actions
from tests.tabletop.campaigns.conftest import make_campaign
from tests.tabletop.campaigns.ruleset_pages import (
    cell,
    form_data,
    messages,
    new_name,
    page_form,
    post,
    refused,
    remove_box,
    row,
    section,
    settings_url,
    untouched,
)

pytestmark = pytest.mark.django_db

SYSTEMS = ["annulus", "roll_and_keep", "conductor", "two_dice", "percentile"]


@pytest.fixture
def roll_and_keep(gm, client):
    client.force_login(gm)
    return make_campaign(gm, system="roll_and_keep")


@pytest.fixture
def two_dice(gm, client):
    client.force_login(gm)
    return make_campaign(gm, system="two_dice")


# --- every system ---------------------------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_system_renders_and_saving_untouched_stores_nothing(client, gm, system):
    campaign = make_campaign(gm, system=system)
    client.force_login(gm)
    response = client.get(settings_url(campaign))
    assert response.status_code == 200
    for key in campaign.rules.DEFAULT_RULESET:
        assert f'id="ruleset-{key}"' in response.content.decode()
    response = post(client, campaign, form_data(client, campaign))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


@pytest.mark.parametrize("system", SYSTEMS)
def test_no_field_of_any_system_is_edited_as_json(client, gm, system):
    campaign = make_campaign(gm, system=system)
    client.force_login(gm)
    response = client.get(settings_url(campaign))
    assert [s.key for s in response.context["form"].sections if s.shape == "json"] == []
    assert 'class="json"' not in response.content.decode()


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_form_gives_back_each_systems_default_ruleset_unchanged(system):
    game = systems.get(system)
    defaults = game.rules.DEFAULT_RULESET
    expected = game.rules.validate_ruleset(None)
    form = game.settings_form(defaults=defaults, current=expected)
    data = untouched(form)
    query = QueryDict(mutable=True)
    for key, value in data.items():
        query.setlist(key, value if isinstance(value, list) else [value])
    again = game.settings_form(query, defaults=defaults, current=expected)
    assert again.is_valid(), again.errors
    assert game.rules.validate_ruleset(again.cleaned_ruleset) == expected


class _Inputs(HTMLParser):
    """Every form control of a page, the labels' ``for`` and the inline styles or scripts."""

    def __init__(self):
        super().__init__()
        self.controls: list[dict] = []
        self.label_for: set[str] = set()
        self.inline: list[str] = []
        self._open_labels = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "style" in attrs or any(name.startswith("on") for name in attrs):
            self.inline.append(tag)
        if tag == "script" and "src" not in attrs:
            self.inline.append("script")
        if tag == "label":
            self._open_labels += 1
            if attrs.get("for"):
                self.label_for.add(attrs["for"])
        if tag in ("input", "select", "textarea") and attrs.get("type") not in ("hidden", "submit"):
            self.controls.append({**attrs, "_wrapped": self._open_labels > 0})

    def handle_endtag(self, tag):
        if tag == "label":
            self._open_labels -= 1


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_input_has_a_label_and_the_page_has_no_inline_style_or_script(client, gm, system):
    campaign = make_campaign(gm, system=system)
    client.force_login(gm)
    parser = _Inputs()
    parser.feed(client.get(settings_url(campaign)).content.decode())
    unlabelled = [
        c.get("name")
        for c in parser.controls
        if c.get("id") not in parser.label_for and not c["_wrapped"]
    ]
    assert parser.controls and unlabelled == []
    assert parser.inline == []


# --- single inputs, lists and single-value tables ------------------------------------------------


def test_a_changed_link_is_saved_and_in_force(client, roll_and_keep):
    form = page_form(client, roll_and_keep)
    data = untouched(form)
    data[cell(form, "links", "Strength")] = "red, green"
    assert post(client, roll_and_keep, data).status_code == 302
    roll_and_keep.refresh_from_db()
    assert list(roll_and_keep.ruleset) == ["links"]
    assert roll_and_keep.effective_ruleset()["links"]["Strength"] == ["Red", "Green"]
    page = client.get(settings_url(roll_and_keep)).content.decode()
    assert 'value="Red, Green"' in page
    assert "changed from default" in page


def test_an_attribute_may_link_to_no_colour(client, roll_and_keep):
    form = page_form(client, roll_and_keep)
    data = untouched(form)
    data[cell(form, "links", "Strength")] = ""
    assert post(client, roll_and_keep, data).status_code == 302
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.effective_ruleset()["links"]["Strength"] == []


def test_an_unknown_colour_in_a_link_is_shown_at_links_and_nothing_changes(client, roll_and_keep):
    form = page_form(client, roll_and_keep)
    data = untouched(form)
    data[cell(form, "links", "Cunning")] = "Purple"
    data["degrees"] = "Meh\nWow"  # a valid change alongside: must not be saved either
    response = post(client, roll_and_keep, data)
    assert response.status_code == 200
    errors = section(response.context["form"], "links").errors
    assert errors and "Purple" in errors[0]
    assert "Nothing was saved" in response.content.decode()
    assert any("Purple" in message for message in messages(response))
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.ruleset == {}


def test_list_fields_are_one_name_per_line(client, roll_and_keep):
    data = form_data(client, roll_and_keep)
    data["degrees"] = "  Scrape \n\nClean\nGlorious\n"
    assert post(client, roll_and_keep, data).status_code == 302
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.effective_ruleset()["degrees"] == ["Scrape", "Clean", "Glorious"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("three", "Easy · Number: enter a whole number."),
        ("11", "Easy · Number: must be at most 10."),
        ("0", "Easy · Number: must be at least 1."),
        ("", "Easy · Number: give a number."),
    ],
)
def test_a_bad_difficulty_names_its_row_and_changes_nothing(client, roll_and_keep, value, message):
    form = page_form(client, roll_and_keep)
    data = untouched(form)
    data[cell(form, "difficulties", "Easy")] = value
    response = post(client, roll_and_keep, data)
    assert response.status_code == 200
    assert messages(response) == [message]
    assert message in response.content.decode()
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.ruleset == {}


def test_a_difficulty_input_carries_the_rules_bounds(client, roll_and_keep):
    form = page_form(client, roll_and_keep)
    html = str(form[cell(form, "difficulties", "Easy")])
    assert 'type="number"' in html and 'min="1"' in html and 'max="10"' in html


def test_an_entry_can_be_added_and_removed(client, roll_and_keep):
    form = page_form(client, roll_and_keep)
    data = untouched(form)
    data[remove_box(form, "difficulties", "Easy")] = "on"
    data[new_name(form, "difficulties")] = "Trivial"
    data[cell(form, "difficulties", "New")] = "2"
    assert post(client, roll_and_keep, data).status_code == 302
    roll_and_keep.refresh_from_db()
    ladder = roll_and_keep.effective_ruleset()["difficulties"]
    assert ladder["Trivial"] == 2
    assert "Easy" not in ladder
    # the engine reads the new rung by name
    assert roll_and_keep.rules.difficulty_value("trivial", ruleset=roll_and_keep.ruleset) == 2


def test_add_another_shows_one_more_blank_row_keeping_what_was_typed(client, roll_and_keep):
    form = page_form(client, roll_and_keep)
    data = untouched(form)
    data[cell(form, "difficulties", "Easy")] = "2"
    data[new_name(form, "difficulties")] = "Trivial"
    data[cell(form, "difficulties", "New")] = "1"
    data["degrees"] = ""  # not judged yet: only a row was asked for
    data["add_row"] = "difficulties"
    response = post(client, roll_and_keep, data)
    assert response.status_code == 200
    form = response.context["form"]
    new_rows = [r for r in section(form, "difficulties").rows if r.is_new]
    assert [r.label for r in new_rows] == ["New difficulty", "New difficulty (2)"]
    assert form[cell(form, "difficulties", "Easy")].value() == "2"
    assert form[new_name(form, "difficulties")].value() == "Trivial"
    assert "autofocus" in str(new_rows[1].name)
    assert messages(response) == [] and "Nothing was saved" not in response.content.decode()
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.ruleset == {}
    # both blank rows are read when the GM saves
    data = untouched(form)
    data.pop("add_row", None)
    data["degrees"] = "Marginal\nModerate"
    data[row(form, "difficulties", "New difficulty (2)").name.html_name] = "Heroic"
    data[cell(form, "difficulties", "New difficulty (2)")] = "10"
    assert post(client, roll_and_keep, data).status_code == 302
    roll_and_keep.refresh_from_db()
    ladder = roll_and_keep.effective_ruleset()["difficulties"]
    assert ladder["Easy"] == 2 and ladder["Trivial"] == 1 and ladder["Heroic"] == 10


def test_two_new_rows_may_not_take_one_name(client, roll_and_keep):
    form = page_form(client, roll_and_keep)
    data = untouched(form)
    data["add_row"] = "difficulties"
    form = post(client, roll_and_keep, data).context["form"]
    data = untouched(form)
    data[new_name(form, "difficulties")] = "Heroic"
    data[cell(form, "difficulties", "New")] = "9"
    data[row(form, "difficulties", "New difficulty (2)").name.html_name] = "heroic"
    data[cell(form, "difficulties", "New difficulty (2)")] = "10"
    response = post(client, roll_and_keep, data)
    assert messages(response) == ["New difficulty (2): 'heroic' is already a row; change it there."]
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.ruleset == {}


def test_resources_relinked_to_other_attributes_are_saved(client, two_dice):
    form = page_form(client, two_dice)
    data = untouched(form)
    # every attribute still links to exactly two resources
    data[cell(form, "resources", "Health")] = "Agility, Wits"
    data[cell(form, "resources", "Stamina")] = "might, agility"
    assert post(client, two_dice, data).status_code == 302
    two_dice.refresh_from_db()
    assert list(two_dice.ruleset) == ["resources"]
    resources = two_dice.effective_ruleset()["resources"]
    assert resources["Health"] == ["Agility", "Wits"]
    assert resources["Stamina"] == ["Might", "Agility"]


def test_a_resource_linked_twice_to_one_attribute_is_refused(client, two_dice):
    form = page_form(client, two_dice)
    data = untouched(form)
    data[cell(form, "resources", "Stamina")] = "Agility, Agility"
    response = post(client, two_dice, data)
    assert response.status_code == 200
    assert "Stamina" in " ".join(section(response.context["form"], "resources").errors)
    two_dice.refresh_from_db()
    assert two_dice.ruleset == {}


def test_a_resource_linked_to_a_missing_attribute_is_refused(client, two_dice):
    form = page_form(client, two_dice)
    data = untouched(form)
    data[cell(form, "resources", "Health")] = "Brawn, Agility"
    response = post(client, two_dice, data)
    assert response.status_code == 200
    assert "Brawn" in " ".join(section(response.context["form"], "resources").errors)
    two_dice.refresh_from_db()
    assert two_dice.ruleset == {}


def test_a_renamed_attribute_must_be_followed_by_the_resources(client, two_dice):
    data = form_data(client, two_dice)
    data["attributes"] = "Brawn\nAgility\nWits\nPresence"
    response = post(client, two_dice, data)
    assert response.status_code == 200
    two_dice.refresh_from_db()
    assert two_dice.ruleset == {}


def test_the_error_summary_links_to_each_bad_input(client, two_dice):
    form = page_form(client, two_dice)
    data = untouched(form)
    target = cell(form, "difficulties", "Hard", "Resource cost")
    data[target] = "lots"
    response = post(client, two_dice, data)
    page = response.content.decode()
    anchor = response.context["form"][target].id_for_label
    assert re.search(rf'<a href="#{anchor}">Hard · Resource cost: enter a whole number\.</a>', page)
    assert 'aria-invalid="true"' in page


# --- reset and a stored ruleset gone bad ---------------------------------------------------------


def test_reset_to_defaults_clears_the_overrides(client, gm, roll_and_keep):
    actions.ruleset_update(campaign=roll_and_keep, actor=gm, overrides={"degrees": ["Meh"]})
    response = client.post(reverse("campaigns:ruleset_reset", kwargs={"pk": roll_and_keep.pk}))
    assert response.status_code == 302
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.ruleset == {}
    assert roll_and_keep.effective_ruleset() == roll_and_keep.rules.validate_ruleset({})


def test_a_stored_ruleset_that_no_longer_validates_still_opens(client, roll_and_keep):
    # e.g. a default changed under the campaign's overrides: the GM must be able to fix it
    roll_and_keep.ruleset = {"links": {"Cunning": ["Octarine"]}}
    roll_and_keep.save()
    response = client.get(settings_url(roll_and_keep))
    assert response.status_code == 200
    assert "no longer passes the rules" in response.content.decode()
    # in the form's words: the field is "Attribute links", not "Ruleset field 'links'"
    assert response.context["stored_problem"].startswith("Unknown colour in Attribute links")


def test_a_stored_value_of_another_shape_is_shown_as_json_to_be_fixed(client, roll_and_keep):
    # The last resort: an old override that fits no input is still visible and fixable.
    roll_and_keep.ruleset = {"links": ["Cunning"]}
    roll_and_keep.save()
    response = client.get(settings_url(roll_and_keep))
    assert section(response.context["form"], "links").shape == "json"
    data = untouched(response.context["form"])
    data["links"] = '{"Cunning": ["Black"]}'
    assert post(client, roll_and_keep, data).status_code == 302
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.effective_ruleset()["links"] == {"Cunning": ["Black"]}


# --- what a GM may type, said on the form ---------------------------------------------------------


def test_a_ruleset_entry_too_long_is_refused_and_the_bounds_are_on_the_form(client, roll_and_keep):
    page = client.get(settings_url(roll_and_keep)).content.decode()
    colours = re.search(r'<textarea name="colours"[^>]*>', page).group(0)
    assert re.search(r'maxlength="\d+"', colours), "the list has a length the browser keeps to"
    help_line = section(page_form(client, roll_and_keep), "colours").help
    assert "up to 50 lines of at most 60 characters each" in help_line
    new_row = row(page_form(client, roll_and_keep), "difficulties", "New").name
    assert 'maxlength="60"' in str(new_row)

    data = form_data(client, roll_and_keep)
    data["colours"] = "White\n" + "Octarine" * 1250  # one 10,000-character line
    assert refused(client, roll_and_keep, data) == [
        "Colours of mana: “OctarineOctarineOctarine…” is 10000 characters long; a name may have "
        "at most 60."
    ]


def test_a_ruleset_list_may_not_grow_past_its_number_of_entries(client, roll_and_keep):
    data = form_data(client, roll_and_keep)
    data["degrees"] = "\n".join(f"Degree {n}" for n in range(51))
    assert refused(client, roll_and_keep, data) == ["Degrees of success: at most 50 lines, not 51."]


def test_a_rules_error_uses_the_words_on_the_form(client, two_dice, roll_and_keep):
    data = form_data(client, two_dice)
    data["attributes"] = ""
    shown = refused(client, two_dice, data)
    assert shown == ["Attributes must name at least one attribute."]
    data = form_data(client, roll_and_keep)
    data["colours"] = ""
    shown += refused(client, roll_and_keep, data)
    assert shown[1] == "Colours of mana must name at least one entry."
    assert not any("ruleset" in message.casefold() for message in shown)


def test_ruleset_numbers_say_their_range_before_a_save(client, roll_and_keep, gm):
    form = page_form(client, roll_and_keep)
    assert "Number: From 1 to 10." in section(form, "difficulties").notes
    annulus = make_campaign(gm, system="annulus")
    form = page_form(client, annulus)
    assert section(form, "check_target").help.endswith("From 1 to 1000.")
    assert "Check dice: From 0 to 100. Leave it blank for the challenge check's dice." in (
        section(form, "toolkit").notes
    )


def test_add_row_headings_take_the_right_article(client, gm):
    client.force_login(gm)
    page = client.get(settings_url(make_campaign(gm, system="annulus"))).content.decode()
    assert "Add an ability" in page
    assert "Add a ability" not in page and "drop a ability" not in page
    assert "Add a difficulty" in page
