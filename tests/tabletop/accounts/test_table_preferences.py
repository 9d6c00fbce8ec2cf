"""A member's table preferences (issue 47): what a screen reader announces at the table, and
whether "/" reaches the message box. Kept from the account page, read by every scene page."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tabletop.accounts.models import TablePreferences
from tests.support.tables import make_table

PASSWORD = "a-long-table-secret"


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_a_member_without_a_choice_hears_everything_and_has_the_slash_key():
    table = make_table()
    page = client_for(table.alice).get(reverse("scenes:detail", args=[table.scene.pk]))
    assert 'data-announce="all" data-slash-key="1"' in page.content.decode()


@pytest.mark.django_db
def test_the_choice_saved_on_the_account_page_reaches_the_scene_page():
    table = make_table()
    client = client_for(table.alice)
    saved = client.post(reverse("account_table"), {"announce": "mine"})  # the box unticked
    assert saved.status_code == 302
    prefs = TablePreferences.objects.get(user=table.alice)
    assert (prefs.announce, prefs.slash_key) == ("mine", False)
    page = client.get(reverse("scenes:detail", args=[table.scene.pk])).content.decode()
    assert 'data-announce="mine" data-slash-key="0"' in page
    account = client.get(reverse("account")).content.decode()
    assert 'value="mine" ' in account and "checked" in account.split('value="mine"')[1][:40]
    # bob's own page is his: nothing of alice's choice
    bobs = client_for(table.bob).get(reverse("scenes:detail", args=[table.scene.pk]))
    assert 'data-announce="all"' in bobs.content.decode()


@pytest.mark.django_db
def test_an_unknown_choice_is_refused_with_its_error_and_changes_nothing():
    table = make_table()
    client = client_for(table.alice)
    client.post(reverse("account_table"), {"announce": "none", "slash_key": "on"})
    refused = client.post(reverse("account_table"), {"announce": "shout"})
    assert refused.status_code == 200
    assert "Select a valid choice" in refused.content.decode()
    prefs = TablePreferences.objects.get(user=table.alice)
    assert (prefs.announce, prefs.slash_key) == ("none", True)
