"""The friendly error pages DEBUG off shows (`make run`, production): 404 and 403 in the site's
layout, and a standalone 500 that needs no database, no context processor and no base.html.

This module is also the URLconf of the 500 tests: the site's URLs plus one view that fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.template import loader
from django.test import Client, RequestFactory, override_settings
from django.urls import path, reverse
from django.views import defaults

from tabletop.campaigns.models import Campaign, Membership
from tabletop.characters.models import Character
from tabletop.urls import urlpatterns as site_urlpatterns

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / "templates"


def fail(request):
    raise RuntimeError("the table fell over")


urlpatterns = [path("test-only/fail/", fail), *site_urlpatterns]

debug_off = override_settings(DEBUG=False)


def visitor() -> Client:
    # As a browser sees it: the handler's page, not the exception.
    return Client(raise_request_exception=False)


# --- 500 -------------------------------------------------------------------------------------


def test_the_500_page_is_standalone():
    source = (TEMPLATES / "500.html").read_text()
    assert "{% extends" not in source and "{% include" not in source
    assert "{% url" not in source and "{% static" not in source  # nothing that can fail itself
    assert not re.search(r"\{\{", source), "no context: Django renders it with none"


def test_the_500_page_renders_with_an_empty_context_and_without_a_request():
    # What django.views.defaults.server_error does; no database here (no django_db mark: a
    # query would fail the test).
    page = loader.get_template("500.html").render()
    assert "<h1>Something went wrong</h1>" in page
    assert 'class="brand"' in page and 'class="container"' in page  # the site's look
    assert page.startswith("<!doctype html>")


def test_the_500_page_links_the_site_css_that_exists():
    page = loader.get_template("500.html").render()
    links = re.findall(r'href="/static/([^"]+)"', page)
    assert "css/app.css" in links and any(link.startswith("vendor/pico/") for link in links)
    for link in links:
        assert (ROOT / "static" / link).is_file(), f"500.html links a missing /static/{link}"


def test_the_server_error_view_serves_the_500_page_without_the_database():
    response = defaults.server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert b"Something went wrong" in response.content


@debug_off
@override_settings(ROOT_URLCONF=__name__)
def test_an_unexpected_error_shows_the_500_page_with_debug_off():
    response = visitor().get("/test-only/fail/")
    assert response.status_code == 500
    page = response.content.decode()
    assert "Something went wrong" in page
    assert "the table fell over" not in page and "Traceback" not in page


@override_settings(DEBUG=True, ROOT_URLCONF=__name__)
def test_with_debug_on_the_same_error_shows_the_traceback_page_instead():
    # The contrast that makes the test above mean something.
    response = visitor().get("/test-only/fail/")
    assert response.status_code == 500
    assert b"the table fell over" in response.content
    assert b"Something went wrong" not in response.content


# --- 404 and 403 -----------------------------------------------------------------------------


@pytest.mark.django_db
@debug_off
def test_a_missing_page_shows_the_friendly_404_in_the_site_layout():
    response = visitor().get("/no/such/table/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "<h1>Page not found</h1>" in page
    assert 'class="skip-link"' in page  # base.html's layout
    assert "Back to the start page" in page
    assert f'href="{reverse("login")}?next=/no/such/table/"' in page
    assert "Traceback" not in page and "URLconf" not in page  # not Django's debug page


@pytest.mark.django_db
@debug_off
def test_the_404_page_sends_a_logged_in_player_back_to_their_campaigns():
    client = visitor()
    client.force_login(get_user_model().objects.create_user("alice", password="x" * 12))
    page = client.get("/campaigns/999999/").content.decode()
    assert "<h1>Page not found</h1>" in page and "Back to your campaigns" in page
    assert "log in</a>" not in page


@pytest.mark.django_db
@debug_off
def test_a_refused_action_shows_the_friendly_403_with_its_reason():
    users = get_user_model().objects
    gm, alice, bob = (users.create_user(name, password="x" * 12) for name in ("gm", "alice", "bob"))
    campaign = Campaign.objects.create(name="Vault", system="conductor", gm=gm)
    for user, role in ((gm, Membership.Role.GM), (alice, None), (bob, None)):
        Membership.objects.create(campaign=campaign, user=user, **({"role": role} if role else {}))
    sheet = Character.objects.create(campaign=campaign, owner=alice, name="Hero")
    client = visitor()
    client.force_login(bob)
    response = client.get(reverse("characters:edit", args=[sheet.pk]))
    assert response.status_code == 403
    page = response.content.decode()
    assert "<h1>Not allowed</h1>" in page and 'class="skip-link"' in page
    assert "Only the character&#x27;s owner or the GM can change this sheet." in page
    assert "Back to your campaigns" in page


def test_the_403_page_without_a_reason_says_so_plainly():
    request = RequestFactory().get("/somewhere/")
    request.user = AnonymousUser()
    page = defaults.permission_denied(request, PermissionDenied()).content.decode()
    assert "<h1>Not allowed</h1>" in page and "You may not do that here." in page
    assert f'href="{reverse("login")}?next=/somewhere/"' in page
