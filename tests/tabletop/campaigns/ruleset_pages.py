"""Driving the GM's ruleset settings page as a browser would: read the form, change inputs, post.

Inputs are found by what the GM sees (a section, a row's name, a column's heading), not by their
generated names, so the tests read like "set Hard's resource cost to 5".
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from tests.tabletop.campaigns.conftest import make_campaign


def gm_campaign(system: str):
    """A module's ``campaign`` fixture: a campaign of ``system``, its GM logged in on the
    client (``campaign = gm_campaign("two_dice")``)."""

    @pytest.fixture
    def campaign(client, django_user_model):
        gm = django_user_model.objects.create_user(username="gwen", password="pw-gm-12345")
        client.force_login(gm)
        return make_campaign(gm, system=system)

    return campaign


def refused(client, campaign, changes: dict[str, Any]) -> list[str]:
    """Post the page as shown but for ``changes`` (input name -> value): the page must come
    back with errors and the stored ruleset stay as it was. The page's messages."""
    before = dict(campaign.ruleset or {})
    data = untouched(page_form(client, campaign))
    data.update(changes)
    response = post(client, campaign, data)
    assert response.status_code == 200
    campaign.refresh_from_db()
    assert campaign.ruleset == before, "a refused page changed the ruleset"
    return messages(response)


def settings_url(campaign) -> str:
    return reverse("campaigns:settings", kwargs={"pk": campaign.pk})


def page_form(client, campaign):
    return client.get(settings_url(campaign)).context["form"]


def untouched(form) -> dict[str, Any]:
    """What the browser would post back untouched: every input's current value."""
    data: dict[str, Any] = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False or value == []:
            continue
        data[name] = "on" if value is True else value
    for shown in form.sections:
        if shown.addable:  # the page's hidden count of blank rows
            data[f"{shown.key}__extra"] = str(shown.extra)
    return data


def form_data(client, campaign) -> dict[str, Any]:
    return untouched(page_form(client, campaign))


def section(form, key: str):
    return next(s for s in form.sections if s.key == key)


def row(form, key: str, label: str):
    """A row of a table editor by its name (``"New"`` for the blank row that adds one)."""
    rows = section(form, key).rows
    if label == "New":
        return next(r for r in rows if r.is_new)
    return next(r for r in rows if r.label == label)


def cell(form, key: str, label: str, column: str | None = None) -> str:
    """The input name of one cell: ``cell(form, "difficulties", "Hard", "Resource cost")``."""
    cells = row(form, key, label).cells
    if column is None:
        (only,) = cells
        return only.field.html_name
    return next(c.field.html_name for c in cells if c.column == column)


def new_name(form, key: str) -> str:
    return row(form, key, "New").name.html_name


def remove_box(form, key: str, label: str) -> str:
    return row(form, key, label).remove.html_name


def group_input(form, key: str, column: str) -> str:
    return next(c.field.html_name for c in section(form, key).group if c.column == column)


def post(client, campaign, data: dict[str, Any]):
    return client.post(settings_url(campaign), data)


def messages(response) -> list[str]:
    """Every error the page shows, as the summary at its top lists them."""
    return [message for _, message in response.context["form"].error_summary]
