"""The sheet pages: who may see and change what, and bad input that changes nothing."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from tabletop.campaigns.models import Membership
from tabletop.characters.models import Character
from tests.tabletop.characters.helpers import (
    conductor_data,
    percentile_data,
    roll_and_keep_data,
    rows,
)

pytestmark = pytest.mark.django_db


def create_url(campaign) -> str:
    return reverse("characters:create", kwargs={"campaign_pk": campaign.pk})


def url(name: str, character: Character) -> str:
    return reverse(f"characters:{name}", kwargs={"pk": character.pk})


# --- creating -----------------------------------------------------------------------------------


def test_player_creates_own_pc(client, make_campaign, alice):
    campaign = make_campaign("roll_and_keep")
    client.force_login(alice)
    assert client.get(create_url(campaign)).status_code == 200

    response = client.post(create_url(campaign), roll_and_keep_data())

    character = Character.objects.get().sheet
    assert response.status_code == 302
    assert response["Location"] == url("detail", character)
    assert (character.owner, character.role, character.campaign) == (alice, "pc", campaign)
    assert character.mana == {"White": 0, "Blue": 2, "Black": 3, "Red": 0, "Green": 0}
    assert character.attributes["Cunning"] == 4
    assert character.specialities == [
        {"name": "Deceit", "attribute": "Cunning"},
        {"name": "Artifice", "attribute": "Intelligence"},
    ]


def test_player_form_has_no_role_and_a_posted_role_is_ignored(client, make_campaign, alice):
    campaign = make_campaign("conductor")
    client.force_login(alice)
    page = client.get(create_url(campaign)).content.decode()
    assert 'name="role"' not in page

    client.post(create_url(campaign), conductor_data(role="foe"))

    assert Character.objects.get().sheet.role == Character.Role.PC


def test_gm_creates_a_foe_with_a_difficulty(client, make_campaign, gm):
    campaign = make_campaign("conductor")
    client.force_login(gm)
    assert 'name="role"' in client.get(create_url(campaign)).content.decode()

    client.post(create_url(campaign), conductor_data(name="Bog Wight", role="foe", difficulty="5"))

    foe = Character.objects.get().sheet
    assert (foe.role, foe.owner, foe.difficulty) == ("foe", gm, 5)


def test_non_member_cannot_open_the_create_page(client, make_campaign, outsider):
    campaign = make_campaign("annulus")
    client.force_login(outsider)
    assert client.get(create_url(campaign)).status_code == 404
    assert client.post(create_url(campaign), {"name": "Spy"}).status_code == 404
    assert not Character.objects.exists()


def test_anonymous_is_sent_to_log_in(client, make_campaign, make_character, alice):
    campaign = make_campaign("annulus")
    character = make_character(campaign, alice)
    response = client.get(url("detail", character))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


# --- reading ------------------------------------------------------------------------------------


def test_every_member_reads_the_sheet_with_labelled_currencies(
    client, make_campaign, make_character, alice, bob
):
    campaign = make_campaign("percentile")
    character = make_character(
        campaign, alice, "Tomalfson", quickness=-9, mv=26, plot_points=2, plot_points_total=5
    )
    client.force_login(bob)
    response = client.get(url("detail", character))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Plot points" in page and "2 / 5" in page
    assert "Quickness" in page and "-9" in page
    # Bob is neither owner nor GM: no edit link, no adjust form.
    assert url("edit", character) not in page
    assert url("adjust", character) not in page


def test_gm_sees_the_adjust_form(client, make_campaign, make_character, gm, alice):
    character = make_character(make_campaign("conductor"), alice)
    client.force_login(gm)
    page = client.get(url("detail", character)).content.decode()
    assert url("adjust", character) in page
    assert 'name="bennies"' in page


def test_non_member_gets_404_everywhere(client, make_campaign, make_character, alice, outsider):
    character = make_character(make_campaign("two_dice"), alice)
    client.force_login(outsider)
    assert client.get(url("detail", character)).status_code == 404
    assert client.get(url("edit", character)).status_code == 404
    assert client.post(url("delete", character)).status_code == 404
    assert client.post(url("adjust", character), {"mode": "set"}).status_code == 404
    assert Character.objects.filter(pk=character.pk).exists()


def test_removed_player_loses_access_to_their_own_sheet(
    client, make_campaign, make_character, alice
):
    campaign = make_campaign("annulus")
    character = make_character(campaign, alice)
    client.force_login(alice)
    assert client.get(url("detail", character)).status_code == 200

    Membership.objects.filter(campaign=campaign, user=alice).delete()

    assert client.get(url("detail", character)).status_code == 404
    assert client.get(url("edit", character)).status_code == 404
    assert client.post(url("delete", character)).status_code == 404


# --- editing ------------------------------------------------------------------------------------


def test_player_cannot_edit_or_delete_anothers_sheet(
    client, make_campaign, make_character, alice, bob
):
    campaign = make_campaign("roll_and_keep")
    character = make_character(campaign, alice, "Sable", mana={"Black": 3})
    client.force_login(bob)
    assert client.get(url("edit", character)).status_code == 403
    response = client.post(url("edit", character), roll_and_keep_data(name="Stolen", mana_2="9"))
    assert response.status_code == 403
    assert client.get(url("delete", character)).status_code == 403
    assert client.post(url("delete", character)).status_code == 403
    character.refresh_from_db()
    assert (character.name, character.mana) == ("Sable", {"Black": 3})


def test_owner_edits_own_sheet(client, make_campaign, make_character, alice):
    character = make_character(make_campaign("roll_and_keep"), alice, "Sable")
    client.force_login(alice)
    response = client.post(url("edit", character), roll_and_keep_data(name="Sable the Sly"))
    assert response.status_code == 302
    character.refresh_from_db()
    assert character.name == "Sable the Sly"
    assert character.mana["Black"] == 3


def test_gm_edits_any_sheet(client, make_campaign, make_character, gm, alice):
    character = make_character(make_campaign("conductor"), alice, "Kestrel")
    client.force_login(gm)
    edit_page = client.get(url("edit", character))
    assert edit_page.status_code == 200

    client.post(url("edit", character), conductor_data(difficulty="4", role="pc"))

    character.refresh_from_db()
    assert character.difficulty == 4
    assert character.skills == [
        {"name": "Weapon", "value": 2, "specialisation": "Sword"},
        {"name": "Survival", "value": 1, "specialisation": ""},
    ]
    assert character.owner == alice  # the GM's edit doesn't take the character over


def test_edit_form_shows_existing_rows(client, make_campaign, make_character, alice):
    character = make_character(
        make_campaign("conductor"),
        alice,
        skills=[{"name": "Weapon", "value": 2, "specialisation": "Axe"}],
    )
    client.force_login(alice)
    page = client.get(url("edit", character)).content.decode()
    assert 'value="Axe"' in page
    # Unchanged existing rows are kept when the form is saved as it was loaded.
    data = conductor_data(skills=[{"name": "Weapon", "specialisation": "Axe", "value": "2"}])
    data["skills-INITIAL_FORMS"] = "1"
    client.post(url("edit", character), data)
    character.refresh_from_db()
    assert character.skills == [{"name": "Weapon", "value": 2, "specialisation": "Axe"}]


def test_deleting_a_row_removes_the_skill(client, make_campaign, make_character, alice):
    character = make_character(
        make_campaign("percentile"), alice, skills=[{"name": "Climbing", "value": 20}]
    )
    client.force_login(alice)
    data = percentile_data()
    data.update(rows("skills", [{"name": "Climbing", "value": "20", "DELETE": "on"}], initial=1))
    assert client.post(url("edit", character), data).status_code == 302
    character.refresh_from_db()
    assert character.skills == []
    assert (character.quickness, character.mv, character.total_penalty) == (-9, 26, -65)
    assert character.attributes == {"Perceptivity": 5}


# --- bad input: the error next to the field, nothing changed ---------------------------------


def assert_error_next_to(response, field, message: str) -> None:
    assert response.status_code == 200
    assert any(message in error for error in field.errors), field.errors
    # The field's own error line follows its input in the page.
    page = html.unescape(response.content.decode())
    input_at = page.index(f'id="{field.id_for_label}"')
    error_at = page.index('class="field-error"', input_at)
    assert message in page[error_at : error_at + 300]


def test_negative_mana_is_refused(client, make_campaign, make_character, alice):
    character = make_character(make_campaign("roll_and_keep"), alice, "Sable", mana={"Black": 3})
    client.force_login(alice)
    response = client.post(url("edit", character), roll_and_keep_data(mana_2="-1"))
    form = response.context["forms"].form
    assert_error_next_to(response, form["mana_2"], "Must be from 0 to 20.")
    character.refresh_from_db()
    assert character.mana == {"Black": 3}


def test_unknown_attribute_in_a_speciality_is_refused(client, make_campaign, alice):
    campaign = make_campaign("roll_and_keep")
    client.force_login(alice)
    data = roll_and_keep_data()
    data.update(rows("specialities", [{"name": "Prayer", "attribute": "Wisdom"}]))
    response = client.post(create_url(campaign), data)
    row = response.context["forms"].rows("specialities").forms[0]
    assert_error_next_to(response, row["attribute"], "Select a valid choice")
    assert not Character.objects.exists()


def test_weapon_needs_a_specialisation(client, make_campaign, alice):
    campaign = make_campaign("conductor")
    client.force_login(alice)
    data = conductor_data(skills=[{"name": "Weapon", "specialisation": "", "value": "2"}])
    response = client.post(create_url(campaign), data)
    row = response.context["forms"].rows("skills").forms[0]
    assert_error_next_to(response, row["specialisation"], "Weapon must be specified")
    assert not Character.objects.exists()


def test_duplicate_skill_is_refused_on_the_second_row(client, make_campaign, alice):
    campaign = make_campaign("percentile")
    client.force_login(alice)
    data = percentile_data()
    data.update(
        rows("skills", [{"name": "Climbing", "value": "20"}, {"name": "climbing", "value": "5"}])
    )
    response = client.post(create_url(campaign), data)
    second = response.context["forms"].rows("skills").forms[1]
    assert_error_next_to(response, second["name"], "listed twice")
    assert not Character.objects.exists()


def test_text_in_a_number_field_is_refused(client, make_campaign, make_character, alice):
    character = make_character(make_campaign("percentile"), alice, mv=26)
    client.force_login(alice)
    response = client.post(url("edit", character), percentile_data(mv="fast"))
    mv = response.context["forms"].form["mv"]
    assert_error_next_to(response, mv, "Give a whole number from 0 to 500.")
    character.refresh_from_db()
    assert character.mv == 26


def test_out_of_range_values_are_refused(client, make_campaign, alice):
    campaign = make_campaign("two_dice")
    client.force_login(alice)
    data = {"name": "Tamsin", "notes": "", "attr_0": "-6", "attr_1": "21", "attr_2": "0"}
    data.update({"attr_3": "0"})
    data.update({f"res_{i}_{part}": "3" for i in range(4) for part in ("current", "max")})
    data["res_0_current"] = "4"  # above its max of 3
    response = client.post(create_url(campaign), data)
    form = response.context["forms"].form
    assert "attr_0" in form.errors and "attr_1" in form.errors
    assert_error_next_to(response, form["res_0_current"], "can't be above its max")
    assert not Character.objects.exists()


def test_currencies_cannot_be_changed_through_the_sheet_form(
    client, make_campaign, make_character, alice
):
    character = make_character(make_campaign("conductor"), alice, bennies=1, hits=2)
    client.force_login(alice)
    data = conductor_data(bennies="99", hits="0", lasting_hits="0", plot_points="5")
    assert client.post(url("edit", character), data).status_code == 302
    character.refresh_from_db()
    assert (character.bennies, character.hits) == (1, 2)
    assert not hasattr(character, "plot_points")  # not a conductor sheet's column at all


# --- the GM's adjustments -----------------------------------------------------------------------


def test_gm_sets_and_adds(client, make_campaign, make_character, gm, alice):
    character = make_character(make_campaign("conductor"), alice, bennies=1)
    client.force_login(gm)
    response = client.post(url("adjust", character), {"mode": "set", "bennies": "4", "hits": ""})
    assert response.status_code == 302
    client.post(url("adjust", character), {"mode": "add", "hits": "2", "lasting_hits": "1"})
    character.refresh_from_db()
    assert (character.bennies, character.hits, character.lasting_hits) == (4, 2, 1)


def test_adjust_refuses_going_negative(client, make_campaign, make_character, gm, alice):
    character = make_character(make_campaign("conductor"), alice, bennies=1, hits=1)
    client.force_login(gm)
    response = client.post(url("adjust", character), {"mode": "add", "bennies": "-2", "hits": "1"})
    assert response.status_code == 400
    assert "below zero" in " ".join(response.context["adjust_form"].errors["bennies"])
    character.refresh_from_db()
    assert (character.bennies, character.hits) == (1, 1)


def test_adjust_refuses_plot_points_above_total(client, make_campaign, make_character, gm, alice):
    character = make_character(
        make_campaign("percentile"), alice, plot_points=2, plot_points_total=3
    )
    client.force_login(gm)
    response = client.post(url("adjust", character), {"mode": "set", "plot_points": "4"})
    assert response.status_code == 400
    assert "above the total" in response.content.decode()
    character.refresh_from_db()
    assert (character.plot_points, character.plot_points_total) == (2, 3)


def test_adjust_by_htmx_returns_the_currency_partial(
    client, make_campaign, make_character, gm, alice
):
    character = make_character(make_campaign("percentile"), alice, plot_points_total=3)
    client.force_login(gm)
    response = client.post(
        url("adjust", character), {"mode": "add", "plot_points": "2"}, HTTP_HX_REQUEST="true"
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith('<section id="currencies"')
    assert "2 / 3" in page
    assert "<html" not in page


def test_players_cannot_adjust(client, make_campaign, make_character, alice):
    character = make_character(make_campaign("conductor"), alice, bennies=0)
    client.force_login(alice)
    response = client.post(url("adjust", character), {"mode": "set", "bennies": "9"})
    assert response.status_code == 403
    character.refresh_from_db()
    assert character.bennies == 0


def test_adjust_is_post_only(client, make_campaign, make_character, gm, alice):
    character = make_character(make_campaign("conductor"), alice)
    client.force_login(gm)
    assert client.get(url("adjust", character)).status_code == 405


# --- deleting -----------------------------------------------------------------------------------


def test_owner_deletes_after_confirming(client, make_campaign, make_character, alice):
    campaign = make_campaign("annulus")
    character = make_character(campaign, alice, "Mira")
    client.force_login(alice)
    confirm = client.get(url("delete", character))
    assert confirm.status_code == 200
    assert "Delete Mira?" in confirm.content.decode()
    assert Character.objects.filter(pk=character.pk).exists()  # a GET deletes nothing

    response = client.post(url("delete", character))

    assert response.status_code == 302
    assert response["Location"] == reverse("campaigns:detail", kwargs={"pk": campaign.pk})
    assert not Character.objects.filter(pk=character.pk).exists()


def test_gm_deletes_a_players_character(client, make_campaign, make_character, gm, bob):
    character = make_character(make_campaign("two_dice"), bob)
    client.force_login(gm)
    assert client.post(url("delete", character)).status_code == 302
    assert not Character.objects.exists()


def test_adjust_by_htmx_shows_the_refusal_in_the_partial(
    client, make_campaign, make_character, gm, alice
):
    character = make_character(
        make_campaign("percentile"), alice, plot_points=2, plot_points_total=3
    )
    client.force_login(gm)
    response = client.post(
        url("adjust", character), {"mode": "add", "plot_points": "5"}, HTTP_HX_REQUEST="true"
    )
    page = html.unescape(response.content.decode())
    assert response.status_code == 200  # htmx only swaps 2xx responses
    assert "can't be above the total (3)" in page
    assert '<details class="adjust" open>' in page
    character.refresh_from_db()
    assert character.plot_points == 2


def test_adjust_boxes_start_blank_so_add_never_readds_current_values(
    client, make_campaign, make_character, gm, alice
):
    character = make_character(make_campaign("conductor"), alice, bennies=3, hits=1)
    client.force_login(gm)
    form = client.get(url("detail", character)).context["adjust_form"]
    assert all(field.value() in (None, "") for field in form.currency_fields)
    assert 'placeholder="now 3"' in str(form["bennies"])
