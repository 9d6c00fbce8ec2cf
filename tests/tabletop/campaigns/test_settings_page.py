"""The GM's ruleset editor, on real systems: what it saves, what it refuses, and reset."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from tabletop.campaigns import actions
from tests.tabletop.campaigns.conftest import make_campaign

pytestmark = pytest.mark.django_db

SYSTEMS = ["annulus", "roll_and_keep", "conductor", "two_dice", "percentile"]


def settings_url(campaign):
    return reverse("campaigns:settings", kwargs={"pk": campaign.pk})


def form_data(client, campaign):
    """What the browser would post back untouched: every field's current value."""
    form = client.get(settings_url(campaign)).context["form"]
    data = {}
    for name in form.fields:
        value = form[name].value()
        if value is not None and value is not False:
            data[name] = value
    return data


def entry_field(client, campaign, key, entry):
    """The input name of one entry (e.g. links → Strength) in a table editor."""
    form = client.get(settings_url(campaign)).context["form"]
    section = next(s for s in form.sections if s.key == key)
    return next(e.value.html_name for e in section.entries if e.name == entry)


def section(response, key):
    return next(s for s in response.context["form"].sections if s.key == key)


@pytest.fixture
def roll_and_keep(gm, client):
    client.force_login(gm)
    return make_campaign(gm, system="roll_and_keep")


@pytest.fixture
def two_dice(gm, client):
    client.force_login(gm)
    return make_campaign(gm, system="two_dice")


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_system_renders_and_saving_untouched_stores_nothing(client, gm, system):
    campaign = make_campaign(gm, system=system)
    client.force_login(gm)
    response = client.get(settings_url(campaign))
    assert response.status_code == 200
    for key in campaign.rules.DEFAULT_RULESET:
        assert f'id="ruleset-{key}"' in response.content.decode()
    response = client.post(settings_url(campaign), form_data(client, campaign))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.ruleset == {}


def test_a_changed_link_is_saved_and_in_force(client, roll_and_keep):
    data = form_data(client, roll_and_keep)
    data[entry_field(client, roll_and_keep, "links", "Strength")] = "red, green"
    response = client.post(settings_url(roll_and_keep), data)
    assert response.status_code == 302
    roll_and_keep.refresh_from_db()
    assert list(roll_and_keep.ruleset) == ["links"]
    assert roll_and_keep.effective_ruleset()["links"]["Strength"] == ["Red", "Green"]
    page = client.get(settings_url(roll_and_keep)).content.decode()
    assert 'value="Red, Green"' in page
    assert "changed from default" in page


def test_an_unknown_colour_in_a_link_is_shown_at_links_and_nothing_changes(client, roll_and_keep):
    data = form_data(client, roll_and_keep)
    data[entry_field(client, roll_and_keep, "links", "Cunning")] = "Purple"
    data["degrees"] = "Meh\nWow"  # a valid change alongside: must not be saved either
    response = client.post(settings_url(roll_and_keep), data)
    assert response.status_code == 200
    errors = section(response, "links").errors
    assert errors and "Purple" in errors[0]
    assert "Nothing was saved" in response.content.decode()
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.ruleset == {}


def test_list_fields_are_one_name_per_line(client, roll_and_keep):
    data = form_data(client, roll_and_keep)
    data["degrees"] = "  Scrape \n\nClean\nGlorious\n"
    assert client.post(settings_url(roll_and_keep), data).status_code == 302
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.effective_ruleset()["degrees"] == ["Scrape", "Clean", "Glorious"]


def test_a_number_table_entry_must_be_a_number(client, roll_and_keep):
    data = form_data(client, roll_and_keep)
    data[entry_field(client, roll_and_keep, "difficulties", "Easy")] = "three"
    response = client.post(settings_url(roll_and_keep), data)
    assert response.status_code == 200
    assert response.context["form"].errors
    roll_and_keep.refresh_from_db()
    assert roll_and_keep.ruleset == {}


def test_an_entry_can_be_added_and_removed(client, roll_and_keep):
    data = form_data(client, roll_and_keep)
    easy = entry_field(client, roll_and_keep, "difficulties", "Easy")
    data[f"{easy}__remove"] = "on"
    data["difficulties__new_name"] = "Trivial"
    data["difficulties__new_value"] = "2"
    assert client.post(settings_url(roll_and_keep), data).status_code == 302
    roll_and_keep.refresh_from_db()
    ladder = roll_and_keep.effective_ruleset()["difficulties"]
    assert ladder["Trivial"] == 2
    assert "Easy" not in ladder


def test_resources_relinked_to_other_attributes_are_saved(client, two_dice):
    data = form_data(client, two_dice)
    # every attribute still links to exactly two resources
    data[entry_field(client, two_dice, "resources", "Health")] = "Agility, Wits"
    data[entry_field(client, two_dice, "resources", "Stamina")] = "might, agility"
    assert client.post(settings_url(two_dice), data).status_code == 302
    two_dice.refresh_from_db()
    assert list(two_dice.ruleset) == ["resources"]
    resources = two_dice.effective_ruleset()["resources"]
    assert resources["Health"] == ["Agility", "Wits"]
    assert resources["Stamina"] == ["Might", "Agility"]


def test_a_resource_linked_twice_to_one_attribute_is_refused(client, two_dice):
    data = form_data(client, two_dice)
    data[entry_field(client, two_dice, "resources", "Stamina")] = "Agility, Agility"
    response = client.post(settings_url(two_dice), data)
    assert response.status_code == 200
    assert "Stamina" in " ".join(section(response, "resources").errors)
    two_dice.refresh_from_db()
    assert two_dice.ruleset == {}


def test_a_resource_linked_to_a_missing_attribute_is_refused(client, two_dice):
    data = form_data(client, two_dice)
    data[entry_field(client, two_dice, "resources", "Health")] = "Brawn, Agility"
    response = client.post(settings_url(two_dice), data)
    assert response.status_code == 200
    assert "Brawn" in " ".join(section(response, "resources").errors)
    two_dice.refresh_from_db()
    assert two_dice.ruleset == {}


def test_a_renamed_attribute_must_be_followed_by_the_resources(client, two_dice):
    data = form_data(client, two_dice)
    data["attributes"] = "Brawn\nAgility\nWits\nPresence"
    response = client.post(settings_url(two_dice), data)
    assert response.status_code == 200
    two_dice.refresh_from_db()
    assert two_dice.ruleset == {}


def test_bad_json_is_shown_at_its_field_and_nothing_changes(client, two_dice):
    data = form_data(client, two_dice)
    data["difficulties"] = '{"Normal": {"cost": 2, "dice": "roll"'
    data["attributes"] = "Might\nAgility\nWits\nPresence"
    response = client.post(settings_url(two_dice), data)
    assert response.status_code == 200
    assert "not valid JSON" in " ".join(response.context["form"].errors["difficulties"])
    two_dice.refresh_from_db()
    assert two_dice.ruleset == {}


def test_json_fields_are_saved_when_valid(client, two_dice):
    data = form_data(client, two_dice)
    difficulties = json.loads(data["difficulties"])
    difficulties["Normal"]["cost"] = 1
    data["difficulties"] = json.dumps(difficulties)
    assert client.post(settings_url(two_dice), data).status_code == 302
    two_dice.refresh_from_db()
    assert two_dice.effective_ruleset()["difficulties"]["Normal"]["cost"] == 1
    assert list(two_dice.ruleset) == ["difficulties"]


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
