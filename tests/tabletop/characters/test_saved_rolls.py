"""Saved rolls: kept on a character (its owner's and the GM's to change) or by a member for
themselves; checked by the dice language on save; edited on the character's and the campaign's
pages."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from tabletop.characters.models import SavedRoll
from tabletop.characters.saved_rolls import (
    saved_roll_add,
    saved_roll_delete,
    saved_roll_update,
)
from tests.support.tables import make_table, mira_and_troll

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    return make_table()


@pytest.fixture
def mira(table):
    return mira_and_troll(table)[0]


def add(table, actor, character=None, name="Longsword", dice="1d20+5"):
    return saved_roll_add(
        actor=actor, campaign=table.campaign, character=character, name=name, dice=dice
    )


def field_errors(error: ValidationError) -> dict[str, str]:
    return {key: " ".join(messages) for key, messages in error.message_dict.items()}


# --- the actions ----------------------------------------------------------------------------


def test_a_player_saves_rolls_on_her_character_in_order(table, mira):
    first = add(table, table.alice, mira)
    second = add(table, table.alice, mira, name="  Damage ", dice=" 1d8+3 ")
    assert (first.owner, first.character, first.order) == (table.alice, mira, 0)
    assert (second.name, second.expression, second.order) == ("Damage", "1d8+3", 1)
    assert [s.name for s in SavedRoll.objects.filter(character=mira)] == ["Longsword", "Damage"]


@pytest.mark.parametrize(
    ("name", "dice", "field", "message"),
    [
        ("Longsword", "1d20+", "expression", "Unexpected end at position 6"),
        ("Longsword", "", "expression", "Type its dice"),
        ("Longsword", "9" * 201, "expression", "at most 200"),
        ("", "1d20", "name", "Name the roll"),
        ("x" * 61, "1d20", "name", "at most 60"),
        ("2d6", "1d20", "name", "2d6 is dice already"),
    ],
)
def test_a_bad_roll_is_refused_with_the_field_at_fault(table, mira, name, dice, field, message):
    with pytest.raises(ValidationError) as refused:
        add(table, table.alice, mira, name=name, dice=dice)
    assert message in field_errors(refused.value)[field]
    assert not SavedRoll.objects.exists()


def test_one_name_once_per_character_and_per_members_own_whatever_its_case(table, mira):
    add(table, table.alice, mira)
    with pytest.raises(ValidationError, match="already"):
        add(table, table.alice, mira, name="LONGSWORD", dice="1d20")
    add(table, table.alice, None)  # her own may share a character's name
    with pytest.raises(ValidationError, match="already"):
        add(table, table.alice, None, name="longsword")
    add(table, table.bob, None)  # bob's own are his
    assert SavedRoll.objects.count() == 3


def test_only_the_owner_and_the_gm_change_a_characters_rolls(table, mira):
    with pytest.raises(PermissionDenied):
        add(table, table.bob, mira)
    saved = add(table, table.gm, mira)  # the GM saves on any character; it stays alice's
    assert saved.owner == table.alice
    with pytest.raises(PermissionDenied):
        saved_roll_update(actor=table.bob, saved=saved, name="Mine", dice="1d4")
    with pytest.raises(PermissionDenied):
        saved_roll_delete(actor=table.bob, saved=saved)
    saved_roll_update(actor=table.alice, saved=saved, name="Greatsword", dice="2d6+5")
    saved.refresh_from_db()
    assert (saved.name, saved.expression) == ("Greatsword", "2d6+5")
    saved_roll_delete(actor=table.gm, saved=saved)
    assert not SavedRoll.objects.exists()


def test_a_members_own_rolls_are_theirs_alone(table):
    own = add(table, table.alice, None)
    for other in (table.bob, table.gm):
        with pytest.raises(PermissionDenied):
            saved_roll_update(actor=other, saved=own, name="x", dice="1d4")
        with pytest.raises(PermissionDenied):
            saved_roll_delete(actor=other, saved=own)
    with pytest.raises(PermissionDenied):
        add(table, table.outsider, None)


# --- the pages ------------------------------------------------------------------------------


def test_the_character_page_lists_its_rolls_editable_by_its_owner_alone(client, table, mira):
    add(table, table.alice, mira)
    page = reverse("characters:detail", args=[mira.pk])
    client.force_login(table.alice)
    mine = client.get(page).content.decode()
    assert 'id="saved-rolls-' in mine and 'value="Longsword"' in mine
    assert reverse("characters:saved_roll_add", args=[mira.pk]) in mine
    client.force_login(table.bob)
    theirs = client.get(page).content.decode()
    assert "Longsword" in theirs and "1d20+5" in theirs
    assert 'value="Longsword"' not in theirs  # read, not edited
    assert reverse("characters:saved_roll_add", args=[mira.pk]) not in theirs


def test_adding_by_htmx_answers_with_the_list_and_keeps_a_bad_roll_to_fix(client, table, mira):
    client.force_login(table.alice)
    url = reverse("characters:saved_roll_add", args=[mira.pk])
    htmx = {"HTTP_HX_REQUEST": "true"}
    answer = client.post(url, {"new-name": "Damage", "new-expression": "1d8+3"}, **htmx)
    assert answer.status_code == 200
    assert answer.content.decode().lstrip().startswith("<section")
    assert SavedRoll.objects.get().expression == "1d8+3"
    bad = client.post(url, {"new-name": "Fire", "new-expression": "2d"}, **htmx).content.decode()
    assert "expected the number of sides" in bad
    assert 'value="2d"' in bad and 'aria-invalid="true"' in bad  # the text stays to be fixed
    assert SavedRoll.objects.count() == 1


def test_changing_and_deleting_through_the_pages(client, table, mira):
    saved = add(table, table.alice, mira)
    update = reverse("characters:saved_roll_update", args=[saved.pk])
    delete = reverse("characters:saved_roll_delete", args=[saved.pk])
    fields = {f"roll-{saved.pk}-name": "Axe", f"roll-{saved.pk}-expression": "1d20+4"}
    client.force_login(table.bob)
    assert client.post(update, fields).status_code == 403
    assert client.post(delete).status_code == 403
    client.force_login(table.outsider)
    assert client.post(update, fields).status_code == 404
    client.force_login(table.gm)
    assert client.post(update, fields).status_code == 302
    saved.refresh_from_db()
    assert (saved.name, saved.expression) == ("Axe", "1d20+4")
    assert client.post(delete).status_code == 302
    assert not SavedRoll.objects.exists()


def test_the_campaign_page_edits_your_own_rolls(client, table):
    add(table, table.bob, None, name="Luck", dice="1d6")
    client.force_login(table.alice)
    url = reverse("characters:own_roll_add", args=[table.campaign.pk])
    assert client.post(url, {"new-name": "Parley", "new-expression": "2d6"}).status_code == 302
    page = client.get(reverse("campaigns:detail", args=[table.campaign.pk])).content.decode()
    assert 'id="saved-rolls-own"' in page and 'value="Parley"' in page
    assert "Luck" not in page  # bob's are his
    client.force_login(table.outsider)
    assert client.post(url, {"new-name": "x", "new-expression": "1d4"}).status_code == 404
