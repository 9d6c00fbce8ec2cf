"""The admin lists characters with their campaign, owner and role, filtered and searchable."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_admin_changelist_filters_and_searches(
    client, admin_user, make_campaign, make_character, alice
):
    make_character(make_campaign("conductor"), alice, "Kestrel")
    make_character(make_campaign("annulus"), alice, "Mira")
    client.force_login(admin_user)
    changelist = reverse("admin:characters_character_changelist")

    page = client.get(changelist, {"campaign__system__exact": "conductor"}).content.decode()
    assert "Kestrel" in page and "Mira" not in page

    page = client.get(changelist, {"q": "mira"}).content.decode()
    assert "Mira" in page and "Kestrel" not in page
