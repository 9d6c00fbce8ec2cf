"""The sheet form on a refused save and its skill rows: an error summary heading the form (each
error a link to its field, the summary focused on load), and a label of its own for every field
of a skill row, as a screen reader announces them."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from tests.tabletop.characters.helpers import conductor_data, percentile_data, rows

pytestmark = pytest.mark.django_db


def create_url(campaign) -> str:
    return reverse("characters:create", kwargs={"campaign_pk": campaign.pk})


def labels(page: str) -> dict[str, str]:
    """Each <label for="id">'s text, by the id it names."""
    found = re.findall(r'<label for="([^"]+)">(.*?)</label>', page, flags=re.S)
    return {target: " ".join(html.unescape(text).split()) for target, text in found}


@pytest.mark.parametrize("system", ["conductor", "percentile"])
def test_each_field_of_a_skill_row_has_a_label_of_its_own(client, make_campaign, alice, system):
    client.force_login(alice)
    page = client.get(create_url(make_campaign(system))).content.decode()
    row = {
        target.removeprefix("id_skills-0-"): text
        for target, text in labels(page).items()
        if target.startswith("id_skills-0-")
    }
    assert row["name"] == "Skill"
    assert "value" in row
    assert len(set(row.values())) == len(row), f"two fields of a skill row share a label: {row}"


def test_a_refused_save_opens_on_a_summary_of_its_errors(client, make_campaign, alice):
    client.force_login(alice)
    data = conductor_data(name="", skills=[{"name": "Weapon", "specialisation": "", "value": "2"}])
    response = client.post(create_url(make_campaign("conductor")), data)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())

    summary = re.search(r'<div class="error-summary"[^>]*>(.*?)</div>', page, flags=re.S)
    assert summary, "a refused save shows the error summary"
    opening = summary.group(0)[: summary.group(0).index(">") + 1]
    # Focused on load without a script: focusable, and autofocus.
    assert 'tabindex="-1"' in opening and "autofocus" in opening
    # It heads the form: after the form's start, before its first fieldset.
    assert page.index('<form method="post"') < summary.start() < page.index("<fieldset")
    links = {
        target: " ".join(text.split())
        for target, text in re.findall(r'<a href="#([^"]+)">(.*?)</a>', summary.group(1), re.S)
    }
    assert links["id_name"] == "Name: This field is required."
    assert links["id_skills-0-specialisation"].startswith(
        "Skills, row 1, Specialisation: Weapon must be specified"
    )
    for target in links:
        assert f'id="{target}"' in page, f"the summary links to #{target}, not on the page"


def test_a_form_without_errors_has_no_summary(client, make_campaign, alice):
    client.force_login(alice)
    page = client.get(create_url(make_campaign("conductor"))).content.decode()
    assert "error-summary" not in page
    assert "autofocus" not in page


# --- bounds shown before a save, and spare rows ---------------------------------------------------


def test_every_number_on_the_sheet_form_says_its_range_before_any_save(
    client, make_campaign, alice
):
    client.force_login(alice)
    page = client.get(create_url(make_campaign("roll_and_keep"))).content.decode()
    numbers = re.findall(r'<input type="number"[^>]*>', page)
    assert numbers, "the roll and keep sheet has number inputs"
    for tag in numbers:
        low = re.search(r'min="(-?\d+)"', tag)
        high = re.search(r'max="(-?\d+)"', tag)
        assert low and high, f"a number input without its bounds: {tag}"
        field_id = re.search(r'id="([^"]+)"', tag).group(1)
        hint = re.search(rf'<small class="help" id="{field_id}_helptext">([^<]*)</small>', page)
        assert hint, f"{field_id} has no visible hint"
        assert f"From {low.group(1)} to {high.group(1)}." in hint.group(1)
        assert f"{field_id}_helptext" in tag  # and a screen reader hears it with the field


def test_typing_only_a_number_in_a_spare_row_asks_for_its_name_alone(client, make_campaign, alice):
    client.force_login(alice)
    skills = [
        {"name": "Weapon", "specialisation": "Sword", "value": "2"},
        {"name": "", "specialisation": "", "value": "3"},  # the spare row: a number, no name
    ]
    response = client.post(create_url(make_campaign("conductor")), conductor_data(skills=skills))
    assert response.status_code == 200
    rows = response.context["forms"].rows("skills")
    assert dict(rows.forms[1].errors) == {"name": ["Choose a skill, or clear the row to add none."]}
    assert [(e.where, e.message) for e in response.context["forms"].errors] == [
        ("Skills, row 2, Skill", "Choose a skill, or clear the row to add none.")
    ]


def test_a_spare_row_left_blank_adds_nothing_and_a_named_one_is_saved(client, make_campaign, alice):
    client.force_login(alice)
    campaign = make_campaign("conductor")
    skills = [
        {"name": "Weapon", "specialisation": "Sword", "value": "2"},
        {"name": "", "specialisation": "", "value": ""},
        {"name": "Survival", "specialisation": "", "value": "1"},
    ]
    response = client.post(create_url(campaign), conductor_data(skills=skills))
    assert response.status_code == 302
    character = campaign.characters.get()
    assert [skill["name"] for skill in character.conductor_sheet.skills] == ["Weapon", "Survival"]


def test_a_number_in_a_spare_stat_row_asks_for_the_stats_name(client, make_campaign, alice):
    client.force_login(alice)
    data = percentile_data()
    data.update(rows("stats", [{"name": "Perceptivity", "value": "5"}, {"value": "7"}]))
    response = client.post(create_url(make_campaign("percentile")), data)
    assert response.status_code == 200
    assert [(e.where, e.message) for e in response.context["forms"].errors] == [
        ("Stats, row 2, Stat", "Give this stat a name, or clear the row to add none.")
    ]


def test_a_sheets_list_has_a_most_rows_said_when_passed(client, make_campaign, alice):
    client.force_login(alice)
    campaign = make_campaign("percentile")
    page = client.get(create_url(campaign)).content.decode()
    assert "Save to get more blank rows (up to 100)." in page
    data = percentile_data()
    data.update(rows("stats", [{"name": f"Stat {n}", "value": "1"} for n in range(101)]))
    response = client.post(create_url(campaign), data)
    assert response.status_code == 200
    assert [(e.where, e.message) for e in response.context["forms"].errors] == [
        ("Stats", "At most 100 rows: remove some before adding more.")
    ]
